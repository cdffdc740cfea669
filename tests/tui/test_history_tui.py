"""The history screen: changes with who and what, the diff of the one under the cursor, `u`
to undo after asking; the drafts pane marks the other machine's text after a sync."""

from __future__ import annotations

import pytest

from kura_core import history
from kura_core.distill.drafts import Draft, save_draft
from kura_core.history import Change
from kura_tui.screens.confirm import ConfirmScreen
from kura_tui.screens.history import HistoryScreen
from kura_tui.screens.main import MainScreen
from tests.tui.conftest import run, screen_text, settle


def _store(app, name="maker"):
    return app.kura.registry.store(name)


def test_h_shows_history_and_u_undoes_the_change_after_asking(make_app):
    app = make_app()
    st = _store(app)
    history.enable(st)
    st.write("shed-key", title="Shed key", description="behind the blue door", body="Blue door.")

    async def script(pilot):
        await pilot.press("h")
        await settle(pilot)
        assert isinstance(app.screen, HistoryScreen)
        text = screen_text(app)
        assert "write" in text and "+- [Shed key](shed-key.md)" in text, text
        await pilot.press("u")
        assert isinstance(app.screen, ConfirmScreen)
        assert st.memory_path("shed-key").exists()  # nothing before the answer
        await pilot.press("y")
        await settle(pilot)
        assert isinstance(app.screen, HistoryScreen)
        top = app.screen.changes[0]
        refused_before = st.index_text()
        await pilot.press("down", "u", "y")  # the write again: its memory is gone now
        await settle(pilot)
        return top, refused_before, [n.message for n in app._notifications]

    top, before, notes = run(app, script)
    assert top.what == "undo" and top.slugs == ("shed-key",)
    assert not st.memory_path("shed-key").exists()
    assert st.index_text() == before
    assert any("undone" in n for n in notes)
    assert any("cannot undo" in n and "Nothing was changed" in n for n in notes)


def test_a_store_without_history_says_how_to_start_it(make_app):
    app = make_app()

    async def script(pilot):
        await pilot.press("h")
        await settle(pilot)
        text = screen_text(app)
        await pilot.press("escape")
        return text, app.screen

    text, screen = run(app, script)
    assert "history --enable" in text
    assert isinstance(screen, MainScreen)


def test_the_drafts_pane_marks_the_other_machine_s_text(make_app):
    app = make_app()
    st = _store(app)
    slug = st.file_slugs()[0]
    save_draft(
        st,
        Draft(
            slug=slug,
            title="The other machine's text",
            description="as written on the laptop",
            body="Written on the laptop.",
            decision="extends",
            target=slug,
            source="sync",
            gate={"verdict": "sync conflict", "reasons": ["changed on both machines"]},
        ),
    )

    async def script(pilot):
        await pilot.press("2")
        await settle(pilot)
        while app.main.drafts.selected is not None and app.main.drafts.selected.source != "sync":
            await pilot.press("down")
        await settle(pilot)
        return screen_text(app)

    text = run(app, script)
    assert "⇄" in text and "sync conflict" in text


CHANGES = [
    Change(
        rev="4f1c0a9e2b7d4c1f8a3e6b5d0c9f7a2e1b4d6c8a",
        when="2026-11-20T21:40:00+00:00",
        what="hand edit",
        who=history.HAND,
        slugs=("kiln-firing-schedule",),
    ),
    Change(
        rev="9a2b4c6d8e0f1a3b5c7d9e1f3a5b7c9d1e3f5a7b",
        when="2026-11-20T18:05:00+00:00",
        what="pour",
        who="drain judge",
        slugs=("descale-kettle-every-90-days",),
        ref="drafts/descale-kettle-every-90-days.md",
    ),
    Change(
        rev="1b3d5f7a9c1e3a5c7e9b1d3f5a7c9e1b3d5f7a9c",
        when="2026-11-19T09:12:00+00:00",
        what="remember",
        who="agent (mcp)",
        slugs=("router-in-hall-cupboard",),
    ),
]

DIFF = """commit 4f1c0a9e2b7d4c1f8a3e6b5d0c9f7a2e1b4d6c8a

diff --git a/kiln-firing-schedule.md b/kiln-firing-schedule.md
index 3d6db21..bc0af8b 100644
--- a/kiln-firing-schedule.md
+++ b/kiln-firing-schedule.md
@@ -6,3 +6,4 @@ metadata:
 ---

 Bisque to cone 04, glaze to cone 6.
-Hold for ten minutes at peak.
+Hold for fifteen minutes at peak, then cool slowly.
"""


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
def test_snapshot_history(snap_compare, make_app, size):
    async def run_before(pilot):
        await settle(pilot)
        pilot.app.push_screen(
            HistoryScreen("maker", lambda: CHANGES, lambda rev: DIFF, lambda rev: None)
        )
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=size, run_before=run_before)
