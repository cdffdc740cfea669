"""The tender: distils unattended, one process per store.

Quiet means the newest journal file has not changed for `idle_min` minutes. After a
quiet spell the tender drains waiting drafts, or, when there are none, runs one distil;
it re-weaves once when something was poured and tidies the index once per quiet spell.
A track with nothing to do rests `backoff_min` (remembered in the workshop, so a
scheduler calling `--once` respects it too). When the journal changes mid-track — the
human is back — the track stops at a safe point unless `yield_on_return = false`.

It beats a heartbeat into the workshop on every tick and during long tracks, so
`kura doctor` can tell a live tender from a dead one: a silently dead tender is the one
failure a tender must not have.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import fcntl
import json
import os
import signal
import socket
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TextIO

from . import history
from .distill import pipeline
from .distill.drafts import list_drafts
from .distill.pipeline import journal_files
from .distill.tidy import tidy
from .errors import BusyError, KuraError
from .handwork.maps import build_trail
from .registry import Registry
from .reports import tally_of
from .sync import sync
from .warm import warm
from .weave import weave

TRACKS = ("drain", "run", "tidy")
_RESTING = object()  # a track that was not run because it is resting
POLL_S = 15.0


@dataclass(frozen=True)
class Tick:
    """What one tick of the tender did (frozen; counted as it ran in a :data:`_TickTally`)."""

    did_work: bool = False
    quiet: bool = False
    tracks: tuple[str, ...] = ()
    counts: Mapping[str, int] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    failed: str = ""
    stopped: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "did_work": self.did_work,
            "quiet": self.quiet,
            "tracks": list(self.tracks),
            "counts": dict(self.counts),
            "notes": list(self.notes),
            "failed": self.failed,
            "stopped": self.stopped,
        }


_TickTally = tally_of(Tick)


class Tender:
    def __init__(
        self,
        reg: Registry,
        selector: str | None,
        *,
        clock: Callable[[], float] | None = None,
        log: TextIO | None = None,
        checks: Any = None,
    ):
        self.reg = reg
        self.name = reg.resolve(selector)
        self.store = reg.store(self.name)
        self.ws = reg.workshop(self.name)
        self.spec = reg.config.stores[self.name]
        self.clock = clock or reg.clock
        self.started = self.clock()
        self.counts = {"poured": 0, "tossed": 0, "fixed": 0, "drafted": 0, "tidied": 0, "woven": 0}
        self.echo = log
        self._lock_fd: int | None = None
        self.stop_event = threading.Event()
        #: the distiller's checks and their clock (``pipeline.Checks``; None: the real ones)
        self.checks = checks

    # ---- one process per store --------------------------------------------
    def acquire(self) -> None:
        self.store.still.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.store.still / "tend.lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            who = self.ws.heartbeat()
            pid = f" (pid {who['pid']})" if who else ""
            raise BusyError(
                f"a tender is already running on store {self.name!r}{pid}; one per store"
            ) from None
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        self._lock_fd = fd

    def release(self) -> None:
        if self._lock_fd is not None:
            with contextlib.suppress(OSError):
                fcntl.flock(self._lock_fd, fcntl.LOCK_UN)
                os.close(self._lock_fd)
            self._lock_fd = None

    # ---- heartbeat and log ---------------------------------------------------
    def beat(self, state: str) -> None:
        self.ws.beat(
            pid=os.getpid(),
            host=socket.gethostname(),
            started=self.started,
            state=state,
            counts=json.dumps(self.counts),
        )

    def log(self, text: str) -> None:
        stamp = dt.datetime.fromtimestamp(self.clock()).isoformat(timespec="seconds")
        line = f"{stamp} [{self.name}] {text}\n"
        with (
            contextlib.suppress(OSError),
            open(self.store.still / "tend.log", "a", encoding="utf-8") as fh,
        ):
            fh.write(line)
        if self.echo is not None:
            with contextlib.suppress(Exception):
                self.echo.write(line)
                self.echo.flush()

    # ---- quiet and rest --------------------------------------------------------
    def newest_journal(self) -> float | None:

        newest = None
        for _, path in journal_files(self.reg, self.name):
            try:
                m = path.stat().st_mtime
            except OSError:
                continue
            newest = m if newest is None else max(newest, m)
        return newest

    def quiet_for(self) -> float | None:
        newest = self.newest_journal()
        return None if newest is None else self.clock() - newest

    def resting(self, track: str) -> float:
        until = self.ws.get(f"tend.rest.{track}", 0) or 0
        return max(0.0, until - self.clock())

    def rest(self, track: str) -> None:
        self.ws.put(f"tend.rest.{track}", self.clock() + self.spec.distill.backoff_min * 60)

    def wake(self, track: str) -> None:
        self.ws.put(f"tend.rest.{track}", 0)

    # ---- one tick ----------------------------------------------------------------
    def tick(self) -> Tick:
        t = _TickTally()
        self.beat("checking")
        self._sync(t, force=False)
        newest, spell = self._check_quiet(t)
        if not t.quiet:
            return t.freeze()

        def back() -> bool:
            if self.stop_event.is_set():
                return True
            if not self.spec.distill.yield_on_return:
                return False
            now_newest = self.newest_journal()
            return now_newest is not None and newest is not None and now_newest != newest

        rep, poured = self._distil(t, back)
        if rep is None:
            return t.freeze()
        if rep is not _RESTING:
            if not rep.did_work:
                self.rest(t.tracks[-1])
            t.did_work |= rep.did_work
            if rep.stopped == "asked to stop":
                t.stopped = "the human is back" if not self.stop_event.is_set() else "stopping"
        if t.stopped:
            self.log(f"yielded: {t.stopped}")
            return t.freeze()
        if self.ws.get("tend.tidied_spell") != spell and not self.resting("tidy") and not back():
            poured += self._tidy(t, spell, back)
        if poured:
            self._weave(t)
            self._sync(t, force=True)
        t.counts = dict(self.counts)
        self.beat("resting")
        return t.freeze()

    def _check_quiet(self, t: Any) -> tuple[float | None, str]:
        """Whether the journals have been quiet long enough (into *t*), the newest journal's
        time, and the name of this quiet spell (tidy runs once per spell)."""
        newest = self.newest_journal()
        if newest is None:
            t.notes.append("no journals to watch")
            t.quiet = True
            return None, "none"
        age = self.clock() - newest
        t.quiet = age >= self.spec.distill.idle_min * 60
        if not t.quiet:
            t.notes.append(f"not quiet yet: the journal changed {age:.0f}s ago")
        return newest, f"{newest:.3f}"

    def _distil(self, t: Any, back: Callable[[], bool]) -> tuple[Any, int]:
        """Drain the waiting drafts, or distil the journals when none wait. The report
        (None when the track failed, ``_RESTING`` when it rests) and how many memories
        were poured."""

        def heartbeat(kind: str, info: Any) -> None:
            self.beat(f"{kind}")

        if list_drafts(self.store):
            rep = self._track(
                t,
                "drain",
                "draining",
                lambda: pipeline.drain(self.reg, self.name, should_stop=back, progress=heartbeat),
            )
            if rep is None or rep is _RESTING:
                return rep, 0
            self.counts["poured"] += len(rep.poured)
            self.counts["tossed"] += len(rep.tossed)
            self.counts["fixed"] += len(rep.fixed)
            self.log(
                f"drain: poured {len(rep.poured)}, fixed {len(rep.fixed)}, tossed {len(rep.tossed)}, "
                f"kept {len(rep.kept)}"
                + (f", left {len(rep.left)}" if rep.left else "")
                + (f" — stopped: {rep.stopped}" if rep.stopped else "")
            )
            if rep.errors and not rep.did_work:
                t.failed = rep.errors[0]
            return rep, len(rep.poured)
        rep = self._track(
            t,
            "run",
            "distilling",
            lambda: pipeline.run(
                self.reg, self.name, should_stop=back, progress=heartbeat, checks=self.checks
            ),
        )
        if rep is None or rep is _RESTING:
            return rep, 0
        self.counts["drafted"] += len(rep.drafts)
        self.log(
            f"distil: {rep.batches} batch(es) → {len(rep.drafts)} draft(s), {rep.dropped} dropped"
            + (f" — stopped: {rep.stopped}" if rep.stopped else "")
        )
        for note in rep.errors:
            if note.startswith(pipeline.OVERRAN):
                # one bad chunk never stalls the tender: it is set aside and the loop goes on
                t.notes.append(note)
                self.log(f"shelved {note}")
        if rep.shelved:
            t.failed = next(
                (e for e in rep.errors if not e.startswith(pipeline.OVERRAN)), "a batch was shelved"
            )
        return rep, 0

    def _tidy(self, t: Any, spell: str, back: Callable[[], bool]) -> int:
        """Tidy weak index lines once per quiet spell; 1 when the index changed (the map
        needs weaving), else 0."""

        t.tracks.append("tidy")
        self.beat("tidying")
        changed = 0
        try:
            trep = tidy(self.reg, self.name, should_stop=back)
            self.counts["tidied"] += len(trep.rewritten)
            t.did_work |= trep.did_work
            changed = 1 if trep.rewritten else 0
            self.log(f"tidy: {len(trep.flagged)} weak line(s), {len(trep.rewritten)} rewritten")
        except KuraError as exc:
            self.log(f"tidy skipped: {exc}")
            self.rest("tidy")
        self.ws.put("tend.tidied_spell", spell)
        return changed

    def _sync(self, t: Any, *, force: bool) -> None:
        """Share the store through its remote ([stores.X.sync]): when due, or at once after
        memories were poured. A failure rests the track and never stops the tick."""
        remote = self.spec.sync_remote
        if not remote or self.resting("sync"):
            return
        last = self.ws.get("tend.synced_at", 0) or 0
        if not force and self.clock() - last < self.spec.sync_every_min * 60:
            return
        t.tracks.append("sync")
        self.beat("syncing")
        try:
            with history.acting("tender"):
                rep = sync(self.store, remote)
            self.log(
                f"sync: {rep.merged or 'nothing to merge'}, brought {len(rep.brought)}"
                + (f", {len(rep.conflicts)} conflict draft(s)" if rep.conflicts else "")
                + ("" if rep.pushed else f" — not pushed: {rep.push_error}")
            )
            t.did_work |= bool(rep.brought)
        except KuraError as exc:
            self.log(f"sync failed: {exc}")
            t.notes.append(f"sync failed: {exc}")
            self.rest("sync")
        self.ws.put("tend.synced_at", self.clock())

    def _weave(self, t: Any) -> None:
        t.tracks.append("weave")
        self.beat("weaving")
        try:
            weave(self.reg, self.name)
            self.counts["woven"] += 1
            self.log("re-wove the map")
        except KuraError as exc:
            self.log(f"weave skipped: {exc}")
        try:  # the hot trail follows the index the map was just woven from
            build_trail(self.reg, self.name)
        except KuraError as exc:
            self.log(f"trail skipped: {exc}")
        # the index changed: the thinker reads it now, not inside the next recall's timeout
        rep = warm(self.reg, self.name)
        if rep.sent:
            self.log(rep.line())

    def _track(self, t: Any, track: str, doing: str, work: Callable[[], Any]) -> Any:
        """Run one track unless it is resting. None when it failed (already logged)."""
        left = self.resting(track)
        if left:
            t.notes.append(f"{track} resting {left:.0f}s")
            return _RESTING
        t.tracks.append(track)
        self.beat(doing)
        try:
            return work()
        except KuraError as exc:
            t.failed = str(exc)
            self.log(f"{track} failed: {exc}")
            self.rest(track)
            return None

    # ---- resident -----------------------------------------------------------------
    def run_forever(self, *, poll_s: float = POLL_S) -> None:
        self.log(f"tender started (pid {os.getpid()})")
        try:
            while not self.stop_event.is_set():
                try:
                    t = self.tick()
                    if t.did_work or t.failed:
                        self.log(f"tick: {json.dumps(t.to_json(), ensure_ascii=False)}")
                except Exception as exc:  # keep beating; say what went wrong
                    self.log(f"tick failed: {type(exc).__name__}: {exc}")
                self.stop_event.wait(poll_s)
        finally:
            self.beat("stopped")
            self.log(f"tender stopped; work done: {json.dumps(self.counts)}")


def run_once(reg: Registry, selector: str | None, *, out: TextIO | None = None) -> tuple[int, Tick]:
    tender = Tender(reg, selector, log=out)
    tender.acquire()
    try:
        t = tender.tick()
        tender.beat("stopped")
    finally:
        tender.release()
    if t.failed:
        return 1, t
    return (0 if t.did_work else 2), t


def run_resident(
    reg: Registry, selector: str | None, *, out: TextIO | None = None, poll_s: float = POLL_S
) -> int:
    tender = Tender(reg, selector, log=out)
    tender.acquire()

    def stop(signum: int, frame: Any) -> None:
        tender.stop_event.set()

    old = {s: signal.signal(s, stop) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        tender.run_forever(poll_s=poll_s)
    finally:
        for s, h in old.items():
            signal.signal(s, h)
        tender.release()
    return 0
