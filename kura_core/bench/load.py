"""The load generator for `kura bench perf`'s HTTP figures, run as its own process.

    python -m kura_core.bench.load PLAN.json

It runs outside the server's process so the two do not share an interpreter lock: what is
measured is the server. The plan names one or more targets (a label, a port, a path and
request bodies); every target gets the same *clients* keep-alive connections, opened once,
and the targets take turns for *rounds* rounds, each round bounded by a request count and
a time cap, in an order that turns round every round, so a noisy neighbour on the machine
slows every target alike.

The client is a plain socket per connection with pre-encoded requests and a minimal reply
reader (status line, Content-Length, body), so it costs far less per request than the
servers it measures. It prints one JSON object: per target, per round, the latencies in
milliseconds of the replies that came back 200, errors and reconnects.
"""

from __future__ import annotations

import json
import socket
import sys
import threading
import time
from typing import Any


class _Conn:
    """One keep-alive HTTP/1.1 connection with pre-encoded requests."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.sock: socket.socket | None = None
        self.buf = b""
        self.opened = 0

    def open(self) -> None:
        self.close()
        self.sock = socket.create_connection(("127.0.0.1", self.port), timeout=30)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""
        self.opened += 1

    def close(self) -> None:
        if self.sock is not None:
            try:
                self.sock.close()
            finally:
                self.sock = None

    def _fill(self) -> None:
        assert self.sock is not None
        chunk = self.sock.recv(262144)
        if not chunk:
            raise ConnectionError("the server closed the connection")
        self.buf += chunk

    def exchange(self, request: bytes) -> tuple[int, bytes, bool]:
        """Send one request; return (status, body, server asked to close)."""
        if self.sock is None:
            self.open()
        assert self.sock is not None
        self.sock.sendall(request)
        while (end := self.buf.find(b"\r\n\r\n")) < 0:
            self._fill()
        head = self.buf[:end].decode("latin-1")
        self.buf = self.buf[end + 4 :]
        status = int(head[9:12])
        length = 0
        closing = False
        for line in head.split("\r\n")[1:]:
            name, _, value = line.partition(":")
            name = name.strip().lower()
            if name == "content-length":
                length = int(value.strip())
            elif name == "connection" and value.strip().lower() == "close":
                closing = True
        while len(self.buf) < length:
            self._fill()
        body, self.buf = self.buf[:length], self.buf[length:]
        return status, body, closing


def _encode(port: int, path: str, bodies: list[str]) -> list[bytes]:
    out = []
    for b in bodies:
        data = b.encode("utf-8")
        out.append(
            f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(data)}\r\n\r\n".encode("ascii")
            + data
        )
    return out


def _round(conns: list[_Conn], requests: list[bytes], count: int, seconds: float) -> dict[str, Any]:
    lock = threading.Lock()
    issued = 0
    lat: list[float] = []
    errors: list[str] = []
    reconnects = 0
    deadline = time.monotonic() + seconds

    def take() -> int | None:
        nonlocal issued
        with lock:
            if issued >= count or time.monotonic() >= deadline:
                return None
            issued += 1
            return issued

    start = threading.Barrier(len(conns) + 1)

    def client(conn: _Conn) -> None:
        nonlocal reconnects
        start.wait()
        while (i := take()) is not None:
            req = requests[i % len(requests)]
            t = time.perf_counter()
            try:
                status, body, closing = conn.exchange(req)
            except (OSError, ValueError) as exc:
                with lock:
                    errors.append(f"{type(exc).__name__}: {exc}")
                    reconnects += 1
                conn.close()
                continue
            ms = (time.perf_counter() - t) * 1000.0
            with lock:
                if status == 200:
                    lat.append(ms)
                else:
                    errors.append(f"HTTP {status}: {body[:120]!r}")
            if closing:
                conn.close()

    threads = [threading.Thread(target=client, args=(c,), daemon=True) for c in conns]
    for t in threads:
        t.start()
    start.wait()  # the clock starts when every client is ready, not while threads are made
    t0 = time.perf_counter()
    for t in threads:
        t.join(timeout=seconds + 30)
    return {
        "seconds": time.perf_counter() - t0,
        "latencies_ms": lat,
        "errors": errors,
        "reconnects": reconnects,
        "issued": issued,
    }


def run(plan: dict[str, Any]) -> dict[str, Any]:
    clients = int(plan["clients"])
    rounds = int(plan["rounds"])
    targets = plan["targets"]
    per_round = [
        int(plan["requests"]) // rounds + (1 if r < int(plan["requests"]) % rounds else 0)
        for r in range(rounds)
    ]
    seconds = float(plan["seconds_cap"]) / rounds
    prepared = []
    for t in targets:
        conns = [_Conn(int(t["port"])) for _ in range(clients)]
        reqs = _encode(int(t["port"]), t["path"], list(t["bodies"]))
        for c in conns:  # connect and warm every connection once, untimed
            c.open()
            c.exchange(reqs[0])
        prepared.append((t["label"], conns, reqs))
    out: dict[str, Any] = {t["label"]: [] for t in targets}
    for r in range(rounds):
        # the order turns round every round (A B, B A, ...): drift in the machine's speed
        # over the run falls on every target alike
        for label, conns, reqs in prepared if r % 2 == 0 else prepared[::-1]:
            out[label].append(_round(conns, reqs, per_round[r], seconds))
    for _, conns, _ in prepared:
        for c in conns:
            c.close()
    return out


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        sys.stderr.write("usage: python -m kura_core.bench.load PLAN.json\n")
        return 2
    with open(args[0], encoding="utf-8") as fh:
        plan = json.load(fh)
    json.dump(run(plan), sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
