"""What every adapter shares: the :class:`Read` it returns, the notes it keeps about
records it could not use, and a JSON Lines reader that never loses a record.

Reading rules common to every append-only adapter:

* Only complete lines are records. A trailing line without its newline is still being
  written: it is left for the next read and the watermark never passes half a line.
* A line that is not valid UTF-8 is decoded with replacement characters and kept (the
  broken byte cannot be quoted; the rest of the record can).
* A torn line -- a writer crashed mid-record and a later writer appended a complete
  record right after it -- is split: the torn prefix is reported as skipped and the
  complete record behind it is read.
* Lone UTF-16 surrogates (``"\\ud800"`` in JSON) are replaced by U+FFFD, so no later step
  can fail to encode a segment.
* A file that is not UTF-8 JSON Lines at all (UTF-16, a database, one pretty-printed JSON
  document) is refused as a whole with :attr:`Read.fatal` naming what it is and what to do.

Every record that yields nothing is listed as a :class:`Note` with its reason; reasons
never contain any part of the payload.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import threading
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from kura_core.distill.evidence import Segment
from kura_core.errors import KuraError
from kura_core.secrets import Redaction, active_rules, shapes_output
from kura_core.vocabulary import ProvenanceClass


class JournalError(KuraError):
    """A journal could not be identified or read."""


# --------------------------------------------------------------------------- values

#: ``Note.kind``: a known record that carries no conversation (bookkeeping).
IGNORED = "ignored"
#: ``Note.kind``: a record that could not be read (malformed, unknown shape).
SKIPPED = "skipped"
#: ``Note.kind``: a record that was repaired and kept (invalid bytes, lone surrogates).
REPAIRED = "repaired"
#: ``Note.kind``: a record left for a later read because it is still being written (an
#: unfinished message, a tool call still running). The watermark stops before it; it is
#: released once later records exist or its file has been quiet for :data:`HOLD_SECONDS`.
HELD = "held"

#: How long a record that looks unfinished is held back while its file keeps quiet. An
#: agent that died mid-message never finishes it; after this long it is read as it stands,
#: so one interrupted message can never stop a journal for good.
HOLD_SECONDS = 600.0


@dataclass(frozen=True)
class Note:
    """One record an adapter did not turn into segments as it stands.

    ``kind`` is :data:`IGNORED` (a known bookkeeping record: nothing to read in it),
    :data:`SKIPPED` (could not be read), :data:`REPAIRED` (kept after a repair) or
    :data:`HELD` (left for a later read: still being written).
    ``start``/``end`` locate the record in ``unit``.
    """

    start: int
    end: int
    unit: str
    reason: str
    kind: str = SKIPPED

    def to_json(self) -> dict[str, Any]:
        return {
            "start": self.start,
            "end": self.end,
            "unit": self.unit,
            "reason": self.reason,
            "kind": self.kind,
        }


@dataclass(frozen=True)
class Read:
    """What one adapter call consumed.

    ``start``/``end`` are the watermark before and after, in ``unit``; ``end`` is where
    the next read starts. ``records`` counts complete records consumed, whether or not
    they produced segments. ``skipped`` counts unreadable records by reason (the
    :data:`SKIPPED` notes); ``notes`` lists every record that was skipped, ignored or
    repaired, in order. ``fatal`` is set when the file as a whole cannot be read by this
    adapter (it then returns no segments and does not move the watermark).
    """

    segments: tuple[Segment, ...]
    start: int
    end: int
    unit: str
    skipped: Mapping[str, int]
    records: int
    notes: tuple[Note, ...] = ()
    fatal: str = ""
    variant: str = ""

    @property
    def held(self) -> int:
        """Records left for a later read (still being written)."""
        return sum(1 for n in self.notes if n.kind == HELD)

    @property
    def ignored(self) -> int:
        """Records that carry no conversation (bookkeeping, empty text)."""
        return sum(1 for n in self.notes if n.kind == IGNORED)


#: Reasons :class:`Intake` gives a record the adapter read without a segment or a note.
BLANK_TEXT = "whitespace-only text"
NO_TEXT = "no text in this record"


class Intake:
    """Collects segments and notes while an adapter reads.

    Every record an adapter consumes is opened with :meth:`begin`; a record that ends
    with neither a segment nor a note of its own gets one here (:data:`BLANK_TEXT` when
    all it held was whitespace), so no record is ever dropped without a trace: records =
    records read as segments + records counted in a note.
    """

    def __init__(self, source: str, unit: str) -> None:
        self.source = source
        self.unit = unit
        self.segments: list[Segment] = []
        self.notes: list[Note] = []
        self.records = 0
        self.variant = ""
        self._open: tuple[int, int] | None = None
        self._covered = False
        self._blank = False
        #: the last line of the call whose result has not come yet ("" when none)
        self._command = ""

    def begin(self, start: int, end: int) -> None:
        """Open the next consumed record, at ``[start, end)``."""
        self._close()
        self.records += 1
        self._open = (start, end)
        self._covered = self._blank = False

    def _close(self) -> None:
        if self._open is not None and not self._covered:
            start, end = self._open
            reason = BLANK_TEXT if self._blank else NO_TEXT
            self.notes.append(Note(start, end, self.unit, reason, IGNORED))
        self._open = None

    def note(self, start: int, end: int, reason: str, kind: str = SKIPPED) -> None:
        self.notes.append(Note(start, end, self.unit, reason, kind))
        if kind not in (REPAIRED, HELD):
            self._covered = True

    def hold(self, start: int, end: int, reason: str) -> None:
        """A record left for a later read: the watermark stops before it."""
        self.notes.append(Note(start, end, self.unit, reason, HELD))

    def add(
        self,
        cls: str,
        text: str,
        start: int,
        end: int,
        *,
        session: str = "",
        stamp: str = "",
        kind: str = "",
    ) -> None:
        raw = clean(text)
        seen = self._redacted(cls, raw)  # secrets and <private> never pass
        if cls == ProvenanceClass.ACT:
            line = raw[-_COMMAND_CONTEXT:].rsplit("\n", 1)[-1]
            self._command = line if shapes_output(line) else ""
        elif cls != ProvenanceClass.SELF:
            self._command = ""  # the result came (a call's description leaves it open)
        text = seen.text.strip("\n")
        if not text.strip():
            if seen.private:
                self.note(start, end, "private text (not read)", IGNORED)
            else:
                self._blank = True
            return
        self._covered = True
        self.segments.append(
            Segment(
                cls,
                text,
                self.source,
                start,
                end,
                self.unit,
                clean(session),
                clean(stamp),
                kind=kind,
            )
        )

    def _redacted(self, cls: str, raw: str) -> Redaction:
        """*raw* with its secrets out; a call's result is read under the call's command line
        (32 hex digits after ``openssl rand -hex 16`` are a key, a base64 line after
        ``openssl dgst … | base64`` a digest), which the result alone does not show."""
        rules = active_rules()
        if not self._command or cls == ProvenanceClass.ACT:
            return rules.redact(raw)
        # read under the command first: a value taken out is remembered for the rest of
        # the read, so the result alone is read only when the two cannot be told apart
        lead = self._command + "\n"
        under = rules.redact(lead + raw)
        shown = rules.redact(lead).text
        if under.text.startswith(shown):
            return dataclasses.replace(under, text=under.text[len(shown) :])
        return rules.redact(raw)

    def result(self, start: int, end: int, fatal: str = "") -> Read:
        self._close()
        counts = Counter(n.reason for n in self.notes if n.kind == SKIPPED)
        return Read(
            tuple(self.segments),
            start,
            max(end, start),
            self.unit,
            frozen_counts(counts),
            self.records,
            tuple(self.notes),
            fatal,
            self.variant,
        )


#: How much of a call is kept as the context of its result: its last line, at most this many
#: characters of it.
_COMMAND_CONTEXT = 400


def frozen_counts(counter: Mapping[str, int]) -> Mapping[str, int]:
    return MappingProxyType({k: v for k, v in sorted(counter.items())})


def refused(unit: str, start: int, reason: str) -> Read:
    """A read of a file this adapter cannot read at all: nothing consumed, one note."""
    note = Note(start, start, unit, reason, SKIPPED)
    return Read((), start, start, unit, frozen_counts({reason: 1}), 0, (note,), reason)


def read_turns(
    source: str,
    unit: str,
    turns: list[Any],
    start: int,
    pieces: Callable[..., list[Any]],
    *,
    repaired: bool,
    empty: str,
    variant: str = "",
) -> Read:
    """A text document already cut into *turns* (Markdown exports and the like), read from
    turn *start*: each turn's pieces (``cls``, ``text``, ``kind``) become its segments, a
    turn with none is noted as *empty*, and the session is the file's own name."""
    intake = Intake(source, unit)
    if variant:
        intake.variant = variant
    if repaired:
        intake.note(0, len(turns), "invalid UTF-8 replaced (kept)", REPAIRED)
    if start > len(turns):
        intake.note(start, start, "journal shorter than watermark")
        return intake.result(start, start)
    session = os.path.splitext(os.path.basename(source))[0]
    for i in range(start, len(turns)):
        intake.begin(i, i + 1)
        found = pieces(*turns[i])
        if not found:
            intake.note(i, i + 1, empty, IGNORED)
        for p in found:
            intake.add(p.cls, p.text, i, i + 1, session=session, kind=p.kind)
    return intake.result(start, len(turns))


# --------------------------------------------------------------------------- text

_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def clean(text: str) -> str:
    """*text* with every lone surrogate replaced by U+FFFD (encodable as UTF-8)."""
    if not text:
        return text or ""
    return _SURROGATE.sub("\ufffd", text)


def scrub(obj: Any) -> tuple[Any, bool]:
    """Replace lone surrogates in every string of a decoded JSON value."""
    changed = False

    def walk(v: Any) -> Any:
        nonlocal changed
        if isinstance(v, str):
            c = clean(v)
            if c is not v and c != v:
                changed = True
            return c
        if isinstance(v, list):
            return [walk(x) for x in v]
        if isinstance(v, dict):
            return {clean(k) if isinstance(k, str) else k: walk(x) for k, x in v.items()}
        return v

    return walk(obj), changed


def decode_bytes(raw: bytes) -> tuple[str, bool]:
    """UTF-8 text of *raw*; invalid bytes become U+FFFD. Returns (text, repaired)."""
    try:
        return raw.decode("utf-8"), False
    except UnicodeDecodeError:
        return raw.decode("utf-8", errors="replace"), True


_LABEL = re.compile(r"[A-Za-z0-9_.:-]{1,40}")


def safe_label(value: object) -> str:
    """*value* when it is a short name (a record type, a role), else ``"?"``: a note names
    what it saw without quoting a payload."""
    s = str(value)
    return s if _LABEL.fullmatch(s) else "?"


def between(text: str, opener: str, closer: str) -> str | None:
    """What lies between the first *opener* that is closed and the *closer* after it: one
    ``str.find`` each (if the first opener is not closed, no later one is)."""
    a = text.find(opener)
    if a < 0:
        return None
    b = text.find(closer, a + len(opener))
    return text[a + len(opener) : b] if b >= 0 else None


# --------------------------------------------------------------------------- sniffing

_SQLITE = b"SQLite format 3\x00"
_ZSTD = b"\x28\xb5\x2f\xfd"


def sniff(path: str | os.PathLike[str], *, size: int = 4096) -> str:
    """What the head of a file says it is: ``"utf16"``, ``"utf32"``, ``"binary"``,
    ``"sqlite"``, ``"zstd"``, ``"empty"`` or ``"text"``."""
    with open(path, "rb") as fh:
        head = fh.read(size)
    if not head:
        return "empty"
    if head.startswith(_SQLITE):
        return "sqlite"
    if head.startswith(_ZSTD):
        return "zstd"
    if head.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")):
        return "utf32"
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "utf16"
    if b"\x00" in head:
        # UTF-16 without a BOM puts a NUL beside every ASCII character.
        even, odd = head[0::2], head[1::2]
        if even.count(0) > len(even) // 3 or odd.count(0) > len(odd) // 3:
            return "utf16"
        return "binary"
    return "text"


def encoding_problem(path: str | os.PathLike[str]) -> str:
    """A sentence naming why *path* is not UTF-8 text, or ``""`` when it is."""
    kind = sniff(path)
    name = os.path.basename(os.fspath(path))
    if kind in ("utf16", "utf32"):
        enc = "UTF-16" if kind == "utf16" else "UTF-32"
        return (
            f"{name} is {enc} text, not UTF-8: convert it first "
            f"(iconv -f {enc} -t UTF-8 {name} > {name}.utf8)"
        )
    if kind == "sqlite":
        return f"{name} is a SQLite database, not a transcript file"
    if kind == "zstd":
        return f"{name} is zstd-compressed, not a transcript file"
    if kind == "binary":
        return f"{name} holds binary data (NUL bytes), not a UTF-8 transcript"
    return ""


def pretty_printed(path: str | os.PathLike[str]) -> bool:
    """True when the file opens like one JSON document spread over many lines."""
    with open(path, "rb") as fh:
        for raw in fh:
            line = raw.strip().lstrip(b"\xef\xbb\xbf")
            if not line:
                continue
            return line in (b"{", b"[", b"[{", b"[ {") or (
                line.startswith(b"{") and line.endswith(b",")
            )
    return False


def jsonl_problem(path: str | os.PathLike[str], adapter: str) -> str:
    """Why a JSON Lines adapter cannot read *path* at all, or ``""``."""
    problem = encoding_problem(path)
    if problem:
        return problem
    if pretty_printed(path):
        name = os.path.basename(os.fspath(path))
        return (
            f"{name} is one JSON document spread over many lines, not JSON Lines "
            f"(one record per line), so the {adapter} adapter cannot read it: "
            "let kura detect its format (omit --adapter) or convert it with jq -c"
        )
    return ""


# --------------------------------------------------------------------------- lines


def open_lines(
    path: str | os.PathLike[str], start: int, limit_bytes: int | None, intake: Intake
) -> tuple[int, list[tuple[int, bytes]], int, bool]:
    """Complete lines of *path* from byte *start*.

    Returns ``(first, lines, end, tail)``: ``first`` is where the first whole line
    begins (past a fragment when *start* points inside a line); ``lines`` holds
    ``(offset, raw_line)`` with the newline still attached; ``end`` is the offset just
    after the last complete line; ``tail`` says whether bytes follow it unread.
    ``limit_bytes`` is soft: at least one complete line is returned when one exists, so
    one enormous line cannot wedge the watermark.
    """
    with open(path, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        if start > size:
            intake.note(start, start, "journal shorter than watermark")
            return start, [], start, False
        pos = start
        if start > 0:
            fh.seek(start - 1)
            if fh.read(1) != b"\n":
                rest = fh.readline()
                if not rest.endswith(b"\n"):
                    return start, [], start, True
                intake.note(start, start + len(rest), "partial line at watermark")
                pos = start + len(rest)
        fh.seek(pos)
        if limit_bytes is None:
            data = fh.read()
        else:
            data = fh.read(max(1, limit_bytes))
            while b"\n" not in data:
                more = fh.read(1 << 16)
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


@dataclass
class Record:
    """One decoded JSON Lines record."""

    start: int
    end: int
    obj: dict


_DECODER = json.JSONDecoder()


def _recover_torn(text: str) -> tuple[int, Any] | None:
    """The complete JSON object that ends *text* after a torn prefix, if any.

    Tries every ``{`` from the right; the first candidate that parses to the end of
    the line is the outermost complete record (an object nested inside one is always
    followed by the closing brace of its parent, so it never reaches the end). A candidate
    whose parse runs off the end of the line unfinished ends the search: every ``{`` to
    its left opens something that encloses the same unfinished text, so trying each of
    them would only rescan the line once per brace.
    """
    end = len(text.rstrip())
    pos = text.rfind("{", 0, end)
    tries = 0
    while pos > 0 and tries < 4096:
        tries += 1
        try:
            obj, stop = _DECODER.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            if exc.pos >= end:
                return None
            obj, stop = None, -1
        except (ValueError, RecursionError):
            return None
        if stop == end and isinstance(obj, dict):
            return pos, obj
        pos = text.rfind("{", 0, pos)
    return None


TORN = "torn record (an unfinished line before a complete one)"


@dataclass(frozen=True)
class Line:
    """One JSON Lines line decoded (:func:`decode_line`): the object, how many bytes of
    a torn prefix came before it, and what was wrong with it, as ``(reason, kind)``."""

    obj: dict | None
    torn: int = 0
    problems: tuple[tuple[str, str], ...] = ()


def decode_line(raw: bytes, *, first: bool = False) -> Line:
    """Decode one line of a JSON Lines journal the way every adapter does: invalid UTF-8
    replaced, a BOM dropped on the *first* line, a torn prefix split off, lone
    surrogates replaced; never raises. ``obj`` is ``None`` when nothing can be read."""
    body = raw.rstrip(b"\r\n")
    text, repaired = decode_bytes(body)
    if first and text.startswith("\ufeff"):
        text = text[1:]
    problems: list[tuple[str, str]] = []
    torn = 0
    try:
        obj: Any = json.loads(text)
    except (ValueError, RecursionError):
        found = _recover_torn(text)
        if found is None:
            return Line(None, 0, (("bad json", SKIPPED),))
        cut, obj = found
        torn = len(text[:cut].encode("utf-8", errors="surrogatepass"))
        problems.append((TORN, SKIPPED))
    if not isinstance(obj, dict):
        return Line(None, torn, (*problems, ("not an object", SKIPPED)))
    if _SURROGATE_ESCAPE.search(body):
        obj, changed = scrub(obj)
        if changed:
            problems.append(("lone UTF-16 surrogate replaced (record kept)", REPAIRED))
    if repaired:
        problems.append(("invalid UTF-8 replaced (record kept)", REPAIRED))
    return Line(obj, torn, tuple(problems))


def json_records(lines: list[tuple[int, bytes]], intake: Intake) -> Iterator[Record]:
    """Decode complete JSON Lines, noting (never raising on) what cannot be read."""
    for offset, raw in lines:
        stop = offset + len(raw)
        if not raw.strip():
            continue
        intake.begin(offset, stop)
        line = decode_line(raw, first=offset == 0)
        first = offset + line.torn
        for reason, kind in line.problems:
            if reason == TORN:
                intake.note(offset, first, reason, kind)
            else:
                intake.note(first, stop, reason, kind)
        if line.obj is not None:
            yield Record(first, stop, line.obj)


# --------------------------------------------------------------------------- context

#: How far back an adapter looks for what came before its window (tool calls whose
#: results it reads, files the agent wrote). Beyond it, a record is classed by its
#: own metadata only.
BACKSCAN_BYTES = 32 << 20


class _ContextCache:
    """Adapter state at byte offsets of a file, kept between reads in one process so
    that reading a journal window by window replays only what lies between windows."""

    def __init__(self, size: int = 64) -> None:
        self._items: OrderedDict[tuple, Any] = OrderedDict()
        self._size = size
        self._lock = threading.Lock()

    @staticmethod
    def _file(path: str | os.PathLike[str], kind: str) -> tuple | None:
        try:
            st = os.stat(path)
        except OSError:
            return None
        return (kind, os.path.realpath(path), st.st_dev, st.st_ino)

    def nearest(
        self, path: str | os.PathLike[str], offset: int, kind: str
    ) -> tuple[int, Any] | None:
        """``(offset, state)`` of the cached state nearest at or before *offset*."""
        f = self._file(path, kind)
        if f is None:
            return None
        with self._lock:
            best = max(
                (k[-1] for k in self._items if k[:-1] == f and k[-1] <= offset), default=None
            )
            if best is None:
                return None
            key = f + (best,)
            self._items.move_to_end(key)
            return best, self._items[key].copy()

    def get(self, path: str | os.PathLike[str], offset: int, kind: str) -> Any:
        got = self.nearest(path, offset, kind)
        return got[1] if got is not None and got[0] == offset else None

    def clear(self) -> None:
        with self._lock:
            self._items.clear()

    def put(self, path: str | os.PathLike[str], offset: int, kind: str, ctx: Any) -> None:
        f = self._file(path, kind)
        if f is None:
            return
        with self._lock:
            self._items[f + (offset,)] = ctx.copy()
            self._items.move_to_end(f + (offset,))
            while len(self._items) > self._size:
                self._items.popitem(last=False)


CONTEXTS = _ContextCache()


def context_before(
    path: str | os.PathLike[str],
    start: int,
    kind: str,
    factory: Callable[[], Any],
    observe: Callable[[Any, dict, int], None],
    wanted: tuple[bytes, ...] = (),
) -> Any:
    """Adapter state built from the records before byte *start*.

    The records in the :data:`BACKSCAN_BYTES` before *start* are replayed through
    *observe* (only lines containing one of *wanted*, when given) -- or, when this process
    already holds the state at an earlier offset within that stretch, only the records
    between it and *start*. Either way a record is classed the same whichever window it
    falls in.
    """
    ctx = factory()
    if start <= 0:
        return ctx
    begin = max(0, start - BACKSCAN_BYTES)
    aligned = begin == 0  # does begin sit at the start of a line?
    near = CONTEXTS.nearest(path, start, kind)
    if near is not None and near[0] >= begin:
        begin, ctx = near  # replay only what lies between that state and start
        aligned = True
        if begin == start:
            return ctx
    with open(path, "rb") as fh:
        fh.seek(begin)
        data = fh.read(start - begin)
    if not aligned:
        nl = data.find(b"\n")
        data = data[nl + 1 :] if nl >= 0 else b""
        begin = start - len(data)
    offset = begin
    for raw in data.split(b"\n"):
        here = offset
        offset += len(raw) + 1
        if not raw.strip() or (wanted and not any(w in raw for w in wanted)):
            continue
        line = decode_line(raw, first=here == 0)
        if line.obj is not None:
            observe(ctx, line.obj, here)
    return ctx
