"""The cost of one write at a store's size, without history and with it (a git commit each)."""

from __future__ import annotations

import statistics
import time
from pathlib import Path
from typing import Any

from .. import history
from ..store import Store


def _writes(store: Store, runs: int, tag: str) -> list[float]:
    out = []
    for i in range(runs):
        t = time.perf_counter()
        store.write(
            f"bench-write-{i % 5}",
            title=f"Bench write {i % 5}",
            description=f"the {tag} write number {i} of the benchmark",
            body=f"Written by the benchmark, {tag} history, run {i}.\n",
        )
        out.append((time.perf_counter() - t) * 1000)
    return out


def bench_writes(root: Path, n: int, runs: int) -> dict[str, Any]:
    """Median ms of ``Store.write`` on the store at *root* (of *n* memories) as it is, then
    after giving it history. The store keeps the history afterwards."""
    plain = Store(root, name="bench", history=False)
    plain.init()
    plain.index()
    _writes(plain, 2, "warm-up")
    off = _writes(plain, runs, "no")
    out: dict[str, Any] = {"memories": n, "history_off_ms_median": round(statistics.median(off), 2)}
    if not history.available():
        out["history_on"] = history.GIT_MISSING
        return out
    t = time.perf_counter()
    recorded = Store(root, name="bench")
    history.enable(recorded)
    out["enable_ms"] = round((time.perf_counter() - t) * 1000, 1)
    recorded.index()
    _writes(recorded, 2, "warm-up")
    on = _writes(recorded, runs, "with")
    out["history_on_ms_median"] = round(statistics.median(on), 2)
    out["ratio"] = round(out["history_on_ms_median"] / max(out["history_off_ms_median"], 1e-6), 2)
    return out
