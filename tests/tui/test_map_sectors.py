"""The map pane names the index's `## ` sectors, with how many memories each holds."""

from __future__ import annotations

from kura_core.handwork.maps import map_view
from kura_core.registry import Registry
from kura_tui.widgets.map import MapPane, sector_counts
from tests.core.test_grouped_index import _garden


def test_the_map_pane_names_the_sectors(tmp_path):
    _garden(tmp_path / "garden")
    reg = Registry.for_path(tmp_path / "garden", "garden")
    try:
        view = map_view(reg, "garden")
    finally:
        reg.close()
    by = {ln.slug: ln for ln in view.lines}
    assert by["rain-barrels"].grouped and by["rain-barrels"].sector == "water and tools"
    assert sector_counts(view.lines) == [("", 1), ("water and tools", 3), ("people", 2)]
    state = MapPane._state(view).plain
    assert "sectors unsorted 1 · water and tools 3 · people 2" in state


def test_no_headings_no_sector_line(tmp_path):
    from tests.conftest import make_store

    make_store(tmp_path / "s", "s", {"a": ("A", "a", "a body")})
    reg = Registry.for_path(tmp_path / "s", "s")
    try:
        view = map_view(reg, "s")
    finally:
        reg.close()
    assert sector_counts(view.lines) == [] and "sectors" not in MapPane._state(view).plain
