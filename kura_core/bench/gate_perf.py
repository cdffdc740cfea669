"""Gate throughput (no model): candidates checked against a small batch per second, and
the gate's MB/s and candidates/s over a large generated journal."""

from __future__ import annotations

import statistics
import time
from pathlib import Path
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


def bench_gate_journal(work: Path, megabytes: float, runs: int) -> dict[str, Any]:
    """The gate over a generated Claude Code journal of about *megabytes*: ten candidates
    quoting it, against reading the same file (what ``kura journal inspect`` does)."""
    from ..distill.gate import run_gate
    from ..distill.journals import read_journal
    from ..vocabulary import GateVerdict
    from .journal_gen import gate_candidates, generate_journal

    work.mkdir(parents=True, exist_ok=True)
    journal = generate_journal(work / "journal.jsonl", int(megabytes * 1_000_000))
    cands = gate_candidates(journal, 10)
    reads, gates = [], []
    kept = segments = 0
    for _ in range(max(1, runs // 3)):
        t0 = time.perf_counter()
        _, read = read_journal(journal.path, "claude")
        t1 = time.perf_counter()
        results = run_gate(cands, list(read.segments))
        reads.append(t1 - t0)
        gates.append(time.perf_counter() - t1)
        segments = len(read.segments)
        kept = sum(r.verdict == GateVerdict.KEPT for r in results)
    read_s, gate_s = statistics.median(reads), statistics.median(gates)
    mb = journal.bytes / 1_000_000
    return {
        "journal_mb": round(mb, 1),
        "records": journal.records,
        "segments": segments,
        "candidates": len(cands),
        "kept": kept,
        "read_s_median": round(read_s, 3),
        "gate_s_median": round(gate_s, 3),
        "gate_mb_per_s": round(mb / gate_s, 1),
        "candidates_per_s": round(len(cands) / gate_s, 1),
        "gate_and_read_to_read": round((read_s + gate_s) / read_s, 2),
    }
