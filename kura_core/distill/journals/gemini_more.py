"""Two more Gemini CLI files, read by the ``gemini`` adapter (``seq`` watermark).

* ``--output-format stream-json`` output (also written by wrappers and by forks that
  kept the format): one event per line -- ``init`` (session, model), ``message`` (role
  ``user``: the prompt, USER after injected context and ``@file`` contents are cut out;
  role ``assistant``: SELF, streamed as ``delta`` chunks that are joined into one text),
  ``tool_use`` (ACT plus SELF for its prose), ``tool_result`` (TOOL, or SELF by
  provenance), ``error`` (TOOL) and ``result`` (noted). Extra fields a wrapper adds are
  ignored, and a line that is not JSON (a wrapper's banner) is noted, not fatal. The
  watermark is the line index; a run of assistant chunks still growing at the end of
  the file is left for the next read (until the file has been quiet for
  :data:`~.documents.QUIET_SECONDS`: then it is read as it stands).
* ``/chat save`` checkpoints (``checkpoint-<tag>.json``; Gemini Code Assist saves chats the
  same way): a JSON array of ``{role: user | model, parts}`` contents, the index the
  watermark. User parts follow the chat rules (the CLI's setup context, injected blocks and
  the editor context the IDE appends are not the person's; ``functionResponse`` parts are
  tool results); model text is SELF (thoughts skipped), ``functionCall`` parts ACT.
* ``logs.json`` (``~/.gemini/tmp/<project>/logs.json``, and Qwen Code's copy): a JSON array
  of the prompts the person submitted, ``{sessionId, messageId, type: "user", message,
  timestamp}`` -- every entry USER, slash commands included; the index is the watermark.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

from ...shapes import str_at
from . import provenance as pv
from .base import IGNORED, REPAIRED, Intake, Read, decode_bytes, scrub
from .documents import read_document, stamp_of, still_changing
from .recognize import (
    is_gemini_checkpoint as is_checkpoint,
    is_gemini_event as is_event,
    is_gemini_logs as is_logs,
)

UNIT = "seq"
#: the role this agent's records give the person (its format's word, not provenance)
_USER_ROLE = "user"


#: how a Gemini user message is classed: :func:`.gemini.message_pieces`, passed in by the
#: ``gemini`` adapter so that this module does not import it back
PiecesOf = Callable[..., list[pv.Piece]]


class _Stream:
    def __init__(self, intake: Intake, pieces_of: PiecesOf) -> None:
        self.pieces_of = pieces_of
        self.intake = intake
        self.session = ""
        self.calls: dict[str, pv.ToolCall] = {}
        self.prose: set[str] = set()
        self.chunks: list[str] = []
        self.chunk_start = -1
        self.emit_from = 0

    def flush(self, end: int) -> None:
        if self.chunks and self.chunk_start >= self.emit_from:
            text = "".join(self.chunks).strip()
            if text:
                self.intake.add(
                    "SELF", text, self.chunk_start, end, session=self.session, kind="assistant text"
                )
        self.chunks, self.chunk_start = [], -1

    def event(self, seq: int, obj: dict) -> None:
        t = obj["type"]
        if t == "message" and obj.get("role") == "assistant":
            if self.chunk_start < 0:
                self.chunk_start = seq
            elif seq >= self.emit_from:
                self.intake.note(seq, seq + 1, "assistant chunk, joined into the reply", IGNORED)
            content = obj.get("content")
            self.chunks.append(content if isinstance(content, str) else "")
            if obj.get("delta") is not True:
                self.flush(seq + 1)
            return
        self.flush(seq)
        pieces = self._pieces(t, obj)
        if seq < self.emit_from:
            return
        if not pieces:
            self.intake.note(seq, seq + 1, f"stream-json {t} event", IGNORED)
        for p in pieces:
            self.intake.add(
                p.cls,
                p.text,
                seq,
                seq + 1,
                session=self.session,
                stamp=str_at(obj, "timestamp"),
                kind=p.kind,
            )

    def _pieces(self, t: str, obj: dict) -> list[pv.Piece]:
        if t == "init":
            self.session = str_at(obj, "session_id") or self.session
            return []
        if t == "message":
            msg = {"type": "user", "content": obj.get("content")}
            return self.pieces_of(msg, subagent=False, prose=self.prose)
        if t == "tool_use":
            got, call = pv.decode_call(obj.get("tool_name"), obj.get("parameters") or {})
            self.prose.update(call.prose_writes)
            self.calls[str(obj.get("tool_id") or "")] = call
            return got
        if t == "tool_result":
            text = obj.get("output")
            if not isinstance(text, str):
                err = obj.get("error")
                text = err.get("message") if isinstance(err, dict) else err
            if not isinstance(text, str) or not text.strip():
                return []
            cls, kind = pv.result_class(self.calls.get(str(obj.get("tool_id") or "")), self.prose)
            return [pv.Piece(cls, text, kind)]
        if t == "error" and isinstance(obj.get("message"), str):
            return [pv.Piece("TOOL", obj["message"], "Gemini CLI error event")]
        return []


def read_stream_json(path: str | os.PathLike[str], start: int, pieces_of: PiecesOf) -> Read:
    """Read ``--output-format stream-json`` output from line *start*."""
    source = str(path)
    with open(path, "rb") as fh:
        data = fh.read()
    cut = data.rfind(b"\n")
    lines = data[:cut].split(b"\n") if cut >= 0 else []
    intake = Intake(source, UNIT)
    if start > len(lines):
        intake.note(start, start, "journal shorter than watermark")
        return intake.result(start, start)
    stream = _Stream(intake, pieces_of)
    stream.emit_from = start
    for seq, raw in enumerate(lines):
        obj = _parse(raw, seq, intake if seq >= start else None)
        if obj is None:
            continue
        if is_event(obj):
            stream.event(seq, obj)
        elif seq >= start:
            intake.note(seq, seq + 1, "not a stream-json event (a wrapper's line?)", IGNORED)
    end = len(lines)
    if stream.chunks and still_changing(path):  # chunks still arriving: read them whole later
        end = max(start, stream.chunk_start)
        intake.notes = [n for n in intake.notes if n.start < end]
    elif stream.chunks:  # the writer is gone: the reply is read as it stands
        stream.flush(end)
    intake.records = sum(1 for raw in lines[start:end] if raw.strip())
    return intake.result(start, end)


def _parse(raw: bytes, seq: int, intake: Intake | None) -> dict | None:
    s = raw.strip()
    if not s:
        return None
    text, repaired = decode_bytes(s)
    try:
        obj = json.loads(text.lstrip("\ufeff"))
    except (ValueError, RecursionError):
        if intake is not None:
            intake.note(seq, seq + 1, "not JSON (a wrapper's or the terminal's text)", IGNORED)
        return None
    if not isinstance(obj, dict):
        return None
    obj, changed = scrub(obj)
    if (changed or repaired) and intake is not None:
        intake.note(seq, seq + 1, "invalid text replaced (record kept)", REPAIRED)
    return obj


# --------------------------------------------------------------------------- logs.json


class _Logs:
    def __init__(self, _obj: Any) -> None:
        self.session = ""

    def stamp(self, entry: Any) -> str:
        return stamp_of(entry.get("timestamp")) if isinstance(entry, dict) else ""

    def unfinished(self, entry: Any) -> bool:
        return False

    def why_empty(self, entry: Any) -> str:
        return "log entry without a prompt"

    def pieces(self, entry: Any, index: int) -> list[pv.Piece]:
        if not isinstance(entry, dict) or entry.get("type") != _USER_ROLE:
            return []
        self.session = str_at(entry, "sessionId")
        text = entry.get("message")
        if not isinstance(text, str) or not text.strip():
            return []
        return [pv.Piece("USER", text, "prompt the person submitted (logs.json)")]


def read_logs(path: str | os.PathLike[str], start: int) -> Read:
    return read_document(
        path,
        start,
        adapter="Gemini CLI logs.json",
        messages=lambda obj: obj if is_logs(obj) else None,
        reader=_Logs,
    )


# --------------------------------------------------------------------------- checkpoints


class _Checkpoint:
    def __init__(self, pieces_of: PiecesOf) -> None:
        self.pieces_of = pieces_of
        self.session = ""
        self.prose: set[str] = set()
        self.calls: dict[str, pv.ToolCall] = {}

    def stamp(self, content: Any) -> str:
        return ""

    def unfinished(self, content: Any) -> bool:
        return False

    def why_empty(self, content: Any) -> str:
        return "setup context, thoughts or an empty turn"

    def pieces(self, content: Any, index: int) -> list[pv.Piece]:
        if not isinstance(content, dict):
            return []
        parts = [p for p in content.get("parts") or [] if isinstance(p, dict)]
        if content.get("role") == "user":
            return self.pieces_of(
                {"type": "user", "content": parts}, subagent=False, prose=self.prose
            )
        out: list[pv.Piece] = []
        text = "\n".join(
            p["text"]
            for p in parts
            if isinstance(p.get("text"), str) and p.get("thought") is not True
        ).strip()
        if text:
            out.append(pv.Piece("SELF", text, "model text"))
        for p in parts:
            fc = p.get("functionCall")
            if isinstance(fc, dict):
                got, call = pv.decode_call(fc.get("name"), fc.get("args"))
                self.prose.update(call.prose_writes)
                out.extend(got)
        return out


def read_checkpoint(path: str | os.PathLike[str], start: int, pieces_of: PiecesOf) -> Read:
    return read_document(
        path,
        start,
        adapter="Gemini CLI saved chat (checkpoint)",
        messages=lambda obj: obj if is_checkpoint(obj) else None,
        reader=lambda _obj: _Checkpoint(pieces_of),
    )
