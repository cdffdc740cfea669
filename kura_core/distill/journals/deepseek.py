"""DeepSeek Harness (``dsh``) sessions: zstd-compressed JSON Lines event logs.

``$DSH_HOME/sessions/<workspace>/<session-id>/session.jsonl.zstd`` (``DSH_HOME`` defaults
to ``~/.dsh``; versioned names such as ``session.v4.jsonl.zstd`` too). The file is a run of
zstd frames, one per durable batch: the first holds one header line ``{"type":
"session", "version", "id", "cwd", "delegationDepth", …}``, every later line an event
``{"seq", "time", "type", "data", "surfaceOp"?}``. The log may be trimmed and rewritten,
so the watermark is the event ``seq``, never a byte offset.

Events: ``user/message`` is the person's only when ``data.source.kind`` is ``user`` (a
plugin's recall, a compaction checkpoint, a system reminder come in as ``user/message``
with another kind: never USER); inside it, host blocks and a "Current runtime context"
block are not the person's either. In a delegated session (``delegationDepth`` > 0) the
"user" is the parent agent: SELF. ``assistant/message`` text is SELF (reasoning not
read); where a reply exists only as ``assistant/chunk`` text deltas, they are joined and
read at the chunk that ends the block (the others are counted as its pieces).
``tool/call`` is ACT (name and arguments), ``tool/result`` TOOL or SELF by provenance.
Every other event (turn and step marks, requests, usage, todos, approvals) is bookkeeping.
A frame still being written is left for the next read.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ...shapes import dict_at
from . import provenance as pv
from .base import (
    HOLD_SECONDS,
    IGNORED,
    SKIPPED,
    Intake,
    JournalError,
    Read,
    decode_line,
    refused,
    safe_label,
)
from .databases import is_zstd, nothing_yet, unzstd_frames
from .documents import ToolCalls, typed_piece
from .hostwords import person_words
from .registry import Adapter, Head

UNIT = "seq"
_RUNTIME = "Current runtime context"
#: the source kind of what the person typed (the format's word, not a provenance class)
_PERSON = "user"
_TEXT_CHUNKS = ("text-delta", "delta", "text")


def events(path: str | os.PathLike[str]) -> tuple[dict, list[dict], int, bool]:
    """``(header, events, unreadable lines, whole)`` of a session log."""
    data = Path(path).read_bytes()
    if is_zstd(data):
        raw, whole = unzstd_frames(data, limit=2 << 30)
    else:  # an uncompressed session.jsonl
        raw, whole = data, True
    header: dict = {}
    out: list[dict] = []
    bad = 0
    for line in raw.split(b"\n"):
        if not line.strip():
            continue
        obj = decode_line(line + b"\n").obj
        if obj is None:
            bad += 1
        elif obj.get("type") == "session" and "seq" not in obj:
            header = obj
        else:
            out.append(obj)
    return header, out, bad, whole


def is_event(obj: Any) -> bool:
    return (
        isinstance(obj, dict)
        and isinstance(obj.get("seq"), int)
        and isinstance(obj.get("type"), str)
        and "/" in obj["type"]
        and isinstance(obj.get("data", {}), dict)
    )


def _blocks(content: Any) -> Iterator[dict]:
    if isinstance(content, str):
        yield {"type": "text", "text": content}
    elif isinstance(content, list):
        yield from (b for b in content if isinstance(b, dict))


def _plain(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(t for t in (_plain(v) for v in value) if t)
    if isinstance(value, dict):
        for key in ("value", "text", "output", "content", "result"):
            if key in value:
                return _plain(value[key])
        return json.dumps(value, ensure_ascii=False)
    return "" if value is None else str(value)


class _Session:
    def __init__(self, header: dict) -> None:
        self.child = bool(header.get("delegationDepth"))
        self.session = str(header.get("id") or "")
        self.tools = ToolCalls()

    def user(self, data: dict) -> tuple[list[pv.Piece], str]:
        origin = dict_at(data, "source").get("kind")
        if origin != _PERSON:
            return [], f"{safe_label(origin)} message on the person's channel (not the person's)"
        content = data.get("content")
        if content is None and isinstance(data.get("message"), dict):
            content = data["message"].get("content")
        out: list[pv.Piece] = []
        for b in _blocks(content):
            text = b.get("text")
            if b.get("type") == "text" and isinstance(text, str):
                if text.lstrip().startswith(_RUNTIME):
                    continue
                words = person_words(text)
                if words:
                    out.append(typed_piece(words, child=self.child))
            elif b.get("type") in ("image", "file"):
                out.append(
                    pv.Piece("TOOL", "[image]" if b["type"] == "image" else "[file]", "attachment")
                )
        return out, "only host context in the person's message"

    def assistant(self, data: dict) -> list[pv.Piece]:
        msg = dict_at(data, "message") or data
        out: list[pv.Piece] = []
        for b in _blocks(msg.get("content")):
            if b.get("type") == "text" and isinstance(b.get("text"), str) and b["text"].strip():
                out.append(pv.Piece("SELF", b["text"], "assistant text"))
        return out

    def call(self, data: dict) -> list[pv.Piece]:
        args = data.get("arguments", data.get("input", data.get("args")))
        return self.tools.call(str(data.get("callId") or ""), data.get("name"), args)

    def result(self, data: dict) -> list[pv.Piece]:
        msg = dict_at(data, "message")
        out: list[pv.Piece] = []
        for b in _blocks(msg.get("content", data.get("content"))):
            if b.get("type") not in ("tool-result", "tool_result"):
                continue
            text = _plain(b.get("output", b.get("content", b.get("result"))))
            call = self.tools.calls.get(str(b.get("toolCallId") or b.get("callId") or ""))
            if text.strip():
                out.append(self.tools.result(call, text))
        if not out and isinstance(data.get("error"), (str, dict)):
            out.append(pv.Piece("TOOL", _plain(data["error"]), "tool error"))
        return out


def _block_key(e: dict) -> tuple[Any, ...]:
    d = dict_at(e, "data")
    return (d.get("turn"), d.get("step"), d.get("block_id"))


def _chunk_text(e: dict) -> str | None:
    d = dict_at(e, "data")
    chunk = dict_at(d, "chunk") or d
    kind = chunk.get("type", d.get("kind"))
    if kind in _TEXT_CHUNKS:
        text = chunk.get("text", chunk.get("delta", d.get("delta")))
        return text if isinstance(text, str) else ""
    return None


def _answered(evs: list[dict]) -> set[tuple[Any, ...]]:
    """The (turn, step) of every block whose reply exists whole (``assistant/message``)."""
    out = set()
    for e in evs:
        if e.get("type") == "assistant/message":
            d = dict_at(e, "data")
            out.add((d.get("turn"), d.get("step")))
    return out


def read_deepseek(
    path: str | os.PathLike[str], start: int, *, limit_bytes: int | None = None
) -> Read:
    """Read a DeepSeek Harness session log from event seq *start*."""
    source = str(path)
    if nothing_yet(path):
        return Intake(source, UNIT).result(start, start)
    try:
        header, evs, bad, whole = events(path)
    except (JournalError, OSError) as exc:
        return refused(UNIT, start, f"cannot read the session log: {exc}")
    intake = Intake(source, UNIT)
    intake.variant = f"session log v{header.get('version', '?')}"
    state = _Session(header)
    state.session = state.session or os.path.basename(os.path.dirname(source))
    if bad:
        intake.note(start, start, f"{bad} unreadable line(s) in the log", SKIPPED)
    if not whole:
        intake.hold(start, start, "last zstd frame still being written: read later")
    answered = _answered(evs)
    stop = _streaming_tail(evs, answered, source)
    if stop < len(evs):
        intake.hold(
            int(evs[stop]["seq"]), int(evs[stop]["seq"]) + 1, "a reply still streaming: read later"
        )
    pending: list[str] = []  # the text of the streamed block being joined
    end = start
    for i, e in enumerate(evs[:stop]):
        seq = e.get("seq")
        if not isinstance(seq, int):
            continue
        if seq < start:
            _observe(state, e)
            continue
        intake.begin(seq, seq + 1)
        end = max(end, seq + 1)
        text = _streamed(e, answered)
        if text is None:
            _emit(intake, state, e, seq)
            continue
        pending.append(text)
        nxt = evs[i + 1] if i + 1 < len(evs) else None
        if nxt is None or _streamed(nxt, answered) is None or _block_key(nxt) != _block_key(e):
            joined, pending = "".join(pending), []
            intake.add("SELF", joined, seq, seq + 1, session=state.session, kind="assistant text")
            if not joined.strip():
                intake.note(seq, seq + 1, "a streamed reply without text", IGNORED)
        else:
            intake.note(seq, seq + 1, "a piece of a streamed reply (read at its end)", IGNORED)
    return intake.result(start, end)


def _streamed(e: dict, answered: set[tuple[Any, ...]]) -> str | None:
    """The text of a reply chunk that is read by joining chunks (its block has no whole
    ``assistant/message``), else ``None``."""
    if e.get("type") != "assistant/chunk":
        return None
    d = dict_at(e, "data")
    if (d.get("turn"), d.get("step")) in answered:
        return None
    return _chunk_text(e)


def _streaming_tail(evs: list[dict], answered: set[tuple[Any, ...]], source: str) -> int:
    """Where the events end that may be read now: before a run of reply chunks that ends
    the log while the file still changes (the reply is still streaming)."""
    stop = len(evs)
    while stop > 0 and _streamed(evs[stop - 1], answered) is not None:
        stop -= 1
    if stop == len(evs):
        return stop
    try:
        quiet = time.time() - os.path.getmtime(source) >= HOLD_SECONDS
    except OSError:
        quiet = True
    return len(evs) if quiet else stop


def _observe(state: _Session, e: dict) -> None:
    d = dict_at(e, "data")
    if e.get("type") == "tool/call":
        state.call(d)


def _emit(intake: Intake, state: _Session, e: dict, seq: int) -> None:
    kind = e.get("type")
    d = dict_at(e, "data")
    why = f"{safe_label(str(kind).replace('/', '.'))} event"
    if kind == "assistant/chunk":
        why = "a reasoning or usage chunk (not read)"
    if e.get("surfaceOp") not in (None, "append") and kind == "user/message":
        intake.note(seq, seq + 1, "a message that replaces earlier ones (compaction)", IGNORED)
        return
    if kind == "user/message":
        pieces, why = state.user(d)
    elif kind == "assistant/message":
        pieces = state.assistant(d)
        why = "assistant message without text (reasoning, tool calls)"
    elif kind == "tool/call":
        pieces = state.call(d)
    elif kind == "tool/result":
        pieces = state.result(d)
        why = "tool result without text"
    else:
        pieces = []
    for p in pieces:
        intake.add(p.cls, p.text, seq, seq + 1, session=state.session, kind=p.kind)
    if not intake.segments or intake.segments[-1].start != seq:
        intake.note(seq, seq + 1, why, IGNORED)


def sniff(head: Head) -> float:
    """A session log: zstd frames whose first line is a DSH header (only the frames in the
    head are decompressed), or the same JSON Lines uncompressed."""
    if is_zstd(head.text):
        try:
            raw, _whole = unzstd_frames(head.text, limit=1 << 20)
        except JournalError:
            return 0.0
        for line in raw.split(b"\n")[:20]:
            obj = decode_line(line + b"\n").obj if line.strip() else None
            if obj is not None and (_is_header(obj) or is_event(obj)):
                return 1.0
        return 0.0
    return head.share(lambda obj, i: is_event(obj) or (i == 0 and _is_header(obj)))


def _is_header(obj: dict) -> bool:
    return obj.get("type") == "session" and "delegationDepth" in obj and "seq" not in obj


ROOTS = {os_: ("~/.dsh/sessions",) for os_ in ("linux", "darwin", "win32")}

ADAPTER = Adapter(
    name="deepseek",
    label="DeepSeek Harness",
    unit=UNIT,
    read=read_deepseek,
    sniff=sniff,
    roots=ROOTS,
    include=("**/session.jsonl.zstd", "**/session.v*.jsonl.zstd"),
    variants=("session log",),
)
