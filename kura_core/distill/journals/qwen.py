"""Qwen Code chat recordings (``~/.qwen/projects/<project>/chats/<session id>.jsonl``), the
format of this Gemini CLI fork's sessions.

Append-only JSON Lines, byte watermark. Each record ``{type, subtype?, uuid, parentUuid,
sessionId, timestamp, cwd, message: {role, parts}}`` carries Gemini-style parts:

* ``user`` records are the person (USER; ``systemPayload.displayText``, what the prompt box
  showed, when present), after the contents of ``@file`` references (TOOL) and injected
  context blocks are cut out; newer versions label each record with a ``provenance``, and
  a user record whose provenance is not ``real_user`` is the CLI's (noted) -- and so is a
  slash command's expanded
  template, stored as a user record right after the command's ``invocation`` (before any
  ``result`` of the command itself or any answer) or with a ``subtype``: that is the
  command's text, not the person's (noted);
* ``system`` records with ``subtype: slash_command`` hold the command line the person
  typed (``/init``, ``/review 42``): USER; other system records (telemetry, attribution
  snapshots, compression) are noted;
* ``assistant`` text is SELF, thoughts skipped, ``functionCall`` parts ACT plus SELF for
  their prose;
* ``tool_result`` records -- role user, a ``functionResponse`` part -- are the tool's
  output: TOOL, or SELF by provenance.

In a subagent's transcript (``…/subagents/…``) the "user" is the parent agent: SELF.
"""

from __future__ import annotations

import os
import re
from pathlib import PurePath
from typing import Any

from ...shapes import dict_at, str_at
from . import provenance as pv, recognize as rc
from .base import IGNORED, Read
from .documents import read_records
from .gemini import _CONTEXT_TAGS, _REFERENCED, _response_text
from .hostwords import person_words
from .recognize import QWEN_TYPES as _TYPES
from .registry import Adapter, Head


class _Qwen:
    def __init__(self, path: str) -> None:
        self.session = ""
        self.subagent = "subagents" in PurePath(path).parts[:-1]
        self.calls: dict[str, pv.ToolCall] = {}
        self.prose: set[str] = set()
        #: a slash command was invoked and has not answered on its own: the next user
        #: record is its expanded template
        self.expanding = False
        #: the last command line read (a user record may repeat the system record's)
        self.last_command = ""

    def copy(self) -> _Qwen:
        c = _Qwen.__new__(_Qwen)
        c.session, c.subagent, c.expanding = self.session, self.subagent, self.expanding
        c.last_command = self.last_command
        c.calls, c.prose = dict(self.calls), set(self.prose)
        return c

    def stamp(self, obj: dict) -> str:
        return str_at(obj, "timestamp")

    def observe(self, obj: dict) -> None:
        self.pieces(obj, lambda *a, **k: None)

    def pieces(self, obj: dict, note: Any) -> list[pv.Piece] | None:
        rtype = obj.get("type")
        if rtype not in _TYPES:
            return None
        if isinstance(obj.get("sessionId"), str):
            self.session = obj["sessionId"]
        parts = dict_at(obj, "message").get("parts")
        parts = parts if isinstance(parts, list) else []
        if rtype == "system":
            return self._system(obj, note)
        if rtype == "assistant":
            self.expanding = False
            return self._assistant(parts)
        if rtype == "tool_result":
            return self._results(parts, obj)
        provenance = obj.get("provenance")
        if isinstance(provenance, str) and provenance not in _HUMAN_PROVENANCE:
            self.expanding = False
            note(f"put on the person's channel by the CLI ({_safe(provenance)})", IGNORED)
            return []
        typed = _command_line(parts)
        if typed and (obj.get("subtype") == "slash_command" or self.expanding):
            # the command line itself, as the person typed it (``/sp.tasks Break down …``)
            self.expanding = obj.get("subtype") != "slash_command" and self.expanding
            if typed == self.last_command:
                note("the command line the system record already gave", IGNORED)
                return []
            self.last_command = typed
            cls = "SELF" if self.subagent else "USER"
            return [pv.Piece(cls, typed, "slash command the person typed")]
        if obj.get("subtype") or (self.expanding and provenance is None):
            self.expanding = False
            note("a slash command's expanded template (not what the person typed)", IGNORED)
            return []
        self.expanding = False
        pieces = self._user(parts)
        shown = dict_at(obj, "systemPayload").get("displayText")
        if isinstance(shown, str) and shown.strip():  # what the person typed, as shown
            kept = [p for p in pieces if p.cls not in ("USER", "SELF") or p.kind != _SAID]
            who = "SELF" if self.subagent else "USER"
            return [pv.Piece(who, shown.strip(), _SAID), *kept]
        return pieces

    def _system(self, obj: dict, note: Any) -> list[pv.Piece]:
        payload = dict_at(obj, "systemPayload")
        if obj.get("subtype") == "slash_command" and payload.get("phase") not in (
            None,
            "invocation",
        ):
            self.expanding = False  # the command answered by itself: nothing was expanded
        if obj.get("subtype") == "slash_command" and payload.get("phase") in (None, "invocation"):
            self.expanding = True
            line = payload.get("rawCommand") or payload.get("command")
            if isinstance(line, str) and line.strip():
                self.last_command = line.strip()
                cls = "SELF" if self.subagent else "USER"
                return [pv.Piece(cls, line.strip(), "slash command the person typed")]
        note(f"system record ({_safe(obj.get('subtype'))})", IGNORED)
        return []

    def _user(self, parts: list) -> list[pv.Piece]:
        pieces: list[pv.Piece] = []
        said: list[str] = []
        for part in parts:
            if not isinstance(part, dict) or part.get("thought") is True:
                continue
            text = part.get("text")
            if isinstance(text, str):
                for m in _REFERENCED.finditer(text):
                    if m.group(1).strip():
                        pieces.append(pv.Piece("TOOL", m.group(1).strip(), "@-referenced files"))
                for m in _NOTIFICATION.finditer(text):  # a background agent's report
                    pieces.append(pv.Piece("SELF", m.group(0), "task notification"))
                text = _NOTIFICATION.sub("", text)
                rest = person_words(_CONTEXT_TAGS.sub("", _REFERENCED.sub("\n", text)))
                if rest:
                    said.append(rest)
            elif isinstance(part.get("functionResponse"), dict):
                pieces.extend(self._response(part["functionResponse"], {}))
            elif isinstance(part.get("inlineData"), dict):
                said.append("[image]")
        if said:
            cls = "SELF" if self.subagent else "USER"
            kind = _SAID
            pieces.insert(0, pv.Piece(cls, "\n".join(said), kind))
        return pieces

    def _assistant(self, parts: list) -> list[pv.Piece]:
        pieces: list[pv.Piece] = []
        texts = [
            p["text"]
            for p in parts
            if isinstance(p, dict)
            and isinstance(p.get("text"), str)
            and p.get("thought") is not True
        ]
        body = "\n".join(t for t in texts if t.strip()).strip()
        if body:
            pieces.append(pv.Piece("SELF", body, "assistant text"))
        for p in parts:
            fc = p.get("functionCall") if isinstance(p, dict) else None
            if isinstance(fc, dict):
                got, call = pv.decode_call(fc.get("name"), fc.get("args"))
                self.prose.update(call.prose_writes)
                if isinstance(fc.get("id"), str):
                    self.calls[fc["id"]] = call
                pieces.extend(got)
        return pieces

    def _results(self, parts: list, obj: dict) -> list[pv.Piece]:
        out: list[pv.Piece] = []
        for p in parts:
            fr = p.get("functionResponse") if isinstance(p, dict) else None
            if isinstance(fr, dict):
                out.extend(self._response(fr, dict_at(obj, "toolCallResult")))
        return out

    def _response(self, fr: dict, summary: dict) -> list[pv.Piece]:
        text = _response_text(fr.get("response")).strip()
        if not text and isinstance(summary.get("resultDisplay"), str):
            text = summary["resultDisplay"].strip()
        if not text:
            return []
        call = self.calls.get(str(fr.get("id") or summary.get("callId") or ""))
        if call is None and fr.get("name"):
            _, call = pv.decode_call(fr.get("name"), {})
        cls, kind = pv.result_class(call, self.prose)
        return [pv.Piece(cls, text, kind)]


_COMMAND = re.compile(r"/[A-Za-z][\w.:-]*(?:[ \t]|$)")


def _command_line(parts: list) -> str:
    """The text of a user record that is one slash command line (``/name args``), else ``""``."""
    texts = [p["text"] for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str)]
    text = "\n".join(texts).strip()
    return text if text and _COMMAND.match(text) else ""


_NOTIFICATION = re.compile(r"<task-notification>.*?(?:</task-notification>|\Z)", re.DOTALL)

#: ``provenance`` of a user record the person typed (newer versions label every record)
_HUMAN_PROVENANCE = {"real_user", "user", "human"}


_SAID = "user message"


def _safe(value: object) -> str:
    s = str(value)
    return s if s.replace("_", "").replace("-", "").isalnum() and len(s) < 40 else "?"


def read_qwen(path: str | os.PathLike[str], start: int, *, limit_bytes: int | None = None) -> Read:
    """Read a Qwen Code chat recording from byte *start*."""
    source = os.fspath(path)
    return read_records(
        path, start, limit_bytes, adapter="qwen", label="Qwen Code", reader=lambda: _Qwen(source)
    )


#: Where Qwen Code keeps chat recordings (``QWEN_HOME`` moves ``~/.qwen``).
ROOTS: dict[str, tuple[str, ...]] = {
    "linux": ("~/.qwen/projects",),
    "darwin": ("~/.qwen/projects",),
    "win32": ("~/.qwen/projects",),
}


# --------------------------------------------------------------------------- detection


def sniff(head: Head) -> float:
    """Qwen Code chat-recording records."""
    return head.share(lambda obj, _i: rc.is_qwen_record(obj))


ADAPTER = Adapter(
    name="qwen",
    label="Qwen Code",
    unit="byte",
    read=read_qwen,
    sniff=sniff,
    roots=ROOTS,
    include=("**/chats/*.jsonl", "**/chats/archive/*.jsonl"),
    variants=("chat recording",),
    windowed=True,
)
