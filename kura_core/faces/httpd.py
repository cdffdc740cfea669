"""The connection loop under `kura serve`: every socket and all local work on one thread.

A thread per connection (the stdlib's ThreadingHTTPServer) spends more on itself than on a
recall by words: sixteen busy keep-alive connections are sixteen threads taking the
interpreter lock from one another at every system call, each cold in the processor's caches
when it wins it back. Handing requests from one I/O thread to one worker thread is not much
better: the two still trade the lock at every system call either makes. So here one thread
does it all for local work. It accepts, reads, frames each request (its head up to the
blank line, then a ``Content-Length`` body), serves it — a recall by words, the index, the
map, a memory: work bounded by this process's own CPU and disk — and writes the reply,
requests in arrival order, back to back, its caches warm.

Work that may wait on something else — a model, another process's lock, a walk over a whole
store — goes to **the pool**: threads started as they are needed, up to a limit, that write
their reply to the socket themselves when it fits and hand the connection back. A request
that starts as local work and finds it must wait hands the rest of its work to the pool
(:class:`Later`), so a slow model never holds up a recall that needs none.

What does not fit in the socket at once is written by the loop as the client reads. A
connection serves one request at a time: pipelined requests wait in its buffer until the
reply before them is sent, so replies leave in the order the requests came. Idle
connections cost no thread; one idle for :attr:`Loop.idle_timeout` seconds (or stalled
halfway through a request, or not reading its reply) is closed.

The loop knows HTTP only as far as framing needs: where a head ends, how long the body is,
whether the connection stays open. What a request means, and its reply, come from the
application (:class:`App`): the HTTP face, ``kura_core.faces.http``.
"""

from __future__ import annotations

import collections
import contextlib
import errno
import selectors
import socket
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from queue import SimpleQueue
from typing import Any, Protocol

#: the longest request line or header line accepted (the stdlib's limit)
MAX_LINE = 65536
#: the most header lines accepted (the stdlib's limit)
MAX_HEADERS = 100
#: the largest request head (request line and headers) held while it arrives
MAX_HEAD = 1024 * 1024
#: bytes read from a socket at a time
_CHUNK = 65536
#: how often idle connections are looked for, in seconds
_SWEEP_S = 0.5
#: pipelined requests served from one connection before the others get a turn
_TURN = 8
#: accept errors that mean "out of descriptors or memory": pause accepting, do not spin
_ACCEPT_PAUSE_ERRNOS = {errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM}
_ACCEPT_PAUSE_S = 0.1


@dataclass
class Reply:
    """A whole reply as bytes, and what becomes of the connection after it."""

    data: bytes
    close: bool = False
    #: after sending, read and drop what the client still sends (bounded) before closing, so
    #: it reads this reply instead of a reset (a refused body still on its way)
    linger: bool = False
    #: called once the reply is written or handed to the loop (the access log)
    after: Callable[[], None] | None = None


@dataclass
class Later:
    """The rest of a request's work, to be done on the pool: it may wait."""

    work: Callable[[], Reply | Later]


@dataclass
class Begun:
    """What the application makes of a request's head."""

    #: bytes to send at once, before the body is read: an error reply, or "100 Continue"
    early: bytes = b""
    #: False when the request ends here (an error, or nothing to answer): close after *early*
    go: bool = True
    #: bytes of body to read before *respond* runs
    body_length: int = 0
    #: serve on the loop itself (local work) rather than on the pool (work that may wait)
    local: bool = True
    #: the reply to the request, given its body; runs on a worker
    respond: Callable[[bytes], Reply | Later] | None = None


class App(Protocol):
    """What the loop needs from the application."""

    def begin(self, head: bytes, peer: Any) -> Begun:
        """Parse a request head: the request line alone when it cannot carry headers, else
        the request line, the header lines and the blank line that ends them."""
        ...

    def refuse(self, status: int, message: str, peer: Any) -> bytes:
        """A whole error reply for a request the loop refuses before the application sees it."""
        ...

    def log_line(self, line: str) -> None:
        """Note something that went wrong (an unexpected error, running out of descriptors)."""
        ...


class Workers:
    """Daemon threads taking jobs from one queue in order, started as jobs outnumber idle
    threads, up to *limit*. Jobs beyond the limit wait their turn in the queue."""

    def __init__(self, name: str, limit: int, on_error: Callable[[str], None]) -> None:
        self.name = name
        self.limit = max(1, int(limit))
        self._on_error = on_error
        self._jobs: SimpleQueue[tuple[Callable[..., Any], tuple] | None] = SimpleQueue()
        self._lock = threading.Lock()
        self._threads: list[threading.Thread] = []
        self._queued = 0  # jobs submitted and not yet taken
        self._free = 0  # threads waiting for a job

    def submit(self, fn: Callable[..., Any], *args: Any) -> None:
        with self._lock:
            self._queued += 1
            spawn = self._queued > self._free and len(self._threads) < self.limit
            if spawn:
                t = threading.Thread(
                    target=self._run, name=f"{self.name}-{len(self._threads) + 1}", daemon=True
                )
                self._threads.append(t)
        self._jobs.put((fn, args))
        if spawn:
            t.start()

    def _run(self) -> None:
        while True:
            with self._lock:
                self._free += 1
            job = self._jobs.get()
            with self._lock:
                self._free -= 1
                self._queued -= 1
            if job is None:
                return
            fn, args = job
            try:
                fn(*args)
            except BaseException:  # a job's failure never ends the worker
                self._on_error(f"a {self.name} job failed:\n{traceback.format_exc()}".rstrip())

    def stop(self) -> None:
        """Ask every thread to end once the jobs queued before this are done."""
        with self._lock:
            n = len(self._threads)
        for _ in range(n):
            self._jobs.put(None)

    @property
    def threads(self) -> int:
        with self._lock:
            return len(self._threads)


class _Conn:
    """One client connection. The loop owns it, except while a worker serves its request
    (``busy``): then the worker may write to the socket, and hands it back under ``lock``."""

    __slots__ = (
        "sock",
        "fd",
        "peer",
        "inbuf",
        "outbuf",
        "begun",
        "busy",
        "closing",
        "linger",
        "eof",
        "lingering",
        "drained",
        "deadline",
        "events",
        "lock",
        "closed",
    )

    def __init__(self, sock: socket.socket, peer: Any, deadline: float):
        self.sock = sock
        self.fd = sock.fileno()
        self.peer = peer
        self.inbuf = bytearray()
        self.outbuf: bytes | memoryview = b""  # what is still to be written (a view: no copies)
        self.begun: Begun | None = None  # a head read, its body still arriving
        self.busy = False  # a worker holds the request
        self.closing = False  # close once the output is written
        self.linger = False  # and drain the input for a while first
        self.eof = False  # the client will send nothing more
        self.lingering = 0.0  # the deadline of a drain under way (0: none)
        self.drained = 0
        self.deadline = deadline
        self.events = 0  # what the selector watches for
        self.lock = threading.Lock()
        self.closed = False


class Loop:
    """Serve *app* on the bound, listening *listener* (see the module)."""

    def __init__(
        self,
        listener: socket.socket,
        app: App,
        *,
        idle_timeout: float = 30.0,
        linger_s: float = 1.0,
        linger_bytes: int = 16 * 1024 * 1024,
        pool_limit: int = 64,
    ):
        self.listener = listener
        self.app = app
        self.idle_timeout = float(idle_timeout)
        self.linger_s = float(linger_s)
        self.linger_bytes = int(linger_bytes)
        self.pool = Workers("kura-serve-wait", pool_limit, app.log_line)
        #: connections accepted since the loop was made
        self.connections = 0
        self._conns: dict[int, _Conn] = {}
        self._sel = selectors.DefaultSelector()
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._wake_w.setblocking(False)
        self._woken = False
        self._attention: collections.deque[_Conn] = collections.deque()
        self._stop = False
        self._running = threading.Event()
        self._stopped = threading.Event()
        self._stopped.set()
        self._accept_paused_until = 0.0
        self._closed = False
        listener.setblocking(False)

    # ---- running -----------------------------------------------------------
    def serve_forever(self, poll_interval: float = 0.5) -> None:
        """Run until :meth:`shutdown`."""
        self._stopped.clear()
        sel = self._sel
        sel.register(self.listener, selectors.EVENT_READ, None)
        sel.register(self._wake_r, selectors.EVENT_READ, self._wake_r)
        self._running.set()
        next_sweep = time.monotonic() + _SWEEP_S
        try:
            while not self._stop:
                for key, mask in sel.select(min(poll_interval, _SWEEP_S)):
                    data = key.data
                    if data is None:
                        self._accept()
                    elif data is self._wake_r:
                        self._drain_wake()
                    else:
                        if mask & selectors.EVENT_READ:
                            self._read(data)
                        if mask & selectors.EVENT_WRITE and not data.closed:
                            self._flush(data)
                self._attend()
                now = time.monotonic()
                if self._accept_paused_until and now >= self._accept_paused_until:
                    self._accept_paused_until = 0.0
                    sel.register(self.listener, selectors.EVENT_READ, None)
                if now >= next_sweep:
                    self._sweep(now)
                    next_sweep = now + _SWEEP_S
        finally:
            for obj in (self.listener, self._wake_r):
                with contextlib.suppress(KeyError, ValueError, OSError):
                    sel.unregister(obj)
            self._stop = False  # a shutdown asked for before the loop ran has now been served
            self._running.clear()
            self._stopped.set()

    def shutdown(self) -> None:
        """Stop :meth:`serve_forever` and wait until it has returned (from another thread)."""
        self._stop = True
        self._wake()
        if self._running.is_set():
            self._stopped.wait()

    def close(self) -> None:
        """Close the listener and every connection; end the workers. After :meth:`shutdown`."""
        if self._closed:
            return
        self._closed = True
        for conn in list(self._conns.values()):
            if conn.busy:
                _quietly(conn.sock.shutdown, socket.SHUT_RDWR)  # its worker finds it closed
            else:
                self._close(conn)
        _quietly(self.listener.close)
        self.pool.stop()
        _quietly(self._sel.close)
        _quietly(self._wake_r.close)
        _quietly(self._wake_w.close)

    def open_sockets(self) -> list[socket.socket]:
        """The sockets of the connections open now (for tests and diagnostics)."""
        return [c.sock for c in list(self._conns.values()) if not c.closed]

    # ---- the loop's own steps ----------------------------------------------
    def _accept(self) -> None:
        now = time.monotonic()
        for _ in range(64):
            try:
                sock, peer = self.listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as exc:
                if exc.errno in _ACCEPT_PAUSE_ERRNOS:
                    # out of descriptors: the pending connection stays queued; stop watching
                    # the listener for a moment rather than spin on it (it stays readable)
                    self._accept_paused_until = now + _ACCEPT_PAUSE_S
                    _quietly(self._sel.unregister, self.listener)
                    self.app.log_line(
                        f"cannot accept a connection: {exc.strerror or exc}; "
                        "raise the open-file limit (ulimit -n) or close idle clients"
                    )
                return
            try:
                sock.setblocking(False)
                if sock.family in (socket.AF_INET, socket.AF_INET6):
                    sock.setsockopt(
                        socket.IPPROTO_TCP, socket.TCP_NODELAY, 1
                    )  # no 40 ms stall per reply
            except OSError:
                _quietly(sock.close)
                continue
            conn = _Conn(sock, peer, now + self.idle_timeout)
            self._conns[conn.fd] = conn
            self.connections += 1
            self._watch(conn, selectors.EVENT_READ)

    def _read(self, conn: _Conn) -> None:
        try:
            chunk = conn.sock.recv(_CHUNK)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            chunk = b""
            conn.closing = True
        conn.deadline = time.monotonic() + self.idle_timeout
        if conn.lingering:
            conn.drained += len(chunk)
            if not chunk or conn.drained >= self.linger_bytes:
                self._close(conn)
            return
        if not chunk:
            conn.eof = True
            self._watch(conn, selectors.EVENT_WRITE if conn.outbuf else 0)
            self._advance(conn)
            return
        with conn.lock:
            conn.inbuf += chunk
            busy = conn.busy
        if not busy:
            self._advance(conn)
        elif len(conn.inbuf) > MAX_HEAD:
            # a client far ahead of its replies: stop reading until it is served (the kernel's
            # buffers then hold it back); the worker's hand-back brings it round again
            self._watch(conn, 0)

    def _flush(self, conn: _Conn) -> None:
        try:
            sent = conn.sock.send(conn.outbuf)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            self._close(conn)
            return
        conn.outbuf = conn.outbuf[sent:]
        conn.deadline = time.monotonic() + self.idle_timeout
        if not conn.outbuf:
            self._advance(conn)

    def _attend(self) -> None:
        """Take back the connections workers handed over, and those put back to wait a round."""
        for _ in range(len(self._attention)):
            conn = self._attention.popleft()
            if not conn.closed:
                self._advance(conn)

    def _sweep(self, now: float) -> None:
        """Close connections idle, stalled or draining past their deadline."""
        for conn in list(self._conns.values()):
            if conn.busy or conn.closed:
                continue
            if conn.lingering and now >= conn.lingering or now >= conn.deadline:
                self._close(conn)

    def _wake(self) -> None:
        if self._woken:
            return
        self._woken = True
        try:
            self._wake_w.send(b"\0")
        except (BlockingIOError, InterruptedError):
            pass  # a wake-up is already waiting to be read
        except OSError:
            pass  # closed: the loop is gone

    def _drain_wake(self) -> None:
        self._woken = False  # before the attention queue is read (see _hand_back)
        try:
            while self._wake_r.recv(4096):
                pass
        except (BlockingIOError, InterruptedError, OSError):
            pass

    # ---- a connection's course -------------------------------------------
    def _advance(self, conn: _Conn) -> None:
        """Move a connection the loop holds as far as it can go: write what is waiting, close
        or drain once done, else frame the next request and serve it or hand it to the pool.
        A client pipelining many requests is served _TURN of them, then waits a round so the
        other connections are served too."""
        served = 0
        while not conn.closed and not conn.busy:
            if served >= _TURN:
                self._attention.append(conn)
                return
            if conn.outbuf:
                self._watch(conn, selectors.EVENT_WRITE | (0 if conn.eof else selectors.EVENT_READ))
                return
            if conn.closing:
                if conn.linger and not conn.eof:
                    self._start_linger(conn)
                else:
                    self._close(conn)
                return
            if not conn.eof:
                self._watch(conn, selectors.EVENT_READ)
            if not self._frame(conn):
                if conn.eof:
                    self._close(conn)  # nothing left to answer, and nothing more will come
                return
            served += 1

    def _frame(self, conn: _Conn) -> bool:
        """Take one request from the buffer and start it; False when more bytes are needed."""
        if conn.begun is None:
            head = self._head(conn)
            if head is None:
                return conn.closing  # a head refused here has its reply on the way
            try:
                begun = self.app.begin(head, conn.peer)
            except Exception:
                self.app.log_line(
                    f"a request head could not be read:\n{traceback.format_exc()}".rstrip()
                )
                begun = Begun(early=self.app.refuse(500, "internal error", conn.peer), go=False)
            if begun.early:
                self._send_now(conn, begun.early)
            if not begun.go:
                conn.closing = True
                return True
            conn.begun = begun
        if conn.outbuf:
            return True  # "100 Continue" is still on its way: the reply must not overtake it
        begun = conn.begun
        need = begun.body_length
        if len(conn.inbuf) < need:
            if not conn.eof:
                return False
            need = len(conn.inbuf)  # the body ended early: the application says so
        body = bytes(conn.inbuf[:need])
        del conn.inbuf[:need]
        conn.begun = None
        if begun.local:
            out = self._reply_to(conn, begun.respond, body)
            if not isinstance(out, Later):
                self._deliver(conn, out)
                return True
            conn.busy = True
            self.pool.submit(self._serve_later, conn, out.work)
            return True
        conn.busy = True
        self.pool.submit(self._serve, conn, begun.respond, body)
        return True

    def _head(self, conn: _Conn) -> bytes | None:
        """The next request's head, taken from the buffer, or None until it has arrived.

        The head ends at the first empty line after the request line. A request line that
        cannot carry headers (fewer than two or more than three words) is a head by itself,
        so the application answers it at once. A line or a head over its limit is handed
        over as it stands for the application to refuse, or refused here."""
        buf = conn.inbuf
        if not buf:
            return None
        nl = buf.find(b"\n", 0, MAX_LINE + 1)
        if nl < 0:
            if len(buf) > MAX_LINE:
                return self._take(conn, MAX_LINE + 1)  # the application says 414
            return self._take(conn, len(buf)) if conn.eof else None
        words = str(buf[:nl], "iso-8859-1").split()  # split as the stdlib splits it
        if not 2 <= len(words) <= 3:
            return self._take(conn, nl + 1)
        end = _blank_line(buf, nl)
        if end >= 0:
            return self._take(conn, end)
        if conn.eof:
            return self._take(conn, len(buf))  # the headers end where the input does
        # not there yet: is what has come already over a limit?
        last = buf.rfind(b"\n") + 1
        if len(buf) - last > MAX_LINE or buf.count(b"\n", nl + 1) > MAX_HEADERS:
            return self._take(conn, len(buf))  # the application says 431, naming which limit
        if len(buf) > MAX_HEAD:
            conn.inbuf = bytearray()
            conn.closing = True
            self._send_now(conn, self.app.refuse(431, "Request header fields too large", conn.peer))
            return None
        return None

    @staticmethod
    def _take(conn: _Conn, n: int) -> bytes:
        out = bytes(conn.inbuf[:n])
        del conn.inbuf[:n]
        return out

    def _send_now(self, conn: _Conn, data: bytes) -> None:
        """Write *data* from the loop; what does not fit waits in the connection's output."""
        if conn.outbuf:
            conn.outbuf = bytes(conn.outbuf) + data
            return
        try:
            sent = conn.sock.send(data)
        except (BlockingIOError, InterruptedError):
            sent = 0
        except OSError:
            conn.closing = True
            return
        if sent < len(data):
            conn.outbuf = memoryview(data)[sent:]
            self._watch(conn, selectors.EVENT_WRITE | (0 if conn.eof else selectors.EVENT_READ))

    def _reply_to(
        self, conn: _Conn, respond: Callable[[bytes], Reply | Later] | None, body: bytes
    ) -> Reply | Later:
        try:
            return respond(body) if respond is not None else Reply(b"", close=True)
        except Exception:
            self.app.log_line(
                f"a request failed while its reply was made:\n{traceback.format_exc()}".rstrip()
            )
            return Reply(self.app.refuse(500, "internal error", conn.peer), close=True)

    def _deliver(self, conn: _Conn, reply: Reply) -> None:
        """On the loop: send a reply made here; what does not fit waits in the output."""
        self._send_now(conn, reply.data)
        conn.closing = conn.closing or reply.close
        conn.linger = reply.linger
        if reply.after is not None:
            _quietly(reply.after)

    def _serve(
        self, conn: _Conn, respond: Callable[[bytes], Reply | Later] | None, body: bytes
    ) -> None:
        """On the pool: make the reply and send it, or go on with the rest of the work."""
        out = self._reply_to(conn, respond, body)
        while isinstance(out, Later):
            out = self._reply_to(conn, _later(out), b"")
        self._hand_back(conn, out)

    def _serve_later(self, conn: _Conn, work: Callable[[], Reply | Later]) -> None:
        self._serve(conn, _later(Later(work)), b"")

    def _hand_back(self, conn: _Conn, reply: Reply) -> None:
        """On a worker: write the reply as far as the socket takes it without waiting, then
        give the connection back; the loop is woken only if something is left for it."""
        data = reply.data
        sent = 0
        broken = False
        if data:
            try:
                sent = conn.sock.send(data)
            except (BlockingIOError, InterruptedError):
                sent = 0
            except OSError:
                broken = True
        with conn.lock:
            conn.busy = False
            if broken:
                conn.closing, conn.linger = True, False
            else:
                if sent < len(data):
                    conn.outbuf = memoryview(data)[sent:]
                conn.closing = conn.closing or reply.close
                conn.linger = reply.linger
            needs_loop = bool(conn.outbuf or conn.closing or conn.inbuf or conn.eof)
        if reply.after is not None:
            _quietly(reply.after)
        if self._closed:  # the loop is gone: nothing else will close it
            conn.closed = True
            _quietly(conn.sock.close)
        elif needs_loop:
            self._attention.append(conn)
            self._wake()

    def _start_linger(self, conn: _Conn) -> None:
        """Half-close, then read and drop what the client still sends, for a bounded time."""
        try:
            conn.sock.shutdown(socket.SHUT_WR)
        except OSError:
            self._close(conn)
            return
        conn.lingering = time.monotonic() + self.linger_s
        conn.drained = len(conn.inbuf)
        conn.inbuf = bytearray()
        self._watch(conn, selectors.EVENT_READ)

    def _watch(self, conn: _Conn, events: int) -> None:
        if conn.closed or events == conn.events:
            return
        try:
            if events == 0:
                self._sel.unregister(conn.sock)
            elif conn.events == 0:
                self._sel.register(conn.sock, events, conn)
            else:
                self._sel.modify(conn.sock, events, conn)
        except (KeyError, ValueError, OSError):
            self._close(conn)
            return
        conn.events = events

    def _close(self, conn: _Conn) -> None:
        if conn.closed:
            return
        if conn.busy:  # never close a socket a worker may be writing to: it could be reused
            conn.closing = True
            _quietly(conn.sock.shutdown, socket.SHUT_RDWR)
            return
        conn.closed = True
        if conn.events:
            with contextlib.suppress(KeyError, ValueError, OSError):
                self._sel.unregister(conn.sock)
            conn.events = 0
        if self._conns.get(conn.fd) is conn:
            del self._conns[conn.fd]
        _quietly(conn.sock.close)


def _later(later: Later) -> Callable[[bytes], Reply | Later]:
    return lambda _body: later.work()


def _blank_line(buf: bytearray, start: int) -> int:
    """Where the head ends: just past the first empty line at or after the newline *start*
    (an empty line is ``\\r\\n`` or ``\\n``), or -1."""
    a = buf.find(b"\n\r\n", start)
    b = buf.find(b"\n\n", start)
    if a < 0 and b < 0:
        return -1
    if b < 0 or (0 <= a < b):
        return a + 3
    return b + 2


def _quietly(fn: Callable[..., Any], *args: Any) -> None:
    with contextlib.suppress(Exception):
        fn(*args)


def listen(host: str, port: int, *, backlog: int = 128) -> socket.socket:
    """A bound, listening TCP socket for *host* (IPv4, or IPv6 when it has a colon)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(backlog)
    except BaseException:
        sock.close()
        raise
    return sock


__all__ = [
    "App",
    "Begun",
    "Later",
    "Loop",
    "Reply",
    "Workers",
    "listen",
    "MAX_LINE",
    "MAX_HEADERS",
    "MAX_HEAD",
]
