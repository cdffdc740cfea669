"""The map pane: the map hosts wear now, its layers, and a token meter against budget and ceiling."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Static

from .find import FindBar, Finding, filtered, haystack
from .fmt import n
from .rowlist import RowList

if TYPE_CHECKING:
    from kura_core import MapView


LAYERS = {
    "pinned": ("◆", "bold $warning", ""),
    "fresh": ("●", "bold $success", ""),
    "trigger": ("·", "$foreground-muted", "$foreground-muted"),
}


class TokenMeter(Widget):
    """One line of figures and one bar, scaled to the ceiling, with the budget marked."""

    DEFAULT_CSS = """
    TokenMeter { height: 2; padding: 0 1; }
    """

    tokens: reactive[int] = reactive(0)
    budget: reactive[int] = reactive(0)
    ceiling: reactive[int] = reactive(0)

    def render(self) -> Content:
        t, b, c = self.tokens, self.budget, self.ceiling
        if not c:
            return Content.styled("no token figures yet", "$foreground-muted")
        if t > c:
            style, verdict = "$error", "over the ceiling: hosts get a stub"
        elif b and t > b:
            style, verdict = "$warning", "over budget: worn whole, with a warning"
        else:
            style, verdict = "$success", f"{100 * t // max(1, b)}%"
        figures = Content.assemble(
            (f"{n(t)}", f"bold {style}"),
            " tokens of ",
            (n(b), "bold"),
            " budget · ",
            (n(c), "bold"),
            " ceiling · ",
            (verdict, style),
        )
        width = max(10, self.content_size.width)
        filled = min(width, round(width * t / c))
        mark = min(width - 1, round(width * b / c)) if b else -1
        cells = []
        for i in range(width):
            if i == mark:
                cells.append(("┃", "bold $warning"))
            elif i < filled:
                cells.append(("█", style))
            else:
                cells.append(("░", "$foreground-muted"))
        return Content("\n").join([figures, Content.assemble(*cells)])


def sector_counts(lines: Any) -> list[tuple[str, int]]:
    """The ``## `` sectors of the map's lines, in order, with how many memories each holds;
    empty when the index has no headings."""
    counts: dict[str, int] = {}
    seen: set[str] = set()
    for ln in lines:
        if ln.slug not in seen:
            seen.add(ln.slug)
            counts[getattr(ln, "sector", "")] = counts.get(getattr(ln, "sector", ""), 0) + 1
    return list(counts.items()) if any(counts) else []


def render_line(line: Any) -> Content:
    mark, mstyle, _ = LAYERS.get(line.layer, ("?", "bold", ""))
    tstyle = "$foreground-muted" if getattr(line, "compressed", False) else ""
    return Content.assemble(
        (mark, mstyle), " ", (line.slug, "$text-primary"), " ", (str(line.text), tstyle)
    )


class MapLines(RowList):
    """One row per line of the map; built only for the rows on screen."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(
            render_line, empty=Content.styled("loading the map…", "$foreground-muted"), **kw
        )


class MapPane(Finding, Vertical):
    """What a host would wear as its resident map, line by line, layer by layer."""

    DEFAULT_CSS = """
    MapPane { height: 1fr; }
    MapPane > #map-state { height: auto; padding: 0 1; }
    MapPane > #map-legend { height: 1; padding: 0 1; color: $text-muted; }
    MapPane > MapLines { height: 1fr; }
    """

    BINDINGS = [
        Binding(
            "enter",
            "open",
            "Open memory",
            tooltip="Open the memory: provenance, evidence, links",
            id="map.open",
        ),
        Binding(
            "e",
            "edit",
            "Edit",
            tooltip="Edit the memory in the app (a hand edit, recorded)",
            id="map.edit",
        ),
        Binding(
            "E",
            "editor",
            "$EDITOR",
            show=False,
            tooltip="Edit the memory in $EDITOR, the app suspended (a hand edit, recorded)",
            id="map.editor",
        ),
        Binding(
            "x",
            "retire",
            "Retire…",
            show=False,
            tooltip="Retire the memory: file and index line go; the gate log keeps it (confirmed)",
            id="map.retire",
        ),
    ]

    class OpenMemory(Message):
        def __init__(self, slug: str, action: str = "open") -> None:
            super().__init__()
            self.slug = slug
            self.action = action

    def __init__(self, blink: bool = True, **kw: Any) -> None:
        super().__init__(**kw)
        self.blink = blink
        self.view: Any = None
        self.lines: list[Any] = []
        self.hays: list[str] = []
        self.shown: list[Any] = []

    def compose(self) -> ComposeResult:
        yield FindBar("titles, triggers, slugs, tags", blink=self.blink, id="map-find")
        yield Static(Content.styled("loading the map…", "$foreground-muted"), id="map-state")
        yield TokenMeter(id="map-meter")
        yield Static(
            Content.assemble(
                ("◆", "bold $warning"),
                " pinned  ",
                ("●", "bold $success"),
                " fresh  ",
                ("·", "$foreground-muted"),
                " trigger  ",
                ("dim", "$foreground-muted"),
                ": compressed for the map",
            ),
            id="map-legend",
        )
        yield MapLines(id="map-lines")

    @property
    def slugs(self) -> list[str]:
        """Slugs of the lines shown, in order (after any filter)."""
        return [ln.slug for ln in self.shown]

    @property
    def selected(self) -> str | None:
        line = self.query_one(MapLines).current
        return line.slug if line is not None else None

    def show_error(self, error: str) -> None:
        self.query_one("#map-state", Static).update(Content.styled(f"✗ {error}", "$error"))

    def show(self, view: MapView) -> None:
        self.view = view
        self.query_one("#map-state", Static).update(self._state(view))
        meter = self.query_one(TokenMeter)
        meter.tokens = int(view.tokens_est)
        meter.budget = int(view.budget_tokens)
        meter.ceiling = int(view.ceiling_tokens)
        self.lines = list(view.lines)
        self.hays = []  # built on the first search, not on every load
        self._fill()

    def _fill(self, keep: str | None = None) -> None:
        ol = self.query_one(MapLines)
        keep = keep or self.selected
        query = self.query_one(FindBar).query_text
        if query and len(self.hays) != len(self.lines):
            self.hays = [
                haystack(ln.slug, ln.title, ln.text, ln.tags, getattr(ln, "sector", ""))
                for ln in self.lines
            ]
        self.shown = filtered(self.lines, self.hays, query) if query else list(self.lines)
        cursor = None
        if keep is not None:
            for i, ln in enumerate(self.shown):
                if ln.slug == keep:
                    cursor = i
                    break
        if not self.lines:
            ol.set_empty(
                Content.styled("the map is empty: nothing has been poured yet", "$foreground-muted")
            )
        elif not self.shown:
            ol.set_empty(Content.styled(f"no line matches “{query}”", "$foreground-muted"))
        ol.set_rows(self.shown, cursor=cursor)
        self.query_one(FindBar).count(len(self.shown), len(self.lines))

    @staticmethod
    def _state(v: Any) -> Content:
        parts: list[Any] = []
        if v.stale:
            parts += [
                ("⚠ stale", "bold $warning"),
                ": the index changed since the last weave; hosts get the raw index (w weaves)",
            ]
        elif v.source == "woven":
            parts += [("● woven, fresh", "bold $success"), ": hosts wear this map"]
        elif v.source == "canonical":
            parts += [
                ("⚠ not woven", "bold $warning"),
                ": hosts get the raw index shown here (w weaves)",
            ]
        elif v.source == "constellation":
            parts += [
                ("◇ constellation", "bold $warning"),
                ": hosts wear one line per sector, not the map (over the ceiling)",
            ]
        else:
            parts += [("✗ no map", "bold $error"), f": {v.warning}"]
        if v.over_ceiling:
            parts += ["  ", ("✗ over the ceiling: hosts get a stub", "bold $error")]
        elif v.over_budget:
            parts += ["  ", ("⚠ over budget", "bold $warning")]
        if (
            v.map_shown is False
            and not v.over_ceiling
            and v.source not in ("none", "constellation")
        ):
            parts += ["  ", ("map not shown", "$error")]
        sectors = sector_counts(v.lines)
        if sectors:
            parts += ["\n", ("sectors ", "bold")]
            for i, (name, n) in enumerate(sectors):
                parts += [" · " if i else "", name or "unsorted", (f" {n}", "$foreground-muted")]
        return Content.assemble(*parts)

    # ---- find --------------------------------------------------------------
    def find_list(self) -> MapLines:
        return self.query_one(MapLines)

    def refilter(self) -> None:
        self._fill()

    # ---- actions -----------------------------------------------------------
    def _post(self, action: str) -> None:
        slug = self.selected
        if slug is None:
            self.notify("no memory is selected", severity="warning")
            return
        self.post_message(self.OpenMemory(slug, action))

    def action_open(self) -> None:
        self._post("open")

    def action_edit(self) -> None:
        self._post("edit")

    def action_editor(self) -> None:
        self._post("editor")

    def action_retire(self) -> None:
        self._post("retire")

    def on_row_list_selected(self, event: RowList.Selected) -> None:
        event.stop()
        self.action_open()

    def on_row_list_highlighted(self, event: RowList.Highlighted) -> None:
        event.stop()
