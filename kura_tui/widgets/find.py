"""Find as you type: a one-line filter bar every list pane opens with `/`.

Every word typed must occur (case-folded) in what a row is known by — its title, trigger,
slug and tags, and in the gate log its reason. Escape clears the filter and closes the bar.
Each pane has its own bar, and a bar keeps one query per store: switching stores shows the
other store's query (none: the bar closes), switching back brings this one back.
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
from textual.widget import Widget
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

    def __init__(
        self, placeholder: str = "", blink: bool = True, per_store: bool = True, **kw: Any
    ) -> None:
        super().__init__(**kw)
        self.placeholder = placeholder
        self.blink = blink
        #: False for a list of the stores themselves: one query, whichever store is shown
        self.per_store = per_store
        self.store = ""
        #: the query each other store had when the person left it
        self.kept: dict[str, str] = {}

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

    def for_store(self, store: str) -> None:
        """Keep the query typed for the store shown until now; bring back *store*'s."""
        if not self.per_store or store == self.store:
            return
        if self.store:
            self.kept[self.store] = self.query_text
        self.store = store
        query = self.kept.pop(store, "")
        inp = self.query_one(FindInput)
        if query:
            self.add_class("-open")
            inp.value = query  # posts Changed: the pane filters its rows again
            return
        had_focus = inp.has_focus
        self.close()
        if had_focus:
            self.post_message(self.Leave())

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


class Finding(Widget):
    """A pane with a find bar: `/` opens it, every key filters the rows again, enter or down
    goes back to the list with the filter kept, escape clears it.

    A pane says which widget holds its rows (:meth:`find_list`) and filters them in
    :meth:`refilter`, keeping the selected row when it still matches."""

    def find_list(self) -> Widget:
        raise NotImplementedError

    def refilter(self) -> None:
        raise NotImplementedError

    @property
    def find_bar(self) -> FindBar:
        return self.query_one(FindBar)

    @property
    def find_query(self) -> str:
        return self.find_bar.query_text

    def open_find(self) -> None:
        self.find_bar.open()

    def on_find_bar_changed(self, event: FindBar.Changed) -> None:
        event.stop()
        self.refilter()

    def on_find_bar_closed(self, event: FindBar.Closed) -> None:
        event.stop()
        self.find_bar.close()
        self.refilter()
        self.find_list().focus()

    def on_find_bar_leave(self, event: FindBar.Leave) -> None:
        event.stop()
        self.find_list().focus()
