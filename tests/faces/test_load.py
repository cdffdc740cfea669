"""A loopback load test, bounded in count and time: concurrent keep-alive clients making
degraded (word) recalls, and the parts of the request path that keep it lean (the request
parser; local work on the connection loop, work that may wait on its pool). It asserts
correctness under concurrency, not speed; speed is measured by `kura bench perf`
(kura_core.bench.http_perf)."""

from __future__ import annotations

import http.client
import http.server
import io
import itertools
import json
import re
import threading
import time

import pytest

from tests.conftest import make_registry
from tests.wait import wait_for

WORDS = [
    "amber",
    "basalt",
    "cobalt",
    "dolomite",
    "ebony",
    "feldspar",
    "garnet",
    "hematite",
    "indigo",
    "jasper",
    "kyanite",
    "lapis",
    "malachite",
    "nephrite",
    "obsidian",
    "peridot",
    "quartz",
    "rhodonite",
    "sapphire",
    "topaz",
    "umber",
    "verdigris",
    "wollastonite",
    "xenotime",
]
MEMORIES = {
    f"stone-{w}": (
        f"The {w} shelf",
        f"{w} samples live on shelf {i} in the cold room",
        f"All {w} samples are kept on shelf {i}. Label them before shelving.",
    )
    for i, w in enumerate(WORDS)
}
CLIENTS, PER_CLIENT = 16, 50


@pytest.fixture
def served(tmp_path):
    from kura_core.faces.http import make_server, start_in_thread

    reg = make_registry(tmp_path, stores={"rocks": MEMORIES})
    srv = make_server(reg, "127.0.0.1", 0, log=io.StringIO())
    start_in_thread(srv)
    yield srv, reg
    srv.shutdown()
    srv.server_close()
    reg.close()


def test_sixteen_keep_alive_clients_fifty_recalls_each(served):
    srv, _ = served
    lock = threading.Lock()
    failures: list[str] = []
    done = [0] * CLIENTS
    deadline = time.monotonic() + 60

    def client(n: int) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=20)
        try:
            for i in range(PER_CLIENT):
                if time.monotonic() > deadline:
                    with lock:
                        failures.append(f"client {n}: out of time at {i}")
                    return
                word = WORDS[(n * PER_CLIENT + i) % len(WORDS)]
                body = json.dumps(
                    {"question": f"where are the {word} samples", "top": 1, "hops": 0}
                )
                try:
                    conn.request(
                        "POST", "/recall", body=body, headers={"Content-Type": "application/json"}
                    )
                    r = conn.getresponse()
                    data = r.read()
                except (OSError, http.client.HTTPException) as exc:
                    with lock:
                        failures.append(f"client {n} request {i}: {type(exc).__name__}: {exc}")
                    return  # a lost connection is a failure; do not reconnect and hide it
                d = json.loads(data) if r.status == 200 else {}
                ok = (
                    r.status == 200
                    and d.get("how") == "words"
                    and d.get("degraded") is True
                    and d.get("picked") == [f"stone-{word}"]
                    and word in d.get("context", "")
                    and r.getheader("Connection", "").lower() != "close"
                )
                if not ok:
                    with lock:
                        failures.append(f"client {n} request {i}: {r.status} {data[:200]!r}")
                    return
                done[n] += 1
        finally:
            conn.close()

    before = srv.connections
    threads = [threading.Thread(target=client, args=(n,), daemon=True) for n in range(CLIENTS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=max(1.0, deadline - time.monotonic() + 5))
    assert not any(t.is_alive() for t in threads), "clients still running past the time bound"
    assert failures == []
    assert done == [PER_CLIENT] * CLIENTS
    assert srv.connections - before == CLIENTS  # one connection per client, none lost or re-made


def test_bench_http_reports_throughput_and_latency(tmp_path):
    from kura_core.bench.http_perf import bench_http

    reg = make_registry(tmp_path, stores={"rocks": MEMORIES}, model_url="http://127.0.0.1:9/v1")
    try:
        res = bench_http(reg, clients=4, requests=120, seconds_cap=30)
    finally:
        reg.close()
    assert res["errors"] == 0 and res["error_samples"] == []
    assert res["completed"] == 120 and res["capped"] is False
    assert res["connections"] == 4 and res["reconnects"] == 0
    assert res["how"] == "words" and res["store"] == "rocks"
    assert res["requests_per_s"] > 0 and 0 < res["p50_ms"] <= res["p95_ms"] <= res["max_ms"]
    rounds = res["ratio_by_round"]  # each round's kura rate over the bare rate beside it
    assert len(rounds) == res["rounds"] == 6 and all(r > 0 for r in rounds)
    assert min(rounds) <= res["ratio_median_of_rounds"] <= max(rounds)


def test_the_load_turns_the_order_of_its_targets_round_every_round(monkeypatch):
    from kura_core.bench import load

    order: list[str] = []
    monkeypatch.setattr(
        load,
        "_round",
        lambda conns, reqs, count, seconds: (
            order.append(conns[0].label)
            or {"seconds": 1.0, "latencies_ms": [1.0], "errors": [], "reconnects": 0, "issued": 1}
        ),
    )

    class Conn:
        def __init__(self, port):
            self.label = {1: "a", 2: "b"}[port]

        def open(self):
            pass

        def exchange(self, req):
            return 200, b"", False

        def close(self):
            pass

    monkeypatch.setattr(load, "_Conn", Conn)
    plan = {
        "clients": 1,
        "rounds": 4,
        "requests": 8,
        "seconds_cap": 4.0,
        "targets": [
            {"label": "a", "port": 1, "path": "/", "bodies": ["{}"]},
            {"label": "b", "port": 2, "path": "/", "bodies": ["{}"]},
        ],
    }
    out = load.run(plan)
    assert order == ["a", "b", "b", "a", "a", "b", "b", "a"] and len(out["a"]) == len(out["b"]) == 4


def test_bench_http_stops_at_its_time_cap(tmp_path):
    from kura_core.bench.http_perf import bench_http

    reg = make_registry(tmp_path, stores={"rocks": MEMORIES})
    try:
        t0 = time.monotonic()
        res = bench_http(reg, clients=2, requests=10_000_000, seconds_cap=0.5)
        assert time.monotonic() - t0 < 10
    finally:
        reg.close()
    assert res["capped"] is True and res["errors"] == 0 and 0 < res["completed"] < 10_000_000


# --------------------------------------------------------------------------- the request parser

REQUEST_LINES = [
    b"GET /health HTTP/1.1\r\n",
    b"POST /recall HTTP/1.0\r\n",
    b"POST /recall HTTP/1.1\n",
    b"GET //a//b?x=1 HTTP/1.1\r\n",
    b"GET  /two-spaces HTTP/1.1\r\n",
    b"get /lower HTTP/1.1\r\n",
    b"GET /x HTTP/1.2\r\n",
    b"GET /x HTTP/2.0\r\n",
    b"GET /x HTTP/1.1 extra\r\n",
    b"GET /x\r\n",
    b"POST /x\r\n",
    b"GARBAGE\r\n",
    b"\r\n",
    b"GET /caf\xe9 HTTP/1.1\r\n",
]
HEADER_BLOCKS = [
    b"\r\n",
    b"Host: 127.0.0.1\r\nContent-Length: 12\r\n\r\n",
    b"Host:127.0.0.1  \r\nX-Empty:\r\nX-Tab:\tvalue\t\r\n\r\n",
    b"Connection: close\r\n\r\n",
    b"Connection: Keep-Alive\r\n\r\n",
    b"Expect: 100-continue\r\n\r\n",
    b"Content-Length: 1\r\nContent-Length: 2\r\n\r\n",
    b"X-Folded: one\r\n two\r\n\r\n",
    b"No colon here\r\nHost: x\r\n\r\n",
    b"Bad Name: x\r\n\r\n",
    b"X-Mid: a\rb\r\n\r\n",
    b"Host: x\nX-Lf: only\n\n",
    b"X-Latin: caf\xe9\r\n\r\n",
    b"From me\r\n\r\n",
    b"Host: never ends\r\n",
    b"X: " + b"a" * 70000 + b"\r\n\r\n",
    b"".join(b"X-%d: v\r\n" % i for i in range(101)) + b"\r\n",
]


class _Server:
    max_body = 1024
    log = None
    host = "127.0.0.1"
    loopback = True
    token = None

    def log_line(self, line: str) -> None:
        pass


def _parsed(parse, raw: bytes) -> dict:
    from kura_core.faces.http import Handler

    h = Handler.blank(_Server(), ("127.0.0.1", 1))
    first, _, rest = raw.partition(b"\n")
    h.raw_requestline = first + (b"\n" if _ else b"")
    h.rfile = io.BytesIO(rest)
    ok = parse(h)
    headers = getattr(h, "headers", None)
    return {
        "ok": ok,
        "command": h.command,
        "path": getattr(h, "path", None),
        "version": h.request_version,
        "close": h.close_connection,
        "line": h.requestline,
        "left": h.rfile.read(),
        "headers": list(headers.items()) if headers is not None else None,
        "sent": re.sub(rb"Date: [^\r]*\r\n", b"", h.wfile.getvalue()),
    }


def test_the_lean_request_parser_agrees_with_the_stdlib():
    from kura_core.faces.http import Handler

    for line, block in itertools.product(REQUEST_LINES, HEADER_BLOCKS):
        raw = line + block + b'{"question": "x"}'
        ours = _parsed(Handler.parse_request, raw)
        stdlib = _parsed(http.server.BaseHTTPRequestHandler.parse_request, raw)
        assert ours == stdlib, (line, block[:60])


# --------------------------------------------------------------------------- lane and pool


def _wait_until(predicate, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out waiting"
        threading.Event().wait(0.002)


def test_a_recall_waiting_on_the_model_does_not_hold_up_the_others(tmp_path, model):
    from kura_core.faces.http import make_server, start_in_thread

    gate = threading.Event()
    asked = threading.Event()

    def pick(req):
        if "slowly" in req.messages[-1]["content"]:
            asked.set()
            gate.wait(20)
        return {"slugs": ["stone-amber"]}

    model.script("kura_pick", pick)
    reg = make_registry(tmp_path, stores={"rocks": MEMORIES}, model_url=model.url, timeout=30)
    srv = make_server(reg, "127.0.0.1", 0, log=io.StringIO())
    start_in_thread(srv)
    results: dict[str, object] = {}

    def ask(key: str, question: str) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=30)
        conn.request(
            "POST",
            "/recall",
            body=json.dumps({"question": question}),
            headers={"Content-Type": "application/json"},
        )
        r = conn.getresponse()
        results[key] = (r.status, json.loads(r.read()))
        conn.close()

    try:
        slow = threading.Thread(target=ask, args=("slow", "answer slowly: where is the amber"))
        slow.start()
        asked.wait(20)
        ask("quick", "where is the amber")  # served while the other waits on the model
        assert "slow" not in results and results["quick"][0] == 200
        gate.set()
        slow.join(30)
        assert results["slow"][0] == 200 and results["slow"][1]["how"] == "meaning"
    finally:
        gate.set()
        srv.shutdown()
        srv.server_close()
        reg.close()


def _recall(port: int, question: str, timeout: float = 10) -> dict:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request(
            "POST",
            "/recall",
            body=json.dumps({"question": question}),
            headers={"Content-Type": "application/json"},
        )
        r = conn.getresponse()
        assert r.status == 200
        return json.loads(r.read())
    finally:
        conn.close()


def test_a_recall_by_words_is_served_on_the_loop_once_its_word_index_is_built(served):
    """The first recall builds the word index, which can take seconds on a large store: it
    is served on the pool, so the connection loop never waits for it. Later recalls by
    words are local work, served on the loop."""
    srv, _ = served
    assert srv.kura.recall_waits(store="rocks")  # nothing built yet
    first = _recall(srv.port, "where is the garnet")
    assert "stone-garnet" in first["picked"] and first["degraded"]
    assert not srv.kura.recall_waits(store="rocks")
    assert srv.loop.pool.threads >= 1  # the first one went there
    before = srv.loop.pool.threads
    for w in WORDS[:8]:
        assert f"stone-{w}" in _recall(srv.port, f"the {w} shelf")["picked"]
    assert srv.loop.pool.threads == before


def test_a_locked_read_log_holds_up_no_recall(served):
    """The read log is written from the pool: while another process holds the workshop
    database's write lock (the tender pouring, say), recalls are answered anyway, and
    what they noted is written once the lock is released."""
    import sqlite3

    from kura_core.recall import READ_LOG_BATCH, flush_read_log

    srv, reg = served
    _recall(srv.port, "warm up")  # builds the word index; its read-log row goes in
    db = reg.workshop("rocks").path

    def logged(like: str) -> int:
        try:  # read-only: looking must not create the database before the server does
            with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as c:
                return c.execute(
                    "SELECT count(*) FROM read_log WHERE question LIKE ?", (like,)
                ).fetchone()[0]
        except sqlite3.OperationalError:
            return 0

    wait_for(lambda: logged("warm up"), "the first recall noted in the read log")
    holder = sqlite3.connect(db, timeout=1, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        for i in range(READ_LOG_BATCH + 5):  # enough for a batch to be due while the lock is held
            _recall(srv.port, f"the {WORDS[i % len(WORDS)]} shelf {i}", timeout=10)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    # what is still waiting for its batch (recalls noted after the last one was due) is
    # written when the process exits; do that now, beside any batch the pool is writing
    flush_read_log(reg)
    wait_for(
        lambda: logged("the % shelf %") == READ_LOG_BATCH + 5,
        "every recall made under the lock noted in the read log once it was released",
    )


def test_health_and_local_recalls_are_answered_while_every_pool_thread_waits(served, monkeypatch):
    """A hung model, or a lock held elsewhere, can keep every pool thread waiting; liveness
    and recalls by words are the loop's own work and are answered meanwhile, and the work
    queued behind the waiting threads is answered once they are free."""
    from kura_core.kura import Kura

    srv, _ = served
    _recall(srv.port, "warm the word index")
    srv.loop.pool.limit = 2
    release, waiting = threading.Event(), []
    real = Kura.doctor

    def slow_doctor(self, **kw):
        waiting.append(1)
        release.wait(20)
        return real(self, **kw)

    monkeypatch.setattr(Kura, "doctor", slow_doctor)
    results: list[int] = []

    def doctor() -> None:
        c = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=30)
        c.request("GET", "/doctor")
        results.append(c.getresponse().status)
        c.close()

    stuck = [threading.Thread(target=doctor) for _ in range(3)]  # two on the pool, one queued
    try:
        for t in stuck:
            t.start()
        _wait_until(lambda: len(waiting) == 2)
        c = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=10)
        c.request("GET", "/health")
        assert c.getresponse().status == 200
        c.close()
        assert "stone-jasper" in _recall(srv.port, "the jasper shelf")["picked"]
        assert results == [] and srv.loop.pool.threads == 2
    finally:
        release.set()
        for t in stuck:
            t.join(30)
    assert results == [200, 200, 200]
