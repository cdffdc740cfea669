"""Which adapter reads a file, decided by its content, never by its name.

The file's head is read once (:func:`.registry.head_of`: its first bytes, its first JSON
Lines records, the whole document when it is one JSON value, a database's tables) and
every adapter that may be detected scores it with its own ``sniff``; the best score wins,
an earlier adapter of :data:`.registry.BUILTIN` on a tie. An adapter is never chosen by
elimination: a file no adapter recognises is an error that says so -- plain text is read
only when a root is configured for the ``text`` adapter or it is named with ``--adapter
text`` (a note is not a transcript, and every paragraph of it would be USER).

Only an empty file falls back to its name (``.jsonl`` → claude), because an empty file
has no content to judge.
"""

from __future__ import annotations

import os
from pathlib import Path

from . import registry
from .base import JournalError, encoding_problem, pretty_printed, sniff


def adapter_names() -> tuple[str, ...]:
    """Every adapter's name (the built-in ones and plug-ins)."""
    return registry.names()


def sniff_adapter(path: str | os.PathLike[str]) -> str:
    """The adapter whose format *path* has, or ``""`` when none recognises it."""
    p = Path(path)
    try:
        kind = sniff(p)
        if kind not in ("text", "sqlite", "zstd"):
            return ""
        best = registry.ranked(registry.head_of(p, kind))
    except OSError:
        return ""
    return best[0][1] if best else ""


_BY_SUFFIX = {".jsonl": "claude", ".ndjson": "claude"}


def guess_adapter(path: str | os.PathLike[str]) -> str:
    """Name the adapter that reads *path*, judged by its content; a clear error naming
    the adapters when no adapter recognises it."""
    p = Path(path)
    if not p.is_file():
        raise JournalError(
            f"{p}: no such journal file (name an existing file; adapters: "
            f"{', '.join(adapter_names())}, chosen with --adapter)"
        )
    try:
        if p.stat().st_size == 0:
            if p.suffix.lower() in _BY_SUFFIX:
                return _BY_SUFFIX[p.suffix.lower()]
            raise JournalError(
                f"{p.name} is empty, so its format cannot be told: name the "
                f"adapter with --adapter (one of {', '.join(adapter_names())})"
            )
        problem = encoding_problem(p)
        if problem and sniff(p) not in ("sqlite", "zstd"):
            raise JournalError(
                f"{problem}; no adapter reads it (adapters: {', '.join(adapter_names())})"
            )
    except OSError as exc:
        raise JournalError(f"cannot read journal {p}: {exc.strerror}") from None
    found = sniff_adapter(p)
    if found:
        return found
    if sniff(p) == "sqlite":
        raise JournalError(
            f"{p.name} is a SQLite database none of kura's adapters knows (opencode, "
            f"Crush, Zed and cursor-agent databases are read); adapters: "
            f"{', '.join(adapter_names())}"
        )
    if pretty_printed(p):
        raise JournalError(
            f"{p.name} is JSON spread over many lines (pretty-printed) that no adapter "
            "recognises; journals are JSON Lines, one record per line: convert it with "
            "`jq -c . FILE` or name the adapter with --adapter"
        )
    known = ", ".join(a.label for a in registry.adapters().values() if a.auto)
    raise JournalError(
        f"cannot tell which agent wrote {p.name}: its content matches no known format "
        f"({known}); name the adapter with --adapter (one of {', '.join(adapter_names())}) "
        "-- --adapter text reads a file of your own notes, each paragraph as your words"
    )
