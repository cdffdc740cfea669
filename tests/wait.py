"""Waiting on a condition instead of sleeping for a guessed time.

A test that sleeps "long enough" for something to happen is slow on a fast machine and
wrong on a busy one. These helpers poll for the condition itself; the deadline only bounds
a hang and ends it with a message that says what never happened."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def wait_for(
    check: Callable[[], T], what: str, *, timeout: float = 30.0, interval: float = 0.01
) -> T:
    """Poll *check* until it returns something true, and return that. Fails naming *what*
    was awaited when *timeout* seconds pass first."""
    deadline = time.monotonic() + timeout
    while True:
        got = check()
        if got:
            return got
        if time.monotonic() >= deadline:
            raise AssertionError(f"waited {timeout:g}s for {what}; it never happened")
        time.sleep(interval)


class Overlap:
    """A meeting point for calls that should run at the same time (a scripted model's
    handler, say): each call is held inside ``with overlap:`` until *parties* calls are
    inside together, once. After that nobody waits. :attr:`peak` is the most calls that
    were ever inside at once; a caller that runs calls one after another never gets past
    one, and its first call goes on after *timeout* seconds so the test can fail on it."""

    def __init__(self, parties: int = 2, *, timeout: float = 30.0) -> None:
        self.parties = parties
        self.timeout = timeout
        self.live = 0
        self.peak = 0
        self._cond = threading.Condition()

    def __enter__(self) -> Overlap:
        with self._cond:
            self.live += 1
            self.peak = max(self.peak, self.live)
            self._cond.notify_all()
            self._cond.wait_for(lambda: self.peak >= self.parties, self.timeout)
        return self

    def __exit__(self, *exc: object) -> None:
        with self._cond:
            self.live -= 1
