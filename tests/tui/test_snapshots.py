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
    "recall-degraded": ("4", *"kiln firmware", "enter"),
    "doctor": ("5",),
    "help": ("question_mark",),
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
