"""An extension draft's diff, the whole width of the terminal: what pouring it changes in the
memory it extends, line by line, scrolled with the keys. Escape goes back to where it was
opened from, the same draft still selected."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from ..widgets.drafts import render_diff
from ..widgets.fmt import one_line
from ..widgets.keys import KeyLine
from .help import KeyScroll


class DiffScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    DiffScreen { align: center middle; }
    DiffScreen > Vertical { width: 100%; height: 1fr; border: thick $primary 60%; background: $surface; }
    DiffScreen #diff-scroll { height: 1fr; padding: 0 1; }
    """

    BINDINGS = [
        Binding("escape,q", "close", "Back", id="diff.close"),
        Binding("space,pagedown", "page(1)", "Scroll down", show=False, id="diff.page_down"),
        Binding("b,pageup", "page(-1)", "Scroll up", show=False, id="diff.page_up"),
    ]

    def __init__(self, title: str, diff: Any, **kw: Any) -> None:
        super().__init__(**kw)
        self.title_text = title
        self.diff = diff

    def compose(self) -> ComposeResult:
        with Vertical() as v:
            v.border_title = f"what pouring changes · {one_line(self.title_text, 60)}"
            with KeyScroll(id="diff-scroll"):
                yield Static(Content("\n").join(render_diff(self.diff)), id="diff-text")
        yield KeyLine()

    def on_mount(self) -> None:
        self.query_one("#diff-scroll").focus()

    def action_page(self, direction: int) -> None:
        scroll = self.query_one("#diff-scroll", KeyScroll)
        if direction > 0:
            scroll.scroll_page_down(animate=False)
        else:
            scroll.scroll_page_up(animate=False)

    def action_close(self) -> None:
        self.dismiss(None)
