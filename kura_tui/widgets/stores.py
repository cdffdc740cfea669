"""The stores pane: every store, its counts, health badge and waiting drafts."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from .find import FindBar, Finding, filtered, haystack
from .fmt import badge, n

if TYPE_CHECKING:
    from kura_core import DoctorReport
    from kura_core.kura import StoreSummary


class StoreList(OptionList):
    BINDINGS = [
        Binding("j", "cursor_down", "Down", show=False, id="stores.down"),
        Binding("k", "cursor_up", "Up", show=False, id="stores.up"),
    ]


class StoresPane(Finding, Vertical):
    """Stores and modes. Moving the highlight switches every other pane."""

    DEFAULT_CSS = """
    StoresPane {
        width: 24;
        height: 1fr;
        border: round $primary 50%;
        border-title-color: $text-primary;
        padding: 0;
    }
    StoresPane:focus-within { border: round $primary; }
    StoresPane > StoreList {
        height: 1fr;
        border: none;
        padding: 0;
        background: transparent;
    }
    StoresPane > StoreList:focus { border: none; }
    StoresPane > FindBar { padding: 0; }
    StoresPane > FindBar > FindInput { padding: 0; }
    """

    class Picked(Message):
        def __init__(self, name: str) -> None:
            super().__init__()
            self.name = name

    def __init__(self, blink: bool = True, **kw: Any) -> None:
        super().__init__(**kw)
        self.blink = blink
        self.rows: Sequence[StoreSummary] = ()
        self.shown: list[StoreSummary] = []
        self.health: dict[str, DoctorReport] = {}
        self.current: str = ""

    def compose(self) -> ComposeResult:
        # the list of stores is the same whichever store is shown: one query for it
        yield FindBar("names, modes", blink=self.blink, per_store=False, id="stores-find")
        yield StoreList(id="store-list")

    def on_mount(self) -> None:
        self.border_title = "Stores"

    @property
    def names(self) -> list[str]:
        """The names of the stores listed (after any filter)."""
        return [r.name for r in self.shown]

    def _prompt(self, row: StoreSummary) -> Content:
        name = row.name
        head = Content.assemble(
            badge(self.health.get(name), exists=row.exists), " ", (name, "bold")
        )
        if row.default:
            head = head + Content.styled(" ★", "$foreground-muted")
        modes = [m for m in row.modes if m != name]
        if modes:
            head = head + Content.styled(f" ({', '.join(modes)})", "$foreground-muted")
        if not row.exists:
            second = Content.styled("  missing: kura init", "$warning")
        else:
            drafts = row.drafts_waiting
            second = Content.assemble(
                ("  ", ""),
                (n(row.memories), "bold"),
                (" mem · ", "$foreground-muted"),
                (n(drafts), "bold $warning" if drafts else "bold"),
                (" draft" + ("" if drafts == 1 else "s"), "$foreground-muted"),
            )
        return Content("\n").join([head, second])

    def show_rows(self, rows: Sequence[StoreSummary]) -> None:
        ol = self.query_one(StoreList)
        old = self.names
        self.rows = rows
        query = self.find_query
        hays = [haystack(r.name, r.label, r.modes) for r in rows] if query else []
        self.shown = filtered(rows, hays, query) if query else list(rows)
        self.find_bar.count(len(self.shown), len(rows))
        rows = self.shown
        with self.prevent(OptionList.OptionHighlighted):
            if old == self.names:
                for r in rows:
                    ol.replace_option_prompt(r.name, self._prompt(r))
            else:
                ol.clear_options()
                ol.add_options([Option(self._prompt(r), id=r.name) for r in rows])
            self._highlight(self.current)

    def show_health(self, health: Mapping[str, DoctorReport]) -> None:
        self.health.update(health)
        self.show_rows(self.rows)

    def select(self, name: str) -> None:
        self.current = name
        with self.prevent(OptionList.OptionHighlighted):
            self._highlight(name)

    def _highlight(self, name: str) -> None:
        ol = self.query_one(StoreList)
        if name in self.names:
            ol.highlighted = self.names.index(name)

    # ---- find --------------------------------------------------------------
    def find_list(self) -> StoreList:
        return self.query_one(StoreList)

    def refilter(self) -> None:
        self.show_rows(self.rows)

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        if event.option_id and event.option_id != self.current:
            self.post_message(self.Picked(event.option_id))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option_id:
            self.post_message(self.Picked(event.option_id))
