"""Notifications that do not pile up over the content.

A toast is short-lived and at most a few are on screen: the same message again replaces its
toast with a count (``×3``), and a new one pushes the oldest off. Nothing is lost by that —
every notification is kept in the app's message log (``m``), counted the same way, and the
last warning or error stays on the work bar until another takes its place.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from textual.notifications import Notification

#: toasts on screen at once; a new one pushes the oldest off (it stays in the log)
TOASTS_SHOWN = 3

#: how long a toast stays, by severity, in seconds (a longer timeout asked for is cut to this)
TOAST_S = {"information": 4.0, "warning": 6.0, "error": 8.0}

#: notifications the log keeps (the oldest go first)
LOG_KEPT = 500

Key = tuple[str, str, str]


def toast_timeout(severity: str, asked: float | None) -> float:
    cap = TOAST_S.get(severity, TOAST_S["information"])
    return cap if asked is None else max(0.5, min(float(asked), cap))


def counted(title: str, count: int) -> str:
    if count < 2:
        return title
    return f"{title} ×{count}" if title else f"×{count}"


class Rack:
    """Decides which toasts leave the screen when one arrives, and what the new one says."""

    def __init__(self, shown: int = TOASTS_SHOWN) -> None:
        self.shown = shown
        #: identity of each toast this rack put up -> (what it says, how many times)
        self.said: dict[str, tuple[Key, int]] = {}

    def place(
        self, live: Iterable[Notification], new: Notification
    ) -> tuple[list[Notification], Notification]:
        """(toasts to take off, the toast to put up) for *new*, given those on screen."""
        up = [n for n in live if not n.has_expired]
        self.said = {n.identity: self.said[n.identity] for n in up if n.identity in self.said}
        key: Key = (new.title, new.message, new.severity)
        gone = [n for n in up if self.said.get(n.identity, (None, 0))[0] == key]
        count = 1 + sum(self.said[n.identity][1] for n in gone)
        toast = new
        if count > 1:
            toast = Notification(
                new.message, counted(new.title, count), new.severity, new.timeout, new.markup
            )
        rest = sorted((n for n in up if n not in gone), key=lambda n: n.raised_at)
        gone += rest[: max(0, len(rest) + 1 - self.shown)]
        for n in gone:
            self.said.pop(n.identity, None)
        self.said[toast.identity] = (key, count)
        return gone, toast


@dataclass
class Note:
    """One notification as the log keeps it."""

    at: float
    title: str
    message: str
    severity: str
    count: int = 1

    @property
    def important(self) -> bool:
        return self.severity in ("warning", "error")


class NoteLog:
    """Every notification of the session, newest last; the same one again is counted."""

    def __init__(self, kept: int = LOG_KEPT) -> None:
        self.kept = kept
        self.notes: list[Note] = []

    def add(self, at: float, title: str, message: str, severity: str) -> Note:
        for note in reversed(self.notes[-TOASTS_SHOWN:]):
            if (note.title, note.message, note.severity) == (title, message, severity):
                note.count += 1
                note.at = at
                self.notes.remove(note)
                self.notes.append(note)
                return note
        note = Note(at, title, message, severity)
        self.notes.append(note)
        del self.notes[: max(0, len(self.notes) - self.kept)]
        return note
