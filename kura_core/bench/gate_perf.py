"""Gate throughput: candidates checked against their evidence per second (no model)."""

from __future__ import annotations

import statistics
import time
from typing import Any

from ..distill.evidence import Segment
from ..distill.gate import run_gate
from ..vocabulary import ProvenanceClass


def bench_gate(runs: int) -> dict[str, Any]:
    """100 candidates, each quoting one of 400 segments, through the whole gate."""

    segs = [
        Segment(
            cls=ProvenanceClass.USER if i % 3 else ProvenanceClass.TOOL,
            text=f"line {i}: the widget {i} sits on shelf {i % 17} and we decided to keep it there",
            source="bench",
            start=i,
            end=i + 1,
            unit="seq",
        )
        for i in range(400)
    ]
    cands = [
        {
            "kind": "fact",
            "title": f"widget {i}",
            "description": f"widget {i} on shelf {i % 17}",
            "body": f"The widget {i} sits on shelf {i % 17}.",
            "quotes": [f"[USER] the widget {i} sits on shelf {i % 17}"],
        }
        for i in range(1, 200, 2)
    ]
    times = []
    for _ in range(max(3, runs // 2)):
        t = time.perf_counter()
        run_gate(cands, segs)
        times.append((time.perf_counter() - t) * 1000)
    med = statistics.median(times)
    return {
        "candidates": len(cands),
        "segments": len(segs),
        "median_ms": round(med, 2),
        "candidates_per_s": round(len(cands) / (med / 1000), 1),
    }
