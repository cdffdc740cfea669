"""OpenAI Codex CLI rollouts (``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``).

Append-only JSON Lines: byte-offset watermarks. Current files wrap every record as
``{"timestamp", "type", "payload"}``; the earliest ones had a bare header line and bare
response items. The schema drifts between CLI versions, so records are matched on the
fields they carry and anything unknown is listed, never guessed at.

* The person is the ``event_msg`` ``user_message`` (USER). User-role ``response_item``
  messages are what the model was sent -- the same words plus injected environment and
  AGENTS.md text -- so they are skipped (in the old bare format, which has no events,
  their text minus the injected blocks is USER). A shell command the person ran from the
  prompt (``<user_shell_command>``) is ACT, its output TOOL.
* Assistant messages are SELF; reasoning is skipped; ``agent_message`` events mirror the
  assistant messages and are skipped.
* ``function_call`` / ``custom_tool_call`` / ``local_shell_call`` / ``web_search_call`` are
  ACT plus SELF for the prose inside them (:mod:`.provenance`, ``apply_patch`` decoded per
  file); their outputs are TOOL, or SELF when a model wrote them or they only repeat the
  agent (subagent answers, ``echo``).
* A compaction summary is SELF. In a subagent's rollout (``session_meta.source`` names a
  subagent) the "user" is the parent model: SELF.
* ``session_meta``, ``turn_context``, token counts and other events are listed as ignored.
"""

from __future__ import annotations

import functools
import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...shapes import dict_at
from ...vocabulary import ProvenanceClass
from . import provenance as pv, recognize as rc
from .base import IGNORED, Intake, Read, between, safe_label
from .documents import merge_runs, read_with_context, text_parts, typed_piece
from .hostwords import command_template
from .recognize import is_codex_history as is_history_entry
from .registry import Adapter, Head

UNIT = "byte"
#: content items that are images (``[image]`` in the text)
_IMAGES = ("input_image", "image")

_INJECTED = re.compile(
    r"<(environment_context|user_instructions|INSTRUCTIONS|turn_aborted|subagent_notification|"
    r"developer_context|system_context|file_context|collaboration_mode|skill)"
    r"(?:\s[^<>]*)?>.*?(?:</\1>|\Z)",
    re.DOTALL,
)
_AGENTS_MD = re.compile(r"^# AGENTS\.md instructions for [^\n]*\n", re.MULTILINE)
_SHELL_OPEN, _SHELL_CLOSE = "<user_shell_command>", "</user_shell_command>"
_IMAGE_TAG = re.compile(r"</?image(?:\s[^<>]*)?>", re.IGNORECASE)


#: how many recent messages a context keeps for telling a mirror from a new message
_SAID_KEPT = 64


@dataclass
class CodexContext:
    tools: dict[str, pv.ToolCall] = field(default_factory=dict)
    prose: set[str] = field(default_factory=set)
    session: str = ""
    subagent: bool = False
    cwd: str = ""
    enveloped: bool = False
    #: what this turn already said, by channel: ``(channel, class, text)``; a message that
    #: one channel repeats from the other (an ``item_completed`` item mirroring a
    #: ``user_message`` event or an assistant response item) is read once
    said: dict[tuple[str, str, str], None] = field(default_factory=dict)

    def copy(self) -> CodexContext:
        return CodexContext(
            dict(self.tools),
            set(self.prose),
            self.session,
            self.subagent,
            self.cwd,
            self.enveloped,
            dict(self.said),
        )

    def fresh(self, channel: str, cls: str, text: str) -> bool:
        """Record that *channel* said *text*; False when the other channel already did."""
        other = "item" if channel != "item" else "record"
        key = text.strip()
        self.said[(channel, cls, key)] = None
        if len(self.said) > _SAID_KEPT:  # versions without turn events never clear it
            del self.said[next(iter(self.said))]
        return (other, cls, key) not in self.said


def _unwrap(obj: dict) -> tuple[str, dict | None, bool]:
    """``(record type, payload, enveloped)`` for either file format."""
    t = obj.get("type")
    payload = obj.get("payload")
    if isinstance(t, str) and isinstance(payload, dict):
        return t, payload, True
    if isinstance(t, str) and t in _ITEM_TYPES:
        return "response_item", obj, False
    if t is None and "record_type" in obj:
        return "state", None, False
    if is_history_entry(obj):
        return "history", obj, False
    if (
        t is None
        and isinstance(obj.get("id"), str)
        and ("instructions" in obj or "git" in obj or "timestamp" in obj)
    ):
        return "session_meta", obj, False
    return str(t) if isinstance(t, str) else "", None, False


_ITEM_TYPES = {
    "message",
    "reasoning",
    "function_call",
    "function_call_output",
    "custom_tool_call",
    "custom_tool_call_output",
    "local_shell_call",
    "web_search_call",
    "tool_search_call",
    "tool_search_output",
}


def _observe(ctx: CodexContext, obj: dict, _offset: int) -> None:
    rtype, payload, enveloped = _unwrap(obj)
    ctx.enveloped = ctx.enveloped or enveloped
    if payload is None:
        return
    if rtype == "session_meta":
        _meta(ctx, payload)
    elif rtype == "turn_context":
        if isinstance(payload.get("cwd"), str):
            ctx.cwd = payload["cwd"]
    elif rtype == "response_item":
        _call(ctx, payload)
        if payload.get("type") == "message" and payload.get("role") == "assistant":
            ctx.fresh("record", "SELF", text_parts(payload.get("content"), images=_IMAGES)[0])
    elif rtype == "event_msg":
        _observe_event(ctx, payload)


def _observe_event(ctx: CodexContext, payload: dict) -> None:
    et = payload.get("type")
    if et == "task_started":
        ctx.said.clear()
    elif et == "user_message" and isinstance(payload.get("message"), str):
        ctx.fresh("record", "USER", payload["message"])
    elif et == "item_completed":
        item = dict_at(payload, "item")
        kind = _ITEM_KINDS.get(str(item.get("type")))
        if kind is not None:
            ctx.fresh("item", kind, _item_text(item))


#: ``item_completed`` items that carry words: the person's (``UserMessage``, current CLI)
#: and the agent's (``AgentMessage``, mirrored by an assistant response item).
_ITEM_KINDS = {"UserMessage": "USER", "userMessage": "USER", "AgentMessage": "SELF"}
_ITEM_KINDS["agentMessage"] = "SELF"


def _item_text(item: dict) -> str:
    content = item.get("content")
    if content is None:
        content = item.get("text")
    text, _ = text_parts(content, images=_IMAGES)
    return text


def _meta(ctx: CodexContext, payload: dict) -> None:
    found = payload.get("meta")
    meta: dict = found if isinstance(found, dict) else payload
    if isinstance(meta.get("id"), str) and not ctx.session:
        ctx.session = meta["id"]
    if isinstance(meta.get("cwd"), str):
        ctx.cwd = meta["cwd"]
    source = meta.get("source")
    if (
        isinstance(source, dict)
        and any("agent" in str(k).lower() for k in source)
        or isinstance(source, str)
        and "subagent" in source.lower()
    ):
        ctx.subagent = True


def _call(ctx: CodexContext, item: dict) -> list[pv.Piece]:
    t = item.get("type")
    call_id = item.get("call_id") or item.get("id")
    pieces: list[pv.Piece] = []
    call: pv.ToolCall | None = None
    if t == "function_call":
        pieces, call = pv.decode_call(item.get("name"), item.get("arguments"), cwd=ctx.cwd)
    elif t == "custom_tool_call":
        pieces, call = pv.decode_call(item.get("name"), item.get("input"), cwd=ctx.cwd)
    elif t == "local_shell_call":
        action = dict_at(item, "action")
        args = {"command": action.get("command")}
        if isinstance(action.get("working_directory"), str):
            args["workdir"] = action["working_directory"]
        pieces, call = pv.decode_call("local_shell", args, cwd=ctx.cwd)
    elif t == "web_search_call":
        action = dict_at(item, "action")
        query = action.get("query") or action.get("url") or ""
        if isinstance(query, str) and query:
            pieces = [pv.Piece("ACT", f"web_search: {query}", "tool_use web_search")]
        call = pv.ToolCall("web_search", pv.WEBSEARCH, True)
    if call is not None:
        if isinstance(call_id, str):
            ctx.tools[call_id] = call
        ctx.prose.update(call.prose_writes)
    return pieces


def _output_text(output: Any) -> str:
    """A tool output as the model saw it (the JSON envelope some versions write, a list
    of content items, or plain text)."""
    if isinstance(output, list):
        parts = []
        for item in output:
            if isinstance(item, dict):
                if isinstance(item.get("text"), str):
                    parts.append(item["text"])
                elif item.get("type") in ("input_image", "image"):
                    parts.append("[image]")
            elif isinstance(item, str):
                parts.append(item)
        return "\n".join(parts)
    if isinstance(output, dict):
        inner = output.get("content") or output.get("output") or output.get("text")
        return _output_text(inner) if inner is not None else ""
    if not isinstance(output, str):
        return ""
    s = output.strip()
    if s.startswith("{") and '"output"' in s:
        try:
            env = json.loads(s)
        except (ValueError, RecursionError):
            return output
        if isinstance(env, dict) and isinstance(env.get("output"), str):
            return env["output"]
    return output


def _shell_blocks(text: str) -> list[tuple[int, int, str]]:
    """``(start, end, body)`` of each ``<user_shell_command>`` block: each ends at the first
    closer after its opener; an opener with no closer after it ends the search (no later
    one has one), so an unclosed tag costs one pass, not one per tag."""
    out = []
    pos = 0
    while (a := text.find(_SHELL_OPEN, pos)) >= 0:
        b = text.find(_SHELL_CLOSE, a + len(_SHELL_OPEN))
        if b < 0:
            break
        pos = b + len(_SHELL_CLOSE)
        out.append((a, pos, text[a + len(_SHELL_OPEN) : b]))
    return out


_IDE_REQUEST = "## My request for Codex:"


#: the kind of a slash command's template (the event carries it; its mirror is only noted)
_TEMPLATE_KIND = "a slash command's expanded template"


def _user_pieces(text: str, cls: str) -> list[pv.Piece]:
    out: list[pv.Piece] = []
    template = command_template(text)
    if template is not None:  # a slash command the host expanded: only its arguments
        text = template[0]
        out.append(pv.Piece("TOOL", template[1], _TEMPLATE_KIND))
    if _IDE_REQUEST in text:  # the IDE extension's context block, then what was typed
        ide, _, text = text.rpartition(_IDE_REQUEST)
        if ide.strip():
            out.append(pv.Piece("TOOL", ide.strip(), "context the IDE sent with the message"))
    blocks = _shell_blocks(text)
    for _, _, body in blocks:
        cmd = between(body, "<command>", "</command>")
        res = between(body, "<result>", "</result>")
        if cmd and cmd.strip():
            out.append(pv.Piece("ACT", "shell: " + cmd.strip(), "shell command the person ran"))
        if res and res.strip():
            out.append(pv.Piece("TOOL", res.strip(), "output of the person's shell command"))
    kept, pos = [], 0
    for start, end, _ in blocks:
        kept.append(text[pos:start])
        pos = end
    rest = "".join(kept) + text[pos:]
    rest = _INJECTED.sub("", rest)
    if _AGENTS_MD.search(rest):
        rest = ""  # AGENTS.md text sent on the person's channel
    rest = _IMAGE_TAG.sub("", rest).strip()
    if rest:  # *cls* is SELF in a subagent's rollout: the parent agent typed it
        out.insert(0, typed_piece(rest, child=cls != ProvenanceClass.USER))
    return out


_IGNORED_EVENTS = {
    "agent_message": "mirror of an assistant message",
    "agent_reasoning": "reasoning (never evidence)",
    "agent_reasoning_raw_content": "reasoning (never evidence)",
    "agent_reasoning_section_break": "reasoning (never evidence)",
    "token_count": "token count",
}


#: records a note about the record being read: (reason, kind)
Noter = Callable[..., None]


def record_pieces(
    obj: dict, ctx: CodexContext, intake: Intake, start: int, end: int
) -> list[pv.Piece]:
    note: Noter = functools.partial(intake.note, start, end)
    rtype, payload, enveloped = _unwrap(obj)
    ctx.enveloped = ctx.enveloped or enveloped
    if payload is None:
        if rtype == "state":
            note("state record", IGNORED)
        else:
            note("not a Codex record")
        return []
    cls_user = "SELF" if ctx.subagent else "USER"
    if rtype == "session_meta":
        _meta(ctx, payload)
        note("session metadata (carries injected instructions)", IGNORED)
        return []
    if rtype == "turn_context":
        if isinstance(payload.get("cwd"), str):
            ctx.cwd = payload["cwd"]
        note("turn context", IGNORED)
        return []
    if rtype == "history":
        ctx.session = payload["session_id"]
        return [pv.Piece("USER", payload["text"], "prompt the person submitted (history.jsonl)")]
    if rtype == "compacted":
        msg = payload.get("message")
        if isinstance(msg, str) and msg.strip():
            return [pv.Piece("SELF", msg, "compaction summary (written by a model)")]
        note("compaction marker", IGNORED)
        return []
    if rtype == "event_msg":
        if payload.get("type") == "task_started":
            ctx.said.clear()
        if payload.get("type") == "item_completed":
            return _item_pieces(payload, ctx, cls_user, note)
        pieces = _event_pieces(payload, cls_user, note)
        message = payload.get("message")
        if pieces and isinstance(message, str) and not ctx.fresh("record", "USER", message):
            note("the person's message, already read from its item record", IGNORED)
            return []
        return pieces
    if rtype != "response_item":
        note(f"Codex record of an unknown type ({safe_label(rtype)})", IGNORED)
        return []
    return _response_pieces(payload, ctx, cls_user, note)


def _event_pieces(payload: dict, cls_user: str, note: Noter) -> list[pv.Piece]:
    """An event: only a plain user message is the person's words; the rest is noted."""
    et = payload.get("type")
    if et != "user_message":
        note(_IGNORED_EVENTS.get(str(et), f"event ({safe_label(et)})"), IGNORED)
        return []
    kind = payload.get("kind")
    if kind not in (None, "plain"):
        note(f"injected context ({safe_label(kind)})", IGNORED)
        return []
    msg = payload.get("message")
    pieces = _user_pieces(msg, cls_user) if isinstance(msg, str) else []
    images = payload.get("images") or payload.get("local_images")
    if isinstance(images, list) and images:
        pieces.append(pv.Piece(cls_user, "[image]", "image"))
    if not pieces:
        note("empty user message", IGNORED)
    return _merge(pieces)


def _item_pieces(payload: dict, ctx: CodexContext, cls_user: str, note: Noter) -> list[pv.Piece]:
    """A finished item (current CLI): ``UserMessage`` is the person's words -- there is no
    ``user_message`` event any more -- and ``AgentMessage`` the agent's; other items
    (tool calls, reasoning, plans) mirror response items and are noted."""
    item = dict_at(payload, "item")
    itype = str(item.get("type") or "")
    kind = _ITEM_KINDS.get(itype)
    if kind is None:
        note(f"item event ({safe_label(itype)}), mirrored by response items", IGNORED)
        return []
    text = _item_text(item)
    if not ctx.fresh("item", kind, text):
        note(f"{safe_label(itype)} already read from its mirror record", IGNORED)
        return []
    if kind == ProvenanceClass.SELF:
        return [pv.Piece("SELF", text, "assistant message")] if text.strip() else []
    pieces = _user_pieces(text, cls_user)
    content = item.get("content")
    parts: list = content if isinstance(content, list) else []
    images = [c for c in parts if isinstance(c, dict) and "image" in str(c.get("type"))]
    if images:
        pieces.append(pv.Piece(cls_user, "[image]", "image"))
    if not pieces:
        note("empty user message", IGNORED)
    return _merge(pieces)


def _response_pieces(
    payload: dict, ctx: CodexContext, cls_user: str, note: Noter
) -> list[pv.Piece]:
    """A response item: a message, a tool call or its output."""
    it = payload.get("type")
    if it == "message":
        return _message_pieces(payload, ctx, cls_user, note)
    if it == "reasoning":
        note("reasoning (never evidence)", IGNORED)
        return []
    if it in ("function_call", "custom_tool_call", "local_shell_call", "web_search_call"):
        return _call(ctx, payload)
    if it in ("function_call_output", "custom_tool_call_output", "tool_search_output"):
        call_id = payload.get("call_id")
        call = ctx.tools.get(call_id) if isinstance(call_id, str) else None
        text = _output_text(payload.get("output")).strip()
        if not text:
            note("empty tool output", IGNORED)
            return []
        cls, kind = pv.result_class(call, ctx.prose)
        return [pv.Piece(cls, text, kind)]
    note(f"response item ({safe_label(it)})", IGNORED)
    return []


def _message_pieces(payload: dict, ctx: CodexContext, cls_user: str, note: Noter) -> list[pv.Piece]:
    role = payload.get("role")
    text, image = text_parts(payload.get("content"), images=_IMAGES)
    if role == "assistant":
        if not text.strip():
            note("empty assistant message", IGNORED)
            return []
        if not ctx.fresh("record", "SELF", text):
            note("assistant message already read from its item record", IGNORED)
            return []
        return [pv.Piece("SELF", text, "assistant message")]
    if role != "user":
        note(f"{safe_label(role)} message (instructions, not the person)", IGNORED)
        return []
    if ctx.enveloped:
        shell = [
            p
            for p in _user_pieces(text, cls_user)
            if p.cls in ("ACT", "TOOL") and p.kind != _TEMPLATE_KIND
        ]
        if not shell:
            note(
                "what the model was sent (the person's words come from the user_message event)",
                IGNORED,
            )
        return shell
    pieces = _user_pieces(text, cls_user)
    if image:
        pieces.append(pv.Piece(cls_user, "[image]", "image"))
    return _merge(pieces)


def _merge(pieces: list[pv.Piece]) -> list[pv.Piece]:
    """An image the person attached joins the words of their message."""
    return merge_runs(
        pieces,
        lambda run, p: (
            run.cls == p.cls and p.kind in ("image",) and run.kind in ("user message", "image")
        ),
    )


_FILENAME_ID = re.compile(
    r"([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$"
)


def read_codex(path: str | os.PathLike[str], start: int, *, limit_bytes: int | None = None) -> Read:
    """Read a Codex CLI rollout from byte offset *start* (see the module docstring)."""
    m = _FILENAME_ID.search(Path(path).stem)
    fallback = m.group(1) if m else Path(path).stem
    return read_with_context(
        path,
        start,
        limit_bytes,
        adapter="codex",
        label="Codex",
        what="a Codex rollout",
        context=CodexContext,
        observe=_observe,
        wanted=(b"session_meta", b"turn_context", b"_call", b'"payload"', b'"instructions"'),
        pieces=record_pieces,
        session=lambda _obj, ctx: ctx.session or fallback,
        variant=lambda ctx: (
            "rollout, {timestamp, type, payload} records"
            if ctx.enveloped
            else "rollout, bare response items (early CLI)"
        ),
    )


# --------------------------------------------------------------------------- detection

_ENVELOPES = {"session_meta", "response_item", "event_msg", "turn_context", "compacted"}
_BARE_ITEMS = {
    "message",
    "reasoning",
    "function_call",
    "function_call_output",
    "custom_tool_call",
    "custom_tool_call_output",
    "local_shell_call",
    "web_search_call",
}


def _claims(obj: dict, index: int) -> bool:
    t = obj.get("type")
    if is_history_entry(obj):
        return True
    if _another_agents(obj):
        return False
    if isinstance(t, str) and t in _ENVELOPES and isinstance(obj.get("payload"), dict):
        return True
    if "record_type" in obj or (
        isinstance(t, str)
        and t in _BARE_ITEMS
        and ("role" in obj or "call_id" in obj or "arguments" in obj or "encrypted_content" in obj)
        and "message" not in obj
    ):
        return True
    return (
        index == 0
        and t is None
        and isinstance(obj.get("id"), str)
        and ("instructions" in obj or "git" in obj)
    )


def _another_agents(obj: dict) -> bool:
    """A record of a format whose shape overlaps Codex's early bare items (a stream-json
    ``message``, a Copilot, Qwen, Kimi or Cursor record): never Codex's."""
    return (
        rc.is_gemini_event(obj)
        or rc.is_copilot_event(obj)
        or rc.is_qwen_record(obj)
        or rc.is_kimi_record(obj)
        or rc.is_cursor_record(obj)
    )


def sniff(head: Head) -> float:
    """Codex rollouts: ``{timestamp, type, payload}`` records, or the early bare items."""
    return head.share(_claims)


ADAPTER = Adapter(
    name="codex",
    label="Codex CLI",
    unit=UNIT,
    read=read_codex,
    sniff=sniff,
    roots={os_: ("~/.codex/sessions",) for os_ in ("linux", "darwin", "win32")},
    include=("**/rollout-*.jsonl",),
    variants=(
        "rollout, {timestamp, type, payload} records",
        "rollout, bare response items (early CLI)",
        "history.jsonl (the person's prompts)",
    ),
    windowed=True,
)
