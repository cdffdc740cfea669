"""The constellation's size and build time at a store size (`kura bench perf`)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from ..config import parse_config
from ..prefill import build_prefill
from ..registry import Registry
from ..resident import _SECTOR_PREFIX as _ROW


def measure_constellation(root: Path, n: int) -> dict[str, Any]:
    """Build the resident block of the store at *root* with ``resident_mode = constellation``:
    its tokens, its sector count, the memories its counts add up to, and the build time
    (cold: nothing cached)."""
    raw = {
        "stores": {"bench": {"path": str(root)}},
        "prefill": {"resident_mode": "constellation", "trail_tokens": 0},
    }
    reg = Registry(parse_config(raw, source=None))
    try:
        started = time.perf_counter()
        p = build_prefill(reg, "bench")
        ms = (time.perf_counter() - started) * 1000
        rows = [l for l in p.text.split("\n") if l.startswith(_ROW)]
        counted = sum(int(l.split(" — ", 1)[1].split(" ", 1)[0]) for l in rows)
        return {
            "memories": n,
            "shown": p.constellation_shown,
            "tokens": p.tokens_est,
            "map_tokens": p.map_tokens_est,
            "sectors": len(rows),
            "counted": counted,
            "indexed": len(set(reg.store("bench").index().slugs())),
            "build_ms": round(ms, 1),
        }
    finally:
        reg.close()


def constellation_lines(rows: list[dict[str, Any]]) -> list[str]:
    out = ["", "memories   constellation (tokens / sectors / memories counted)   whole map   build"]
    for r in rows:
        out.append(
            f"{r['memories']:>8}   {r['tokens']:>6} tokens / {r['sectors']:>4} / {r['counted']:>6}"
            f"{'':>22}{r['map_tokens']:>7} tokens   {r['build_ms']:.1f} ms"
        )
    return out
