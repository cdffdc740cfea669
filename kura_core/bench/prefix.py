"""What a real model server pays per recall: how much of each prompt its prefix cache holds.

Recall sends the whole index on purpose, so what keeps it cheap on a real server is the
prefix cache: the charter, the instructions and the index come first, byte for byte the
same from one question to the next, and the question comes last. A server that has seen
the previous recall only prefills what follows the longest prefix it already holds.

This module reads the prompts as they were sent (the instant thinker keeps them) and
reports, per shard, the share of each prompt's tokens that is identical to the previous
recall's prompt for that shard, and the tokens a warm cache still has to prefill.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import Any

from ..tokens import estimate_tokens

#: the share of every prompt a warm prefix cache must already hold
TARGET_SHARE = 0.98


def render(messages: Sequence[dict[str, Any]]) -> str:
    """A prompt as a chat template lays it out: each message's role, then its content, in order.

    The exact markers differ between servers; they are the same bytes on every call, so the
    shared prefix does not depend on them.
    """
    return "".join(f"<|{m.get('role', '')}|>\n{m.get('content', '')}\n" for m in messages)


def common_prefix(a: str, b: str) -> int:
    """How many leading characters *a* and *b* share (compared a block at a time)."""
    n = min(len(a), len(b))
    i = 0
    step = 4096
    while i < n:
        j = min(i + step, n)
        if a[i:j] != b[i:j]:
            lo, hi = i, j
            while hi - lo > 64:
                mid = (lo + hi) // 2
                if a[lo:mid] == b[lo:mid]:
                    lo = mid
                else:
                    hi = mid
            while lo < hi and a[lo] == b[lo]:
                lo += 1
            return lo
        i = j
    return n


def _system(prompt: str) -> str:
    """The part of a rendered prompt before its last message (the stable part, if all is well)."""
    cut = prompt.rfind("<|user|>")
    return prompt[:cut] if cut > 0 else prompt


def prefix_report(recalls: Sequence[Sequence[str]]) -> dict[str, Any]:
    """Prefix sharing over a sequence of recalls, each a list of rendered prompts (one per shard).

    For every prompt after the first recall, its partner is the previous recall's prompt for
    the same shard (the one with the same stable part; failing that, the one sharing the
    longest prefix, as a prefix cache would find it). Shards are numbered in the order of
    their stable parts.
    """
    shares: list[float] = []
    per_shard: dict[int, float] = {}
    warm: list[int] = []
    totals: list[int] = []
    for t, prompts in enumerate(recalls):
        ordered = sorted(prompts, key=_system)
        totals.append(sum(estimate_tokens(p) for p in ordered))
        if t == 0:
            continue
        prev = list(recalls[t - 1])
        by_system = {_system(p): p for p in prev}
        unshared = 0
        for k, p in enumerate(ordered):
            partner = by_system.get(_system(p))
            if partner is not None:
                shared = common_prefix(p, partner)
            else:
                shared = max((common_prefix(p, q) for q in prev), default=0)
            tokens = estimate_tokens(p)
            held = estimate_tokens(p[:shared])
            share = held / tokens if tokens else 1.0
            shares.append(share)
            per_shard[k] = min(per_shard.get(k, 1.0), share)
            unshared += tokens - held
        warm.append(unshared)
    return {
        "questions": len(recalls),
        "shards": max((len(p) for p in recalls), default=0),
        "prompt_tokens_per_recall": int(statistics.median(totals)) if totals else 0,
        "shared_share_min": round(min(shares), 5) if shares else None,
        "shared_share_median": round(statistics.median(shares), 5) if shares else None,
        "per_shard_min": [round(per_shard[k], 5) for k in sorted(per_shard)],
        "cold_prefill_tokens": totals[0] if totals else 0,
        "warm_prefill_tokens_per_recall": int(statistics.median(warm)) if warm else None,
        "meets_target": bool(shares) and min(shares) >= TARGET_SHARE,
        "target": TARGET_SHARE,
    }
