"""Tidy: find index lines that do not do their job, and have the scribe rewrite them.

An index line is a recognition trigger. It fails when it is too generic to recognise
anything, when another memory has the same line, when it could be swapped with another
memory's line and still read fine, or when it is built from dead words ("note",
"summary"). Rewrites pass the same floors as everything else a model writes: no number
the memory does not hold, no attribution it does not make, no lost negation or ⚠️.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import KuraError, ModelUnavailable
from ..floors import check_rewrite
from ..floors.kura_messages import kura_message_violations
from ..profile import preamble
from ..prompts import messages as build_messages
from ..registry import Registry
from ..reports import tally_of
from ..vocabulary import GateLogKind, WritePolicy
from ..words import tokenize
from .evidence import normalize

DEAD_WORDS = frozenset(
    {
        "note",
        "notes",
        "summary",
        "misc",
        "miscellaneous",
        "stuff",
        "info",
        "information",
        "memo",
        "todo",
        "thing",
        "things",
        "various",
        "general",
        "update",
        "updates",
        "log",
        "メモ",
        "まとめ",
        "備忘",
        "雑記",
        "その他",
        "备注",
        "总结",
        "笔记",
        "杂项",
        "其他",
    }
)

TIDY_SCHEMA = {
    "type": "object",
    "properties": {"description": {"type": "string"}},
    "required": ["description"],
}

TIDY_INSTRUCTIONS = """\
You rewrite one index line of a long-term memory. An index line is a recognition trigger,
not a summary: proper nouns, numbers, ⚠️ for landmines, the conclusion reached — so that a
reader who sees only this line knows exactly which memory it is and could not mistake it for
another. Use only what the memory itself says; keep every negation and ⚠️. Reply with JSON
only: {"description": "…"}"""


@dataclass(frozen=True)
class TidyReport:
    """What one tidy found and did (frozen; counted as it ran in a :data:`_TidyTally`)."""

    store: str
    flagged: tuple[Mapping[str, str], ...] = ()
    rewritten: tuple[Mapping[str, str], ...] = ()
    refused: tuple[Mapping[str, Any], ...] = ()
    errors: tuple[str, ...] = ()

    @property
    def did_work(self) -> bool:
        return bool(self.rewritten)

    def to_json(self) -> dict[str, Any]:
        return {
            "store": self.store,
            "flagged": [dict(f) for f in self.flagged],
            "rewritten": [dict(r) for r in self.rewritten],
            "refused": [dict(r) for r in self.refused],
            "errors": list(self.errors),
        }


_TidyTally = tally_of(TidyReport)


def _words(text: str) -> set[str]:
    return set(tokenize(text))


def find_weak_lines(reg: Registry, selector: str | None) -> list[dict[str, str]]:
    store = reg.store(selector)
    entries = [e for e in store.index().entries if store.has(e.slug)]
    out: list[dict[str, str]] = []
    seen: dict[str, str] = {}
    bags = {e.slug: _words(e.description) for e in entries}
    postings: dict[str, list[str]] = {}
    for slug, bag in bags.items():
        for w in bag:
            postings.setdefault(w, []).append(slug)
    for e in entries:
        desc = normalize(e.description)
        why = ""
        words = bags[e.slug]
        if not desc:
            why = "empty line"
        elif len(words) < 3:
            why = "too generic: too few words to recognise anything"
        elif normalize(desc).lower() == normalize(e.title).lower():
            why = "repeats the title and adds nothing"
        elif words and len(words & DEAD_WORDS) * 2 >= len(words):
            why = "made of dead words"
        elif desc.lower() in seen:
            why = f"the same line as {seen[desc.lower()]}"
        else:
            other = _swappable(e.slug, words, bags, postings)
            if other:
                why = f"swappable with {other}'s line"
        seen.setdefault(desc.lower(), e.slug)
        if why:
            out.append({"slug": e.slug, "line": e.description, "why": why})
    return out


SWAPPABLE = 0.8  # word overlap (Jaccard) at which two lines could be swapped and still read fine
#: an index whose lines all share the same few words would make the check quadratic; past
#: this many candidates a line is let be (real indexes rarely come near it)
MAX_COMPARED = 1000


def _swappable(
    slug: str, words: set[str], bags: dict[str, set[str]], postings: dict[str, list[str]]
) -> str:
    """Another line sharing at least SWAPPABLE of its words with this one, or "".

    Two sets with Jaccard ≥ 0.8 share at least 80% of each one's words, so the other line
    must contain one of this line's rarest floor(0.2·n)+1 words: only lines found through
    those words' postings are compared, which keeps a large index linear, not quadratic.
    """
    if not words:
        return ""
    rare = sorted(words, key=lambda w: (len(postings.get(w, ())), w))[
        : int(len(words) * (1 - SWAPPABLE)) + 1
    ]
    seen: set[str] = set()
    for w in rare:
        for other in postings.get(w, ()):
            if other == slug or other in seen:
                continue
            if len(seen) >= MAX_COMPARED:
                return ""
            seen.add(other)
            bag = bags[other]
            if bag and len(words & bag) / len(words | bag) >= SWAPPABLE:
                return other
    return ""


def tidy(
    reg: Registry, selector: str | None, *, should_stop: Callable[[], bool] | None = None
) -> TidyReport:
    name = reg.resolve(selector)
    store = reg.store(name)
    report = _TidyTally(store=name, flagged=find_weak_lines(reg, name))
    if not report.flagged:
        return report.freeze()
    if reg.config.stores[name].write_policy == WritePolicy.FROZEN:
        report.errors.append(f"store {name!r} is frozen: weak lines are reported, not rewritten")
        return report.freeze()
    models = reg.models(name)
    if not models.configured("scribe"):
        raise KuraError(
            "tidy needs a scribe model to rewrite lines: add [models.thinker] or "
            "[models.scribe]; the weak lines are listed by `kura doctor`-style output above"
        )
    for item in report.flagged:
        if should_stop and should_stop():
            break
        try:
            title, new, problems = propose(reg, name, item, report.flagged)
        except ModelUnavailable as exc:
            report.errors.append(f"{item['slug']}: {exc}")
            break
        if problems:
            why = "; ".join(str(p) for p in problems)
            report.refused.append(
                {
                    "slug": item["slug"],
                    "line": new,
                    "reason": why,
                    "violations": [p.to_json() for p in problems],
                }
            )
            reg.workshop(name).log_gate(
                GateLogKind.REFUSED,
                title=title,
                slug=item["slug"],
                reason=why,
                detail={"at": "tidy", "line": new, "violations": [p.to_json() for p in problems]},
            )
            continue
        # the line and its `tidied` row are one intent: a crash between them is finished by the next reader
        row = {
            "kind": GateLogKind.TIDIED,
            "title": title,
            "slug": item["slug"],
            "reason": item["why"],
            "detail": {"old": item["line"], "new": new},
            "key": f"tidied:{uuid.uuid4().hex}",
            "at": reg.clock(),
        }
        store.set_index_line(item["slug"], title, new, also={"log": row})
        report.rewritten.append({"slug": item["slug"], "old": item["line"], "new": new})
    return report.freeze()


def propose(
    reg: Registry, name: str, item: dict[str, str], flagged: list[dict[str, str]]
) -> tuple[str, str, list[Any]]:
    """Ask the scribe to rewrite one weak line; nothing is written.

    Returns (title, rewritten line, what the floors refuse in it). Raises ModelUnavailable.
    """
    store = reg.store(name)
    mem = store.read(item["slug"])
    entry = store.index().by_slug().get(mem.slug)
    title = entry.title if entry else mem.title
    others = "\n".join(f"- {f['slug']}: {f['line']}" for f in flagged if f["slug"] != mem.slug)[
        :2000
    ]
    task = (
        f"Why the line fails: {item['why']}\nOther lines it must not be confused with:\n{others or '(none)'}"
        f"\n\nMemory {mem.slug}\ntitle: {title}\ncurrent line: {item['line']}\nbody:\n{mem.body.strip()[:3000]}"
    )
    reply = reg.models(name).ask(
        "scribe", "kura_tidy", build_messages(preamble(store), TIDY_INSTRUCTIONS, task), TIDY_SCHEMA
    )
    new = " ".join(str(reply.get("description", "")).split())
    return (
        title,
        new,
        check_line(item["line"], new, mem.body, reg.config.stores[name].distill.human_names),
    )


def check_line(old: str, new: str, body: str, human_names=()) -> list[Any]:
    """Floors for a rewritten trigger (:func:`kura_core.floors.check_rewrite`): figures and
    claims only from the memory itself, no negation or ⚠️ of the old line lost, none of
    kura's own words (:mod:`kura_core.floors.kura_messages`)."""
    old_neg_only = old if old.strip() else body
    return check_rewrite(
        new, old + "\n" + body, human_names=human_names, keep_from=old_neg_only
    ) + kura_message_violations({"description": new}, source=old + "\n" + body)
