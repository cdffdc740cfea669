"""Glance: an exact, cheap look at one memory (about 150 tokens) before reading it whole.

The ladder an agent climbs: the **map** (one line per memory, resident) → a **glance** at
one line that looks relevant (this module) → a **read** of that memory in full → a
**recall** when the map names nothing. A glance takes an exact slug, never a guess: a
near miss is an error that says the slug is unknown, because a glance at the wrong memory
reads as an answer.

It returns the memory's index line as written (a line naming several memories is returned
whole), its title and trigger, its KEEP sentence only when the floors vouch for it today
(``keep_state``: ``verified``, ``unverified`` — a sentence the floors refuse, held back — or
``none``), and its in-store links, the first LINKS_SHOWN of them (``+N more``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .errors import NotFound
from .store import Store, check_slug
from .tokens import estimate_tokens

#: links listed in a glance; the rest are counted
LINKS_SHOWN = 5
#: the most characters of the index line and the KEEP sentence a glance carries
LINE_CHARS = 400


@dataclass(frozen=True)
class Glance:
    store: str
    slug: str
    title: str
    trigger: str
    line: str
    keep: str
    keep_state: str  # "verified" | "unverified" | "none"
    links: tuple[str, ...]
    more_links: int
    text: str
    tokens_est: int

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": True,
            "store": self.store,
            "slug": self.slug,
            "title": self.title,
            "trigger": self.trigger,
            "line": self.line,
            "keep": self.keep,
            "keep_state": self.keep_state,
            "links": list(self.links),
            "more_links": self.more_links,
            "text": self.text,
            "tokens_est": self.tokens_est,
        }


def _keep(store: Store, mem: Any) -> tuple[str, str]:
    """(the KEEP sentence when the floors vouch for it, its state)."""
    keep = mem.curation("keep").strip()
    if not keep:
        return "", "none"
    from .curation import curation_violations, manifest_of, vouching_evidence  # the floors

    bad = curation_violations(
        {"keep": keep},
        [],
        evidence=vouching_evidence(store, manifest_of(mem)),
        memory_text=[mem.description, mem.body],
        existing_slugs=set(store.file_slugs()),
    )
    return ("", "unverified") if bad else (keep, "verified")


def _cut(s: str, n: int) -> str:
    s = " ".join(s.split())
    return s if len(s) <= n else s[: n - 1].rstrip() + "…"


def glance(store: Store, name: str, slug: str) -> Glance:
    """A glance at the memory called exactly *slug* in *store* (NotFound when there is none)."""
    slug = check_slug(slug)
    if not store.has(slug):
        raise NotFound(
            f"no memory {slug!r} in store {name!r}: a glance takes an exact slug, as the map "
            "writes it (slug.md without .md); ask `kura recall` when you do not know it"
        )
    entry = store.index().by_slug().get(slug)
    mem = store.read(slug)
    title = entry.title if entry else mem.title
    trigger = entry.description if entry else mem.description
    line = _cut(entry.raw if entry else f"- [{title}]({slug}.md) — {trigger}", LINE_CHARS)
    keep, state = _keep(store, mem)
    keep = _cut(keep, LINE_CHARS)
    present = [t for t in dict.fromkeys(mem.links) if t != slug and store.has(t)]
    shown, more = tuple(present[:LINKS_SHOWN]), max(0, len(present) - LINKS_SHOWN)
    parts = [line]
    if keep:
        parts.append(f"keep: {keep}")
    if shown:
        parts.append("links: " + ", ".join(shown) + (f" (+{more} more links)" if more else ""))
    text = "\n".join(parts)
    return Glance(
        store=name,
        slug=slug,
        title=title,
        trigger=trigger,
        line=line,
        keep=keep,
        keep_state=state,
        links=shown,
        more_links=more,
        text=text,
        tokens_est=estimate_tokens(text),
    )
