"""Adopting memory files that have no index line: files copied into a store, or the folder
of memories a person already had when they ran ``kura init`` over it.

Without its line a memory is invisible to recall's index and to weave, and doctor calls the
store broken. Adopting writes each line (title and recognition trigger) from the file itself,
through the same floors as a tidied line, and touches no memory file: what the person wrote
stays as they wrote it. A file that cannot be read, or whose line the floors refuse, is left
out and named with the reason."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..distill.tidy import check_line
from ..errors import KuraError
from ..registry import Registry
from ..store import Memory
from .memories import check_writable

#: how long a trigger drawn from a body may be, in characters
TRIGGER_CHARS = 160
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$")


@dataclass(frozen=True)
class Adopted:
    """What adopting did in one store: the slugs given a line, and those left out, why."""

    store: str
    adopted: tuple[str, ...]
    skipped: tuple[tuple[str, str], ...]

    def to_json(self) -> dict[str, object]:
        return {
            "store": self.store,
            "adopted": list(self.adopted),
            "skipped": [{"slug": s, "why": w} for s, w in self.skipped],
        }


def _title(mem: Memory) -> str:
    """The file's own title, else its first heading, else the slug's words."""
    t = mem.meta.get("title")
    if isinstance(t, str) and t.strip():
        return " ".join(t.split())
    for line in mem.body.splitlines():
        m = _HEADING.match(line)
        if m:
            return " ".join(m.group(1).split())
    return mem.slug.replace("-", " ")


def _trigger(mem: Memory) -> str:
    """The file's description, else its first line of prose, whole words, at most
    TRIGGER_CHARS characters."""
    if mem.description.strip():
        return " ".join(mem.description.split())
    for line in mem.body.splitlines():
        text = " ".join(line.split())
        if text and not _HEADING.match(line):
            if len(text) <= TRIGGER_CHARS:
                return text
            cut = text[: TRIGGER_CHARS - 1].rsplit(" ", 1)[0]
            return cut + "…"
    return ""


def adopt(reg: Registry, name: str) -> Adopted:
    """Give every memory file without an index line its line, through the floors."""
    check_writable(reg, name, "adopted")
    store = reg.store(name)
    names = reg.config.stores[name].distill.human_names
    lined = set(store.index().by_slug())
    lines: list[tuple[str, str, str]] = []
    skipped: list[tuple[str, str]] = []
    bare: list[str] = []
    for slug in store.file_slugs():
        if slug in lined:
            continue
        mem: Memory | None
        try:
            mem = store.read(slug)
        except KuraError as exc:
            mem = _bare(store, slug)
            if mem is None:
                skipped.append((slug, f"{exc}: fix the file, then adopt again"))
                continue
        line = _trigger(mem)
        if not line:
            skipped.append((slug, "the file has no description and no text to draw one from"))
            continue
        problems = check_line(mem.description, line, mem.body, names)
        if problems:
            skipped.append((slug, "; ".join(str(p) for p in problems)))
            continue
        if mem.meta:
            lines.append((slug, _title(mem), line))
        else:  # plain markdown: it gains a frontmatter; its text is kept as the body
            store.write(slug, title=_title(mem), description=line, body=mem.body)
            bare.append(slug)
    store.add_index_lines(lines)
    return Adopted(name, tuple(sorted([s for s, _, _ in lines] + bare)), tuple(skipped))


def _bare(store: Any, slug: str) -> Memory | None:
    """A plain markdown file (no frontmatter at all) read as a body, or None."""
    try:
        text = store.memory_path(slug).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    if not text.strip() or text.lstrip().startswith("---"):
        return None
    path = store.memory_path(slug)
    return Memory(slug, "", "", "", (), text, {}, path)
