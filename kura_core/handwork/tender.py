"""The tender as a person watches it: its heartbeat, its rests and its log."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..doctor import heartbeat_state
from ..registry import Registry
from ..vocabulary import (
    TenderState,
)

if TYPE_CHECKING:
    pass

# =========================================================================== the tender


@dataclass(frozen=True)
class TendStatus:
    store: str
    state: str  # alive | stale | dead | stopped | never started
    running: bool
    pid: int | None
    last_beat_s: float | None
    doing: str
    started: float | None
    counts: Mapping[str, int]
    resting: Mapping[str, float]  # track -> seconds left
    last_tick: Mapping[str, Any]  # the last tick that did work or failed, as logged
    last_tick_at: str
    last_tick_lines: tuple[str, ...]  # what the last tick logged it did
    log_tail: tuple[str, ...]
    log_path: str
    idle_min: float


def _tail(path: Path, lines: int, max_bytes: int = 256 * 1024) -> list[str]:
    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            size = fh.tell()
            fh.seek(max(0, size - max_bytes))
            data = fh.read()
    except OSError:
        return []
    text = data.decode("utf-8", errors="replace")
    out = text.split("\n")
    if size > max_bytes:
        out = out[1:]  # the first line is cut
    return [l for l in out if l.strip()][-lines:]


def tend_status(reg: Registry, name: str, *, lines: int = 200) -> TendStatus:

    store = reg.store(name)
    spec = reg.config.stores[name]
    log_path = store.still / "tend.log"
    if not store.still.is_dir():
        return TendStatus(
            name,
            "never started",
            False,
            None,
            None,
            "",
            None,
            {},
            {},
            {},
            "",
            (),
            (),
            str(log_path),
            spec.distill.idle_min,
        )
    ws = reg.workshop(name)
    row = ws.heartbeat()
    hb = heartbeat_state(row, reg.clock())
    resting = {}
    for track in ("drain", "run", "tidy"):
        until = ws.get(f"tend.rest.{track}", 0) or 0
        left = float(until) - reg.clock()
        if left > 0:
            resting[track] = left
    tail = tuple(_tail(log_path, lines))

    def work(part: Sequence[str]) -> tuple[str, ...]:
        return tuple(line for line in part if "] tender st" not in line)

    ticks = [i for i, line in enumerate(tail) if _tick_json(line) is not None]
    after = work(tail[ticks[-1] + 1 :] if ticks else tail)
    last: Mapping[str, Any] = {}
    last_at = ""
    if after:  # logged since the last tick line: a `--once` run, or a tick that logs no tick line
        did = after[-6:]
        last_at = did[-1].split(" ", 1)[0]
    elif ticks:
        last = _tick_json(tail[ticks[-1]]) or {}
        last_at = tail[ticks[-1]].split(" ", 1)[0]
        did = work(tail[ticks[-2] + 1 if len(ticks) > 1 else 0 : ticks[-1]])
    else:
        did = ()
    return TendStatus(
        name,
        hb["state"],
        hb["state"] in (TenderState.ALIVE, TenderState.STALE),
        hb.get("pid"),
        hb.get("last_beat_s"),
        str(hb.get("doing") or ""),
        row["started"] if row else None,
        dict(hb.get("counts") or {}),
        resting,
        last,
        last_at,
        did,
        tail,
        str(log_path),
        spec.distill.idle_min,
    )


def _tick_json(line: str) -> Mapping[str, Any] | None:
    _, sep, payload = line.partition("] tick: ")
    if not sep or not payload.startswith("{"):
        return None
    try:
        out = json.loads(payload)
    except ValueError:
        return None
    return out if isinstance(out, dict) else None
