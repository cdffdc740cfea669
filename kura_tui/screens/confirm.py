"""Modal questions: yes/no confirmation, and the reason a draft is tossed."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static


class ConfirmScreen(ModalScreen[bool]):
    """Nothing that loses data happens without passing through here."""

    DEFAULT_CSS = """
    ConfirmScreen { align: center middle; }
    ConfirmScreen > Vertical {
        width: 64; max-width: 90%; height: auto; border: thick $error 60%;
        background: $surface; padding: 1 2;
    }
    ConfirmScreen #confirm-title { text-style: bold; color: $error; }
    ConfirmScreen #confirm-text { margin: 1 0; }
    ConfirmScreen Horizontal { height: auto; align-horizontal: right; }
    ConfirmScreen Button { margin-left: 2; min-width: 10; }
    """

    BINDINGS = [
        Binding("y", "answer(True)", "Yes", id="confirm.yes"),
        Binding("n", "answer(False)", "No", id="confirm.no"),
        Binding("escape", "answer(False)", "Cancel", id="confirm.cancel"),
    ]

    def __init__(self, title: str, text: str, yes: str = "Yes", **kw: Any) -> None:
        super().__init__(**kw)
        self.title_text = title
        self.text = text
        self.yes = yes

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Content(self.title_text), id="confirm-title")
            yield Static(Content(self.text), id="confirm-text")
            with Horizontal():
                yield Button(f"{self.yes} (y)", variant="error", id="yes")
                yield Button("No (n)", id="no")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


class TossScreen(ModalScreen[str | None]):
    """Ask why a draft is tossed; the reason is kept in the gate log with the draft."""

    DEFAULT_CSS = """
    TossScreen { align: center middle; }
    TossScreen > Vertical {
        width: 70; max-width: 95%; height: auto; border: thick $warning 60%;
        background: $surface; padding: 1 2;
    }
    TossScreen #toss-title { text-style: bold; }
    TossScreen #toss-help { color: $text-muted; margin: 1 0; }
    TossScreen #toss-error { color: $error; height: auto; }
    """

    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="toss.cancel"),
    ]

    def __init__(self, draft_title: str, blink: bool = True, **kw: Any) -> None:
        super().__init__(**kw)
        self.draft_title = draft_title
        self.blink = blink

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Content.assemble("Toss the draft ", (f"“{self.draft_title}”", "bold $warning")),
                         id="toss-title")
            yield Static(Content("It leaves the queue and never enters the store. The gate log keeps "
                                 "it whole, with the reason you give."), id="toss-help")
            inp = Input(placeholder="why? (required) — enter to continue, esc to cancel", id="toss-reason")
            inp.cursor_blink = self.blink
            yield inp
            yield Static("", id="toss-error")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        reason = " ".join(event.value.split())
        if not reason:
            self.query_one("#toss-error", Static).update(
                Content("say why: the reason is kept in the gate log"))
            return
        self.dismiss(reason)

    def action_cancel(self) -> None:
        self.dismiss(None)
