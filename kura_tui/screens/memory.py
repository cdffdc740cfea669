"""The memory viewer: one memory in full, its curation, and the [[links]] it makes."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from ..widgets.fmt import heading


def render_memory(m: Any) -> Content:
    out: list[Content] = []
    out.append(Content.assemble((m.title, "bold"), ("  " + m.slug, "$foreground-muted")))
    out.append(Content.assemble(("trigger ", "$foreground-muted"), m.description))
    meta: list[Any] = [("type ", "$foreground-muted"), m.type or "—"]
    if m.tags:
        meta += [("  tags ", "$foreground-muted"), ", ".join(m.tags)]
    md = m.meta.get("metadata") if isinstance(m.meta.get("metadata"), dict) else {}
    for key in ("created", "updated"):
        if md.get(key):
            meta += [(f"  {key} ", "$foreground-muted"), str(md[key])]
    out.append(Content.assemble(*meta))
    for key in ("belongs_because", "keep", "may_fade"):
        v = m.curation(key)
        if v:
            out.append(Content.assemble((f"{key.replace('_', ' ')}: ", "$foreground-muted italic"), v))
    if md.get("evidence_manifest"):
        out.append(Content.styled(f"evidence {md['evidence_manifest'][:23]}…", "$foreground-muted"))
    for p in m.problems:
        out.append(Content.styled(f"⚠ {p}", "$warning"))
    out.append(Content(""))
    out.append(Content(m.body.rstrip()))
    return Content("\n").join(out)


class MemoryScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    MemoryScreen { align: center middle; }
    MemoryScreen > Vertical {
        width: 96%; height: 92%; border: thick $primary 60%; background: $surface;
    }
    MemoryScreen #memory-scroll { height: 1fr; padding: 0 1; }
    MemoryScreen #memory-links-title { height: 1; padding: 0 1; }
    MemoryScreen #memory-links { height: auto; max-height: 6; border: none; background: transparent; }
    MemoryScreen #memory-links:focus { border: none; }
    """

    BINDINGS = [
        Binding("escape,q", "close", "Close", id="memory.close"),
        Binding("b", "back", "Back", id="memory.back"),
    ]

    def __init__(self, store: str, slug: str, **kw: Any) -> None:
        super().__init__(**kw)
        self.store = store
        self.slug = slug
        self.trail: list[str] = []

    def compose(self) -> ComposeResult:
        with Vertical() as v:
            v.border_title = f"memory · {self.store}"
            with VerticalScroll(id="memory-scroll"):
                yield Static(Content.styled(f"reading {self.slug}…", "$foreground-muted"), id="memory-text")
            yield Static(heading("links  (enter follows, b goes back)"), id="memory-links-title")
            yield OptionList(id="memory-links")
        yield Footer()

    def on_mount(self) -> None:
        self._load(self.slug)

    def _load(self, slug: str) -> None:
        self.slug = slug
        self.app.load_memory(self.store, slug)  # type: ignore[attr-defined]

    def show(self, slug: str, memory: Any, error: str = "") -> None:
        if slug != self.slug:
            return
        text = self.query_one("#memory-text", Static)
        ol = self.query_one("#memory-links", OptionList)
        ol.clear_options()
        if memory is None:
            text.update(Content.styled(f"✗ {error}", "$error"))
            return
        text.update(render_memory(memory))
        self.query_one("#memory-scroll").scroll_home(animate=False)
        links = list(dict.fromkeys(memory.links))
        if links:
            ol.add_options([Option(Content(f"[[{s}]]"), id=s) for s in links])
            ol.highlighted = 0
            ol.focus()
        else:
            ol.add_option(Option(Content.styled("no links", "$foreground-muted"), disabled=True))
            self.query_one("#memory-scroll").focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option_id:
            self.trail.append(self.slug)
            self._load(event.option_id)

    def action_back(self) -> None:
        if self.trail:
            self._load(self.trail.pop())
        else:
            self.dismiss(None)

    def action_close(self) -> None:
        self.dismiss(None)
