"""The time budget of one chunk: how long kura's own checks may take on one stretch of
journal before the stretch is set aside and the loop moves on.

A deterministic check (an adapter reading records, the gate's lookups, a floor) should
take time in proportion to its input. If one ever does not -- a pathological journal, a
quote that lands in a huge output, a regression -- the distiller and the tender must not
stall on it: the chunk is *shelved* with a note naming the file, the offset and the check,
exactly as a stretch is shelved when a model fails, and the next chunk is drunk.

The budget is cooperative. Checks call :meth:`Deadline.check` between steps (per segment,
per quote, per floor, every few thousand matches of a long scan); the first call past the
budget raises :class:`Overran` naming the step that was running. Model calls are not
timed here (they have their own timeouts): the clock only runs while kura's own checks
run, through :meth:`Deadline.paused`.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator

from .errors import KuraError

#: the default per-chunk budget of kura's own checks, in seconds (``chunk_seconds``)
CHUNK_SECONDS = 60.0


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

    @classmethod
    def unlimited(cls) -> Deadline:
        return cls(0.0)

    @property
    def spent(self) -> float:
        running = 0.0 if self._since is None else self.clock() - self._since
        return self._spent + running

    def check(self, step: str) -> None:
        """Raise :class:`Overran` naming *step* when the budget is spent."""
        if self.seconds <= 0:
            return
        spent = self.spent
        if spent > self.seconds:
            raise Overran(step, spent, self.seconds)

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        """Stop the clock while something that is not one of kura's checks runs (a model
        call); nested pauses are fine."""
        if self._since is None:
            yield
            return
        self._spent += self.clock() - self._since
        self._since = None
        try:
            yield
        finally:
            self._since = self.clock()
