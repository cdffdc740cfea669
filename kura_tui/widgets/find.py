"""Find as you type: a one-line filter bar a pane opens with `/`.

Every word typed must occur (case-folded) in what a row is known by — its title, trigger,
slug and tags, and in the gate log its reason. Escape clears the filter and closes the bar.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.content import Content
from textual.dom import DOMNode
from textual.message import Message
from textual.widgets import Input, Static


def haystack(*fields: Any) -> str:
    """What a row is found by, folded once when the rows load."""
    parts: list[str] = []
    for f in fields:
        if isinstance(f, (list, tuple, set, frozenset)):
            parts.extend(str(x) for x in f)
        elif f:
            parts.append(str(f))
    return " ".join(parts).casefold()


def matcher(query: str) -> Callable[[str], bool]:
    terms = query.casefold().split()
    if not terms:
        return lambda hay: True
    return lambda hay: all(t in hay for t in terms)


def filtered(rows: Iterable[Any], hays: Iterable[str], query: str) -> list[Any]:
    match = matcher(query)
    return [r for r, h in zip(rows, hays, strict=False) if match(h)]


class FindInput(Input):
    BINDINGS = [
        Binding("escape", "close", "Clear the filter", show=False, id="find.close"),
        Binding("down", "leave", "To the list", show=False, id="find.leave"),
    ]

    def _bar(self) -> DOMNode:
        """The find bar this input sits in (the messages come from it)."""
        if self.parent is None:
            raise RuntimeError("the find input is not in its bar")
        return self.parent

    def action_close(self) -> None:
        self._bar().post_message(FindBar.Closed())

    def action_leave(self) -> None:
        self._bar().post_message(FindBar.Leave())


class FindBar(Horizontal):
    """Hidden until opened; reports the query on every key."""

    DEFAULT_CSS = """
    FindBar { height: 1; display: none; padding: 0 1; background: $boost; }
    FindBar.-open { display: block; }
    FindBar > #find-label { width: auto; color: $accent; text-style: bold; }
    FindBar > FindInput { border: none; height: 1; padding: 0 1; background: transparent; width: 1fr; }
    FindBar > FindInput:focus { border: none; }
    FindBar > #find-count { width: auto; color: $text-muted; }
    """

    class Changed(Message):
        def __init__(self, query: str) -> None:
            super().__init__()
            self.query = query

    class Closed(Message):
        pass

    class Leave(Message):
        pass

    def __init__(self, placeholder: str = "", blink: bool = True, **kw: Any) -> None:
        super().__init__(**kw)
        self.placeholder = placeholder
        self.blink = blink

    def compose(self) -> ComposeResult:
        yield Static("find /", id="find-label")
        inp = FindInput(placeholder=self.placeholder, id="find-input")
        inp.cursor_blink = self.blink
        yield inp
        yield Static("", id="find-count")

    @property
    def query_text(self) -> str:
        return self.query_one(FindInput).value if self.has_class("-open") else ""

    def open(self) -> None:
        self.add_class("-open")
        self.query_one(FindInput).focus()

    def close(self) -> None:
        inp = self.query_one(FindInput)
        self.remove_class("-open")
        if inp.value:
            inp.value = ""

    def count(self, shown: int, total: int) -> None:
        self.query_one("#find-count", Static).update(
            Content.styled(f"{shown:,} of {total:,}", "$text-muted")
            if self.has_class("-open")
            else ""
        )

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.post_message(self.Changed(event.value))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.post_message(self.Leave())
