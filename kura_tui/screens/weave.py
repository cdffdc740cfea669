"""Preview a weave: the new map line by line against the one hosts wear now; w writes it."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Static

from ..host import host
from ..widgets.fmt import n
from ..widgets.keys import KeyLine
from ..widgets.map import LAYERS
from ..widgets.rowlist import RowList

KIND = {
    "changed": ("~", "bold $warning"),
    "added": ("+", "bold $success"),
    "removed": ("−", "bold $error"),
    "same": (" ", "$foreground-muted"),
}


def _row(c: Any) -> Content:
    mark, style = KIND.get(c.kind, ("?", "bold"))
    lmark, lstyle, _ = LAYERS.get(c.layer, ("?", "bold", ""))
    head = Content.assemble(
        (mark, style),
        " ",
        (lmark, lstyle),
        " ",
        (c.slug, "bold $text-primary"),
        (f"  {c.layer}" + ("" if c.kind == "same" else f" · {c.kind}"), "$foreground-muted"),
    )
    if c.kind == "same":
        return Content("\n").join(
            [head, Content.styled("  " + c.after, "$foreground-muted"), Content("")]
        )
    rows = [
        head,
        Content.styled("  − " + (c.before or "(none)"), "$error"),
        Content.styled("  + " + (c.after or "(none)"), "$success"),
    ]
    return Content("\n").join(rows)


class WeaveScreen(Screen[None]):
    DEFAULT_CSS = """
    WeaveScreen > #weave-head { height: auto; padding: 0 1; }
    WeaveScreen > #weave-lines { height: 1fr; padding: 0 1; border-top: hkey $primary 30%; }
    WeaveScreen > #weave-detail { height: auto; max-height: 8; padding: 0 1; border-top: hkey $primary 30%; }
    """

    BINDINGS = [
        Binding(
            "w",
            "write",
            "Write the map",
            tooltip="Write this map: hosts wear it from now on",
            id="weave.write",
        ),
        Binding(
            "a",
            "all",
            "All lines",
            tooltip="Show every line, or only the lines that change",
            id="weave.all",
        ),
        Binding("escape", "close", "Cancel", tooltip="Close without writing", id="weave.close"),
    ]

    def __init__(self, store: str, preview: Any, **kw: Any) -> None:
        super().__init__(**kw)
        self.store = store
        self.preview = preview
        self.show_all = False
        self.writing = False

    def compose(self) -> ComposeResult:
        yield Static(self._head(), id="weave-head")
        yield RowList(
            _row,
            row_height=3,
            id="weave-lines",
            empty=Content.styled(
                "no line changes: the map on disk is already this one", "$success"
            ),
        )
        yield Static("", id="weave-detail")
        yield KeyLine()

    def on_row_list_highlighted(self, event: RowList.Highlighted) -> None:
        event.stop()
        c = self.query_one("#weave-lines", RowList).current
        detail = self.query_one("#weave-detail", Static)
        if c is None:
            detail.update("")
            return
        lines = [
            Content.assemble(
                (c.slug, "bold $text-primary"), (f"  {c.layer} · {c.kind}", "$foreground-muted")
            )
        ]
        if c.kind != "same":
            lines.append(
                Content.assemble(("now    ", "$foreground-muted"), (c.before or "(none)", "$error"))
            )
        lines.append(
            Content.assemble(("worn   ", "$foreground-muted"), (c.after or "(none)", "$success"))
        )
        for cut in c.trimmed:
            lines.append(Content.assemble(("cut    ", "$foreground-muted"), (cut, "$warning")))
        detail.update(Content("\n").join(lines))

    def _head(self) -> Content:
        p, r = self.preview, self.preview.result
        now = {
            "woven": "woven" + (" (stale)" if p.current_stale else ""),
            "canonical": "not woven: the raw index",
            "none": "no map",
        }.get(p.current_source, p.current_source)
        layers = " · ".join(f"{k} {v}" for k, v in r.layers.items())
        out = [
            Content.assemble(
                ("Weave ", "bold"),
                (self.store, "bold $accent"),
                (" — w writes this map, a shows every line, esc cancels", "$foreground-muted"),
            ),
            Content.assemble(
                ("now    ", "$foreground-muted"), (now, "bold"), f" · ~{n(p.current_tokens)} tokens"
            ),
            Content.assemble(
                ("after  ", "$foreground-muted"),
                (f"~{n(r.tokens_est)} tokens", "bold"),
                f" of {n(r.budget_tokens)} budget · {layers} · ",
                (
                    f"{p.changed} line{'s' if p.changed != 1 else ''} change",
                    "bold $warning" if p.changed else "bold $success",
                ),
            ),
        ]
        how = [
            f"fresh window {r.fresh_days_used if r.fresh_days_used is not None else '—'} of {r.fresh_days} days",
            f"{r.model_calls} scribe call{'s' if r.model_calls != 1 else ''}",
            f"{r.ledger_hits} from the ledger",
            f"{r.mechanical} trimmed mechanically",
        ]
        out.append(Content.styled("       " + " · ".join(how), "$foreground-muted"))
        if r.model_error:
            out.append(
                Content.styled(f"the scribe stopped being asked: {r.model_error}", "$warning")
            )
        for slug, why in r.refused[:3]:
            out.append(
                Content.styled(f"trigger for {slug} refused by the floors: {why}", "$warning")
            )
        if r.fresh_days_used is None and r.reason and r.reason != "not written (preview)":
            out.append(Content.styled(r.reason, "$error"))
        return Content("\n").join(out)

    def on_mount(self) -> None:
        self._fill()
        self.query_one("#weave-lines", RowList).focus()

    def _fill(self) -> None:
        rows = [c for c in self.preview.changes if self.show_all or c.kind != "same"]
        self.query_one("#weave-lines", RowList).set_rows(rows, cursor=0)

    def action_all(self) -> None:
        self.show_all = not self.show_all
        self._fill()

    def action_write(self) -> None:
        if self.writing:
            return
        self.writing = True
        self.notify("writing the map…", timeout=3)
        host(self).write_weave(self.store, self.preview)

    def failed(self) -> None:
        self.writing = False

    def action_close(self) -> None:
        self.dismiss(None)
