"""The main screen: the stores pane beside tabs for every part of a store."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Static, TabbedContent, TabPane

from ..host import host
from ..widgets.doctor import DoctorPane
from ..widgets.drafts import DraftsPane
from ..widgets.find import FindBar, Finding
from ..widgets.gatelog import GateLogPane
from ..widgets.journals import JournalsPane
from ..widgets.keys import KeyLine
from ..widgets.map import MapLines, MapPane
from ..widgets.recall import RecallPane
from ..widgets.seeds import SeedsPane
from ..widgets.stores import StoreList, StoresPane
from ..widgets.tender import TenderPane
from ..widgets.workbar import WorkBar

#: (tab id, label, narrow label, what gets focus)
TABS = (
    ("tab-map", "Map", "Map", "#map-lines"),
    ("tab-drafts", "Drafts", "Drafts", "#draft-queue"),
    ("tab-gatelog", "Gate log", "Log", "#gate-table"),
    ("tab-recall", "Recall", "Recall", "#recall-input"),
    ("tab-doctor", "Doctor", "Doctor", "#doctor"),
    ("tab-seeds", "Seeds", "Seeds", "#seed-list"),
    ("tab-tender", "Tender", "Tender", "#tender-log"),
    ("tab-journals", "Journals", "Jrnl", "#journal-list"),
)


#: below this many columns the app is narrow (KuraApp.HORIZONTAL_BREAKPOINTS says the same)
NARROW = 100


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
        Binding("6", "tab(5)", "Seeds", show=False, id="main.tab.seeds"),
        Binding("7", "tab(6)", "Tender", show=False, id="main.tab.tender"),
        Binding("8", "tab(7)", "Journals", show=False, id="main.tab.journals"),
        Binding(
            "slash",
            "find",
            "Find",
            tooltip="Find as you type in the list in front of you (each pane and store keeps "
            "its own)",
            id="main.find",
        ),
        Binding(
            "left_square_bracket",
            "cycle_store(-1)",
            "Previous store",
            show=False,
            id="main.store.prev",
        ),
        Binding(
            "right_square_bracket", "cycle_store(1)", "Next store", show=False, id="main.store.next"
        ),
        Binding(
            "s",
            "focus_stores",
            "Stores",
            show=False,
            tooltip="Stores (on a narrow terminal: show them)",
            id="main.stores",
        ),
    ]

    def __init__(self, clock: Callable[[], float], live: bool = True, **kw: Any) -> None:
        super().__init__(**kw)
        self.clock = clock
        self.live = live

    def compose(self) -> ComposeResult:
        yield TopBar(Content.styled("kura", "bold"), id="topbar")
        with Horizontal(id="body"):
            yield StoresPane(blink=self.live, id="stores")
            with TabbedContent(id="tabs"):
                panes = (
                    MapPane(blink=self.live, id="map"),
                    DraftsPane(blink=self.live, id="drafts"),
                    GateLogPane(self.clock, blink=self.live, id="gatelog"),
                    RecallPane(live=self.live, id="recall"),
                    DoctorPane(self.clock, id="doctor"),
                    SeedsPane(self.clock, blink=self.live, id="seeds"),
                    TenderPane(self.clock, blink=self.live, id="tender"),
                    JournalsPane(self.clock, blink=self.live, id="journals"),
                )
                for i, ((tab_id, label, _, _), pane) in enumerate(zip(TABS, panes, strict=False)):
                    with TabPane(f"{i + 1} {label}", id=tab_id):
                        yield pane
        yield WorkBar(id="workbar")
        yield KeyLine()

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

    @property
    def seeds(self) -> SeedsPane:
        return self.query_one(SeedsPane)

    @property
    def tender(self) -> TenderPane:
        return self.query_one(TenderPane)

    @property
    def journals(self) -> JournalsPane:
        return self.query_one(JournalsPane)

    @property
    def workbar(self) -> WorkBar:
        return self.query_one(WorkBar)

    @property
    def active_tab(self) -> str:
        return self.query_one(TabbedContent).active

    def set_title(self, store: str, label: str, degraded: str = "") -> None:
        parts: list[Any] = [("蔵 kura", "bold"), ("  ", ""), (store, "bold $accent")]
        if degraded:
            parts += [("  ", ""), (f"⚠ {degraded}", "bold $warning")]
        if label:
            parts += [(f"  {label}", "$foreground-muted")]
        self.query_one(TopBar).update(Content.assemble(*parts))

    def set_draft_count(self, count: int) -> None:
        self._draft_count = count
        self._labels()

    def _labels(self) -> None:
        tabs = self.query_one(TabbedContent)
        narrow = (self.size.width or 120) < NARROW
        count = getattr(self, "_draft_count", 0)
        for i, (tab_id, label, short, _) in enumerate(TABS):
            text = f"{i + 1} {short if narrow else label}"
            if tab_id == "tab-drafts" and count:
                text += f" {count}" if narrow else f" ({count})"
            tab = tabs.get_tab(tab_id)
            if str(tab.label) != text:
                tab.label = text

    def on_resize(self) -> None:
        self._labels()

    # ---- actions ---------------------------------------------------------
    def action_tab(self, index: int) -> None:
        tab_id, _, _, focus = TABS[index]
        self.query_one(TabbedContent).active = tab_id
        self.query_one(focus).focus()

    def action_cycle_store(self, step: int) -> None:
        host(self).cycle_store(step)

    def action_focus_stores(self) -> None:
        self.add_class("-stores")
        self.query_one(StoreList).focus()

    def set_store(self, name: str) -> None:
        """Every pane's find bar shows the query typed for *name* (none: closed)."""
        for bar in self.query(FindBar):
            bar.for_store(name)

    def action_find(self) -> None:
        """Open the find bar of the list in front of the person: the stores when they have
        the focus, else the pane shown (the doctor's report is no list: the map's)."""
        if self.stores.has_focus_within:
            self.stores.open_find()
            return
        panes: dict[str, Finding] = {
            "tab-map": self.map,
            "tab-drafts": self.drafts,
            "tab-gatelog": self.gatelog,
            "tab-recall": self.recall,
            "tab-seeds": self.seeds,
            "tab-tender": self.tender,
            "tab-journals": self.journals,
        }
        pane = panes.get(self.active_tab)
        if pane is None:
            self.action_tab(0)
            pane = self.map
        pane.open_find()

    def on_descendant_blur(self, event: Any) -> None:
        if self.has_class("-stores") and not self.stores.has_focus_within:
            self.call_after_refresh(self._stores_blur)

    def _stores_blur(self) -> None:
        if not self.stores.has_focus_within:
            self.remove_class("-stores")

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        for tab_id, _, _, focus in TABS:
            if event.pane.id == tab_id:
                target = self.query_one(focus)
                if not event.pane.has_focus_within:  # a find bar opened meanwhile keeps the focus
                    target.focus()
        host(self).pane_shown(event.pane.id or "")
