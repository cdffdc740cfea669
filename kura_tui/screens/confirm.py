"""Modal questions: yes/no confirmation, and the reason a draft is tossed."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen, Screen
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


class ReasonScreen(ModalScreen[str | None]):
    """Ask why (a draft is tossed, a memory retired, a seed dismissed): the reason is kept
    in the gate log with what was removed. Enter continues (to a confirmation), esc cancels."""

    DEFAULT_CSS = """
    ReasonScreen { align: center middle; }
    ReasonScreen > Vertical {
        width: 72; max-width: 95%; height: auto; border: thick $warning 60%;
        background: $surface; padding: 1 2;
    }
    ReasonScreen #reason-title { text-style: bold; }
    ReasonScreen #reason-help { color: $text-muted; margin: 1 0; }
    ReasonScreen #reason-error { color: $error; height: auto; }
    """

    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="reason.cancel"),
    ]

    def __init__(
        self,
        verb: str,
        what: str,
        help: str,
        *,
        required: bool = True,
        blink: bool = True,
        **kw: Any,
    ) -> None:
        super().__init__(**kw)
        self.verb = verb
        self.what = what
        self.help = help
        self.required = required
        self.blink = blink

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(
                Content.assemble(f"{self.verb} ", (f"“{self.what}”", "bold $warning")),
                id="reason-title",
            )
            yield Static(Content(self.help), id="reason-help")
            need = "required" if self.required else "optional"
            inp = Input(
                placeholder=f"why? ({need}) — enter to continue, esc to cancel", id="reason-input"
            )
            inp.cursor_blink = self.blink
            yield inp
            yield Static("", id="reason-error")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        reason = " ".join(event.value.split())
        if not reason and self.required:
            self.query_one("#reason-error", Static).update(
                Content("say why: the reason is kept in the gate log")
            )
            return
        self.dismiss(reason)

    def action_cancel(self) -> None:
        self.dismiss(None)


class TossScreen(ReasonScreen):
    """Ask why a draft is tossed; the reason is kept in the gate log with the draft."""

    def __init__(self, draft_title: str, blink: bool = True, **kw: Any) -> None:
        super().__init__(
            "Toss the draft",
            draft_title,
            "It leaves the queue and never enters the store. The gate log keeps it whole, "
            "with the reason you give.",
            blink=blink,
            **kw,
        )


def leave_unless_unsaved(screen: Screen[bool], dirty: bool, unsaved: str) -> None:
    """Close an editing screen without saving: at once when nothing changed, else only after
    the person confirms that *unsaved* ("your changes to … are not saved") may be lost."""
    if not dirty:
        screen.dismiss(False)
        return

    def answer(yes: bool | None) -> None:
        if yes:
            screen.dismiss(False)

    screen.app.push_screen(ConfirmScreen("Discard this edit?", unsaved, yes="Discard"), answer)


class LinksScreen(ModalScreen[tuple[str, str] | None]):
    """What becomes of the links other memories make to one being retired: made plain text
    (u), pointed at another memory (type its slug, r or enter), or kept pointing at nothing
    (k). Esc cancels the retire. Dismisses with (links, redirect_to)."""

    DEFAULT_CSS = """
    LinksScreen { align: center middle; }
    LinksScreen > Vertical {
        width: 76; max-width: 95%; height: auto; border: thick $warning 60%;
        background: $surface; padding: 1 2;
    }
    LinksScreen #links-title { text-style: bold; }
    LinksScreen #links-help { margin: 1 0; }
    LinksScreen #links-error { color: $error; height: auto; }
    LinksScreen Horizontal { height: auto; margin-top: 1; }
    LinksScreen Button { margin-right: 2; }
    """

    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="links.cancel"),
        Binding("u", "choose('unlink')", "Unlink", id="links.unlink"),
        Binding("k", "choose('keep')", "Keep", id="links.keep"),
        Binding("r", "choose('redirect')", "Redirect", id="links.redirect"),
    ]

    def __init__(
        self, slug: str, linked: list[str], slugs: list[str], *, gone: bool = False, **kw: Any
    ) -> None:
        super().__init__(**kw)
        self.slug = slug
        self.linked = linked
        self.slugs = [s for s in slugs if s != slug]
        self.gone = gone  # the memory is already gone: its links point at nothing now

    def compose(self) -> ComposeResult:
        n = len(self.linked)
        with Vertical():
            yield Static(
                Content(f"{n} memor{'y links' if n == 1 else 'ies link'} to {self.slug}"),
                id="links-title",
            )
            yield Static(
                Content(
                    f"({', '.join(self.linked[:8])}). "
                    + (
                        "It is gone, so they point at nothing and doctor calls the store broken. "
                        if self.gone
                        else "Left alone, those links point at nothing and doctor calls the "
                        "store broken. "
                    )
                    + "u: make them plain text · r: point them at the memory named below · "
                    "k: keep them · esc: cancel"
                ),
                id="links-help",
            )
            yield Input(
                placeholder="redirect to which memory? (its slug, then enter)", id="links-to"
            )
            yield Static("", id="links-error")
            with Horizontal():
                yield Button("Unlink (u)", variant="primary", id="unlink")
                yield Button("Redirect (r)", id="redirect")
                yield Button("Keep (k)", id="keep")

    def on_mount(self) -> None:
        self.query_one("#unlink", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_choose(str(event.button.id))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_choose("redirect")

    def action_choose(self, how: str) -> None:
        if how != "redirect":
            self.dismiss((how, ""))
            return
        to = self.query_one("#links-to", Input).value.strip()
        if to in self.slugs:
            self.dismiss(("redirect", to))
            return
        self.query_one("#links-error", Static).update(
            Content(
                f"no other memory {to!r} here: type the slug of one that exists"
                if to
                else "type the slug of the memory the links should point at"
            )
        )
        self.query_one("#links-to", Input).focus()

    def action_cancel(self) -> None:
        self.dismiss(None)
