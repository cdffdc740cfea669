"""The TUI over a store of hand-written and tool-written memories (YAML-ish frontmatter in
English, Japanese and Chinese): the map shows every one, and the memory view opens them."""

from __future__ import annotations

from kura_tui.screens.memory import MemoryScreen
from tests.core.test_faithful import READABLE, cfg_for, yamlish_store
from tests.tui.conftest import run, screen_text, settle


def test_map_and_memory_view_show_yamlish_memories(tmp_path):
    from kura_core.kura import Kura
    from kura_tui.app import KuraApp

    root = yamlish_store(tmp_path)
    kura = Kura.open(cfg_for(tmp_path, root))
    app = KuraApp(kura, watch=False, frozen=True)

    async def script(pilot):
        await pilot.press("1")
        await settle(pilot)
        slugs = list(app.main.map.slugs)
        seen = {}
        for i, slug in enumerate(slugs):
            if slug not in ("router-zh", "build-flags", "never-closed"):
                continue
            await pilot.press("1", "home", *(["down"] * i), "enter")
            await settle(pilot)
            assert isinstance(app.screen, MemoryScreen), slug
            seen[app.screen.slug] = screen_text(app)
            await pilot.press("escape")
            await settle(pilot)
        return slugs, screen_text(app), seen

    try:
        slugs, main_text, seen = run(app, script, size=(140, 45))
    finally:
        kura.close()
    assert sorted(slugs) == sorted(READABLE)
    assert "路由器密码" in main_text and "アーカイブ" in main_text
    assert "在抽屉里的卡片上" in seen["router-zh"]
    assert "PR #42" in seen["build-flags"] and "Use -O2" in seen["build-flags"]
    assert "Descale the kettle" in seen["never-closed"]
