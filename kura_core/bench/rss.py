"""Resident memory of `kura serve`: a real server process, warmed the way use warms it.

For each store size a `kura serve` is started on its own (an ephemeral loopback port, the
instant thinker as its model) and its resident set size read from /proc twice: once
listening, and once after every cache a store keeps has been filled — a recall by meaning
(the parsed index and its prompt shards), a recall by words (the word index), the prefill
block and the raw index.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from ..errors import KuraError
from .stores import QUESTIONS
from .thinker import InstantThinker

_LISTENING = re.compile(r"listening on (http://[^\s]+)")


def rss_kb(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM (peak) of a process in kB, from /proc (Linux)."""
    out = {}
    with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as fh:
        for line in fh:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                out[key] = int(value.split()[0])
    return out


def supported() -> bool:
    return os.path.isfile(f"/proc/{os.getpid()}/status")


def serve_rss(
    root: Path, workdir: Path, thinker: InstantThinker, *, timeout: float = 120.0
) -> dict[str, Any]:
    """Start `kura serve` on the store at *root*, warm it, and report its memory in MB."""
    workdir.mkdir(parents=True, exist_ok=True)
    cfg = workdir / "kura.toml"
    cfg.write_text(
        f'[stores.bench]\npath = "{root}"\n\n[models.thinker]\nurl = "{thinker.url}"\n'
        'model = "instant"\ntimeout = 60\n',
        encoding="utf-8",
    )
    env = dict(os.environ)
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2]) + (
        os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else ""
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "kura_core", "-c", str(cfg), "serve", "--port", "0"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=workdir,
    )  # not the caller's directory: nothing there shadows a module
    found: list[str] = []
    said: list[str] = []
    ready = threading.Event()

    def drain() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            said.append(line.rstrip("\n"))
            del said[:-40]
            if not found and (m := _LISTENING.search(line)):
                found.append(m.group(1))
                ready.set()
        ready.set()

    threading.Thread(target=drain, daemon=True).start()
    try:
        if not ready.wait(timeout) or not found:
            raise KuraError("`kura serve` did not start listening:\n" + "\n".join(said[-20:]))
        port = int(found[0].rsplit(":", 1)[1].split("/")[0])
        started = rss_kb(proc.pid)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)

        def call(method: str, path: str, body: Any = None) -> dict[str, Any]:
            data = json.dumps(body).encode() if body is not None else None
            conn.request(
                method,
                path,
                body=data,
                headers={"Content-Type": "application/json"} if data else {},
            )
            r = conn.getresponse()
            payload = r.read()
            if r.status != 200:
                raise KuraError(
                    f"{method} {path} answered {r.status}: {payload[:200]!r}; kura serve said:\n"
                    + "\n".join(said[-20:])
                )
            return (
                json.loads(payload)
                if r.getheader("Content-Type", "").startswith("application/json")
                else {}
            )

        t0 = time.perf_counter()
        hows = [call("POST", "/recall", {"question": QUESTIONS[0]}).get("how")]
        thinker.nonsense = True
        try:
            hows.append(call("POST", "/recall", {"question": QUESTIONS[1]}).get("how"))
        finally:
            thinker.nonsense = False
        call("GET", "/prefill")
        call("GET", "/index")
        warm_s = time.perf_counter() - t0
        conn.close()
        warm = rss_kb(proc.pid)
        return {
            "rss_mb_listening": round(started["VmRSS"] / 1024, 1),
            "rss_mb_warm": round(warm["VmRSS"] / 1024, 1),
            "rss_mb_peak": round(warm["VmHWM"] / 1024, 1),
            "warming_s": round(warm_s, 2),
            "recalled_by": hows,
        }
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
