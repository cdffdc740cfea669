"""Provenance of tool calls and tool results, shared by every adapter.

A tool call is split into what was *done* and what the agent *said* while doing it:

* ACT is the action as typed, decoded, never a JSON dump: the command line verbatim
  (quotes, newlines and tabs intact), the path, the URL, the query, and what was written
  into a configuration, code or data file (new text only, so a value at the start of a
  line is visible as a value). The text is ``"<tool>: <primary argument>"`` followed by
  the written content or the remaining arguments, one per line.
* SELF is the agent's prose riding in the call: a command's ``description``, a subagent
  ``prompt``, todo and plan texts, questions it asks, what it writes into prose documents
  (see :mod:`.paths`), and literal text its shell command prints (see :mod:`.shell`).

Tools are recognised by family from their name (``Bash``, ``shell``, ``run_shell_command``
are one family), so the rules hold across agents. An unknown tool -- an MCP tool, a new
built-in -- is decoded by one general rule on its argument names: prose-like keys
(``description``, ``prompt``, ``message``, ``reason``, ``title``, ``text`` and ``content``
without a path beside them …) are SELF, everything else is an action argument (ACT).

A tool *result* is TOOL (machine output) unless a model wrote it or it only repeats the
agent: results of subagents, web fetches (a model's summary of the page), web searches,
tools whose name says they ask a model, todo and plan tools, a shell command that only
prints literal text, a read-back of a prose document the agent itself wrote, and the echo
of a write into a prose document are SELF. The answers a person gives to the agent's
questions (``AskUserQuestion`` and its kin) and the words a person types when refusing a
tool call are USER.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field
from typing import Any

from ..evidence import SAME_CALL
from .paths import is_prose_path, resolve
from .shell import analyze

# --------------------------------------------------------------------------- names

_NOT_ALNUM = re.compile(r"[^a-z0-9]")
_CAMEL = re.compile(r"([a-z])([A-Z])")


def norm(name: object) -> str:
    return _NOT_ALNUM.sub("", str(name).lower()) if name is not None else ""


def base_name(name: str) -> str:
    """The tool's own name without an MCP server prefix (``mcp__srv__tool`` → ``tool``)."""
    if "__" in name:
        return name.rsplit("__", 1)[-1] or name
    return name


SHELL, READ, WRITE, EDIT, PATCH, SEARCH = "shell", "read", "write", "edit", "patch", "search"
WEBFETCH, WEBSEARCH, AGENT, TODO, PLAN, ASK, MEMORY, OTHER = (
    "web_fetch",
    "web_search",
    "agent",
    "todo",
    "plan",
    "ask",
    "memory",
    "other",
)

_FAMILIES: dict[str, frozenset[str]] = {
    SHELL: frozenset(
        {
            "bash",
            "shell",
            "execcommand",
            "runshellcommand",
            "localshell",
            "localshellcall",
            "powershell",
            "terminal",
            "runterminalcmd",
            "executecommand",
            "runcommand",
            "shellcommand",
            "runinterminal",
            "containerexec",
            "exec",
        }
    ),
    READ: frozenset(
        {
            "read",
            "readfile",
            "view",
            "viewfile",
            "notebookread",
            "readmanyfiles",
            "openfile",
            "readtextfile",
            "readfiles",
            "getfilecontents",
            "cat",
            "viewimage",
        }
    ),
    WRITE: frozenset(
        {"write", "writefile", "createfile", "writetofile", "newfile", "savefile", "create"}
    ),
    EDIT: frozenset(
        {
            "edit",
            "editfile",
            "replace",
            "multiedit",
            "strreplace",
            "strreplacebasededittool",
            "strreplaceeditor",
            "strreplacefile",  # Kimi CLI
            "searchreplace",
            "insert",
            "notebookedit",
            "editnotebook",
            "replaceinfile",
            "applydiff",
            "editnotebookfile",
        }
    ),
    PATCH: frozenset({"applypatch", "patch"}),
    SEARCH: frozenset(
        {
            "grep",
            "glob",
            "ls",
            "list",
            "listdirectory",
            "listdir",
            "searchfilecontent",
            "grepsearch",
            "codesearch",
            "findfiles",
            "filesearch",
            "listfiles",
            "globfiles",
            "find",
            "searchfiles",
            "lsp",
        }
    ),
    WEBFETCH: frozenset(
        {
            "webfetch",
            "fetch",
            "fetchurl",
            "readurl",
            "urlfetch",
            "browse",
            "scrape",
            "fetchwebpage",
            "readwebpage",
        }
    ),
    WEBSEARCH: frozenset(
        {
            "websearch",
            "googlewebsearch",
            "websearchcall",
            "search",
            "websearchpreview",
            "webrun",
            "searchweb",
        }
    ),
    AGENT: frozenset(
        {
            "task",
            "agent",
            "spawnagent",
            "delegatetoagent",
            "codebaseinvestigator",
            "subagent",
            "dispatchagent",
            "runsubagent",
            "sendmessage",
            "followuptask",
            "wait",
            "waitagent",
            "sendinput",
            "taskoutput",
            "agentoutput",
        }
    ),
    TODO: frozenset(
        {
            "todowrite",
            "todoread",
            "updateplan",
            "writetodos",
            "todo",
            "todos",
            "todolist",
            "taskcreate",
            "taskupdate",
            "tasklist",
            "taskget",
        }
    ),
    PLAN: frozenset({"exitplanmode", "enterplanmode", "proposeplan", "plan"}),
    ASK: frozenset(
        {
            "askuserquestion",
            "question",
            "askuser",
            "askfollowupquestion",
            "askquestion",
            "requestuserinput",
            "askhuman",
        }
    ),
    MEMORY: frozenset({"savememory", "memory", "remember", "addmemory"}),
}
_BY_NAME = {n: fam for fam, names in _FAMILIES.items() for n in names}

#: A tool whose name says it asks a language model returns a model's prose: either a
#: word of its name (``ask``, ``chat``, ``think`` …) or a telling fragment anywhere in it.
_MODEL_WORD = re.compile(r"(?:^|[^a-z])(ask|chat|think|reason|codex|review)(?:[^a-z]|$)")
_MODEL_PART = (
    "llm",
    "gpt",
    "gemini",
    "claude",
    "openai",
    "perplexity",
    "consult",
    "completion",
    "summari",
    "thinking",
    "reasoning",
    "oracle",
    "deepseek",
    "mistral",
    "grok",
    "anthropic",
    "ollama",
)


def family_of(name: str) -> str:
    base = base_name(name)
    fam = _BY_NAME.get(norm(base))
    if fam is None and base != name:
        fam = _BY_NAME.get(norm(name))
    return fam or OTHER


def model_backed(name: str) -> bool:
    if family_of(name) in (AGENT, WEBFETCH, WEBSEARCH):
        return True
    if family_of(name) == ASK:
        return False
    spaced = _CAMEL.sub(r"\1_\2", name).lower()
    return bool(_MODEL_WORD.search(spaced)) or any(p in norm(name) for p in _MODEL_PART)


# --------------------------------------------------------------------------- keys


def _k(key: object) -> str:
    return norm(key)


_COMMAND_KEYS = ("command", "cmd", "script", "commandline", "commands", "shellcommand")
_PATH_KEYS = (
    "filepath",
    "path",
    "absolutepath",
    "notebookpath",
    "file",
    "filename",
    "targetfile",
    "targetpath",
    "target",
    "dest",
    "destination",
    "relativepath",
    "uri",
)
_URL_KEYS = ("url", "href", "link", "urls")
_QUERY_KEYS = (
    "query",
    "q",
    "pattern",
    "regex",
    "searchterm",
    "searchquery",
    "queries",
    "glob",
    "include",
    "term",
    "keyword",
    "keywords",
)
_CWD_KEYS = ("cwd", "workdir", "workingdirectory", "directory", "dir")
_CONTENT_KEYS = (
    "content",
    "contents",
    "filetext",
    "newstring",
    "newstr",
    "newsource",
    "newtext",
    "newcontent",
    "text",
    "code",
    "body",
    "data",
    "source",
    "replacement",
    "insertion",
    "new",  # Kimi's StrReplaceFile: {"edit": {"old": …, "new": …}}
)
_OLD_KEYS = (
    "oldstring",
    "oldstr",
    "oldtext",
    "oldsource",
    "search",
    "find",
    "original",
    "oldcontent",
    "old",
)
_PROSE_KEYS = frozenset(
    {
        "description",
        "prompt",
        "message",
        "reason",
        "justification",
        "explanation",
        "rationale",
        "summary",
        "title",
        "note",
        "notes",
        "thought",
        "thoughts",
        "plan",
        "comment",
        "comments",
        "instructions",
        "instruction",
        "question",
        "questions",
        "goal",
        "objective",
        "context",
        "subject",
        "activeform",
        "fact",
        "answer",
        "feedback",
        "report",
        "analysis",
        "purpose",
        "intent",
        "details",
        "caption",
        "status_message",
        "statusmessage",
        "taskname",
        "memory",
        "text",
        "content",
        "body",
        "header",
        "label",
        "hint",
        "options",
        "explanationtext",
        "userfacingmessage",
        "commitmessage",
    }
)
_TODO_KEYS = frozenset({"todos", "todo", "items", "tasks", "plan", "steps", "newtodos"})
_TODO_TEXT = ("content", "text", "step", "task", "description", "title", "subject")


_URL = re.compile(r"https?://[^\s<>\"'`]+")


def _first(args: dict, keys: Iterable[str]) -> tuple[str, Any]:
    by = {_k(k): k for k in args}
    for want in keys:
        if want in by:
            v = args[by[want]]
            if v not in (None, "", [], {}):
                return by[want], v
    return "", None


def _scalar(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return v
    if isinstance(v, list) and all(isinstance(x, (str, int, float, bool)) for x in v):
        return " ".join(_scalar(x) for x in v)
    return ""


def command_text(v: Any) -> str:
    """A command as typed: a string verbatim, an argv list as its shell line (the script
    itself for ``bash -lc SCRIPT``)."""
    if isinstance(v, str):
        return v
    if isinstance(v, list) and v and all(isinstance(x, str) for x in v):
        if (
            len(v) >= 3
            and v[0].rsplit("/", 1)[-1] in ("bash", "sh", "zsh", "dash", "ksh", "fish")
            and v[1] in ("-c", "-lc", "-ic", "-lic", "-cl")
        ):
            return v[2]
        if (
            len(v) >= 3
            and v[0].lower().endswith(("powershell", "powershell.exe", "pwsh"))
            and v[1].lower() in ("-command", "-c")
        ):
            return v[2]
        return shlex.join(v)
    return _scalar(v)


# --------------------------------------------------------------------------- values


@dataclass(frozen=True)
class Piece:
    """One classed text from a tool call or result; ``kind`` says what it was."""

    cls: str
    text: str
    kind: str


@dataclass(frozen=True)
class ToolCall:
    """What the result of a tool call needs to know about the call."""

    name: str
    family: str = OTHER
    model: bool = False
    literal_output: bool = False
    reads: tuple[str, ...] = ()
    only_reads: bool = False
    prose_writes: tuple[str, ...] = ()
    prose_target: bool = False
    written: tuple[str, ...] = field(default=())

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "family": self.family,
            "model": self.model,
            "literal_output": self.literal_output,
            "reads": list(self.reads),
            "only_reads": self.only_reads,
            "prose_writes": list(self.prose_writes),
            "prose_target": self.prose_target,
        }


def _texts(v: Any) -> list[str]:
    """Every string inside a value, in order (prose fields may be lists or objects)."""
    if isinstance(v, str):
        return [v] if v.strip() else []
    if isinstance(v, list):
        return [t for x in v for t in _texts(x)]
    if isinstance(v, dict):
        return [t for x in v.values() for t in _texts(x)]
    return []


def _todo_lines(v: Any) -> list[str]:
    lines = []
    for item in v if isinstance(v, list) else [v]:
        if isinstance(item, str):
            lines.append(item)
        elif isinstance(item, dict):
            _, text = _first(item, _TODO_TEXT)
            if isinstance(text, str) and text.strip():
                lines.append(text)
    return lines


def _parse_args(args: Any) -> tuple[dict | None, str]:
    """A tool input as a dict, or the raw string when it is not a JSON object."""
    if isinstance(args, dict):
        return args, ""
    if isinstance(args, str):
        s = args.strip()
        if s.startswith("{"):
            try:
                obj = json.loads(s)
            except (ValueError, RecursionError):
                return None, args
            if isinstance(obj, dict):
                return obj, ""
        return None, args
    if args is None:
        return {}, ""
    return None, _scalar(args)


# --------------------------------------------------------------------------- patches

_PATCH_FILE = re.compile(r"^\*\*\* (Add|Update|Delete) File: (.+)$")
_MOVE = re.compile(r"^\*\*\* Move to: (.+)$")


def patch_files(patch: str) -> list[tuple[str, str, str]] | None:
    """``(operation, path, new text)`` per file of an ``apply_patch`` envelope or a
    unified diff; ``None`` when *patch* is neither. New text is the added lines without
    their ``+`` (for a unified diff, the ``+`` lines of every hunk)."""
    lines = patch.splitlines()
    out: list[list[Any]] = []
    if any(_PATCH_FILE.match(l) for l in lines):
        cur: list[Any] | None = None
        for line in lines:
            m = _PATCH_FILE.match(line)
            if m:
                cur = [m.group(1).lower(), m.group(2).strip(), []]
                out.append(cur)
                continue
            mv = _MOVE.match(line)
            if mv and cur is not None:
                cur[1] = mv.group(1).strip()
                continue
            if cur is not None and line.startswith("+"):
                cur[2].append(line[1:])
        return [(op, p, "\n".join(t)) for op, p, t in out]
    if any(l.startswith("+++ ") for l in lines):
        cur = None
        for line in lines:
            if line.startswith("+++ "):
                path = line[4:].split("\t", 1)[0].strip()
                if path.startswith("b/"):
                    path = path[2:]
                cur = ["update", path, []]
                out.append(cur)
            elif line.startswith("--- ") or line.startswith("@@"):
                continue
            elif cur is not None and line.startswith("+"):
                cur[2].append(line[1:])
        return [(op, p, "\n".join(t)) for op, p, t in out if p != "/dev/null"]
    return None


# --------------------------------------------------------------------------- calls


def _written(
    name: str, path: str, text: str, kind: str, pieces: list[Piece], header: str = ""
) -> bool:
    """Pieces for *text* written into *path*; True when it is a prose document."""
    head = header or f"{name}: {path}"
    if is_prose_path(path):
        pieces.append(Piece("ACT", head, kind))
        if text and text.strip():
            pieces.append(Piece("SELF", text, f"prose written to {path.rsplit('/', 1)[-1]}"))
        return True
    pieces.append(Piece("ACT", head + ("\n" + text if text else ""), kind))
    return False


def decode_call(name: Any, args: Any, *, cwd: str = "") -> tuple[list[Piece], ToolCall]:
    """Classed pieces of one tool call, and what its result needs to know."""
    name = name if isinstance(name, str) and name else "tool"
    fam = family_of(name)
    kind = f"tool_use {name}"
    obj, raw = _parse_args(args)
    if obj is None:  # a raw string input (a patch, a script, free text)
        return _decode_raw(name, fam, raw, kind, cwd)
    _, wd = _first(obj, _CWD_KEYS)
    cwd = wd if isinstance(wd, str) and wd.startswith("/") else cwd
    if fam == EDIT and _k(obj.get("command", "")) in ("view",):
        fam = READ
    if fam == EDIT and _k(obj.get("command", "")) == "create":
        fam = WRITE
    decode = _BY_FAMILY.get(fam)
    if decode is None:
        return _generic(name, obj, kind)
    return decode(name, fam, obj, kind, cwd)


def _shell_call(
    name: str, fam: str, obj: dict, kind: str, cwd: str
) -> tuple[list[Piece], ToolCall]:
    """A command run in a shell: what it does, and what it prints or writes as prose."""
    pieces: list[Piece] = []
    used: set[str] = set()
    key, cmd = _first(obj, _COMMAND_KEYS)
    used.add(key)
    if cmd is None:
        return _generic(name, obj, kind)
    text = command_text(cmd)
    facts = analyze(text, cwd)
    pieces.append(Piece("ACT", f"{name}: {text}", kind))
    pieces += _prose_of(obj, used | {key}, skip=_CWD_KEYS)
    for t in facts.self_texts:
        pieces.append(Piece("SELF", t, "text the command prints or writes as prose"))
    return pieces, ToolCall(
        name,
        SHELL,
        False,
        facts.literal_output,
        tuple(facts.reads),
        facts.only_reads,
        tuple(facts.prose_writes),
    )


def _read_call(name: str, fam: str, obj: dict, kind: str, cwd: str) -> tuple[list[Piece], ToolCall]:
    """A read or a search: what it looked at, and the files it read."""
    pieces: list[Piece] = []
    used: set[str] = set()
    order = (
        (_PATH_KEYS + ("paths",) + _QUERY_KEYS + _URL_KEYS)
        if fam == READ
        else (_QUERY_KEYS + _PATH_KEYS + ("paths",) + _URL_KEYS)
    )
    key, primary = _first(obj, order)
    if primary is None:
        return _generic(name, obj, kind)
    used.add(key)
    extras = _extras(obj, used | {k for k in obj if _k(k) in _CWD_KEYS})
    head = f"{name}: {_scalar(primary) if not isinstance(primary, str) else primary}"
    pieces.append(Piece("ACT", head + (f" ({extras})" if extras else ""), kind))
    pieces += _prose_of(obj, used)
    reads: tuple[str, ...] = ()
    if fam == READ:
        vals = primary if isinstance(primary, list) else [primary]
        reads = tuple(resolve(v, cwd) for v in vals if isinstance(v, str))
    return pieces, ToolCall(name, fam, False, False, reads, bool(reads))


def replace_sides(diff: str) -> str:
    """The new sides of ``SEARCH/REPLACE`` blocks (``<<<<<<< SEARCH`` or ``------- SEARCH``
    … ``=======`` … ``>>>>>>> REPLACE`` or ``+++++++ REPLACE``), one after another: what an
    edit given as such a diff sets. Read line by line, in one pass."""
    out: list[str] = []
    side = ""
    for line in diff.split("\n"):
        mark = line.strip()
        if mark.startswith("<<<<<<<") or (mark.startswith("-------") and mark.endswith("SEARCH")):
            side = "old"
        elif side == "old" and mark.startswith("=======") and not mark.strip("="):
            side = "new"
        elif mark.startswith(">>>>>>>") or (
            mark.startswith("+++++++") and mark.endswith("REPLACE")
        ):
            side = ""
        elif side == "new":
            out.append(line)
    return "\n".join(out)


def _write_call(
    name: str, fam: str, obj: dict, kind: str, cwd: str
) -> tuple[list[Piece], ToolCall]:
    """A file written or edited: prose written to a document is the agent's words."""
    pieces: list[Piece] = []
    used: set[str] = set()
    pkey, path = _first(obj, _PATH_KEYS)
    if not isinstance(path, str):
        return _generic(name, obj, kind)
    path = resolve(path, cwd)
    used |= {pkey, "command"}
    used |= {k for k in obj if _k(k) in _OLD_KEYS}
    prose = False
    edits = next((obj[k] for k in obj if _k(k) == "edits" and isinstance(obj[k], list)), None)
    if edits is None:  # Kimi: one edit, or a list of them, under "edit"
        one = next((obj[k] for k in obj if _k(k) == "edit"), None)
        edits = [one] if isinstance(one, dict) else one if isinstance(one, list) else None
    extras = _extras(
        obj,
        used
        | {k for k in obj if _k(k) in _CONTENT_KEYS + ("edits", "edit")}
        | {k for k in obj if _k(k) in _PROSE_KEYS},
    )
    header = f"{name}: {path}" + (f" ({extras})" if extras else "")
    if edits is not None:
        for e in edits:
            if isinstance(e, dict):
                _, new = _first(e, _CONTENT_KEYS)
                if isinstance(new, str):
                    prose = _written(name, path, new, kind, pieces, header) or prose
    else:
        ckey, content = _first(obj, _CONTENT_KEYS)
        if ckey:
            used.add(ckey)
        elif isinstance(obj.get("diff"), str):  # Cline's replace_in_file, apply_diff
            used.add("diff")
            content = replace_sides(obj["diff"])
        cell = _k(obj.get("cell_type", obj.get("cellType", "")))
        if cell == "markdown" and isinstance(content, str):
            pieces.append(Piece("ACT", header, kind))
            pieces.append(Piece("SELF", content, "markdown cell written"))
            prose = True
        else:
            prose = _written(
                name, path, content if isinstance(content, str) else "", kind, pieces, header
            )
    pieces += _prose_of(obj, used | {k for k in obj if _k(k) in _CONTENT_KEYS + ("edits",)})
    return pieces, ToolCall(
        name, fam, False, False, (), False, (path,) if prose else (), prose, (path,)
    )


def _patch_call(
    name: str, fam: str, obj: dict, kind: str, cwd: str
) -> tuple[list[Piece], ToolCall]:
    """A patch passed as an argument, read like a raw one."""
    used: set[str] = set()
    key, patch = _first(obj, ("patch", "patchtext", "input", "diff", "content", "changes"))
    if isinstance(patch, str):
        used.add(key)
        pieces_, call = _decode_raw(name, fam, patch, kind, cwd)
        return pieces_ + _prose_of(obj, used), call
    return _generic(name, obj, kind)


def _web_call(name: str, fam: str, obj: dict, kind: str, cwd: str) -> tuple[list[Piece], ToolCall]:
    """A fetch or a web search: its results come from outside."""
    pieces: list[Piece] = []
    used: set[str] = set()
    key, primary = _first(obj, _URL_KEYS + _QUERY_KEYS)
    if primary is None:  # the URLs ride inside the prompt (Gemini CLI's web_fetch)
        urls = [u.rstrip(".,;:)]}'\"") for t in _texts(obj) for u in _URL.findall(t)]
        primary = " ".join(dict.fromkeys(urls)) or None
    if primary is not None:
        used.add(key)
        extras = _extras(obj, used)
        pieces.append(
            Piece("ACT", f"{name}: {_scalar(primary)}" + (f" ({extras})" if extras else ""), kind)
        )
    else:
        pieces.append(Piece("ACT", name, kind))
    pieces += _prose_of(obj, used)
    return pieces, ToolCall(name, fam, True)


def _agent_call(
    name: str, fam: str, obj: dict, kind: str, cwd: str
) -> tuple[list[Piece], ToolCall]:
    """Work handed to another agent."""
    pieces: list[Piece] = []
    used: set[str] = set()
    key, who = _first(
        obj, ("subagenttype", "agent", "agenttype", "target", "name", "agentname", "id", "agentid")
    )
    used.add(key)
    extras = _extras(obj, used)
    head = f"{name}: {_scalar(who)}" if who else name
    pieces.append(Piece("ACT", head + (f" ({extras})" if extras else ""), kind))
    pieces += _prose_of(obj, used)
    return pieces, ToolCall(name, AGENT, True)


def _notes_call(
    name: str, fam: str, obj: dict, kind: str, cwd: str
) -> tuple[list[Piece], ToolCall]:
    """A to-do list, a plan or a note: all of it the agent's words."""
    pieces: list[Piece] = []
    lines: list[str] = []
    for k, v in obj.items():
        nk = _k(k)
        if nk in _TODO_KEYS and isinstance(v, list):
            lines += _todo_lines(v)
        elif nk in _PROSE_KEYS or isinstance(v, str) and nk not in _PATH_KEYS:
            lines += _texts(v)
    if lines:
        pieces.append(Piece("SELF", "\n".join(lines), f"{fam} text"))
    return pieces, ToolCall(name, fam, True)


def _ask_call(name: str, fam: str, obj: dict, kind: str, cwd: str) -> tuple[list[Piece], ToolCall]:
    """Questions the agent asks the person."""
    pieces: list[Piece] = []
    texts = _texts({k: v for k, v in obj.items() if _k(k) not in ("multiselect", "multiple")})
    if texts:
        pieces.append(Piece("SELF", "\n".join(texts), "questions the agent asks"))
    return pieces, ToolCall(name, ASK, False)


#: how each family's arguments are read; any other family takes the general rule
_BY_FAMILY: dict[str, Callable[[str, str, dict, str, str], tuple[list[Piece], ToolCall]]] = {
    SHELL: _shell_call,
    READ: _read_call,
    SEARCH: _read_call,
    WRITE: _write_call,
    EDIT: _write_call,
    PATCH: _patch_call,
    WEBFETCH: _web_call,
    WEBSEARCH: _web_call,
    AGENT: _agent_call,
    TODO: _notes_call,
    PLAN: _notes_call,
    MEMORY: _notes_call,
    ASK: _ask_call,
}


def _extras(obj: dict, used: set[str]) -> str:
    parts = []
    for k, v in obj.items():
        if k in used or _k(k) in _PROSE_KEYS or _k(k) in _OLD_KEYS:
            continue
        s = _scalar(v)
        if s and "\n" not in s and len(s) <= 200:
            parts.append(f"{k}={s}")
    return ", ".join(parts)


def _prose_of(
    obj: dict, used: set[str], *, skip: Iterable[str] = (), everything_else: bool = False
) -> list[Piece]:
    """SELF pieces for the prose-like arguments of *obj* not in *used*."""
    out = []
    skip_n = {_k(s) for s in skip}
    for k, v in obj.items():
        nk = _k(k)
        if k in used or nk in skip_n or nk in _OLD_KEYS:
            continue
        if (
            nk in _PROSE_KEYS
            or (nk in _TODO_KEYS and isinstance(v, list))
            or (
                everything_else
                and isinstance(v, (str, list, dict))
                and nk not in _PATH_KEYS
                and nk not in _URL_KEYS
                and nk not in _QUERY_KEYS
            )
        ):
            texts = _todo_lines(v) if nk in _TODO_KEYS and isinstance(v, list) else _texts(v)
            if texts:
                out.append(Piece("SELF", "\n".join(texts), f"{k} (the agent's words)"))
    return out


def _generic(name: str, obj: dict, kind: str) -> tuple[list[Piece], ToolCall]:
    """The general rule for a tool nobody told us about (documented in DESIGN.md)."""
    args = _GenericArgs(has_path=_first(obj, _PATH_KEYS)[1] is not None)
    written: list[str] = []
    prose_written: list[str] = []
    pkey, path = _first(obj, _PATH_KEYS)
    ckey, content = _first(obj, _CONTENT_KEYS) if args.has_path else ("", None)
    for k, v in obj.items():
        if k == ckey and isinstance(path, str) and isinstance(content, str):
            written.append(path)
            if is_prose_path(path):
                prose_written.append(path)
                args.pieces.append(
                    Piece("SELF", content, f"prose written to {path.rsplit('/', 1)[-1]}")
                )
            else:
                args.act_lines.append(content)
            continue
        args.value(str(k), v, 0)
    act_lines, pieces = args.act_lines, args.pieces
    # one argument reads naturally as "tool: value"
    if len(act_lines) == 1 and ": " in act_lines[0] and not written:
        text = f"{name}: {act_lines[0].split(': ', 1)[1]}"
    elif act_lines:
        text = f"{name}:\n" + "\n".join(act_lines)
    else:
        text = name
    pieces.insert(0, Piece("ACT", text, kind))
    return pieces, ToolCall(
        name,
        OTHER,
        model_backed(name),
        False,
        (),
        False,
        tuple(prose_written),
        bool(prose_written),
        tuple(written),
    )


class _GenericArgs:
    """The arguments of an unknown tool, walked into prose (SELF pieces) and the lines
    that say what the call does (``key: value``), nested values by their path."""

    def __init__(self, *, has_path: bool) -> None:
        self.has_path = has_path
        self.pieces: list[Piece] = []
        self.act_lines: list[str] = []

    def value(self, key: str, v: Any, depth: int) -> None:
        nk = _k(key.rsplit(".", 1)[-1])
        if v in (None, "", [], {}) or nk in _OLD_KEYS:
            return
        if nk in _PROSE_KEYS and not (nk in _CONTENT_KEYS and self.has_path and depth == 0):
            self._said(key, _texts(v))
        elif nk in _TODO_KEYS and isinstance(v, list):
            self._said(key, _todo_lines(v))
        elif isinstance(v, dict) and depth < 4:
            for k2, v2 in v.items():
                self.value(f"{key}.{k2}", v2, depth + 1)
        elif (
            isinstance(v, list)
            and depth < 4
            and not all(isinstance(x, (str, int, float, bool)) for x in v)
        ):
            for i, v2 in enumerate(v):
                if isinstance(v2, dict):
                    for k2, v3 in v2.items():
                        self.value(f"{key}[{i}].{k2}", v3, depth + 1)
                else:
                    self.value(f"{key}[{i}]", v2, depth + 1)
        elif nk in _COMMAND_KEYS:
            self.act_lines.append(f"{key}: {command_text(v)}")
        else:
            self.act_lines.append(f"{key}: {_scalar(v)}")

    def _said(self, key: str, texts: list[str]) -> None:
        if texts:
            self.pieces.append(Piece("SELF", "\n".join(texts), f"{key} (the agent's words)"))


def _decode_raw(name: str, fam: str, raw: str, kind: str, cwd: str) -> tuple[list[Piece], ToolCall]:
    pieces: list[Piece] = []
    files = patch_files(raw) if raw else None
    if files is not None:
        prose_paths: list[str] = []
        written: list[str] = []
        for op, path, text in files:
            path = resolve(path, cwd)
            # one call, one result: every file after the first is a part of the same call
            part = kind if not written else f"{kind} {SAME_CALL}"
            written.append(path)
            if op == "delete":
                pieces.append(Piece("ACT", f"{name}: delete {path}", part))
                continue
            if _written(name, path, text, part, pieces, f"{name}: {op} {path}"):
                prose_paths.append(path)
        return pieces, ToolCall(
            name,
            PATCH,
            False,
            False,
            (),
            False,
            tuple(prose_paths),
            bool(prose_paths) and len(prose_paths) == len(written),
            tuple(written),
        )
    if fam == SHELL:
        facts = analyze(raw, cwd)
        pieces.append(Piece("ACT", f"{name}: {raw}", kind))
        pieces += [
            Piece("SELF", t, "text the command prints or writes as prose") for t in facts.self_texts
        ]
        return pieces, ToolCall(
            name,
            SHELL,
            False,
            facts.literal_output,
            tuple(facts.reads),
            facts.only_reads,
            tuple(facts.prose_writes),
        )
    if fam in (TODO, PLAN, MEMORY, ASK, AGENT):
        if raw.strip():
            pieces.append(Piece("SELF", raw, f"{fam} text"))
        return pieces, ToolCall(name, fam, fam != ASK)
    pieces.append(Piece("ACT", f"{name}: {raw}" if raw.strip() else name, kind))
    return pieces, ToolCall(name, fam, model_backed(name))


# --------------------------------------------------------------------------- results

_WHY = {
    AGENT: "a subagent's answer",
    WEBFETCH: "a model's summary of a web page",
    WEBSEARCH: "web search results (may hold model-written text)",
    TODO: "the agent's own todo list echoed back",
    PLAN: "the agent's own plan echoed back",
    MEMORY: "the agent's own note echoed back",
}


def result_class(call: ToolCall | None, prose_files: Collection[str] = ()) -> tuple[str, str]:
    """``(class, kind)`` of the result of *call* (``None``: the call is unknown)."""
    if call is None:
        return "TOOL", "tool_result"
    if call.family in _WHY:
        return "SELF", f"tool_result {call.name}: {_WHY[call.family]}"
    if call.model:
        return "SELF", f"tool_result {call.name}: a model's answer"
    if call.family == SHELL:
        if call.literal_output:
            return "SELF", f"tool_result {call.name}: prints only text the agent typed"
        if call.only_reads and call.reads and all(r in prose_files for r in call.reads):
            return "SELF", f"tool_result {call.name}: the agent's own notes read back"
    if call.family == READ and call.reads and all(r in prose_files for r in call.reads):
        return "SELF", f"tool_result {call.name}: the agent's own notes read back"
    if call.prose_target:
        return "SELF", f"tool_result {call.name}: echo of prose the agent wrote"
    return "TOOL", f"tool_result {call.name}"


_REJECT = re.compile(
    r"^The user doesn't want to (?:proceed with this tool use|take this action)"
    r"[^\n]*?(?:the user said:\s*\n?(?P<said>.*))?$",
    re.DOTALL,
)
_CLARIFY = "The user wants to clarify these questions."
_PLAN_REJECTED = "The agent proposed a plan that was rejected by the user."


def rejection(text: str) -> list[Piece] | None:
    """Pieces of the harness message sent when a person refuses a tool call: the words
    the person typed as their reason are USER; the harness text around them is skipped.
    ``None`` when *text* is not such a message."""
    t = text.strip()
    if t.startswith(_PLAN_REJECTED):
        return [Piece("SELF", t, "rejected plan")]
    m = _REJECT.match(t)
    if not m:
        return None
    said = (m.group("said") or "").strip()
    if not said:
        # refused without a reason: the host's own sentence answers the call, so the gate
        # knows it was refused (a call with no answer could read as done)
        return [Piece("TOOL", t.split(". ")[0].rstrip(".") + ".", "tool_result (refused)")]
    if said.startswith(_CLARIFY):
        return [Piece("SELF", said, "harness text about a refused question")]
    return [Piece("USER", said, "the person's reason for refusing a tool call")]


def _answer_ends(text: str, at: int) -> bool:
    """Does the quote at *at* close an answer: is it followed by ``, "`` (the next pair),
    ``. You can now`` (the harness's closing words) or the end of the text?"""
    i, n = at + 1, len(text)
    while i < n and text[i].isspace():
        i += 1
    if i == n:
        return True
    if text[i] == ",":
        i += 1
        while i < n and text[i].isspace():
            i += 1
        return i < n and text[i] == '"'
    if text[i] != ".":
        return False
    i += 1
    while i < n and text[i].isspace():
        i += 1
    return i == n or text.startswith("You can now", i)


def _answer_pairs(text: str) -> list[tuple[str, str]]:
    """``"question"="answer"`` pairs of the harness's answer text, in one pass: the first
    ``"="`` after a quote splits question from answer, and the answer runs to the first
    quote that :func:`_answer_ends`. When no quote after a separator can end an answer,
    none after any later separator can either, so the scan stops there."""
    pairs: list[tuple[str, str]] = []
    pos = 0
    while True:
        opened = text.find('"', pos)
        if opened < 0:
            return pairs
        sep = text.find('"="', opened + 2)
        if sep < 0:
            return pairs
        close = text.find('"', sep + 3)
        while close >= 0 and not _answer_ends(text, close):
            close = text.find('"', close + 1)
        if close < 0:
            return pairs
        pairs.append((text[opened + 1 : sep], text[sep + 3 : close]))
        pos = close + 1


def answers(text: str, structured: Any = None) -> list[Piece]:
    """The person's answers to the agent's questions (USER), and the questions (SELF)."""
    pairs: list[tuple[str, str]] = []
    if isinstance(structured, dict):
        ans = structured.get("answers")
        if isinstance(ans, dict):
            pairs = [(str(q), a if isinstance(a, str) else _scalar(a)) for q, a in ans.items()]
    if not pairs and text:
        pairs = _answer_pairs(text)
    out: list[Piece] = []
    for q, a in pairs:
        out.append(Piece("SELF", q, "question the agent asked"))
        if a and a.strip():
            out.append(Piece("USER", a, "the person's answer"))
    return out
