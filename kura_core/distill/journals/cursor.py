"""Cursor: agent transcripts and SpecStory Markdown exports (and Grok CLI's chat history,
which wraps the person's words the same way).

* Agent transcripts (``~/.cursor/projects/<workspace>/agent-transcripts/<id>/<id>.jsonl``,
  also written by the ``cursor-agent`` CLI): JSON Lines, byte watermark, one message per
  line, ``{role, message: {content: [blocks]}}``. In a user-role message only the text
  inside ``<user_query>`` is what the person typed (USER); the blocks Cursor adds beside it
  (``<user_info>``, ``<git_status>``, ``<attached_files>``, rules, reminders …) are noted,
  and the canned build prompt Cursor sends for a plan ("Implement the plan as
  specified…") is Cursor's text, not the person's. Assistant text is SELF, ``tool_use``
  blocks ACT plus SELF for their prose, ``tool_result`` blocks TOOL or SELF by
  provenance; ``turn_ended`` and ``metadata`` lines are noted.
* Older text transcripts (``agent-transcripts/<id>.txt``): ``user:`` / ``A:`` sections,
  ``[Tool call] NAME`` with indented ``key: value`` arguments, ``[Tool result] NAME``,
  one-line ``[Thinking]`` notes -- read by the same rules, byte watermarks at section starts.
* Grok CLI (``~/.grok/sessions/<cwd>/<id>/chat_history.jsonl``): ``{type: user |
  assistant | tool_result | reasoning | system, content}`` lines with the same
  ``<user_query>`` rule; assistant ``tool_calls`` are ACT.
* SpecStory exports (``.specstory/history/*.md``), read as a whole (``seq`` watermark,
  the turn index): a turn starts at a ``_**User**_`` / ``_**Assistant**_`` /
  ``_**Agent**_`` line -- but never inside a code fence, a ``<details>`` block or a
  ``<tool-use>`` block, where such a line is quoted text. User turns are USER (minus the
  canned build prompt); assistant turns SELF, their tool blocks TOOL.
"""

from __future__ import annotations

import os
import re
from typing import Any

from ...shapes import dict_at
from . import provenance as pv
from .base import (
    IGNORED,
    Intake,
    Read,
    decode_bytes,
    encoding_problem,
    read_turns,
    refused,
)
from .documents import content_text, read_records
from .recognize import (
    is_cursor_text,
    is_grok_record,
    is_specstory,
)

_QUERY = re.compile(r"<user_query>\n?(.*?)\n?(?:</user_query>|\Z)", re.DOTALL)
#: the role this agent's records give the person (its format's word, not provenance)
_USER_ROLE = "user"
_TRAILING_RULE = re.compile(r"\n---\s*+$")
_RULE_LINES = re.compile(r"^_\*\*\*\*_\s*$|^---\s*$", re.MULTILINE)
_ARG_LINE = re.compile(r"\s{2}([A-Za-z_][\w-]*+):\s?(.*)$")
_ANY_BLOCK = re.compile(r"<([A-Za-z_][\w-]*)(?:\s[^<>]*)?>.*?(?:</\1>|\Z)", re.DOTALL)
#: The prompt Cursor sends when the person clicks "Build" on a plan.
_CANNED = re.compile(
    r"Implement the plan as specified(?:, it is attached for your reference)?\.?"
    r"(?:\s*Do NOT edit the plan file itself\.)?"
    r"(?:\s*To-do['’]?s from the plan have already been created\.)?"
    r"(?:\s*Do not create them again\.)?"
    r"(?:\s*Mark them as in_progress as you work, starting with the first one\.)?"
    r"(?:\s*Don['’]?t stop until you have completed all the to-dos\.)?",
)
from . import recognize as rc
from .registry import Adapter, Head


def typed_words(text: str) -> str:
    """What the person typed in a user-role text: the ``<user_query>`` body when there is
    one, else the text outside Cursor's blocks; the canned plan prompt removed."""
    queries = [m.group(1) for m in _QUERY.finditer(text)]
    said = "\n".join(queries) if queries else _ANY_BLOCK.sub("", text)
    return _CANNED.sub("", said).strip()


class _Transcript:
    def __init__(self) -> None:
        self.session = ""
        self.calls: dict[str, pv.ToolCall] = {}
        self.prose: set[str] = set()

    def copy(self) -> _Transcript:
        c = _Transcript()
        c.session, c.calls, c.prose = self.session, dict(self.calls), set(self.prose)
        return c

    def stamp(self, obj: dict) -> str:
        ts = obj.get("timestamp")
        return ts if isinstance(ts, str) else ""

    def observe(self, obj: dict) -> None:
        self.pieces(obj, lambda *a, **k: None)

    def pieces(self, obj: dict, note: Any) -> list[pv.Piece] | None:
        role = obj.get("role")
        rtype = obj.get("type")
        if role in ("user", "assistant") and isinstance(obj.get("message"), dict):
            blocks = obj["message"].get("content")
            return self._blocks(str(role), blocks, note)
        if rtype in ("turn_ended", "metadata"):
            note(f"{rtype} marker", IGNORED)
            return []
        if is_grok_record(obj):
            return self._grok(obj, note)
        return None

    def _blocks(self, role: str, blocks: Any, note: Any) -> list[pv.Piece]:
        if isinstance(blocks, str):
            blocks = [{"type": "text", "text": blocks}]
        if not isinstance(blocks, list):
            return []
        out: list[pv.Piece] = []
        for b in blocks:
            if not isinstance(b, dict):
                continue
            btype = b.get("type")
            if btype == "text" and isinstance(b.get("text"), str):
                out.extend(self._text(role, b["text"]))
            elif btype == "tool_use":
                out.extend(self._call(b.get("name"), b.get("input"), b.get("id")))
            elif btype == "tool_result":
                out.extend(self._result(b.get("tool_use_id"), content_text(b.get("content"))))
        if not out and role == "user":
            note("Cursor's context blocks on the person's channel", IGNORED)
        return out

    def _text(self, role: str, text: str) -> list[pv.Piece]:
        if role == "user":
            words = typed_words(text)
            return [pv.Piece("USER", words, "user query")] if words else []
        return [pv.Piece("SELF", text.strip(), "assistant text")] if text.strip() else []

    def _call(self, name: Any, args: Any, call_id: Any) -> list[pv.Piece]:
        pieces, call = pv.decode_call(name, args)
        self.prose.update(call.prose_writes)
        if isinstance(call_id, str):
            self.calls[call_id] = call
        return pieces

    def _result(self, call_id: Any, text: str) -> list[pv.Piece]:
        if not text.strip():
            return []
        cls, kind = pv.result_class(self.calls.get(str(call_id or "")), self.prose)
        return [pv.Piece(cls, text.strip(), kind)]

    def _grok(self, obj: dict, note: Any) -> list[pv.Piece]:
        rtype = obj["type"]
        if rtype == _USER_ROLE and obj.get("synthetic_reason"):
            note("a turn the CLI wrote on the person's behalf (synthetic)", IGNORED)
            return []
        if rtype == _USER_ROLE:
            return self._blocks("user", obj.get("content"), note)
        if rtype == "assistant":
            out = self._blocks("assistant", obj.get("content"), note)
            for tc in obj.get("tool_calls") or []:
                if isinstance(tc, dict):
                    fn = dict_at(tc, "function")
                    name = tc.get("name") or fn.get("name")
                    args = tc.get("arguments", fn.get("arguments"))
                    out.extend(self._call(name, args, tc.get("id")))
            return out
        if rtype == "tool_result":
            return self._result(obj.get("tool_call_id"), content_text(obj.get("content")))
        note(f"{rtype} record", IGNORED)
        return []


def read_cursor(
    path: str | os.PathLike[str], start: int, *, limit_bytes: int | None = None
) -> Read:
    """Read a Cursor agent transcript (or Grok CLI chat history) from byte *start*; a
    SpecStory Markdown export from turn *start*."""
    if is_specstory(path):
        return read_specstory(path, start)
    if is_cursor_text(path):
        return read_cursor_text(path, start)
    return read_records(
        path, start, limit_bytes, adapter="cursor", label="Cursor transcript", reader=_Transcript
    )


# --------------------------------------------------------------------------- SpecStory

_HEADING = re.compile(r"^_\*\*(User|Assistant|Agent|Cursor)\b[^\n]*?\*\*_\s*$")
_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_OPEN = re.compile(r"<(details|tool-use|think)\b[^>]*>", re.IGNORECASE)
_CLOSE = re.compile(r"</(details|tool-use|think)>", re.IGNORECASE)
_TOOL_BLOCK = re.compile(
    r"<(details|tool-use)\b[^>]*>.*?(?:</\1>|\Z)|<think>.*?(?:</think>|\Z)",
    re.DOTALL | re.IGNORECASE,
)


def _bare(line: str, run: str) -> bool:
    """True when *line* is only a fence run (a closing fence carries no info string)."""
    return not line.strip()[len(run) :]


def markdown_turns(
    text: str, heading: re.Pattern[str], starts: tuple[str, ...] = ()
) -> list[tuple[str, str]]:
    """``(heading line, body)`` of each section of a Markdown transcript: a section starts at a
    line matching *heading* (and beginning with one of *starts*, a cheap first test), never
    inside a code fence or a ``<details>`` / ``<tool-use>`` block, where such a line is quoted
    text. One pass over the lines."""
    turns: list[tuple[str, list[str]]] = []
    fence = ""
    depth = 0
    for line in text.split("\n"):
        lead = line.lstrip()[:3]
        if lead in ("```", "~~~"):
            mark = _FENCE.match(line)
            run = mark.group(1) if mark else ""
            if run and not fence:
                fence = run
            elif run and run[0] == fence[0] and len(run) >= len(fence) and _bare(line, run):
                fence = ""
        elif not fence:
            if "<" in line:
                depth = max(0, depth + len(_OPEN.findall(line)) - len(_CLOSE.findall(line)))
            if depth == 0 and (not starts or line.startswith(starts)) and heading.match(line):
                turns.append((line, []))
                continue
        if turns:
            turns[-1][1].append(line)
    return [(head, "\n".join(body)) for head, body in turns]


def specstory_turns(text: str) -> list[tuple[str, str]]:
    """``(speaker, body)`` of each SpecStory turn."""
    return [
        (_HEADING.match(head).group(1), body)  # type: ignore[union-attr]
        for head, body in markdown_turns(text, _HEADING, ("_**",))
    ]


def _turn_pieces(who: str, body: str) -> list[pv.Piece]:
    body = _TRAILING_RULE.sub("", body.strip()).strip()
    if who == "User":
        words = _CANNED.sub("", body).strip()
        return [pv.Piece("USER", words, "user turn (SpecStory)")] if words else []
    pieces = [
        pv.Piece("TOOL", m.group(0), "tool block (SpecStory)")
        for m in _TOOL_BLOCK.finditer(body)
        if not m.group(0).lower().startswith("<think")
    ]
    prose = _TOOL_BLOCK.sub("", body)
    prose = _RULE_LINES.sub("", prose).strip()
    if prose:
        pieces.insert(0, pv.Piece("SELF", prose, "assistant turn (SpecStory)"))
    return pieces


def read_specstory(path: str | os.PathLike[str], start: int) -> Read:
    source = str(path)
    problem = encoding_problem(path)
    if problem:
        return refused("seq", start, problem)
    with open(path, "rb") as fh:
        text, repaired = decode_bytes(fh.read())
    return read_turns(
        source,
        "seq",
        specstory_turns(text),
        start,
        _turn_pieces,
        repaired=repaired,
        empty="turn without text",
    )


# --------------------------------------------------------------------------- text transcripts

_TEXT_ROLE = {"user:": "user", "A:": "assistant", "assistant:": "assistant"}
_TEXT_TOOL = re.compile(r"^\[(Tool call|Tool result|Thinking)\]\s*(.*)$")
_THINK = re.compile(r"<think>.*?(?:</think>|\Z)", re.DOTALL)


def _text_head(line: str) -> tuple[str, str] | None:
    """``(kind, name)`` when *line* opens a section of a text transcript."""
    s = line.rstrip("\r")
    if s.strip() in _TEXT_ROLE and s == s.strip():
        return _TEXT_ROLE[s.strip()], ""
    m = _TEXT_TOOL.match(s)
    if m:
        return {"Tool call": "call", "Tool result": "result", "Thinking": "thinking"}[
            m.group(1)
        ], m.group(2).strip()
    return None


def _text_sections(data: bytes, base: int) -> list[tuple[str, str, str, int, int]]:
    """``(kind, name, body, start, end)`` of each section in *data* (which starts at byte
    *base*, at a section boundary); text before the first heading is its own section."""
    out: list[tuple[str, str, list[str], int, int]] = []
    pos = base
    for raw in data.split(b"\n"):
        line = raw.decode("utf-8", errors="replace")
        head = _text_head(line)
        if head is not None and head[0] == "thinking":
            # a one-line thought; the lines after it are the reply again
            out.append(("assistant", "", [], pos, pos))
        elif head is not None:
            out.append((head[0], head[1], [], pos, pos))
        elif not out:
            out.append(("preamble", "", [line], pos, pos))
        else:
            out[-1][2].append(line)
        pos += len(raw) + 1
        kind, name, body, start, _ = out[-1]
        out[-1] = (kind, name, body, start, min(pos, base + len(data)))
    return [(k, n, "\n".join(b).strip("\n").rstrip(), s, e) for k, n, b, s, e in out]


def _tool_args(body: str) -> tuple[dict, str]:
    """The ``  key: value`` argument lines a text transcript writes under a tool call."""
    args: dict[str, str] = {}
    rest: list[str] = []
    key = ""
    for line in body.split("\n"):
        m = _ARG_LINE.match(line)
        if m:
            key = m.group(1)
            args[key] = m.group(2)
        elif key and line.startswith("    "):
            args[key] += "\n" + line[4:]
        else:
            rest.append(line)
    return args, "\n".join(rest).strip()


class _TextState:
    def __init__(self) -> None:
        self.calls: dict[str, pv.ToolCall] = {}
        self.prose: set[str] = set()

    def pieces(self, kind: str, name: str, body: str) -> list[pv.Piece]:
        if kind == _USER_ROLE:
            words = typed_words(body)
            return [pv.Piece("USER", words, "user query")] if words else []
        if kind == "assistant":
            text = _THINK.sub("", body).strip()
            return [pv.Piece("SELF", text, "assistant text")] if text else []
        if kind == "call":
            args, _ = _tool_args(body)
            got, call = pv.decode_call(name, args)
            self.prose.update(call.prose_writes)
            self.calls[name] = call
            return got
        if kind == "result" and body:
            cls, kind_ = pv.result_class(self.calls.get(name), self.prose)
            return [pv.Piece(cls, body, kind_)]
        return []


def read_cursor_text(path: str | os.PathLike[str], start: int) -> Read:
    """Read a Cursor text transcript (``agent-transcripts/<id>.txt``) from byte *start*.

    Sections start at ``user:``, ``A:`` / ``assistant:``, ``[Tool call] NAME``, ``[Tool
    result] NAME`` and ``[Thinking]`` lines; the last one is read once another follows it
    or the file has been quiet (the watermark sits at a section start)."""
    from .documents import still_changing

    source = str(path)
    problem = encoding_problem(path)
    if problem:
        return refused("byte", start, problem)
    with open(path, "rb") as fh:
        head = fh.read(start)
        data = fh.read()
    intake = Intake(source, "byte")
    state = _TextState()
    for kind, name, body, _s, _e in _text_sections(head, 0):  # the calls before the window
        state.pieces(kind, name, body)
    sections = _text_sections(data, start) if data else []
    if sections and still_changing(path) and not data.endswith(b"\n\n"):
        sections = sections[:-1]  # the last section may still be growing
    session = os.path.splitext(os.path.basename(source))[0]
    end = start
    for kind, name, body, s, e in sections:
        intake.begin(s, e)
        pieces = state.pieces(kind, name, body)
        before = len(intake.segments)
        for p in pieces:
            intake.add(p.cls, p.text, s, e, session=session, kind=p.kind)
        if len(intake.segments) == before:
            intake.note(s, e, f"{kind} section without the person's or the agent's words", IGNORED)
        end = e
    return intake.result(start, end)


#: Where Cursor (IDE and CLI) keeps agent transcripts, per project; Grok CLI's history is
#: under ``~/.grok/sessions`` (named as a root of this adapter when wanted).
ROOTS: dict[str, tuple[str, ...]] = {
    "linux": ("~/.cursor/projects",),
    "darwin": ("~/.cursor/projects",),
    "win32": ("~/.cursor/projects",),
}


# --------------------------------------------------------------------------- detection


def sniff(head: Head) -> float:
    """Agent-transcript JSON Lines (or Grok CLI's history), or the plain-text transcripts."""
    if head.plain:
        return 1.0 if rc.is_cursor_text(head.path) else 0.0
    return head.share(lambda obj, _i: rc.is_cursor_record(obj))


def sniff_specstory(head: Head) -> float:
    """A SpecStory Markdown export (``.specstory/history/*.md``)."""
    return 1.0 if head.plain and rc.is_specstory(head.path) else 0.0


def _read_specstory(
    path: str | os.PathLike[str], start: int, *, limit_bytes: int | None = None
) -> Read:
    return read_specstory(path, start)


ADAPTER = Adapter(
    name="cursor",
    label="Cursor",
    unit="byte",
    read=read_cursor,
    sniff=sniff,
    roots=ROOTS,
    include=("**/agent-transcripts/**/*.jsonl", "**/agent-transcripts/*.txt"),
    variants=("agent transcript JSON Lines", "agent transcript text", "Grok CLI history"),
    windowed=True,
)

SPECSTORY = Adapter(
    name="specstory",
    label="SpecStory export",
    unit="seq",
    read=_read_specstory,
    sniff=sniff_specstory,
    include=("**/.specstory/history/*.md",),
    variants=("Markdown export",),
)
