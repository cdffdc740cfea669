"""Cline task folders, and Roo Code's and Kilo Code's, which share the layout
(``…/globalStorage/<extension>/tasks/<task id>/``).

Two files per task, each one JSON array rewritten whole (``seq`` watermark: the index):

* ``api_conversation_history.json`` -- what the model was sent and said, Anthropic style
  (``{role, content: [blocks], ts}``). Everything the extension adds travels in
  user-role messages, so a user-role text is the person's only inside the tags the
  extension wraps around typed words: ``<task>``, ``<feedback>``, ``<answer>`` and
  ``<user_message>`` (USER). The rest is machine text: ``<environment_details>``, the
  ``[TASK RESUMPTION]`` preamble, progress and todo reminders, ``[ERROR]`` nudges
  (noted, never evidence); tool results (``[tool for 'x'] Result:`` texts or
  ``tool_result`` blocks: TOOL, or SELF by provenance) and file, folder, URL and
  terminal contents the person attached with ``@`` (TOOL), even inside ``<task>``.
  Assistant text is SELF, its ``<thinking>`` skipped; tool calls -- ``tool_use`` blocks or
  the XML tags older versions wrote into the text -- are ACT plus SELF for their prose
  (``attempt_completion`` results, ``ask_followup_question`` questions, todo lists).
* ``ui_messages.json`` -- what the panel showed (``{ts, type: say|ask, say|ask, text}``):
  ``task`` and ``user_feedback`` are the person (USER), and so is a ``text`` record before
  the first API request (newer versions write the task that way); ``text``, ``completion_result``,
  follow-up questions and plan responses are the agent (SELF); ``command``, ``tool`` and
  MCP requests are actions (ACT); command and MCP output, errors are TOOL; API request
  records (a copy of what was sent), reasoning, checkpoints are noted. A message still
  streaming (``partial``) is held back.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any

from ...shapes import str_at
from . import provenance as pv
from .base import Read, decode_bytes
from .documents import Messages, ToolCalls, read_document, text_parts
from .recognize import (
    CLINE_TURN as _TURN,
    cline_kind as kind_of,
    is_cline_export as is_markdown_export,
)

#: The tags around what the person typed.
_HUMAN = re.compile(r"<(task|feedback|answer|user_message)>\n?(.*?)\n?(?:</\1>|\Z)", re.DOTALL)
#: What the extension attaches for an @-mention: machine copies of files, pages, output.
_ATTACHED = re.compile(
    r"<(file_content|folder_content|url_content|terminal_output|git_commit|"
    r"git_working_state|workspace_diagnostics|problems|command)(?:\s[^<>]*)?>\n?(.*?)\n?"
    r"(?:</\1>|\Z)",
    re.DOTALL,
)
_RESULT_HEAD = re.compile(
    r"^\[([A-Za-z0-9_.:-]{1,80})(?: (?:for|in) (.*?)| completed)?\] Result:\s*", re.DOTALL
)
_REQ_APP = re.compile(r"REQ_APP$")
_TRAILING_RULE = re.compile(r"\n---\s*+$")
_ENV = re.compile(r"<environment_details>.*?(?:</environment_details>|\Z)", re.DOTALL)
#: Tools whose result is another model's report: a subtask's or a subagent's answer.
_MODEL_RESULTS = {"new_task", "use_subagents", "subagents", "run_subagent"}
_THINKING = re.compile(r"<thinking>.*?(?:</thinking>|\Z)", re.DOTALL)
#: Tools the extensions describe to the model as XML tags (before native tool calls).
_XML_TOOLS = (
    "execute_command|read_file|write_to_file|replace_in_file|search_files|list_files|"
    "list_code_definition_names|browser_action|use_mcp_tool|access_mcp_resource|"
    "ask_followup_question|attempt_completion|plan_mode_respond|new_task|apply_diff|"
    "insert_content|search_and_replace|switch_mode|fetch_instructions|codebase_search|"
    "update_todo_list|load_mcp_documentation|condense|new_rule|report_bug|web_fetch|"
    "run_slash_command|generate_image|simple_read_file|edit_file|search_replace"
)
from ...vocabulary import ProvenanceClass
from . import recognize as rc
from .registry import Adapter, Head

# an unclosed tag runs to the end of the text (a reply cut off mid-call): one pass, never a
# rescan from every opening tag
_XML_CALL = re.compile(rf"<({_XML_TOOLS})>(.*?)(?:</\1>|\Z)", re.DOTALL)
_XML_ARG = re.compile(r"<([A-Za-z_][A-Za-z0-9_]*)>\n?(.*?)\n?(?:</\1>|\Z)", re.DOTALL)
#: Tool arguments that hold the agent's own words.
_SAYS = {
    "attempt_completion": ("result",),
    "plan_mode_respond": ("response",),
    "act_mode_respond": ("response",),
    "new_task": ("context", "message"),
}
_TODO_ARGS = ("task_progress", "todos")


#: What a slash command, workflow or skill expands to inside the person's message.
_EXPLICIT = re.compile(
    r"<explicit_instructions(?:\s[^<>]*)?>.*?(?:</explicit_instructions>|\Z)", re.DOTALL
)


def _tagged(text: str) -> list[tuple[str, str]]:
    """``(tag, words)`` for each human tag in *text*, without the instructions a slash
    command expands to."""
    found = [(m.group(1), _EXPLICIT.sub("", m.group(2)).strip()) for m in _HUMAN.finditer(text)]
    return [(tag, words) for tag, words in found if words]


def _split_attached(text: str) -> tuple[str, list[str]]:
    """Text with @-attachments cut out, and the attachments."""
    found = [m.group(2) for m in _ATTACHED.finditer(text) if m.group(2).strip()]
    return _ATTACHED.sub("", text), found


class _Calls(ToolCalls):
    """The tool calls seen so far, by id and by name (text results name their tool)."""

    def __init__(self) -> None:
        super().__init__()
        self.by_name: dict[str, pv.ToolCall] = {}

    def add(self, call_id: str, call: pv.ToolCall) -> None:
        super().add(call_id, call)
        self.by_name[call.name] = call

    def named(self, name: str) -> pv.ToolCall | None:
        """The last call of tool *name* (``[subagents]`` names ``use_subagents``)."""
        found = self.by_name.get(name)
        if found is None:
            found = next((c for n, c in self.by_name.items() if n.endswith("_" + name)), None)
        return found

    def decode(self, name: str, args: Any, call_id: str = "") -> list[pv.Piece]:
        pieces: list[pv.Piece] = []
        if isinstance(args, dict):
            args = dict(args)
            for key in _TODO_ARGS:
                todo = args.pop(key, None)
                if isinstance(todo, str) and todo.strip():
                    pieces.append(pv.Piece("SELF", todo, f"todo list in {name}"))
            for key in _SAYS.get(name, ()):
                said = args.pop(key, None)
                if isinstance(said, str) and said.strip():
                    pieces.append(pv.Piece("SELF", said, f"{name} {key}"))
        got = self.call(call_id, name, args if args else {})
        if args or not pieces:
            pieces = got + pieces
        return pieces

    def result_pieces(self, text: str, call: pv.ToolCall | None) -> list[pv.Piece]:
        """A tool result: the person's words in it (answers, feedback) are USER -- where the
        extension puts them (the start of the result, or after its own "The user …"
        sentence), never a tag that only appears inside a file or command output."""
        said, rest = _replies(_ENV.sub("", text))
        pieces = [pv.Piece("USER", s, "the person's reply in a tool result") for s in said if s]
        rest, attached = _split_attached(rest)
        rest = _strip_harness(rest)
        if rest.strip():
            if call is not None and call.name in _MODEL_RESULTS:
                report = f"tool_result {call.name}: a subtask's report"
                pieces.insert(0, pv.Piece("SELF", rest.strip(), report))
            else:
                pieces.insert(0, self.result(call, rest.strip()))
        pieces.extend(pv.Piece("TOOL", a, "attached content") for a in attached)
        return pieces


def _replies(text: str) -> tuple[list[str], str]:
    """Like :func:`_tagged`, for a tool result: only tags the extension wrote count."""
    said: list[str] = []
    kept: list[str] = []
    pos = 0
    for m in _HUMAN.finditer(text):
        before = text[: m.start()].rstrip().rsplit("\n", 1)[-1].strip()
        if before and not before.startswith(_HARNESS_LINES) and not before.endswith(":"):
            continue  # a tag quoted inside the output (a file, a log): part of the result
        words = _EXPLICIT.sub("", m.group(2)).strip()
        if words:
            said.append(words)
        kept.append(text[pos : m.start()])
        pos = m.end()
    kept.append(text[pos:])
    return said, "\n".join(kept)


_HARNESS_LINES = (
    "The user has provided feedback on the results.",
    "The user provided the following feedback:",
    "The user denied this operation",
    "The user approved this operation",
    "New instructions for task continuation:",
    "New message to respond to with plan_mode_respond tool",
    "Files attached by the user:",
)


def _strip_harness(text: str) -> str:
    keep = [
        line
        for line in text.split("\n")
        if not any(line.strip().startswith(h) for h in _HARNESS_LINES)
    ]
    return "\n".join(keep)


def is_subtask(path: str | os.PathLike[str]) -> bool:
    """True when the task folder's metadata names a parent task (Roo Code and Kilo Code write
    ``history_item.json``; a subtask's first ``<task>`` is the parent agent's text)."""
    folder = os.path.dirname(os.path.abspath(path))
    for name in ("history_item.json", "task_metadata.json"):
        meta = os.path.join(folder, name)
        try:
            if os.path.getsize(meta) > (1 << 20):
                continue
            with open(meta, "rb") as fh:
                obj = json.loads(decode_bytes(fh.read())[0])
        except (OSError, ValueError, RecursionError):
            continue
        if isinstance(obj, dict) and (obj.get("parentTaskId") or obj.get("parentTask")):
            return True
    return False


class _ApiReader(Messages):
    """Per-file state for ``api_conversation_history.json``."""

    stamp_key = "ts"

    def __init__(self, path: str) -> None:
        self.session = os.path.basename(os.path.dirname(os.path.abspath(path)))
        self.calls = _Calls()
        self.subtask = is_subtask(path)

    def why_empty(self, msg: Any) -> str:
        role = msg.get("role") if isinstance(msg, dict) else None
        if role == "user":
            return "machine text on the person's channel (environment, reminders, resumption)"
        if role == "assistant":
            return "thinking only (never evidence)"
        return "message without text"

    def pieces(self, msg: Any, index: int) -> list[pv.Piece]:
        if not isinstance(msg, dict):
            return []
        content = msg.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        if not isinstance(blocks, list):
            return []
        if msg.get("role") == "assistant":
            return [p for b in blocks if isinstance(b, dict) for p in self._assistant(b)]
        if msg.get("role") != "user":
            return []
        pieces = self._user_blocks([b for b in blocks if isinstance(b, dict)])
        if any(p.cls == ProvenanceClass.USER for p in pieces) and any(
            isinstance(b, dict) and b.get("type") == "image" for b in blocks
        ):
            pieces.append(pv.Piece("USER", "[image]", "image"))
        return pieces

    def _assistant(self, block: dict) -> list[pv.Piece]:
        btype = block.get("type")
        if btype == "text" and isinstance(block.get("text"), str):
            return self._assistant_text(block["text"])
        if btype == "tool_use":
            name = str(block.get("name") or "")
            return self.calls.decode(name, block.get("input"), str(block.get("id") or ""))
        return []

    def _assistant_text(self, text: str) -> list[pv.Piece]:
        text = _THINKING.sub("", text)
        pieces: list[pv.Piece] = []
        for m in _XML_CALL.finditer(text):
            args = {a.group(1): a.group(2) for a in _XML_ARG.finditer(m.group(2))}
            pieces.extend(self.calls.decode(m.group(1), args))
        prose = _XML_CALL.sub("", text).strip()
        if prose:
            pieces.insert(0, pv.Piece("SELF", prose, "assistant text"))
        return pieces

    def _user_blocks(self, blocks: list[dict]) -> list[pv.Piece]:
        """The pieces of a user message's blocks, however many there are: a tool result
        whose ``[tool] Result:`` head stands alone in one text block continues in the
        text blocks after it (up to the next head, a block of the person's words or the
        environment details)."""
        pieces: list[pv.Piece] = []
        open_result: tuple[pv.ToolCall | None, list[str]] | None = None

        def close() -> None:
            nonlocal open_result
            if open_result is not None:
                call, texts = open_result
                pieces.extend(self.calls.result_pieces("\n".join(texts), call))
            open_result = None

        for b in blocks:
            text = b.get("text") if b.get("type") == "text" else None
            if isinstance(text, str):
                head = _RESULT_HEAD.match(text)
                if head:
                    close()
                    open_result = (self.calls.named(head.group(1)), [text[head.end() :]])
                    continue
                if open_result is not None and not _tagged(text) and not _ENV.match(text.lstrip()):
                    open_result[1].append(text)
                    continue
            close()
            pieces.extend(self._user(b))
        close()
        return pieces

    def _user(self, block: dict) -> list[pv.Piece]:
        btype = block.get("type")
        if btype == "tool_result":
            call = self.calls.calls.get(str(block.get("tool_use_id") or ""))
            return self.calls.result_pieces(text_parts(block.get("content"))[0], call)
        if btype != "text" or not isinstance(block.get("text"), str):
            return []
        text = block["text"]
        head = _RESULT_HEAD.match(text)
        if head:
            call = self.calls.named(head.group(1))
            return self.calls.result_pieces(text[head.end() :], call)
        said = _tagged(text)
        pieces: list[pv.Piece] = []
        for tag, s in said:
            words, attached = _split_attached(s)
            if words.strip() and tag == "task" and self.subtask:
                pieces.append(pv.Piece("SELF", words.strip(), "task from the parent agent"))
            elif words.strip():
                pieces.append(pv.Piece("USER", words.strip(), "user message"))
            pieces.extend(pv.Piece("TOOL", a, "content the person attached") for a in attached)
        if not said and text.lstrip().startswith("Files attached by the user"):
            _, attached = _split_attached(text)
            pieces.extend(pv.Piece("TOOL", a, "content the person attached") for a in attached)
        return pieces


# --------------------------------------------------------------------------- ui_messages

_UI_USER = {"task", "user_feedback"}
_UI_SELF = {"text", "completion_result", "followup", "plan_mode_respond", "act_mode_respond"}
_UI_SELF |= {"task_progress", "new_task", "subtask_result", "condense_context"}
_UI_ACT = {"command", "tool", "use_mcp_server", "browser_action", "browser_action_launch"}
_UI_TOOL = {"command_output", "mcp_server_response", "browser_action_result", "error"}
_UI_TOOL |= {"diff_error", "user_feedback_diff", "codebase_search_result"}


class _UiReader(Messages):
    """Per-file state for ``ui_messages.json``."""

    stamp_key = "ts"

    def __init__(self, path: str) -> None:
        self.session = os.path.basename(os.path.dirname(os.path.abspath(path)))
        #: an API request was made: before the first one, a ``text`` record is the task
        #: the person typed (newer Cline writes the task as ``say: text``)
        self.requested = False
        self.subtask = is_subtask(path)

    def unfinished(self, msg: Any) -> bool:
        return isinstance(msg, dict) and msg.get("partial") is True

    def why_empty(self, msg: Any) -> str:
        kind = _ui_kind(msg)
        return f"panel record ({kind})" if kind else "panel record of an unknown kind"

    def pieces(self, msg: Any, index: int) -> list[pv.Piece]:
        kind = _ui_kind(msg)
        if kind in ("api_req_started", "api_req_finished"):
            self.requested = True
        text = str_at(msg, "text") if isinstance(msg, dict) else ""
        if not text.strip():
            return []
        if kind == "text" and not self.requested and msg.get("type") == "say":
            kind = "task"
        if kind == "task" and self.subtask:
            return [pv.Piece("SELF", text, "task from the parent agent")]
        if kind in _UI_USER:
            words, attached = _split_attached(text)
            out = [pv.Piece("USER", words.strip(), f"{kind}")] if words.strip() else []
            return out + [pv.Piece("TOOL", a, "content the person attached") for a in attached]
        if kind in _UI_SELF:
            return [pv.Piece("SELF", _ui_prose(text), kind)]
        if kind in _UI_ACT:
            return [pv.Piece("ACT", _ui_action(kind, text), kind)]
        if kind in _UI_TOOL:
            return [pv.Piece("TOOL", text, kind)]
        return []


def _ui_kind(msg: Any) -> str:
    if not isinstance(msg, dict):
        return ""
    kind = msg.get("say") if msg.get("type") == "say" else msg.get("ask")
    return kind if isinstance(kind, str) and len(kind) < 40 else ""


def _ui_prose(text: str) -> str:
    """A question or plan response is stored as JSON; its words are the agent's."""
    obj = _json_object(text)
    if obj is None:
        return text
    for key in ("question", "response", "text", "content"):
        if isinstance(obj.get(key), str):
            return obj[key]
    return text


def _ui_action(kind: str, text: str) -> str:
    if kind == "command":
        return "shell: " + _REQ_APP.sub("", text).strip()
    obj = _json_object(text)
    if obj is None:
        return f"{kind}: {text}"
    name = str(obj.get("tool") or obj.get("toolName") or obj.get("type") or kind)
    rest = {k: v for k, v in obj.items() if k not in ("tool", "toolName", "type")}
    pieces, _ = pv.decode_call(name, rest)
    acts = [p.text for p in pieces if p.cls == ProvenanceClass.ACT]
    return "\n".join(acts) if acts else f"{name}: {json.dumps(rest, ensure_ascii=False)[:2000]}"


def _json_object(text: str) -> dict | None:
    s = text.strip()
    if not s.startswith("{"):
        return None
    try:
        obj = json.loads(s)
    except (ValueError, RecursionError):
        return None
    return obj if isinstance(obj, dict) else None


# --------------------------------------------------------------------------- entry


# --------------------------------------------------------------------------- Markdown export


def export_messages(text: str) -> list[dict]:
    """The ``{role, content}`` messages of a Markdown export; the ``---`` rule between turns
    is dropped, a fenced or quoted ``**User:**`` is never a turn (turns start at a line)."""
    marks = list(_TURN.finditer(text))
    out = []
    for i, m in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        body = _TRAILING_RULE.sub("", text[m.end() : end].strip()).strip()
        out.append({"role": m.group(1).lower(), "content": body})
    return out


def _load_export(path: str | os.PathLike[str]) -> tuple[Any, str, bool]:
    with open(path, "rb") as fh:
        text, repaired = decode_bytes(fh.read())
    return export_messages(text), "", repaired


def read_cline(path: str | os.PathLike[str], start: int, *, limit_bytes: int | None = None) -> Read:
    """Read a Cline / Roo Code / Kilo Code task file (or its Markdown export) from message
    index *start*."""
    source = str(path)
    if is_markdown_export(path):
        return read_document(
            path,
            start,
            adapter="Cline",
            messages=lambda obj: obj,
            reader=lambda _obj: _ApiReader(source),
            load=_load_export,
        )
    form: dict[str, str] = {}

    def messages(obj: Any) -> list | None:
        form["kind"] = kind_of(obj)
        return obj if form["kind"] else None

    def reader(_obj: Any) -> Any:
        return _UiReader(source) if form.get("kind") == "ui" else _ApiReader(source)

    return read_document(path, start, adapter="Cline", messages=messages, reader=reader)


#: Where the extensions keep their task folders, per ``sys.platform`` family: VS Code's
#: ``globalStorage`` (and that of its forks), which holds Cline's
#: (``saoudrizwan.claude-dev``), Roo Code's (``rooveterinaryinc.roo-cline``) and Kilo
#: Code's (``kilocode.kilo-code``) ``tasks/<id>/`` folders.
ROOTS: dict[str, tuple[str, ...]] = {
    "linux": (
        "~/.config/Code/User/globalStorage",
        "~/.config/Cursor/User/globalStorage",
        "~/.vscode-server/data/User/globalStorage",
        "~/.config/IBM Bob/User/globalStorage",
    ),
    "darwin": (
        "~/Library/Application Support/Code/User/globalStorage",
        "~/Library/Application Support/Cursor/User/globalStorage",
    ),
    "win32": (
        "~/AppData/Roaming/Code/User/globalStorage",
        "~/AppData/Roaming/IBM Bob/User/globalStorage",
    ),
}


# --------------------------------------------------------------------------- detection


def sniff(head: Head) -> float:
    """A task's ``api_conversation_history.json`` / ``ui_messages.json``, or an export."""
    if head.document is not None:
        return 1.0 if rc.cline_kind(head.document) else 0.0
    return 1.0 if head.plain and rc.is_cline_export(head.path) else 0.0


ADAPTER = Adapter(
    name="cline",
    label="Cline / Roo Code / Kilo Code",
    unit="seq",
    read=read_cline,
    sniff=sniff,
    roots=ROOTS,
    include=("**/tasks/*/api_conversation_history.json",),
    variants=("api_conversation_history.json", "ui_messages.json", "Markdown export"),
)
