"""Kimi CLI sessions (``~/.kimi/sessions/<work dir hash>/<session id>/``).

Append-only JSON Lines, byte watermark. Three record shapes, told apart line by line:

* ``context.jsonl`` -- the conversation as the model sees it: ``{role, content}`` with
  ``user`` / ``assistant`` (``tool_calls``) / ``tool`` roles and the CLI's bookkeeping rows
  ``_system_prompt``, ``_checkpoint``, ``_usage`` (noted). A user-role message is the
  person's words (USER) after the blocks the CLI writes into it are cut out (and, for a
  ``/skill:`` command, after the skill's text that precedes "User request:")
  (``<system>…</system>`` notices such as ``CHECKPOINT n``, ``<system-reminder>``); a
  compaction summary is a model's (SELF). In a subagent's context (a file under a
  ``subagents`` folder, or Kimi Code's ``agents/<name>`` for any agent but ``main``) the
  "user" is the main agent handing over its task: SELF.
* ``wire.jsonl`` -- the event stream: ``TurnBegin.user_input`` is the person (USER; in a
  ``SubagentEvent`` it is the main agent, SELF), ``ContentPart`` text SELF (thinking
  skipped), ``ToolCall`` ACT, ``ToolResult`` TOOL; status and step events are noted.
* Kimi Code's ``wire.jsonl``: ``context.append_message`` records carrying a message with an
  ``origin``: ``{kind: "user"}`` (or none) is the person; injections, skill activations,
  background-task notices and shell commands put on the person's channel are noted;
  ``context.append_loop_event`` parts are SELF (text) and ACT (``tool.call``);
  ``turn.prompt`` repeats the message and is noted.

``context.jsonl`` is the default journal (whole messages); the wire file is read when
named.
"""

from __future__ import annotations

import os
import re
from pathlib import PurePath
from typing import Any

from ...shapes import dict_at
from . import provenance as pv
from .base import IGNORED, Read
from .documents import content_text, read_records, stamp_of
from .recognize import (
    KIMI_BOOKKEEPING as _BOOKKEEPING,
)

_SYSTEM_BLOCK = re.compile(
    r"<(system|system-reminder|system_reminder|notification)(?:\s[^<>]*)?>.*?(?:</\1>|\Z)",
    re.DOTALL,
)
#: Kimi CLI runs ``/skill:NAME words`` as one user message: the skill's text, this line,
#: then the words typed after the command.
_SKILL_REQUEST = "\n\nUser request:\n"
_COMPACTED = (
    "Previous context has been compacted",
    "context has been compacted",
    "conversation so far has been compacted",
)
from . import recognize as rc
from .registry import Adapter, Head


def _subagent_path(path: str) -> bool:
    """A subagent's file: under a ``subagents`` folder, under ``agents/<name>`` for any agent
    but ``main`` (Kimi Code), or a ``*_sub*`` context file."""
    p = PurePath(path)
    if "subagents" in p.parts[:-1] or "_sub" in p.stem:
        return True
    return p.parent.parent.name == "agents" and p.parent.name != "main"


class _Kimi:
    def __init__(self, path: str) -> None:
        self.session = PurePath(path).parent.name
        self.subagent = _subagent_path(path)
        self.calls: dict[str, pv.ToolCall] = {}
        self.prose: set[str] = set()

    def copy(self) -> _Kimi:
        c = _Kimi.__new__(_Kimi)
        c.session, c.subagent = self.session, self.subagent
        c.calls, c.prose = dict(self.calls), set(self.prose)
        return c

    def stamp(self, obj: dict) -> str:
        return stamp_of(obj.get("timestamp") or obj.get("time"))

    def observe(self, obj: dict) -> None:
        self.pieces(obj, lambda *a, **k: None)

    def pieces(self, obj: dict, note: Any) -> list[pv.Piece] | None:
        role = obj.get("role")
        if isinstance(role, str):
            if role in _BOOKKEEPING:
                note(_BOOKKEEPING[role], IGNORED)
                return []
            return self._message(obj, note)
        if obj.get("type") == "context.append_message" and isinstance(obj.get("message"), dict):
            return self._message(obj["message"], note)
        if obj.get("type") == "context.append_loop_event" and isinstance(obj.get("event"), dict):
            return self._loop_event(obj["event"], note)
        if obj.get("type") in _CODE_NOTED:
            note(f"{obj['type']} record", IGNORED)
            return []
        if obj.get("type") == "metadata" and "protocol_version" in obj:
            note("wire metadata", IGNORED)
            return []
        msg = obj.get("message")
        if isinstance(msg, dict) and isinstance(msg.get("type"), str):
            return self._wire(msg, note, nested=False)
        return None

    # ------------------------------------------------------------------ messages

    def _message(self, msg: dict, note: Any) -> list[pv.Piece] | None:
        role = msg.get("role")
        if role == "user":
            return self._user(msg, note)
        if role == "assistant":
            return self._assistant(msg)
        if role == "tool":
            call = self.calls.get(str(msg.get("tool_call_id") or msg.get("toolCallId") or ""))
            text = content_text(msg.get("content")).strip()
            if not text:
                return []
            cls, kind = pv.result_class(call, self.prose)
            return [pv.Piece(cls, text, kind)]
        if role in ("system", "developer"):
            note(f"{role} message (instructions, not the person)", IGNORED)
            return []
        return None

    def _user(self, msg: dict, note: Any) -> list[pv.Piece]:
        raw = content_text(msg.get("content"))
        text = _SYSTEM_BLOCK.sub("", raw).strip()
        notices = " ".join(m.group(0) for m in _SYSTEM_BLOCK.finditer(raw))
        if text and (
            any(mark in notices for mark in _COMPACTED) or raw.lstrip().startswith(_COMPACTED)
        ):
            # the summary follows a <system> part saying the context was compacted
            return [pv.Piece("SELF", text, "compaction summary (written by a model)")]
        if not text:
            note("only the CLI's own notices on the person's channel", IGNORED)
            return []
        if _SKILL_REQUEST in text:  # a skill's text, then what the person typed after /skill
            text = text.rsplit(_SKILL_REQUEST, 1)[1].strip()
            if not text:
                note("a skill's instructions (not what the person typed)", IGNORED)
                return []
        origin = dict_at(msg, "origin")
        kind = str(origin.get("kind") or "user") if origin else "user"
        if self.subagent or "agent" in kind or "task" in kind and kind != "background_task":
            return [pv.Piece("SELF", text, "task from the main agent")]
        if kind not in ("user", "human"):
            note(f"put on the person's channel by the CLI ({_safe(kind)})", IGNORED)
            return []
        return [pv.Piece("USER", text, "user message")]

    def _assistant(self, msg: dict) -> list[pv.Piece]:
        pieces: list[pv.Piece] = []
        text = content_text(msg.get("content")).strip()
        if text:
            pieces.append(pv.Piece("SELF", text, "assistant message"))
        for tc in msg.get("tool_calls") or msg.get("toolCalls") or []:
            if isinstance(tc, dict):
                pieces.extend(self._call(tc))
        return pieces

    def _call(self, tc: dict) -> list[pv.Piece]:
        fn = dict_at(tc, "function")
        name = fn.get("name") or tc.get("name")
        args = fn.get("arguments") if fn else tc.get("arguments", tc.get("input"))
        pieces, call = pv.decode_call(name, args)
        self.prose.update(call.prose_writes)
        call_id = tc.get("id")
        if isinstance(call_id, str):
            self.calls[call_id] = call
        return pieces

    def _loop_event(self, event: dict, note: Any) -> list[pv.Piece]:
        etype = event.get("type")
        if etype == "content.part":
            part = dict_at(event, "part")
            if part.get("type") == "text" and isinstance(part.get("text"), str):
                return [pv.Piece("SELF", part["text"], "assistant text (streamed part)")]
            note("thinking (never evidence)", IGNORED)
            return []
        if etype == "tool.call":
            return self._call(
                {"name": event.get("name"), "arguments": event.get("args"), "id": event.get("id")}
            )
        note(f"{_safe(etype)} loop event", IGNORED)
        return []

    # ------------------------------------------------------------------ wire

    def _wire(self, msg: dict, note: Any, *, nested: bool) -> list[pv.Piece]:
        mtype = msg.get("type")
        payload = msg.get("payload")
        if mtype == "SubagentEvent" and isinstance(payload, dict):
            inner = dict_at(payload, "event")
            return self._wire(inner, note, nested=True) if inner else []
        if mtype == "TurnBegin" and isinstance(payload, dict):
            text = _SYSTEM_BLOCK.sub("", content_text(payload.get("user_input"))).strip()
            if not text:
                return []
            if nested or self.subagent:
                return [pv.Piece("SELF", text, "task from the main agent")]
            return [pv.Piece("USER", text, "user input")]
        if mtype == "ContentPart" and isinstance(payload, dict):
            if payload.get("type") == "text" and isinstance(payload.get("text"), str):
                return [pv.Piece("SELF", payload["text"], "assistant text (streamed part)")]
            note("thinking (never evidence)", IGNORED)
            return []
        if mtype == "ToolCall" and isinstance(payload, dict):
            return self._call(payload)
        if mtype == "ToolResult" and isinstance(payload, dict):
            return self._wire_result(payload)
        note(f"{mtype if isinstance(mtype, str) and len(mtype) < 40 else 'wire'} event", IGNORED)
        return []

    def _wire_result(self, payload: dict) -> list[pv.Piece]:
        call = self.calls.get(str(payload.get("tool_call_id") or ""))
        value = payload.get("return_value")
        text = ""
        if isinstance(value, dict):
            for key in ("output", "message", "brief"):
                got = value.get(key)
                got = content_text(got) if isinstance(got, list) else got
                if isinstance(got, str) and got.strip():
                    text = got
                    break
        elif isinstance(value, str):
            text = value
        if not text.strip():
            return []
        cls, kind = pv.result_class(call, self.prose)
        if isinstance(value, dict) and value.get("is_error") is True:
            kind += " (error)"  # "File not found", "The tool call is rejected by the user"
        return [pv.Piece(cls, text, kind)]


_LABEL = re.compile(r"[A-Za-z0-9_.:-]{1,40}")


def _safe(value: object) -> str:
    s = str(value)
    return s if _LABEL.fullmatch(s) else "?"


#: Kimi Code wire records that repeat or frame the conversation.
_CODE_NOTED = {"turn.prompt", "llm.request", "llm.response", "turn.end", "turn.begin"}


def read_kimi(path: str | os.PathLike[str], start: int, *, limit_bytes: int | None = None) -> Read:
    """Read a Kimi CLI ``context.jsonl`` or ``wire.jsonl`` from byte *start*."""
    source = os.fspath(path)
    return read_records(
        path, start, limit_bytes, adapter="kimi", label="Kimi CLI", reader=lambda: _Kimi(source)
    )


#: Where Kimi CLI keeps sessions (Kimi Code: ``~/.kimi-code/sessions``).
ROOTS: dict[str, tuple[str, ...]] = {
    "linux": ("~/.kimi/sessions", "~/.kimi-code/sessions"),
    "darwin": ("~/.kimi/sessions", "~/.kimi-code/sessions"),
    "win32": ("~/.kimi/sessions", "~/.kimi-code/sessions"),
}


# --------------------------------------------------------------------------- detection


def sniff(head: Head) -> float:
    """``context.jsonl`` messages or ``wire.jsonl`` events."""
    return head.share(lambda obj, _i: rc.is_kimi_record(obj))


ADAPTER = Adapter(
    name="kimi",
    label="Kimi CLI",
    unit="byte",
    read=read_kimi,
    sniff=sniff,
    roots=ROOTS,
    include=("**/context.jsonl", "**/agents/*/wire.jsonl"),
    variants=("context.jsonl", "wire.jsonl"),
    windowed=True,
)
