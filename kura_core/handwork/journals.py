"""The journals a store drinks, how far each is drunk, and the text around a quote."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..distill.journals import DEFAULT_INCLUDE, UNITS, JournalError, segment_context
from ..distill.marks import journal_key
from ..distill.pipeline import journal_files
from ..errors import ContainmentError, NotFound
from ..registry import Registry
from ..secrets import under_store_rules
from ..vocabulary import (
    StretchState,
)

if TYPE_CHECKING:
    pass

# =========================================================================== journals


@dataclass(frozen=True)
class Stretch:
    start: int
    end: int
    state: str  # held | shelved
    reason: str
    attempts: int
    owner: str
    updated: float


@dataclass(frozen=True)
class JournalState:
    adapter: str
    path: str
    unit: str  # byte | seq
    size: int  # bytes
    end: int  # where the journal ends, in its unit
    mark: int  # everything before this has been drunk
    backlog: int  # end - mark, in the unit
    backlog_bytes: int
    mtime: float
    stretches: tuple[Stretch, ...]

    @property
    def shelved(self) -> tuple[Stretch, ...]:
        return tuple(s for s in self.stretches if s.state == StretchState.SHELVED)

    @property
    def held(self) -> tuple[Stretch, ...]:
        return tuple(s for s in self.stretches if s.state == StretchState.HELD)


@dataclass(frozen=True)
class JournalRootState:
    adapter: str
    root: str
    include: str
    exclude: str
    exists: bool


@dataclass(frozen=True)
class JournalsView:
    store: str
    roots: tuple[JournalRootState, ...]
    files: tuple[JournalState, ...]
    forgotten: tuple[tuple[str, int], ...]  # marks of journals no root finds any more


def _records(path: Path, mark: int) -> tuple[int, int]:
    """(complete records in an evidence JSONL, byte offset where record *mark* starts)."""
    count, offset_at_mark, pos = 0, 0, 0
    with open(path, "rb") as fh:
        for raw in fh:
            if not raw.endswith(b"\n"):
                break
            if count == mark:
                offset_at_mark = pos
            count += 1
            pos += len(raw)
    if mark >= count:
        offset_at_mark = pos
    return count, offset_at_mark


def journals(reg: Registry, name: str) -> JournalsView:

    spec = reg.config.stores[name]

    def include(j: Any) -> str:
        globs = j.include_glob or DEFAULT_INCLUDE.get(j.adapter, "")
        return globs if isinstance(globs, str) else ", ".join(globs)

    roots = tuple(
        JournalRootState(j.adapter, str(j.root), include(j), j.exclude_glob, Path(j.root).is_dir())
        for j in spec.distill.journals
    )
    store = reg.store(name)
    marks: dict[str, Mapping[str, Any]] = {}
    stretches: dict[str, list[Stretch]] = {}
    if store.still.is_dir():
        ws = reg.workshop(name)
        marks.update(ws.watermarks())
        for r in ws.reservations():
            stretches.setdefault(r["journal"], []).append(
                Stretch(
                    r["start"],
                    r["end"],
                    r["state"],
                    r["reason"],
                    r["attempts"],
                    r["owner"],
                    r["updated"],
                )
            )
    files = []
    seen = set()
    for adapter, path in journal_files(reg, name):
        key = journal_key(adapter, path)
        seen.add(key)
        unit = UNITS.get(adapter, "byte")
        try:
            st = path.stat()
        except OSError:
            continue
        mark = int((marks.get(key) or {}).get("mark") or 0)
        if unit == "seq":
            try:
                end, at = _records(path, mark)
            except OSError:
                end, at = mark, st.st_size
            backlog_bytes = max(0, st.st_size - at)
        else:
            end = st.st_size
            backlog_bytes = max(0, st.st_size - mark)
        files.append(
            JournalState(
                adapter,
                str(path),
                unit,
                st.st_size,
                end,
                mark,
                max(0, end - mark),
                backlog_bytes,
                st.st_mtime,
                tuple(stretches.get(key, ())),
            )
        )
    forgotten = tuple((k, int(v.get("mark") or 0)) for k, v in marks.items() if k not in seen)
    return JournalsView(name, roots, tuple(files), forgotten)


@dataclass(frozen=True)
class ExcerptLine:
    """One segment of a journal excerpt; ``target`` marks the segment(s) at the position."""

    cls: str
    text: str
    start: int
    end: int
    target: bool


@dataclass(frozen=True)
class JournalExcerpt:
    """The segments around a position of one of a store's journals.

    ``at_end``: nothing is at or after the position -- the journal ends there (a watermark
    with nothing new after it); the segments before it are shown and none is a target.
    """

    store: str
    path: str
    adapter: str
    unit: str
    position: int
    lines: tuple[ExcerptLine, ...]
    at_end: bool = False

    @property
    def found(self) -> bool:
        """Whether a segment still sits at the position (not merely the next one after it)."""
        return any(
            ln.target and ln.start <= self.position < max(ln.end, ln.start + 1) for ln in self.lines
        )


def resolve_journal(reg: Registry, name: str, source: str) -> tuple[str, Path]:
    """(adapter, path) of a journal the store drinks, for a source recorded in evidence.
    A relative source is relative to kura.toml. Anything that is not one of the store's
    own journals is refused: evidence never names a file for kura to open."""

    p = Path(source).expanduser()
    if not p.is_absolute():
        base = reg.config.source.parent if reg.config.source is not None else Path.cwd()
        p = base / p
    try:
        real = p.resolve(strict=True)
    except (OSError, RuntimeError):
        raise NotFound(f"the journal {source} is not there any more (moved or deleted)") from None
    for adapter, path in journal_files(reg, name):
        try:
            if path.resolve() == real:
                return adapter, path
        except OSError:
            continue
    raise ContainmentError(
        f"{source} is not one of the journals store {name!r} drinks, so kura does not "
        "open it; check the store's [journals] roots in kura.toml"
    )


@under_store_rules  # shown with the store's own secret patterns and allowlist
def journal_excerpt(
    reg: Registry, name: str, source: str, position: int, *, unit: str = "", around: int = 4
) -> JournalExcerpt:
    """The journal around *position* (where a quote's segment starts, or a watermark, in
    the journal's unit): the segment(s) there and *around* segments on each side, read by
    :func:`kura_core.distill.journals.segment_context` with the store's own adapter. Only a
    journal the store drinks is opened (:func:`resolve_journal`). Raises KuraError: a
    position in another unit than the adapter's, or a journal that cannot be read."""

    adapter, path = resolve_journal(reg, name, source)
    position = max(0, int(position))
    want = unit or None
    at_end = False
    try:
        ctx = segment_context(path, position, unit=want, adapter=adapter, radius=around)
    except JournalError as exc:
        # Nothing at or after the position. When a segment ends exactly there, the journal
        # ends there (a watermark with nothing new after it): show what comes before it.
        if position == 0:
            raise
        try:
            ctx = segment_context(path, position - 1, unit=want, adapter=adapter, radius=around)
        except JournalError:
            raise exc from None
        at_end = True
    focus = set() if at_end else set(ctx.focus)
    lines = tuple(
        ExcerptLine(s.cls, s.text, s.start, s.end, i in focus) for i, s in enumerate(ctx.segments)
    )
    return JournalExcerpt(name, str(path), ctx.adapter, ctx.unit, position, lines, at_end=at_end)
