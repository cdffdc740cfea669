"""Journals kept as one JSON document rewritten whole (a list of messages, or an object
holding one): the watermark is the message index (``seq``).

:func:`read_document` is the loop every such adapter shares: decode the file (a file
being rewritten is "read again later", never an error), find its messages, replay the
ones before the watermark so that what the agent did earlier still counts (tool calls
whose results come later, files it wrote), then class each new message. A message still
being written (the adapter says which) is held back with the rest after it.

The append-only JSON Lines loops live here too: :func:`read_records` (the adapter's
state an object) and :func:`read_with_context` (its rules functions), and so do the steps
adapters share inside a message: its text parts (:func:`text_parts`), the person's words
or a parent agent's (:func:`typed_piece`), tool calls and the results they class
(:class:`ToolCalls`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Collection
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
        return not_this_format(path, start, adapter, f"a {label} journal", label, seen)
    CONTEXTS.put(path, end, adapter, state)
    return intake.result(start, end)


def not_this_format(
    path: str | os.PathLike[str],
    start: int,
    adapter: str,
    what: str,
    label: str,
    seen: int,
    *,
    advise: bool = False,
) -> Read:
    """The refusal of a JSON Lines file none of whose *seen* records is *adapter*'s,
    naming the adapter that would read it (and, when *advise*, saying to use it)."""
    from .base import refused
    from .detect import sniff_adapter

    other = sniff_adapter(path)
    hint = ""
    if other and other != adapter:
        hint = f"; it looks like a {other} journal"
        if advise:
            hint += f": use the {other} adapter"
    return refused(
        "byte",
        start,
        f"{os.path.basename(str(path))} is not {what} ({seen} records, "
        f"none of them {label}'s){hint}",
    )


#: how a windowed JSON Lines adapter classes one record: ``(record, state, intake, start,
#: end)`` to pieces; it notes what it does not read, a record of another format as
#: ``"not a <label> record"``
RecordPieces = Callable[[dict, Any, Intake, int, int], list[pv.Piece]]


def read_with_context(
    path: str | os.PathLike[str],
    start: int,
    limit_bytes: int | None,
    *,
    adapter: str,
    label: str,
    what: str,
    context: Callable[[], Any],
    observe: Callable[[Any, dict, int], None],
    wanted: tuple[bytes, ...],
    pieces: RecordPieces,
    session: Callable[[dict, Any], str],
    variant: Callable[[Any], str],
) -> Read:
    """Read an append-only JSON Lines journal from byte *start*, each record classed by
    *pieces* with the adapter's state, which *context* makes and *observe* rebuilds from
    the records before the window that hold one of *wanted*. A segment carries the
    record's ``timestamp`` and the *session* it names; a file none of whose records is
    *adapter*'s is refused as *what*, naming the adapter that would read it."""
    from .base import CONTEXTS, context_before, json_records, jsonl_problem, open_lines, refused

    problem = jsonl_problem(path, adapter)
    if problem:
        return refused("byte", start, problem)
    intake = Intake(str(path), "byte")
    state = context_before(path, start, adapter, context, observe, wanted)
    _first, lines, end, _tail = open_lines(path, start, limit_bytes, intake)
    foreign_note = f"not a {label} record"
    seen = foreign = 0
    for rec in json_records(lines, intake):
        seen += 1
        before = len(intake.notes)
        got = pieces(rec.obj, state, intake, rec.start, rec.end)
        if any(n.reason == foreign_note for n in intake.notes[before:]):
            foreign += 1
        if not got:
            continue
        sid = session(rec.obj, state)
        stamp = rec.obj.get("timestamp")
        for p in got:
            intake.add(
                p.cls,
                p.text,
                rec.start,
                rec.end,
                session=sid,
                stamp=stamp if isinstance(stamp, str) else "",
                kind=p.kind,
            )
    if seen and foreign == seen:
        return not_this_format(path, start, adapter, what, label, seen, advise=True)
    CONTEXTS.put(path, end, adapter, state)
    intake.variant = variant(state)
    return intake.result(start, end)


def merge_runs(
    pieces: list[pv.Piece],
    joins: Callable[[pv.Piece, pv.Piece], bool],
    kind: Callable[[pv.Piece, pv.Piece], str] = lambda run, _p: run.kind,
) -> list[pv.Piece]:
    """*pieces* with each piece that *joins* the run before it merged into that run (texts
    one per line, the run's *kind* decided by its head and the new piece)."""
    runs: list[tuple[pv.Piece, list[str]]] = []  # texts joined once, not per merge
    for p in pieces:
        if runs and joins(runs[-1][0], p):
            head, texts = runs[-1]
            runs[-1] = (pv.Piece(p.cls, "", kind(head, p)), texts)
            texts.append(p.text)
        else:
            runs.append((p, [p.text]))
    return [
        p if len(texts) == 1 else pv.Piece(p.cls, "\n".join(texts), p.kind) for p, texts in runs
    ]


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


def text_parts(content: Any, *, images: Collection[str] = ()) -> tuple[str, bool]:
    """The text of a message content: a string as it is, or the ``text`` of each object
    of a list (other items skipped) with ``[image]`` for an object whose ``type`` is in
    *images*; and whether there was such an image."""
    if isinstance(content, str):
        return content, False
    parts: list[str] = []
    image = False
    if isinstance(content, list):
        for c in content:
            if isinstance(c, dict):
                if isinstance(c.get("text"), str):
                    parts.append(c["text"])
                elif c.get("type") in images:
                    parts.append("[image]")
                    image = True
    return "\n".join(parts), image


# --------------------------------------------------------------------------- messages


def typed_piece(text: str, *, child: bool, kind: str = "user message") -> pv.Piece:
    """What came in on the person's channel: the person's words (USER, *kind*), or, in a
    subagent's session (*child*), the parent agent's prompt (SELF)."""
    if child:
        return pv.Piece("SELF", text, "prompt from the parent agent")
    return pv.Piece("USER", text, kind)


def decode_noted(name: Any, args: Any, prose: set[str]) -> tuple[list[pv.Piece], pv.ToolCall]:
    """A tool call decoded (:func:`.provenance.decode_call`), the prose documents it
    writes added to *prose* (they decide how a later result that reads them is classed)."""
    pieces, call = pv.decode_call(name, args)
    prose.update(call.prose_writes)
    return pieces, call


def classed_result(call: pv.ToolCall | None, text: str, prose: Collection[str]) -> pv.Piece:
    """*text*, a result of *call* (``None``: unknown), classed by what the call does and
    the *prose* documents written so far (:func:`.provenance.result_class`)."""
    cls, kind = pv.result_class(call, prose)
    return pv.Piece(cls, text, kind)


class ToolCalls:
    """The tool calls read so far, by id, and the prose documents they wrote: what a tool
    result needs to be classed."""

    def __init__(self) -> None:
        self.calls: dict[str, pv.ToolCall] = {}
        self.prose: set[str] = set()

    def add(self, call_id: str, call: pv.ToolCall) -> None:
        if call_id:
            self.calls[call_id] = call
        self.prose.update(call.prose_writes)

    def call(self, call_id: str, name: Any, args: Any) -> list[pv.Piece]:
        """The pieces of one tool call, which is remembered under *call_id*."""
        pieces, call = pv.decode_call(name, args)
        self.add(call_id, call)
        return pieces

    def result(self, call: pv.ToolCall | None, text: str) -> pv.Piece:
        """*text*, a result of *call* (``None``: unknown), classed by what the call does."""
        return classed_result(call, text, self.prose)


class Messages:
    """What most :class:`MessageReader` s share: a message's time under *stamp_key* (none
    when empty), and no message ever held back as unfinished."""

    session = ""
    stamp_key = ""

    def stamp(self, msg: Any) -> str:
        if not self.stamp_key or not isinstance(msg, dict):
            return ""
        return stamp_of(msg.get(self.stamp_key))

    def unfinished(self, msg: Any) -> bool:
        return False
