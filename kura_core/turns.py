"""Turns: threads doing local work take the interpreter one at a time, in arrival order.

A threaded server under load has more runnable threads than one interpreter lock can serve.
Which waiting thread gets the lock next is up to the operating system, and a request that
gives it up a few times (every file status check does) can lose that draw again and again:
the median stays fine while the slowest requests wait many times longer. Turns put the
local, CPU-bound part of a request in a first-come, first-served queue instead, so each
waits for the requests that arrived before it and no others. Throughput is unchanged — the
interpreter lock let only one thread run Python at a time anyway.

A thread about to wait on something slow that is not this process's CPU (a model, another
process's database lock) steps ``aside()``: it gives its turn to the next in line and queues
again when the wait is over, so a slow model never holds up a recall that needs none.
"""

from __future__ import annotations

import contextlib
import threading
from collections import deque
from typing import Iterator

_local = threading.local()


class Turns:
    """A first-come, first-served turn for local work (see the module)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._waiting: deque[threading.Lock] = deque()
        self._held = False

    def _take(self) -> None:
        with self._lock:
            if not self._held:
                self._held = True
                return
            ticket = threading.Lock()
            ticket.acquire()
            self._waiting.append(ticket)
        ticket.acquire()  # released by the thread whose turn ends: the turn is handed over

    def _give(self) -> None:
        with self._lock:
            if self._waiting:
                self._waiting.popleft().release()
            else:
                self._held = False

    @contextlib.contextmanager
    def turn(self) -> Iterator[None]:
        """Hold a turn for the block (a thread already holding one keeps it)."""
        if getattr(_local, "turns", None) is self:
            yield
            return
        self._take()
        _local.turns = self
        try:
            yield
        finally:
            _local.turns = None
            self._give()

    @property
    def waiting(self) -> int:
        """How many threads are queued for a turn."""
        with self._lock:
            return len(self._waiting)


@contextlib.contextmanager
def aside() -> Iterator[None]:
    """Give up the calling thread's turn, if it holds one, for the block; queue again after."""
    turns = getattr(_local, "turns", None)
    if turns is None:
        yield
        return
    _local.turns = None
    turns._give()
    try:
        yield
    finally:
        turns._take()
        _local.turns = turns
