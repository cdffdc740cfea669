"""The fastpath at one store size: how fast it judges, and whether it ever answers wrongly.

* **direct questions** — a memory's own title in an English, Japanese or Chinese frame
  ("what about {title}?", "{title}について教えて", "关于{title}"), for a fixed sample of
  the store's memories: how many the fastpath answered, how many wrongly (the goal is
  none), and the time of each judgement (warm, median and 99th percentile);
* **agreement** — the same questions asked of the instant thinker in its *oracle* mode
  (it names the memory whose title the question holds): the share of the fastpath's
  answers the thinker names first, and how many requests reached the thinker while the
  fastpath was on (a direct question it answered must reach none);
* **indirect questions** — the benchmark's bag-of-words questions, which name no memory:
  how many the fastpath answered (it should stay silent and leave them to the thinker);
* **build** — the first recall's cost of building the recogniser (beside the word index).
"""

from __future__ import annotations

import random
import statistics
import time
from pathlib import Path
from typing import Any

from ..config import parse_config
from ..recall import fast_index, recall
from ..registry import Registry
from .stores import QUESTIONS
from .thinker import InstantThinker

#: how a direct question is framed, by language
FRAMES = ("what about {t}?", "{t}について教えて", "关于{t}")
#: memories sampled for direct questions
SAMPLE = 60
#: direct questions also asked end to end through recall (with and without the fastpath)
THROUGH_RECALL = 12


def _registry(root: Path, thinker: InstantThinker, enabled: bool) -> Registry:
    return Registry(
        parse_config(
            {
                "stores": {"bench": {"path": str(root)}},
                "models": {"thinker": {"url": thinker.url, "model": "instant", "timeout": 30}},
                "fastpath": {"enabled": enabled},
            },
            source=None,
        )
    )


def _direct(reg: Registry) -> list[tuple[str, str]]:
    """(question, the slug it names) for a fixed sample of the store's memories."""
    entries = list(reg.store("bench").index().entries)
    rng = random.Random(11)
    picks = rng.sample(entries, min(SAMPLE, len(entries)))
    return [(f.format(t=e.title), e.slug) for i, e in enumerate(picks) for f in FRAMES[i % 3 :][:1]]


def measure_fastpath(root: Path, thinker: InstantThinker) -> dict[str, Any]:
    """The fastpath's figures for the store at *root* (see the module's docstring)."""
    reg = _registry(root, thinker, True)
    try:
        t0 = time.perf_counter()
        rec = fast_index(reg, "bench")
        build_ms = (time.perf_counter() - t0) * 1000
        direct = _direct(reg)
        times, answered, wrong = [], 0, 0
        for q, _slug in direct:  # warm: the word tokeniser's memo, the allocator
            rec.judge(q)
        for _ in range(3):
            for q, _slug in direct:
                times.append(rec.judge(q).ms)
        for q, slug in direct:
            j = rec.judge(q)
            if j.verdict == "ok":
                answered += 1
                wrong += j.slug != slug
        indirect = sum(rec.judge(q).verdict == "ok" for q in QUESTIONS)
        agree, asked, recall_ms = _agreement(root, reg, thinker, direct[:THROUGH_RECALL])
        times.sort()
        return {
            "memories": len(rec),
            "build_ms": round(build_ms, 1),
            "direct_questions": len(direct),
            "answered": answered,
            "wrong": wrong,
            "judge_ms_median": round(statistics.median(times), 3),
            "judge_ms_p99": round(times[int(0.99 * (len(times) - 1))], 3),
            "recall_ms_median": recall_ms,
            "agreement_with_thinker": agree,
            "thinker_requests_for_direct_questions": asked,
            "indirect_questions": len(QUESTIONS),
            "indirect_answered": indirect,
        }
    finally:
        reg.close()


def _agreement(
    root: Path, reg: Registry, thinker: InstantThinker, direct: list[tuple[str, str]]
) -> tuple[float | None, int, float]:
    """(the share of the fastpath's answers the oracle thinker names first, the requests
    that reached the thinker while the fastpath answered, the median recall time)."""
    fast, ms, asked = {}, [], 0
    for q, _slug in direct:
        before = thinker.calls
        r = recall(reg, "bench", q, hops=0)
        ms.append(r.elapsed_ms)
        if r.how == "fastpath":
            fast[q] = r.picked[0]
            asked += thinker.calls - before
    off = _registry(root, thinker, False)
    thinker.oracle = True
    try:
        same = 0
        for q, slug in fast.items():
            r = recall(off, "bench", q, hops=0)
            same += bool(r.picked) and r.picked[0] == slug
    finally:
        thinker.oracle = False
        off.close()
    share = round(same / len(fast), 3) if fast else None
    return share, asked, round(statistics.median(ms), 2) if ms else 0.0
