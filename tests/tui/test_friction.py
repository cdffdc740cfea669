"""The curation app's smaller friction: find in every list, per pane and per store; an
extension's diff full width; columns that hold with emoji; a gate-log selection that stays
put as entries arrive; toasts that do not pile up."""

from __future__ import annotations

import os
from types import SimpleNamespace

import pytest
from hypothesis import given, settings, strategies as st
from rich.cells import cell_len
from textual.widgets._toast import Toast

from kura_tui.screens.diff import DiffScreen
from kura_tui.screens.evidence import EvidenceScreen
from kura_tui.screens.main import MainScreen
from kura_tui.screens.notes import NotesScreen
from kura_tui.widgets.fmt import _whole, clip, fit, home_folded, one_line
from kura_tui.widgets.gatelog import AGE_W, gate_row
from tests.tui.conftest import run, screen_text, settle
from tests.tui.workspace import FIXED_NOW

KILN = "kiln-firmware-3-2"

# --------------------------------------------------------------------------- find


@pytest.mark.slow
def test_every_list_pane_finds_as_you_type_and_one_pane_never_filters_another(make_app):
    app = make_app()

    async def script(pilot):
        m = app.main
        out = {}
        await pilot.press("slash", *"kiln", "enter")
        out["map"] = list(m.map.slugs)
        out["map bar"] = screen_text(app)
        panes = (
            ("6", "seeds", "jig dovetails", lambda: [s.title for s in m.seeds.shown]),
            ("7", "tender", "drain", lambda: list(m.tender.query_one("#tender-log").rows)),
            ("8", "journals", "kitchen", lambda: [j.path for j in m.journals.shown]),
        )
        for key, name, query, rows in panes:
            await pilot.press(key)
            await settle(pilot)
            before = rows()
            await pilot.press("slash", *query)
            await pilot.pause()
            out[name] = (before, rows(), screen_text(app))
            await pilot.press("enter")
        await pilot.press("4", *"kiln firmware disk", "enter")
        await settle(pilot)
        await pilot.press("escape")  # from the question to the results
        walked = [slug for slug, _ in m.recall.results]
        await pilot.press("slash", *"disk")
        await pilot.pause()
        out["recall"] = (walked, [s for s, _ in m.recall.results], m.recall.find_query)
        listed = m.recall.query_one("#recall-walked")
        out["recall shown"] = [listed.get_option_at_index(i).id for i in range(listed.option_count)]
        await pilot.press("escape", "s", "slash", *"hom")
        await pilot.pause()
        out["stores"] = list(m.stores.names)
        await pilot.press("escape")
        await pilot.pause()
        out["stores after"] = list(m.stores.names)
        await pilot.press("1")
        out["map again"] = list(m.map.slugs)
        await pilot.press("2")
        out["drafts"] = (len(m.drafts.drafts), len(m.drafts.all))
        return out

    out = run(app, script)
    assert out["map"] == [KILN] and "1 of 5" in out["map bar"]
    before, after, shown = out["seeds"]
    assert after == ["A jig for repeatable dovetails"] and "1 of 1" in shown
    before, after, shown = out["tender"]
    assert after and all("drain" in line for line in after) and len(after) < len(before)
    assert f"{len(after)} of {len(before)}" in shown
    before, after, shown = out["journals"]  # the maker store drinks no kitchen journal
    assert before and after == [] and "no journal file matches “kitchen”" in shown
    walked, results, query = out["recall"]
    assert query == "disk" and set(results) == set(walked)  # results kept, only the list filtered
    assert out["recall shown"] and all("disk" in i for i in out["recall shown"])
    assert len(out["recall shown"]) < len(walked)
    assert out["stores"] == ["home"] and out["stores after"] == ["maker", "home"]
    # each pane kept its own filter; the drafts pane was never filtered by any of them
    assert out["map again"] == [KILN]
    assert out["drafts"][0] == out["drafts"][1] > 0


def test_each_store_keeps_its_own_query_in_each_pane(make_app):
    app = make_app()

    async def script(pilot):
        m = app.main
        seen = []

        async def look(label):
            await settle(pilot)
            seen.append(
                (label, app.current_store, m.map.find_query, list(m.map.slugs), screen_text(app))
            )

        await pilot.press("slash", *"kiln", "enter")
        await look("maker, typed")
        await pilot.press("right_square_bracket")
        await look("home, nothing typed there")
        await pilot.press("slash", *"rice", "enter")
        await look("home, typed")
        await pilot.press("left_square_bracket")
        await look("maker again")
        await pilot.press("right_square_bracket")
        await look("home again")
        await pilot.press("escape")  # the list has the focus: escape clears nothing there
        await pilot.press("slash", "escape")  # the bar's escape clears home's query
        await look("home cleared")
        await pilot.press("left_square_bracket")
        await look("maker kept")
        return seen

    seen = run(app, script)
    by = {label: rest for label, *rest in seen}
    store, query, slugs, screen = by["maker, typed"]
    assert (store, query, slugs) == ("maker", "kiln", [KILN])
    store, query, slugs, screen = by["home, nothing typed there"]
    assert store == "home" and query == "" and len(slugs) > 1 and "find /" not in screen
    store, query, slugs, screen = by["home, typed"]
    assert query == "rice" and slugs == ["rice-cooker-water-line"]
    store, query, slugs, screen = by["maker again"]
    assert (store, query, slugs) == ("maker", "kiln", [KILN])
    assert "find /" in screen and "kiln" in screen and "1 of 5" in screen
    store, query, slugs, screen = by["home again"]
    assert (store, query, slugs) == ("home", "rice", ["rice-cooker-water-line"])
    store, query, slugs, screen = by["home cleared"]
    assert query == "" and len(slugs) > 1
    store, query, slugs, screen = by["maker kept"]
    assert (store, query, slugs) == ("maker", "kiln", [KILN])


# --------------------------------------------------------------------------- the diff


def test_an_extension_diff_opens_full_width_scrolls_and_escape_keeps_the_selection(make_app):
    app = make_app()

    async def script(pilot):
        m = app.main
        await pilot.press("2")
        slugs = [d.slug for d in m.drafts.drafts]
        m.drafts.query_one("#draft-queue").move_to(slugs.index("disk-layout-ext"))
        await pilot.pause()
        await pilot.press("v")
        await settle(pilot)
        screen = app.screen
        scroll = screen.query_one("#diff-scroll")
        opened = (
            isinstance(screen, DiffScreen),
            scroll.size.width,
            screen_text(app),
            scroll.max_scroll_y,
        )
        await pilot.press("space")
        await pilot.pause()
        scrolled = scroll.scroll_y
        await pilot.press("escape")
        await settle(pilot)
        back = (
            isinstance(app.screen, MainScreen),
            m.drafts.selected.slug,
            app.focused is m.drafts.query_one("#draft-queue"),
        )
        # from the evidence screen: v opens the same view, escape returns to the evidence
        await pilot.press("o")
        await settle(pilot)
        await pilot.press("v")
        await settle(pilot)
        from_evidence = isinstance(app.screen, DiffScreen)
        await pilot.press("escape")
        await settle(pilot)
        evidence_again = isinstance(app.screen, EvidenceScreen)
        await pilot.press("escape")
        await settle(pilot)
        # a new memory's draft has no diff: v says so and opens nothing
        m.drafts.query_one("#draft-queue").move_to(0)
        new = m.drafts.selected
        await pilot.press("v")
        await settle(pilot)
        return opened, scrolled, back, from_evidence, evidence_again, new, app.screen

    opened, scrolled, back, from_evidence, evidence_again, new, last = run(
        app, script, size=(100, 10)
    )
    is_diff, width, text, max_scroll = opened
    assert is_diff and width >= 90  # the whole terminal, not the card's column
    assert "Changes to disk-layout: +2 −0" in text
    assert max_scroll > 0 and scrolled > 0
    assert back == (True, "disk-layout-ext", True)
    assert from_evidence and evidence_again
    assert new.decision != "extends"
    assert isinstance(last, MainScreen)
    assert any(f"{new.slug} is a new memory, not an extension" in n for n in app.notes_seen)


# --------------------------------------------------------------------------- columns

#: pieces that are not one cell each: an emoji with its variation selector, a wide emoji, a
#: flag, ZWJ sequences, CJK, combining marks, and plain letters between them
PIECES = [
    "⚠️",
    "🔥",
    "🇯🇵",
    "🇫🇷",
    "👩‍👩‍👧",
    "🧑‍🔬",
    "炊",
    "飯",
    "器",
    "ｶ",
    "é",
    "e\u0301",
    "a\u0308\u0301",
    "a",
    "Z",
    " ",
    "-",
    "…",
]
texts = st.lists(st.sampled_from(PIECES), max_size=24).map("".join)


@settings(max_examples=80, deadline=None)
@given(text=texts, width=st.integers(min_value=0, max_value=30))
def test_fit_makes_exactly_the_width_and_never_cuts_inside_a_character(text, width):
    out = fit(text, width)
    assert cell_len(out) == width
    cut = clip(one_line(text), width)
    assert out.rstrip(" ") == cut.rstrip(" ") or out.startswith(cut)
    if width and cut != one_line(text):  # cut: what is kept is a whole-grapheme prefix, then …
        assert cut.endswith("…")
        kept = cut[:-1]
        assert one_line(text).startswith(kept)
        assert len(kept) in {0} | {stop for _, stop, _ in _whole(one_line(text))}


@settings(max_examples=80, deadline=None)
@given(
    title=texts,
    reason=texts,
    kind=st.sampled_from(["poured", "dropped", "edited", "seed-dismissed"]),
    kind_w=st.integers(min_value=4, max_value=16),
    what_w=st.sampled_from([18, 28]),
)
def test_every_gate_log_row_puts_why_at_the_same_column(title, reason, kind, kind_w, what_w):
    entry = SimpleNamespace(id=1, at=FIXED_NOW - 90, kind=kind, title=title, slug="", reason="")
    row = gate_row(entry, FIXED_NOW, kind_w, what_w)
    assert row.cell_length == AGE_W + 1 + kind_w + 1 + what_w + 1
    entry.reason = reason
    assert gate_row(entry, FIXED_NOW, kind_w, what_w).cell_length == row.cell_length + cell_len(
        one_line(reason)
    )


def test_rows_with_emoji_line_up_on_screen(make_app):
    app = make_app()
    ws = app.kura.registry.workshop("maker")
    titles = [
        "⚠️ never point backups at /scratch",
        "🔥 kiln over temperature 🔥🔥",
        "🇯🇵 rice 炊飯器の水加減 and more",
        "👩‍👩‍👧 family calendar",
        "Café crème (e\u0301) réglage",
        "plain title",
    ]
    for i, title in enumerate(titles):
        ws.log_gate("edited", title=title, reason=f"why-{i}", at=FIXED_NOW - 60 - i)

    async def script(pilot):
        await pilot.press("3")
        await settle(pilot)
        return screen_text(app)

    lines = run(app, script).splitlines()
    columns = set()
    for i in range(len(titles)):
        (line,) = [ln for ln in lines if f"why-{i}" in ln and "edited" in ln]
        columns.add(cell_len(line[: line.index(f"why-{i}")]))
    assert len(columns) == 1, columns


# --------------------------------------------------------------------------- the gate log


def _more(app, n, at, prefix):
    ws = app.kura.registry.workshop("maker")
    for i in range(n):
        ws.log_gate("dropped", title=f"{prefix} {i}", reason="test entry", at=at + i)


def test_the_selected_gate_log_row_stays_on_its_entry_and_its_line_as_entries_arrive(make_app):
    app = make_app()
    _more(app, 60, FIXED_NOW - 90_000, "older")

    async def script(pilot):
        t = app.main.gatelog.query_one("#gate-table")
        await pilot.press("3")
        await settle(pilot)
        for _ in range(30):
            await pilot.press("down")
        for _ in range(5):  # back up: the row sits mid-view, with rows below it on screen
            await pilot.press("up")
        await pilot.pause()
        picked = t.current
        line = t.cursor - t.scroll_offset.y
        where = (
            screen_text(app)
            .splitlines()
            .index(next(ln for ln in screen_text(app).splitlines() if picked.title in ln))
        )
        _more(app, 4, FIXED_NOW + 10, "newer")  # above it
        _more(app, 3, FIXED_NOW - 200_000, "oldest")  # below it
        app.load_current(("gatelog",))
        await settle(pilot)
        after = (t.current.id, t.cursor - t.scroll_offset.y, t.cursor)
        lines = screen_text(app).splitlines()
        where_after = lines.index(next(ln for ln in lines if picked.title in ln))
        # on the newest entry, the person follows the log
        await pilot.press("home")
        await pilot.pause()
        _more(app, 2, FIXED_NOW + 100, "newest")
        app.load_current(("gatelog",))
        await settle(pilot)
        following = (t.cursor, t.current.title, t.scroll_offset.y)
        return picked, line, where, after, where_after, following

    picked, line, where, after, where_after, following = run(app, script)
    assert after[0] == picked.id and after[1] == line and where_after == where
    assert after[2] == 25 + 4
    assert following == (0, "newest 1", 0)


# --------------------------------------------------------------------------- toasts


LONG_NOTE = (
    "the map could not be written because "
    + "another process held the lock " * 8
    + "and its last words are here"
)


def test_toasts_collapse_stay_few_and_short_and_what_matters_stays_in_sight(make_app):
    app = make_app()

    async def script(pilot):
        out = {}
        for _ in range(4):
            await pilot.press("S")  # nothing runs: the same note four times
        await pilot.pause()
        out["same"] = [
            (t._notification.title, t._notification.message) for t in app.screen.query(Toast)
        ]
        for i in range(6):
            app.notify(f"note {i}", timeout=60)
        app.notify("the scribe refused the line", title="tidy", severity="error", timeout=60)
        await pilot.pause()
        out["many"] = len(app.screen.query(Toast))
        out["timeouts"] = [n.timeout for n in app._notifications]
        app.clear_notifications()
        await pilot.pause()
        out["bar"] = screen_text(app)
        app.notify(LONG_NOTE, title="weave", timeout=60)  # the newest: selected in the log
        for _ in range(3):  # the toasts (a waiting one shows once others leave) would show
            app.clear_notifications()  # it whole; the log must, on its own
            await pilot.pause()
        await pilot.press("m")
        await settle(pilot)
        out["log"] = (isinstance(app.screen, NotesScreen), screen_text(app))
        await pilot.press("escape")
        return out

    out = run(app, script)
    assert out["same"] == [("×4", "nothing is running")]
    assert out["many"] == 3
    assert out["timeouts"] and max(out["timeouts"]) <= 8
    assert app.notes_seen.count("nothing is running") == 4 and "note 5" in app.notes_seen
    assert "✗ tidy: the scribe refused the line" in out["bar"]  # the toast is gone; this stays
    is_log, log = out["log"]
    assert is_log and "nothing is running" in log and "×4" in log
    assert log.index("the scribe refused the line") < log.index("note 0")  # newest first
    assert all(f"note {i}" in log for i in range(6))
    assert "its last words are here" in log  # a row shows one line; the selected one is whole


@settings(max_examples=60, deadline=None)
@given(
    raised=st.lists(
        st.tuples(st.sampled_from(["", "tidy"]), st.sampled_from(["a", "b", "c", "d", "e"])),
        max_size=30,
    )
)
def test_the_rack_keeps_few_toasts_one_per_message_and_counts_repeats(raised):
    from textual.notifications import Notification

    from kura_tui.toasts import TOASTS_SHOWN, Rack

    rack, live, times = Rack(), [], {}
    for title, message in raised:
        times[(title, message)] = times.get((title, message), 0) + 1
        gone, toast = rack.place(live, Notification(message, title, timeout=60))
        live = [n for n in live if n not in gone] + [toast]
        assert len(live) <= TOASTS_SHOWN and toast.message == message
        keys = [rack.said[n.identity][0][:2] for n in live]
        assert len(keys) == len(set(keys))  # one toast per message
        for n in live:  # a count is never more than the times it was raised
            key, count = rack.said[n.identity]
            assert count <= times[key[:2]] and (count == 1) == ("×" not in n.title)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.text("abcxyz-_.", min_size=1, max_size=6), min_size=1, max_size=4),
    st.sampled_from(["", "x", "-old"]),
)
def test_the_home_directory_is_shown_as_a_tilde_and_nothing_else_is(parts, suffix):
    """A path under the home directory reads ``~/…``; a sibling that only starts with the same
    letters (``/home/ren-old``) is left as it is."""
    home = os.path.expanduser("~").rstrip("/")
    rest = "/".join(parts)
    path = f"{home}{suffix}/{rest}"
    shown = home_folded(f"journal {path} 793–1474")
    if suffix:
        assert shown == f"journal {path} 793–1474"
    else:
        assert shown == f"journal ~/{rest} 793–1474" and home not in shown
