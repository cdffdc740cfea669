"""The drafts pane: the queue, and the selected draft beside its evidence and the gate's verdicts."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container, Horizontal, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import Static

from kura_core import Violation
from kura_core.vocabulary import (
    CURATION_FIELDS,
    SYNC_SOURCE,
    DraftDecision,
    GateVerdict,
    tag_passed,
)

from .find import FindBar, Finding, filtered, haystack
from .fmt import STATUS_STYLE, cls_tag, heading, one_line, where
from .rowlist import RowList

if TYPE_CHECKING:
    from kura_core import DraftsView


def _queue_row(d: Any) -> Content:
    verdict = str((d.gate or {}).get("verdict", "?"))
    if getattr(d, "source", "") == SYNC_SOURCE:
        kind = ("⇄ the other machine's text", "bold $warning")
    else:
        kind = ("extends" if d.decision == DraftDecision.EXTENDS else "new", "$foreground-muted")
    sub = Content.assemble(
        ("  ", ""),
        kind,
        (" · ", "$foreground-muted"),
        (verdict, _verdict_style(verdict).replace("bold ", "")),
        (f" · {len(d.quotes)} quote{'s' if len(d.quotes) != 1 else ''}", "$foreground-muted"),
    )
    return Content("\n").join([Content(one_line(d.title, 60)), sub])


class DraftQueue(RowList):
    """The waiting drafts, two lines each, built only when on screen."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(
            _queue_row,
            row_height=2,
            empty=Content.styled("loading drafts…", "$foreground-muted"),
            **kw,
        )


def _verdict_style(v: str) -> str:
    styles: dict[str, str] = {
        GateVerdict.KEPT: "bold $success",
        GateVerdict.DROPPED: "bold $error",
        GateVerdict.SEED: "bold $accent",
    }
    return styles.get(v, "bold")


def render_diff(x: Any) -> list[Content]:
    """What pouring an extension changes in the memory it extends."""
    out: list[Content] = []
    if not x.exists:
        out.append(
            Content.styled(
                f"✗ {x.target} is no longer in the store: pouring is refused; toss it",
                "bold $error",
            )
        )
        return out
    head = f"Changes to {x.target}: +{x.added} −{x.removed} lines"
    out.append(heading(head))
    if x.changed_since:
        out.append(
            Content.styled(
                "⚠ the memory changed after this draft was written: pouring is refused "
                "until the draft is fixed against it or tossed",
                "bold $warning",
            )
        )
    for label, (old, new) in (("title", x.title), ("trigger", x.description)):
        if old != new:
            out.append(
                Content.assemble((f"{label}  ", "$foreground-muted"), ("− " + old, "$error"))
            )
            out.append(Content.assemble((" " * (len(label) + 2), ""), ("+ " + new, "$success")))
    if tuple(x.tags[0]) != tuple(x.tags[1]):
        out.append(
            Content.assemble(
                ("tags  ", "$foreground-muted"),
                ("− " + (", ".join(x.tags[0]) or "none"), "$error"),
                "  ",
                ("+ " + (", ".join(x.tags[1]) or "none"), "$success"),
            )
        )
    out.append(Content(""))
    for line in x.body:
        if line.op == "+":
            out.append(Content.styled("+ " + line.text, "$success"))
        elif line.op == "-":
            out.append(Content.styled("− " + line.text, "$error"))
        else:
            out.append(Content.styled("  " + line.text, "$foreground-muted"))
    return out


def render_draft(d: Any, diff: Any = None) -> Content:
    """What pouring the draft would write (for an extension: what it changes), and its curation."""
    out: list[Content] = []
    title = Content.styled(d.title, "bold")
    if getattr(d, "source", "") == SYNC_SOURCE:
        action = Content.styled(
            f"⇄ sync conflict: the other machine's text of {d.target}", "bold $warning"
        )
    elif d.decision == DraftDecision.EXTENDS and d.target:
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
    if diff is not None:
        out.extend(render_diff(diff))
    else:
        out.append(Content(d.body))
    for key in CURATION_FIELDS:
        if d.curation.get(key):
            out.append(
                Content.assemble(
                    (f"{key.replace('_', ' ')}: ", "$foreground-muted italic"), d.curation[key]
                )
            )
    if d.history:
        out.append(Content(""))
        out.append(heading("History"))
        for h in d.history:
            out.append(
                Content.styled(
                    f"{h.get('at', '')} {h.get('by', '')}: {h.get('reason') or 'edited'}",
                    "$foreground-muted",
                )
            )
    src = Path(d.source).name if d.source else ""
    if src or d.created:
        when = d.created.replace("T", " ")[:16]
        out.append(
            Content.styled(
                f"\ndrafted {when}{(' from ' + src) if src else ''}", "$foreground-muted"
            )
        )
    return Content("\n").join(out)


def render_evidence(d: Any) -> Content:
    """Why the draft exists: each quote with its class and where it came from, then the gate."""
    out: list[Content] = [
        Content.assemble(
            heading(f"Evidence — {len(d.quotes)} quote{'s' if len(d.quotes) != 1 else ''}"),
            ("  o opens the journal", "$foreground-muted") if d.quotes else "",
        )
    ]
    if not d.quotes:
        out.append(Content.styled("no quotes recorded", "$error"))
    for q in d.quotes:
        cls = q.get("cls") or q.get("class")
        status = str(q.get("status", "?"))
        out.append(Content.assemble(cls_tag(cls), " ", (f"“{one_line(q.get('text', ''))}”", "")))
        claimed = q.get("claimed")
        refiled = f" · re-filed from {claimed}" if claimed and cls and claimed != cls else ""
        out.append(
            Content.assemble(
                "   ",
                (status.replace("_", " "), STATUS_STYLE.get(status, "bold")),
                (f" · {where(q)}{refiled}", "$foreground-muted"),
            )
        )
    out.append(Content(""))
    out.extend(render_gate(d.gate, d.quotes))
    return Content("\n").join(out)


def render_gate(g: Mapping[str, Any], quotes: Any = ()) -> list[Content]:
    """The gate's verdicts: quotes, numbers, attribution, tags."""
    out: list[Content] = [heading("Gate")]
    g = g or {}
    verdict = str(g.get("verdict", "?"))
    out.append(
        Content.assemble(("verdict     ", "$foreground-muted"), (verdict, _verdict_style(verdict)))
    )
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
            ok = tag_passed(result)
            out.append(
                Content.assemble(
                    ("tags        " if i == 0 else "            ", "$foreground-muted"),
                    (("✓ " if ok else "✗ ") + f"{tag}: {result}", "$success" if ok else "$error"),
                )
            )
    else:
        out.append(
            Content.assemble(
                ("tags        ", "$foreground-muted"),
                ("none that claim anything about the human", "$foreground-muted"),
            )
        )
    return out


def _check(label: str, violations: list[str], ok_text: str) -> Content:
    head = (f"{label:<12}", "$foreground-muted")
    if not violations:
        return Content.assemble(head, ("✓ ", "bold $success"), (ok_text, "$foreground-muted"))
    body = Content.assemble(head, ("✗ ", "bold $error"), (violations[0], "$error"))
    for v in violations[1:]:
        body = body + Content.assemble("\n", (" " * 12, ""), ("✗ ", "bold $error"), (v, "$error"))
    return body


class DraftsPane(Finding, Container):
    """Keys act on the highlighted draft: p pours, e fixes (edits), t tosses, o opens its journal."""

    DEFAULT_CSS = """
    DraftsPane { layout: vertical; height: 1fr; }
    DraftsPane > #draft-body { layout: horizontal; height: 1fr; }
    DraftsPane #draft-side { width: 28; height: 1fr; }
    DraftsPane #draft-count { height: 1; padding: 0 1; color: $text-muted; }
    DraftsPane DraftQueue { height: 1fr; }
    DraftsPane #draft-detail { width: 1fr; height: 1fr; }
    DraftsPane #draft-view { width: 1fr; height: 1fr; padding: 0 1; border-left: vkey $primary 30%; }
    DraftsPane #draft-evidence { width: 1fr; height: 1fr; padding: 0 1; border-left: vkey $primary 30%; }
    """

    BINDINGS = [
        Binding(
            "p",
            "pour",
            "Pour",
            tooltip="Pour the draft: write the memory and its index line",
            id="drafts.pour",
        ),
        Binding(
            "e",
            "fix",
            "Fix",
            tooltip="Fix (edit) the draft; the floor checks it again",
            id="drafts.fix",
        ),
        Binding(
            "t",
            "toss",
            "Toss…",
            tooltip="Toss the draft, with a reason kept in the gate log (confirmed)",
            id="drafts.toss",
        ),
        Binding(
            "o",
            "evidence",
            "Journal",
            tooltip="Open the journal around each quote of the draft",
            id="drafts.evidence",
        ),
        Binding(
            "v",
            "diff",
            "Diff",
            tooltip="An extension's changes to its memory, the whole width (escape returns)",
            id="drafts.diff",
        ),
        Binding("space", "page(1)", "Scroll the draft down", show=False, id="drafts.page_down"),
        Binding("b", "page(-1)", "Scroll the draft up", show=False, id="drafts.page_up"),
    ]

    class Act(Message):
        """The person asked to pour / fix / toss a draft, or to see its evidence."""

        def __init__(self, action: str, draft: Any) -> None:
            super().__init__()
            self.action = action
            self.draft = draft

    def __init__(self, blink: bool = True, **kw: Any) -> None:
        super().__init__(**kw)
        self.blink = blink
        self.all: list[Any] = []
        self.drafts: list[Any] = []  # as shown (after any filter)
        self.hays: list[str] = []
        self.extensions: dict[str, Any] = {}
        self.problems: list[tuple[str, str]] = []

    def compose(self) -> ComposeResult:
        yield FindBar("titles, triggers, slugs, tags", blink=self.blink, id="draft-find")
        with Horizontal(id="draft-body"):
            with Container(id="draft-side"):
                yield Static("", id="draft-count")
                yield DraftQueue(id="draft-queue")
            with Horizontal(id="draft-detail"):
                with VerticalScroll(id="draft-view"):
                    yield Static(
                        Content.styled("loading drafts…", "$foreground-muted"), id="draft-card"
                    )
                with VerticalScroll(id="draft-evidence"):
                    yield Static("", id="draft-evidence-text")

    @property
    def selected(self) -> Any | None:
        return self.query_one(DraftQueue).current

    def show(self, view: DraftsView) -> None:
        prev = self.selected.slug if self.selected is not None else None
        self.all = list(view.drafts)
        self.problems = list(view.problems)
        self.extensions = dict(view.extensions)
        self.hays = []  # built on the first search
        self._fill(prev)

    def _fill(self, keep: str | None = None) -> None:
        query = self.query_one(FindBar).query_text
        if query and len(self.hays) != len(self.all):
            self.hays = [
                haystack(d.slug, d.title, d.description, d.tags, d.target) for d in self.all
            ]
        self.drafts = filtered(self.all, self.hays, query) if query else list(self.all)
        count = f"{len(self.all)} waiting"
        if query:
            count = f"{len(self.drafts)} of {len(self.all)} match"
        if self.problems:
            count += f" · {len(self.problems)} unreadable"
        self.query_one("#draft-count", Static).update(count)
        q = self.query_one(DraftQueue)
        slugs = [d.slug for d in self.drafts]
        cursor = slugs.index(keep) if keep in slugs else None
        if query and not self.drafts:
            q.set_empty(Content.styled(f"no draft matches “{query}”", "$foreground-muted"))
        elif not self.drafts:
            q.set_empty(Content.styled("no drafts waiting", "$foreground-muted"))
        q.set_rows(self.drafts, cursor=cursor)
        self.query_one(FindBar).count(len(self.drafts), len(self.all))
        self._show_card()

    @property
    def narrow(self) -> bool:
        try:
            return self.screen.has_class("-narrow")
        except Exception:
            return False

    def _show_card(self) -> None:
        self._was_narrow = self.narrow
        card = self.query_one("#draft-card", Static)
        evidence = self.query_one("#draft-evidence-text", Static)
        d = self.selected
        if d is None:
            card.update(
                Content.styled(
                    "No drafts waiting. The distiller writes drafts here; nothing enters the store "
                    "until it is poured (by drain, or by you)."
                    if not self.all
                    else "No draft matches the filter (esc clears it).",
                    "$foreground-muted",
                )
            )
            evidence.update("")
        else:
            diff = self.extensions.get(d.slug)
            if self.narrow:
                card.update(
                    Content("\n").join([render_draft(d, diff), Content(""), render_evidence(d)])
                )
                evidence.update("")
            else:
                card.update(render_draft(d, diff))
                evidence.update(render_evidence(d))
        self.query_one("#draft-view").scroll_home(animate=False)
        self.query_one("#draft-evidence").scroll_home(animate=False)

    def on_resize(self) -> None:
        if self.narrow != getattr(self, "_was_narrow", None):  # the card and evidence stack or part
            self._was_narrow = self.narrow
            self._show_card()

    def on_row_list_highlighted(self, event: RowList.Highlighted) -> None:
        event.stop()
        self._show_card()

    def on_row_list_selected(self, event: RowList.Selected) -> None:
        event.stop()
        self.query_one("#draft-view").focus()

    # ---- find --------------------------------------------------------------
    def find_list(self) -> DraftQueue:
        return self.query_one(DraftQueue)

    def refilter(self) -> None:
        self._fill(self.selected.slug if self.selected is not None else None)

    # ---- actions -------------------------------------------------------------
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

    def action_evidence(self) -> None:
        self._act("evidence")

    def action_diff(self) -> None:
        self._act("diff")
