"""Snapshots of the main states at 120×40 and 80×24, from the fixed workspace.

Deterministic: frozen clock and calendar, no animation, no cursor blink, no file
watching, fixed paths. Regenerate with `pytest tests/tui --snapshot-update` and look at
every changed SVG before accepting it.
"""

from __future__ import annotations

import pytest

from tests.tui.conftest import settle

STATES = {
    "map": (),
    "drafts": ("2",),
    "gatelog": ("3",),
    "recall-degraded": ("4", *"backups and the kiln", "enter"),
    "doctor": ("5",),
    "help": ("question_mark",),
    # curation
    "memory": ("down", "down", "down", "enter"),
    "memory-hand-edited": ("down", "down", "down", "down", "enter"),
    "memory-edit": ("down", "down", "down", "e"),
    "evidence": ("2", "o"),
    "drafts-extension": ("2", "down", "down"),
    "find": ("slash", *"decision"),
    "seeds": ("6",),
    "seeds-confirmed": ("6", "f"),
    "tender": ("7",),
    "journals": ("8",),
    "weave-preview": ("w",),
    "retire": ("down", "x", *"moved to the NAS", "enter"),
}

SIZES = {"120x40": (120, 40), "80x24": (80, 24)}


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("state", list(STATES))
def test_snapshot(snap_compare, make_app, state, size):
    async def run_before(pilot):
        await settle(pilot)
        await pilot.press(*STATES[state])
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=SIZES[size], run_before=run_before)


def test_snapshot_fix_refused(snap_compare, make_app):
    """The fix screen after the floor refused an invented number."""

    async def run_before(pilot):
        await settle(pilot)
        await pilot.press("2", "e", *" It took 45 minutes.", "ctrl+s")
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=(120, 40), run_before=run_before)


@pytest.mark.parametrize("size", list(SIZES))
def test_snapshot_tidy_review_without_a_scribe(snap_compare, make_app, tui_config, size):
    """Tidy's review with no scribe configured: the weak lines, each to be written by hand."""
    from tests.tui.workspace import open_kura

    with open_kura(tui_config) as k:
        st = k.registry.store("maker")
        st.write(
            "router", title="Router", description="note", body="The router is in the hall cupboard."
        )
        st.write("nas", title="NAS", description="misc info", body="The NAS holds 4 disks of 8TB.")

    async def run_before(pilot):
        await settle(pilot)
        await pilot.press("T")
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=SIZES[size], run_before=run_before)


@pytest.mark.parametrize("size", list(SIZES))
def test_snapshot_profile(snap_compare, make_app, tui_config, model, size):
    """The learned profile: profile.md beside the brain's waiting draft (the app has no model)."""
    from tests.tui.workspace import PROFILE_DRAFT, with_profile

    model.script("kura_profile", {"profile": PROFILE_DRAFT})
    with_profile(tui_config, model.url)

    async def run_before(pilot):
        await settle(pilot)
        await pilot.press("P")
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=SIZES[size], run_before=run_before)


@pytest.mark.parametrize("size", list(SIZES))
def test_snapshot_recall_skipped(snap_compare, make_app, size):
    """A recall (by words: no model) that could not read one memory it found, and says so."""
    from tests.tui.test_recall_skipped import unreadable

    app = make_app()
    unreadable(app)

    async def run_before(pilot):
        await settle(pilot)
        await pilot.press("4", *"kiln firmware", "enter")
        await settle(pilot)

    assert snap_compare(app, terminal_size=SIZES[size], run_before=run_before)
