"""Edit a memory by hand: a person's words, written through the store's write path with
its index line, passing no gate and recorded as a hand edit."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Input, Label, Select, Static, TextArea

from kura_core.vocabulary import CURATION_FIELDS, MEMORY_TYPES

from ..host import host
from ..widgets.fmt import cls_tag, heading, one_line
from ..widgets.keys import KeyLine
from .confirm import leave_unless_unsaved

PLACEHOLDERS = {
    "description": "the index line: a recognition trigger, not a summary",
    "type": "user, feedback, project or reference",
    "tags": "one word each, comma separated",
    "belongs_because": "why it belongs in this store",
    "keep": "what must outlive any shortening",
    "may_fade": "what detail may fade",
}


class MemoryEditScreen(Screen[bool]):
    DEFAULT_CSS = """
    MemoryEditScreen { layout: horizontal; }
    MemoryEditScreen > #edit-form { width: 2fr; height: 1fr; padding: 0 1; }
    MemoryEditScreen > #edit-evidence { width: 1fr; height: 1fr; padding: 0 1; border-left: vkey $primary 30%; }
    MemoryEditScreen #edit-head { text-style: bold; height: auto; }
    MemoryEditScreen #edit-note { color: $warning; height: auto; }
    MemoryEditScreen #edit-fields { height: auto; max-height: 50%; margin-top: 1; }
    MemoryEditScreen .field { height: 1; }
    MemoryEditScreen .field > Label { width: 16; color: $text-muted; }
    MemoryEditScreen .field > Input { width: 1fr; height: 1; border: none; padding: 0 1; background: $boost; }
    MemoryEditScreen .field > Input:focus { background: $primary 20%; }
    MemoryEditScreen .field > Select { width: 1fr; height: 1; }
    MemoryEditScreen #edit-body-label { color: $text-muted; }
    MemoryEditScreen #edit-body { height: 1fr; min-height: 4; }
    MemoryEditScreen #edit-error { height: auto; max-height: 6; color: $error; }
    """

    BINDINGS = [
        Binding("ctrl+s", "save", "Save (a hand edit)", id="edit.save"),
        Binding("escape", "cancel", "Cancel", id="edit.cancel"),
    ]

    def __init__(
        self, store: str, view: Any, by: str = "hand", blink: bool = True, **kw: Any
    ) -> None:
        super().__init__(**kw)
        self.store = store
        self.view = view
        self.by = by
        self.blink = blink
        self.saving = False

    def compose(self) -> ComposeResult:
        v, m = self.view, self.view.memory
        with Vertical(id="edit-form"):
            yield Static(
                Content.assemble(
                    ("Edit memory ", ""),
                    (m.slug, "bold $accent"),
                    (" — ctrl+s saves, esc cancels", "$foreground-muted"),
                ),
                id="edit-head",
            )
            yield Static(
                Content(
                    f"A hand edit passes no gate. It is written with its index line and recorded as "
                    f"yours ({self.by}); the evidence stays, and the memory shows as hand-edited."
                ),
                id="edit-note",
            )
            yield Static("", id="edit-error")
            with VerticalScroll(id="edit-fields"):
                for key, label, value in (
                    ("title", "title", v.title),
                    ("description", "trigger", m.description),
                    ("type", "type", m.type),
                    ("tags", "tags", ", ".join(m.tags)),
                    *((k, k.replace("_", " "), m.curation(k)) for k in CURATION_FIELDS),
                ):
                    with Horizontal(classes="field"):
                        yield Label(label)
                        if key == "type":
                            yield self._type_picker(value)
                            continue
                        # tabbing in must not select the text: a key typed would replace it
                        yield Input(
                            value,
                            id=f"edit-{key}",
                            placeholder=PLACEHOLDERS.get(key, ""),
                            select_on_focus=False,
                        )
            yield Label("body", id="edit-body-label")
            yield TextArea(
                m.body.strip("\n"), id="edit-body", soft_wrap=True, show_line_numbers=False
            )
        with VerticalScroll(id="edit-evidence"):
            lines = [heading("What vouched for it")]
            for q in v.quotes:
                lines.append(Content.assemble(cls_tag(q.cls), " ", one_line(q.text, 300)))
            if not v.quotes:
                lines.append(Content.styled("no evidence manifest", "$foreground-muted"))
            lines += [Content(""), Content.styled(v.provenance.text, "$foreground-muted")]
            yield Static(Content("\n").join(lines), id="edit-evidence-text")
        yield KeyLine()

    @staticmethod
    def _type_picker(value: str) -> Select[str]:
        """The types a memory may have, as a picker (a type kura does not know is shown as
        it is, so opening the form changes nothing)."""
        types = list(MEMORY_TYPES) + ([value] if value and value not in MEMORY_TYPES else [])
        return Select(
            [(t, t) for t in types],
            value=value or Select.NULL,
            allow_blank=True,
            prompt="(no type)",
            compact=True,
            id="edit-type",
        )

    def needs_attention(self) -> str:
        """The id of the first field a person should look at: a title or trigger that is
        empty, then a missing type; else the body."""
        v, m = self.view, self.view.memory
        for key, value in (("title", v.title), ("description", m.description), ("type", m.type)):
            if not (value or "").strip():
                return f"edit-{key}"
        return "edit-body"

    def on_mount(self) -> None:
        for w in self.query(Input):
            w.cursor_blink = self.blink
        body = self.query_one("#edit-body", TextArea)
        body.cursor_blink = self.blink
        self.query_one(f"#{self.needs_attention()}").focus()

    def fields(self) -> dict[str, Any]:
        def val(key: str) -> str:
            return self.query_one(f"#edit-{key}", Input).value

        return {
            "title": val("title"),
            "description": val("description"),
            "type": self._type(),
            "tags": [t.strip() for t in val("tags").split(",") if t.strip()],
            "curation": {k: val(k) for k in CURATION_FIELDS},
            "body": self.query_one("#edit-body", TextArea).text,
        }

    def _type(self) -> str:
        value = self.query_one("#edit-type", Select).value
        return value if isinstance(value, str) else ""

    @property
    def dirty(self) -> bool:
        f = self.fields()
        m = self.view.memory
        return (
            " ".join(f["title"].split()) != self.view.title
            or " ".join(f["description"].split()) != m.description
            or f["type"] != (m.type or "")
            or tuple(f["tags"]) != tuple(m.tags)
            or any(" ".join(f["curation"][k].split()) != m.curation(k) for k in CURATION_FIELDS)
            or f["body"].strip() != m.body.strip()
        )

    def action_save(self) -> None:
        if self.saving:
            return
        if not self.dirty:
            self.notify("nothing changed", severity="information")
            return
        self.saving = True
        self.query_one("#edit-error", Static).update(
            Content.styled("writing…", "$foreground-muted")
        )
        host(self).save_memory(self.store, self.view.slug, self.view.base, self.fields())

    def show_error(self, text: str) -> None:
        self.saving = False
        self.query_one("#edit-error", Static).update(
            Content.styled(f"✗ {text} — nothing was written", "bold $error")
        )

    def action_cancel(self) -> None:

        leave_unless_unsaved(
            self, self.dirty, f"Your changes to the memory {self.view.slug} are not saved."
        )
