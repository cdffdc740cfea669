"""The one list of journal adapters. Every other list -- the adapter names config accepts,
``--adapter`` choices, detection, the watermark unit of each adapter, the journal files
under a root, the default roots ``kura init`` offers -- is derived from it.

An adapter is one module that ends with one value, :class:`Adapter`::

    from kura_core.distill.journals.registry import Adapter, Head

    def sniff(head: Head) -> float:
        # how much of the file's head is this format: the share of its JSON Lines
        # records it recognises, or 1.0 for a document / database / text signature
        return head.share(lambda record, index: record.get("kind") == "turn")

    def read(path, start, *, limit_bytes=None) -> Read:
        intake = Intake(str(path), "byte")
        ...  # intake.begin(...) for each record; intake.add(...) / intake.note(...)
        return intake.result(start, end)

    ADAPTER = Adapter(
        name="mytool",
        label="My Tool",
        unit="byte",                     # "byte": the file only grows; "seq": rewritten whole
        read=read,
        sniff=sniff,
        roots={"linux": ("~/.mytool/sessions",), "darwin": ("~/Library/MyTool",)},
        include=("**/*.jsonl",),
        variants=("session JSONL",),
    )

Built-in adapters are listed in :data:`BUILTIN` (module paths). Another package adds a
format without forking kura through the entry-point group ``kura.adapters``: an entry
point naming an :class:`Adapter` (or a callable returning one), e.g. in its
``pyproject.toml``::

    [project.entry-points."kura.adapters"]
    mytool = "kura_mytool:ADAPTER"

A plug-in whose name is already taken, or that fails to load, is left out and reported by
:func:`problems` (``kura doctor`` can show them); it never breaks the built-in adapters.
"""

from __future__ import annotations

import functools
import importlib
import json
import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from .base import Read, decode_bytes

#: The entry-point group third-party adapters register under.
ENTRY_POINT_GROUP = "kura.adapters"

#: The built-in adapters (``module:attribute``), in detection order: a JSON Lines record
#: is claimed by the first adapter that knows it, and on a tie of two scores the earlier
#: adapter wins (the specific formats come before Claude Code's broad record shape).
BUILTIN = (
    "kura_core.distill.journals.plain:EVIDENCE",
    "kura_core.distill.journals.codex:ADAPTER",
    "kura_core.distill.journals.copilot:ADAPTER",
    "kura_core.distill.journals.qwen:ADAPTER",
    "kura_core.distill.journals.kimi:ADAPTER",
    "kura_core.distill.journals.gemini:ADAPTER",
    "kura_core.distill.journals.cursor:ADAPTER",
    "kura_core.distill.journals.claude:ADAPTER",
    "kura_core.distill.journals.cline:ADAPTER",
    "kura_core.distill.journals.continue_dev:ADAPTER",
    "kura_core.distill.journals.copilot:LEGACY",
    "kura_core.distill.journals.opencode:ADAPTER",
    "kura_core.distill.journals.crush:ADAPTER",
    "kura_core.distill.journals.amp:ADAPTER",
    "kura_core.distill.journals.zed:ADAPTER",
    "kura_core.distill.journals.deepseek:ADAPTER",
    "kura_core.distill.journals.cursor_agent:ADAPTER",
    "kura_core.distill.journals.aider:ADAPTER",
    "kura_core.distill.journals.antigravity:ADAPTER",
    "kura_core.distill.journals.cursor:SPECSTORY",
    "kura_core.distill.journals.plain:TEXT",
)

#: Operating systems default roots are given for (``sys.platform`` values, by :func:`os_key`).
OSES = ("linux", "darwin", "win32")

#: How many JSON Lines records of a file's head detection looks at.
HEAD_RECORDS = 200
HEAD_BYTES = 1 << 16


class ReadFn(Protocol):
    def __call__(
        self, path: str | os.PathLike[str], start: int, *, limit_bytes: int | None = None
    ) -> Read: ...


@dataclass
class Head:
    """What detection knows about a file, read once and shown to every adapter's sniff:
    the first bytes, the JSON Lines records there (up to :data:`HEAD_RECORDS`), the whole
    document when the file is one JSON value, and a SQLite file's table names."""

    path: Path
    text: bytes = b""
    records: list[dict] = field(default_factory=list)
    lines: int = 0
    document: Any = None
    tables: frozenset[str] | None = None
    claimed: set[int] = field(default_factory=set)

    def share(self, claims: Callable[[dict, int], bool]) -> float:
        """The share of the head's non-blank lines that are JSON Lines records *claims*
        recognises (a note with one JSON line among many is not JSON Lines). Detection asks
        the adapters in :data:`BUILTIN` order, and a record an earlier adapter claimed does
        not count for a later one: a record is one format's, the first that knows it."""
        if not self.records:
            return 0.0
        hits = 0
        for i, r in enumerate(self.records):
            if i not in self.claimed and claims(r, i):
                self.claimed.add(i)
                hits += 1
        return hits / max(self.lines, len(self.records))

    @property
    def plain(self) -> bool:
        """Is the file text that is neither JSON Lines, one JSON document nor a database?"""
        return (
            not self.records
            and self.document is None
            and self.tables is None
            and not self.text.startswith(b"\x28\xb5\x2f\xfd")  # zstd frames
        )


@runtime_checkable
class JournalAdapter(Protocol):
    """What kura needs of a journal format (:class:`Adapter` is the ready-made shape)."""

    @property
    def name(self) -> str: ...
    @property
    def label(self) -> str: ...
    @property
    def unit(self) -> str: ...
    @property
    def roots(self) -> Mapping[str, tuple[str, ...]]: ...
    @property
    def include(self) -> tuple[str, ...]: ...
    @property
    def variants(self) -> tuple[str, ...]: ...
    @property
    def windowed(self) -> bool: ...
    @property
    def auto(self) -> bool: ...
    @property
    def read(self) -> ReadFn: ...
    @property
    def sniff(self) -> Callable[[Head], float]: ...


@dataclass(frozen=True)
class Adapter:
    """One journal format.

    ``unit`` is the watermark unit: ``"byte"`` offsets for files that only grow, ``"seq"``
    record numbers for files rewritten whole. ``read(path, start, *, limit_bytes)``
    returns a :class:`~.base.Read`; it consumes only complete records, accounts for each
    one (a segment or a note), and takes ``limit_bytes`` as a soft window when
    ``windowed``. ``sniff(head)`` says how much of a file's head is this format (0: none).
    ``roots`` are where the agent keeps its journals, per OS (:data:`OSES`), and
    ``include`` the globs of journal files under a root. ``variants`` names the format
    versions the adapter knows (``kura journal inspect`` prints the one it met). An
    adapter with ``auto`` false is never chosen by detection -- only when a root is
    configured for it or it is named (the plain-text adapter: every paragraph would be
    USER).
    """

    name: str
    label: str
    unit: str
    read: ReadFn
    sniff: Callable[[Head], float]
    roots: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    include: tuple[str, ...] = ("**/*",)
    variants: tuple[str, ...] = ()
    windowed: bool = False
    auto: bool = True

    def __post_init__(self) -> None:
        if self.unit not in ("byte", "seq"):
            raise ValueError(f"adapter {self.name!r}: unit must be 'byte' or 'seq'")
        if not self.name or not self.name.replace("-", "").replace("_", "").isalnum():
            raise ValueError(f"adapter name {self.name!r}: use letters, digits, - and _")


def os_key(platform: str | None = None) -> str:
    """``linux``, ``darwin`` or ``win32`` for a ``sys.platform`` value."""
    p = sys.platform if platform is None else platform
    if p.startswith("win") or p == "cygwin":
        return "win32"
    return "darwin" if p == "darwin" else "linux"


# --------------------------------------------------------------------------- loading


def _load(spec: str) -> Any:
    module, _, attr = spec.partition(":")
    return getattr(importlib.import_module(module), attr)


@functools.cache
def _builtin() -> tuple[Adapter, ...]:
    return tuple(_load(spec) for spec in BUILTIN)


@functools.cache
def _plugins() -> tuple[tuple[JournalAdapter, ...], tuple[str, ...]]:
    """Adapters other packages register, and why any was left out."""
    found: list[JournalAdapter] = []
    problems: list[str] = []
    taken = {a.name for a in _builtin()}
    for ep in metadata.entry_points(group=ENTRY_POINT_GROUP):
        try:
            obj = ep.load()
            adapter = obj() if callable(obj) and not isinstance(obj, JournalAdapter) else obj
        except Exception as exc:  # a broken plug-in must not break kura
            problems.append(f"journal adapter {ep.name!r} ({ep.value}) failed to load: {exc}")
            continue
        if not isinstance(adapter, JournalAdapter):
            problems.append(
                f"journal adapter {ep.name!r} ({ep.value}) is not an adapter "
                "(see kura_core.distill.journals.registry)"
            )
        elif adapter.name in taken:
            problems.append(
                f"journal adapter {adapter.name!r} (entry point {ep.name!r}, {ep.value}): "
                "name taken"
            )
        else:
            taken.add(adapter.name)
            found.append(adapter)
    return tuple(found), tuple(problems)


def refresh() -> None:
    """Look for plug-ins again (after installing one in a running process, or in tests)."""
    _plugins.cache_clear()


def adapters() -> dict[str, JournalAdapter]:
    """Every adapter by name: the built-in ones, then plug-ins, in detection order."""
    out: dict[str, JournalAdapter] = {a.name: a for a in _builtin()}
    for a in _plugins()[0]:
        out[a.name] = a
    return out


def problems() -> tuple[str, ...]:
    """Why plug-in adapters were left out (empty when all loaded)."""
    return _plugins()[1]


def names() -> tuple[str, ...]:
    return tuple(adapters())


def get(name: str) -> JournalAdapter | None:
    return adapters().get(name)


# --------------------------------------------------------------------------- the head


def head_of(path: Path, kind: str) -> Head:
    """Read what detection looks at in *path* once (*kind* from :func:`.base.sniff`)."""
    head = Head(path)
    if kind == "sqlite":
        head.tables = _tables(path)
        return head
    with open(path, "rb") as fh:
        head.text = fh.read(HEAD_BYTES)
    if kind == "zstd":
        return head  # compressed: the adapters that read zstd look inside themselves
    stripped = head.text.lstrip(b"\xef\xbb\xbf \t\r\n")
    if stripped.startswith((b"{", b"[")) or b"\n{" in head.text[:4096]:
        head.records, head.lines = _records(path)
        if _single_document(stripped, head.records):
            head.document = _document(path)
    return head


def _tables(path: Path) -> frozenset[str]:
    import sqlite3

    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=2)
        try:
            rows = con.execute("SELECT name FROM sqlite_master WHERE type='table'").fetchall()
        finally:
            con.close()
    except sqlite3.Error:
        return frozenset()
    return frozenset(r[0] for r in rows)


def _records(path: Path) -> tuple[list[dict], int]:
    """The first JSON Lines objects of *path*, and how many non-blank lines held them."""
    out: list[dict] = []
    lines = 0
    with open(path, "rb") as fh:
        for raw in fh:
            if len(out) >= HEAD_RECORDS or lines >= 4 * HEAD_RECORDS:
                break
            if not raw.strip():
                continue
            lines += 1
            text, _ = decode_bytes(raw)
            try:
                obj = json.loads(text.lstrip("\ufeff"))
            except (ValueError, RecursionError):
                continue
            if isinstance(obj, dict):
                out.append(obj)
    return out, lines


def _single_document(stripped: bytes, records: list[dict]) -> bool:
    """Might the file be one JSON document (pretty-printed, or one line holding it all)?"""
    if len(records) > 1:
        return False
    return len(records) == 1 or stripped.startswith((b"{", b"[")) or b"\n{" in stripped[:4096]


def _document(path: Path) -> Any:
    if os.path.getsize(path) > (512 << 20):
        return None
    text, _ = decode_bytes(path.read_bytes())
    text = text.lstrip("\ufeff")
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        at = text.find("\n{")
        if at < 0 or text.count("\n", 0, at) > 3:
            return None
        try:  # a status line before the document (`opencode export > file`)
            return json.loads(text[at + 1 :])
        except (ValueError, RecursionError):
            return None


def ranked(head: Head) -> list[tuple[float, str]]:
    """``(score, adapter)`` of every adapter detection may choose that recognises *head*,
    best first (on a tie, the earlier adapter)."""
    scored = []
    for order, a in enumerate(adapters().values()):
        if not a.auto:
            continue
        try:
            score = float(a.sniff(head))
        except Exception:  # a plug-in's sniff must not break detection
            score = 0.0
        if score > 0:
            scored.append((score, -order, a.name))
    scored.sort(reverse=True)
    return [(s, n) for s, _o, n in scored]
