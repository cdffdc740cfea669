"""See what kura reads: a journal's classed segments and every record it skipped.

:func:`inspect` backs ``kura journal inspect``; :func:`segment_context` lets a viewer open
the stretch of journal around a quoted segment. Both return frozen values and print
nothing.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from kura_core.distill.evidence import Segment

from ...secrets import remembering, told_before
from . import registry
from .base import HELD, IGNORED, REPAIRED, SKIPPED, JournalError, Note, Read
from .detect import guess_adapter


@dataclass(frozen=True)
class Inspection:
    """One adapter's reading of a journal from ``start``: what it classed and what not."""

    path: str
    adapter: str
    unit: str
    start: int
    end: int
    records: int
    segments: tuple[Segment, ...]
    notes: tuple[Note, ...]
    skipped: dict[str, int]
    fatal: str = ""
    variant: str = ""

    def count(self, kind: str) -> int:
        """How many notes of *kind* (``skipped``, ``ignored``, ``repaired``, ``held``)."""
        return sum(1 for n in self.notes if n.kind == kind)

    @property
    def held(self) -> int:
        """Records left for a later read because they are still being written."""
        return self.count(HELD)

    @property
    def classes(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for s in self.segments:
            out[s.cls] = out.get(s.cls, 0) + 1
        return out

    def entries(self) -> list[tuple[int, str, Segment | Note]]:
        """Segments and notes in journal order: ``(position, "segment"|"note", item)``."""
        items: list[tuple[int, int, str, Segment | Note]] = []
        for _i, s in enumerate(self.segments):
            items.append((s.start, 1, "segment", s))
        for n in self.notes:
            items.append((n.start, 0, "note", n))
        items.sort(key=lambda x: (x[0], x[1]))
        return [(pos, kind, item) for pos, _, kind, item in items]

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "adapter": self.adapter,
            "variant": self.variant,
            "unit": self.unit,
            "start": self.start,
            "end": self.end,
            "records": self.records,
            "classes": self.classes,
            "skipped": dict(self.skipped),
            "counts": {k: self.count(k) for k in (SKIPPED, IGNORED, REPAIRED, HELD)},
            "fatal": self.fatal,
            "segments": [segment_json(s) for s in self.segments],
            "notes": [n.to_json() for n in self.notes],
        }


def segment_json(s: Segment) -> dict[str, Any]:
    return {
        "cls": s.cls,
        "kind": s.kind,
        "start": s.start,
        "end": s.end,
        "unit": s.unit,
        "session_id": s.session_id,
        "timestamp": s.timestamp,
        "text": s.text,
    }


def _adapter(name: str) -> registry.JournalAdapter:
    found = registry.get(name)
    if found is None:
        raise JournalError(
            f"unknown journal adapter {name!r}; use one of {', '.join(sorted(registry.names()))}"
        )
    return found


def _read_fn(name: str) -> registry.ReadFn:
    return _adapter(name).read


def _unit_of(name: str) -> str:
    return _adapter(name).unit


def _journal(
    path: str | os.PathLike[str], adapter: str | None, missing: str = "no such journal file"
) -> tuple[Path, str]:
    """The journal's path and its adapter (detected from the content unless given); a file
    that is not there, or an adapter kura does not have, raises :class:`JournalError`."""
    p = Path(path)
    if not p.is_file():
        raise JournalError(f"{p}: {missing}")
    name = adapter or guess_adapter(p)
    if registry.get(name) is None:
        raise JournalError(
            f"unknown journal adapter {name!r}; use one of {', '.join(sorted(registry.names()))}"
        )
    return p, name


def settled(read: Read, seen: Mapping[str, str]) -> Read:
    """*read* with each segment that gives a value the read took out only later (or a
    piece of one) redacted again: the whole read, not only what follows, keeps it out."""
    again = told_before([s.text for s in read.segments], seen)
    if all(t is None for t in again):
        return read
    segments = tuple(
        s if t is None else replace(s, text=t) for s, t in zip(read.segments, again, strict=True)
    )
    return replace(read, segments=segments)


def read_journal(
    path: str | os.PathLike[str],
    adapter: str | None = None,
    start: int = 0,
    *,
    limit_bytes: int | None = None,
) -> tuple[str, Read]:
    """``(adapter, Read)`` of *path*, the adapter detected from the content unless given.
    Raises :class:`JournalError` when the file cannot be read by that adapter at all."""
    p, name = _journal(path, adapter)
    try:
        with remembering() as seen:  # a value repeated in the read is redacted there too
            read = settled(_read_fn(name)(p, start, limit_bytes=limit_bytes), seen)
    except OSError as exc:
        raise JournalError(f"cannot read journal {p}: {exc.strerror or exc}") from None
    if read.fatal:
        raise JournalError(read.fatal)
    return name, read


def inspect(
    path: str | os.PathLike[str], *, adapter: str | None = None, start: int = 0
) -> Inspection:
    """Classed segments and skipped records of *path* from watermark *start*.

    A file the adapter cannot read at all is not an exception here: the result carries
    ``fatal`` (and one note saying why), so the caller can show it.
    """
    p, name = _journal(path, adapter)
    try:
        with remembering() as seen:
            read = settled(_read_fn(name)(p, start), seen)
    except OSError as exc:
        raise JournalError(f"cannot read journal {p}: {exc.strerror or exc}") from None
    return Inspection(
        str(p),
        name,
        read.unit,
        read.start,
        read.end,
        read.records,
        read.segments,
        read.notes,
        dict(read.skipped),
        read.fatal,
        read.variant,
    )


@dataclass(frozen=True)
class SegmentContext:
    """The segments around one position of a journal: ``focus`` indexes the segments
    that sit at that position (one record can yield several)."""

    path: str
    adapter: str
    unit: str
    start: int
    segments: tuple[Segment, ...]
    focus: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "adapter": self.adapter,
            "unit": self.unit,
            "start": self.start,
            "focus": list(self.focus),
            "segments": [segment_json(s) for s in self.segments],
        }


def _read_around(adapter: str, path: Path, start: int, radius: int) -> Read:
    """Read a byte-position journal around *start*: a window before it and one after it,
    each widened until it holds *radius* segments beside the position or reaches the end of
    the file. A quote near the start of a large journal costs as little as one near its end."""
    size = path.stat().st_size
    back, ahead = 1 << 18, 1 << 16
    while True:
        begin = max(0, start - back)
        limit = start - begin + ahead
        read = _read_fn(adapter)(path, begin, limit_bytes=limit)
        if read.fatal:
            return read
        before = sum(1 for s in read.segments if s.start < start)
        after = sum(1 for s in read.segments if s.start > start)
        wide_back = begin == 0 or before > radius
        wide_ahead = after > radius or read.end >= size or begin + limit >= size
        if wide_back and wide_ahead:
            return read
        back, ahead = (back if wide_back else back * 4), (ahead if wide_ahead else ahead * 4)


def segment_context(
    source: str | os.PathLike[str],
    start: int,
    *,
    unit: str | None = None,
    adapter: str | None = None,
    radius: int = 3,
) -> SegmentContext:
    """The journal segment(s) at *start* with up to *radius* segments on each side.

    *source* and *start* are a segment's ``source`` and ``start`` as kept in a draft's
    evidence; *unit*, when given, must match the adapter's (a stale position in another
    unit is an error, not a wrong stretch).
    """
    p, name = _journal(source, adapter, "the journal is gone (moved or deleted)")
    want = _unit_of(name)
    if unit and unit != want:
        raise JournalError(f"position {start} is in {unit}s, but the {name} adapter counts {want}s")
    radius = max(0, radius)
    read = _read_around(name, p, start, radius) if want == "byte" else _read_fn(name)(p, 0)
    if read.fatal:
        raise JournalError(read.fatal)
    segs = list(read.segments)
    at = [i for i, s in enumerate(segs) if s.start <= start < max(s.end, s.start + 1)]
    if not at:
        later = [i for i, s in enumerate(segs) if s.start >= start]
        if not later:
            raise JournalError(f"nothing in {p.name} at {want} {start} (the journal is shorter)")
        first = segs[later[0]].start
        at = [i for i in later if segs[i].start == first]
    lo = max(0, at[0] - radius)
    hi = min(len(segs), at[-1] + radius + 1)
    window_segs = tuple(segs[lo:hi])
    return SegmentContext(str(p), name, want, start, window_segs, tuple(i - lo for i in at))
