"""`kura demo`: the demo workspace opens in the TUI with no model."""

from __future__ import annotations

import datetime as dt

from tests.tui.conftest import run, screen_text, settle


def test_the_demo_workspace_opens_with_every_store_and_its_drafts(tmp_path):
    from kura_core.config import load_config
    from kura_core.demo import build_demo
    from kura_core.kura import Kura
    from kura_core.registry import Registry
    from kura_tui.app import KuraApp

    day = dt.date(2026, 11, 20)
    cfg = build_demo(tmp_path / "demo", today=day)
    kura = Kura(Registry(load_config(cfg, {}), env={}, today=lambda: day))
    app = KuraApp(kura, watch=False, frozen=True)

    async def script(pilot):
        rows = {r.name: r for r in app.main.stores.rows}
        await pilot.press("2")
        await settle(pilot)
        drafts = [d.slug for d in app.main.drafts.drafts]
        await pilot.press("right_square_bracket")
        await settle(pilot)
        return rows, drafts, screen_text(app)

    try:
        rows, drafts, text = run(app, script, size=(80, 24))
    finally:
        kura.close()
    assert set(rows) >= {"maker", "kurashi"}
    assert rows["maker"].memories >= 20 and rows["maker"].drafts_waiting == len(drafts) > 0
    assert "kurashi" in text
