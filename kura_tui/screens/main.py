"""The main screen: the stores pane beside tabs for the map, drafts, gate log, recall and doctor."""

from __future__ import annotations

from typing import Any, Callable

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Footer, Static, TabbedContent, TabPane

from ..widgets.doctor import DoctorPane
from ..widgets.drafts import DraftsPane
from ..widgets.gatelog import GateLogPane
from ..widgets.map import MapLines, MapPane
from ..widgets.recall import RecallPane
from ..widgets.stores import StoreList, StoresPane

TABS = (
    ("tab-map", "Map", "#map-lines"),
    ("tab-drafts", "Drafts", "#draft-queue"),
    ("tab-gatelog", "Gate log", "#gate-table"),
    ("tab-recall", "Recall", "#recall-input"),
    ("tab-doctor", "Doctor", "#doctor"),
)


class TopBar(Static):
    DEFAULT_CSS = """
    TopBar { height: 1; background: $primary 30%; padding: 0 1; }
    """


class MainScreen(Screen[None]):
    DEFAULT_CSS = """
    MainScreen > #body { height: 1fr; }
    MainScreen #tabs { width: 1fr; height: 1fr; }
    MainScreen TabPane { padding: 0; }
    """

    BINDINGS = [
        Binding("1", "tab(0)", "Map", show=False, id="main.tab.map"),
        Binding("2", "tab(1)", "Drafts", show=False, id="main.tab.drafts"),
        Binding("3", "tab(2)", "Gate log", show=False, id="main.tab.gatelog"),
        Binding("4", "tab(3)", "Recall", show=False, id="main.tab.recall"),
        Binding("5", "tab(4)", "Doctor", show=False, id="main.tab.doctor"),
        Binding("left_square_bracket", "cycle_store(-1)", "Previous store", show=False, id="main.store.prev"),
        Binding("right_square_bracket", "cycle_store(1)", "Next store", show=False, id="main.store.next"),
        Binding("s", "focus_stores", "Stores", show=False, id="main.stores"),
    ]

    def __init__(self, clock: Callable[[], float], live: bool = True, **kw: Any) -> None:
        super().__init__(**kw)
        self.clock = clock
        self.live = live

    def compose(self) -> ComposeResult:
        yield TopBar(Content.styled("kura", "bold"), id="topbar")
        with Horizontal(id="body"):
            yield StoresPane(id="stores")
            with TabbedContent(id="tabs"):
                with TabPane(f"1 {TABS[0][1]}", id=TABS[0][0]):
                    yield MapPane(id="map")
                with TabPane(f"2 {TABS[1][1]}", id=TABS[1][0]):
                    yield DraftsPane(id="drafts")
                with TabPane(f"3 {TABS[2][1]}", id=TABS[2][0]):
                    yield GateLogPane(self.clock, id="gatelog")
                with TabPane(f"4 {TABS[3][1]}", id=TABS[3][0]):
                    yield RecallPane(live=self.live, id="recall")
                with TabPane(f"5 {TABS[4][1]}", id=TABS[4][0]):
                    yield DoctorPane(self.clock, id="doctor")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(MapLines).focus()

    # ---- panes -----------------------------------------------------------
    @property
    def stores(self) -> StoresPane:
        return self.query_one(StoresPane)

    @property
    def map(self) -> MapPane:
        return self.query_one(MapPane)

    @property
    def drafts(self) -> DraftsPane:
        return self.query_one(DraftsPane)

    @property
    def gatelog(self) -> GateLogPane:
        return self.query_one(GateLogPane)

    @property
    def recall(self) -> RecallPane:
        return self.query_one(RecallPane)

    @property
    def doctor(self) -> DoctorPane:
        return self.query_one(DoctorPane)

    def set_title(self, store: str, label: str, degraded: str = "") -> None:
        parts: list[Any] = [("蔵 kura", "bold"), ("  ", ""), (store, "bold $accent")]
        if degraded:
            parts += [("  ", ""), (f"⚠ {degraded}", "bold $warning")]
        if label:
            parts += [(f"  {label}", "$foreground-muted")]
        self.query_one(TopBar).update(Content.assemble(*parts))

    def set_draft_count(self, count: int) -> None:
        tabs = self.query_one(TabbedContent)
        tabs.get_tab(TABS[1][0]).label = f"2 Drafts ({count})" if count else "2 Drafts"

    # ---- actions ---------------------------------------------------------
    def action_tab(self, index: int) -> None:
        tab_id, _, focus = TABS[index]
        self.query_one(TabbedContent).active = tab_id
        self.query_one(focus).focus()

    def action_cycle_store(self, step: int) -> None:
        self.app.cycle_store(step)  # type: ignore[attr-defined]

    def action_focus_stores(self) -> None:
        self.query_one(StoreList).focus()

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        for tab_id, _, focus in TABS:
            if event.pane.id == tab_id:
                target = self.query_one(focus)
                if not target.has_focus:
                    target.focus()

