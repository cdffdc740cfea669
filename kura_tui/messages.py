"""Messages that thread workers post to the app.

A worker calls the core and posts one of these; it never touches a widget. The app
routes each message to the panes that show it, and drops results for a store that is
no longer the one on screen.
"""

from __future__ import annotations

from typing import Any

from textual.message import Message


class StoresLoaded(Message):
    """Every configured store with its counts (cheap: no parsing of memories)."""

    def __init__(self, rows: list[dict[str, Any]]) -> None:
        super().__init__()
        self.rows = rows


class HealthLoaded(Message):
    """The doctor's verdict on every store, for the health badges."""

    def __init__(self, health: dict[str, dict[str, Any]]) -> None:
        super().__init__()
        self.health = health


class MapLoaded(Message):
    def __init__(self, store: str, woven: Any, prefill: dict[str, Any] | None,
                 error: str = "", wove: bool = False) -> None:
        super().__init__()
        self.store = store
        self.woven = woven
        self.prefill = prefill
        self.error = error
        self.wove = wove


class DraftsLoaded(Message):
    def __init__(self, store: str, drafts: list[Any], problems: list[tuple[str, str]]) -> None:
        super().__init__()
        self.store = store
        self.drafts = drafts
        self.problems = problems


class GateLogLoaded(Message):
    def __init__(self, store: str, rows: list[dict[str, Any]], seeds: list[dict[str, Any]]) -> None:
        super().__init__()
        self.store = store
        self.rows = rows
        self.seeds = seeds


class DoctorLoaded(Message):
    def __init__(self, store: str, report: dict[str, Any], probed: bool = False) -> None:
        super().__init__()
        self.store = store
        self.report = report
        self.probed = probed


class RecallDone(Message):
    def __init__(self, store: str, result: Any) -> None:
        super().__init__()
        self.store = store
        self.result = result


class MemoryLoaded(Message):
    def __init__(self, store: str, slug: str, memory: Any, error: str = "") -> None:
        super().__init__()
        self.store = store
        self.slug = slug
        self.memory = memory
        self.error = error


class DraftActed(Message):
    """A pour, toss or fix finished (ok) or was refused (violations / error)."""

    def __init__(self, store: str, action: str, slug: str, *, ok: bool, text: str = "",
                 violations: list[str] | None = None, result: Any = None) -> None:
        super().__init__()
        self.store = store
        self.action = action
        self.slug = slug
        self.ok = ok
        self.text = text
        self.violations = violations or []
        self.result = result


class StoreChanged(Message):
    """Files of a store changed on disk (the tender, another process, a hand edit)."""

    def __init__(self, store: str, kinds: frozenset[str]) -> None:
        super().__init__()
        self.store = store
        self.kinds = kinds


class CoreFailed(Message):
    """A core call raised: shown as a notification, never a crash."""

    def __init__(self, what: str, error: str, store: str = "") -> None:
        super().__init__()
        self.what = what
        self.error = error
        self.store = store
