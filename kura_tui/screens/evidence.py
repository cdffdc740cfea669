"""Evidence in its journal: each quote beside the stretch of journal it was found in,
read with the store's own adapter from the position the evidence recorded."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widget import AwaitMount, Widget
from textual.widgets import Static

from ..host import host
from ..widgets.fmt import cls_tag, home_folded, n, one_line, where
from ..widgets.keys import KeyLine
from ..widgets.rowlist import RowList
from .diff import DiffScreen

if TYPE_CHECKING:
    from kura_core import ExcerptLine as JournalLine, JournalExcerpt

_tokens = itertools.count(1)


def _quote_row(q: Any) -> Content:
    return Content.assemble(cls_tag(q.cls), " ", one_line(q.text, 200))


def excerpt_head(ex: JournalExcerpt) -> Content:
    unit = "record" if ex.unit == "seq" else "byte"
    out = [
        Content.assemble(
            (Path(ex.path).name, "bold"),
            (f"  {ex.adapter} · {unit} {n(ex.position)}", "$foreground-muted"),
        ),
        Content.styled(home_folded(ex.path), "$foreground-muted"),
    ]
    if not ex.lines:
        out.append(
            Content.styled(
                "nothing readable there now (the journal was rewritten or cut?)", "$warning"
            )
        )
    elif getattr(ex, "at_end", False):
        out.append(
            Content.styled(
                f"the journal ends at {unit} {n(ex.position)}: nothing was written after it yet; "
                "what comes before it is shown",
                "$foreground-muted",
            )
        )
    elif not ex.found:
        out.append(
            Content.styled(
                f"⚠ no segment is at {unit} {n(ex.position)} any more; the next one after it "
                "is marked ▶",
                "$warning",
            )
        )
    return Content("\n").join(out)


def excerpt_line(ex: JournalExcerpt, ln: JournalLine) -> Content:
    unit = "record" if ex.unit == "seq" else "byte"
    body = ln.text.strip()
    if len(body) > 3000:
        body = body[:3000] + " …"
    head = Content.assemble(
        ("▶ " if ln.target else "  ", "bold $accent"),
        cls_tag(ln.cls),
        (f" {unit} {n(ln.start)}", "$foreground-muted"),
    )
    return Content("\n").join([head, Content.styled(body, "bold") if ln.target else Content(body)])


class ExcerptLine(Static):
    DEFAULT_CSS = """
    ExcerptLine { margin-bottom: 1; }
    ExcerptLine.-target { background: $boost; }
    """


class EvidenceScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    EvidenceScreen { align: center middle; }
    EvidenceScreen > Vertical { width: 96%; height: 92%; border: thick $primary 60%; background: $surface; }
    EvidenceScreen #evidence-body { height: 1fr; }
    EvidenceScreen #evidence-quotes { width: 40; height: 1fr; }
    EvidenceScreen #evidence-scroll { width: 1fr; height: 1fr; padding: 0 1; border-left: vkey $primary 30%; }
    EvidenceScreen #evidence-text { margin-bottom: 1; }
    EvidenceScreen #evidence-lines { height: auto; }
    """

    BINDINGS = [
        Binding("escape,q", "close", "Close", id="evidence.close"),
        Binding("space", "page(1)", "Scroll down", show=False, id="evidence.page_down"),
        Binding("b", "page(-1)", "Scroll up", show=False, id="evidence.page_up"),
        Binding(
            "v",
            "diff",
            "Diff",
            tooltip="For an extension draft: its changes to the memory, the whole width",
            id="evidence.diff",
        ),
    ]

    def __init__(self, store: str, title: str, quotes: Any, diff: Any = None, **kw: Any) -> None:
        super().__init__(**kw)
        self.store = store
        self.title_text = title
        self.quotes = list(quotes)
        #: what pouring changes, when the quotes are an extension draft's
        self.diff = diff
        self.token = 0

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "diff":
            return self.diff is not None
        return True

    def compose(self) -> ComposeResult:
        with Vertical() as v:
            v.border_title = f"evidence in its journal · {one_line(self.title_text, 60)}"
            with Horizontal(id="evidence-body"):
                yield RowList(
                    _quote_row,
                    id="evidence-quotes",
                    empty=Content.styled("no quotes", "$foreground-muted"),
                )
                with VerticalScroll(id="evidence-scroll"):
                    yield Static("", id="evidence-text")
                    yield Vertical(id="evidence-lines")
        yield KeyLine()

    def on_mount(self) -> None:
        rl = self.query_one("#evidence-quotes", RowList)
        rl.set_rows(self.quotes, cursor=0)
        rl.focus()
        if not self.quotes:
            self.query_one("#evidence-text", Static).update(
                Content.styled("nothing vouches for it", "$warning")
            )

    def on_row_list_highlighted(self, event: RowList.Highlighted) -> None:
        event.stop()
        q = self.query_one("#evidence-quotes", RowList).current
        box = self.query_one("#evidence-text", Static)
        if q is None:
            return
        self.query_one("#evidence-lines", Vertical).remove_children()
        if not q.located:
            box.update(
                Content("\n").join(
                    [
                        Content.assemble(cls_tag(q.cls), " ", q.text),
                        Content.styled(
                            "this piece of evidence does not say which journal it came from"
                            if not q.source
                            else f"it comes from {home_folded(q.source)}, not from a journal",
                            "$foreground-muted",
                        ),
                    ]
                )
            )
            return
        self.token = next(_tokens)
        box.update(
            Content.styled(
                f"reading {where({'source': q.source, 'start': q.start, 'end': q.end, 'unit': q.unit})}…",
                "$foreground-muted",
            )
        )
        host(self).load_excerpt(self.token, self.store, q)

    def show(self, token: int, excerpt: JournalExcerpt | None, error: str) -> None:
        if token != self.token:
            return
        box = self.query_one("#evidence-text", Static)
        lines = self.query_one("#evidence-lines", Vertical)
        lines.remove_children()
        if excerpt is None:
            box.update(Content.styled(f"✗ {error}", "$error"))
            return
        box.update(excerpt_head(excerpt))
        widgets = [
            ExcerptLine(excerpt_line(excerpt, ln), classes="-target" if ln.target else "")
            for ln in excerpt.lines
        ]
        mounted = lines.mount_all(widgets)
        target = next((w for w, ln in zip(widgets, excerpt.lines, strict=False) if ln.target), None)
        scroll = self.query_one("#evidence-scroll", VerticalScroll)
        if target is not None:
            self.call_later(self._show_quoted_line, mounted, target)
        else:
            scroll.scroll_home(animate=False)

    async def _show_quoted_line(self, mounted: AwaitMount, target: Widget) -> None:
        """Bring the quoted line to the top once its lines are mounted and laid out (before
        that it has no place to scroll to, and the view would stay at the top or not
        depending on how busy the machine is)."""
        await mounted
        scroll = self.query_one("#evidence-scroll", VerticalScroll)
        self.call_after_refresh(scroll.scroll_to_widget, target, animate=False, top=True)

    def action_page(self, direction: int) -> None:
        scroll = self.query_one("#evidence-scroll", VerticalScroll)
        if direction > 0:
            scroll.scroll_page_down(animate=False)
        else:
            scroll.scroll_page_up(animate=False)

    def action_diff(self) -> None:
        if self.diff is not None:
            self.app.push_screen(DiffScreen(self.title_text, self.diff))

    def action_close(self) -> None:
        self.dismiss(None)
