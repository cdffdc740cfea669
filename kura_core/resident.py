"""What the resident block shows besides the map: the constellation and the hot trail.

**The constellation** is the map of a store too large to wear: one line per sector with how
many memories it holds and up to three of their titles, and a sentence saying that what is
not there is not remembered. A store's sectors are its ``## `` headings; a store without
headings is cut by the memories' ``type`` (``user``, ``feedback``, ``project``,
``reference``; ``other`` for none). Every memory is counted once, in the first sector that
names it, so the counts add up to the memories the index names.

**The hot trail** is the index lines of the freshest memories (by the date written inside
each, as the weave ages them), newest first, verbatim, within ``trail_tokens``, between
``<<<KURA-TRAIL>>>`` markers after the map. It is built by ``kura trail`` (and after a weave)
into ``_still/trail.md`` with the sha256 of the ``MEMORY.md`` it was built from; a trail
built from another index is stale and left out, so it never names a line the map lacks.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from .cloth import index_sha
from .store import Entry, Index, Store
from .tokens import estimate_tokens

_SECTOR_PREFIX = "- "  # a constellation row: "- <sector> — <n> memories: <titles>"
UNSORTED = "unsorted"  # the lines above a store's first heading
UNTYPED = "other"
EXAMPLES = 3
EXAMPLE_CHARS = 60
TRAIL_OPEN = "<<<KURA-TRAIL{name}>>>"
TRAIL_CLOSE = "<<<END KURA-TRAIL>>>"
TRAIL_FILE = "trail.md"
_TRAIL_HEAD = "<!-- kura-trail index-sha256="


# =========================================================================== constellation


@dataclass(frozen=True)
class Sector:
    name: str
    count: int
    examples: tuple[str, ...]


def sectors_of(idx: Index, type_of: Callable[[str], str] | None = None) -> list[Sector]:
    """The store's sectors in index order, each memory counted once (where first named).

    With ``## `` headings they are the sectors (lines above the first are ``unsorted``);
    without, *type_of* (slug → frontmatter type) makes them."""
    headed = bool(idx.sectors())
    order: dict[str, list[Entry]] = {}
    seen: set[str] = set()
    for e in idx.entries:
        if e.slug in seen:
            continue
        seen.add(e.slug)
        by_type = "" if headed or type_of is None else type_of(e.slug)
        name = (e.sector or UNSORTED) if headed else (by_type or UNTYPED)
        order.setdefault(name, []).append(e)
    return [
        Sector(name, len(es), tuple(_short(e.title or e.slug) for e in es[:EXAMPLES]))
        for name, es in order.items()
    ]


def _short(title: str) -> str:
    title = " ".join(title.split())
    return title if len(title) <= EXAMPLE_CHARS else title[: EXAMPLE_CHARS - 1].rstrip() + "…"


def constellation_body(store_name: str, sectors: Sequence[Sector]) -> str:
    """The sector map: a preamble, then one line per sector."""
    total = sum(s.count for s in sectors)
    which = f' of store "{store_name}"' if store_name else ""
    head = (
        f"The memory{which} holds {total} memories, too many to list here, so this is its "
        "constellation: one line per sector, with how many memories it holds and a few of "
        "their titles. A sector not listed here holds nothing: if a subject belongs to none "
        "of these, nothing is remembered about it. Recall with kura_recall (or POST /recall) "
        "to read the memories of a sector."
    )
    lines = [head, ""]
    for s in sectors:
        noun = "memory" if s.count == 1 else "memories"
        lines.append(f"{_SECTOR_PREFIX}{s.name} — {s.count} {noun}: " + "; ".join(s.examples))
    return "\n".join(lines)


def store_sectors(store: Store) -> list[Sector]:
    """The sectors of *store* as its index stands (memory types read only without headings)."""
    idx = store.index()
    if idx.sectors():
        return sectors_of(idx)

    def type_of(slug: str) -> str:
        try:
            return store.read(slug, index=idx).type
        except Exception:  # an unreadable or missing file has no type: it counts as other
            return ""

    return sectors_of(idx, type_of)


# =========================================================================== hot trail


def trail_lines(idx: Index, dated: dict[str, dt.date | None], budget_tokens: int) -> list[str]:
    """Index lines of the newest dated memories, newest first, within *budget_tokens*.

    A grouped line is shown once (at its newest memory); undated memories are left out (an
    age kura cannot prove is not fresh)."""
    ranked = sorted(
        (e for e in idx.entries if dated.get(e.slug) is not None),
        key=lambda e: (dated[e.slug], e.line_no),  # a tie: the later line first
        reverse=True,
    )
    out: list[str] = []
    shown: set[int] = set()
    used = 0
    for e in ranked:
        if e.line_no in shown:
            continue
        cost = estimate_tokens(e.raw) + 1
        if used + cost > budget_tokens:
            break
        shown.add(e.line_no)
        out.append(e.raw)
        used += cost
    return out


def trail_file_text(index_text: str, lines: Sequence[str]) -> str:
    """``_still/trail.md``: the proof line (the index it was built from), then the lines."""
    return f"{_TRAIL_HEAD}{index_sha(index_text)} -->\n" + "".join(l + "\n" for l in lines)


def trail_block(marker_name: str, lines: Sequence[str]) -> str:
    """The trail between its markers (*marker_name* as the map's: `` store=NAME``)."""
    if not lines:
        return ""
    return "\n".join(
        [
            TRAIL_OPEN.format(name=marker_name),
            "The freshest memories, newest first (their index lines as written):",
            *lines,
            TRAIL_CLOSE,
        ]
    )


def read_text(path: Path) -> str | None:
    try:
        if path.is_symlink():
            return None
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def read_trail(still: Path, index_text: str) -> list[str] | None:
    """The trail's lines when ``_still/trail.md`` was built from *index_text*; None when it
    is missing or stale (built from another ``MEMORY.md``)."""
    return trail_from_text(read_text(Path(still) / TRAIL_FILE), index_text)


def trail_from_text(raw: str | None, index_text: str) -> list[str] | None:
    """The lines of a trail file's text *raw* when it was built from *index_text*."""
    if raw is None or not raw.startswith(_TRAIL_HEAD):
        return None
    head, _, rest = raw.partition("\n")
    if head != f"{_TRAIL_HEAD}{index_sha(index_text)} -->":
        return None
    return [l for l in rest.split("\n") if l]
