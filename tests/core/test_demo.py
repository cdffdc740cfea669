"""The demo workspace: real stores, real journals, real gate, no model."""

from __future__ import annotations

import datetime as dt
import tomllib
from pathlib import Path

import pytest

from kura_core.config import load_config
from kura_core.demo import MARKER, build_demo, default_demo_dir, is_demo_workspace
from kura_core.distill.drafts import check_floor, list_drafts, read_manifest
from kura_core.distill.evidence import is_cjk, normalize
from kura_core.distill.journals import read_claude
from kura_core.doctor import diagnose
from kura_core.errors import KuraError
from kura_core.registry import Registry

TODAY = dt.date(2026, 3, 14)


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> Path:
    return build_demo(tmp_path_factory.mktemp("demo") / "ws", today=TODAY)


@pytest.fixture(scope="module")
def reg(demo):
    r = Registry.open(demo, today=lambda: TODAY)
    yield r
    r.close()


def _tree(root: Path) -> dict[str, bytes]:
    """Every file of a workspace except the SQLite workshop, by relative path."""
    out = {}
    for p in sorted(root.rglob("*")):
        if p.is_file() and not p.name.startswith("kura.db"):
            out[p.relative_to(root).as_posix()] = p.read_bytes()
    return out


# --------------------------------------------------------------------------- the workspace


def test_config_wires_three_stores_and_modes_without_models(demo):
    raw = tomllib.loads(demo.read_text(encoding="utf-8"))
    assert "models" not in raw
    cfg = load_config(demo)
    assert list(cfg.stores) == ["maker", "kurashi", "eq"]
    assert cfg.modes["build"] == "maker" and cfg.modes["home"] == "kurashi"
    assert cfg.modes["talk"] == "eq"
    assert all(spec is None for spec in cfg.models.values())
    for name in ("maker", "kurashi"):
        spec = cfg.stores[name]
        assert spec.distill.human_names
        assert spec.distill.journals, name
        for j in spec.distill.journals:
            assert j.adapter == "claude"
            assert j.root == demo.parent / "journals" / name
            assert spec.path not in j.root.parents
            assert sorted(j.root.glob("*.jsonl")), name
    assert "Ren" in cfg.stores["maker"].distill.human_names
    assert "蓮" in cfg.stores["kurashi"].distill.human_names


def test_every_store_is_healthy(reg):
    for name in reg.names():
        report = diagnose(reg, name).to_json()
        assert report["ok"], (name, report["problems"])
        assert report["dead_links"] == []
        assert all(not v for v in report["index_drift"].values()), report["index_drift"]
        assert report["unreadable"] == []
        assert len(report["islands"]) <= 2, report["islands"]
        assert report["charter"]["present"]


def test_main_stores_hold_twenty_memories_or_more(reg):
    for name in ("maker", "kurashi"):
        scan = reg.store(name).scan()
        assert len(scan.memories) >= 20, name
        sectors = {e.sector for e in scan.index.entries}
        assert len(sectors) >= 3 and "" not in sectors


def test_memories_have_curation_dates_and_the_usual_shape(reg):
    for name in ("maker", "kurashi"):
        mems = reg.store(name).scan().memories
        ages = sorted((TODAY - m.date()).days for m in mems)
        assert ages[0] <= 14 and ages[-1] >= 90, ages
        assert {m.type for m in mems} <= {"user", "feedback", "project", "reference"}
        assert len({m.type for m in mems}) >= 3
        assert any("decision" in m.tags for m in mems)
        landmines = [m for m in mems if "landmine" in m.tags]
        assert landmines and all("⚠️" in m.description for m in landmines)
        assert sum(1 for m in mems if m.curation("keep")) >= len(mems) // 2
        assert sum(1 for m in mems if "**Why:**" in m.body) >= 10
        assert len({m.description for m in mems}) == len(mems)


def test_the_kurashi_store_is_written_in_japanese(reg):
    for m in reg.store("kurashi").scan().memories:
        text = m.title + m.description + m.body
        cjk = sum(1 for ch in text if is_cjk(ch))
        latin = sum(1 for ch in text if ch.isascii() and ch.isalpha())
        assert cjk > latin, m.slug
    assert all(not any(is_cjk(ch) for ch in m.body) for m in reg.store("maker").scan().memories)


# --------------------------------------------------------------------------- drafts and the gate


def test_drafts_wait_in_both_stores(reg):
    maker = list_drafts(reg.store("maker"))
    kurashi = list_drafts(reg.store("kurashi"))
    assert len(maker) >= 3 and len(kurashi) >= 2
    assert list_drafts(reg.store("eq")) == []
    everything = maker + kurashi
    assert any(d.decision == "extends" for d in everything)
    assert any(d.label == "judgement" for d in everything)


def test_every_draft_quote_is_verbatim_in_its_journal(demo, reg):
    workspace = demo.parent
    for name in ("maker", "kurashi"):
        store = reg.store(name)
        drafts = list_drafts(store)
        assert drafts, name
        for d in drafts:
            assert d.gate["verdict"] == "kept"
            assert set(d.gate) >= {"verdict", "reasons", "violations", "tag_checks"}
            assert d.quotes, d.slug
            for q in d.quotes:
                assert set(q) >= {
                    "text",
                    "cls",
                    "claimed",
                    "status",
                    "source",
                    "start",
                    "end",
                    "unit",
                }
                assert q["status"] == "verified"
                journal = workspace / q["source"]
                assert journal.is_file() and journal.suffix == ".jsonl"
                segs = [
                    s
                    for s in read_claude(journal, 0).segments
                    if s.start == q["start"] and s.end == q["end"] and s.cls == q["cls"]
                ]
                assert any(normalize(q["text"]) in normalize(s.text) for s in segs), (d.slug, q)


def test_every_draft_has_its_manifest_and_would_pass_the_pour_floor(reg):
    for name in ("maker", "kurashi"):
        store = reg.store(name)
        drafts = list_drafts(store)
        assert drafts, name
        for d in drafts:
            assert d.manifest.startswith("sha256:")
            man = read_manifest(store, d.manifest)
            assert man["segments"] and man["quotes"] == [dict(q) for q in d.quotes]
            assert man["batch"]["adapter"] == "claude"
            spans = {(s["source"], s["start"], s["cls"]) for s in man["segments"]}
            assert all((q["source"], q["start"], q["cls"]) in spans for q in d.quotes)
            assert check_floor(reg, name, d) == [], d.slug


def test_the_gate_log_shows_drops_and_tosses_with_reasons(reg):
    for name in ("maker", "kurashi"):
        log = reg.workshop(name).gate_log()
        dropped = [e for e in log if e["kind"] == "dropped"]
        tossed = [e for e in log if e["kind"] == "tossed"]
        assert len(dropped) >= 4 and tossed
        assert all(e["reason"] and e["title"] for e in dropped + tossed)
        assert all(e["detail"]["verdict"] == "dropped" and "quotes" in e["detail"] for e in dropped)
        reasons = " | ".join(e["reason"] for e in dropped)
        for why in (
            "no quote survived",
            "vouched only by SELF",
            "attribution",
            "fact dressed as an idea",
            "echo of the store",
        ):
            assert why in reasons, (name, why)
        assert all(e["detail"].get("draft") for e in tossed)
        for e in tossed:
            assert not (reg.store(name).still / "drafts" / f"{e['slug']}.md").exists()


def test_ideas_wait_as_seeds(reg):
    for name in ("maker", "kurashi"):
        rows = reg.workshop(name).query("SELECT title, quotes, state FROM seeds")
        assert len(rows) >= 2 and all(r["state"] == "waiting" for r in rows)
        assert diagnose(reg, name).seeds == len(rows)


def test_journals_are_left_undrunk(demo, reg):
    for name in ("maker", "kurashi"):
        assert reg.workshop(name).query("SELECT * FROM watermarks") == []
    journals = sorted((demo.parent / "journals").rglob("*.jsonl"))
    assert journals
    for journal in journals:
        read = read_claude(journal, 0)
        assert dict(read.skipped) == {}
        assert {s.cls for s in read.segments} == {"USER", "TOOL", "ACT", "SELF"}


# --------------------------------------------------------------------------- building


def test_rebuild_reuses_and_force_rebuilds(tmp_path):
    dest = tmp_path / "ws"
    cfg = build_demo(dest, today=TODAY)
    assert is_demo_workspace(dest) and (dest / MARKER).is_file()
    before = _tree(dest)
    (dest / "stores" / "maker" / "note-from-a-person.txt").write_text("mine", encoding="utf-8")
    assert build_demo(dest, today=TODAY) == cfg
    assert (dest / "stores" / "maker" / "note-from-a-person.txt").exists()
    assert build_demo(dest, today=TODAY, force=True) == cfg
    assert not (dest / "stores" / "maker" / "note-from-a-person.txt").exists()
    assert _tree(dest) == before
    assert [p.name for p in tmp_path.iterdir()] == ["ws"]


def test_refuses_a_directory_that_is_not_a_demo(tmp_path):
    dest = tmp_path / "mine"
    dest.mkdir()
    (dest / "notes.md").write_text("keep me", encoding="utf-8")
    for force in (False, True):
        with pytest.raises(KuraError, match="not a kura demo workspace"):
            build_demo(dest, today=TODAY, force=force)
    assert [p.name for p in dest.iterdir()] == ["notes.md"]
    afile = tmp_path / "afile"
    afile.write_text("x", encoding="utf-8")
    with pytest.raises(KuraError, match="not a directory"):
        build_demo(afile, today=TODAY)


def test_builds_into_an_existing_empty_directory(tmp_path):
    dest = tmp_path / "empty"
    dest.mkdir()
    assert build_demo(dest, today=TODAY) == dest / "kura.toml"
    assert is_demo_workspace(dest)


def test_two_builds_are_byte_identical(demo, tmp_path):
    other = build_demo(tmp_path / "elsewhere" / "ws", today=TODAY)
    a, b = _tree(demo.parent), _tree(other.parent)
    assert a.keys() == b.keys()
    assert [k for k in a if a[k] != b[k]] == []
    assert any(k.endswith("/MEMORY.md") for k in a)
    assert any("/_still/drafts/" in k for k in a)
    assert not any(str(demo.parent).encode() in v for v in a.values())


def test_today_moves_the_dates(tmp_path):
    later = build_demo(tmp_path / "later", today=TODAY + dt.timedelta(days=30))
    reg = Registry.open(later)
    try:
        dates = sorted(m.date() for m in reg.store("maker").scan().memories)
        assert dates[-1] <= TODAY + dt.timedelta(days=30)
        assert dates[-1] > TODAY
    finally:
        reg.close()


def test_default_demo_dir_respects_xdg(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert default_demo_dir() == tmp_path / "data" / "kura" / "demo"
    monkeypatch.setenv("XDG_DATA_HOME", "relative/path")
    assert default_demo_dir() == Path.home() / ".local" / "share" / "kura" / "demo"
    monkeypatch.delenv("XDG_DATA_HOME")
    assert default_demo_dir() == Path.home() / ".local" / "share" / "kura" / "demo"
