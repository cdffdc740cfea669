"""GitHub Copilot CLI sessions.

Two layouts:

* ``~/.copilot/session-state/<session id>/events.jsonl`` (current): append-only JSON Lines,
  byte watermark, one event ``{type, data, id, timestamp, parentId}`` per line.
  ``user.message`` holds what the person typed in ``data.content`` (USER) -- unless the
  event names another ``source`` (``autopilot``'s "keep working" nudges, ``system``,
  skills, instruction discovery, other agents: machine text, noted) or belongs to a
  subagent (``agentId``: the parent agent's words, SELF). Blocks the CLI appends inside the
  content (``<current_datetime>``, ``<system_reminder>``, ``<system_notification>``,
  ``<skill-context>`` …) are cut out; ``transformedContent`` is the CLI's rewritten copy
  and is never read. ``assistant.message`` text is SELF (its reasoning skipped), its
  ``toolRequests`` -- or ``tool.execution_start`` when the request carried no arguments --
  are ACT plus SELF for their prose; ``tool.execution_complete`` results are TOOL or SELF
  by provenance. Streaming deltas, usage, session, hook and model events are noted.
* ``~/.copilot/history-session-state/<session>.json`` (earlier versions): one JSON
  document per session, rewritten whole (``seq`` watermark, the index into
  ``chatMessages``): OpenAI-style ``user`` / ``assistant`` (``tool_calls``) / ``tool``
  messages, read by the same rules. The ``/share`` Markdown export (``# 🤖 Copilot CLI
  Session``) is read by the same adapter, one ``###`` section per step: ``👤 User`` USER,
  ``💬 Copilot`` SELF, a tool section ACT (its summary line) and TOOL (its output),
  warnings and notices TOOL; a heading inside a code fence or ``<details>`` is not a section.
"""

from __future__ import annotations

import os
import re
from typing import Any

from ...shapes import dict_at, str_at
from . import provenance as pv
from .base import IGNORED, Read
from .documents import Messages, ToolCalls, read_document, read_records, text_parts, typed_piece
from .recognize import (
    is_copilot_legacy as is_legacy,
    is_copilot_share as is_share_export,
)

_APPENDED = re.compile(
    r"<(current_datetime|system_reminder|system-reminder|system_notification|skill-context|"
    r"reminder|attachments?|custom_instructions|environment_context|context)"
    r"(?:\s[^<>]*)?>.*?(?:</\1>|\Z)",
    re.DOTALL,
)
from . import recognize as rc
from .registry import Adapter, Head

_HUMAN_SOURCES = {"", "user", "human", "cli", "interactive", "prompt"}
_NOTED = {
    "assistant.message_delta": "streaming fragment (the whole message follows)",
    "assistant.reasoning": "reasoning (never evidence)",
    "assistant.reasoning_delta": "reasoning (never evidence)",
    "assistant.usage": "token usage",
    "assistant.turn_start": "turn marker",
    "assistant.turn_end": "turn marker",
    "session.start": "session metadata",
    "system.message": "system prompt (instructions, not the person)",
}


def user_words(content: Any) -> str:
    """The person's typed words: the content with the blocks the CLI appends cut out."""
    text = content if isinstance(content, str) else ""
    return _APPENDED.sub("", text).strip()


class _Calls(ToolCalls):
    """The calls read so far; a call is read once, from the assistant's request or from
    its execution event."""

    def __init__(self) -> None:
        super().__init__()
        self.acted: set[str] = set()

    def copy(self) -> _Calls:
        c = _Calls()
        c.calls, c.prose, c.acted = dict(self.calls), set(self.prose), set(self.acted)
        return c

    def call(self, call_id: str, name: Any, args: Any) -> list[pv.Piece]:
        if call_id and call_id in self.acted:
            return []
        pieces = super().call(call_id, name, args)
        if call_id:
            self.acted.add(call_id)
        return pieces

    def result_of(self, call_id: str, text: str) -> list[pv.Piece]:
        return [self.result(self.calls.get(call_id), text)] if text.strip() else []


class _Events:
    """Per-file state for ``events.jsonl``."""

    def __init__(self) -> None:
        self.session = ""
        self.tools = _Calls()

    def copy(self) -> _Events:
        c = _Events()
        c.session, c.tools = self.session, self.tools.copy()
        return c

    def stamp(self, obj: dict) -> str:
        return str_at(obj, "timestamp")

    def observe(self, obj: dict) -> None:
        self.pieces(obj, lambda *a, **k: None)

    def pieces(self, obj: dict, note: Any) -> list[pv.Piece] | None:
        etype = obj.get("type")
        data = obj.get("data")
        if not isinstance(etype, str) or not isinstance(data, dict) or "." not in etype:
            return None
        if etype == "session.start" and isinstance(data.get("sessionId"), str):
            self.session = data["sessionId"]
        if etype == "user.message":
            return self._user(obj, data, note)
        if etype == "assistant.message":
            return self._assistant(data)
        if etype == "tool.execution_start":
            call_id = str(data.get("toolCallId") or "")
            if call_id and call_id in self.tools.acted:
                note("tool call already read from the assistant's request", IGNORED)
                return []
            return self.tools.call(call_id, data.get("toolName"), data.get("arguments") or {})
        if etype == "tool.execution_complete":
            return self.tools.result_of(str(data.get("toolCallId") or ""), _result_text(data))
        note(_NOTED.get(etype, f"{_safe(etype)} event"), IGNORED)
        return []

    def _user(self, obj: dict, data: dict, note: Any) -> list[pv.Piece]:
        source = str(data.get("source") or "").lower()
        if source not in _HUMAN_SOURCES:
            note(f"message from {_safe(source)}, not the person", IGNORED)
            return []
        words = user_words(data.get("content"))
        if not words:
            note("no typed words (an empty nudge, or only appended context)", IGNORED)
            return []
        # a subagent's turn has an ``agentId`` (``parentAgentTaskId`` is on every prompt)
        return [typed_piece(words, child=bool(obj.get("agentId")))]

    def _assistant(self, data: dict) -> list[pv.Piece]:
        pieces: list[pv.Piece] = []
        text = data.get("content")
        if isinstance(text, str) and text.strip():
            pieces.append(pv.Piece("SELF", text.strip(), "assistant message"))
        for req in data.get("toolRequests") or []:
            if isinstance(req, dict) and req.get("arguments") not in (None, {}, ""):
                call_id = str(req.get("toolCallId") or "")
                pieces.extend(self.tools.call(call_id, req.get("name"), req.get("arguments")))
        return pieces


def _result_text(data: dict) -> str:
    result = data.get("result")
    if isinstance(result, dict):
        for key in ("content", "detailedContent", "output", "text"):
            if isinstance(result.get(key), str) and result[key].strip():
                return result[key]
    if isinstance(result, str):
        return result
    error = data.get("error")
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return error["message"]
    return error if isinstance(error, str) else ""


_LABEL = re.compile(r"[A-Za-z0-9_.:-]{1,40}")


def _safe(value: object) -> str:
    s = str(value)
    return s if _LABEL.fullmatch(s) else "?"


def read_copilot(
    path: str | os.PathLike[str], start: int, *, limit_bytes: int | None = None
) -> Read:
    """Read a Copilot CLI ``events.jsonl`` from byte *start*."""
    return read_records(
        path, start, limit_bytes, adapter="copilot", label="Copilot CLI", reader=_Events
    )


# --------------------------------------------------------------------------- legacy


class _Legacy(Messages):
    stamp_key = "timestamp"

    def __init__(self, obj: dict) -> None:
        self.session = str_at(obj, "sessionId")
        self.tools = _Calls()

    def why_empty(self, msg: Any) -> str:
        role = msg.get("role") if isinstance(msg, dict) else None
        return f"{_safe(role)} message without the person's or the agent's words"

    def pieces(self, msg: Any, index: int) -> list[pv.Piece]:
        if not isinstance(msg, dict):
            return []
        role = msg.get("role")
        text = text_parts(msg.get("content"))[0]
        if role == "user":
            words = user_words(text)
            return [pv.Piece("USER", words, "user message")] if words else []
        if role == "assistant":
            pieces = [pv.Piece("SELF", text.strip(), "assistant message")] if text.strip() else []
            for tc in msg.get("tool_calls") or []:
                fn = dict_at(tc, "function") if isinstance(tc, dict) else {}
                call_id = str(tc.get("id") or "") if isinstance(tc, dict) else ""
                pieces.extend(self.tools.call(call_id, fn.get("name"), fn.get("arguments")))
            return pieces
        if role == "tool":
            return self.tools.result_of(str(msg.get("tool_call_id") or ""), text)
        return []


# --------------------------------------------------------------------------- /share export

_SHARE_HEADING = re.compile(r"^### (\S+) (.*\S)\s*$")


_SECTION = re.compile(r"^### \S+ .+$")
_SUB_LINE = re.compile(r"^<sub>.*</sub>[ \t]*$")


def _share_pieces(heading: str, body: str) -> list[pv.Piece]:
    """The classed texts of one section of a ``/share`` export."""
    lines = [ln for ln in body.split("\n") if not _SUB_LINE.match(ln)]
    while lines and lines[-1].strip() in ("", "---"):
        lines.pop()
    body = "\n".join(lines).strip()
    m = _SHARE_HEADING.match(heading)
    title = m.group(2) if m else heading
    if not body:
        return []
    if title == "User":
        words = user_words(body)
        return [pv.Piece("USER", words, "user message (/share export)")] if words else []
    if title == "Copilot":
        return [pv.Piece("SELF", body, "assistant message (/share export)")]
    if title.startswith("`"):
        name = title.strip("`")
        first, _, rest = body.partition("\n\n")
        pieces = [
            pv.Piece("ACT", f"{name}: {first.strip('*. ')}", f"tool call {name} (/share export)")
        ]
        if rest.strip():
            pieces.append(pv.Piece("TOOL", rest.strip(), f"tool_result {name} (/share export)"))
        return pieces
    return [pv.Piece("TOOL", body, f"CLI notice: {title[:30]}")]


def _load_share(path: str | os.PathLike[str]) -> tuple[Any, str, bool]:
    from .base import decode_bytes
    from .cursor import markdown_turns

    with open(path, "rb") as fh:
        text, repaired = decode_bytes(fh.read())
    turns = markdown_turns(text, _SECTION, ("### ",))
    return [{"heading": h, "body": b} for h, b in turns], "", repaired


class _Share(Messages):
    def __init__(self, _obj: Any) -> None:
        self.session = ""

    def why_empty(self, msg: Any) -> str:
        return "section without text"

    def pieces(self, msg: Any, index: int) -> list[pv.Piece]:
        return _share_pieces(msg["heading"], msg["body"]) if isinstance(msg, dict) else []


def read_copilot_legacy(
    path: str | os.PathLike[str], start: int, *, limit_bytes: int | None = None
) -> Read:
    """Read an earlier Copilot CLI session document, or a ``/share`` Markdown export, from
    message (section) index *start*."""
    if is_share_export(path):
        return read_document(
            path,
            start,
            adapter="Copilot CLI /share export",
            messages=lambda obj: obj,
            reader=_Share,
            load=_load_share,
        )
    return read_document(
        path,
        start,
        adapter="Copilot CLI (history-session-state)",
        messages=lambda obj: obj["chatMessages"] if is_legacy(obj) else None,
        reader=_Legacy,
    )


#: Where the CLI keeps sessions (``COPILOT_HOME`` moves ``~/.copilot``): the current
#: ``session-state`` folders, and the earlier ``history-session-state`` documents.
ROOTS: dict[str, tuple[str, ...]] = {
    "linux": ("~/.copilot/session-state",),
    "darwin": ("~/.copilot/session-state",),
    "win32": ("~/.copilot/session-state",),
}
LEGACY_ROOTS: dict[str, tuple[str, ...]] = {
    "linux": ("~/.copilot/history-session-state",),
    "darwin": ("~/.copilot/history-session-state",),
    "win32": ("~/.copilot/history-session-state",),
}


# --------------------------------------------------------------------------- detection


def sniff(head: Head) -> float:
    """The session-state ``events.jsonl`` (``user.message``, ``assistant.message``, …)."""
    return head.share(lambda obj, _i: rc.is_copilot_event(obj))


def sniff_legacy(head: Head) -> float:
    """An earlier one-file-per-session document, or a ``/share`` Markdown export."""
    if head.document is not None:
        return 1.0 if rc.is_copilot_legacy(head.document) else 0.0
    return 1.0 if head.plain and rc.is_copilot_share(head.path) else 0.0


ADAPTER = Adapter(
    name="copilot",
    label="GitHub Copilot CLI",
    unit="byte",
    read=read_copilot,
    sniff=sniff,
    roots=ROOTS,
    include=("**/events.jsonl",),
    variants=("session-state events.jsonl",),
    windowed=True,
)

LEGACY = Adapter(
    name="copilot-legacy",
    label="GitHub Copilot CLI (earlier sessions)",
    unit="seq",
    read=read_copilot_legacy,
    sniff=sniff_legacy,
    roots=LEGACY_ROOTS,
    include=("*.json",),
    variants=("history-session-state document", "/share Markdown export"),
)
