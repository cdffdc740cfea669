"""The learned profile: the applied ``profile.md`` beside the brain's waiting draft.

What a wide store has come to understand, in sentences, read by every model role right
after the charter. The brain drafts it from the store's own memories (n, in the
background); a person reads the draft beside the profile it would replace and applies it
(a, confirmed). Nothing else changes the profile.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import ProgressBar, Static

from ..host import host
from ..widgets.fmt import ago, n
from ..widgets.keys import KeyLine

#: a word: a run of letters and marks between spaces, or one CJK character (those languages
#: write no spaces, so a character is the unit a reader compares)
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\u3000-\u303f\uff00-\uffef"
_TOKEN = re.compile(rf"[{_CJK}]|[^\s{_CJK}]+|\s+")

NEW_STYLE = "$success"
GONE_STYLE = "$error strike"


def words(text: str) -> list[str]:
    """The words of *text* as :func:`marked` compares them (spaces dropped)."""
    return [t for t in _TOKEN.findall(text) if not t.isspace()]


def marked(text: str, other: str | None, style: str) -> tuple[Content, int]:
    """*text* with each word that the other text does not have at that place in *style*
    (other None: plain), and how many such words there are. Spacing and line breaks are
    kept as written; the comparison is word by word (difflib), so a sentence that changed
    by one word shows that one word."""
    if other is None:
        return Content(text), 0

    tokens = _TOKEN.findall(text)
    mine = [i for i, t in enumerate(tokens) if not t.isspace()]
    matcher = difflib.SequenceMatcher(None, [tokens[i] for i in mine], words(other), autojunk=False)
    changed: set[int] = set()
    for op, a0, a1, _, _ in matcher.get_opcodes():
        if op != "equal":
            changed.update(mine[a0:a1])
    parts: list[Any] = []
    for i, t in enumerate(tokens):
        # a space between two changed words is changed too, so a struck phrase reads as one
        if i in changed or (
            t.isspace() and "\n" not in t and i - 1 in changed and i + 1 in changed
        ):
            parts.append((t, style))
        else:
            parts.append(t)
    return Content.assemble(*parts), len(changed)


class ProfileScreen(Screen[None]):
    DEFAULT_CSS = """
    ProfileScreen > #profile-head { height: auto; padding: 0 1; }
    ProfileScreen > #profile-about { height: auto; padding: 0 1; }
    ProfileScreen > #profile-body { height: 1fr; }
    ProfileScreen .profile-side { width: 1fr; height: 1fr; border: round $primary 40%; }
    ProfileScreen .profile-side:focus-within { border: round $accent; }
    ProfileScreen .profile-meta { height: auto; padding: 0 1; margin-bottom: 1; }
    ProfileScreen .profile-scroll { height: 1fr; padding: 0 1; }
    ProfileScreen > #profile-work { height: 1; padding: 0 1; display: none; }
    ProfileScreen.-busy > #profile-work { display: block; }
    ProfileScreen #profile-work-text { width: 1fr; }
    ProfileScreen #profile-work ProgressBar { width: auto; }
    ProfileScreen #profile-work Bar { width: 24; }
    """

    BINDINGS = [
        Binding(
            "n",
            "draft",
            "New draft",
            tooltip="Ask the brain for a new draft from the store's memories "
            "(in the background; the profile itself does not change)",
            id="profile.draft",
        ),
        Binding(
            "a",
            "apply",
            "Apply…",
            tooltip="Make the waiting draft the store's profile (asks first; the "
            "profile it replaces is kept)",
            id="profile.apply",
        ),
        Binding("escape,q", "close", "Close", id="profile.close"),
    ]

    def __init__(
        self, store: str, clock: Callable[[], float] | None = None, then: str = "", **kw: Any
    ) -> None:
        super().__init__(**kw)
        self.store = store
        self.then = then  # "draft" or "apply": pressed for the person once the profile is read
        self.clock = clock or (lambda: 0.0)
        self.state: Any = None
        self.error = ""  # why the last draft could not be had ('' when it could)
        self.needs = ""  # why a draft cannot be asked for here ('' when it can)
        self.working = ""

    def compose(self) -> ComposeResult:
        yield Static(
            Content.styled(f"reading the profile of {self.store}…", "$foreground-muted"),
            id="profile-head",
        )
        yield Static(
            Content.styled(
                "Every model role reads it right after the charter; it is never in the map. "
                "Nothing changes it but a, confirmed.",
                "$foreground-muted",
            ),
            id="profile-about",
        )
        with Horizontal(id="profile-body"):
            with Vertical(id="profile-current", classes="profile-side") as cur:
                cur.border_title = "current · profile.md"
                yield Static("", id="profile-current-meta", classes="profile-meta")
                with VerticalScroll(id="profile-current-scroll", classes="profile-scroll"):
                    yield Static("", id="profile-current-text")
            with Vertical(id="profile-draft", classes="profile-side") as dr:
                dr.border_title = "draft"
                yield Static("", id="profile-draft-meta", classes="profile-meta")
                with VerticalScroll(id="profile-draft-scroll", classes="profile-scroll"):
                    yield Static("", id="profile-draft-text")
        with Horizontal(id="profile-work"):
            yield Static("", id="profile-work-text")
            yield ProgressBar(total=None, show_eta=False, show_percentage=False)
        yield KeyLine()

    def on_mount(self) -> None:
        self.query_one("#profile-draft-scroll").focus()
        self.reload()

    def reload(self) -> None:
        host(self).load_profile(self.store)

    def set_store(self, store: str) -> None:
        """Follow the app to another store."""
        if store == self.store:
            return
        self.store = store
        self.state = None
        self.error = ""
        self.query_one("#profile-head", Static).update(
            Content.styled(f"reading the profile of {store}…", "$foreground-muted")
        )
        self.reload()

    # ---- what the app tells it ------------------------------------------------
    def show(self, state: Any, needs: str = "") -> None:
        if state.store != self.store:
            return
        self.state = state
        self.needs = needs
        self._paint()
        then, self.then = self.then, ""
        if then:
            self.act(then)

    def act(self, then: str) -> None:
        """Do what the palette asked for once the profile is read: ``draft`` or ``apply``."""
        actions = {"draft": self.action_draft, "apply": self.action_apply}
        actions[then]()

    def show_error(self, store: str, error: str) -> None:
        """The profile could not be read at all, or a draft could not be had."""
        if store != self.store:
            return
        self.error = error
        if self.state is None:
            self.query_one("#profile-head", Static).update(Content.styled(f"✗ {error}", "$error"))
        else:
            self._paint()

    def busy(self, store: str, text: str) -> None:
        if store != self.store:
            return
        self.working = text
        self.error = ""
        self.add_class("-busy")
        self.query_one("#profile-work-text", Static).update(
            Content.assemble(
                ("drafting ", "bold $warning"),
                (text, ""),
                ("  esc closes; the draft waits here when it comes", "$foreground-muted"),
            )
        )
        if self.state is not None:
            self._paint()

    def idle(self) -> None:
        self.working = ""
        self.remove_class("-busy")
        if self.state is not None:
            self._paint()

    # ---- rendering ----------------------------------------------------------
    def _paint(self) -> None:
        s = self.state
        now = self.clock()
        waiting = s.draft_present
        head = [
            Content.assemble(
                ("Learned profile ", "bold"),
                (s.store, "bold $accent"),
                " — ",
                (s.state, "bold $warning" if waiting else "bold"),
            )
        ]
        if s.frozen:
            head.append(
                Content.styled(
                    f"❄ the store {s.store} is frozen: its profile is not changed here", "$warning"
                )
            )
        self.query_one("#profile-head", Static).update(Content("\n").join(head))

        # the profile every role reads now
        cur_meta = self.query_one("#profile-current-meta", Static)
        if s.problem:
            cur_meta.update(Content.styled(f"✗ cannot be read: {s.problem}", "$error"))
            current, gone = Content(""), 0
        elif s.present:
            current, gone = marked(s.text, s.draft_text if waiting else None, GONE_STYLE)
            bits = [f"applied · ~{n(s.tokens_est)} tokens · {n(s.bytes)} bytes"]
            if s.updated_at:
                bits.append(f"written {ago(s.updated_at, now)}")
            line = [(" · ".join(bits), "$foreground-muted")]
            if waiting:
                line.append(
                    (
                        f"\nstruck: {gone} word{'s' if gone != 1 else ''} the draft does not keep"
                        if gone
                        else "\nthe draft keeps every word",
                        "$foreground-muted",
                    )
                )
            cur_meta.update(Content.assemble(*line))
        else:
            current, gone = Content(""), 0
            cur_meta.update(
                Content.styled("none yet: every role reads the charter alone", "$foreground-muted")
            )
        self.query_one("#profile-current-text", Static).update(current)

        # the brain's draft, waiting for a person
        side = self.query_one("#profile-draft", Vertical)
        meta: list[Content] = []
        if waiting:
            side.border_title = "draft · waiting"
            draft, new = marked(s.draft_text, s.text if s.present else None, NEW_STYLE)
            bits = (
                [f"from {n(s.draft_from)} memor{'y' if s.draft_from == 1 else 'ies'}"]
                if s.draft_from
                else []
            )
            if s.draft_at:
                bits.append(f"drafted {ago(s.draft_at, now)}")
            meta.append(Content.styled(" · ".join(bits + ["a applies it"]), "$foreground-muted"))
            if s.present:
                meta.append(
                    Content.styled(
                        f"green: {new} word{'s' if new != 1 else ''} new in the draft"
                        if new
                        else "no word is new: the draft says what the profile says",
                        "$foreground-muted",
                    )
                )
        else:
            side.border_title = "draft"
            draft = Content("")
            if self.needs:
                meta.append(
                    Content.styled(
                        f"no draft waiting, and n cannot ask for one: {self.needs}", "$warning"
                    )
                )
            else:
                meta.append(
                    Content.styled(
                        "no draft waiting: n asks the brain for one, from the store's memories",
                        "$foreground-muted",
                    )
                )
        if self.working:
            meta.append(Content.styled(f"… {self.working}", "$warning"))
        elif self.error:
            meta.append(Content.styled(f"✗ {self.error}", "$error"))
        self.query_one("#profile-draft-meta", Static).update(Content("\n").join(meta))
        self.query_one("#profile-draft-text", Static).update(draft)

    # ---- keys ---------------------------------------------------------------
    def action_draft(self) -> None:
        host(self).draft_profile(self.store, self.state)

    def action_apply(self) -> None:
        if self.state is None:
            self.notify("the profile is still loading", severity="warning")
            return
        host(self).apply_profile(self.store, self.state)

    def action_close(self) -> None:
        self.dismiss(None)
