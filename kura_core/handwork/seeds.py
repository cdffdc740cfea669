"""Ideas kept as seeds: what confirmed them so far, and dismissing one by hand."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import ConflictError, NotFound
from ..registry import Registry
from ..vocabulary import (
    GateLogKind,
    SeedState,
)
from .memories import GateEntry, gate_entries
from .quotes import Quote

if TYPE_CHECKING:
    pass

# =========================================================================== seeds


@dataclass(frozen=True)
class Confirmation:
    at: float
    draft: str
    journal: str
    quotes: tuple[Quote, ...]


@dataclass(frozen=True)
class Seed:
    """An idea kept aside until later evidence confirms it; it never enters the store."""

    id: int
    at: float
    title: str
    body: str
    state: str  # waiting | graduated | dismissed | withered
    source: str
    quotes: tuple[Quote, ...]
    updated: float
    confirmed: tuple[Confirmation, ...] = ()
    attempts: tuple[tuple[float, str], ...] = ()  # later evidence that did not confirm it
    dismissed: tuple[float, str, str] | None = None  # (at, by, reason)
    checks: int = 0  # seed checks that showed it to the brain since it was planted or revived
    withered: tuple[float, str] | None = None  # (at, why) while it is withered

    def to_json(self) -> dict[str, object]:
        return {
            "id": self.id,
            "at": self.at,
            "title": self.title,
            "body": self.body,
            "state": self.state,
            "source": self.source,
            "updated": self.updated,
            "checks": self.checks,
            "confirmed": [
                {"at": c.at, "draft": c.draft, "journal": c.journal} for c in self.confirmed
            ],
            "attempts": [{"at": at, "reason": why} for at, why in self.attempts],
            "dismissed": (
                None
                if self.dismissed is None
                else {"at": self.dismissed[0], "by": self.dismissed[1], "reason": self.dismissed[2]}
            ),
            "withered": (
                None
                if self.withered is None
                else {"at": self.withered[0], "reason": self.withered[1]}
            ),
        }


SEED_LOG = (
    GateLogKind.GRADUATED,
    GateLogKind.SEED_UNCONFIRMED,
    GateLogKind.SEED_DISMISSED,
    GateLogKind.SEED_WITHERED,
)


def seed_list(reg: Registry, name: str, *, limit: int = 500) -> tuple[Seed, ...]:
    store = reg.store(name)
    if not store.still.is_dir():
        return ()
    ws = reg.workshop(name)
    rows = ws.seeds(limit=limit)
    log = gate_entries(ws, kinds=SEED_LOG, limit=5000)
    by_seed: dict[int, list[GateEntry]] = {}
    for e in log:
        sid = e.detail.get("seed")
        if isinstance(sid, int):
            by_seed.setdefault(sid, []).append(e)
    out = []
    for r in rows:
        try:
            raw = json.loads(r["quotes"] or "[]")
        except ValueError:
            raw = []
        events = by_seed.get(r["id"], [])
        confirmed = tuple(
            Confirmation(
                e.at,
                str(e.detail.get("draft") or ""),
                str(e.detail.get("journal") or ""),
                tuple(
                    Quote.from_json(q)
                    for q in e.detail.get("quotes") or []
                    if isinstance(q, Mapping)
                ),
            )
            for e in events
            if e.kind == GateLogKind.GRADUATED
        )
        attempts = tuple((e.at, e.reason) for e in events if e.kind == GateLogKind.SEED_UNCONFIRMED)
        dis = next(
            (
                (e.at, str(e.detail.get("by") or ""), e.reason)
                for e in events
                if e.kind == GateLogKind.SEED_DISMISSED
            ),
            None,
        )
        withered = next(
            ((e.at, e.reason) for e in events if e.kind == GateLogKind.SEED_WITHERED), None
        )
        out.append(
            Seed(
                r["id"],
                r["at"],
                r["title"],
                r["body"],
                r["state"],
                r["source"],
                tuple(Quote.from_json(q) for q in raw if isinstance(q, Mapping)),
                r["updated"],
                confirmed,
                attempts,
                dis,
                int(r["checks"] or 0),
                withered if r["state"] == SeedState.WITHERED else None,
            )
        )
    return tuple(out)


def revive_seed(reg: Registry, name: str, seed_id: int, *, by: str = "hand") -> Seed:
    """Put a withered idea back among the waiting: checked again, its clock started afresh."""
    row = reg.workshop(name).revive_seed(seed_id, by=by)
    if row is None:
        raise NotFound(f"no seed {seed_id} in store {name!r}")
    if row["state"] != SeedState.WITHERED:
        raise ConflictError(
            f"seed {seed_id} is {row['state']}, not withered: only a withered idea is revived"
        )
    return next(s for s in seed_list(reg, name) if s.id == seed_id)


def dismiss_seed(
    reg: Registry, name: str, seed_id: int, reason: str = "", *, by: str = "hand"
) -> Seed:
    """Set a waiting idea aside for good: it is no longer checked against new evidence."""
    reason = " ".join((reason or "").split()) or f"dismissed by {by}"
    ws = reg.workshop(name)
    row = ws.dismiss_seed(seed_id, reason=reason, by=by)
    if row is None:
        raise NotFound(f"no seed {seed_id} in store {name!r}")
    if row["state"] != SeedState.WAITING:
        raise ConflictError(
            f"seed {seed_id} is {row['state']}, not waiting: only a waiting idea is dismissed"
        )
    return next(s for s in seed_list(reg, name) if s.id == seed_id)
