"""Review tidy's rewrites one by one: accept (the floors check it), edit, or reject."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Input, Label, Static

from ..host import host
from ..widgets.fmt import heading
from ..widgets.keys import KeyLine
from ..widgets.rowlist import RowList

MARKS = {
    "pending": ("○", "$foreground-muted"),
    "accepted": ("✓", "bold $success"),
    "rejected": ("×", "$foreground-muted"),
    "refused": ("✗", "bold $error"),
}


class TidyScreen(Screen[None]):
    DEFAULT_CSS = """
    TidyScreen > #tidy-head { height: auto; padding: 0 1; }
    TidyScreen > #tidy-body { height: 1fr; }
    TidyScreen #tidy-list { width: 34; height: 1fr; }
    TidyScreen #tidy-detail { width: 1fr; height: 1fr; padding: 0 1; border-left: vkey $primary 30%; }
    TidyScreen #tidy-card { height: auto; }
    TidyScreen Label { color: $text-muted; margin-top: 1; }
    TidyScreen #tidy-status { height: auto; margin-top: 1; }
    """

    BINDINGS = [
        Binding(
            "a",
            "accept",
            "Accept",
            tooltip="Write the line in the box (the floors check it first)",
            id="tidy.accept",
        ),
        Binding("e", "edit", "Edit", tooltip="Edit the line before accepting it", id="tidy.edit"),
        Binding(
            "r",
            "reject",
            "Reject",
            tooltip="Leave the line as it is (the gate log notes it)",
            id="tidy.reject",
        ),
        Binding(
            "escape",
            "close",
            "Close",
            tooltip="Back to the list, or close the review",
            id="tidy.close",
        ),
    ]

    def __init__(self, store: str, review: Any, blink: bool = True, **kw: Any) -> None:
        super().__init__(**kw)
        self.store = store
        self.review = review
        self.blink = blink
        self.state: dict[str, str] = {p.slug: "pending" for p in review.proposals}
        self.messages: dict[str, Content] = {}
        self.typed: dict[str, str] = {}  # the line a person wrote, by slug
        self.busy = ""

    def compose(self) -> ComposeResult:
        r = self.review
        n = len(r.proposals)
        head = [
            Content.assemble(
                ("Tidy ", "bold"),
                (self.store, "bold $accent"),
                (
                    f" — {n} weak index line{'s' if n != 1 else ''}: a accepts, e edits, r rejects, "
                    "esc closes",
                    "$foreground-muted",
                ),
            )
        ]
        if r.note:
            head.append(Content.styled(r.note, "$warning"))
        if r.stopped:
            head.append(
                Content.styled(f"stopped: {r.stopped}; the rest come without rewrites", "$warning")
            )
        yield Static(Content("\n").join(head), id="tidy-head")
        with Horizontal(id="tidy-body"):
            yield RowList(
                self._row,
                id="tidy-list",
                empty=Content.styled("every index line does its job", "$success"),
            )
            with VerticalScroll(id="tidy-detail"):
                yield Static("", id="tidy-card")
                yield Label("the line to write (enter accepts)")
                inp = Input("", id="tidy-line")
                inp.cursor_blink = self.blink
                yield inp
                yield Static("", id="tidy-status")
        yield KeyLine()

    def _row(self, p: Any) -> Content:
        mark, style = MARKS[self.state.get(p.slug, "pending")]
        return Content.assemble((mark, style), " ", p.slug)

    def on_mount(self) -> None:
        rl = self.query_one("#tidy-list", RowList)
        rl.set_rows(list(self.review.proposals), cursor=0)
        rl.focus()

    @property
    def current(self) -> Any | None:
        return self.query_one("#tidy-list", RowList).current

    def on_row_list_highlighted(self, event: RowList.Highlighted) -> None:
        event.stop()
        self._card()

    def on_row_list_selected(self, event: RowList.Selected) -> None:
        event.stop()
        self.action_edit()

    def _card(self) -> None:
        p = self.current
        card = self.query_one("#tidy-card", Static)
        inp = self.query_one("#tidy-line", Input)
        if p is None:
            card.update(Content.styled("nothing to tidy", "$success"))
            inp.value = ""
            return
        out = [
            Content.assemble((p.title, "bold"), ("  " + p.slug, "$foreground-muted")),
            Content.assemble(("why  ", "$foreground-muted"), (p.why, "$warning")),
            Content(""),
            heading("now"),
            Content(p.line or "(empty)"),
        ]
        out += [Content(""), heading("the scribe's rewrite")]
        if p.proposed:
            out.append(Content(p.proposed))
            for prob in p.problems:
                out.append(Content.styled(f"✗ {prob}", "$error"))
            if p.problems:
                out.append(
                    Content.styled(
                        "the floors refuse it as it stands: edit it, or reject it", "$error"
                    )
                )
        elif p.error:
            out.append(Content.styled(f"✗ {p.error}", "$error"))
        else:
            out.append(Content.styled("none: write the line yourself", "$foreground-muted"))
        card.update(Content("\n").join(out))
        # what the person typed for this line stays in the box, even after a refusal
        inp.value = self.typed.get(p.slug, p.proposed or p.line)
        self.query_one("#tidy-status", Static).update(self.messages.get(p.slug, ""))

    def action_edit(self) -> None:
        if self.current is not None:
            self.query_one("#tidy-line", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_accept()

    def action_accept(self) -> None:
        p = self.current
        if p is None or self.busy:
            return
        if self.state.get(p.slug) == "accepted":
            self.notify("already written", severity="information")
            return
        line = " ".join(self.query_one("#tidy-line", Input).value.split())
        if not line:
            self._status(p.slug, Content.styled("✗ the line is empty", "$error"))
            return
        self.typed[p.slug] = line
        self.busy = p.slug
        self._status(p.slug, Content.styled("checking against the floors…", "$foreground-muted"))
        host(self).apply_tidy(self.store, p.slug, line, p.line)

    def action_reject(self) -> None:
        p = self.current
        if p is None or self.busy or self.state.get(p.slug) == "accepted":
            return
        host(self).reject_tidy(self.store, p.slug, p.proposed)
        self.done(p.slug, "rejected", Content.styled("left as it is", "$foreground-muted"))

    def done(
        self, slug: str, state: str, message: Content, violations: list[str] | None = None
    ) -> None:
        """The app reports how a line ended (accepted, refused by the floors, rejected)."""
        self.busy = ""
        self.state[slug] = state
        if violations:
            message = Content("\n").join(
                [message] + [Content.styled(f"  • {v}", "$error") for v in violations]
            )
        self._status(slug, message)
        rl = self.query_one("#tidy-list", RowList)
        rl.set_rows(rl.rows)
        if state in ("accepted", "rejected"):
            rows = list(rl.rows)
            at = next((i for i, p in enumerate(rows) if p.slug == slug), 0)
            nxt = next(
                (
                    i
                    for i in list(range(at + 1, len(rows))) + list(range(0, at))
                    if self.state.get(rows[i].slug) == "pending"
                ),
                None,
            )
            if nxt is not None:
                rl.move_to(nxt)
        # a refusal also gives the keys back (e edits the line again, kept as it was typed)
        rl.focus()

    def _status(self, slug: str, message: Content) -> None:
        self.messages[slug] = message
        if self.current is not None and self.current.slug == slug:
            self.query_one("#tidy-status", Static).update(message)

    def action_close(self) -> None:
        if self.query_one("#tidy-line", Input).has_focus:
            self.query_one("#tidy-list", RowList).focus()
            return
        self.dismiss(None)
