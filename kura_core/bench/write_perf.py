"""The cost of one write at a store's size, without history and with it (a git commit each).

The store is copied and the copy given history; writes then alternate between the two, so
a machine's load falls on both alike and the ratio between them is the figure."""

from __future__ import annotations

import shutil
import statistics
import time
from pathlib import Path
from typing import Any

from .. import history
from ..store import Store


def _write(store: Store, i: int, tag: str) -> float:
    t = time.perf_counter()
    store.write(
        f"bench-write-{i % 5}",
        title=f"Bench write {i % 5}",
        description=f"the {tag} write number {i} of the benchmark",
        body=f"Written by the benchmark, {tag} history, run {i}.\n",
    )
    return (time.perf_counter() - t) * 1000


def bench_writes(root: Path, n: int, runs: int) -> dict[str, Any]:
    """Median ms of ``Store.write`` on the store at *root* (of *n* memories) and on a copy of
    it with history, alternating."""
    plain = Store(root, name="bench", history=False)
    plain.init()
    out: dict[str, Any] = {"memories": n}
    if not history.available():
        alone = [_write(plain, i, "no") for i in range(runs + 2)][2:]
        out["history_off_ms_median"] = round(statistics.median(alone), 2)
        out["history_on"] = history.GIT_MISSING
        return out
    copy = root.parent / f"{root.name}-history"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns("_still"))
    recorded = Store(copy, name="bench")
    recorded.init()
    t = time.perf_counter()
    history.enable(recorded)
    out["enable_ms"] = round((time.perf_counter() - t) * 1000, 1)
    off: list[float] = []
    on: list[float] = []
    for i in range(runs + 2):  # the first two of each warm the caches
        off.append(_write(plain, i, "no"))
        on.append(_write(recorded, i, "with"))
    out["history_off_ms_median"] = round(statistics.median(off[2:]), 2)
    out["history_on_ms_median"] = round(statistics.median(on[2:]), 2)
    out["ratio"] = round(out["history_on_ms_median"] / max(out["history_off_ms_median"], 1e-6), 2)
    return out
