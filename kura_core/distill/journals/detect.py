"""Which adapter reads a file, decided by its content, never by its name.

JSON Lines are told apart by the shape of their records (up to the first 200): Claude
Code entries (``type`` user/assistant/summary/… with ``sessionId``/``uuid``), Codex
rollouts (``{timestamp, type, payload}`` or the early bare items), Gemini CLI streams
(``sessionId`` + ``projectHash``, ``$set``, ``$rewindTo``, messages of type
``user``/``gemini``), and evidence JSONL (``schema_version`` + ``class``). A single JSON
document is a Gemini CLI saved chat (``messages`` + ``sessionId``) or an opencode session
(``opencode export`` or a storage session file); a SQLite file with ``message`` and
``part`` tables is opencode's database. Text is aider's chat history when it carries
aider's session header (``# aider chat started at``), otherwise plain text (a Markdown
note may well have ``#### `` headings).

Only an empty file falls back to its name (``.jsonl`` → claude, ``.md``/``.txt`` → text),
because an empty file has no content to judge.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
from collections import Counter
from pathlib import Path

from . import recognize as rc
from .base import JournalError, decode_bytes, encoding_problem, pretty_printed, sniff

_CLAUDE_TYPES = {
    "user",
    "assistant",
    "summary",
    "system",
    "file-history-snapshot",
    "queue-operation",
    "progress",
    "attachment",
    "custom-title",
    "ai-title",
    "agent-setting",
    "pr-link",
    "last-prompt",
}
_CLAUDE_KEYS = (
    "sessionId",
    "uuid",
    "parentUuid",
    "leafUuid",
    "messageId",
    "snapshot",
    "isSidechain",
    "userType",
    "operation",
)
_CODEX_TYPES = {"session_meta", "response_item", "event_msg", "turn_context", "compacted"}
_CODEX_ITEMS = {
    "message",
    "reasoning",
    "function_call",
    "function_call_output",
    "custom_tool_call",
    "custom_tool_call_output",
    "local_shell_call",
    "web_search_call",
}
_GEMINI_TYPES = {"user", "gemini", "info", "error", "warning"}
ADAPTER_NAMES = (
    "claude",
    "codex",
    "gemini",
    "opencode",
    "aider",
    "evidence",
    "text",
    "cline",
    "continue",
    "copilot",
    "copilot-legacy",
    "cursor",
    "specstory",
    "kimi",
    "qwen",
)


def _new_record_kind(obj: dict) -> str:
    """The newer formats, each recognised by the fields its records carry."""
    if rc.is_codex_history(obj):
        return "codex"
    if rc.is_copilot_event(obj):
        return "copilot"
    if rc.is_qwen_record(obj):
        return "qwen"
    if rc.is_kimi_record(obj):
        return "kimi"
    if rc.is_gemini_event(obj):
        return "gemini"
    if rc.is_cursor_record(obj):
        return "cursor"
    return ""


def _record_kind(obj: dict, index: int) -> str:
    t = obj.get("type")
    if "schema_version" in obj and "class" in obj:
        return "evidence"
    newer = _new_record_kind(obj)
    if newer:
        return newer
    if isinstance(t, str) and t in _CODEX_TYPES and isinstance(obj.get("payload"), dict):
        return "codex"
    if "record_type" in obj or (
        isinstance(t, str)
        and t in _CODEX_ITEMS
        and ("role" in obj or "call_id" in obj or "arguments" in obj or "encrypted_content" in obj)
        and "message" not in obj
    ):
        return "codex"
    if (
        index == 0
        and t is None
        and isinstance(obj.get("id"), str)
        and ("instructions" in obj or "git" in obj)
    ):
        return "codex"
    if (
        "$rewindTo" in obj
        or isinstance(obj.get("$set"), dict)
        or ("sessionId" in obj and "projectHash" in obj)
    ):
        return "gemini"
    if (
        isinstance(t, str)
        and t in _GEMINI_TYPES
        and "id" in obj
        and "content" in obj
        and "message" not in obj
        and "uuid" not in obj
    ):
        return "gemini"
    if (
        isinstance(t, str)
        and (t in _CLAUDE_TYPES or any(k in obj for k in _CLAUDE_KEYS))
        and (any(k in obj for k in _CLAUDE_KEYS) or isinstance(obj.get("message"), dict))
    ):
        return "claude"
    return ""


def _jsonl_kind(path: Path) -> str:
    votes: Counter = Counter()
    n = 0
    with open(path, "rb") as fh:
        for raw in fh:
            if n >= 200:
                break
            if not raw.strip():
                continue
            text, _ = decode_bytes(raw)
            try:
                obj = json.loads(text.lstrip("\ufeff"))
            except (ValueError, RecursionError):
                continue
            if not isinstance(obj, dict):
                continue
            kind = _record_kind(obj, n)
            n += 1
            if kind:
                votes[kind] += 1
    if not votes:
        return ""
    order = {"evidence": 0, "codex": 1, "gemini": 2, "claude": 3}
    return max(votes, key=lambda k: (votes[k], -order.get(k, 4)))


def _document_kind(path: Path) -> str:
    from .opencode import kind_of

    if os.path.getsize(path) > (512 << 20):
        return ""
    text, _ = decode_bytes(path.read_bytes())
    text = text.lstrip("\ufeff")
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError):
        at = text.find("\n{")
        if at < 0 or text.count("\n", 0, at) > 3:
            return ""
        try:  # a status line before the document (`opencode export > file`)
            obj = json.loads(text[at + 1 :])
        except (ValueError, RecursionError):
            return ""
    newer = _new_document_kind(obj)
    if newer or not isinstance(obj, dict):
        return newer
    if isinstance(obj.get("messages"), list) and ("sessionId" in obj or "projectHash" in obj):
        return "gemini"
    if kind_of(obj):
        return "opencode"
    return ""


def _new_document_kind(obj: object) -> str:
    if rc.cline_kind(obj):
        return "cline"
    if rc.is_gemini_logs(obj) or rc.is_gemini_checkpoint(obj):
        return "gemini"
    if rc.is_continue_session(obj):
        return "continue"
    if rc.is_copilot_legacy(obj):
        return "copilot-legacy"
    return ""


def _sqlite_kind(path: Path) -> str:
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=2)
        try:
            names = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        finally:
            con.close()
    except sqlite3.Error:
        return ""
    return "opencode" if {"message", "part"} <= names else ""


_AIDER = re.compile(rb"^# aider chat started at ", re.MULTILINE)


def sniff_adapter(path: str | os.PathLike[str]) -> str:
    """The adapter whose format *path* has, or ``""`` when none matches."""
    p = Path(path)
    try:
        kind = sniff(p)
        if kind == "sqlite":
            return _sqlite_kind(p)
        if kind != "text":
            return ""
        with open(p, "rb") as fh:
            head = fh.read(1 << 16)
        stripped = head.lstrip(b"\xef\xbb\xbf \t\r\n")
        if stripped.startswith((b"{", b"[")):
            first = stripped.split(b"\n", 1)[0].strip()
            try:
                json.loads(decode_bytes(first)[0])
                one_line = True
            except (ValueError, RecursionError):
                one_line = False
            if one_line:
                doc = _document_kind(p) if b"\n" not in stripped.rstrip() else ""
                return doc or _jsonl_kind(p) or _document_kind(p)
            return _document_kind(p) or _jsonl_kind(p)
        # a JSON Lines file whose first line is damaged is still JSON Lines
        rows = [r for r in head.split(b"\n")[:40] if r.strip()]
        objects = sum(1 for r in rows if _is_object(r))
        if objects and objects * 2 >= len(rows):
            found = _jsonl_kind(p)
            if found:
                return found
        if _AIDER.search(head):
            return "aider"
        transcript = _text_transcript_kind(p)
        if transcript:
            return transcript
        if b"\n{" in head[:4096]:
            doc = _document_kind(p)
            if doc:
                return doc
        return "text"
    except OSError:
        return ""


def _text_transcript_kind(p: Path) -> str:
    """The adapter of a text or Markdown transcript an agent (or an exporter) writes."""
    if rc.is_copilot_share(p):
        return "copilot-legacy"
    if rc.is_specstory(p):
        return "specstory"
    if rc.is_cursor_text(p):
        return "cursor"
    if rc.is_cline_export(p):
        return "cline"
    return ""


def _is_object(raw: bytes) -> bool:
    s = raw.strip()
    if not s.startswith(b"{"):
        return False
    try:
        return isinstance(json.loads(decode_bytes(s)[0]), dict)
    except (ValueError, RecursionError):
        return False


_BY_SUFFIX = {
    ".jsonl": "claude",
    ".ndjson": "claude",
    ".md": "text",
    ".markdown": "text",
    ".txt": "text",
    ".text": "text",
}


def guess_adapter(path: str | os.PathLike[str]) -> str:
    """Name the adapter that reads *path*, judged by its content; a clear error naming
    the adapters when no adapter recognises it."""
    p = Path(path)
    if not p.is_file():
        raise JournalError(
            f"{p}: no such journal file (name an existing file; adapters: "
            f"{', '.join(ADAPTER_NAMES)}, chosen with --adapter)"
        )
    try:
        if p.stat().st_size == 0:
            if p.suffix.lower() in _BY_SUFFIX:
                return _BY_SUFFIX[p.suffix.lower()]
            raise JournalError(
                f"{p.name} is empty, so its format cannot be told: name the "
                f"adapter with --adapter (one of {', '.join(ADAPTER_NAMES)})"
            )
        problem = encoding_problem(p)
        if problem and sniff(p) != "sqlite":
            raise JournalError(
                f"{problem}; no adapter reads it (adapters: {', '.join(ADAPTER_NAMES)})"
            )
    except OSError as exc:
        raise JournalError(f"cannot read journal {p}: {exc.strerror}") from None
    found = sniff_adapter(p)
    if found:
        return found
    if sniff(p) == "sqlite":
        raise JournalError(
            f"{p.name} is a SQLite database without opencode's message and part "
            f"tables; no adapter reads it (adapters: {', '.join(ADAPTER_NAMES)})"
        )
    if pretty_printed(p):
        raise JournalError(
            f"{p.name} is JSON spread over many lines (pretty-printed) that no adapter "
            "recognises; journals are JSON Lines, one record per line: convert it with "
            "`jq -c . FILE` or name the adapter with --adapter"
        )
    raise JournalError(
        f"cannot tell which agent wrote {p.name}: it is not a Claude Code, Codex, Gemini CLI "
        "or opencode transcript, an aider chat history, evidence JSONL or plain text; "
        f"name the adapter with --adapter (one of {', '.join(ADAPTER_NAMES)})"
    )
