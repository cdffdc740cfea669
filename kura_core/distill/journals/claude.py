"""Claude Code transcripts (``~/.claude/projects/<project>/<session>.jsonl``).

One JSON object per line, appended as the session runs: byte-offset watermarks. Every
record type and how it is classed is listed in ``docs/DESIGN.md`` ("Journal adapters");
in short, only what the person typed is USER:

* ``user`` entries: the text a person typed is USER -- after cutting out everything the
  harness injects into the same entry (system reminders, IDE notices and selections,
  command wrappers, hook output, background-task notifications, teammate messages).
  A slash command keeps the person's ``<command-args>`` as USER (``/review the fan
  config``) while its expanded prompt (an ``isMeta`` entry) is skipped. Entries written
  by a model on the person's behalf are SELF: sidechain and subagent prompts, compaction
  summaries, accepted plans (``planContent``, "Implement the following plan:"), and
  entries whose ``origin.kind`` is not ``human`` (task notifications and the like).
* ``tool_result`` blocks: TOOL, or SELF / USER by :mod:`.provenance` (subagent answers,
  web fetches, echoes of the agent's own text are SELF; the answers a person gives to the
  agent's questions and the reason they type when refusing a tool are USER).
* ``assistant`` entries: text is SELF, tool calls are ACT plus SELF for the prose inside
  them (:mod:`.provenance`), thinking is skipped.
* Bookkeeping records (summaries, titles, snapshots, queue operations, progress, system
  notices, hook attachments) are listed as ignored; steering messages a person typed while
  the agent worked (``queued_command`` attachments, legacy ``queue-operation`` removals)
  are USER.

Images are noted as ``[image]`` where they were, documents as ``[document]``.

Which tool a result belongs to never depends on where a read window starts: the calls
before the window are recovered by a bounded backward scan (cached between windows), and
a result whose call lies beyond it is classed by the entry's own ``toolUseResult``.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...shapes import dict_at, str_at
from ...vocabulary import ProvenanceClass
from . import provenance as pv
from .base import IGNORED, Intake, Read, between, safe_label
from .documents import merge_runs, read_with_context
from .paths import is_prose_path
from .registry import Adapter, Head

UNIT = "byte"

# --------------------------------------------------------------------------- context


@dataclass
class ClaudeContext:
    """What a window needs from before it: tool calls by id, and the prose documents
    the agent wrote (a read-back of those is the agent's own words)."""

    tools: dict[str, pv.ToolCall] = field(default_factory=dict)
    prose: set[str] = field(default_factory=set)

    def copy(self) -> ClaudeContext:
        return ClaudeContext(dict(self.tools), set(self.prose))


def _observe(ctx: ClaudeContext, entry: dict, _offset: int) -> None:
    if entry.get("type") != "assistant":
        return
    msg = entry.get("message")
    blocks = msg.get("content") if isinstance(msg, dict) else None
    if not isinstance(blocks, list):
        return
    cwd = str_at(entry, "cwd")
    for b in blocks:
        if isinstance(b, dict) and b.get("type") in _TOOL_USE and isinstance(b.get("id"), str):
            _, call = pv.decode_call(b.get("name"), b.get("input"), cwd=cwd)
            ctx.tools[b["id"]] = call
            ctx.prose.update(call.prose_writes)


# --------------------------------------------------------------------------- text

_TOOL_USE = ("tool_use", "server_tool_use", "mcp_tool_use")
_TAGS = (
    "system-reminder",
    "command-name",
    "command-message",
    "command-args",
    "command-contents",
    "local-command-stdout",
    "local-command-stderr",
    "local-command-caveat",
    "user-prompt-submit-hook",
    "task-notification",
    "ide_opened_file",
    "ide_opened_files",
    "ide_closed_file",
    "ide_selection",
    "ide_diagnostics",
    "post-tool-use-hook",
    "new-diagnostics",
    "bash-input",
    "bash-stdout",
    "bash-stderr",
    "teammate-message",
    "user-memory-input",
    "session-start-hook",
    "task-prompt",
    "local-command-result",
)
_TAG = re.compile(
    r"<(" + "|".join(re.escape(t) for t in _TAGS) + r")(?:\s[^<>]*)?>(.*?)(?:</\1>|\Z)", re.DOTALL
)
_REMINDER = re.compile(r"<system-reminder>.*?(?:</system-reminder>|\Z)", re.DOTALL)
_INNER_TAG = re.compile(r"</?[a-z][a-z0-9_-]*(?:\s[^<>]*)?>")
_IMAGE_REF = re.compile(r"\[Image #\d+\]")

_SKIP_PREFIXES = (
    "[Request interrupted by user",
    "Caveat: The messages below were generated",
    "Base directory for this skill:",
    "[Request cancelled by user",
)
_MODEL_PREFIXES = (
    "This session is being continued from a previous conversation",
    "Implement the following plan:",
    "Continue from where you left off.",
    "Please continue the conversation from where we left",
)


def strip_reminders(text: str) -> str:
    return _REMINDER.sub("", text)


def _task_text(inner: str) -> str:
    """The readable part of a ``<task-notification>``: its summary and result."""
    parts = []
    for tag in ("summary", "result"):
        body = between(inner, f"<{tag}>", f"</{tag}>")
        if body is not None:
            parts.append(body.strip())
    if not parts:
        parts.append(_INNER_TAG.sub(" ", inner))
    return "\n".join(p for p in parts if p)


def user_text(text: str, cls: str, pieces: list[pv.Piece], why: str = "") -> None:
    """Classed pieces of one text a user entry carries; injected material is cut out,
    re-classed or skipped, and what is left keeps *cls* (USER for a person)."""
    command: dict[str, str] = {}

    def take(m: re.Match[str]) -> str:
        tag, inner = m.group(1), m.group(2)
        if tag.startswith("command-"):
            command[tag] = inner.strip()
        elif tag == "task-notification":
            pieces.append(pv.Piece("SELF", _task_text(inner), "background task notification"))
        elif tag == "teammate-message":
            pieces.append(pv.Piece("SELF", inner.strip(), "message from another agent"))
        elif tag == "ide_selection":
            pieces.append(pv.Piece("TOOL", inner.strip(), "IDE selection (file text)"))
        elif tag in ("ide_diagnostics", "new-diagnostics"):
            pieces.append(pv.Piece("TOOL", inner.strip(), "IDE diagnostics"))
        elif tag == "post-tool-use-hook":
            pass
        elif tag == "bash-input":
            if inner.strip():
                pieces.append(
                    pv.Piece("ACT", "Bash: " + inner.strip(), "shell command the person ran (!)")
                )
        elif tag in ("bash-stdout", "bash-stderr"):
            pieces.append(pv.Piece("TOOL", inner.strip(), "output of the person's shell command"))
        elif tag == "user-memory-input":
            pieces.append(pv.Piece(cls, inner.strip(), "note the person saved to memory (#)"))
        return "\n"

    rest = _TAG.sub(take, text).strip()
    name = command.get("command-name", "")
    args = command.get("command-args", "")
    if args:
        cmd = name if name.startswith("/") or not name else "/" + name
        pieces.append(
            pv.Piece(cls, f"{cmd} {args}".strip(), "slash command with the person's words")
        )
    if not rest or rest.startswith(_SKIP_PREFIXES):
        return
    if cls == ProvenanceClass.USER and rest.startswith(_MODEL_PREFIXES):
        pieces.append(pv.Piece("SELF", rest, "text written by a model (summary or accepted plan)"))
        return
    pieces.append(
        pv.Piece(
            cls,
            rest,
            "user text" if cls == ProvenanceClass.USER else why or "text written for the person",
        )
    )


def _block_text(content: Any) -> tuple[str, bool]:
    """Text of a tool result's content, with ``[image]`` where images were."""
    if isinstance(content, str):
        return content, False
    parts: list[str] = []
    image = False
    if isinstance(content, list):
        for b in content:
            if isinstance(b, str):
                parts.append(b)
            elif isinstance(b, dict):
                t = b.get("type")
                if t == "text" and isinstance(b.get("text"), str):
                    parts.append(b["text"])
                elif t == "image":
                    parts.append("[image]")
                    image = True
                elif t == "document":
                    parts.append("[document]")
                elif t == "web_search_result":
                    title, url = b.get("title"), b.get("url")
                    parts.append(" ".join(x for x in (title, url) if isinstance(x, str)))
    return "\n".join(p for p in parts if p), image


# --------------------------------------------------------------------------- results


def _call_from_metadata(extra: Any) -> pv.ToolCall | None:
    """A result's tool, from the ``toolUseResult`` Claude Code stores beside it."""
    if not isinstance(extra, dict):
        return None
    if "agentId" in extra or "totalToolUseCount" in extra or "totalDurationMs" in extra:
        return pv.ToolCall("Task", pv.AGENT, True)
    if "url" in extra and ("codeText" in extra or "result" in extra or "bytes" in extra):
        return pv.ToolCall("WebFetch", pv.WEBFETCH, True)
    if "query" in extra and isinstance(extra.get("results"), list):
        return pv.ToolCall("WebSearch", pv.WEBSEARCH, True)
    if "oldTodos" in extra or "newTodos" in extra:
        return pv.ToolCall("TodoWrite", pv.TODO, True)
    if "questions" in extra and "answers" in extra:
        return pv.ToolCall("AskUserQuestion", pv.ASK)
    if "plan" in extra and isinstance(extra.get("plan"), str):
        return pv.ToolCall("ExitPlanMode", pv.PLAN, True)
    f = extra.get("file")
    if isinstance(f, dict) and isinstance(f.get("filePath"), str):
        return pv.ToolCall("Read", pv.READ, reads=(f["filePath"],), only_reads=True)
    path = extra.get("filePath")
    if isinstance(path, str):
        prose = is_prose_path(path)
        return pv.ToolCall(
            "Write", pv.WRITE, prose_writes=(path,) if prose else (), prose_target=prose
        )
    if "stdout" in extra or "stderr" in extra:
        return pv.ToolCall("Bash", pv.SHELL)
    return None


def tool_result(block: dict, entry: dict, ctx: ClaudeContext, pieces: list[pv.Piece]) -> None:
    text, _ = _block_text(block.get("content"))
    text = strip_reminders(text).strip()
    use_id = block.get("tool_use_id")
    call = ctx.tools.get(use_id) if isinstance(use_id, str) else None
    extra = entry.get("toolUseResult")
    meta_call = _call_from_metadata(extra)
    if call is None:
        call = meta_call
    elif meta_call is not None and meta_call.model and not call.model:
        call = meta_call  # the entry itself says a model wrote this result
    if not text:
        return
    if block.get("is_error") is True or text.startswith("The user doesn't want to"):
        refused_ = pv.rejection(text)
        if refused_ is not None:
            pieces.extend(refused_)
            return
    if call is not None and call.family == pv.ASK:
        got = pv.answers(text, extra)
        if got:
            pieces.extend(got)
            return
        pieces.append(pv.Piece("SELF", text, f"tool_result {call.name}"))
        return
    cls, kind = pv.result_class(call, ctx.prose)
    if block.get("is_error") is True:
        kind += " (error)"
    pieces.append(pv.Piece(cls, text, kind))


# --------------------------------------------------------------------------- entries

_BOOKKEEPING = {
    "summary": "session summary (written by a model)",
    "custom-title": "session title",
    "ai-title": "session title (written by a model)",
    "file-history-snapshot": "file history snapshot",
    "progress": "progress update (hook, shell or subagent stream)",
    "agent-setting": "agent setting",
    "pr-link": "pull request link",
    "last-prompt": "last prompt marker",
    "tag": "session tag",
    "turn_end": "turn marker",
    "result": "run result",
    "permission-mode": "permission mode change",
    "worktree-state": "worktree state",
    "mode": "session mode (normal, plan)",
    "fork-context-ref": "reference to the parent's context (a forked subagent)",
}
_KNOWN = {"user", "assistant", "system", "attachment", "queue-operation", *_BOOKKEEPING}
_CLAUDE_KEYS = (
    "sessionId",
    "uuid",
    "parentUuid",
    "leafUuid",
    "isSidechain",
    "userType",
    "messageId",
    "snapshot",
)


#: ``promptSource`` values that mean the prompt did not come from a person (``typed``,
#: ``paste`` and ``sdk`` -- a prompt given to ``claude -p`` -- are a person's).
_MACHINE_SOURCES = {
    "system",
    "hook",
    "agent",
    "subagent",
    "teammate",
    "task-notification",
    "notification",
    "automation",
    "scheduled",
    "schedule",
    "loop",
    "cron",
    "peer",
}
#: ``origin.kind`` values of a person's own turn; any other kind is not the person.
_HUMAN_ORIGINS = {"human", "user"}


def _human_origin(entry: dict) -> bool:
    origin = entry.get("origin")
    if isinstance(origin, dict):
        kind = origin.get("kind")
        if kind is not None and kind not in _HUMAN_ORIGINS:
            return False
    elif isinstance(origin, str) and origin not in _HUMAN_ORIGINS:
        return False
    source = entry.get("promptSource")
    return not (isinstance(source, str) and source.lower() in _MACHINE_SOURCES)


def _message_blocks(entry: dict) -> list | None:
    message = entry.get("message")
    if not isinstance(message, dict):
        return None
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, list):
        return content
    return None


#: records a note about the entry being read: (reason, kind)
Noter = Callable[..., None]


def entry_pieces(
    entry: dict, ctx: ClaudeContext, *, subagent_file: bool, intake: Intake, start: int, end: int
) -> list[pv.Piece] | None:
    """Classed pieces of one transcript entry (``None``: malformed, noted)."""
    note: Noter = functools.partial(intake.note, start, end)
    etype = entry.get("type")
    if not isinstance(etype, str) or etype not in _KNOWN:
        if isinstance(etype, str) and any(k in entry for k in _CLAUDE_KEYS):
            note(f"Claude Code record of an unknown type ({safe_label(etype)})", IGNORED)
        else:
            note("not a Claude Code record")
        return []
    if etype in _BOOKKEEPING:
        note(_BOOKKEEPING[etype], IGNORED)
        return []
    if etype == "system":
        return _system_pieces(entry, note)
    if etype == "queue-operation":
        return _queue_pieces(entry, note)
    if etype == "attachment":
        return _attachment_pieces(entry, note)
    blocks = _message_blocks(entry)
    if blocks is None:
        note("bad message")
        return None
    if entry.get("isApiErrorMessage") is True:
        note("API error message", IGNORED)
        return []
    if etype == "assistant":
        return _assistant_pieces(entry, blocks, ctx, note)
    return _user_pieces(entry, blocks, ctx, note, subagent_file=subagent_file)


def _steering(pieces: list[pv.Piece]) -> list[pv.Piece]:
    """Words typed into the queue while the agent worked, named as such."""
    return [
        pv.Piece(
            p.cls,
            p.text,
            "steering message typed while the agent worked" if p.kind == "user text" else p.kind,
        )
        for p in pieces
    ]


def _system_pieces(entry: dict, note: Noter) -> list[pv.Piece]:
    pieces: list[pv.Piece] = []
    content = entry.get("content")
    if (
        entry.get("subtype") == "local_command"
        and isinstance(content, str)
        and "<command-args>" in content
    ):
        user_text(content, "USER", pieces)
        pieces = [p for p in pieces if p.kind == "slash command with the person's words"]
    if not pieces:
        note(f"system notice ({safe_label(entry.get('subtype') or 'plain')})", IGNORED)
    return pieces


def _queue_pieces(entry: dict, note: Noter) -> list[pv.Piece]:
    pieces: list[pv.Piece] = []
    op = entry.get("operation")
    content = entry.get("content")
    if op == "remove" and isinstance(content, str) and content.strip():
        user_text(content, "USER" if _human_origin(entry) else "SELF", pieces)
        return _steering(pieces)
    note(f"queue bookkeeping ({safe_label(op)})", IGNORED)
    return []


def _attachment_pieces(entry: dict, note: Noter) -> list[pv.Piece]:
    att = dict_at(entry, "attachment")
    atype = att.get("type")
    if atype == "queued_command":
        pieces = _queued_command(att)
        if pieces:
            return _steering(pieces)
    note(f"harness attachment ({safe_label(atype)})", IGNORED)
    return []


def _queued_command(att: dict) -> list[pv.Piece]:
    """A command queued while the agent worked: the person's own words unless the harness
    queued it (a task notification, an origin that is not human)."""
    pieces: list[pv.Piece] = []
    prompt = att.get("prompt")
    mode = att.get("commandMode")
    origin = att.get("origin")
    human = (
        att.get("humanTurn") is True
        or (isinstance(origin, dict) and origin.get("kind") == "human")
        or (origin is None and mode in (None, "prompt"))
    )
    if mode == "task-notification":
        human = False
    texts: list[str] = (
        [prompt]
        if isinstance(prompt, str)
        else [b["text"] for b in prompt if isinstance(b, dict) and isinstance(b.get("text"), str)]
        if isinstance(prompt, list)
        else []
    )
    for t in texts:
        user_text(t, "USER" if human else "SELF", pieces)
    if isinstance(prompt, list) and any(
        isinstance(b, dict) and b.get("type") == "image" for b in prompt
    ):
        pieces.append(pv.Piece("USER" if human else "SELF", "[image]", "image"))
    return pieces


def _assistant_pieces(entry: dict, blocks: list, ctx: ClaudeContext, note: Noter) -> list[pv.Piece]:
    message = entry.get("message")
    if isinstance(message, dict) and message.get("model") == "<synthetic>":
        note("synthetic assistant message (written by the harness)", IGNORED)
        return []
    cwd = str_at(entry, "cwd")
    pieces: list[pv.Piece] = []
    for b in blocks:
        if isinstance(b, dict):
            pieces.extend(_assistant_block(b, ctx, cwd))
    if not pieces:
        note("assistant thinking only (never evidence)", IGNORED)
    return pieces


def _assistant_block(b: dict, ctx: ClaudeContext, cwd: str) -> list[pv.Piece]:
    bt = b.get("type")
    if bt == "text" and isinstance(b.get("text"), str):
        t = strip_reminders(b["text"]).strip()
        return [pv.Piece("SELF", t, "assistant text")] if t else []
    if bt in _TOOL_USE:
        got, call = pv.decode_call(b.get("name"), b.get("input"), cwd=cwd)
        if isinstance(b.get("id"), str):
            ctx.tools[b["id"]] = call
        ctx.prose.update(call.prose_writes)
        return got
    if bt in ("web_search_tool_result", "web_fetch_tool_result"):
        text, _ = _block_text(b.get("content"))
        if text.strip():
            return [
                pv.Piece(
                    "TOOL" if bt == "web_search_tool_result" else "SELF",
                    text,
                    f"{bt} (search engine results)",
                )
            ]
    return []


def _injected_why(entry: dict, *, subagent_file: bool) -> str:
    """Why a user entry was not typed by the person ("" when it was)."""
    if entry.get("isCompactSummary") is True:
        return "compaction summary (written by a model)"
    if "planContent" in entry:
        return "accepted plan (written by a model)"
    if entry.get("isSidechain") is True or subagent_file:
        return "prompt from the parent agent (sidechain)"
    if not _human_origin(entry):
        origin = entry.get("origin")
        label = (
            origin.get("kind") if isinstance(origin, dict) else origin or entry.get("promptSource")
        )
        return f"injected turn (origin {safe_label(label)})"
    return ""


def _user_pieces(
    entry: dict, blocks: list, ctx: ClaudeContext, note: Noter, *, subagent_file: bool
) -> list[pv.Piece]:
    if entry.get("isMeta") is True:
        note("meta prompt (expanded command, skill or caveat: not typed by the person)", IGNORED)
        return []
    if entry.get("isVisibleInTranscriptOnly") is True and entry.get("isCompactSummary") is not True:
        note("shown to the person only, not a turn", IGNORED)
        return []
    why = _injected_why(entry, subagent_file=subagent_file)
    cls = "SELF" if why else "USER"
    has_refs = any(
        isinstance(b, dict) and b.get("type") == "text" and _IMAGE_REF.search(str(b.get("text")))
        for b in blocks
    )
    pieces: list[pv.Piece] = []
    for b in blocks:
        if isinstance(b, str):
            b = {"type": "text", "text": b}
        if not isinstance(b, dict):
            continue
        bt = b.get("type")
        if bt == "text" and isinstance(b.get("text"), str):
            user_text(b["text"], cls, pieces, why)
        elif bt == "image" and not has_refs:
            pieces.append(pv.Piece(cls, "[image]", "image"))
        elif bt == "document":
            pieces.append(pv.Piece(cls, "[document]", "document"))
        elif bt in ("tool_result", "web_search_tool_result"):
            tool_result(b, entry, ctx, pieces)
    if not pieces:
        note("nothing but injected or harness text", IGNORED)
    return pieces


_MERGE = ("user text", "image", "document")


def _merged(pieces: list[pv.Piece]) -> list[pv.Piece]:
    """Adjacent words of one person in one entry become one segment ("[image]" stays
    where the image was)."""
    return merge_runs(
        pieces,
        lambda run, p: p.kind in _MERGE and run.kind in _MERGE and run.cls == p.cls,
        lambda run, p: run.kind if run.kind not in ("image", "document") else p.kind,
    )


# --------------------------------------------------------------------------- reader


def is_subagent_file(path: str | os.PathLike[str]) -> bool:
    p = Path(path)
    return p.parent.name == "subagents" or p.name.startswith("agent-")


def read_claude(
    path: str | os.PathLike[str], start: int, *, limit_bytes: int | None = None
) -> Read:
    """Read a Claude Code JSONL transcript from byte offset *start* (see the module
    docstring for what each record becomes)."""
    subagent = is_subagent_file(path)
    fallback_session = Path(path).stem

    def pieces(entry: dict, ctx: Any, intake: Intake, start: int, end: int) -> list[pv.Piece]:
        got = entry_pieces(entry, ctx, subagent_file=subagent, intake=intake, start=start, end=end)
        return _merged(got) if got else []

    def session(entry: dict, _ctx: Any) -> str:
        sid = entry.get("sessionId")
        return sid if isinstance(sid, str) else fallback_session

    return read_with_context(
        path,
        start,
        limit_bytes,
        adapter="claude",
        label="Claude Code",
        what="a Claude Code transcript",
        context=ClaudeContext,
        observe=_observe,
        wanted=(b'"tool_use"', b'"server_tool_use"', b'"mcp_tool_use"'),
        pieces=pieces,
        session=session,
        variant=lambda _ctx: "subagent transcript" if subagent else "session transcript",
    )


# --------------------------------------------------------------------------- detection

_RECORD_TYPES = {
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
_SNIFF_KEYS = (*_CLAUDE_KEYS, "operation")


def _claims(obj: dict, _index: int) -> bool:
    t = obj.get("type")
    keyed = any(k in obj for k in _SNIFF_KEYS)
    return (
        isinstance(t, str)
        and (t in _RECORD_TYPES or keyed)
        and (keyed or isinstance(obj.get("message"), dict))
    )


def sniff(head: Head) -> float:
    """Claude Code entries: ``type`` user/assistant/summary/… with ``sessionId``/``uuid``."""
    return head.share(_claims)


ADAPTER = Adapter(
    name="claude",
    label="Claude Code",
    unit=UNIT,
    read=read_claude,
    sniff=sniff,
    roots={
        "linux": ("~/.claude/projects",),
        "darwin": ("~/.claude/projects",),
        "win32": ("~/.claude/projects",),
    },
    include=("**/*.jsonl",),
    variants=("session transcript", "subagent transcript"),
    windowed=True,
)
