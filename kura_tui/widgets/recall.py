"""The recall console: a question in, how / picked / walked / context out, and every memory
recall picked or walked to but could not read (``skipped``), with why: none goes missing silently."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from .find import FindBar, Finding, filtered, haystack
from .fmt import n

#: skipped memories named one per line above the results; the rest are counted (all are in the list)
SKIPS_SHOWN = 3


class WalkedList(OptionList):
    BINDINGS = [
        Binding("j", "cursor_down", "Down", show=False, id="recall.down"),
        Binding("k", "cursor_up", "Up", show=False, id="recall.up"),
    ]


class RecallPane(Finding, Vertical):
    DEFAULT_CSS = """
    RecallPane { height: 1fr; }
    RecallPane > #recall-input { margin: 0 0; }
    RecallPane > #recall-status { height: auto; padding: 0 1; }
    RecallPane > #recall-body { height: 1fr; }
    RecallPane #recall-walked { width: 30; height: 1fr; border: none; padding: 0; background: transparent; }
    RecallPane #recall-walked:focus { border: none; }
    RecallPane #recall-context-scroll { width: 1fr; height: 1fr; padding: 0 1; border-left: vkey $primary 30%; }
    """

    BINDINGS = [
        Binding("escape", "toggle_focus", "Question ↔ results", show=False, id="recall.toggle"),
    ]

    class Ask(Message):
        def __init__(self, question: str) -> None:
            super().__init__()
            self.question = question

    class OpenMemory(Message):
        def __init__(self, slug: str) -> None:
            super().__init__()
            self.slug = slug

    def __init__(self, live: bool = True, **kw: Any) -> None:
        super().__init__(**kw)
        self.live = live
        self.walked: list[str] = []
        #: every result row: (slug, "picked" / "walked" / "skipped")
        self.results: list[tuple[str, str]] = []

    def compose(self) -> ComposeResult:
        inp = Input(placeholder="ask a question, then enter", id="recall-input")
        inp.cursor_blink = self.live
        yield inp
        yield Static(
            Content.styled(
                "Recall reads the whole index and names what bears on the question by meaning; "
                "without a model it falls back to words and says so.",
                "$foreground-muted",
            ),
            id="recall-status",
        )
        yield FindBar("slugs in the results", blink=self.live, id="recall-find")
        with Horizontal(id="recall-body"):
            yield WalkedList(id="recall-walked")
            with VerticalScroll(id="recall-context-scroll"):
                yield Static("", id="recall-context")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        q = event.value.strip()
        if not q:
            return
        self.query_one("#recall-status", Static).update(
            Content.styled(f"recalling: {q} …", "$foreground-muted")
        )
        self.post_message(self.Ask(q))

    def action_toggle_focus(self) -> None:
        inp = self.query_one("#recall-input", Input)
        if inp.has_focus:
            self.query_one(WalkedList).focus()
        else:
            inp.focus()

    def clear(self, store: str) -> None:
        self.walked = []
        self.results = []
        self.query_one(WalkedList).clear_options()
        self.query_one("#recall-context", Static).update("")
        self.query_one("#recall-status", Static).update(
            Content.styled(f"recall now asks the store {store}", "$foreground-muted")
        )

    def show(self, res: Any) -> None:
        lines: list[Content] = []
        if res.degraded:
            why = f": {res.reason}" if getattr(res, "reason", "") else ""
            lines.append(
                Content.assemble(
                    ("⚠ degraded", "bold $warning"),
                    (f" — recalled by words, not meaning{why}", "$warning"),
                )
            )
        verdict = getattr(res, "fastpath_verdict", "disabled")
        if verdict != "disabled":
            answered = res.how in ("fastpath", "fastpath-cue")
            lines.append(
                Content.assemble(
                    ("tier ", "$foreground-muted"),
                    (
                        "fastpath answered, no model asked"
                        if answered
                        else "fastpath was not sure; "
                        + ("the thinker answered" if res.how == "meaning" else "words answered"),
                        "bold $success" if answered else "$foreground-muted",
                    ),
                    (
                        f"  {getattr(res, 'fastpath_ms', 0.0):.2f} ms" if self.live else "",
                        "$foreground-muted",
                    ),
                )
            )
        if getattr(res, "weak", ""):
            lines.append(
                Content.assemble(
                    ("⚠ weak thinker", "bold $warning"), (f" — {res.weak}", "$warning")
                )
            )
        how_style = "bold $warning" if res.degraded or getattr(res, "weak", "") else "bold $success"
        lines.append(
            Content.assemble(
                ("how ", "$foreground-muted"),
                (res.how, how_style),
                ("  picked ", "$foreground-muted"),
                (", ".join(res.picked) or "—", "bold"),
                ("  walked ", "$foreground-muted"),
                (str(len(res.walked)), "bold"),
                (
                    f"  ~{n(res.tokens_est)} tokens"
                    + (f" · {res.elapsed_ms:.0f} ms" if self.live else ""),
                    "$foreground-muted",
                ),
            )
        )
        if getattr(res, "dropped", ()):
            lines.append(
                Content.styled(
                    f"dropped (not in the store): {', '.join(res.dropped)}", "$foreground-muted"
                )
            )
        skipped = list(getattr(res, "skipped", ()) or ())
        for slug, why in skipped[:SKIPS_SHOWN]:
            lines.append(
                Content.assemble(
                    ("⚠ skipped ", "bold $warning"),
                    (slug, "bold $warning"),
                    (f" — could not be read: {why}", "$warning"),
                )
            )
        if len(skipped) > SKIPS_SHOWN:
            more = len(skipped) - SKIPS_SHOWN
            lines.append(
                Content.styled(
                    f"⚠ {more} more skipped: each is marked ⚠ in the list (enter says why)",
                    "$warning",
                )
            )
        self.query_one("#recall-status", Static).update(Content("\n").join(lines))
        self.walked = list(res.walked)
        picked = set(res.picked)
        self.results = [(slug, "picked" if slug in picked else "walked") for slug in res.walked]
        self.results += [(slug, "skipped") for slug, _ in skipped]
        self.refilter(fresh=True)
        ctx = res.context.strip() if res.context else ""
        self.query_one("#recall-context", Static).update(
            Content(ctx) if ctx else Content.styled("no context", "$foreground-muted")
        )

    # ---- the result list, and find in it ---------------------------------------
    def refilter(self, fresh: bool = False) -> None:
        ol = self.query_one(WalkedList)
        keep = None
        if not fresh and ol.highlighted is not None:
            keep = ol.get_option_at_index(ol.highlighted).id
        query = self.find_query
        hays = [haystack(slug, kind) for slug, kind in self.results] if query else []
        rows = filtered(self.results, hays, query) if query else self.results
        marks = {
            "picked": (("●", "bold $success"), ""),
            "walked": (("↳", "$foreground-muted"), ""),
            "skipped": (("⚠", "bold $warning"), "$warning"),
        }
        opts = []
        for slug, kind in rows:  # opened, a skipped one's viewer says why it cannot be read
            mark, style = marks[kind]
            key = "s-" if kind == "skipped" else "w-"
            opts.append(Option(Content.assemble(mark, " ", (slug, style)), id=f"{key}{slug}"))
        if not opts and self.results:
            opts.append(
                Option(
                    Content.styled(f"no result matches “{query}”", "$foreground-muted"),
                    disabled=True,
                )
            )
        elif not opts and fresh:
            opts.append(
                Option(Content.styled("nothing bears on that", "$foreground-muted"), disabled=True)
            )
        ol.clear_options()
        ol.add_options(opts)
        ids = [o.id for o in opts]
        if rows:
            ol.highlighted = ids.index(keep) if keep in ids else 0
        self.find_bar.count(len(rows), len(self.results))

    def find_list(self) -> WalkedList:
        return self.query_one(WalkedList)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option_id and event.option_id[:2] in ("w-", "s-"):
            self.post_message(self.OpenMemory(event.option_id[2:]))
