"""Amp (Sourcegraph's coding agent): one pretty-printed JSON document per thread.

``~/.local/share/amp/threads/T-<uuid>.json`` (``$XDG_DATA_HOME/amp/threads``; the VS Code
extension's older ``globalStorage/sourcegraph.amp/threads3``)::

    {"v": 212, "id": "T-…", "created": …, "title": …, "agentMode": "smart",
     "env": {"initial": {"trees": [...], "platform": {...}}},
     "messages": [{"role": "user" | "assistant" | "info", "messageId": n,
                   "content": [blocks], "state": {"type": "complete" | "running" | …},
                   "meta": {"sentAt": ms}}, ...]}

The file is rewritten whole as the thread grows: the watermark is the message index
(``seq``). Blocks: a user message's ``text`` is USER (host blocks inside it never are); an
assistant's ``text`` SELF, ``thinking`` not read, ``tool_use`` ACT (plus SELF for prose in
its input); ``tool_result`` blocks (on the user's side, ``{toolUseID, run: {status,
result | progress}}``) TOOL or SELF by provenance; ``image`` blocks ``[image]``. An ``info``
message (a summary Amp wrote, a handoff) is SELF. The last assistant message, while its
state is ``running`` or ``streaming`` and the file keeps changing, is held back.
"""

from __future__ import annotations

import dataclasses
import json
import os
from typing import Any

from . import provenance as pv
from .base import Read, safe_label
from .documents import Messages, ToolCalls, read_document
from .hostwords import person_words
from .registry import Adapter, Head

UNIT = "seq"


def is_thread(obj: Any) -> bool:
    """An Amp thread document: an id ``T-…`` and a list of role-tagged messages."""
    return (
        isinstance(obj, dict)
        and isinstance(obj.get("id"), str)
        and obj["id"].startswith("T-")
        and isinstance(obj.get("messages"), list)
        and ("agentMode" in obj or "created" in obj or "v" in obj)
    )


def _messages(obj: Any) -> list | None:
    return obj["messages"] if is_thread(obj) else None


def _result_text(block: dict) -> str:
    run = block.get("run")
    if not isinstance(run, dict):
        return _plain(block.get("content"))
    for key in ("result", "progress"):
        value = run.get(key)
        if value not in (None, "", [], {}):
            return _plain(value)
    error = run.get("error")
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return error["message"]
    if isinstance(run.get("reason"), str):
        return run["reason"]
    status = run.get("status")
    return f"[tool {status}]" if isinstance(status, str) and status not in ("done", "") else ""


def _plain(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        texts = [_plain(v) for v in value]
        return "\n".join(t for t in texts if t)
    if isinstance(value, dict):
        for key in ("output", "text", "content", "stdout"):
            if isinstance(value.get(key), str):
                rest = {k: v for k, v in value.items() if k != key and k != "exitCode"}
                return value[key] + (f"\n{json.dumps(rest)}" if rest else "")
        return json.dumps(value, ensure_ascii=False)
    return "" if value is None else str(value)


class _Thread(Messages):
    def __init__(self, obj: Any) -> None:
        self.session = str(obj.get("id") or "")
        self.tools = ToolCalls()

    def stamp(self, msg: Any) -> str:
        meta = msg.get("meta") if isinstance(msg, dict) else None
        sent = meta.get("sentAt") if isinstance(meta, dict) else None
        if isinstance(sent, (int, float)):
            import datetime as dt

            return dt.datetime.fromtimestamp(sent / 1000, dt.UTC).isoformat()
        return ""

    def unfinished(self, msg: Any) -> bool:
        state = msg.get("state") if isinstance(msg, dict) else None
        return isinstance(state, dict) and state.get("type") in ("running", "streaming")

    def why_empty(self, msg: Any) -> str:
        role = msg.get("role") if isinstance(msg, dict) else None
        return f"{safe_label(role)} message without the person's or the agent's words"

    def pieces(self, msg: Any, index: int) -> list[pv.Piece]:
        role = msg.get("role")
        blocks = msg.get("content")
        if isinstance(blocks, str):
            blocks = [{"type": "text", "text": blocks}]
        out: list[pv.Piece] = []
        for b in blocks if isinstance(blocks, list) else ():
            if isinstance(b, dict):
                out.extend(self._block(str(role), b))
        return out

    def _block(self, role: str, b: dict) -> list[pv.Piece]:
        kind = b.get("type")
        if kind == "text" and isinstance(b.get("text"), str):
            if role == "user":
                words = person_words(b["text"])
                return [pv.Piece("USER", words, "user message")] if words else []
            label = "summary" if role == "info" else "assistant text"
            return [pv.Piece("SELF", b["text"], label)] if b["text"].strip() else []
        if kind == "summary" and isinstance(b.get("summary"), dict):
            text = b["summary"].get("summary")
            return [pv.Piece("SELF", text, "summary")] if isinstance(text, str) else []
        if kind == "tool_use":
            return self.tools.call(str(b.get("id") or ""), b.get("name"), b.get("input"))
        if kind == "tool_result":
            call = self.tools.calls.get(str(b.get("toolUseID") or b.get("tool_use_id") or ""))
            text = _result_text(b)
            if not text.strip():
                return []
            piece = self.tools.result(call, text)
            run = b.get("run")
            status = run.get("status") if isinstance(run, dict) else None
            if status in ("cancelled", "canceled", "rejected", "denied"):
                # "user pressed esc": the person stopped the call before it ran
                piece = dataclasses.replace(piece, kind=f"{piece.kind} (refused)")
            elif status == "error":
                piece = dataclasses.replace(piece, kind=f"{piece.kind} (error)")
            return [piece]
        if kind == "image":
            return [pv.Piece("TOOL", "[image]", "attachment")]
        return []


def read_amp(path: str | os.PathLike[str], start: int, *, limit_bytes: int | None = None) -> Read:
    """Read an Amp thread from message index *start*."""
    return read_document(path, start, adapter="Amp", messages=_messages, reader=_Thread)


def sniff(head: Head) -> float:
    return 1.0 if is_thread(head.document) else 0.0


ROOTS = {
    "linux": ("~/.local/share/amp/threads",),
    "darwin": ("~/.local/share/amp/threads",),
    "win32": ("~/.local/share/amp/threads",),
}

ADAPTER = Adapter(
    name="amp",
    label="Amp",
    unit=UNIT,
    read=read_amp,
    sniff=sniff,
    roots=ROOTS,
    include=("**/T-*.json",),
    variants=("thread JSON",),
)
