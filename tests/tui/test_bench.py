"""The app's own benchmark runs and reports what it says it does (no timing is asserted:
speed is measured by `kura bench perf`, not by a test)."""

from __future__ import annotations


def test_pane_timings_reports_every_pane(tmp_path):
    from kura_tui.app import PARTS
    from kura_tui.bench import PANES, first_paint_ms, pane_timings

    rep = pane_timings(tmp_path / "ws", 60, 6, rounds=1)
    assert rep["memories"] == 60 and rep["drafts"] == 6
    assert set(rep["filled_ms"]) == set(PARTS)
    assert set(rep["switch_ms"]) == set(rep["settled_ms"]) == {pane for _, pane in PANES}
    assert rep["all_filled_ms"] == max(rep["filled_ms"].values()) >= rep["first_paint_ms"] > 0
    assert all(rep["settled_ms"][p] >= rep["switch_ms"][p] >= 0 for p in rep["switch_ms"])
    assert rep["switch_max_ms"] == max(rep["switch_ms"].values())
    assert isinstance(first_paint_ms(tmp_path / "ws2", 20, 2), float)
