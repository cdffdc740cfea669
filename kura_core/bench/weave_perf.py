"""Weave at one store size: a steady-state re-weave, with the trigger ledger already filled.

The ledger is filled first (as a scribe would have left it), so no model is needed and
none is asked. ``reweave_ms_median`` re-weaves in one long-lived process (as the tender
does); ``cold_reweave_ms_median`` opens everything afresh each time (as ``kura weave`` does).
"""

from __future__ import annotations

import shutil
import statistics
import time
from pathlib import Path
from typing import Any

from ..config import parse_config
from ..registry import Registry
from ..tokens import estimate_tokens
from ..weave import fill_ledger, ledger_key, mechanical_trigger, weave
from .stores import generate_store


def bench_reweave(n: int, workdir: Path, *, runs: int = 5) -> dict[str, Any]:
    """Time a steady-state re-weave of a generated store of *n* memories."""

    root = Path(workdir) / f"reweave-{n}"
    if root.exists():
        shutil.rmtree(root)
    generate_store(root, n)
    raw = {
        "stores": {"bench": {"path": str(root)}},
        "prefill": {
            "window_tokens": max(131072, n * 400),
            "budget_fraction": 0.25,
            "hard_fraction": 0.5,
        },
    }

    def open_reg() -> Any:
        return Registry(parse_config(raw, source=None), env={})

    reg = open_reg()
    try:
        cfg = reg.spec("bench").prefill
        budget_t = cfg.trigger_tokens
        idx = reg.store("bench").index()
        rows = {}
        for e in idx.entries:
            if estimate_tokens(e.description) > budget_t:
                rows[ledger_key(e.description, budget_t)] = (
                    mechanical_trigger(e.description, budget_t),
                    "scribe",
                )
        ws = reg.workshop("bench")
        fill_ledger(ws, ((k, t, s) for k, (t, s) in rows.items()), time.time())
        t0 = time.perf_counter()
        first = weave(reg, "bench")
        first_ms = (time.perf_counter() - t0) * 1000.0
        warm: list[float] = []
        calls = first.model_calls
        last = first
        for _ in range(runs):
            t0 = time.perf_counter()
            last = weave(reg, "bench")
            warm.append((time.perf_counter() - t0) * 1000.0)
            calls += last.model_calls
    finally:
        reg.close()
    cold: list[float] = []
    for _ in range(max(1, runs // 2)):
        t0 = time.perf_counter()
        r2 = open_reg()
        try:
            res = weave(r2, "bench")
            calls += res.model_calls
        finally:
            r2.close()
        cold.append((time.perf_counter() - t0) * 1000.0)
    return {
        "memories": n,
        "runs": runs,
        "first_weave_ms": round(first_ms, 1),
        "reweave_ms_median": round(statistics.median(warm), 1),
        "reweave_ms_runs": [round(x, 1) for x in warm],
        "cold_reweave_ms_median": round(statistics.median(cold), 1),
        "model_calls": calls,
        "ledger_hits": last.ledger_hits,
        "written": last.written,
        "tokens_est": last.tokens_est,
        "budget_tokens": last.budget_tokens,
        "layers": dict(last.layers),
    }
