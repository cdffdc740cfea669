"""Fix a draft: edit what it would write; the floor runs again when it is saved."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Input, Label, Static, TextArea

from ..host import host
from ..widgets.drafts import render_gate
from ..widgets.fmt import cls_tag, one_line
from ..widgets.keys import KeyLine
from .confirm import leave_unless_unsaved


class FixScreen(Screen[bool]):
    DEFAULT_CSS = """
    FixScreen { layout: horizontal; }
    FixScreen > #fix-form { width: 2fr; height: 1fr; padding: 0 1; }
    FixScreen > #fix-evidence { width: 1fr; height: 1fr; padding: 0 1; border-left: vkey $primary 30%; }
    FixScreen #fix-head { text-style: bold; height: auto; }
    FixScreen Label { color: $text-muted; margin-top: 1; }
    FixScreen Input { margin: 0; }
    FixScreen #fix-body { height: 1fr; min-height: 5; }
    FixScreen #fix-refusal { height: auto; max-height: 8; color: $error; }
    """

    BINDINGS = [
        Binding("ctrl+s", "save", "Save (floor runs)", id="fix.save"),
        Binding("escape", "cancel", "Cancel", id="fix.cancel"),
    ]

    def __init__(self, store: str, draft: Any, blink: bool = True, **kw: Any) -> None:
        super().__init__(**kw)
        self.store = store
        self.draft = draft
        self.blink = blink
        self.saving = False

    def compose(self) -> ComposeResult:
        d = self.draft
        with Vertical(id="fix-form"):
            yield Static(
                Content.assemble(
                    ("Fix draft ", ""),
                    (d.slug, "bold $accent"),
                    (
                        " — ctrl+s saves (the floor checks it again), esc cancels",
                        "$foreground-muted",
                    ),
                ),
                id="fix-head",
            )
            yield Static("", id="fix-refusal")
            yield Label("title")
            yield Input(d.title, id="fix-title")
            yield Label("trigger (the index line)")
            yield Input(d.description, id="fix-description")
            yield Label("tags (comma separated)")
            yield Input(", ".join(d.tags), id="fix-tags")
            yield Label("body")
            yield TextArea(d.body, id="fix-body", soft_wrap=True, show_line_numbers=False)
        with VerticalScroll(id="fix-evidence"):
            lines = [Content.styled("What vouches for it", "bold $primary")]
            for q in d.quotes:
                lines.append(
                    Content.assemble(cls_tag(q.get("cls")), " ", one_line(q.get("text", "")))
                )
            lines.append(Content(""))
            lines.extend(render_gate(d.gate, d.quotes))
            yield Static(Content("\n").join(lines), id="fix-evidence-text")
        yield KeyLine()

    def on_mount(self) -> None:
        for w in self.query(Input):
            w.cursor_blink = self.blink
        self.query_one(TextArea).cursor_blink = self.blink
        self.query_one("#fix-body", TextArea).focus()

    def fields(self) -> dict[str, Any]:
        tags = [t.strip() for t in self.query_one("#fix-tags", Input).value.split(",") if t.strip()]
        return {
            "title": self.query_one("#fix-title", Input).value,
            "description": self.query_one("#fix-description", Input).value,
            "body": self.query_one("#fix-body", TextArea).text,
            "tags": tags,
        }

    @property
    def dirty(self) -> bool:
        f = self.fields()
        d = self.draft
        return (
            f["title"] != d.title
            or f["description"] != d.description
            or f["body"].strip("\n") != d.body.strip("\n")
            or tuple(f["tags"]) != tuple(d.tags)
        )

    def action_save(self) -> None:
        if self.saving:
            return
        if not self.dirty:
            self.notify("nothing changed", severity="information")
            return
        self.saving = True
        self.query_one("#fix-refusal", Static).update(
            Content.styled("checking against the floor…", "$foreground-muted")
        )
        host(self).fix_draft(self.store, self.draft.slug, self.fields())

    def show_refusal(self, violations: list[str], text: str = "") -> None:
        self.saving = False
        if violations:
            lines = [Content.styled("✗ refused by the floor — nothing was saved:", "bold $error")]
            lines += [Content.styled(f"  • {v}", "$error") for v in violations]
        else:
            lines = [Content.styled(f"✗ {text}", "bold $error")]
        self.query_one("#fix-refusal", Static).update(Content("\n").join(lines))

    def action_cancel(self) -> None:

        leave_unless_unsaved(
            self, self.dirty, f"Your changes to the draft {self.draft.slug} are not saved."
        )
