"""The store's history: every change with who and what, the diff of the one under the
cursor, and `u` to undo it (after asking). Escape goes back."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from typing import Any

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Static

from kura_core.errors import KuraError

from ..widgets.fmt import fit, one_line
from ..widgets.keys import KeyLine
from ..widgets.rowlist import RowList
from .confirm import ConfirmScreen

WHAT_STYLE = {
    "remember": "bold $success",
    "pour": "bold $success",
    "retire": "bold $warning",
    "undo": "bold $accent",
    "hand edit": "bold $warning",
    "sync": "bold $primary",
    "edit": "bold $accent",
}

#: the when column: "12-04 21:17"
WHEN_W = 11


def _when(iso: str) -> str:
    try:
        return dt.datetime.fromisoformat(iso).strftime("%m-%d %H:%M")
    except ValueError:
        return iso[:WHEN_W]


def history_row(c: Any, what_w: int, who_w: int) -> Content:
    slugs = ", ".join(c.slugs[:3]) + (f" +{len(c.slugs) - 3}" if len(c.slugs) > 3 else "")
    return Content.assemble(
        (fit(_when(c.when), WHEN_W) + " ", "$foreground-muted"),
        (fit(c.what, what_w) + " ", WHAT_STYLE.get(c.what, "bold")),
        (fit(c.who, who_w) + " ", "$foreground-muted"),
        (one_line(slugs or "—", 200), ""),
    )


def render_change(c: Any, diff: str) -> Content:
    """A change's diff, lines coloured: what it added, what it removed, where."""
    out = [
        Content.assemble(
            (c.what, WHAT_STYLE.get(c.what, "bold")),
            "  ",
            (", ".join(c.slugs) or "—", "bold"),
            (f"  by {c.who}", "$foreground-muted"),
            (f"  · {c.ref}" if c.ref else "", "$foreground-muted"),
        ),
        Content.styled(f"{c.rev[:12]} · {c.when}", "$foreground-muted"),
        Content(""),
    ]
    body = diff.split("\ndiff --git ", 1)
    for line in ("diff --git " + body[1]).splitlines() if len(body) > 1 else []:
        if line.startswith(("+++", "---", "diff --git", "index ")):
            out.append(Content.styled(line, "$foreground-muted"))
        elif line.startswith("+"):
            out.append(Content.styled(line, "$success"))
        elif line.startswith("-"):
            out.append(Content.styled(line, "$error"))
        elif line.startswith("@@"):
            out.append(Content.styled(line, "$accent"))
        else:
            out.append(Content(line))
    return Content("\n").join(out)


class HistoryRows(RowList):
    def __init__(self, screen: HistoryScreen, **kw: Any) -> None:
        self.owner = screen
        super().__init__(
            screen.render_row, empty=Content.styled("no history yet", "$foreground-muted"), **kw
        )


class HistoryScreen(Screen[None]):
    DEFAULT_CSS = """
    HistoryScreen > Vertical { height: 1fr; }
    HistoryScreen #history-head { height: 1; padding: 0 1; color: $text-muted; text-style: bold; }
    HistoryScreen #history-note { height: auto; padding: 0 1; color: $warning; }
    HistoryScreen HistoryRows { height: 1fr; padding: 0 1; }
    HistoryScreen #history-diff-scroll { height: 2fr; border-top: hkey $primary 30%; padding: 0 1; }
    """

    BINDINGS = [
        Binding("escape,q", "close", "Back", id="history.close"),
        Binding(
            "u",
            "undo",
            "Undo",
            tooltip="Undo the change under the cursor as a new entry (asks first; refused "
            "when something later touched the same memory)",
            id="history.undo",
        ),
        Binding("tab", "focus_diff", "Diff", show=False, id="history.diff"),
    ]

    def __init__(
        self,
        store: str,
        load: Callable[[], Sequence[Any]],
        show: Callable[[str], str],
        undo: Callable[[str], Any],
        **kw: Any,
    ) -> None:
        super().__init__(**kw)
        self.store_name = store
        self.load = load
        self.show_diff = show
        self.do_undo = undo
        self.changes: list[Any] = []
        self._what_w = 9
        self._who_w = 12

    def compose(self) -> ComposeResult:
        with Vertical() as v:
            v.border_title = f"history · {self.store_name}"
            yield Static("", id="history-note")
            yield Static("", id="history-head")
            yield HistoryRows(self, id="history-list")
            with VerticalScroll(id="history-diff-scroll"):
                yield Static("", id="history-diff")
        yield KeyLine()

    def on_mount(self) -> None:
        self.reload()
        self.query_one(HistoryRows).focus()

    def render_row(self, c: Any) -> Content:
        return history_row(c, self._what_w, self._who_w)

    def reload(self) -> None:
        note = ""
        try:
            self.changes = list(self.load())
        except KuraError as exc:
            self.changes, note = [], str(exc)
        self.query_one("#history-note", Static).update(note)
        self._what_w = min(14, max([cell_len(c.what) for c in self.changes] + [4]))
        self._who_w = min(22, max([cell_len(c.who) for c in self.changes] + [3]))
        self.query_one("#history-head", Static).update(
            f"{fit('when', WHEN_W)} {fit('what', self._what_w)} {fit('who', self._who_w)} memories"
        )
        self.query_one(HistoryRows).set_rows(self.changes, cursor=0 if self.changes else None)
        self._detail()

    def _detail(self) -> None:
        box = self.query_one("#history-diff", Static)
        c = self.query_one(HistoryRows).current
        if c is None:
            box.update(Content.styled("nothing to show", "$foreground-muted"))
            return
        try:
            box.update(render_change(c, self.show_diff(c.rev)))
        except KuraError as exc:
            box.update(Content.styled(str(exc), "$error"))

    def on_row_list_highlighted(self, event: RowList.Highlighted) -> None:
        event.stop()
        self._detail()

    def on_row_list_selected(self, event: RowList.Selected) -> None:
        event.stop()
        self.action_focus_diff()

    def action_focus_diff(self) -> None:
        self.query_one("#history-diff-scroll").focus()

    def action_close(self) -> None:
        self.dismiss(None)

    def action_undo(self) -> None:
        c = self.query_one(HistoryRows).current
        if c is None:
            return

        def answered(yes: bool | None) -> None:
            if not yes:
                return
            try:
                done = self.do_undo(c.rev)
            except KuraError as exc:
                self.app.notify(str(exc), title="undo refused", severity="error", timeout=12)
                return
            self.app.notify(
                f"{c.what} of {', '.join(c.slugs) or 'the store'} undone, recorded as "
                f"{done.rev[:12]}",
                title=f"undo · {self.store_name}",
            )
            self.reload()

        self.app.push_screen(
            ConfirmScreen(
                "Undo this change?",
                f"{c.what} of {', '.join(c.slugs) or 'the store'} by {c.who} ({c.rev[:12]}) "
                "is reverted as a new entry of history. If something later changed the same "
                "memory or index line, nothing is changed and you are told what.",
                yes="Undo",
            ),
            answered,
        )
