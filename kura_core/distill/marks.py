"""Watermarks and reservations: reserve before drinking.

A distiller claims a stretch of journal under the workshop's write lock *before* it
reads it for a model, and a watermark only ever moves forward. Two distillers on one
store therefore never drink the same water twice and never erase each other's progress:
each sees the other's reservation and starts after it.

The units are the adapter's: byte offsets for append-only transcripts, record numbers
for archives that get rewritten. A stretch whose model call fails is *shelved* and the
next run retries it first; a stretch held by a process that died is shelved the same
way. So nothing reserved is ever skipped.

The watermark is the point below which everything has been drunk: the start of the
earliest stretch still reserved, or, with none outstanding, the furthest point ever
reserved.
"""

from __future__ import annotations

import os
import socket
import uuid
from collections.abc import Callable, Collection

from ..workshop import Stretch, Workshop

__all__ = [
    "Stretch",
    "catch_up",
    "commit",
    "journal_key",
    "mark_of",
    "marks",
    "outstanding",
    "owner_id",
    "reserve",
    "shelve",
]


def owner_id() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def journal_key(adapter: str, path: os.PathLike | str) -> str:
    """Two journals with one file name never collide: the key is the resolved path."""
    return f"{adapter}:{os.path.realpath(path)}"


def _alive(owner: str) -> bool:
    host, _, rest = owner.partition(":")
    pid_s = rest.partition(":")[0]
    if host != socket.gethostname():
        return True
    try:
        os.kill(int(pid_s), 0)
    except ProcessLookupError:
        return False
    except (ValueError, PermissionError, OSError):
        return True
    return True


def mark_of(ws: Workshop, journal: str) -> int:
    return ws.mark_of(journal)


def marks(ws: Workshop) -> dict[str, dict]:
    return ws.watermarks()


def reserve(
    ws: Workshop,
    journal: str,
    *,
    adapter: str,
    unit: str,
    owner: str,
    measure: Callable[[int], int],
    skip: Collection[int] = (),
) -> Stretch | None:
    """Claim the next stretch of *journal*, or a shelved one; None if nothing is waiting.

    ``measure(start)`` is called under the lock and returns where a whole-record stretch
    beginning at ``start`` ends (== start when there is nothing complete to read). A
    stretch held by a process that is gone is shelved first. Shelved stretches whose ids
    are in *skip* (shelved already in this run) are passed over: a run moves on past a
    stretch it had to set aside, and a later run tries it again.
    """
    return ws.reserve(
        journal,
        adapter=adapter,
        unit=unit,
        owner=owner,
        measure=measure,
        alive=_alive,
        skip=skip,
    )


def commit(ws: Workshop, stretch: Stretch, *, adapter: str, unit: str) -> None:
    """The stretch has been drunk: release it and move the watermark forward."""
    ws.release(stretch, adapter=adapter, unit=unit)


def shelve(ws: Workshop, stretch: Stretch, reason: str) -> None:
    """The stretch could not be drunk now (a model failed): keep it for the next run."""
    ws.shelve(stretch, reason)


def catch_up(ws: Workshop, journal: str, *, adapter: str, unit: str, end: int) -> bool:
    """Move the mark to *end* without drinking. Returns True if it moved."""
    return ws.catch_up(journal, adapter=adapter, unit=unit, end=end)


def outstanding(ws: Workshop) -> list[dict]:
    return ws.reservations()
