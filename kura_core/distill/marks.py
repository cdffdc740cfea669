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
import sqlite3
import uuid
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import cast

from ..workshop import Workshop


@dataclass(frozen=True)
class Stretch:
    id: int
    journal: str
    start: int
    end: int
    attempts: int
    retry: bool  # True when this is a shelved stretch being drunk again


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
    rows = ws.query("SELECT mark FROM watermarks WHERE journal=?", (journal,))
    return rows[0]["mark"] if rows else 0


def marks(ws: Workshop) -> dict[str, dict]:
    return {r["journal"]: dict(r) for r in ws.query("SELECT * FROM watermarks")}


def _frontier(conn: sqlite3.Connection, journal: str) -> tuple[int, int]:
    row = conn.execute(
        "SELECT mark, reserved_to FROM watermarks WHERE journal=?", (journal,)
    ).fetchone()
    mark, reserved_to = (row[0], row[1]) if row else (0, 0)
    top = conn.execute("SELECT MAX(end) FROM reservations WHERE journal=?", (journal,)).fetchone()[
        0
    ]
    return mark, max(mark, reserved_to, top or 0)


def _settle(conn: sqlite3.Connection, journal: str, adapter: str, unit: str, now: float) -> None:
    """Move the watermark to the earliest outstanding start (never backwards)."""
    mark, frontier = _frontier(conn, journal)
    low = conn.execute(
        "SELECT MIN(start) FROM reservations WHERE journal=?", (journal,)
    ).fetchone()[0]
    new = frontier if low is None else min(low, frontier)
    new = max(new, mark)
    conn.execute(
        "INSERT INTO watermarks(journal, adapter, unit, mark, reserved_to, updated) VALUES(?,?,?,?,?,?) "
        "ON CONFLICT(journal) DO UPDATE SET mark=MAX(mark, excluded.mark), "
        "reserved_to=MAX(reserved_to, excluded.reserved_to), updated=excluded.updated",
        (journal, adapter, unit, new, frontier, now),
    )


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
    beginning at ``start`` ends (== start when there is nothing complete to read).
    Shelved stretches whose ids are in *skip* (tried already in this run) are passed over:
    a run moves on past a stretch it had to shelve, and a later run tries it again.
    """
    now = ws.clock()
    with ws.transaction() as conn:
        # stretches held by dead processes are shelved: nothing reserved is ever skipped
        for r in conn.execute(
            "SELECT id, owner FROM reservations WHERE journal=? AND state='held'", (journal,)
        ).fetchall():
            if not _alive(r["owner"]):
                conn.execute(
                    "UPDATE reservations SET state='shelved', reason='its distiller died', "
                    "updated=? WHERE id=?",
                    (now, r["id"]),
                )
        shelved = next(
            (
                r
                for r in conn.execute(
                    "SELECT * FROM reservations WHERE journal=? AND state='shelved' ORDER BY start",
                    (journal,),
                )
                if r["id"] not in skip
            ),
            None,
        )
        if shelved is not None:
            conn.execute(
                "UPDATE reservations SET state='held', owner=?, attempts=attempts+1, updated=? "
                "WHERE id=?",
                (owner, now, shelved["id"]),
            )
            return Stretch(
                shelved["id"],
                journal,
                shelved["start"],
                shelved["end"],
                shelved["attempts"] + 1,
                True,
            )
        _, start = _frontier(conn, journal)
        end = measure(start)
        if end <= start:
            return None
        cur = conn.execute(
            "INSERT INTO reservations(journal, start, end, owner, state, attempts, created, updated) "
            "VALUES(?,?,?,?, 'held', 1, ?, ?)",
            (journal, start, end, owner, now, now),
        )
        conn.execute(
            "INSERT INTO watermarks(journal, adapter, unit, mark, reserved_to, updated) VALUES(?,?,?,?,?,?) "
            "ON CONFLICT(journal) DO UPDATE SET reserved_to=MAX(reserved_to, excluded.reserved_to), "
            "updated=excluded.updated",
            (journal, adapter, unit, 0, end, now),
        )
        return Stretch(
            cast(int, cur.lastrowid), journal, start, end, 1, False
        )  # set by the INSERT above


def commit(ws: Workshop, stretch: Stretch, *, adapter: str, unit: str) -> None:
    """The stretch has been drunk: release it and move the watermark forward."""
    with ws.transaction() as conn:
        conn.execute("DELETE FROM reservations WHERE id=?", (stretch.id,))
        _settle(conn, stretch.journal, adapter, unit, ws.clock())


def shelve(ws: Workshop, stretch: Stretch, reason: str) -> None:
    """The stretch could not be drunk now (a model failed): keep it for the next run."""
    with ws.transaction() as conn:
        conn.execute(
            "UPDATE reservations SET state='shelved', reason=?, updated=? WHERE id=?",
            (reason[:500], ws.clock(), stretch.id),
        )


def catch_up(ws: Workshop, journal: str, *, adapter: str, unit: str, end: int) -> bool:
    """Move the mark to *end* without drinking. Returns True if it moved."""
    with ws.transaction() as conn:
        mark, frontier = _frontier(conn, journal)
        outstanding = conn.execute(
            "SELECT COUNT(*) FROM reservations WHERE journal=?", (journal,)
        ).fetchone()[0]
        if outstanding or end <= frontier:
            return False
        conn.execute(
            "INSERT INTO watermarks(journal, adapter, unit, mark, reserved_to, updated) VALUES(?,?,?,?,?,?) "
            "ON CONFLICT(journal) DO UPDATE SET mark=MAX(mark, excluded.mark), "
            "reserved_to=MAX(reserved_to, excluded.reserved_to), updated=excluded.updated",
            (journal, adapter, unit, end, end, ws.clock()),
        )
        return True


def outstanding(ws: Workshop) -> list[dict]:
    return [dict(r) for r in ws.query("SELECT * FROM reservations ORDER BY journal, start")]
