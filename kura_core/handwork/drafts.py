"""The drafts waiting for a person, with what an extension would change."""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..distill.drafts import _draft_files, body_digest, parse_draft
from ..errors import KuraError, MemoryFormatError
from ..registry import Registry
from ..vocabulary import ClaimKind, DraftDecision

if TYPE_CHECKING:
    pass

# =========================================================================== drafts


@dataclass(frozen=True)
class DiffLine:
    op: str  # " " same, "-" only in the memory, "+" only in the draft
    text: str


@dataclass(frozen=True)
class ExtensionDiff:
    """What pouring an extension draft changes in the memory it extends."""

    target: str
    exists: bool
    changed_since: bool  # the memory changed after the draft was composed
    title: tuple[str, str]
    description: tuple[str, str]
    tags: tuple[tuple[str, ...], tuple[str, ...]]
    body: tuple[DiffLine, ...]

    @property
    def added(self) -> int:
        return sum(1 for d in self.body if d.op == "+")

    @property
    def removed(self) -> int:
        return sum(1 for d in self.body if d.op == "-")


@dataclass(frozen=True)
class DraftsView:
    store: str
    drafts: tuple[Any, ...]  # kura_core.distill.drafts.Draft, oldest first
    problems: tuple[tuple[str, str], ...]
    extensions: Mapping[str, ExtensionDiff]


def line_diff(old: str, new: str) -> tuple[DiffLine, ...]:
    a, b = old.strip("\n").split("\n"), new.strip("\n").split("\n")
    out: list[DiffLine] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            out += [DiffLine(" ", t) for t in a[i1:i2]]
            continue
        out += [DiffLine("-", t) for t in a[i1:i2]]
        out += [DiffLine("+", t) for t in b[j1:j2]]
    return tuple(out)


def extension_diff(reg: Registry, name: str, draft: Any) -> ExtensionDiff:

    store = reg.store(name)
    target = draft.target
    if not store.has(target):
        return ExtensionDiff(
            target,
            False,
            False,
            ("", draft.title),
            ("", draft.description),
            ((), tuple(draft.tags)),
            line_diff("", draft.body),
        )
    mem = store.read(target)
    entry = store.index().by_slug().get(target)
    changed = bool(draft.target_digest) and body_digest(mem.body) != draft.target_digest
    tags_after = tuple(
        dict.fromkeys([*draft.tags] + (["judgement"] if draft.label == ClaimKind.JUDGEMENT else []))
    )
    return ExtensionDiff(
        target,
        True,
        changed,
        (entry.title if entry else mem.title, draft.title),
        (mem.description, draft.description),
        (tuple(mem.tags), tags_after),
        line_diff(mem.body, draft.body),
    )


def drafts_view(reg: Registry, name: str) -> DraftsView:

    store = reg.store(name)
    drafts, problems = [], []
    for p in _draft_files(
        store
    ):  # each file read and parsed once: waiting, or why it cannot be read
        try:
            drafts.append(parse_draft(p.read_text(encoding="utf-8"), p))
        except (MemoryFormatError, UnicodeDecodeError) as exc:
            problems.append((p.name, str(exc)))
        except OSError:
            continue  # poured or tossed while the list was read
    drafts.sort(key=lambda d: (d.created, d.slug))
    ext = {}
    for d in drafts:
        if d.decision == DraftDecision.EXTENDS and d.target:
            try:
                ext[d.slug] = extension_diff(reg, name, d)
            except KuraError:
                continue
    return DraftsView(name, tuple(drafts), tuple(problems), ext)
