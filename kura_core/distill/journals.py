"""Journal adapters: read a transcript from a watermark, return classed segments.

Each adapter consumes only complete records. A trailing line without its newline is a
record still being written, so it is left for the next read and the returned watermark
never passes half a line. Watermark units are per adapter:

* ``claude`` and ``text`` -- byte offsets (append-only files);
* ``evidence`` -- record sequence numbers, the 0-based line number (archives that get
  rewritten, where a byte offset would be a lie).

Skipped records are counted by reason in :attr:`Read.skipped`; reasons never contain any
part of the payload.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

from kura_core.distill.evidence import CLASSES, Segment
from kura_core.errors import KuraError


class JournalError(KuraError):
    """A journal could not be identified or read."""


@dataclass(frozen=True)
class Read:
    """What one adapter call consumed.

    ``start``/``end`` are the watermark before and after, in ``unit``; ``end`` is where the
    next read starts. ``records`` counts complete records consumed (lines for JSONL,
    paragraphs for text), whether or not they produced segments.
    """

    segments: tuple[Segment, ...]
    start: int
    end: int
    unit: str
    skipped: Mapping[str, int]
    records: int


# --------------------------------------------------------------------------- line reading


def _open_lines(
    path: str | os.PathLike[str], start: int, limit_bytes: int | None, skipped: Counter
) -> tuple[int, list[tuple[int, bytes]], int, bool]:
    """Complete lines of *path* from byte *start*.

    Returns ``(first, lines, end, tail)``: ``first`` is where the first whole line
    begins (past a fragment when *start* points inside a line); ``lines`` holds
    ``(offset, raw_line)`` with the newline still attached; ``end`` is the offset just
    after the last complete line; ``tail`` says whether any bytes follow it unread
    (without a limit: an unfinished line). ``limit_bytes`` is soft: at least one complete
    line is returned when one exists, so one enormous line cannot wedge the watermark.
    """
    with open(path, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        if start > size:
            skipped["journal shorter than watermark"] += 1
            return start, [], start, False
        pos = start
        if start > 0:
            fh.seek(start - 1)
            if fh.read(1) != b"\n":
                # The mark points inside a line: that fragment is not a record.
                rest = fh.readline()
                if not rest.endswith(b"\n"):
                    return start, [], start, True
                skipped["partial line at watermark"] += 1
                pos = start + len(rest)
        fh.seek(pos)
        if limit_bytes is None:
            data = fh.read()
        else:
            data = fh.read(max(1, limit_bytes))
            while b"\n" not in data:
                more = fh.read(65536)
                if not more:
                    break
                data += more
        cut = data.rfind(b"\n")
        tail = len(data) > cut + 1 or fh.read(1) != b""
        if cut < 0:
            return pos, [], pos, tail
        data = data[: cut + 1]
    lines: list[tuple[int, bytes]] = []
    offset = pos
    for piece in data.split(b"\n")[:-1]:
        raw = piece + b"\n"
        lines.append((offset, raw))
        offset += len(raw)
    return pos, lines, offset, tail


def _frozen(counter: Counter) -> Mapping[str, int]:
    return MappingProxyType({k: v for k, v in sorted(counter.items())})


# --------------------------------------------------------------------------- claude


# Tools whose result is another model's prose (a subagent's report), not machine output.
_AGENT_TOOLS = frozenset({"Task", "Agent"})

_REMINDER = re.compile(
    r"<system-reminder>.*?(?:</system-reminder>|\Z)", re.DOTALL | re.IGNORECASE
)
_WRAPPER = re.compile(
    r"<(command-name|command-message|command-args|command-contents|local-command-stdout|"
    r"local-command-stderr|local-command-caveat|user-prompt-submit-hook)>.*?(?:</\1>|\Z)",
    re.DOTALL,
)
_BASH = re.compile(r"<(bash-input|bash-stdout|bash-stderr)>(.*?)(?:</\1>|\Z)", re.DOTALL)
_INTERRUPTED = re.compile(r"^\[Request interrupted by user[^\]]*\]$")
_CONTINUED = "This session is being continued from a previous conversation"


def _act_text(name: object, payload: object) -> str:
    label = name if isinstance(name, str) and name else "tool"
    try:
        body = json.dumps(payload if payload is not None else {}, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        body = "{}"
    return f"{label}: {body}"


def _strip_reminders(text: str) -> str:
    return _REMINDER.sub("", text)


def _user_text(text: str, cls: str) -> list[tuple[str, str]]:
    """Split one user text block into classed pieces, dropping injected material."""
    text = _strip_reminders(text)
    text = _WRAPPER.sub("", text)
    pieces: list[tuple[str, str]] = []

    def bash(match: re.Match[str]) -> str:
        inner = match.group(2).strip()
        if inner:
            if match.group(1) == "bash-input":
                pieces.append(("ACT", _act_text("Bash", {"command": inner})))
            else:
                pieces.append(("TOOL", inner))
        return ""

    text = _BASH.sub(bash, text).strip()
    if text and not _INTERRUPTED.match(text):
        if text.startswith(_CONTINUED):
            cls = "SELF"
        pieces.insert(0, (cls, text))
    return pieces


def _tool_result_text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, dict) and block.get("type") == "text":
                value = block.get("text")
                if isinstance(value, str):
                    parts.append(value)
        return "\n".join(parts)
    return ""


def _claude_entry(
    entry: dict, *, subagent_file: bool, tool_names: dict[str, str]
) -> list[tuple[str, str]] | None:
    """Classed texts of one transcript entry; ``None`` when the entry is malformed."""
    etype = entry.get("type")
    if etype not in ("user", "assistant"):
        return []
    if entry.get("isMeta") is True or entry.get("isApiErrorMessage") is True:
        return []
    message = entry.get("message")
    if not isinstance(message, dict):
        return None
    content = message.get("content")
    if isinstance(content, str):
        blocks: list = [{"type": "text", "text": content}]
    elif isinstance(content, list):
        blocks = content
    else:
        return None
    # A user turn inside a sidechain (or a subagent's own file) was written by a model on
    # the user's behalf; so was the summary Claude Code injects after a compaction.
    written_by_model = (
        entry.get("isSidechain") is True
        or subagent_file
        or entry.get("isCompactSummary") is True
    )
    # A subagent's report comes back as a tool result; Claude Code marks the entry with a
    # toolUseResult carrying the agent's id and counters.
    extra = entry.get("toolUseResult")
    agent_report = isinstance(extra, dict) and ("agentId" in extra or "totalToolUseCount" in extra)
    out: list[tuple[str, str]] = []
    for block in blocks:
        if isinstance(block, str):
            block = {"type": "text", "text": block}
        if not isinstance(block, dict):
            continue
        btype = block.get("type")
        if etype == "assistant":
            if btype == "text" and isinstance(block.get("text"), str):
                text = _strip_reminders(block["text"]).strip()
                if text:
                    out.append(("SELF", text))
            elif btype in ("tool_use", "server_tool_use"):
                if isinstance(block.get("id"), str) and isinstance(block.get("name"), str):
                    tool_names[block["id"]] = block["name"]
                out.append(("ACT", _act_text(block.get("name"), block.get("input"))))
            # thinking, redacted_thinking and anything unknown: skipped
        else:
            if btype == "text" and isinstance(block.get("text"), str):
                out.extend(_user_text(block["text"], "SELF" if written_by_model else "USER"))
            elif btype == "tool_result" or btype == "web_search_tool_result":
                text = _strip_reminders(_tool_result_text(block.get("content"))).strip()
                if not text:
                    continue
                use_id = block.get("tool_use_id")
                name = tool_names.get(use_id) if isinstance(use_id, str) else None
                out.append(("SELF" if agent_report or name in _AGENT_TOOLS else "TOOL", text))
            # images, documents: skipped
    return out


def read_claude(
    path: str | os.PathLike[str], start: int, *, limit_bytes: int | None = None
) -> Read:
    """Read a Claude Code JSONL transcript from byte offset *start*.

    user text -> USER; ``tool_result`` -> TOOL; assistant ``tool_use`` -> ACT (tool name
    and compact JSON input); assistant text -> SELF; thinking skipped. User text written
    by a model (sidechain entries, subagent files, compaction summaries) -> SELF; the
    result of a Task/Agent call (a subagent's report, known by the entry's
    ``toolUseResult.agentId`` or by the tool id seen earlier in the same read) -> SELF.
    Tool calls and results inside a sidechain keep their classes: a subagent's command
    output is still machine output. ``<system-reminder>`` blocks are cut out; command
    wrappers and ``isMeta`` entries are skipped; ``!`` shell input and output inside a
    user turn become ACT and TOOL. Other entry types are ignored.
    """
    source = str(path)
    skipped: Counter = Counter()
    _first, lines, end, _tail = _open_lines(path, start, limit_bytes, skipped)
    p = Path(path)
    subagent_file = p.parent.name == "subagents" or p.name.startswith("agent-")
    fallback_session = p.stem
    tool_names: dict[str, str] = {}
    segments: list[Segment] = []
    records = 0
    for offset, raw in lines:
        if not raw.strip():
            continue
        records += 1
        try:
            entry = json.loads(raw)
        except (ValueError, RecursionError):
            skipped["bad json"] += 1
            continue
        if not isinstance(entry, dict):
            skipped["not an object"] += 1
            continue
        pieces = _claude_entry(entry, subagent_file=subagent_file, tool_names=tool_names)
        if pieces is None:
            skipped["bad message"] += 1
            continue
        session = entry.get("sessionId")
        stamp = entry.get("timestamp")
        for cls, text in pieces:
            segments.append(
                Segment(
                    cls=cls,
                    text=text,
                    source=source,
                    start=offset,
                    end=offset + len(raw),
                    unit="byte",
                    session_id=session if isinstance(session, str) else fallback_session,
                    timestamp=stamp if isinstance(stamp, str) else "",
                )
            )
    return Read(tuple(segments), start, max(end, start), "byte", _frozen(skipped), records)


# --------------------------------------------------------------------------- evidence

SCHEMA_VERSION = 1


def read_evidence(path: str | os.PathLike[str], start_seq: int) -> Read:
    """Read a versioned evidence JSONL from record number *start_seq*.

    Each line: ``{"schema_version": 1, "session_id", "class", "text", "timestamp"}``.
    The sequence number of a record is its 0-based line number; blank lines hold a number
    but carry no record. Invalid lines are skipped and counted by reason.
    """
    source = str(path)
    skipped: Counter = Counter()
    with open(path, "rb") as fh:
        data = fh.read()
    cut = data.rfind(b"\n")
    complete = data[:cut].split(b"\n") if cut >= 0 else []
    if start_seq > len(complete):
        skipped["journal shorter than watermark"] += 1
        return Read((), start_seq, start_seq, "seq", _frozen(skipped), 0)
    segments: list[Segment] = []
    records = 0
    for seq in range(start_seq, len(complete)):
        raw = complete[seq]
        if not raw.strip():
            continue
        records += 1
        reason, seg = _evidence_record(raw, source, seq)
        if reason:
            skipped[reason] += 1
        elif seg is not None:
            segments.append(seg)
    return Read(tuple(segments), start_seq, len(complete), "seq", _frozen(skipped), records)


def _evidence_record(raw: bytes, source: str, seq: int) -> tuple[str, Segment | None]:
    try:
        obj = json.loads(raw)
    except (ValueError, RecursionError):
        return "bad json", None
    if not isinstance(obj, dict):
        return "not an object", None
    if "schema_version" not in obj:
        return "missing schema_version", None
    version = obj["schema_version"]
    if isinstance(version, bool) or version != SCHEMA_VERSION:
        return "unknown schema_version", None
    cls = obj.get("class")
    if not isinstance(cls, str) or cls.strip().upper() not in CLASSES:
        return "unknown class", None
    text = obj.get("text")
    if not isinstance(text, str) or not text.strip():
        return "missing text", None
    session = obj.get("session_id", "")
    if session is None:
        session = ""
    if not isinstance(session, str):
        return "bad session_id", None
    stamp = obj.get("timestamp", "")
    if stamp is None:
        stamp = ""
    if not isinstance(stamp, str):
        return "bad timestamp", None
    return "", Segment(
        cls=cls.strip().upper(),
        text=text,
        source=source,
        start=seq,
        end=seq + 1,
        unit="seq",
        session_id=session,
        timestamp=stamp,
    )


# --------------------------------------------------------------------------- text


def read_text(path: str | os.PathLike[str], start: int) -> Read:
    """Read plain text or Markdown from byte offset *start*; each paragraph is USER.

    Paragraphs are separated by blank (whitespace-only) lines. A paragraph is consumed
    once a blank line follows it, or when it is the last one and the file ends with a
    newline. A paragraph whose last line has no newline yet is left whole for the next
    read -- so a half-written paragraph is never split. Text appended later after a
    consumed final paragraph becomes a paragraph of its own.
    """
    source = str(path)
    skipped: Counter = Counter()
    first, lines, end, tail = _open_lines(path, start, None, skipped)
    segments: list[Segment] = []
    para: list[tuple[int, bytes]] = []

    def flush() -> None:
        if not para:
            return
        text = "\n".join(_decode(raw, off == 0).rstrip("\r\n") for off, raw in para)
        begin = para[0][0]
        stop = para[-1][0] + len(para[-1][1])
        segments.append(Segment("USER", text.strip("\n"), source, begin, stop, "byte"))
        para.clear()

    consumed = first
    for offset, raw in lines:
        if _decode(raw, offset == 0).strip():
            para.append((offset, raw))
        else:
            flush()
            consumed = offset + len(raw)
    if para and tail:
        # The last paragraph continues on a line still being written: leave all of it.
        para.clear()
    elif para:
        flush()
        consumed = end
    return Read(tuple(segments), start, max(consumed, start), "byte", _frozen(skipped), len(segments))


def _decode(raw: bytes, at_file_start: bool) -> str:
    text = raw.decode("utf-8", errors="replace")
    if at_file_start and text.startswith("\ufeff"):
        text = text[1:]
    return text


# --------------------------------------------------------------------------- registry

ADAPTERS: dict[str, Callable[..., Read]] = {
    "claude": read_claude,
    "evidence": read_evidence,
    "text": read_text,
}

UNITS = {"claude": "byte", "evidence": "seq", "text": "byte"}

DEFAULT_INCLUDE = {"claude": "**/*.jsonl", "evidence": "**/*.jsonl", "text": "**/*.md"}

_TEXT_SUFFIXES = (".md", ".markdown", ".txt", ".text")
_JSONL_SUFFIXES = (".jsonl", ".ndjson")


def guess_adapter(path: str | os.PathLike[str]) -> str:
    """Name the adapter that reads *path*, from its suffix (and first record for JSONL).

    ``.jsonl``: the first line that is a JSON object decides -- ``schema_version`` present
    means ``evidence``, otherwise ``claude`` (also for an empty file). ``.md``/``.txt``:
    ``text``. Anything else is an error naming the fix.
    """
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix in _TEXT_SUFFIXES:
        return "text"
    if suffix in _JSONL_SUFFIXES:
        try:
            with open(p, "rb") as fh:
                for n, raw in enumerate(fh):
                    if n >= 200:
                        break
                    try:
                        obj = json.loads(raw)
                    except (ValueError, RecursionError):
                        continue
                    if isinstance(obj, dict):
                        return "evidence" if "schema_version" in obj else "claude"
        except OSError as exc:
            raise JournalError(f"cannot read journal {p}: {exc.strerror}") from None
        return "claude"
    raise JournalError(
        f"cannot tell which adapter reads {p.name}; name one of "
        f"{', '.join(sorted(ADAPTERS))} (for example --adapter text)"
    )


# --------------------------------------------------------------------------- discovery


@dataclass(frozen=True)
class JournalRoot:
    """Where one adapter finds its journals. An empty ``include_glob`` means the adapter's
    default (``**/*.jsonl`` for claude and evidence, ``**/*.md`` for text)."""

    adapter: str
    root: Path
    include_glob: str = ""
    exclude_glob: str = ""

    @property
    def pattern(self) -> str:
        return self.include_glob or DEFAULT_INCLUDE.get(self.adapter, "**/*")


@dataclass(frozen=True)
class JournalFile:
    adapter: str
    path: Path
    size: int
    mtime_ns: int


def _inside(path: Path, dirs: list[Path]) -> bool:
    return any(path == d or d in path.parents for d in dirs)


def _excluded(rel: str, name: str, pattern: str) -> bool:
    if not pattern:
        return False
    candidates = {pattern}
    if pattern.startswith("**/"):
        candidates.add(pattern[3:])
    return any(fnmatch.fnmatchcase(rel, p) or fnmatch.fnmatchcase(name, p) for p in candidates)


def _inodes_under(dirs: list[Path]) -> set[tuple[int, int]]:
    found: set[tuple[int, int]] = set()
    for d in dirs:
        for top, _subdirs, files in os.walk(d):
            for name in files:
                try:
                    st = os.lstat(os.path.join(top, name))
                except OSError:
                    continue
                found.add((st.st_dev, st.st_ino))
    return found


def discover(roots: list[JournalRoot], *, forbidden_dirs: list[Path]) -> list[JournalFile]:
    """Every journal file under *roots*, newest first.

    A file is never a journal when it lies inside a forbidden directory (a store), when it
    is a symlink whose target lies inside one, or when it is a hard link (``st_nlink > 1``)
    to a file inside one. Symlinks are resolved; one file reached by several paths is
    listed once.
    """
    forbidden = []
    for d in forbidden_dirs:
        try:
            forbidden.append(Path(d).expanduser().resolve())
        except OSError:
            continue
    forbidden_inodes: set[tuple[int, int]] | None = None
    found: dict[Path, JournalFile] = {}
    for root in roots:
        base = Path(root.root).expanduser()
        if not base.is_dir():
            continue
        for path in sorted(base.glob(root.pattern)):
            rel = path.relative_to(base).as_posix()
            if _excluded(rel, path.name, root.exclude_glob):
                continue
            try:
                real = path.resolve(strict=True)
                st = real.stat()
            except (OSError, RuntimeError):
                continue
            if not real.is_file():
                continue
            if _inside(real, forbidden) or _inside(path.absolute(), forbidden):
                continue
            if st.st_nlink > 1 and forbidden:
                if forbidden_inodes is None:
                    forbidden_inodes = _inodes_under(forbidden)
                if (st.st_dev, st.st_ino) in forbidden_inodes:
                    continue
            known = found.get(real)
            if known is not None and not (known.path.is_symlink() and not path.is_symlink()):
                continue  # one file reached twice: keep its own path over an alias
            found[real] = JournalFile(root.adapter, path, st.st_size, st.st_mtime_ns)
    return sorted(found.values(), key=lambda f: (-f.mtime_ns, str(f.path)))

