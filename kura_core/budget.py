"""The time budget of one chunk: how long kura's own checks may take on one stretch of
journal before the stretch is set aside and the loop moves on.

A deterministic check (an adapter reading records, the gate's lookups, a floor) should
take time in proportion to its input. If one ever does not -- a pathological journal, a
quote that lands in a huge output, a regression -- the distiller and the tender must not
stall on it: the chunk is *shelved* with a note naming the file, the offset and the check,
exactly as a stretch is shelved when a model fails, and the next chunk is drunk.

The budget is cooperative first. Checks call :meth:`Deadline.check` between steps (per
segment, per quote, per floor, every few thousand matches of a long scan) and
:meth:`Deadline.step` around each step; the first look past the budget raises
:class:`Overran` naming the step. Model calls are not timed here (they have their own
timeouts): the clock only runs while kura's own checks run, through
:meth:`Deadline.paused`.

A step that never reaches its next check (one regular expression that backtracks for
ever) is stopped by :meth:`Deadline.preempting`: in the main thread, an interval timer
raises :class:`Overran` inside the step once the budget and a grace period are spent.
Python's regular expression engine looks at pending signals while it matches, so even a
runaway match is interrupted. In any other thread the budget stays cooperative.
"""

from __future__ import annotations

import contextlib
import signal
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from .errors import KuraError

#: the default per-chunk budget of kura's own checks, in seconds (``chunk_seconds``)
CHUNK_SECONDS = 60.0
#: how far past the budget the timer of :meth:`Deadline.preempting` lets a step run, as a
#: share of the budget, at least one second (a cooperative check usually comes first)
GRACE = 0.25


class Overran(KuraError):
    """A check ran past the chunk's time budget."""

    def __init__(self, check: str, spent: float, budget: float) -> None:
        self.check = check
        self.spent = spent
        self.budget = budget
        super().__init__(
            f"{check} ran past the time budget ({spent:.1f}s of {budget:g}s); raise "
            "[distill] chunk_seconds in kura.toml if this journal is merely large"
        )


class Deadline:
    """The budget of one chunk, spent while kura's own checks run.

    ``clock`` is a monotonic clock in seconds (injected in tests); ``seconds <= 0`` means
    no budget at all.
    """

    def __init__(self, seconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.seconds = seconds
        self.clock = clock
        self._spent = 0.0
        self._since: float | None = clock()
        #: the step running now, named by :meth:`step`
        self.doing = ""
        self._timer: Callable[[bool], None] | None = None

    @classmethod
    def unlimited(cls) -> Deadline:
        return cls(0.0)

    @property
    def spent(self) -> float:
        running = 0.0 if self._since is None else self.clock() - self._since
        return self._spent + running

    def check(self, step: str = "") -> None:
        """Raise :class:`Overran` naming *step* (or the step running now) when the budget
        is spent."""
        if self.seconds <= 0:
            return
        spent = self.spent
        if spent > self.seconds:
            raise Overran(step or self.doing or "a check", spent, self.seconds)

    @contextlib.contextmanager
    def step(self, name: str) -> Iterator[None]:
        """Run one named step: it is the step an interruption names while it runs, and the
        budget is checked under its name when it ends. Steps nest."""
        before, self.doing = self.doing, name
        try:
            yield
            self.check(name)
        finally:
            self.doing = before

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        """Stop the clock while something that is not one of kura's checks runs (a model
        call); nested pauses are fine."""
        if self._since is None:
            yield
            return
        self._spent += self.clock() - self._since
        self._since = None
        if self._timer:
            self._timer(False)
        try:
            yield
        finally:
            self._since = self.clock()
            if self._timer:
                self._timer(True)

    @contextlib.contextmanager
    def preempting(self) -> Iterator[None]:
        """Within the block, a step that runs past the budget (plus a grace period) is
        interrupted where it is by :class:`Overran`; the timer sleeps while the clock is
        paused. Only in the main thread, and only when no one else uses the interval
        timer; otherwise the block runs on the cooperative checks alone."""
        if (
            self.seconds <= 0
            or self._timer is not None
            or threading.current_thread() is not threading.main_thread()
            or signal.getitimer(signal.ITIMER_REAL)[0] > 0
        ):
            yield
            return

        def fire(signum: int, frame: Any) -> None:
            raise Overran(self.doing or "a check", self.spent, self.seconds)

        def timer(on: bool) -> None:
            left = self.seconds - self.spent + max(1.0, GRACE * self.seconds)
            signal.setitimer(signal.ITIMER_REAL, max(left, 0.001) if on else 0)

        old = signal.signal(signal.SIGALRM, fire)
        self._timer = timer
        try:
            timer(self._since is not None)
            yield
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            self._timer = None
            signal.signal(signal.SIGALRM, old)
