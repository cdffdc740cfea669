"""Gemini CLI chats (``~/.gemini/tmp/<project hash>/chats/session-*.json`` / ``.jsonl``).

Two forms, one adapter, one watermark unit (``seq``):

* the saved chat: one JSON object ``{sessionId, projectHash, messages: […]}`` rewritten
  whole on every change -- the watermark is the message index;
* the JSON Lines stream newer versions append: a metadata line, one line per message
  (a message is appended again, whole, each time it changes, e.g. when its tool calls
  finish), ``{"$set": …}`` metadata updates and ``{"$rewindTo": id}`` markers -- the
  watermark is the line index, and a message appended again yields only what it did not
  yield before.

Message types: ``user`` is the person (USER) -- after the contents of ``@file`` references
(TOOL: file text) and injected context blocks are cut out, preferring ``displayContent``
(what the person typed) when present; in a subagent's chat (``kind: subagent``) the "user"
is the parent model (SELF). ``gemini`` text is SELF, its thoughts are skipped, its tool
calls are ACT plus SELF for the prose in them, their results TOOL or SELF by provenance
(``web_fetch`` and ``google_web_search`` results are a model's prose). ``info``,
``warning`` and ``error`` are the CLI's own notices (TOOL).

The last message of a saved chat is held back (a ``held`` note) while any of its tool
calls is still running, so its results are never missed -- until the file has been quiet
for :data:`~.base.HOLD_SECONDS` (the CLI died mid-call): then it is read as it stands.
"""

from __future__ import annotations

import json
import os
import re
import time
from typing import Any

from ...shapes import dict_at, str_at
from . import provenance as pv, recognize as rc
from .base import (
    HOLD_SECONDS,
    IGNORED,
    REPAIRED,
    SKIPPED,
    Intake,
    Read,
    decode_bytes,
    decode_line,
    encoding_problem,
    refused,
    scrub,
)
from .documents import classed_result, decode_noted, typed_piece
from .hostwords import person_words
from .registry import Adapter, Head

UNIT = "seq"
#: the role this agent's records give the person (its format's word, not provenance)
_USER_ROLE = "user"
_REFERENCED_OPEN = "--- Content from referenced files ---"
_REFERENCED = re.compile(
    r"\n?--- Content from referenced files ---\n?(.*?)(?:\n?--- End of content ---\n?|\Z)",
    re.DOTALL,
)
_CONTEXT_TAGS = re.compile(
    r"<(session_context|hook_context|project_context|system-reminder|loop_protection|"
    r"environment_context|user_instructions)(?:\s[^<>]*)?>.*?(?:</\1>|\Z)",
    re.DOTALL,
)
#: Gemini Code Assist (VS Code) appends the editor's state to what the person typed.
_EDITOR = re.compile(
    r"^(?:Current File Path|Current Selection|User Selected Files|Current File Content|"
    r"Selected Code|Open Files):",
    re.MULTILINE,
)


def _split_editor_context(text: str) -> tuple[str, str]:
    """``(typed, appended)``: the text before the first editor-context label, and the rest."""
    m = _EDITOR.search(text)
    if m is None:
        return text, ""
    return text[: m.start()].strip(), text[m.start() :].strip()


_TERMINAL = {"success", "error", "cancelled", "canceled", "completed", "failed", "errored"}
_SETUP = "This is the Gemini CLI. We are setting up the context for our chat."


def _parts_text(content: Any) -> tuple[list[str], list[tuple[str, Any]]]:
    """Text parts and function responses of a ``PartListUnion``."""
    texts: list[str] = []
    responses: list[tuple[str, Any]] = []
    items = content if isinstance(content, list) else [content]
    for p in items:
        if isinstance(p, str):
            texts.append(p)
        elif isinstance(p, dict):
            if p.get("thought") is True:
                continue
            if isinstance(p.get("text"), str):
                texts.append(p["text"])
            elif isinstance(p.get("functionResponse"), dict):
                fr = p["functionResponse"]
                responses.append((str(fr.get("name") or ""), fr.get("response")))
            elif isinstance(p.get("inlineData"), dict) or isinstance(p.get("fileData"), dict):
                data = dict_at(p, "inlineData") or dict_at(p, "fileData")
                mime = str(data.get("mimeType") or "")
                texts.append("[image]" if mime.startswith("image/") else "[file]")
    return texts, responses


def _response_text(resp: Any) -> str:
    if isinstance(resp, str):
        return resp
    if isinstance(resp, dict):
        for key in ("output", "llmContent", "content", "result", "error"):
            v = resp.get(key)
            if isinstance(v, str) and v.strip():
                return v
            if isinstance(v, (list, dict)):
                t = _response_text(v)
                if t:
                    return t
        return ""
    if isinstance(resp, list):
        out = []
        for x in resp:
            if isinstance(x, dict) and isinstance(x.get("functionResponse"), dict):
                out.append(_response_text(x["functionResponse"].get("response")))
            elif isinstance(x, dict) and isinstance(x.get("text"), str):
                out.append(x["text"])
            else:
                out.append(_response_text(x))
        return "\n".join(t for t in out if t)
    return ""


def message_pieces(msg: dict, *, subagent: bool, prose: set[str]) -> list[pv.Piece]:
    mtype = msg.get("type")
    if mtype == _USER_ROLE:
        return _user_pieces(msg, subagent=subagent, prose=prose)
    if mtype in ("gemini", "model", "assistant"):
        return _model_pieces(msg, prose)
    if mtype in ("info", "warning", "error"):
        texts, _ = _parts_text(msg.get("content"))
        body = "\n".join(texts).strip()
        if body:
            return [pv.Piece("TOOL", body, f"Gemini CLI {mtype} notice")]
    return []


def _user_pieces(msg: dict, *, subagent: bool, prose: set[str]) -> list[pv.Piece]:
    """A user message: the person's words (or the parent agent's), files it @-referenced,
    and tool responses it carries."""
    pieces: list[pv.Piece] = []
    content = (
        msg.get("displayContent")
        if msg.get("displayContent") not in (None, "", [])
        else msg.get("content")
    )
    texts, responses = _parts_text(content)
    said: list[str] = []
    # the files an @ brought in stand in the content sent to the model, not in what the
    # person saw typed (displayContent): read them there
    sent = _parts_text(msg.get("content"))[0] if content is not msg.get("content") else texts
    # the CLI sends the block as parts of their own (its opening line, each file's name,
    # each file's text, its closing line): read them as the one text they make
    for m in _REFERENCED.finditer("".join(sent)):
        if m.group(1).strip():
            pieces.append(pv.Piece("TOOL", m.group(1).strip(), "contents of @-referenced files"))
    if len(texts) > 1 and any(_REFERENCED_OPEN in t for t in texts):
        texts = ["".join(texts)]  # the person's words and the block's parts, as sent
    for t in texts:
        rest = person_words(_CONTEXT_TAGS.sub("", _REFERENCED.sub("\n", t)))
        rest, editor = _split_editor_context(rest)
        if editor:
            pieces.append(pv.Piece("TOOL", editor, "editor context the IDE appended"))
        if rest and not rest.startswith(_SETUP):
            said.append(rest)
    if said:
        pieces.append(typed_piece("\n".join(said), child=subagent))
    for name, resp in responses:
        text = _response_text(resp).strip()
        if text:
            _, call = pv.decode_call(name, {})
            pieces.append(classed_result(call, text, prose))
    return pieces


def _model_pieces(msg: dict, prose: set[str]) -> list[pv.Piece]:
    """A model message: its text, and each tool call with its result."""
    pieces: list[pv.Piece] = []
    texts, _ = _parts_text(msg.get("content"))
    body = "\n".join(t for t in texts if t.strip()).strip()
    if body:
        pieces.append(pv.Piece("SELF", body, "assistant text"))
    for tc in msg.get("toolCalls") or []:
        if not isinstance(tc, dict):
            continue
        got, call = decode_noted(tc.get("name"), tc.get("args"), prose)
        pieces.extend(got)
        result = tc.get("result")
        text = _response_text(result).strip() if result is not None else ""
        if not text and isinstance(tc.get("resultDisplay"), str):
            text = tc["resultDisplay"].strip()
        status = str(tc.get("status") or "").lower()
        undone = status in ("error", "cancelled", "canceled")
        if not text and undone:
            text = status  # a call that never ran has its status for a result
        if text:
            cls, kind = pv.result_class(call, prose)
            if undone:
                kind += " (error)"
            pieces.append(pv.Piece(cls, text, kind))
    return pieces


def _pending(msg: dict) -> bool:
    calls = msg.get("toolCalls") if isinstance(msg, dict) else None
    return isinstance(calls, list) and any(
        isinstance(tc, dict) and str(tc.get("status") or "").lower() not in _TERMINAL
        for tc in calls
    )


def _load_document(path: str | os.PathLike[str]) -> tuple[dict | None, str, bool]:
    with open(path, "rb") as fh:
        data = fh.read()
    text, repaired = decode_bytes(data)
    text = text.lstrip("\ufeff")
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError):
        return None, "the chat is not complete JSON (being rewritten?): read again later", repaired
    if not isinstance(obj, dict):
        return None, "not a Gemini CLI chat (no messages)", repaired
    obj, changed = scrub(obj)
    return obj, "", repaired or changed


def is_stream(path: str | os.PathLike[str]) -> bool:
    """True for the JSON Lines form: the first line is a complete JSON object that is not
    a whole saved chat on one line."""
    first, more = b"", False
    with open(path, "rb") as fh:
        for raw in fh:
            if raw.strip():
                if first:
                    more = True
                    break
                first = raw
    s = first.strip().lstrip(b"\xef\xbb\xbf")
    if not s.startswith(b"{"):
        return False
    try:
        obj = json.loads(s)
    except (ValueError, RecursionError):
        return False
    if not isinstance(obj, dict):
        return False
    return not (isinstance(obj.get("messages"), list) and not more)


def read_gemini(
    path: str | os.PathLike[str],
    start: int,
    *,
    limit_bytes: int | None = None,
    now: float | None = None,
) -> Read:
    """Read a Gemini CLI chat from message (saved chat) or line (stream) number *start*.

    *now* is the clock (seconds since the epoch) that decides whether a last message with
    tool calls still running has been quiet long enough to be read as it stands."""
    source = str(path)
    problem = encoding_problem(path)
    if problem:
        return refused(UNIT, start, problem)
    if os.path.getsize(path) == 0:
        return Intake(source, UNIT).result(start, start)
    from . import gemini_more
    from .recognize import gemini_document_kind, is_gemini_stream_json

    kind = gemini_document_kind(path)
    if kind == "logs":
        return gemini_more.read_logs(path, start)
    if kind == "checkpoint":
        return gemini_more.read_checkpoint(path, start, message_pieces)
    if is_gemini_stream_json(path):
        return gemini_more.read_stream_json(path, start, message_pieces)
    if is_stream(path):
        return _read_stream(path, start)
    return _read_document(path, start, now)


def _read_document(path: str | os.PathLike[str], start: int, now: float | None) -> Read:
    source = str(path)
    intake = Intake(source, UNIT)
    intake.variant = "saved chat (JSON)"
    obj, why, repaired = _load_document(path)
    if obj is None:
        if why.startswith("not a"):
            intake.note(start, start, why)
        else:
            intake.hold(start, start + 1, why)
        return intake.result(start, start)
    messages = obj.get("messages")
    if not isinstance(messages, list):
        return refused(
            UNIT, start, f"{os.path.basename(source)} is not a Gemini CLI chat (no messages list)"
        )
    if repaired:
        intake.note(0, len(messages), "invalid text replaced (kept)", REPAIRED)
    if start > len(messages):
        intake.note(start, start, "journal shorter than watermark")
        return intake.result(start, start)
    session = str_at(obj, "sessionId")
    subagent = obj.get("kind") == "subagent"
    prose: set[str] = set()
    for msg in messages[:start]:  # what the agent wrote earlier counts
        if isinstance(msg, dict):
            message_pieces(msg, subagent=subagent, prose=prose)
    end = len(messages)
    quiet = time.time() if now is None else now
    if (
        end > start
        and isinstance(messages[-1], dict)
        and _pending(messages[-1])
        and quiet - os.path.getmtime(path) < HOLD_SECONDS
    ):
        end -= 1  # tool calls still running: their results are not written yet
        intake.hold(end, end + 1, "still being written (a tool call is still running)")
    for i in range(start, end):
        msg = messages[i]
        intake.begin(i, i + 1)
        if not isinstance(msg, dict):
            intake.note(i, i + 1, "not an object")
            continue
        pieces = message_pieces(msg, subagent=subagent, prose=prose)
        if not pieces:
            intake.note(i, i + 1, _why_empty(msg), IGNORED)
        stamp = str_at(msg, "timestamp")
        for p in pieces:
            intake.add(p.cls, p.text, i, i + 1, session=session, stamp=stamp, kind=p.kind)
    return intake.result(start, max(end, start))


def _why_empty(msg: dict) -> str:
    t = msg.get("type")
    if t in ("gemini", "model"):
        return "thoughts only (never evidence)"
    return f"{t if isinstance(t, str) and len(t) < 30 else 'unknown'} message with no text"


def _read_stream(path: str | os.PathLike[str], start: int) -> Read:
    source = str(path)
    with open(path, "rb") as fh:
        data = fh.read()
    cut = data.rfind(b"\n")
    lines = data[:cut].split(b"\n") if cut >= 0 else []
    if start > len(lines):
        intake = Intake(source, UNIT)
        intake.note(start, start, "journal shorter than watermark")
        return intake.result(start, start)
    stream = _Stream(Intake(source, UNIT))
    stream.intake.variant = "chat recording (JSON Lines)"
    for seq, raw in enumerate(lines):
        if raw.strip():
            stream.line(seq, raw, emit=seq >= start)
    if stream.seen and stream.foreign == stream.seen:
        return refused(UNIT, start, f"{os.path.basename(source)} is not a Gemini CLI chat")
    return stream.intake.result(start, len(lines))


def _patched(latest: dict[str, dict], patch: dict) -> dict:
    """The message a ``$patch`` record updates, with the patch applied: fields replaced,
    tool calls merged by id."""
    base = dict(latest.get(str(patch.get("id")), {}))
    for key, value in patch.items():
        old = base.get(key)
        if key == "toolCalls" and isinstance(old, list) and isinstance(value, list):
            by_id = {str(c.get("id")): c for c in value if isinstance(c, dict)}
            merged = [{**c, **by_id.pop(str(c.get("id")), {})} for c in old if isinstance(c, dict)]
            base[key] = merged + list(by_id.values())
        else:
            base[key] = value
    return base


class _Stream:
    """The state of reading a streamed chat line by line: the session, whether it is a
    subagent's, and what each message already gave (a message is re-recorded as it grows).
    Lines before the watermark are read for that state only (*emit* false)."""

    def __init__(self, intake: Intake) -> None:
        self.intake = intake
        self.session = ""
        self.subagent = False
        self.emitted: dict[str, set[tuple[str, str]]] = {}
        #: the last recording of each message, which a ``$patch`` record updates
        self.latest: dict[str, dict] = {}
        self.prose: set[str] = set()
        self.foreign = self.seen = 0

    def note(self, seq: int, emit: bool, reason: str, kind: str = SKIPPED) -> None:
        if emit:
            self.intake.note(seq, seq + 1, reason, kind)

    def line(self, seq: int, raw: bytes, *, emit: bool) -> None:
        if emit:
            self.intake.begin(seq, seq + 1)
            self.seen += 1
        obj = self._parse(seq, raw, emit)
        if obj is not None:
            self._record(obj, seq, emit)

    def _parse(self, seq: int, raw: bytes, emit: bool) -> dict | None:
        line = decode_line(raw, first=seq == 0)
        for reason, kind in line.problems:
            self.note(seq, emit, reason, kind)
        return line.obj

    def _record(self, obj: dict, seq: int, emit: bool) -> None:
        if "$rewindTo" in obj:
            self.note(seq, emit, "rewind marker (what came before stays evidence)", IGNORED)
        elif isinstance(obj.get("$patch"), dict):  # newer CLIs patch a recorded message
            got = self._message(_patched(self.latest, obj["$patch"]), seq, emit)
            if got == 0:
                self.note(seq, emit, "patch to a recorded message (nothing new in it)", IGNORED)
        elif isinstance(obj.get("$set"), dict):
            upd = obj["$set"]
            if upd.get("kind") == "subagent":
                self.subagent = True
            if isinstance(upd.get("sessionId"), str):
                self.session = upd["sessionId"]
            if not self._messages(upd, seq, emit):
                self.note(seq, emit, "metadata update", IGNORED)
        elif isinstance(obj.get("sessionId"), str) and "projectHash" in obj and "type" not in obj:
            self.session = obj["sessionId"]
            self.subagent = obj.get("kind") == "subagent" or self.subagent
            self._messages(obj, seq, emit)
            self.note(seq, emit, "session metadata", IGNORED)
        elif "id" in obj and isinstance(obj.get("type"), str):
            if self._message(obj, seq, emit) == 0:
                self.note(
                    seq,
                    emit,
                    "message already read (re-recorded unchanged) or without text",
                    IGNORED,
                )
        elif emit:
            self.foreign += 1
            self.intake.note(seq, seq + 1, "not a Gemini CLI record")

    def _messages(self, holder: dict, seq: int, emit: bool) -> int:
        """Read the messages a metadata record carries; how many new pieces they gave."""
        return sum(
            self._message(m, seq, emit)
            for m in holder.get("messages") or []
            if isinstance(m, dict) and "id" in m
        )

    def _message(self, msg: dict, seq: int, emit: bool) -> int:
        """Add what *msg* says that its earlier recordings did not; how many pieces that is."""
        self.latest[str(msg.get("id"))] = msg
        got = message_pieces(msg, subagent=self.subagent, prose=self.prose)
        done = self.emitted.setdefault(str(msg.get("id")), set())
        fresh = [p for p in got if (p.cls, p.text) not in done]
        done.update((p.cls, p.text) for p in got)
        if emit:
            stamp = str_at(msg, "timestamp")
            for p in fresh:
                self.intake.add(
                    p.cls, p.text, seq, seq + 1, session=self.session, stamp=stamp, kind=p.kind
                )
        return len(fresh)


# --------------------------------------------------------------------------- detection

_MESSAGE_TYPES = {"user", "gemini", "info", "error", "warning"}


def _claims(obj: dict, _index: int) -> bool:
    if rc.is_gemini_event(obj):
        return True
    if (
        "$rewindTo" in obj
        or isinstance(obj.get("$set"), dict)
        or ("sessionId" in obj and "projectHash" in obj)
    ):
        return True
    t = obj.get("type")
    return (
        isinstance(t, str)
        and t in _MESSAGE_TYPES
        and "id" in obj
        and "content" in obj
        and "message" not in obj
        and "uuid" not in obj
    )


def sniff(head: Head) -> float:
    """A saved chat (``messages`` + ``sessionId``) or a chat recording's JSON Lines."""
    doc = head.document
    if rc.is_gemini_logs(doc) or rc.is_gemini_checkpoint(doc):
        return 1.0
    if (
        isinstance(doc, dict)
        and isinstance(doc.get("messages"), list)
        and ("sessionId" in doc or "projectHash" in doc)
    ):
        return 1.0
    return head.share(_claims)


ADAPTER = Adapter(
    name="gemini",
    label="Gemini CLI",
    unit=UNIT,
    read=read_gemini,
    sniff=sniff,
    roots={os_: ("~/.gemini/tmp",) for os_ in ("linux", "darwin", "win32")},
    include=("**/session-*.json", "**/session-*.jsonl"),
    variants=(
        "saved chat (JSON)",
        "chat recording (JSON Lines)",
        "--output-format stream-json",
        "logs.json",
        "checkpoint",
    ),
)
