"""Aider chat history (``.aider.chat.history.md`` at the root of each repository).

Markdown appended as the chat runs: byte-offset watermarks.

* The person's input (USER), commands such as ``/add`` included, is written by aider as
  a block of its own: a blank line, then every line of the input as ``#### `` + the line
  + two spaces (a Markdown hard break), e.g. ``\n#### fix the tests  \n#### and lint  \n``.
  Only such lines are USER: a ``####`` line inside the assistant's reply (an H4 heading
  of its Markdown, a line of code) lacks the hard break or the blank line before it, and
  stays the assistant's. ``#### <blank>`` (an empty input) is noted, not read.
* ``> `` lines are aider itself and the tools it runs -- version banners, "Applied edit",
  commit lines, ``/run`` output, lint errors, token counts -- machine output (TOOL). A line
  without the prefix directly after one (no blank line between) continues it.
* ``# aider chat started at …`` starts a session: it is ignored, and its timestamp becomes
  the session id of what follows.
* Everything else is the assistant: SELF. Its edit blocks are decoded: the new text of a
  ``SEARCH/REPLACE`` block or of a unified diff is ACT for a configuration, code or data
  file (what was set), SELF for a prose document, and is cut out of the SELF text around
  it so the same words are never both.

A block is consumed once another block follows it, or when it is the last one and the
file ends with a newline; a block whose last line is still being written waits.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable

from ...vocabulary import ProvenanceClass
from . import provenance as pv
from .base import (
    BACKSCAN_BYTES,
    CONTEXTS,
    IGNORED,
    REPAIRED,
    Intake,
    Read,
    decode_bytes,
    encoding_problem,
    open_lines,
    refused,
)
from .paths import is_prose_path
from .registry import Adapter, Head

UNIT = "byte"
#: the kind of line aider writes for what the person typed
_USER_LINE = "user"
_HEADER_PREFIX = "# aider chat started at "
_SEARCH = re.compile(r"<{5,9} SEARCH")
_DIVIDER = re.compile(r"={5,9}[ \t]*\n")
_REPLACE = re.compile(r">{5,9} REPLACE")
_CLOSE = re.compile(r"```[ \t]*\n?")
_USER_MARK = re.compile(r"^####\s?")
_TOOL_MARK = re.compile(r"^>\s?")
#: aider's confirm prompts ("Add file to the chat? (Y)es/(N)o/(A)ll/(S)kip all [Yes]: - all"),
#: which some versions log with the person's input marks
_CONFIRM = re.compile(r"\(Y\)es/\(N\)o\b")
#: aider's own status lines, which reach the person's block when aider logs an answer or a
#: command's output as input, or when the person pastes the terminal back: each is a fixed
#: sentence aider prints, anchored at both ends so a person's sentence that merely starts
#: alike stays theirs
_STATUS = re.compile(
    r"You can use /undo to undo and discard each aider commit\."
    r"|Tokens: [\d.,]+k? sent, [\d.,]+k? (?:cache \w+, [\d.,]+k? )?received\..*"
    r"|Applied edit to \S+"
    r"|Commit [0-9a-f]{7,40} \S.*"
    r"|Added \d+ lines? of output to the chat\."
)


def _aider_says(line: str) -> bool:
    """Whether a line of the person's block is aider's own (a confirm prompt or a status)."""
    return bool(_CONFIRM.search(line) or _STATUS.fullmatch(line.strip()))


def _header_session(line: str) -> str:
    """The timestamp of a session header line (read without a regex: linear)."""
    return line[len(_HEADER_PREFIX) :].strip()


def _kind(line: str) -> str:
    if line.startswith(_HEADER_PREFIX) and line[len(_HEADER_PREFIX) :].strip():
        return "header"
    if line.startswith("####") and line.endswith("  ") and line[4:5] in (" ", ""):
        return "user"  # aider's own form of the person's line (see the module docstring)
    if line.startswith("> ") or line.rstrip() == ">":
        return "tool"
    return "blank" if not line.strip() else "text"


def _named(line: str) -> str:
    """What a line names as the file of an edit block below it (``""``: nothing)."""
    t = line.strip()
    return "" if not t or t.startswith("```") else t.strip("`*: ")


def _next_index(lines: list[str], hit: Callable[[str], bool]) -> list[int]:
    """For every line index, the first index at or after it whose line is a *hit*
    (``len(lines)`` when none): one backward pass, so no later search rescans."""
    out = [len(lines)] * (len(lines) + 1)
    for i in range(len(lines) - 1, -1, -1):
        out[i] = i if hit(lines[i]) else out[i + 1]
    return out


class _Edits:
    """The edit blocks of one reply, found in one pass over its lines: ``SEARCH/REPLACE``
    blocks (with the file named on the line before them or before their fence) and fenced
    unified diffs. Every "where does it close" question is answered by a table built
    once, so an opener that never closes costs nothing per later opener."""

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines(keepends=True)
        self.offsets = [0]
        for line in self.lines:
            self.offsets.append(self.offsets[-1] + len(line))
        self.divider = _next_index(self.lines, lambda ln: _DIVIDER.fullmatch(ln) is not None)
        self.replace = _next_index(self.lines, lambda ln: _REPLACE.match(ln) is not None)
        self.close = _next_index(self.lines, lambda ln: _CLOSE.fullmatch(ln) is not None)
        named = ""
        self.named_before: list[str] = []
        for line in self.lines:
            self.named_before.append(named)
            named = _named(line) or named

    def spans(self) -> list[tuple[int, int, list[pv.Piece]]]:
        spans = self._search_blocks()
        taken = [(s, e) for s, e, _ in spans]
        spans.extend(self._diff_blocks(taken))
        spans.sort(key=lambda x: (x[0], x[1]))
        return spans

    def _search_blocks(self) -> list[tuple[int, int, list[pv.Piece]]]:
        lines, out, floor, i = self.lines, [], 0, 0
        while i < len(lines):
            if not _SEARCH.match(lines[i]):
                i += 1
                continue
            div = self.divider[i + 1]
            rep = self.replace[div + 1] if div < len(lines) else len(lines)
            if rep >= len(lines):
                i += 1
                continue
            first, path = self._pre(i, floor)
            last = rep + 1
            if last < len(lines) and _CLOSE.fullmatch(lines[last]):
                last += 1
            new = "".join(lines[div + 1 : rep]).rstrip("\n")
            out.append((self.offsets[first], self.offsets[last], _block_pieces(path, new)))
            floor = i = last
        return out

    def _pre(self, i: int, floor: int) -> tuple[int, str]:
        """Where a block starts (the file line and fence above its marker, when there)
        and the file it edits."""
        first = i
        if first - 1 >= floor and self.lines[first - 1].startswith("```"):
            first -= 1
        if first - 1 >= floor:
            first -= 1
        path = ""
        for line in self.lines[first:i]:
            path = _named(line) or path
        return first, path or self.named_before[first]

    def _diff_blocks(self, taken: list[tuple[int, int]]) -> list[tuple[int, int, list[pv.Piece]]]:
        lines, out, i = self.lines, [], 0
        while i < len(lines):
            start = self.offsets[i]
            if not lines[i].startswith("```diff") or any(s <= start < e for s, e in taken):
                i += 1
                continue
            close = self.close[i + 1]
            if close >= len(lines):
                break  # no fence closes after this opener, nor after any later one
            files = pv.patch_files("".join(lines[i + 1 : close]))
            if files:
                got: list[pv.Piece] = []
                for _op, path, new in files:
                    got.extend(_block_pieces(path, new))
                out.append((start, self.offsets[close + 1], got))
            i = close + 1
        return out


def _block_pieces(path: str, new: str) -> list[pv.Piece]:
    """ACT for what an edit block wrote (SELF for the text of a prose document)."""
    header = f"edit: {path or '(file not named)'}"
    if path and is_prose_path(path):
        got = [pv.Piece("ACT", header, "edit block")]
        if new.strip():
            got.append(pv.Piece("SELF", new, f"prose written to {path.rsplit('/', 1)[-1]}"))
        return got
    return [pv.Piece("ACT", header + ("\n" + new if new else ""), "edit block")]


def assistant_pieces(text: str) -> list[pv.Piece]:
    """SELF prose with its edit blocks taken out as ACT (or SELF for prose files)."""
    pieces: list[pv.Piece] = []
    out: list[str] = []
    pos = 0
    for s, e, got in _Edits(text).spans():
        out.append(text[pos:s])
        names = [p.text.split("\n", 1)[0] for p in got if p.cls == ProvenanceClass.ACT]
        out.append("[" + "; ".join(names) + "]\n")
        pieces.extend(got)
        pos = max(pos, e)
    out.append(text[pos:])
    prose = "".join(out).strip()
    if prose:
        pieces.insert(0, pv.Piece("SELF", prose, "assistant text"))
    return pieces


class _Before:
    """What a read needs from before its window: the session and the last line's kind."""

    def __init__(self, session: str = "", last: str = "blank") -> None:
        self.session, self.last = session, last

    def copy(self) -> _Before:
        return _Before(self.session, self.last)


def _session_before(path: str | os.PathLike[str], start: int) -> tuple[str, str]:
    """``(session id, kind of the line just before start)``, from the bytes before
    *start* -- only those after the last window this process read, when it read one."""
    if start <= 0:
        return "", "blank"
    begin = max(0, start - BACKSCAN_BYTES)
    aligned, state = begin == 0, _Before()
    near = CONTEXTS.nearest(path, start, "aider")
    if near is not None and near[0] >= begin:
        begin, state = near
        aligned = True
        if begin == start:
            return state.session, state.last
    with open(path, "rb") as fh:
        fh.seek(begin)
        data = fh.read(start - begin)
    if not aligned:
        data = data[data.find(b"\n") + 1 :]
    text, _ = decode_bytes(data)
    lines = text.split("\n")
    for line in lines:
        if line.startswith(_HEADER_PREFIX):
            state.session = _header_session(line)
    if len(lines) >= 2:
        state.last = _kind(lines[-2])
    CONTEXTS.put(path, start, "aider", state)
    return state.session, state.last


def read_aider(path: str | os.PathLike[str], start: int, *, limit_bytes: int | None = None) -> Read:
    """Read an aider chat history from byte offset *start* (see the module docstring).

    A window that ends inside its first block is widened until that block is whole, so a
    reply longer than *limit_bytes* never stops the watermark; once the window holds the
    rest of the file, the block is still being written and waits for the next read."""
    problem = encoding_problem(path)
    if problem:
        return refused(UNIT, start, problem)
    session, prev = _session_before(path, start)
    rest = os.path.getsize(path) - start
    limit = limit_bytes
    while True:
        read, more = _read_window(path, start, limit, session, prev)
        if not more or limit is None or limit >= rest:
            return read  # a wider window cannot finish a block still being written
        limit = max(1 << 16, limit * 4)


def _read_window(
    path: str | os.PathLike[str], start: int, limit: int | None, session: str, prev: str
) -> tuple[Read, bool]:
    """One window's read, and whether it consumed nothing but more of the file follows."""
    intake = Intake(str(path), UNIT)
    intake.variant = "chat history Markdown"
    first, lines, end, tail = open_lines(path, start, limit, intake)
    blocks, state = _blocks(lines, intake, prev)
    consumed = first
    if blocks and tail and (blocks[-1][0] == "text" or state != "blank"):
        blocks.pop()  # the line still being written may continue it
    for k, b_start, b_end, texts in blocks:
        consumed = b_end
        intake.begin(b_start, b_end)
        session = _add_block(intake, k, b_start, b_end, texts, session)
    if not tail and lines:
        consumed = end
    return intake.result(start, max(consumed, start)), tail and not blocks


def _blocks(lines: list[tuple[int, bytes]], intake: Intake, prev: str) -> tuple[list[list], str]:
    """Consecutive lines of one kind as ``[kind, start, end, [texts]]``, and the kind of
    the last line (``"blank"`` after a blank one)."""
    blocks: list[list] = []
    state = prev if prev in ("tool", "user", "text") else "blank"
    for offset, raw in lines:
        text, repaired = decode_bytes(raw)
        if offset == 0:
            text = text.lstrip("\ufeff")
        if repaired:
            intake.note(offset, offset + len(raw), "invalid UTF-8 replaced (kept)", REPAIRED)
        line = text.rstrip("\r\n")
        k = _kind(line)
        if k == "user" and state not in ("blank", "user", "header"):
            k = "text"  # aider opens the person's block with a blank line
        if k == "text" and state == "tool":
            k = "tool"  # an unprefixed line right after aider's output continues it
        if k == "blank":
            if blocks and blocks[-1][0] == "text":
                blocks[-1][2] = offset + len(raw)
                blocks[-1][3].append(line)
            state = "blank"
            continue
        # a window may open on the second line of the person's block (the previous window
        # ended inside it): with no block yet, that line starts one
        same = blocks and (blocks[-1][0] == k and k in ("tool", "text") or k == state == _USER_LINE)
        if same:
            blocks[-1][2] = offset + len(raw)
            blocks[-1][3].append(line)
        else:
            blocks.append([k, offset, offset + len(raw), [line]])
        state = k
    return blocks, state


def _add_block(
    intake: Intake, k: str, b_start: int, b_end: int, texts: list[str], session: str
) -> str:
    """Add one block's segments; the session it belongs to (a header starts a new one)."""
    if k == "header":
        intake.note(b_start, b_end, "session start", IGNORED)
        return _header_session(texts[0]) or session
    if k == "user":
        lines = [_USER_MARK.sub("", t).rstrip() for t in texts]
        asked = [ln for ln in lines if _aider_says(ln)]
        body = "\n".join(ln for ln in lines if not _aider_says(ln)).strip()
        if body == "<blank>":
            intake.note(b_start, b_end, "empty input (aider wrote <blank>)", IGNORED)
            return session
        if asked:  # aider's own questions and status lines, logged as input
            text = "\n".join(asked)
            intake.add(
                "TOOL",
                text,
                b_start,
                b_end,
                session=session,
                stamp=session,
                kind="aider confirm prompt" if any(map(_CONFIRM.search, asked)) else "aider status",
            )
        if body:
            intake.add(
                "USER", body, b_start, b_end, session=session, stamp=session, kind="user prompt"
            )
    elif k == "tool":
        body = "\n".join(_TOOL_MARK.sub("", t).rstrip() for t in texts).strip()
        intake.add(
            "TOOL", body, b_start, b_end, session=session, stamp=session, kind="aider output"
        )
    else:
        for p in assistant_pieces("\n".join(texts) + "\n"):
            intake.add(p.cls, p.text, b_start, b_end, session=session, stamp=session, kind=p.kind)
    return session


# --------------------------------------------------------------------------- detection

_SESSION_HEADER = re.compile(rb"^# aider chat started at ", re.MULTILINE)


def sniff(head: Head) -> float:
    """Aider's session header (``# aider chat started at``) in a text file: one whose lines
    are mostly not JSON (a curl response the person pasted on a line of its own is still a
    line of the chat history)."""
    if head.document is not None or head.tables is not None:
        return 0.0
    if head.records and 2 * len(head.records) >= max(head.lines, 1):
        return 0.0
    return 1.0 if _SESSION_HEADER.search(head.text) else 0.0


ADAPTER = Adapter(
    name="aider",
    label="aider",
    unit=UNIT,
    read=read_aider,
    sniff=sniff,
    include=("**/.aider.chat.history.md",),
    variants=("chat history Markdown",),
    windowed=True,
)
