"""The drafts pane: the queue, and the selected draft beside its evidence and the gate's verdicts."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container, Horizontal, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from kura_core.floors import Violation

from .fmt import STATUS_STYLE, cls_tag, heading, one_line, where


class DraftQueue(OptionList):
    BINDINGS = [
        Binding("j", "cursor_down", "Down", show=False, id="drafts.down"),
        Binding("k", "cursor_up", "Up", show=False, id="drafts.up"),
    ]


def _verdict_style(v: str) -> str:
    return {"kept": "bold $success", "dropped": "bold $error", "seed": "bold $accent"}.get(v, "bold")


def render_draft(d: Any) -> Content:
    """What pouring the draft would write, and its curation."""
    out: list[Content] = []
    title = Content.styled(d.title, "bold")
    if d.decision == "extends" and d.target:
        action = Content.styled(f"extends → {d.target}", "$warning")
    else:
        action = Content.styled(f"new → {d.slug}", "$foreground-muted")
    out.append(Content.assemble(title, "  ", action))
    out.append(Content.assemble(("trigger ", "$foreground-muted"), d.description))
    meta = [("type ", "$foreground-muted"), d.type or "project"]
    if d.tags:
        meta += [("  tags ", "$foreground-muted"), ", ".join(d.tags)]
    if d.label:
        meta += ["  ", (d.label, "bold $warning")]
    out.append(Content.assemble(*meta))
    out.append(Content(""))
    out.append(Content(d.body))
    for key in ("belongs_because", "keep", "may_fade"):
        if d.curation.get(key):
            out.append(Content.assemble((f"{key.replace('_', ' ')}: ", "$foreground-muted italic"),
                                        d.curation[key]))
    if d.history:
        out.append(Content(""))
        out.append(heading("History"))
        for h in d.history:
            out.append(Content.styled(
                f"{h.get('at', '')} {h.get('by', '')}: {h.get('reason') or 'edited'}", "$foreground-muted"))
    src = Path(d.source).name if d.source else ""
    if src or d.created:
        when = d.created.replace("T", " ")[:16]
        out.append(Content.styled(f"\ndrafted {when}{(' from ' + src) if src else ''}", "$foreground-muted"))
    return Content("\n").join(out)


def render_evidence(d: Any) -> Content:
    """Why the draft exists: each quote with its class and where it came from, then the gate."""
    out: list[Content] = [heading(f"Evidence — {len(d.quotes)} quote{'s' if len(d.quotes) != 1 else ''}")]
    if not d.quotes:
        out.append(Content.styled("no quotes recorded", "$error"))
    for q in d.quotes:
        cls = q.get("cls") or q.get("class")
        status = str(q.get("status", "?"))
        out.append(Content.assemble(cls_tag(cls), " ", (f"“{one_line(q.get('text', ''))}”", "")))
        claimed = q.get("claimed")
        refiled = f" · re-filed from {claimed}" if claimed and cls and claimed != cls else ""
        out.append(Content.assemble(
            "   ", (status.replace("_", " "), STATUS_STYLE.get(status, "bold")),
            (f" · {where(q)}{refiled}", "$foreground-muted")))
    out.append(Content(""))
    out.extend(render_gate(d.gate, d.quotes))
    return Content("\n").join(out)


def render_gate(g: Mapping[str, Any], quotes: Any = ()) -> list[Content]:
    """The gate's verdicts: quotes, numbers, attribution, tags."""
    out: list[Content] = [heading("Gate")]
    g = g or {}
    verdict = str(g.get("verdict", "?"))
    out.append(Content.assemble(("verdict     ", "$foreground-muted"), (verdict, _verdict_style(verdict))))
    for r in g.get("reasons", []) or []:
        out.append(Content.styled(f"  {r}", "$foreground-muted"))
    counts: dict[str, int] = {}
    for q in quotes or ():
        s = str(q.get("status", "?"))
        counts[s] = counts.get(s, 0) + 1
    if counts:
        parts: list[Any] = [("quotes      ", "$foreground-muted")]
        for i, (s, c) in enumerate(sorted(counts.items())):
            parts += [(", " if i else ""), (f"{c} {s.replace('_', ' ')}", STATUS_STYLE.get(s, ""))]
        out.append(Content.assemble(*parts))
    violations = [Violation.from_json(v) for v in g.get("violations", []) or []]
    nums = [v.message() for v in violations if v.kind == "number"]
    attr = [v.message() for v in violations if v.kind == "attribution"]
    other = [v.message() for v in violations if v.kind not in ("number", "attribution")]
    out.append(_check("numbers", nums, "all vouched for"))
    out.append(_check("attribution", attr, "no unvouched claim about the human"))
    for v in other:
        out.append(Content.assemble(("floor       ", "$foreground-muted"), ("✗ " + v, "$error")))
    tags = g.get("tag_checks") or {}
    if tags:
        for i, (tag, result) in enumerate(tags.items()):
            ok = str(result).startswith(("ok", "kept", "verified", "pass", "✓"))
            out.append(Content.assemble(
                ("tags        " if i == 0 else "            ", "$foreground-muted"),
                (("✓ " if ok else "✗ ") + f"{tag}: {result}", "$success" if ok else "$error")))
    else:
        out.append(Content.assemble(("tags        ", "$foreground-muted"),
                                    ("none that claim anything about the human", "$foreground-muted")))
    return out


def _check(label: str, violations: list[str], ok_text: str) -> Content:
    head = (f"{label:<12}", "$foreground-muted")
    if not violations:
        return Content.assemble(head, ("✓ ", "bold $success"), (ok_text, "$foreground-muted"))
    body = Content.assemble(head, ("✗ ", "bold $error"), (violations[0], "$error"))
    for v in violations[1:]:
        body = body + Content.assemble("\n", (" " * 12, ""), ("✗ ", "bold $error"), (v, "$error"))
    return body


class DraftsPane(Container):
    """Keys act on the highlighted draft: p pours, e fixes (edits), t tosses."""

    DEFAULT_CSS = """
    DraftsPane { layout: horizontal; height: 1fr; }
    DraftsPane > #draft-side { width: 28; height: 1fr; }
    DraftsPane #draft-count { height: 1; padding: 0 1; color: $text-muted; }
    DraftsPane DraftQueue { height: 1fr; border: none; padding: 0; background: transparent; }
    DraftsPane DraftQueue:focus { border: none; }
    DraftsPane > #draft-detail { width: 1fr; height: 1fr; }
    DraftsPane #draft-view { width: 1fr; height: 1fr; padding: 0 1; border-left: vkey $primary 30%; }
    DraftsPane #draft-evidence { width: 1fr; height: 1fr; padding: 0 1; border-left: vkey $primary 30%; }
    """

    BINDINGS = [
        Binding("p", "pour", "Pour", tooltip="Pour the draft: write the memory and its index line",
                id="drafts.pour"),
        Binding("e", "fix", "Fix", tooltip="Fix (edit) the draft; the floor checks it again", id="drafts.fix"),
        Binding("t", "toss", "Toss…", tooltip="Toss the draft, with a reason kept in the gate log (confirmed)",
                id="drafts.toss"),
        Binding("space", "page(1)", "Scroll the draft down", show=False, id="drafts.page_down"),
        Binding("b", "page(-1)", "Scroll the draft up", show=False, id="drafts.page_up"),
    ]

    class Act(Message):
        """The person asked to pour / fix / toss a draft."""

        def __init__(self, action: str, draft: Any) -> None:
            super().__init__()
            self.action = action
            self.draft = draft

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.drafts: list[Any] = []

    def compose(self) -> ComposeResult:
        with Container(id="draft-side"):
            yield Static("", id="draft-count")
            yield DraftQueue(id="draft-queue")
        with Horizontal(id="draft-detail"):
            with VerticalScroll(id="draft-view"):
                yield Static(Content.styled("loading drafts…", "$foreground-muted"), id="draft-card")
            with VerticalScroll(id="draft-evidence"):
                yield Static("", id="draft-evidence-text")

    @property
    def selected(self) -> Any | None:
        ol = self.query_one(DraftQueue)
        i = ol.highlighted
        if i is None or i >= len(self.drafts):
            return None
        return self.drafts[i]

    def show(self, drafts: list[Any], problems: list[tuple[str, str]]) -> None:
        prev = self.selected.slug if self.selected is not None else None
        prev_i = self.query_one(DraftQueue).highlighted or 0
        self.drafts = list(drafts)
        ol = self.query_one(DraftQueue)
        count = f"{len(drafts)} waiting"
        if problems:
            count += f" · {len(problems)} unreadable"
        self.query_one("#draft-count", Static).update(count)
        with self.prevent(OptionList.OptionHighlighted):
            ol.clear_options()
            opts = []
            for d in self.drafts:
                verdict = str((d.gate or {}).get("verdict", "?"))
                sub = Content.assemble(
                    ("  ", ""), ("extends" if d.decision == "extends" else "new", "$foreground-muted"),
                    (" · ", "$foreground-muted"), (verdict, _verdict_style(verdict).replace("bold ", "")),
                    (f" · {len(d.quotes)} quote{'s' if len(d.quotes) != 1 else ''}", "$foreground-muted"))
                opts.append(Option(Content("\n").join([Content(one_line(d.title, 60)), sub]), id=d.slug))
            ol.add_options(opts)
            if self.drafts:
                slugs = [d.slug for d in self.drafts]
                ol.highlighted = slugs.index(prev) if prev in slugs else min(prev_i, len(slugs) - 1)
        self._show_card()

    @property
    def narrow(self) -> bool:
        try:
            return self.screen.has_class("-narrow")
        except Exception:
            return False

    def _show_card(self) -> None:
        card = self.query_one("#draft-card", Static)
        evidence = self.query_one("#draft-evidence-text", Static)
        d = self.selected
        if d is None:
            card.update(Content.styled(
                "No drafts waiting. The distiller writes drafts here; nothing enters the store "
                "until it is poured (by drain, or by you).", "$foreground-muted"))
            evidence.update("")
        elif self.narrow:
            card.update(Content("\n").join([render_draft(d), Content(""), render_evidence(d)]))
            evidence.update("")
        else:
            card.update(render_draft(d))
            evidence.update(render_evidence(d))
        self.query_one("#draft-view").scroll_home(animate=False)
        self.query_one("#draft-evidence").scroll_home(animate=False)

    def on_resize(self) -> None:
        self._show_card()

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        self._show_card()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.query_one("#draft-view").focus()

    def _act(self, action: str) -> None:
        d = self.selected
        if d is None:
            self.notify("no draft is selected", severity="warning")
            return
        self.post_message(self.Act(action, d))

    def action_page(self, direction: int) -> None:
        for target in self.query("#draft-view, #draft-evidence").results(VerticalScroll):
            if direction > 0:
                target.scroll_page_down(animate=False)
            else:
                target.scroll_page_up(animate=False)

    def action_pour(self) -> None:
        self._act("pour")

    def action_fix(self) -> None:
        self._act("fix")

    def action_toss(self) -> None:
        self._act("toss")
