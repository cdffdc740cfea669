"""How each newer journal format is told from its content: the record and document shapes
only that agent writes. Detection (:mod:`.detect`) and the adapters both use these, and
this module imports no adapter, so neither depends on the other to recognise a file."""

from __future__ import annotations

import json
import os
import re
from typing import Any

from .base import decode_bytes

# ---------------------------------------------------------------- cline


def cline_kind(obj: Any) -> str:
    """``"api"`` or ``"ui"`` for a decoded Cline-family task file, else ``""``."""
    if not isinstance(obj, list) or not obj:
        return ""
    heads = [m for m in obj[:50] if isinstance(m, dict)]
    if not heads:
        return ""
    ui = sum(1 for m in heads if m.get("type") in ("say", "ask") and "ts" in m)
    api = sum(
        1
        for m in heads
        if m.get("role") in ("user", "assistant")
        and isinstance(m.get("content"), (list, str))
        and set(m) <= _CLINE_API_KEYS
    )
    if ui * 2 > len(heads):
        return "ui"
    if api * 2 > len(heads) and _has_cline_marks(heads):
        return "api"
    return ""


_CLINE_API_KEYS = {"role", "content", "ts", "modelInfo", "metrics", "id", "isSummary", "condenseId"}

_CLINE_API_KEYS |= {"condenseParent", "reasoning_content", "truncationId", "truncationParent"}

_CLINE_MARKS = ("<task>", "<environment_details>", "[TASK RESUMPTION]", "] Result:", "<feedback>")


def _has_cline_marks(heads: list[dict]) -> bool:
    for m in heads:
        if m.get("role") != "user":
            continue
        text = json.dumps(m.get("content"), ensure_ascii=False)[:200_000]
        if any(mark in text for mark in _CLINE_MARKS):
            return True
    return False


CLINE_TURN = re.compile(r"^\*\*(User|Assistant):\*\*[ \t]*$", re.MULTILINE)

_CLINE_EXPORT_MARKS = (
    "<task>",
    "<environment_details>",
    "] Result:",
    "<feedback>",
    "<user_message>",
)


def is_cline_export(path: str | os.PathLike[str]) -> bool:
    """A task exported as Markdown (``**User:**`` / ``**Assistant:**`` turns holding the
    conversation the model saw) by Cline, Roo Code, Kilo Code or IBM Bob."""
    try:
        with open(path, "rb") as fh:
            head = decode_bytes(fh.read(1 << 16))[0]
    except OSError:
        return False
    return bool(CLINE_TURN.search(head)) and any(m in head for m in _CLINE_EXPORT_MARKS)


# ---------------------------------------------------------------- codex


def is_codex_history(obj: dict) -> bool:
    """A line of ``~/.codex/history.jsonl``: ``{session_id, ts, text}``, one prompt the
    person submitted."""
    return (
        obj.get("type") is None
        and isinstance(obj.get("session_id"), str)
        and isinstance(obj.get("text"), str)
        and isinstance(obj.get("ts"), (int, float))
    )


# ---------------------------------------------------------------- continue_dev


def is_continue_session(obj: Any) -> bool:
    """A Continue session document: a ``history`` of items each holding a ``message``."""
    if not isinstance(obj, dict) or not isinstance(obj.get("history"), list):
        return False
    if not ("sessionId" in obj or "workspaceDirectory" in obj):
        return False
    items = [i for i in obj["history"][:20] if isinstance(i, dict)]
    return all(isinstance(i.get("message"), dict) for i in items)


# ---------------------------------------------------------------- copilot


def is_copilot_event(obj: dict) -> bool:
    """A Copilot CLI session event: ``{type: "<area>.<name>", data: {…}}``."""
    t = obj.get("type")
    return (
        isinstance(t, str)
        and t.split(".", 1)[0] in _COPILOT_AREAS
        and "." in t
        and isinstance(obj.get("data"), dict)
    )


_COPILOT_AREAS = {"session", "user", "assistant", "tool", "system", "hook", "subagent", "skill"}

_COPILOT_AREAS |= {"model", "permission", "abort", "pending_messages", "external_tool"}


def is_copilot_legacy(obj: Any) -> bool:
    """An earlier Copilot CLI session document: ``chatMessages`` beside the session's id and
    its start time or timeline (another app's ``chatMessages`` list is not one)."""
    return (
        isinstance(obj, dict)
        and isinstance(obj.get("chatMessages"), list)
        and isinstance(obj.get("sessionId"), str)
        and ("startTime" in obj or "timeline" in obj)
    )


_COPILOT_SHARE_MARK = "# 🤖 Copilot CLI Session"


def is_copilot_share(path: str | os.PathLike[str]) -> bool:
    """A session exported as Markdown by the CLI's ``/share`` command."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(4096)
    except OSError:
        return False
    return _COPILOT_SHARE_MARK in head.decode("utf-8", errors="replace")


# ---------------------------------------------------------------- cursor

GROK_TYPES = {"user", "assistant", "tool_result", "reasoning", "system"}


def is_cursor_record(obj: dict) -> bool:
    """A Cursor agent-transcript line (or a Grok CLI chat-history line)."""
    if obj.get("role") in ("user", "assistant") and isinstance(obj.get("message"), dict):
        msg = obj["message"]
        return set(msg) <= {"content", "role"} and set(obj) <= {"role", "message", "timestamp"}
    if obj.get("type") == "turn_ended" and "status" in obj:
        return True
    return is_grok_record(obj)


def is_grok_record(obj: dict) -> bool:
    """A Grok CLI chat-history line: each type carries a field only Grok writes beside it
    (a plain ``{type: user, content}`` line of some other tool is not one)."""
    t = obj.get("type")
    if t not in GROK_TYPES or {"message", "uuid", "sessionId", "id", "payload"} & set(obj):
        return False
    content = obj.get("content")
    if t == "user":
        return isinstance(content, list) or "prompt_index" in obj or "synthetic_reason" in obj
    if t == "assistant":
        return bool({"model_id", "tool_calls", "reasoning"} & set(obj))
    if t == "tool_result":
        return "tool_call_id" in obj or "name" in obj
    if t == "reasoning":  # (Codex's reasoning items carry a summary and encrypted content)
        return "content" in obj and "summary" not in obj and "encrypted_content" not in obj
    return isinstance(content, str)  # the system prompt


def is_cursor_text(path: str | os.PathLike[str]) -> bool:
    """A Cursor text transcript: it opens with a ``user:`` line and wraps the person's
    words in ``<user_query>``."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(8192).decode("utf-8", errors="replace")
    except OSError:
        return False
    first = head.lstrip("\ufeff \t\r\n").split("\n", 1)[0].strip()
    return first == "user:" and "<user_query>" in head


_SPECSTORY_MARK = "<!-- Generated by SpecStory"


def is_specstory(path: str | os.PathLike[str]) -> bool:
    try:
        with open(path, "rb") as fh:
            head = fh.read(4096)
    except OSError:
        return False
    text = decode_bytes(head)[0]
    return _SPECSTORY_MARK in text or ("## SpecStory" in text and "_**User" in text)


# ---------------------------------------------------------------- gemini_more

_GEMINI_EVENTS = {"init", "message", "tool_use", "tool_result", "error", "result"}


def is_gemini_event(obj: Any) -> bool:
    """A stream-json event: a known ``type`` with the fields that type carries."""
    if not isinstance(obj, dict):
        return False
    t = obj.get("type")
    if t not in _GEMINI_EVENTS or "payload" in obj:
        return False
    if t == "init":
        return "session_id" in obj or "model" in obj
    if t == "message":  # (Codex's early bare items are messages too: content is a list there)
        return (
            obj.get("role") in ("user", "assistant")
            and isinstance(obj.get("content"), str)
            and "timestamp" in obj
        )
    if t == "tool_use":
        return "tool_name" in obj or "tool_id" in obj
    if t == "tool_result":
        return "tool_id" in obj and ("status" in obj or "output" in obj)
    if t == "error":
        return "severity" in obj or ("message" in obj and "timestamp" in obj)
    # Claude Code's stream has a ``result`` too, always with a ``subtype``
    return "status" in obj and "subtype" not in obj and ("stats" in obj or "timestamp" in obj)


def is_gemini_stream_json(path: str | os.PathLike[str]) -> bool:
    """True when the JSON lines at the head of *path* are mostly stream-json events."""
    seen = hits = 0
    with open(path, "rb") as fh:
        for raw in fh:
            if seen >= 40:
                break
            s = raw.strip()
            if not s.startswith(b"{"):
                continue
            try:
                obj = json.loads(decode_bytes(s)[0])
            except (ValueError, RecursionError):
                continue
            seen += 1
            hits += is_gemini_event(obj)
    return seen > 0 and hits * 2 > seen


def is_gemini_logs(obj: Any) -> bool:
    """``logs.json``: a list of ``{sessionId, messageId, type, message}`` entries."""
    if not isinstance(obj, list) or not obj:
        return False
    heads = [e for e in obj[:20] if isinstance(e, dict)]
    return bool(heads) and all(
        "sessionId" in e and "messageId" in e and "message" in e and "type" in e for e in heads
    )


def is_gemini_checkpoint(obj: Any) -> bool:
    """A chat saved with ``/chat save`` (``checkpoint-<tag>.json``; Gemini Code Assist saves
    its chats the same way): a list of ``{role: user | model, parts: [...]}`` contents."""
    if not isinstance(obj, list) or not obj:
        return False
    heads = [c for c in obj[:20] if isinstance(c, dict)]
    return bool(heads) and all(
        c.get("role") in ("user", "model") and isinstance(c.get("parts"), list) for c in heads
    )


def gemini_document_kind(path: str | os.PathLike[str]) -> str:
    """``"logs"`` for a ``logs.json`` array, ``"checkpoint"`` for a ``/chat save`` file,
    else ``""``."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(64).lstrip(b"\xef\xbb\xbf \t\r\n")
        if not head.startswith(b"["):
            return ""
        with open(path, "rb") as fh:
            obj = json.loads(decode_bytes(fh.read())[0].lstrip("\ufeff"))
    except (OSError, ValueError, RecursionError):
        return ""
    if is_gemini_logs(obj):
        return "logs"
    return "checkpoint" if is_gemini_checkpoint(obj) else ""


# ---------------------------------------------------------------- kimi

KIMI_BOOKKEEPING = {"_system_prompt": "system prompt", "_checkpoint": "checkpoint"}

KIMI_BOOKKEEPING["_usage"] = "token usage"


def is_kimi_record(obj: dict) -> bool:
    """A Kimi CLI context or wire record."""
    role = obj.get("role")
    if role in KIMI_BOOKKEEPING:
        return True
    if obj.get("type") == "context.append_message" and isinstance(obj.get("message"), dict):
        return True
    if obj.get("type") == "context.append_loop_event" and isinstance(obj.get("event"), dict):
        return True
    msg = obj.get("message")
    if (
        isinstance(msg, dict)
        and msg.get("type") in _KIMI_WIRE_TYPES
        and ("timestamp" in obj or "payload" in msg)
    ):
        return True
    return obj.get("type") == "metadata" and "protocol_version" in obj


_KIMI_WIRE_TYPES = {"TurnBegin", "TurnEnd", "StepBegin", "StepInterrupted", "ContentPart"}

_KIMI_WIRE_TYPES |= {"ToolCall", "ToolCallPart", "ToolResult", "StatusUpdate", "SubagentEvent"}

_KIMI_WIRE_TYPES |= {"CompactionBegin", "CompactionEnd", "ApprovalRequest", "ApprovalResponse"}

# ---------------------------------------------------------------- qwen

QWEN_TYPES = {"user", "assistant", "tool_result", "system"}


def is_qwen_record(obj: dict) -> bool:
    """A Qwen Code chat record: Gemini-style ``parts`` in a Claude-like envelope, or a
    ``tool_result`` / ``systemPayload`` record."""
    if obj.get("type") not in QWEN_TYPES:
        return False
    msg = obj.get("message")
    if isinstance(msg, dict) and isinstance(msg.get("parts"), list):
        return True
    return "systemPayload" in obj or "toolCallResult" in obj
