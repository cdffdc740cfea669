"""Recall at one store size: by meaning (against the instant thinker), by words, and after writes.

* ``meaning`` — kura's own overhead (elapsed minus time inside model calls) and the total;
  the prompts are kept and read for how much of them a prefix cache would hold;
* ``words`` — the degraded tier: building the word index from nothing, then a warm search;
* ``after_write`` — the next recall after one write of each kind a store sees: a memory
  remembered (a new file and index line), a memory rewritten (a replaced file and a changed
  line), and a hand edit saved by an editor (a file replaced, the index untouched).
"""

from __future__ import annotations

import os
import statistics
import time
from pathlib import Path
from typing import Any

from .. import recall as recall_mod
from ..config import parse_config
from ..errors import KuraError
from ..recall import recall, word_index
from ..registry import Registry
from ..tokens import estimate_tokens
from .prefix import prefix_report, render
from .stores import QUESTIONS
from .thinker import InstantThinker


def _ms(t0: float) -> float:
    return (time.perf_counter() - t0) * 1000.0


def measure_meaning(
    root: Path, thinker: InstantThinker, runs: int
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(recall by meaning figures, prefix-cache figures) for the store at *root*."""

    reg = Registry(
        parse_config(
            {
                "stores": {"bench": {"path": str(root)}},
                "models": {"thinker": {"url": thinker.url, "model": "instant", "timeout": 30}},
                # recall by meaning is what is measured here (the fastpath has its own figures)
                "fastpath": {"enabled": False},
            },
            source=None,
        )
    )
    try:
        recall(reg, "bench", QUESTIONS[-1])  # warm: caches, connections
        thinker.take_prompts()
        over, tot, prompts = [], [], []
        r = None
        for i in range(max(runs, 2)):
            r = recall(reg, "bench", QUESTIONS[i % len(QUESTIONS)])
            if r.degraded:
                raise KuraError(f"the instant thinker failed: {r.reason}")
            over.append(r.elapsed_ms - r.model_ms)
            tot.append(r.elapsed_ms)
            prompts.append([render(m) for m in thinker.take_prompts()])
        n = len(reg.store("bench").file_slugs())
        meaning = {
            "memories": n,
            "overhead_ms_median": round(statistics.median(over), 2),
            "total_ms_median": round(statistics.median(tot), 2),
            "shards": r.shards if r else 0,
            "index_tokens": estimate_tokens(reg.store("bench").index_text()),
        }
        prefix = {"memories": n, **prefix_report(prompts)}
        after = []
        for i in range(max(3, runs // 3)):
            _write(reg, i)
            r = recall(reg, "bench", QUESTIONS[i % len(QUESTIONS)])
            after.append(r.elapsed_ms - r.model_ms)
        meaning["overhead_after_write_ms_median"] = round(statistics.median(after), 2)
        return meaning, prefix
    finally:
        reg.close()


def measure_words(root: Path, runs: int, n: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """(degraded recall figures, index-after-write figures) for the store of *n* memories at *root*.

    "Warm" is the steady state: every question has been asked once since the last change
    (the first question to use a term after a change derives that term's weights).
    """

    reg = Registry(parse_config({"stores": {"bench": {"path": str(root)}}}, source=None))
    try:
        t0 = time.perf_counter()
        word_index(reg, "bench")
        build_ms = _ms(t0)
        turn = iter(range(10**6))

        def one() -> float:
            t = time.perf_counter()
            recall(reg, "bench", QUESTIONS[next(turn) % len(QUESTIONS)])
            return _ms(t)

        for _ in QUESTIONS:
            one()
        warm = [one() for _ in range(runs)]
        checks = []
        for _ in range(3):  # the periodic check of every file's identity, with nothing changed
            checks.append(_full_check_ms(reg))
        kinds: dict[str, list[float]] = {"remember": [], "rewrite": [], "hand_edit": []}
        for i in range(max(3, runs)):
            kind = _write(reg, i)
            kinds[kind].append(one())
        after = [x for xs in kinds.values() for x in xs]
        degraded = {
            "memories": n,
            "median_ms": round(statistics.median(warm), 2),
            "index_build_ms": round(build_ms, 1),
        }
        update = {
            "memories": n,
            "warm_ms_median": round(statistics.median(warm), 2),
            "after_write_ms_median": round(statistics.median(after), 2),
            "after_write_ms_max": round(max(after), 2),
            "by_kind_ms_median": {k: round(statistics.median(v), 2) for k, v in kinds.items() if v},
            "full_rebuild_ms": round(build_ms, 1),
            "writes": len(after),
            "periodic_check_ms": round(statistics.median(checks), 2),
        }
        return degraded, update
    finally:
        reg.close()


def _full_check_ms(reg: Registry) -> float:
    """How long word_index() takes when its periodic check of every file falls due."""

    every = recall_mod.RECHECK_S
    recall_mod.RECHECK_S = 0.0
    try:
        t = time.perf_counter()
        recall_mod.word_index(reg, "bench")
        return _ms(t)
    finally:
        recall_mod.RECHECK_S = every


def _write(reg: Registry, i: int) -> str:
    """One write of the i-th kind (remember, rewrite, hand edit); returns the kind."""
    store = reg.store("bench")
    kind = ("remember", "rewrite", "hand_edit")[i % 3]
    if kind == "remember":
        store.write(
            f"bench-note-{i}",
            title=f"Bench note {i}",
            description=f"the kettle note {i} moved to the harbor",
            body=f"The kettle note {i} moved to the harbor.",
            type="project",
        )
    elif kind == "rewrite":
        slug = store.file_slugs()[(i * 7919) % len(store.file_slugs())]
        mem = store.read(slug)
        store.write(
            slug,
            title=slug.replace("-", " "),
            description=mem.description + f" (seen again {i})",
            body=mem.body + f"\n\nSeen again on pass {i}.",
            type=mem.type or "project",
        )
    else:
        slugs = store.file_slugs()
        path = store.root / f"{slugs[(i * 104729) % len(slugs)]}.md"
        text = path.read_text(encoding="utf-8") + f"\nEdited by hand, pass {i}.\n"
        tmp = path.with_name(f".{path.name}.edit")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)  # what an editor's save does
    return kind
