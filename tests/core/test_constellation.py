"""The resident block over the ceiling (the constellation) and after the map (the hot trail)."""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path

import pytest

from kura_core.bench.stores import generate_store
from kura_core.config import parse_config
from kura_core.errors import ConfigError
from kura_core.handwork.maps import build_trail
from kura_core.prefill import CLOSE, build_prefill
from kura_core.registry import Registry
from kura_core.resident import TRAIL_CLOSE, sectors_of
from kura_core.store import parse_index

TODAY = dt.date(2026, 11, 2)
_SECTOR_LINE = re.compile(r"^- (?P<name>.+) — (?P<n>\d+) memor(?:y|ies): (?P<ex>.*)$")


def registry(root: Path, **prefill) -> Registry:
    raw = {"stores": {"main": {"path": str(root)}}, "prefill": {"window_tokens": 2000, **prefill}}
    return Registry(parse_config(raw, source=None), env={}, today=lambda: TODAY)


@pytest.fixture(scope="module")
def big(tmp_path_factory) -> Path:
    return generate_store(tmp_path_factory.mktemp("s") / "main", 600, today=TODAY)


def _sector_lines(text: str) -> list[re.Match[str]]:
    return [m for m in map(_SECTOR_LINE.match, text.split("\n")) if m]


def test_auto_over_the_ceiling_gives_the_constellation(big):
    reg = registry(big, window_tokens=20_000)  # ceiling 4,000 tokens; the map is ~40,000
    p = build_prefill(reg, "main")
    assert p.over_ceiling and p.source == "constellation" and p.constellation_shown
    assert not p.map_shown and "](" not in p.text
    rows = _sector_lines(p.text)
    assert [r["name"] for r in rows] == ["Sector 1", "Sector 2", "Sector 3"]
    assert sum(int(r["n"]) for r in rows) == 600  # the counts add up to the store
    assert all(1 <= len(r["ex"].split("; ")) <= 3 for r in rows)
    assert "nothing is remembered" in p.text
    assert p.text.startswith("<<<KURA-MAP store=main>>>") and p.text.endswith(CLOSE)
    j = p.to_json()
    assert j["source"] == "constellation" and j["constellation_shown"] is True
    assert "constellation" in j["warning"]
    reg.close()


def test_full_mode_over_the_ceiling_is_the_stub(big):
    reg = registry(big, window_tokens=20_000, resident_mode="full")
    p = build_prefill(reg, "main")
    assert not p.constellation_shown and not p.map_shown and "missing" in p.text
    assert not _sector_lines(p.text)
    reg.close()


def test_a_constellation_over_the_ceiling_too_is_the_stub_never_a_cut(big):
    reg = registry(big, window_tokens=500)  # ceiling 100 tokens: not even the sectors fit
    p = build_prefill(reg, "main")
    assert not p.constellation_shown and "missing" in p.text and not _sector_lines(p.text)
    assert "constellation" in p.warning
    reg.close()


def test_constellation_mode_shows_sectors_under_the_ceiling_too(tmp_path):
    root = generate_store(tmp_path / "main", 30, today=TODAY)
    reg = registry(root, window_tokens=2_000_000, resident_mode="constellation")
    p = build_prefill(reg, "main")
    assert p.constellation_shown and not p.over_ceiling
    assert [int(r["n"]) for r in _sector_lines(p.text)] == [30]
    reg.close()


def test_a_store_without_headings_gets_sectors_by_type(tmp_path):
    root = generate_store(tmp_path / "main", 80, today=TODAY)
    index = root / "MEMORY.md"
    index.write_text(
        "".join(l + "\n" for l in index.read_text().split("\n") if l and not l.startswith("## "))
    )
    reg = registry(root, window_tokens=2_000_000, resident_mode="constellation")
    rows = {r["name"]: int(r["n"]) for r in _sector_lines(build_prefill(reg, "main").text)}
    assert rows == {"feedback": 2, "project": 78}  # every 40th memory is feedback
    reg.close()


def test_each_memory_is_counted_once_in_the_first_sector_that_names_it():
    idx = parse_index(
        "# s\n- [Loose](loose.md) — l\n## A\n- [One](one.md) — 1\n"
        "- pair — [One again](one.md) / [Two](two.md)\n## B\n- [Two](two.md) — 2\n"
    )
    got = [(s.name, s.count, s.examples) for s in sectors_of(idx)]
    assert got == [("unsorted", 1, ("Loose",)), ("A", 2, ("One", "Two"))]


def test_an_unknown_resident_mode_is_a_load_error_naming_it(tmp_path):
    with pytest.raises(ConfigError, match=r"prefill\.resident_mode.*'sky'"):
        registry(tmp_path, resident_mode="sky")


# --------------------------------------------------------------------------- the hot trail


def _dated_store(root: Path) -> Path:
    generate_store(root, 40, today=TODAY)
    return root


def test_the_trail_follows_the_map_without_changing_its_bytes(tmp_path):
    root = _dated_store(tmp_path / "main")
    reg = registry(root, window_tokens=2_000_000, trail_tokens=120)
    before = build_prefill(reg, "main")
    assert not before.trail_shown  # nothing built yet
    res = build_trail(reg, "main")
    assert res.changed and res.lines
    after = build_prefill(reg, "main")
    assert after.trail_shown and after.text.startswith(before.text + "\n\n<<<KURA-TRAIL")
    assert after.text.endswith(TRAIL_CLOSE)
    trail = after.text[len(before.text) :]
    index_lines = set((root / "MEMORY.md").read_text().split("\n"))
    shown = [l for l in trail.split("\n") if l.startswith("- [")]
    assert shown == list(res.lines) and all(l in index_lines for l in shown)
    # newest first, by the date written inside each memory
    created = {
        p.stem: re.search(r"created: (\S+)", p.read_text())[1]  # type: ignore[index]
        for p in root.glob("*.md")
        if p.name != "MEMORY.md"
    }
    dates = [created[re.search(r"\(([^)]+)\.md\)", l)[1]] for l in shown]  # type: ignore[index]
    assert dates == sorted(dates, reverse=True)
    assert sum(len(l) for l in shown) // 4 <= 120  # within the budget, roughly
    assert json.loads(json.dumps(after.to_json()))["trail_shown"] is True
    reg.close()


def test_a_stale_trail_is_left_out(tmp_path):
    root = _dated_store(tmp_path / "main")
    reg = registry(root, window_tokens=2_000_000)
    build_trail(reg, "main")
    assert build_prefill(reg, "main").trail_shown
    with (root / "MEMORY.md").open("a") as f:
        f.write("- a line written by hand\n")
    p = build_prefill(reg, "main")
    assert not p.trail_shown and "KURA-TRAIL" not in p.text
    reg.close()


def test_kura_trail_exits_2_when_nothing_changed(tmp_path, capsys):
    from kura_core.faces.cli import main

    root = _dated_store(tmp_path / "main")
    cfg = tmp_path / "kura.toml"
    cfg.write_text(f'[stores.main]\npath = "{root}"\n[prefill]\ntrail_tokens = 80\n')
    assert main(["-c", str(cfg), "trail", "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["changed"] is True and first["lines"]
    assert main(["-c", str(cfg), "trail"]) == 2
    assert capsys.readouterr().out.split("\n")[0] == first["lines"][0]
