"""The recall console names every memory recall picked or walked to but could not read."""

from __future__ import annotations

import os
import time

from kura_tui.screens.memory import MemoryScreen
from tests.tui.conftest import run, screen_text, settle
from tests.tui.test_curation import with_model

KILN = "kiln-firmware-3-2"


def unreadable(app, slug: str = KILN) -> bytes:
    """Make a memory file not UTF-8 (as a broken editor would leave it), settled an hour ago."""
    p = app.kura.registry.store("maker").root / f"{slug}.md"
    raw = p.read_bytes().replace(b"description:", b"description: \xff\xfe", 1)
    p.write_bytes(raw)
    long_ago = time.time() - 3600
    os.utime(p, (long_ago, long_ago))
    return raw


def test_a_picked_memory_that_cannot_be_read_is_named_with_why(make_app, tui_config, model):
    with_model(tui_config, model.url)
    model.script("kura_pick", {"slugs": [KILN, "archive-on-slow-disk"]})
    app = make_app()
    raw = unreadable(app)

    async def script(pilot):
        from textual.widgets import Static

        await pilot.press("4", *"which firmware is on the kiln", "enter")
        await settle(pilot)
        status = str(app.main.recall.query_one("#recall-status", Static).content)
        listed = screen_text(app)
        app.main.recall.query_one("#recall-walked").focus()
        await pilot.press(
            "end", "enter"
        )  # the skipped one is last in the list: it opens and says why
        await settle(pilot)
        return (
            status,
            listed,
            isinstance(app.screen, MemoryScreen) and app.screen.slug,
            screen_text(app),
        )

    status, listed, opened, memory = run(app, script)
    assert "how meaning" in status and f"picked {KILN}, archive-on-slow-disk" in status
    assert f"⚠ skipped {KILN} — could not be read: {KILN}.md is not UTF-8 text" in status
    assert "● archive-on-slow-disk" in listed and f"⚠ {KILN}" in listed
    assert opened == KILN and "not UTF-8 text" in memory
    # recall reads; it never rewrites what it could not read
    assert (app.kura.registry.store("maker").root / f"{KILN}.md").read_bytes() == raw


def test_many_skips_are_counted_and_every_one_is_in_the_list(make_app, tui_config, model):
    slugs = [
        KILN,
        "archive-on-slow-disk",
        "disk-layout",
        "laser-cutter-air-assist",
        "prefers-short-answers",
    ]
    with_model(tui_config, model.url)
    tui_config.write_text(tui_config.read_text() + "\n[recall]\ntop = 5\n")
    model.script("kura_pick", {"slugs": slugs})
    app = make_app()
    for slug in slugs[:4]:
        unreadable(app, slug)

    async def script(pilot):
        from textual.widgets import Static

        await pilot.press("4", *"the workshop", "enter")
        await settle(pilot)
        ol = app.main.recall.query_one("#recall-walked")
        return (
            str(app.main.recall.query_one("#recall-status", Static).content),
            [ol.get_option_at_index(i).id for i in range(ol.option_count)],
        )

    status, ids = run(app, script)
    assert status.count("⚠ skipped ") == 3 and "⚠ 1 more skipped" in status
    assert [i for i in ids if i.startswith("s-")] == [f"s-{s}" for s in slugs[:4]]
    assert "w-prefers-short-answers" in ids
