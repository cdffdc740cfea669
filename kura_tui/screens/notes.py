"""The message log: every notification of the session, newest first, a repeated one counted.
Toasts are short-lived and few; this is where a message that left the screen is read again."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from ..toasts import Note, counted
from ..widgets.keys import KeyLine
from ..widgets.rowlist import RowList

MARK = {"error": ("✗", "bold $error"), "warning": ("⚠", "bold $warning")}


def note_row(note: Note) -> Content:
    mark, style = MARK.get(note.severity, ("·", "$foreground-muted"))
    stamp = time.strftime("%H:%M:%S", time.localtime(note.at))
    head = counted(note.title, note.count)
    return Content.assemble(
        (f"{stamp} ", "$foreground-muted"),
        (mark, style),
        " ",
        (f"{head}: " if head else "", "bold"),
        " ".join(note.message.split()),
    )


class NotesScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    NotesScreen { align: center middle; }
    NotesScreen > Vertical {
        width: 100%; height: 1fr; border: thick $primary 60%; background: $surface;
    }
    NotesScreen #notes-list { height: 1fr; padding: 0 1; }
    NotesScreen #notes-whole {
        height: auto; max-height: 12; padding: 0 1; border-top: hkey $primary 30%;
    }
    """

    BINDINGS = [Binding("escape,q,m", "close", "Close", id="notes.close")]

    def __init__(self, notes: Sequence[Note], **kw: Any) -> None:
        super().__init__(**kw)
        self.notes = list(reversed(notes))

    def compose(self) -> ComposeResult:
        with Vertical() as v:
            v.border_title = "messages · newest first"
            yield RowList(
                note_row,
                id="notes-list",
                empty=Content.styled("no message yet", "$foreground-muted"),
            )
            yield Static(id="notes-whole")
        yield KeyLine()

    def on_mount(self) -> None:
        rows = self.query_one(RowList)
        rows.set_rows(self.notes, cursor=0)
        rows.focus()
        self._show_whole()

    def on_row_list_highlighted(self, event: RowList.Highlighted) -> None:
        event.stop()
        self._show_whole()

    def _show_whole(self) -> None:
        """The selected message whole and wrapped: a row shows what fits on one line."""
        note = self.query_one(RowList).current
        whole = self.query_one("#notes-whole", Static)
        whole.display = note is not None
        if note is not None:
            whole.update(note_row(note))

    def action_close(self) -> None:
        self.dismiss(None)
