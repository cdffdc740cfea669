"""A loopback load test, bounded in count and time: concurrent keep-alive clients making
degraded (word) recalls. It asserts correctness under concurrency, not speed; speed is
measured by `kura bench perf` (bench_http)."""

from __future__ import annotations

import http.client
import io
import json
import threading
import time

import pytest

from tests.conftest import make_registry

WORDS = ["amber", "basalt", "cobalt", "dolomite", "ebony", "feldspar", "garnet", "hematite", "indigo",
         "jasper", "kyanite", "lapis", "malachite", "nephrite", "obsidian", "peridot", "quartz", "rhodonite",
         "sapphire", "topaz", "umber", "verdigris", "wollastonite", "xenotime"]
MEMORIES = {
    f"stone-{w}": (f"The {w} shelf", f"{w} samples live on shelf {i} in the cold room",
                   f"All {w} samples are kept on shelf {i}. Label them before shelving.")
    for i, w in enumerate(WORDS)
}
CLIENTS, PER_CLIENT = 16, 50


@pytest.fixture
def served(tmp_path):
    from kura_core.http import make_server, start_in_thread

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
                body = json.dumps({"question": f"where are the {word} samples", "top": 1, "hops": 0})
                try:
                    conn.request("POST", "/recall", body=body, headers={"Content-Type": "application/json"})
                    r = conn.getresponse()
                    data = r.read()
                except (OSError, http.client.HTTPException) as exc:
                    with lock:
                        failures.append(f"client {n} request {i}: {type(exc).__name__}: {exc}")
                    return  # a lost connection is a failure; do not reconnect and hide it
                d = json.loads(data) if r.status == 200 else {}
                ok = (r.status == 200 and d.get("how") == "words" and d.get("degraded") is True
                      and d.get("picked") == [f"stone-{word}"] and word in d.get("context", "")
                      and r.getheader("Connection", "").lower() != "close")
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
    from kura_core.http import bench_http

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


def test_bench_http_stops_at_its_time_cap(tmp_path):
    from kura_core.http import bench_http

    reg = make_registry(tmp_path, stores={"rocks": MEMORIES})
    try:
        t0 = time.monotonic()
        res = bench_http(reg, clients=2, requests=10_000_000, seconds_cap=0.5)
        assert time.monotonic() - t0 < 10
    finally:
        reg.close()
    assert res["capped"] is True and res["errors"] == 0 and 0 < res["completed"] < 10_000_000
