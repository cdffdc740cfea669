"""The gate log: dropped candidates, tossed drafts, refusals, pours, hand edits and retirements."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Static

from kura_core.vocabulary import GateLogKind

from .find import FindBar, Finding, filtered, haystack
from .fmt import ago, cls_tag, fit, heading, home_folded, one_line, where
from .rowlist import RowList

if TYPE_CHECKING:
    from kura_core.kura import GateEntry

KIND_STYLE: dict[str, str] = {
    GateLogKind.DROPPED: "bold $error",
    GateLogKind.TOSSED: "bold $warning",
    GateLogKind.REFUSED: "bold $error",
    GateLogKind.POURED: "bold $success",
    GateLogKind.FIXED: "bold $accent",
    GateLogKind.EDITED: "bold $accent",
    GateLogKind.RETIRED: "bold $warning",
    GateLogKind.TIDIED: "bold $text-primary",
    GateLogKind.GRADUATED: "bold $success",
    GateLogKind.SHELVED: "bold $warning",
}

#: the order the kind filter cycles through: the vocabulary's order (kinds an older kura
#: wrote and this one does not know follow alphabetically)
ORDER = tuple(GateLogKind)

#: what a detail key holds a whole text (shown as it was, not cut to a line)
TEXTS = {
    "draft": "the draft as it was tossed",
    "text": "the memory as it was retired",
    "before": "the memory before the hand edit",
}


#: the age column's width in cells
AGE_W = 6


def kinds_in(rows: Sequence[GateEntry]) -> list[str]:
    present = {r.kind for r in rows}
    return [k for k in ORDER if k in present] + sorted(present - set(ORDER))


def gate_row(e: GateEntry, now: float, kind_w: int, what_w: int) -> Content:
    """age, kind, what, why: each column cut or padded to its width in cells, so a title with
    wide characters or emoji lines up with one without."""
    return Content.assemble(
        (fit(ago(e.at, now).removesuffix(" ago"), AGE_W) + " ", "$foreground-muted"),
        (fit(e.kind, kind_w) + " ", KIND_STYLE.get(e.kind, "bold")),
        (fit(e.title or e.slug or "—", what_w) + " ", ""),
        (one_line(e.reason), "$foreground-muted"),
    )


def _item(x: Mapping[str, Any]) -> Content:
    """One recorded item as a person reads it: a quote as its class, its words, its status
    and where it was found; anything else as its fields."""
    if isinstance(x.get("text"), str):
        status = x.get("status")
        return Content.assemble(
            cls_tag(str(x.get("class") or x.get("claimed") or "")),
            " “",
            one_line(x["text"], 200),
            "”",
            (f" · {status}" if status else "", "$foreground-muted"),
            (f" · {where(x)}" if x.get("where") or x.get("source") else "", "$foreground-muted"),
        )
    return Content(one_line("; ".join(f"{k}: {v}" for k, v in x.items()), 300))


class GateRows(RowList):
    """One row per entry: age, kind, what, why."""

    def __init__(self, pane: GateLogPane, **kw: Any) -> None:
        self.pane = pane
        super().__init__(
            pane.render_row,
            empty=Content.styled("loading the gate log…", "$foreground-muted"),
            **kw,
        )


class GateLogPane(Finding, Vertical):
    DEFAULT_CSS = """
    GateLogPane { height: 1fr; }
    GateLogPane > #gate-filter { height: 1; padding: 0 1; }
    GateLogPane > #gate-head { height: 1; padding: 0 1; color: $text-muted; text-style: bold; }
    GateLogPane > GateRows { height: 1fr; padding: 0 1; }
    GateLogPane > #gate-detail-scroll { height: 1fr; max-height: 16; border-top: hkey $primary 30%; padding: 0 1; }
    """

    BINDINGS = [
        Binding(
            "f",
            "filter",
            "Filter kind",
            tooltip="Show one kind of entry at a time (cycles)",
            id="gatelog.filter",
        ),
    ]

    def __init__(self, clock: Callable[[], float], blink: bool = True, **kw: Any) -> None:
        super().__init__(**kw)
        self.clock = clock
        self.blink = blink
        self.rows: list[GateEntry] = []
        self.hays: list[str] = []
        self.shown: list[GateEntry] = []
        self.filter = "all"
        self._kind_w = 8

    def compose(self) -> ComposeResult:
        yield FindBar("titles, slugs, reasons", blink=self.blink, id="gate-find")
        yield Static("", id="gate-filter")
        yield Static("", id="gate-head")
        yield GateRows(self, id="gate-table")
        with VerticalScroll(id="gate-detail-scroll"):
            yield Static("", id="gate-detail")

    def on_mount(self) -> None:
        self._render_filter()

    @property
    def filters(self) -> list[str]:
        return ["all"] + kinds_in(self.rows)

    def _render_filter(self) -> None:
        parts: list[Any] = [("f", "bold $accent")]
        for k in self.filters:
            style = (
                ("reverse " + KIND_STYLE.get(k, "bold"))
                if k == self.filter
                else "$foreground-muted"
            )
            parts += [" ", (f" {k} " if k == self.filter else k, style)]
        self.query_one("#gate-filter", Static).update(Content.assemble(*parts))

    def _what_width(self) -> int:
        total = (
            self.query_one(GateRows).scrollable_content_region.width or (self.size.width - 2) or 80
        )
        return 28 if total >= 90 else 18

    def render_row(self, e: GateEntry) -> Content:
        return gate_row(e, self.clock(), self._kind_w, self._what_width())

    def show(self, rows: Sequence[GateEntry], *_: Any) -> None:
        self.rows = list(rows)
        self.hays = []  # built on the first search
        if self.filter not in self.filters:
            self.filter = "all"
        self._render_filter()
        # on the newest entry, the person follows the log: the next newest takes its place
        self._fill(follow=self.query_one(GateRows).cursor == 0)

    def _fill(self, follow: bool = False) -> None:
        t = self.query_one(GateRows)
        keep = t.current.id if t.current is not None and not follow else None
        query = self.query_one(FindBar).query_text
        if query and len(self.hays) != len(self.rows):
            self.hays = [haystack(r.title, r.slug, r.reason, r.kind) for r in self.rows]
        entries = filtered(self.rows, self.hays, query) if query else list(self.rows)
        if self.filter != "all":
            entries = [e for e in entries if e.kind == self.filter]
        entries.sort(key=lambda e: (e.at or 0, e.id or 0), reverse=True)
        self.shown = entries
        self._kind_w = min(16, max([cell_len(e.kind) for e in entries] + [4]))
        self._head()
        ids = [e.id for e in entries]
        if not entries:
            t.set_empty(
                Content.styled(
                    "nothing in the gate log"
                    + ("" if self.filter == "all" else f" of kind {self.filter}")
                    + (f" matching “{query}”" if query else ""),
                    "$foreground-muted",
                )
            )
        if follow:
            cursor: int | None = 0
        else:  # the same entry, by identity; gone: the row now at its place
            cursor = ids.index(keep) if keep in ids else None
        t.set_rows(entries, cursor=cursor, hold=not follow)
        self.query_one(FindBar).count(len(entries), len(self.rows))
        self._detail()

    def on_resize(self) -> None:
        self._head()

    def _head(self) -> None:
        what_w = self._what_width()
        self.query_one("#gate-head", Static).update(
            f"{fit('age', AGE_W)} {fit('kind', self._kind_w)} {fit('what', what_w)} why"
        )

    def _detail(self) -> None:
        box = self.query_one("#gate-detail", Static)
        e = self.query_one(GateRows).current
        if e is None:
            box.update(
                Content.styled(
                    "nothing in the gate log"
                    + ("" if self.filter == "all" else f" of kind {self.filter}"),
                    "$foreground-muted",
                )
            )
            return
        kind = e.kind
        lines = [
            Content.assemble(
                (kind, KIND_STYLE.get(kind, "bold")),
                "  ",
                (e.title or e.slug, "bold"),
                (f"  ({e.slug})" if e.slug and e.title else "", "$foreground-muted"),
            ),
            Content.assemble(("why  ", "$foreground-muted"), e.reason),
        ]
        detail = e.detail
        texts = []
        for k, v in detail.items():
            if k in TEXTS and isinstance(v, str):
                texts.append((TEXTS[k], v))
            elif isinstance(v, (str, int, float)) and v != "":
                lines.append(
                    Content.assemble(
                        (f"{k}  ", "$foreground-muted"), home_folded(one_line(str(v), 300))
                    )
                )
            elif isinstance(v, list) and v and all(isinstance(x, Mapping) for x in v):
                lines.append(Content.styled(k, "$foreground-muted"))
                lines.extend(Content.assemble("  ", _item(x)) for x in v)
            elif isinstance(v, list) and v:
                lines.append(
                    Content.assemble(
                        (f"{k}  ", "$foreground-muted"), one_line("; ".join(map(str, v)), 300)
                    )
                )
        for title, text in texts:
            lines.append(heading(title))
            lines.append(Content(text.split("<!-- kura:evidence")[0].strip()))
        box.update(Content("\n").join(lines))

    def on_row_list_highlighted(self, event: RowList.Highlighted) -> None:
        event.stop()
        self._detail()

    def on_row_list_selected(self, event: RowList.Selected) -> None:
        event.stop()
        self.query_one("#gate-detail-scroll").focus()

    def action_filter(self) -> None:
        fs = self.filters
        self.filter = fs[(fs.index(self.filter) + 1) % len(fs)] if self.filter in fs else "all"
        self._render_filter()
        self._fill()

    # ---- find --------------------------------------------------------------
    def find_list(self) -> GateRows:
        return self.query_one(GateRows)

    def refilter(self) -> None:
        self._fill()
