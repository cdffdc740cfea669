"""The memory viewer: one memory in full, where it stands with the gate, its evidence and
the [[links]] it makes; from here it is edited (in the app or in $EDITOR) or retired."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from kura_core.vocabulary import CURATION_FIELDS

from ..host import host
from ..widgets.fmt import ago, cls_tag, heading, one_line, where
from ..widgets.keys import KeyLine

PROVENANCE_STYLE = {
    "gated": ("✓", "bold $success"),
    "hand-edited": ("✎", "bold $warning"),
    "unsealed": ("·", "$foreground-muted"),
    "direct": ("·", "$foreground-muted"),
}


def render_memory(v: Any, now: float) -> Content:
    m = v.memory
    out: list[Content] = []
    out.append(Content.assemble((v.title, "bold"), ("  " + m.slug, "$foreground-muted")))
    out.append(Content.assemble(("trigger ", "$foreground-muted"), m.description))
    meta: list[Any] = [("type ", "$foreground-muted"), m.type or "—"]
    if m.tags:
        meta += [("  tags ", "$foreground-muted"), ", ".join(m.tags)]
    md = m.meta.get("metadata") if isinstance(m.meta.get("metadata"), dict) else {}
    for key in ("created", "updated"):
        if md.get(key):
            meta += [(f"  {key} ", "$foreground-muted"), str(md[key])]
    out.append(Content.assemble(*meta))
    p = v.provenance
    mark, style = PROVENANCE_STYLE.get(p.state, ("?", "bold"))
    out.append(Content.assemble((f"{mark} ", style), (p.text, style.replace("bold ", ""))))
    if p.manifest and not p.manifest_present:
        out.append(
            Content.styled(
                f"✗ evidence manifest {p.manifest[:19]}… is missing from _still/manifests", "$error"
            )
        )
    for key in CURATION_FIELDS:
        val = m.curation(key)
        if val:
            out.append(
                Content.assemble((f"{key.replace('_', ' ')}: ", "$foreground-muted italic"), val)
            )
    for prob in m.problems:
        out.append(Content.styled(f"⚠ {prob}", "$warning"))
    out.append(Content(""))
    out.append(Content(m.body.rstrip()))
    out.append(Content(""))
    if v.quotes:
        out.append(
            Content.assemble(
                heading(f"Evidence — {len(v.quotes)} segment{'s' if len(v.quotes) != 1 else ''}"),
                ("  o opens the journal", "$foreground-muted"),
            )
        )
        for q in v.quotes:
            out.append(Content.assemble(cls_tag(q.cls), " ", one_line(q.text, 400)))
            if q.located:
                out.append(
                    Content.styled(
                        "   "
                        + where(
                            {"source": q.source, "start": q.start, "end": q.end, "unit": q.unit}
                        ),
                        "$foreground-muted",
                    )
                )
    if v.linked_from:
        out.append(
            Content.assemble(("linked from ", "$foreground-muted"), ", ".join(v.linked_from))
        )
    if v.history:
        out.append(Content(""))
        out.append(heading("History"))
        for e in v.history[:8]:
            out.append(
                Content.assemble(
                    (f"{ago(e.at, now):<9} ", "$foreground-muted"),
                    (f"{e.kind:<8} ", "bold"),
                    one_line(e.reason, 200),
                )
            )
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
        Binding(
            "b",
            "back",
            "Back",
            tooltip="Back along the links followed (closes at the first)",
            id="memory.back",
        ),
        Binding(
            "e",
            "edit",
            "Edit",
            tooltip="Edit it here: title, trigger, type, tags, curation, body",
            id="memory.edit",
        ),
        Binding(
            "E",
            "editor",
            "$EDITOR",
            tooltip="Edit it in $EDITOR with the app suspended",
            id="memory.editor",
        ),
        Binding(
            "x",
            "retire",
            "Retire…",
            tooltip="Retire it: file and index line go, the gate log keeps it "
            "(asks why, then confirms)",
            id="memory.retire",
        ),
        Binding(
            "o",
            "evidence",
            "Journal",
            tooltip="Open the journal around its evidence",
            id="memory.evidence",
        ),
    ]

    def __init__(
        self, store: str, slug: str, clock: Callable[[], float] | None = None, **kw: Any
    ) -> None:
        super().__init__(**kw)
        self.store = store
        self.slug = slug
        self.clock = clock or (lambda: 0.0)
        self.trail: list[str] = []
        self.view: Any = None

    def compose(self) -> ComposeResult:
        with Vertical() as v:
            v.border_title = f"memory · {self.store}"
            with VerticalScroll(id="memory-scroll"):
                yield Static(
                    Content.styled(f"reading {self.slug}…", "$foreground-muted"), id="memory-text"
                )
            yield Static(heading("links  (enter follows, b goes back)"), id="memory-links-title")
            yield OptionList(id="memory-links")
        yield KeyLine()

    def on_mount(self) -> None:
        self._load(self.slug)

    def _load(self, slug: str) -> None:
        self.slug = slug
        self.view = None
        host(self).load_memory(self.store, slug)

    def reload(self) -> None:
        self._load(self.slug)

    def show(self, slug: str, view: Any, error: str = "") -> None:
        if slug != self.slug:
            return
        text = self.query_one("#memory-text", Static)
        ol = self.query_one("#memory-links", OptionList)
        ol.clear_options()
        self.view = view
        if view is None:
            text.update(Content.styled(f"✗ {error}", "$error"))
            return
        text.update(render_memory(view, self.clock()))
        self.query_one("#memory-scroll").scroll_home(animate=False)
        links = list(dict.fromkeys(view.memory.links))
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

    def _ready(self) -> Any | None:
        if self.view is None:
            self.notify("the memory is still loading", severity="warning")
        return self.view

    def action_edit(self) -> None:
        if self._ready():
            host(self).edit_memory(self.store, self.view)

    def action_editor(self) -> None:
        if self._ready():
            host(self).edit_in_editor(self.store, self.view)

    def action_retire(self) -> None:
        if self._ready():
            host(self).retire_memory(
                self.store,
                self.view.slug,
                self.view.title,
                self.view.linked_from,
            )

    def action_evidence(self) -> None:
        if self._ready():
            host(self).open_evidence(self.store, self.view.title, self.view.quotes)
