"""The app shows secrets the doctor found and offers the scrub: X asks first, then every
stored value is replaced by its marker."""

from __future__ import annotations

import random

from kura_tui.screens.confirm import ConfirmScreen
from tests.core.secret_samples import KINDS
from tests.tui.conftest import run, screen_text, settle, until

TOKEN = KINDS[3].make(random.Random(77))


def test_doctor_pane_offers_the_scrub_and_x_scrubs_after_asking(make_app, tmp_path):
    app = make_app()
    store = app.kura.registry.store("maker")
    slug = store.file_slugs()[0]
    path = store.root / f"{slug}.md"
    path.write_text(path.read_text() + f"\nthe token was {TOKEN}\n", encoding="utf-8")
    app.kura.registry.env["XDG_STATE_HOME"] = str(tmp_path / "state")

    async def script(pilot):
        await pilot.press("5")
        app.load_current(("doctor",))
        await settle(pilot)
        shown = screen_text(app)
        await pilot.press("X")
        assert isinstance(app.screen, ConfirmScreen)
        assert TOKEN in path.read_text()  # nothing before the answer
        await pilot.press("y")
        await until(pilot, lambda: TOKEN not in path.read_text(), "the scrub")
        await settle(pilot)
        return shown

    shown = run(app, script)
    assert "secret" in shown and "github-token" in shown and TOKEN not in shown
    assert "[secret:github-token]" in path.read_text()
    assert any((tmp_path / "state" / "kura" / "scrub").iterdir())
