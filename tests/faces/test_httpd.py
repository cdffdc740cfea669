"""The connection loop under `kura serve` (kura_core.faces.httpd), driven over real sockets.

A small application answers here so each behaviour of the loop can be provoked on purpose:
framing (pipelined, byte-at-a-time and cut-short requests), replies larger than a socket
takes at once, clients that stall, idle connections, work handed to the pool, running out
of descriptors, and shutting down with work in flight. The HTTP face's own behaviour is
tested in test_http.py; what the two do together under load, in test_load.py."""

from __future__ import annotations

import errno
import re
import socket
import threading
import time

import pytest

from kura_core.faces import httpd
from tests.wait import wait_for


class App:
    """Routes by request path. /echo answers the body; /big/<n> answers n bytes; /pool
    answers from the pool; /later starts on the loop and finishes on the pool; /block waits
    on the pool until released; /crash fails while its reply is made."""

    def __init__(self) -> None:
        self.log: list[str] = []
        self.release = threading.Event()
        self.threads: list[str] = []
        self.order: list[str] = []

    def begin(self, head: bytes, peer) -> httpd.Begun:
        line, _, rest = head.partition(b"\r\n")
        words = line.split()
        if len(words) != 3:
            return httpd.Begun(early=self.refuse(400, "bad request line", peer), go=False)
        path = words[1].decode()
        m = re.search(rb"(?im)^content-length:\s*(\d+)", rest)
        n = int(m.group(1)) if m else 0
        close = re.search(rb"(?im)^connection:\s*close", rest) is not None
        early = (
            b"HTTP/1.1 100 Continue\r\n\r\n"
            if re.search(rb"(?im)^expect:\s*100-continue", rest)
            else b""
        )
        if n > 1000:
            return httpd.Begun(
                early=early,
                body_length=0,
                respond=lambda _b: self.reply(413, b"too big", close=True, linger=True),
            )

        def respond(body: bytes):
            self.threads.append(threading.current_thread().name)
            self.order.append(path)
            if path == "/crash":
                raise RuntimeError("boom")
            if path.startswith("/big/"):
                return self.reply(200, bytes(range(256)) * (int(path[5:]) // 256), close=close)
            if path == "/later":
                return httpd.Later(
                    lambda: self.reply(200, threading.current_thread().name.encode())
                )
            if path == "/block":
                self.release.wait(20)
            if path in ("/pool", "/block"):
                return self.reply(200, threading.current_thread().name.encode(), close=close)
            return self.reply(200, body or path.encode(), close=close)

        return httpd.Begun(
            early=early, body_length=n, local=path not in ("/pool", "/block"), respond=respond
        )

    @staticmethod
    def reply(
        status: int, body: bytes, *, close: bool = False, linger: bool = False
    ) -> httpd.Reply:
        head = f"HTTP/1.1 {status} X\r\nContent-Length: {len(body)}\r\n" + (
            "Connection: close\r\n" if close else ""
        )
        return httpd.Reply((head + "\r\n").encode() + body, close=close, linger=linger)

    def refuse(self, status: int, message: str, peer) -> bytes:
        return self.reply(status, message.encode(), close=True).data

    def log_line(self, line: str) -> None:
        self.log.append(line)


@pytest.fixture
def loop():
    app = App()
    lp = httpd.Loop(httpd.listen("127.0.0.1", 0), app, idle_timeout=5.0, linger_s=0.5, pool_limit=4)
    t = threading.Thread(target=lp.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    t.start()
    yield lp, app
    app.release.set()
    lp.shutdown()
    lp.close()
    t.join(5)


def _connect(lp: httpd.Loop) -> socket.socket:
    return socket.create_connection(lp.listener.getsockname(), timeout=10)


def _read_reply(s: socket.socket, buf: bytearray) -> tuple[int, bytes]:
    """One reply from *s* (status, body), leaving what follows it in *buf*."""
    while b"\r\n\r\n" not in buf:
        chunk = s.recv(65536)
        assert chunk, f"the connection closed before a whole reply: {bytes(buf[:200])!r}"
        buf += chunk
    end = buf.index(b"\r\n\r\n")
    head = bytes(buf[:end])
    del buf[: end + 4]
    status = int(head.split()[1])
    if status == 100:
        return 100, b""
    n = int(re.search(rb"Content-Length: (\d+)", head).group(1))
    while len(buf) < n:
        chunk = s.recv(1 << 20)
        assert chunk, "the connection closed inside a reply body"
        buf += chunk
    body = bytes(buf[:n])
    del buf[:n]
    return status, body


def _get(path: str, body: bytes = b"", extra: str = "") -> bytes:
    return (
        f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Length: {len(body)}\r\n{extra}\r\n"
    ).encode() + body


def _closed(s: socket.socket) -> bool:
    try:
        return s.recv(65536) == b""
    except ConnectionResetError:
        return True


# --------------------------------------------------------------------------- framing


def test_pipelined_requests_are_answered_in_order_on_one_connection(loop):
    lp, app = loop
    with _connect(lp) as s:
        s.sendall(
            b"".join(_get("/echo", f"n{i}".encode()) for i in range(20))
        )  # more than one turn
        buf = bytearray()
        assert [_read_reply(s, buf)[1] for _ in range(20)] == [f"n{i}".encode() for i in range(20)]
    assert lp.connections == 1


def test_a_request_sent_a_byte_at_a_time_is_framed_whole(loop):
    lp, _ = loop
    with _connect(lp) as s:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        for b in _get("/echo", b'{"question": "slow"}'):
            s.send(bytes([b]))
        assert _read_reply(s, bytearray()) == (200, b'{"question": "slow"}')


def test_a_client_stalled_inside_its_request_holds_up_no_one(loop):
    lp, _ = loop
    stalled = [_connect(lp), _connect(lp)]
    try:
        stalled[0].sendall(b"POST /echo HTTP/1.1\r\nHost: x\r\n")  # inside the head
        stalled[1].sendall(_get("/echo", b"0123456789")[:-6])  # inside the body
        wait_for(lambda: lp.connections >= 2, "both stalled clients accepted")
        with _connect(lp) as s:
            s.sendall(_get("/echo", b"quick"))
            assert _read_reply(s, bytearray()) == (200, b"quick")
        stalled[1].sendall(b"456789")  # it goes on, and is answered
        assert _read_reply(stalled[1], bytearray()) == (200, b"0123456789")
    finally:
        for s in stalled:
            s.close()


def test_a_request_cut_short_by_the_client_is_answered_then_closed(loop):
    """EOF ends the headers (as the stdlib reads them); a body cut short is handed over as
    it is, for the application to refuse."""
    lp, _ = loop
    with _connect(lp) as s:
        s.sendall(_get("/echo", b"abcdef")[:-3])
        s.shutdown(socket.SHUT_WR)
        assert _read_reply(s, bytearray()) == (200, b"abc")
        assert _closed(s)
    with _connect(lp) as s:
        s.sendall(b"POST /echo HTTP/1.1\r\nHost: x")  # no line end, no blank line
        s.shutdown(socket.SHUT_WR)
        assert _read_reply(s, bytearray()) == (200, b"/echo")


def test_a_request_answered_after_the_client_half_closes(loop):
    lp, _ = loop
    with _connect(lp) as s:
        s.sendall(_get("/pool"))
        s.shutdown(socket.SHUT_WR)  # nothing more to send; it still reads the reply
        status, body = _read_reply(s, bytearray())
        assert status == 200 and body.startswith(b"kura-serve-wait")
        assert _closed(s)


def test_a_request_line_alone_is_answered_at_once(loop):
    lp, _ = loop
    with _connect(lp) as s:
        s.sendall(b"GARBAGE\r\n")  # one word: no headers can follow, so no blank line is awaited
        assert _read_reply(s, bytearray())[0] == 400
        assert _closed(s)


def test_a_head_over_the_limit_is_refused_without_holding_it(loop):
    lp, app = loop
    with _connect(lp) as s:
        s.sendall(b"POST /echo HTTP/1.1\r\n")
        line = b"X-Filler: " + b"a" * 60000 + b"\r\n"
        sent = 0
        try:
            for _ in range(20):  # 1.2 MB of valid header lines, but under 100 of them
                s.sendall(line)
                sent += len(line)
        except OSError:
            pass  # refused and closed while still sending
        status, body = _read_reply(s, bytearray())
        assert status == 431 and b"too large" in body and sent > httpd.MAX_HEAD // 2


# --------------------------------------------------------------------------- replies


def test_a_reply_larger_than_the_socket_takes_arrives_whole_while_others_are_served(loop):
    lp, _ = loop
    size = 48 * 1024 * 1024  # far more than the kernel's buffers on both sides hold
    with _connect(lp) as big:
        big.sendall(_get(f"/big/{size}"))
        # the client reads nothing yet: the rest waits in the loop's output for this connection
        wait_for(
            lambda: any(c.outbuf for c in list(lp._conns.values())), "a reply waiting to be written"
        )
        with _connect(lp) as s:
            s.sendall(_get("/echo", b"meanwhile"))
            assert _read_reply(s, bytearray()) == (200, b"meanwhile")
        status, body = _read_reply(big, bytearray())
        assert status == 200 and len(body) == size and body == bytes(range(256)) * (size // 256)
        big.sendall(_get("/echo", b"after"))  # the connection is still good
        assert _read_reply(big, bytearray()) == (200, b"after")


def test_expect_100_continue_is_answered_before_the_body_is_sent(loop):
    lp, _ = loop
    with _connect(lp) as s:
        s.sendall(
            b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n"
        )
        buf = bytearray()
        assert _read_reply(s, buf) == (100, b"")  # before any of the body
        s.sendall(b"hello")
        assert _read_reply(s, buf) == (200, b"hello")


def test_a_refused_body_is_drained_so_the_client_reads_the_refusal(loop):
    lp, _ = loop
    with _connect(lp) as s:
        s.sendall(b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 200000\r\n\r\n")
        s.sendall(b"x" * 200000)  # a client that sends its body regardless
        status, body = _read_reply(s, bytearray())
        assert (status, body) == (413, b"too big")
        assert _closed(s)


def test_a_failure_while_a_reply_is_made_is_a_500_and_the_loop_goes_on(loop):
    lp, app = loop
    with _connect(lp) as s:
        s.sendall(_get("/crash"))
        assert _read_reply(s, bytearray())[0] == 500
    assert any("boom" in line for line in app.log)
    with _connect(lp) as s:
        s.sendall(_get("/echo", b"still here"))
        assert _read_reply(s, bytearray()) == (200, b"still here")


# --------------------------------------------------------------------------- the pool


def test_work_that_waits_runs_on_the_pool_and_holds_up_no_local_work(loop):
    lp, app = loop
    blocked = _connect(lp)
    try:
        blocked.sendall(_get("/block"))
        wait_for(lambda: "/block" in app.order, "the blocking request to start on the pool")
        with _connect(lp) as s:
            s.sendall(_get("/echo", b"local") + _get("/later") + _get("/pool"))
            buf = bytearray()
            assert _read_reply(s, buf) == (200, b"local")
            status, on = _read_reply(s, buf)
            assert status == 200 and on.startswith(
                b"kura-serve-wait"
            )  # begun on the loop, ended on the pool
            assert _read_reply(s, buf)[1].startswith(b"kura-serve-wait")
        assert "/block" in app.order and "/echo" in app.order
        app.release.set()
        status, body = _read_reply(blocked, bytearray())
        assert status == 200 and body.startswith(b"kura-serve-wait")
    finally:
        blocked.close()
    local = [t for path, t in zip(app.order, app.threads, strict=False) if path == "/echo"]
    assert local and all(
        t == threading.current_thread().name or "kura-serve-wait" not in t for t in local
    )


def test_the_pool_starts_threads_as_jobs_outnumber_them_up_to_its_limit():
    pool = httpd.Workers("t", 3, lambda line: None)
    gate = threading.Event()
    started = []
    for i in range(6):
        pool.submit(lambda i=i: (started.append(i), gate.wait(20)))
    wait_for(lambda: len(started) == 3, "three jobs running at once")
    assert pool.threads == 3 and sorted(started) == [0, 1, 2]  # the rest wait their turn, in order
    gate.set()
    wait_for(lambda: len(started) == 6, "every job run")
    assert started[3:] == [3, 4, 5] and pool.threads == 3
    done = threading.Event()
    pool.submit(done.set)  # an idle thread takes it; none is added
    assert done.wait(20) and pool.threads == 3
    pool.stop()


def test_one_worker_takes_jobs_in_the_order_they_came():
    pool = httpd.Workers("one", 1, lambda line: None)
    seen: list[int] = []
    finished = threading.Event()
    for i in range(50):
        pool.submit(seen.append, i)
    pool.submit(finished.set)
    assert finished.wait(20) and seen == list(range(50)) and pool.threads == 1
    pool.stop()


# --------------------------------------------------------------------------- connections


def test_idle_and_stalled_connections_are_closed_after_the_idle_timeout():
    app = App()
    lp = httpd.Loop(httpd.listen("127.0.0.1", 0), app, idle_timeout=0.3)
    t = threading.Thread(target=lp.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    t.start()
    try:
        idle, half = _connect(lp), _connect(lp)
        idle.sendall(_get("/echo", b"once"))
        assert _read_reply(idle, bytearray()) == (200, b"once")
        half.sendall(b"POST /echo HTTP/1.1\r\n")
        assert _closed(idle) and _closed(
            half
        )  # both closed by the server, not by a read timeout here
        wait_for(lambda: not lp.open_sockets(), "the server to let both connections go")
    finally:
        lp.shutdown()
        lp.close()
        t.join(5)


class _Crowded:
    """A listener whose accept fails as if the process were out of descriptors, *times* times."""

    def __init__(self, real: socket.socket, times: int) -> None:
        self.real, self.times = real, times

    def fileno(self) -> int:
        return self.real.fileno()

    def setblocking(self, flag: bool) -> None:
        self.real.setblocking(flag)

    def getsockname(self):
        return self.real.getsockname()

    def close(self) -> None:
        self.real.close()

    def accept(self):
        if self.times:
            self.times -= 1
            raise OSError(errno.EMFILE, "Too many open files")
        return self.real.accept()


def test_running_out_of_descriptors_pauses_accepting_and_says_so():
    app = App()
    lp = httpd.Loop(_Crowded(httpd.listen("127.0.0.1", 0), 2), app)  # type: ignore[arg-type]
    t = threading.Thread(target=lp.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    t.start()
    try:
        with _connect(lp) as s:
            s.sendall(_get("/echo", b"in the end"))
            assert _read_reply(s, bytearray()) == (200, b"in the end")
        assert sum("open-file limit" in line for line in app.log) == 2
    finally:
        lp.shutdown()
        lp.close()
        t.join(5)


def test_shutting_down_with_work_on_the_pool_ends_promptly(loop):
    lp, app = loop
    s = _connect(lp)
    s.sendall(_get("/block"))
    wait_for(lambda: "/block" in app.order, "the blocked request to start")
    t0 = time.monotonic()
    lp.shutdown()
    lp.close()
    assert time.monotonic() - t0 < 5
    app.release.set()  # the worker finishes against a closed connection without harm
    assert _closed(s)
    s.close()
    wait_for(
        lambda: not any("failed" in line for line in app.log) and len(app.order) == 1,
        "the worker to finish quietly",
        timeout=5,
    )


def test_a_shutdown_asked_for_before_the_loop_runs_is_not_lost():
    lp = httpd.Loop(httpd.listen("127.0.0.1", 0), App())
    lp.shutdown()
    t = threading.Thread(target=lp.serve_forever, daemon=True)
    t.start()
    t.join(5)
    assert not t.is_alive()
    lp.close()
