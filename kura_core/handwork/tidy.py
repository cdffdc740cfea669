"""Tidy lines a person reviews: the scribe's rewrites, accepted or rejected by hand."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..distill.drafts import FloorRefused
from ..distill.tidy import check_line, find_weak_lines, propose
from ..errors import ConflictError, KuraError, ModelUnavailable
from ..registry import Registry
from ..vocabulary import (
    GateLogKind,
)
from .memories import check_writable
from .runs import Progress, ProgressFn

if TYPE_CHECKING:
    pass

# =========================================================================== tidy


@dataclass(frozen=True)
class TidyProposal:
    slug: str
    title: str
    line: str  # the line as it is
    why: str  # why it fails
    proposed: str = ""  # the scribe's rewrite ("" with no scribe, or when it failed)
    problems: tuple[str, ...] = ()  # what the floors refuse in the rewrite
    error: str = ""


@dataclass(frozen=True)
class TidyReview:
    store: str
    proposals: tuple[TidyProposal, ...]
    scribe: bool  # whether a scribe wrote rewrites
    note: str = ""
    stopped: str = ""


def tidy_review(
    reg: Registry,
    name: str,
    *,
    progress: ProgressFn | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> TidyReview:
    """The weak index lines and a rewrite of each, for a person to accept, edit or reject.
    Nothing is written. Without a scribe the weak lines come without rewrites."""

    flagged = find_weak_lines(reg, name)
    scribe = reg.config.models_for(name).get("scribe") is not None
    note = (
        ""
        if scribe
        else (
            "no scribe model is configured: the weak lines are listed without rewrites; "
            "write each line yourself, or add [models.thinker] to kura.toml"
        )
    )
    out: list[TidyProposal] = []
    stopped = ""
    store = reg.store(name)
    for i, item in enumerate(flagged):
        entry = store.index().by_slug().get(item["slug"])
        title = entry.title if entry else item["slug"]
        if not scribe or stopped:
            out.append(TidyProposal(item["slug"], title, item["line"], item["why"]))
            continue
        if should_stop and should_stop():
            stopped = "asked to stop"
            out.append(TidyProposal(item["slug"], title, item["line"], item["why"]))
            continue
        if progress:
            progress(Progress(i, len(flagged), f"asking the scribe to rewrite {item['slug']}"))
        try:
            title, new, problems = propose(reg, name, item, flagged)
            out.append(
                TidyProposal(
                    item["slug"],
                    title,
                    item["line"],
                    item["why"],
                    new,
                    tuple(str(p) for p in problems),
                )
            )
        except ModelUnavailable as exc:
            stopped = f"the scribe failed: {exc}"
            out.append(TidyProposal(item["slug"], title, item["line"], item["why"], error=str(exc)))
        except KuraError as exc:
            out.append(TidyProposal(item["slug"], title, item["line"], item["why"], error=str(exc)))
    if progress:
        progress(Progress(len(flagged), len(flagged), "done"))
    return TidyReview(name, tuple(out), scribe, note, stopped)


def apply_tidy(
    reg: Registry, name: str, slug: str, line: str, *, expected: str, by: str = "hand"
) -> str:
    """Write one reviewed index line. It passes the same floors as the scribe's rewrites
    (no number the memory does not hold, no new attribution, no lost negation or ⚠️)."""

    check_writable(reg, name, "tidied")
    store = reg.store(name)
    mem = store.read(slug)
    entry = store.index().by_slug().get(slug)
    current = entry.description if entry else mem.description
    if " ".join(current.split()) != " ".join(expected.split()):
        raise ConflictError(f"the line of {slug} changed since it was proposed; tidy again")
    new = " ".join(line.split())
    problems = check_line(current, new, mem.body, reg.config.stores[name].distill.human_names)
    ws = reg.workshop(name)
    title = entry.title if entry else mem.title
    if problems:
        ws.log_gate(
            GateLogKind.REFUSED,
            title=title,
            slug=slug,
            reason="; ".join(str(p) for p in problems),
            detail={
                "at": "tidy",
                "line": new,
                "by": by,
                "violations": [p.to_json() for p in problems],
            },
        )
        raise FloorRefused(problems)
    # the line and its `tidied` row are one intent, as in tidy itself
    row = {
        "kind": GateLogKind.TIDIED,
        "title": title,
        "slug": slug,
        "reason": f"reviewed by {by}",
        "detail": {"old": current, "new": new, "by": by},
        "key": f"tidied:{uuid.uuid4().hex}",
        "at": reg.clock(),
    }
    store.set_index_line(slug, title, new, also={"log": row})
    return new


def reject_tidy(reg: Registry, name: str, slug: str, proposed: str, *, by: str = "hand") -> None:
    store = reg.store(name)
    entry = store.index().by_slug().get(slug)
    reg.workshop(name).log_gate(
        GateLogKind.TIDY_REJECTED,
        title=entry.title if entry else slug,
        slug=slug,
        reason=f"rewrite rejected by {by}",
        detail={"line": entry.description if entry else "", "proposed": proposed, "by": by},
    )
