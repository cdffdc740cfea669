"""examples/rooms: five stores behind one config, each healthy as shipped.

Every check runs on a copy in tmp_path: kura creates a store's workshop (_still/) the
first time it looks at it, and the example folder must stay as it is committed.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from kura_core.config import load_config, parse_config
from kura_core.doctor import diagnose
from kura_core.registry import Registry
from kura_core.store import Store, split_frontmatter

ROOT = Path(__file__).resolve().parents[2]
ROOMS = ROOT / "examples" / "rooms"
STORES = ("develop", "research", "manage", "eq", "user")
MODES = {
    "develop": "develop",
    "build": "develop",
    "code": "develop",
    "research": "research",
    "manage": "manage",
    "plan": "manage",
    "eq": "eq",
    "talk": "eq",
    "user": "user",
}


def _stills() -> list[Path]:
    return sorted(ROOMS.glob("*/_still"))


@pytest.fixture
def rooms(tmp_path):
    """A copy of examples/rooms; the original must be untouched afterwards."""
    before = _stills()
    dest = tmp_path / "rooms"
    shutil.copytree(ROOMS, dest, ignore=shutil.ignore_patterns("_still"))
    yield dest
    assert _stills() == before, "a test wrote a workshop into examples/rooms"


def test_example_ships_without_workshops():
    assert _stills() == [], "examples/rooms/*/_still must not exist in the repository"


def test_config_holds_five_stores_and_their_modes(rooms):
    cfg = load_config(rooms / "kura.toml")
    assert tuple(cfg.stores) == STORES
    assert dict(cfg.modes) == MODES
    assert cfg.default_store == "develop"
    for name, spec in cfg.stores.items():
        assert spec.path == rooms / name, name  # relative to the config file
        assert spec.label.startswith(f"{name} — "), name
        assert spec.path.is_dir(), name
        charter = spec.charter_path.read_text(encoding="utf-8")
        assert charter.strip(), name
        assert 15 <= len(charter.strip().splitlines()) <= 40, name
        assert (spec.path / "MEMORY.md").is_file(), name
    policies = {n: s.write_policy for n, s in cfg.stores.items()}
    assert policies == {
        "develop": "direct-allowed",
        "research": "distiller-only",
        "manage": "distiller-only",
        "eq": "distiller-only",
        "user": "distiller-only",
    }


def test_per_store_overrides(rooms):
    cfg = load_config(rooms / "kura.toml")
    s = cfg.stores
    assert cfg.distill.human_names == ("Mika",)
    assert s["develop"].distill.human_names == ("Mika", "mkondo")
    assert s["eq"].prefill.fresh_days > cfg.prefill.fresh_days
    assert s["eq"].distill.idle_min > cfg.distill.idle_min
    assert s["eq"].distill.language == "en"  # per-store tables inherit the global ones
    assert s["manage"].prefill.fresh_days < cfg.prefill.fresh_days
    assert set(s["user"].prefill.pinned_types) == {"user", "feedback", "project", "reference"}
    assert s["research"].recall.hops == 2
    assert all(spec.distill.journals == () for spec in s.values())  # commented out as shipped
    assert all(m is None for m in cfg.models.values())


def test_commented_models_and_journals_are_valid_when_uncommented(rooms, tmp_path):
    """Uncomment every commented TOML table or key line: the result must still load,
    with every journal root outside every store and develop/research split by globs."""
    text = (rooms / "kura.toml").read_text(encoding="utf-8")
    line = re.compile(r"^# (\[[a-z_.]+\]|[a-z_]+ = .*)$")
    opened = "\n".join(line.sub(r"\1", l) for l in text.splitlines()) + "\n"
    assert opened != text
    cfg = parse_config(tomllib.loads(opened), source=rooms / "kura.toml")
    assert cfg.models["thinker"] is not None and cfg.models["scribe"] is not None
    roots = {}
    for name, spec in cfg.stores.items():
        assert spec.distill.journals, name
        for j in spec.distill.journals:
            for other in cfg.stores.values():
                assert not j.root.is_relative_to(other.path), (name, j.root)
            roots.setdefault(j.root, []).append((name, j.include_glob))
    shared = {r: v for r, v in roots.items() if len(v) > 1}
    assert set(shared) == {Path.home() / ".claude" / "projects"}
    for users in shared.values():
        globs = [g for _, g in users]
        assert all(globs) and len(set(globs)) == len(globs)


@pytest.mark.parametrize("name", STORES)
def test_every_store_is_healthy(rooms, name):
    reg = Registry(load_config(rooms / "kura.toml"), env={})
    try:
        r = diagnose(reg, name).to_json()
    finally:
        reg.close()
    assert r["ok"] is True, r["problems"]
    assert r["memories"] >= 2
    assert r["dead_links"] == []
    assert r["unreadable"] == []
    assert all(v == [] for v in r["index_drift"].values()), r["index_drift"]
    assert r["islands"] == []
    assert r["charter"]["present"] is True


@pytest.mark.parametrize("name", STORES)
def test_memories_carry_their_curation(rooms, name):
    store = Store(rooms / name, name=name)
    index_text = store.index_path.read_text(encoding="utf-8")
    assert index_text.startswith(f"# {name}\n")
    assert "<!--" in index_text and "-->" in index_text
    entries = store.index().by_slug()
    for slug in store.file_slugs():
        meta, body = split_frontmatter((rooms / name / f"{slug}.md").read_text(encoding="utf-8"))
        assert meta["name"] == slug
        md = meta["metadata"]
        assert md["type"] in ("user", "feedback", "project", "reference")
        assert md["tags"] and md["created"]
        for key in ("belongs_because", "keep", "may_fade"):
            assert isinstance(meta.get(key), str) and meta[key].strip(), (slug, key)
        assert "**Why:**" in body and "**How to apply:**" in body, slug
        assert entries[slug].description == meta["description"], slug


def test_doctor_all_through_the_cli(rooms):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "kura_core",
            "-c",
            str(rooms / "kura.toml"),
            "doctor",
            "--all",
            "--json",
        ],
        cwd=rooms,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rep = json.loads(proc.stdout)
    assert rep["ok"] is True
    assert [r["store"] for r in rep["stores"]] == list(STORES)
