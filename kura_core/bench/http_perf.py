"""HTTP throughput: degraded `POST /recall` against a bare stdlib server, side by side.

Two servers run in this process on ephemeral loopback ports: kura's own (`kura serve`'s
server, no model configured so every recall is by words) and a bare stdlib HTTP/1.1 server
that reads the same request and answers a fixed reply. The clients run in a separate
process (``kura_core.bench.load``) and take turns between the two, so both are measured in
the same minutes on the same machine; the ratio between them is the figure to read. The
bare server is what the machine and Python's HTTP machinery allow at all; what kura adds
on top is recall and the request path around it.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from ..errors import KuraError
from ..faces.http import make_server, start_in_thread
from ..registry import Registry

#: the bare server's reply: a small JSON object, as a kura error reply would be
BARE_REPLY = b'{"ok": true, "note": "a fixed reply from a bare stdlib HTTP/1.1 server"}'


class _BareHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        pass

    def do_POST(self) -> None:
        n = int(self.headers.get("Content-Length") or 0)
        if n:
            self.rfile.read(n)
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(BARE_REPLY)))
        self.end_headers()
        self.wfile.write(BARE_REPLY)


def bare_server() -> ThreadingHTTPServer:
    """A bound stdlib ThreadingHTTPServer (HTTP/1.1, keep-alive, Nagle off) answering a fixed reply."""
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _BareHandler)
    srv.daemon_threads = True
    return srv


def _pct(values: list[float], p: float) -> float:
    if not values:
        return 0.0
    return round(values[min(len(values) - 1, int(round(p * (len(values) - 1))))], 2)


def _summary(rounds: list[dict[str, Any]]) -> dict[str, Any]:
    lat = sorted(x for r in rounds for x in r["latencies_ms"])
    seconds = sum(r["seconds"] for r in rounds)
    errors = [e for r in rounds for e in r["errors"]]
    return {
        "completed": len(lat),
        "errors": len(errors),
        "error_samples": errors[:5],
        "reconnects": sum(r["reconnects"] for r in rounds),
        "seconds": round(seconds, 3),
        "requests_per_s": round(len(lat) / seconds, 1) if seconds > 0 else 0.0,
        "rounds_per_s": [
            round(len(r["latencies_ms"]) / r["seconds"], 1) if r["seconds"] > 0 else 0.0
            for r in rounds
        ],
        "p50_ms": _pct(lat, 0.50),
        "p95_ms": _pct(lat, 0.95),
        "p99_ms": _pct(lat, 0.99),
        "max_ms": round(lat[-1], 2) if lat else 0.0,
    }


def bench_http(
    reg: Registry,
    *,
    clients: int = 16,
    requests: int = 800,
    seconds_cap: float = 30.0,
    store: str | None = None,
    rounds: int = 6,
) -> dict[str, Any]:
    """Throughput and latency of degraded POST /recall from *clients* keep-alive connections
    in a separate process, beside a bare stdlib server measured the same way.

    *requests* and *seconds_cap* bound each server's share (split over *rounds*), whichever
    comes first.
    """

    clients = max(1, int(clients))
    requests = max(1, int(requests))
    rounds = max(1, min(int(rounds), requests))
    quiet = Registry(replace(reg.config, models={}), env=reg.env, clock=reg.clock, today=reg.today)
    name = quiet.resolve(store)
    titles = [e.title for e in quiet.store(name).index().entries if e.title.strip()][:50]
    questions = titles or ["what do we know", "what was decided", "where does it live"]
    server = make_server(quiet, "127.0.0.1", 0, token=None, log=None)
    bare = bare_server()
    threads = [
        start_in_thread(server),
        threading.Thread(target=bare.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True),
    ]
    threads[1].start()
    bodies = [json.dumps({"question": q, "store": name}) for q in questions]
    plan = {
        "clients": clients,
        "rounds": rounds,
        "requests": requests,
        "seconds_cap": float(seconds_cap),
        "targets": [
            {"label": "bare", "port": bare.server_address[1], "path": "/recall", "bodies": bodies},
            {"label": "kura", "port": server.port, "path": "/recall", "bodies": bodies},
        ],
    }
    try:
        raw = _run_load(plan, float(seconds_cap))
    finally:
        server.shutdown()
        server.server_close()
        bare.shutdown()
        bare.server_close()
        for t in threads:
            t.join(timeout=5)
        quiet.close()
    head = {"store": name, "clients": clients, "rounds": rounds, "requests": requests}
    return _report(raw, head, server.connections)


def _run_load(plan: dict[str, Any], seconds_cap: float) -> dict[str, Any]:
    """Run the load process over *plan* and hand back what it measured."""
    with tempfile.TemporaryDirectory(prefix="kura-load-") as tmp:
        plan_file = Path(tmp) / "plan.json"
        plan_file.write_text(json.dumps(plan), encoding="utf-8")
        env = dict(os.environ)
        root = str(Path(__file__).resolve().parents[2])
        env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        proc = subprocess.run(
            [sys.executable, "-m", "kura_core.bench.load", str(plan_file)],
            capture_output=True,
            text=True,
            env=env,
            cwd=tmp,
            timeout=2 * seconds_cap + 120,
        )
    if proc.returncode != 0:
        raise KuraError(f"the load process failed: {proc.stderr.strip()[-400:]}")
    return json.loads(proc.stdout)


def _report(raw: dict[str, Any], head: dict[str, Any], connections: int) -> dict[str, Any]:
    """kura's figures beside the bare server's, round by round; *head* names the run."""
    requests = head["requests"]
    k = _summary(raw["kura"])
    b = _summary(raw["bare"])
    # each round's kura rate over the bare rate measured beside it (the same minute)
    paired = [
        round(kr / br, 3)
        for kr, br in zip(k["rounds_per_s"], b["rounds_per_s"], strict=False)
        if br > 0
    ]
    return {
        "route": "POST /recall",
        "how": "words",
        "store": head["store"],
        "clients": head["clients"],
        "clients_in": "a separate process",
        "rounds": head["rounds"],
        "requests": requests,
        **{key: k[key] for key in ("completed", "errors", "error_samples", "reconnects")},
        "connections": connections,
        "seconds": k["seconds"],
        "capped": k["completed"] + k["errors"] < requests,
        **{
            key: k[key]
            for key in ("requests_per_s", "rounds_per_s", "p50_ms", "p95_ms", "p99_ms", "max_ms")
        },
        "bare": b,
        "ratio_to_bare": round(k["requests_per_s"] / b["requests_per_s"], 3)
        if b["requests_per_s"]
        else None,
        "ratio_by_round": paired,
        "ratio_median_of_rounds": round(statistics.median(paired), 3) if paired else None,
        "p99_ratio_to_bare": round(k["p99_ms"] / b["p99_ms"], 2) if b["p99_ms"] else None,
    }
