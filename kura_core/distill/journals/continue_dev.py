"""Continue sessions (``~/.continue/sessions/<session id>.json``), and those of the forks that
keep the same shape: Kiro's IDE sessions, PearAI's ``~/.pearai/sessions``.

One JSON document per session, rewritten whole: ``{sessionId, title, workspaceDirectory,
history: [item]}``; the watermark is the index into ``history`` (``seq``). Each item holds
a ``message`` and what Continue built around it:

* ``message`` with role ``user`` is what the person typed (USER; an image part is
  ``[image]``); role ``assistant`` is SELF and its ``toolCalls`` ACT plus SELF for their
  prose; role ``tool`` is the tool's output (TOOL, or SELF by provenance); ``thinking``
  and ``system`` messages are not the person's and not evidence (skipped).
* ``contextItems`` (files, selections, search results attached to a message) and
  ``promptLogs`` (the full prompt sent, the completion received) are machine-built
  copies -- of files, and of the person's and the model's words -- so they are never
  read; ``toolCallState`` repeats the tool message.
"""

from __future__ import annotations

import os
from typing import Any

from ...shapes import dict_at, str_at
from . import provenance as pv, recognize as rc
from .base import Read
from .documents import content_text, read_document, stamp_of
from .recognize import is_continue_session as is_session
from .registry import Adapter, Head


class _Session:
    def __init__(self, obj: dict) -> None:
        self.session = str_at(obj, "sessionId")
        self.calls: dict[str, pv.ToolCall] = {}
        self.prose: set[str] = set()

    def stamp(self, item: Any) -> str:
        if not isinstance(item, dict):
            return ""
        msg = dict_at(item, "message")
        return stamp_of(msg.get("timestamp") or item.get("timestamp"))

    def unfinished(self, item: Any) -> bool:
        return False

    def why_empty(self, item: Any) -> str:
        role = dict_at(item, "message").get("role") if isinstance(item, dict) else None
        if role == "thinking":
            return "thinking (never evidence)"
        return f"{role if role in ('user', 'assistant', 'tool', 'system') else 'item'} without text"

    def pieces(self, item: Any, index: int) -> list[pv.Piece]:
        if not isinstance(item, dict):
            return []
        msg = dict_at(item, "message")
        role = msg.get("role")
        content = msg.get("content")
        if role == "user":
            return self._user(content)
        if role == "assistant":
            return self._assistant(msg)
        if role == "tool":
            text = content_text(content).strip()
            if not text:
                return []
            call = self.calls.get(str(msg.get("toolCallId") or ""))
            cls, kind = pv.result_class(call, self.prose)
            return [pv.Piece(cls, text, kind)]
        return []

    def _user(self, content: Any) -> list[pv.Piece]:
        text = content_text(content).strip()
        images = isinstance(content, list) and any(
            isinstance(p, dict) and p.get("type") in ("imageUrl", "image_url", "image")
            for p in content
        )
        if images:
            text = (text + "\n[image]").strip()
        return [pv.Piece("USER", text, "user message")] if text else []

    def _assistant(self, msg: dict) -> list[pv.Piece]:
        pieces: list[pv.Piece] = []
        text = content_text(msg.get("content")).strip()
        if text:
            pieces.append(pv.Piece("SELF", text, "assistant message"))
        for tc in msg.get("toolCalls") or []:
            if not isinstance(tc, dict):
                continue
            fn = dict_at(tc, "function")
            got, call = pv.decode_call(fn.get("name"), fn.get("arguments"))
            self.prose.update(call.prose_writes)
            if isinstance(tc.get("id"), str):
                self.calls[tc["id"]] = call
            pieces.extend(got)
        return pieces


def read_continue(
    path: str | os.PathLike[str], start: int, *, limit_bytes: int | None = None
) -> Read:
    """Read a Continue session from history index *start*."""
    return read_document(
        path,
        start,
        adapter="Continue",
        messages=lambda obj: obj["history"] if is_session(obj) else None,
        reader=_Session,
    )


#: Where Continue keeps its sessions (the same on every system; ``CONTINUE_GLOBAL_DIR``
#: moves it).
ROOTS: dict[str, tuple[str, ...]] = {
    "linux": ("~/.continue/sessions", "~/.pearai/sessions"),
    "darwin": ("~/.continue/sessions", "~/.pearai/sessions"),
    "win32": ("~/.continue/sessions", "~/.pearai/sessions"),
}


# --------------------------------------------------------------------------- detection


def sniff(head: Head) -> float:
    """A Continue session document (its history items)."""
    return 1.0 if rc.is_continue_session(head.document) else 0.0


ADAPTER = Adapter(
    name="continue",
    label="Continue",
    unit="seq",
    read=read_continue,
    sniff=sniff,
    roots=ROOTS,
    include=("*-*.json",),  # session ids; sessions.json beside them is the index
    variants=("session document",),
)
