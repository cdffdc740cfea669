"""The gate log: dropped candidates, tossed drafts, refusals and pours, with their reasons."""

from __future__ import annotations

import json
from typing import Any, Callable

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from rich.text import Text
from textual.widgets import DataTable, Static
from textual.widgets.data_table import ColumnKey

from .fmt import ago, heading, one_line

TABLE_STYLE = {
    "dropped": "bold red",
    "tossed": "bold yellow",
    "refused": "bold red",
    "poured": "bold green",
    "fixed": "bold blue",
    "seed": "bold cyan",
}

KIND_STYLE = {
    "dropped": "bold $error",
    "tossed": "bold $warning",
    "refused": "bold $error",
    "poured": "bold $success",
    "fixed": "bold $accent",
    "seed": "bold $text-primary",
}

FILTERS = ("all", "dropped", "tossed", "refused", "poured", "fixed", "seed")


class GateTable(DataTable):
    BINDINGS = [
        Binding("j", "cursor_down", "Down", show=False, id="gatelog.down"),
        Binding("k", "cursor_up", "Up", show=False, id="gatelog.up"),
    ]


class GateLogPane(Vertical):
    DEFAULT_CSS = """
    GateLogPane { height: 1fr; }
    GateLogPane > #gate-filter { height: 1; padding: 0 1; }
    GateLogPane > GateTable { height: 1fr; background: transparent; }
    GateLogPane > #gate-detail-scroll { height: 1fr; max-height: 16; border-top: hkey $primary 30%; padding: 0 1; }
    """

    BINDINGS = [
        Binding("f", "filter", "Filter kind", id="gatelog.filter"),
    ]

    def __init__(self, clock: Callable[[], float], **kw: Any) -> None:
        super().__init__(**kw)
        self.clock = clock
        self.rows: list[dict[str, Any]] = []
        self.seeds: list[dict[str, Any]] = []
        self.shown: list[dict[str, Any]] = []
        self.filter = "all"

    def compose(self) -> ComposeResult:
        yield Static("", id="gate-filter")
        table = GateTable(id="gate-table", cursor_type="row", zebra_stripes=False)
        yield table
        with VerticalScroll(id="gate-detail-scroll"):
            yield Static("", id="gate-detail")

    def on_mount(self) -> None:
        t = self.query_one(GateTable)
        t.add_column("age", key="when", width=6)
        t.add_column("kind", key="kind", width=7)
        t.add_column("what", key="what", width=28)
        t.add_column("why", key="why", width=30)
        self._render_filter()

    def _widths(self) -> tuple[int, int]:
        """(what, why) column widths that fit the pane without a horizontal scrollbar."""
        total = self.size.width or 80
        what = 28 if total >= 90 else 18
        why = max(12, total - 6 - 7 - what - 4 * 2 - 2)
        t = self.query_one(GateTable)
        for key, w in (("what", what), ("why", why)):
            col = t.columns[ColumnKey(key)]
            col.width = w
            col.auto_width = False
        return what, why

    def on_resize(self) -> None:
        if self.shown or self.rows:
            self._fill()

    def _render_filter(self) -> None:
        parts: list[Any] = [("f", "bold $accent")]
        for k in FILTERS:
            style = ("reverse " + KIND_STYLE.get(k, "bold")) if k == self.filter else "$foreground-muted"
            parts += [" ", (f" {k} " if k == self.filter else k, style)]
        self.query_one("#gate-filter", Static).update(Content.assemble(*parts))

    def show(self, rows: list[dict[str, Any]], seeds: list[dict[str, Any]]) -> None:
        self.rows = list(rows)
        self.seeds = [{"id": f"seed-{s['id']}", "at": s.get("at"), "kind": "seed", "title": s.get("title", ""),
                       "slug": "", "reason": f"idea waiting for confirmation ({s.get('state', 'waiting')})",
                       "detail": {"body": s.get("body", ""), "source": s.get("source", "")}}
                      for s in seeds]
        self._fill()

    def _fill(self) -> None:
        t = self.query_one(GateTable)
        keep = t.cursor_row
        now = self.clock()
        entries = self.rows + self.seeds if self.filter in ("all", "seed") else self.rows
        if self.filter != "all":
            entries = [e for e in entries if e.get("kind") == self.filter]
        entries.sort(key=lambda e: (e.get("at") or 0), reverse=True)
        self.shown = entries
        what_w, why_w = self._widths()
        t.clear()
        for e in entries:
            kind = str(e.get("kind", ""))
            what = e.get("title") or e.get("slug") or "—"
            t.add_row(Text(ago(e.get("at"), now).removesuffix(" ago")), Text(kind, style=TABLE_STYLE.get(kind, "bold")),
                      Text(one_line(what, what_w)), Text(one_line(e.get("reason", ""), why_w)),
                      key=str(e.get("id")))
        if entries:
            t.move_cursor(row=min(keep, len(entries) - 1), animate=False)
        self._detail()

    def _detail(self) -> None:
        box = self.query_one("#gate-detail", Static)
        t = self.query_one(GateTable)
        if not self.shown:
            box.update(Content.styled("nothing in the gate log" + (
                "" if self.filter == "all" else f" of kind {self.filter}"), "$foreground-muted"))
            return
        e = self.shown[min(t.cursor_row, len(self.shown) - 1)]
        kind = str(e.get("kind", ""))
        lines = [Content.assemble((kind, KIND_STYLE.get(kind, "bold")), "  ",
                                  (e.get("title") or e.get("slug") or "", "bold"),
                                  (f"  ({e['slug']})" if e.get("slug") and e.get("title") else "", "$foreground-muted")),
                 Content.assemble(("why  ", "$foreground-muted"), str(e.get("reason", "")))]
        detail = e.get("detail") or {}
        if isinstance(detail, str):
            try:
                detail = json.loads(detail)
            except ValueError:
                detail = {"text": detail}
        for k, v in detail.items():
            if k == "draft" and isinstance(v, str):
                lines.append(heading("the draft as it was tossed"))
                lines.append(Content(v.split("<!-- kura:evidence")[0].strip()))
            elif isinstance(v, (str, int, float)) and v != "":
                lines.append(Content.assemble((f"{k}  ", "$foreground-muted"), one_line(str(v), 300)))
            elif isinstance(v, list) and v:
                lines.append(Content.assemble((f"{k}  ", "$foreground-muted"),
                                              one_line("; ".join(map(str, v)), 300)))
        box.update(Content("\n").join(lines))

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        self._detail()

    def action_filter(self) -> None:
        self.filter = FILTERS[(FILTERS.index(self.filter) + 1) % len(FILTERS)]
        self._render_filter()
        self._fill()
