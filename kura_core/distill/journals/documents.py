"""Journals kept as one JSON document rewritten whole (a list of messages, or an object
holding one): the watermark is the message index (``seq``).

:func:`read_document` is the loop every such adapter shares: decode the file (a file
being rewritten is "read again later", never an error), find its messages, replay the
ones before the watermark so that what the agent did earlier still counts (tool calls
whose results come later, files it wrote), then class each new message. A message still
being written (the adapter says which) is held back with the rest after it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any, Protocol

from . import provenance as pv
from .base import IGNORED, REPAIRED, SKIPPED, Intake, Read, decode_bytes, encoding_problem, scrub

UNIT = "seq"

#: A last message that still looks unfinished (a panel message still streaming, chunks of a
#: reply still arriving) is held back only while its file keeps changing: once the file has
#: been quiet this long the writer is gone (crashed, killed), and the message is read as it
#: stands, so one interrupted message never stops a journal for good.
QUIET_SECONDS = 600.0


def still_changing(path: str | os.PathLike[str], now: float | None = None) -> bool:
    """True while *path* was modified less than :data:`QUIET_SECONDS` ago."""
    import time

    clock = time.time() if now is None else now
    try:
        return clock - os.path.getmtime(path) < QUIET_SECONDS
    except OSError:
        return False


class MessageReader(Protocol):
    """What :func:`read_document` asks of an adapter's per-file state."""

    session: str

    def pieces(self, msg: Any, index: int) -> list[pv.Piece]:
        """The classed texts of one message (also called, unused, for earlier ones)."""
        ...

    def stamp(self, msg: Any) -> str: ...

    def why_empty(self, msg: Any) -> str:
        """The note for a message that gave nothing (never quoting it)."""
        ...

    def unfinished(self, msg: Any) -> bool:
        """True for a last message still being written (held back until it is done)."""
        ...


def load_json(path: str | os.PathLike[str]) -> tuple[Any, str, bool]:
    """``(value, why, repaired)``: the decoded document, or ``None`` and why not."""
    with open(path, "rb") as fh:
        data = fh.read()
    text, repaired = decode_bytes(data)
    text = text.lstrip("\ufeff")
    if not text.strip():
        return None, "", repaired
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError):
        return None, "the file is not complete JSON (being rewritten?): read again later", repaired
    obj, changed = scrub(obj)
    return obj, "", repaired or changed


def read_document(
    path: str | os.PathLike[str],
    start: int,
    *,
    adapter: str,
    messages: Callable[[Any], list | None],
    reader: Callable[[Any], MessageReader],
    load: Callable[[str | os.PathLike[str]], tuple[Any, str, bool]] | None = None,
) -> Read:
    """Read the messages of a JSON document from index *start* (see the module doc).

    *messages* returns the message list of a decoded document (``None``: not this
    adapter's document); *reader* makes the per-file state from the document; *load*
    decodes the file (JSON unless given: an adapter may parse another text form into the
    same values).
    """
    source = str(path)
    problem = encoding_problem(path)
    if problem:
        return _refused(start, problem)
    intake = Intake(source, UNIT)
    if os.path.getsize(path) == 0:
        return intake.result(start, start)
    obj, why, repaired = (load or load_json)(path)
    if obj is None:
        if why:
            intake.note(start, start, why)
        return intake.result(start, start)
    items = messages(obj)
    if items is None:
        name = os.path.basename(source)
        return _refused(start, f"{name} is not a {adapter} journal (no message list in it)")
    if repaired:
        intake.note(0, len(items), "invalid text replaced (kept)", REPAIRED)
    if start > len(items):
        intake.note(start, start, "journal shorter than watermark")
        return intake.result(start, start)
    state = reader(obj)
    for i, msg in enumerate(items[:start]):
        state.pieces(msg, i)
    end = len(items)
    if items and end > start and state.unfinished(items[-1]) and still_changing(path):
        end -= 1  # still being written: the next read takes it whole
    for i in range(start, end):
        msg = items[i]
        intake.begin(i, i + 1)
        if not isinstance(msg, dict):
            intake.note(i, i + 1, "not an object")
            continue
        pieces = state.pieces(msg, i)
        before = len(intake.segments)
        stamp = state.stamp(msg)
        for p in pieces:
            intake.add(p.cls, p.text, i, i + 1, session=state.session, stamp=stamp, kind=p.kind)
        if len(intake.segments) == before:  # nothing to read in it: say why
            intake.note(i, i + 1, state.why_empty(msg), IGNORED)
    return intake.result(start, max(end, start))


def _refused(start: int, reason: str) -> Read:
    from .base import refused

    return refused(UNIT, start, reason)


def stamp_of(value: Any) -> str:
    """A message time as text: ISO strings kept, epoch milliseconds or seconds as given."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return ""
    return str(value)


__all__ = ["IGNORED", "SKIPPED", "UNIT", "MessageReader", "load_json", "read_document", "stamp_of"]


# --------------------------------------------------------------------------- JSON Lines


class RecordReader(Protocol):
    """Per-file state of a JSON Lines adapter (kept between windows, so it copies)."""

    session: str

    def copy(self) -> RecordReader: ...

    def observe(self, obj: dict) -> None:
        """Learn from a record before the window (tool calls, session, subagent)."""
        ...

    def pieces(self, obj: dict, note: Callable[..., None]) -> list[pv.Piece] | None:
        """The classed texts of a record; ``None`` when it is not this format's record.
        *note(reason, kind)* records why a record gives nothing."""
        ...

    def stamp(self, obj: dict) -> str: ...


def read_records(
    path: str | os.PathLike[str],
    start: int,
    limit_bytes: int | None,
    *,
    adapter: str,
    label: str,
    reader: Callable[[], RecordReader],
) -> Read:
    """Read an append-only JSON Lines journal from byte *start* (see :mod:`.base`): each
    record goes through *reader*'s ``pieces``; the records before the window rebuild its
    state. A file none of whose records is this format's is refused, naming the adapter
    that would read it."""
    from .base import CONTEXTS, context_before, json_records, jsonl_problem, open_lines, refused

    source = str(path)
    problem = jsonl_problem(path, adapter)
    if problem:
        return refused("byte", start, problem)
    intake = Intake(source, "byte")

    def observe(state: Any, obj: dict, _offset: int) -> None:
        state.observe(obj)

    state = context_before(path, start, adapter, reader, observe)
    _first, lines, end, _tail = open_lines(path, start, limit_bytes, intake)
    seen = foreign = 0
    for rec in json_records(lines, intake):
        seen += 1

        def note(reason: str, kind: str = IGNORED, _r: Any = rec) -> None:
            intake.note(_r.start, _r.end, reason, kind)

        noted = len(intake.notes)
        pieces = state.pieces(rec.obj, note)
        if pieces is None:
            foreign += 1
            intake.note(rec.start, rec.end, f"not a {label} record")
            continue
        before = len(intake.segments)
        stamp = state.stamp(rec.obj)
        for p in pieces:
            intake.add(
                p.cls, p.text, rec.start, rec.end, session=state.session, stamp=stamp, kind=p.kind
            )
        said = len(intake.segments) > before
        if not said and not any(n.kind != "repaired" for n in intake.notes[noted:]):
            intake.note(rec.start, rec.end, "record without text", IGNORED)
    if seen and foreign == seen:
        from .detect import sniff_adapter

        other = sniff_adapter(path)
        hint = f"; it looks like a {other} journal" if other and other != adapter else ""
        return refused(
            "byte",
            start,
            f"{os.path.basename(source)} is not a {label} journal ({seen} records, "
            f"none of them {label}'s){hint}",
        )
    CONTEXTS.put(path, end, adapter, state)
    return intake.result(start, end)


def content_text(
    content: Any, *, skip: tuple[str, ...] = ("thinking", "think", "reasoning")
) -> str:
    """The text of a message content: a string, or a list of text parts (others skipped)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    out = []
    for part in content:
        if isinstance(part, str):
            out.append(part)
        elif isinstance(part, dict) and part.get("type") not in skip:
            if part.get("thought") is True:
                continue
            text = part.get("text")
            if isinstance(text, str):
                out.append(text)
    return "\n".join(out)
