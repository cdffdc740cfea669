"""The map pane: the woven map, its layers, and a token meter against budget and ceiling."""

from __future__ import annotations

from typing import Any, Mapping

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from .fmt import n

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
            (f"{n(t)}", f"bold {style}"), " tokens of ", (n(b), "bold"), " budget · ",
            (n(c), "bold"), " ceiling · ", (verdict, style),
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


class MapLines(OptionList):
    BINDINGS = [
        Binding("j", "cursor_down", "Down", show=False, id="map.down"),
        Binding("k", "cursor_up", "Up", show=False, id="map.up"),
    ]


class MapPane(Vertical):
    """What a host would wear as its resident map, line by line, layer by layer."""

    DEFAULT_CSS = """
    MapPane { height: 1fr; }
    MapPane > #map-state { height: auto; padding: 0 1; }
    MapPane > #map-legend { height: 1; padding: 0 1; color: $text-muted; }
    MapPane > MapLines { height: 1fr; border: none; padding: 0; background: transparent; }
    MapPane > MapLines:focus { border: none; }
    """

    BINDINGS = [
        Binding("enter", "open", "Open memory", id="map.open"),
    ]

    class OpenMemory(Message):
        def __init__(self, slug: str) -> None:
            super().__init__()
            self.slug = slug

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.slugs: list[str] = []

    def compose(self) -> ComposeResult:
        yield Static(Content.styled("loading the map…", "$foreground-muted"), id="map-state")
        yield TokenMeter(id="map-meter")
        yield Static(Content.assemble(
            ("◆", "bold $warning"), " pinned  ", ("●", "bold $success"), " fresh  ",
            ("·", "$foreground-muted"), " trigger (compressed)"), id="map-legend")
        yield MapLines(id="map-lines")

    def show_error(self, error: str) -> None:
        self.query_one("#map-state", Static).update(Content.styled(f"✗ {error}", "$error"))

    def show(self, woven: Any, prefill: Mapping[str, Any] | None) -> None:
        state = self._state(woven, prefill)
        self.query_one("#map-state", Static).update(state)
        meter = self.query_one(TokenMeter)
        lines = list(getattr(woven, "lines", ()) or ())
        meter.tokens = int(getattr(woven, "tokens_est", 0) or (prefill or {}).get("tokens_est", 0))
        meter.budget = int(getattr(woven, "budget_tokens", 0) or 0)
        meter.ceiling = int(getattr(woven, "ceiling_tokens", 0) or 0)
        ol = self.query_one(MapLines)
        keep = ol.highlighted
        ol.clear_options()
        self.slugs = []
        options = []
        for i, (layer, slug, text) in enumerate(lines):
            mark, mstyle, tstyle = LAYERS.get(layer, ("?", "bold", ""))
            options.append(Option(Content.assemble((mark, mstyle), " ", (slug, "$text-primary"), " ",
                                                   (str(text), tstyle)), id=f"l{i}"))
            self.slugs.append(slug)
        if not options:
            options.append(Option(Content.styled("the map is empty: nothing has been poured yet", "$foreground-muted"),
                                  disabled=True))
        ol.add_options(options)
        if self.slugs:
            ol.highlighted = min(keep or 0, len(self.slugs) - 1)

    @staticmethod
    def _state(woven: Any, p: Mapping[str, Any] | None) -> Content:
        parts: list[Any] = []
        if p:
            src = p.get("source", "")
            if p.get("stale"):
                parts += [("⚠ stale", "bold $warning"),
                          ": the index changed since the last weave; hosts get the raw index (w re-weaves)"]
            elif src == "woven":
                parts += [("● woven, fresh", "bold $success"), ": hosts wear this map"]
            elif src == "canonical":
                parts += [("⚠ not woven", "bold $warning"), ": hosts get the raw index (w weaves)"]
            else:
                parts += [("✗ no map", "bold $error"), f": {p.get('warning', '')}"]
            if p.get("over_ceiling"):
                parts += ["  ", ("✗ over the ceiling: hosts get a stub", "bold $error")]
            elif p.get("over_budget"):
                parts += ["  ", ("⚠ over budget", "bold $warning")]
            if p.get("map_shown") is False and not p.get("over_ceiling"):
                parts += ["  ", ("map not shown", "$error")]
        notes = list(getattr(woven, "notes", ()) or ())
        content = Content.assemble(*parts) if parts else Content.styled("map state unknown", "$foreground-muted")
        for note in notes[:2]:
            content = content + Content.styled(f"\n{note}", "$foreground-muted")
        return content

    def action_open(self) -> None:
        ol = self.query_one(MapLines)
        if ol.highlighted is not None and ol.highlighted < len(self.slugs):
            self.post_message(self.OpenMemory(self.slugs[ol.highlighted]))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.action_open()
