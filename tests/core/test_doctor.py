"""Doctor: what is in a store and what is broken, in process and through `kura doctor`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kura_core.doctor import diagnose, diagnose_all, heartbeat_state
from kura_core.registry import Registry
from kura_core.tokens import estimate_tokens
from tests.conftest import make_store, write_config

ROOT = Path(__file__).resolve().parents[2]

SPEC_KEYS = {"store", "ok", "memories", "dead_links", "islands", "index_drift", "unreadable",
             "drafts_waiting", "seeds", "tender", "models", "capacity"}
CAPACITY_KEYS = {"memories", "index_tokens", "body_tokens", "bytes", "limit", "pressure"}


def _config(tmp_path: Path) -> Path:
    return write_config(tmp_path / "kura.toml", """
        [stores.good]
        path = "good"
        [stores.broken]
        path = "broken"
        [modes]
        fine = "good"
    """)


def _good(root: Path):
    return make_store(root, "good", {
        "alpha": ("Alpha", "first, links to beta", "See [[beta]]."),
        "beta": ("Beta", "second, links to alpha", "See [[alpha]]."),
    })


def _broken(root: Path):
    st = make_store(root, "broken", {
        "alpha": ("Alpha", "links to beta and a ghost", "See [[beta]] and [[ghost]] and [[beta]]."),
        "beta": ("Beta", "links back", "Back to [[alpha]]."),
        "gamma": ("Gamma", "nothing links here", "Alone."),
    })
    # a file with no index line
    (st.root / "delta.md").write_text("---\nname: delta\ndescription: by hand\n---\nDelta body\n",
                                      encoding="utf-8")
    # unreadable frontmatter
    (st.root / "bad.md").write_text("no frontmatter at all\n", encoding="utf-8")
    # readable file with unreadable fields
    (st.root / "odd.md").write_text(
        "---\nname: odd\ndescription: odd one\nmetadata:\n  tags: 7\n---\nOdd links [[gamma]].\n",
        encoding="utf-8")
    with open(st.index_path, "a", encoding="utf-8") as fh:
        fh.write("- [Omega](omega.md) — a line whose file is gone\n")
        fh.write("- [Alpha twice](alpha.md) — a duplicate line\n")
        fh.write("- [Odd](odd.md) — odd one\n")
        fh.write("- [Bad](bad.md) — bad one\n")
    return st


@pytest.fixture
def setup(tmp_path):
    cfg = _config(tmp_path)
    good = _good(tmp_path / "good")
    broken = _broken(tmp_path / "broken")
    reg = Registry.open(cfg)
    yield cfg, reg, good, broken
    reg.close()


def test_healthy_store(setup):
    _, reg, good, _ = setup
    r = diagnose(reg, "good")
    assert SPEC_KEYS <= set(r)
    assert r["store"] == "good" and r["ok"] is True
    assert r["memories"] == 2
    assert r["dead_links"] == [] and r["islands"] == [] and r["unreadable"] == []
    assert r["index_drift"]["files_without_line"] == [] and r["index_drift"]["lines_without_file"] == []
    assert r["index_drift"]["duplicate_lines"] == []
    assert r["drafts_waiting"] == 0 and r["seeds"] == 0
    assert r["tender"]["state"] == "never started"
    assert set(r["models"]) == {"thinker", "brain", "scribe"}
    assert r["models"]["thinker"]["configured"] is False
    assert diagnose(reg, "fine")["store"] == "good"


def test_broken_store_finds_everything(setup):
    _, reg, _, broken = setup
    r = diagnose(reg, "broken")
    assert r["ok"] is False
    assert r["memories"] == 6  # alpha beta gamma delta bad odd
    assert r["dead_links"] == [{"from": "alpha", "to": "ghost"}]
    assert r["islands"] == ["delta", "odd"]  # gamma is linked from odd
    drift = r["index_drift"]
    assert drift["files_without_line"] == ["delta"]
    assert drift["lines_without_file"] == ["omega"]
    assert drift["duplicate_lines"] == ["alpha"]
    unreadable = {u["file"]: u["why"] for u in r["unreadable"]}
    assert set(unreadable) == {"bad.md", "odd.md"}
    assert "frontmatter" in unreadable["bad.md"]
    assert "tags" in unreadable["odd.md"]
    problems = " | ".join(r["problems"])
    for word in ("ghost", "delta.md", "omega.md", "more than one index line", "bad.md"):
        assert word in problems, word


def test_capacity_in_four_units(setup):
    _, reg, good, _ = setup
    r = diagnose(reg, "good")
    cap = r["capacity"]
    assert set(cap) == CAPACITY_KEYS
    mems = [good.read(s) for s in ("alpha", "beta")]
    assert cap["memories"] == 2
    assert cap["index_tokens"] == estimate_tokens(good.index_path.read_text(encoding="utf-8")) > 0
    assert cap["body_tokens"] == sum(estimate_tokens(m.body) for m in mems) > 0
    assert cap["bytes"] == sum((good.root / f"{s}.md").stat().st_size for s in ("alpha", "beta")) + \
        good.index_path.stat().st_size

    good.write("gamma", title="Gamma", description="a third, bigger one", body="word " * 400 + "[[alpha]]")
    cap2 = diagnose(reg, "good")["capacity"]
    assert cap2["memories"] == 3
    assert cap2["index_tokens"] > cap["index_tokens"]
    assert cap2["body_tokens"] > cap["body_tokens"] + 300
    assert cap2["bytes"] > cap["bytes"] + 2000


def test_drafts_seeds_manifests_and_tender(setup):
    _, reg, good, _ = setup
    (good.still / "drafts" / "one.md").write_text("draft", encoding="utf-8")
    (good.still / "drafts" / "two.md").write_text("draft", encoding="utf-8")
    ws = reg.workshop("good")
    now = time.time()
    ws.execute("INSERT INTO seeds(at, title, updated) VALUES(?,?,?)", (now, "an idea", now))
    ws.execute("INSERT INTO seeds(at, title, state, updated) VALUES(?,?,?,?)", (now, "old", "withered", now))
    r = diagnose(reg, "good")
    assert r["drafts_waiting"] == 2 and r["seeds"] == 1 and r["ok"] is True

    good.write("gamma", title="Gamma", description="has evidence", body="[[alpha]]",
               meta={"metadata": {"evidence_manifest": "sha256:" + "ab" * 32}})
    r = diagnose(reg, "good")
    assert r["ok"] is False and r["manifests_missing"] == ["gamma"]
    (good.still / "manifests").mkdir()
    (good.still / "manifests" / ("ab" * 32 + ".json")).write_text("{}", encoding="utf-8")
    assert diagnose(reg, "good")["ok"] is True

    ws.execute("INSERT INTO heartbeat(name, pid, host, started, beat, state) VALUES('tend', ?, '', ?, ?, 'idle')",
               (os.getpid(), now, now))
    assert diagnose(reg, "good")["tender"]["state"] == "alive"
    ws.execute("UPDATE heartbeat SET beat = ?", (now - 3600,))
    r = diagnose(reg, "good")
    assert r["tender"]["state"] == "dead" and r["ok"] is False


def test_heartbeat_states():
    now = 1_000_000.0
    row = {"pid": os.getpid(), "host": "", "beat": now - 10, "state": "idle", "counts": "{}"}
    assert heartbeat_state(None, now)["state"] == "never started"
    assert heartbeat_state(row, now)["state"] == "alive"
    assert heartbeat_state({**row, "beat": now - 300}, now)["state"] == "stale"
    assert heartbeat_state({**row, "beat": now - 3000}, now)["state"] == "dead"
    assert heartbeat_state({**row, "state": "stopped"}, now)["state"] == "stopped"


def test_missing_store_is_broken(tmp_path):
    cfg = write_config(tmp_path / "kura.toml", '[stores.ghost]\npath = "ghost"\n')
    reg = Registry.open(cfg)
    r = diagnose(reg)
    assert r["ok"] is False and "kura init ghost" in r["problems"][0]
    assert SPEC_KEYS <= set(r) and set(r["capacity"]) == CAPACITY_KEYS
    reg.close()


def test_diagnose_all(setup):
    _, reg, _, _ = setup
    rep = diagnose_all(reg)
    assert rep["ok"] is False
    assert [r["store"] for r in rep["stores"]] == ["good", "broken"]
    assert [r["ok"] for r in rep["stores"]] == [True, False]


def test_symlink_out_is_reported_not_read(setup, tmp_path):
    _, reg, good, _ = setup
    secret = tmp_path / "secret.md"
    secret.write_text("---\nname: evil\ndescription: SECRET-WORDS\n---\nSECRET-WORDS\n", encoding="utf-8")
    os.symlink(secret, good.root / "evil.md")
    r = diagnose(reg, "good")
    assert r["ok"] is False
    assert any(u["file"] == "evil.md" and "symbolic link" in u["why"] for u in r["unreadable"])
    assert "SECRET-WORDS" not in json.dumps(r)


# --------------------------------------------------------------------------- through the CLI

def _kura(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "HOME": str(tmp_path), "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "kura_core.cli", *args], capture_output=True,
                          text=True, cwd=tmp_path, env=env, timeout=60)


def test_cli_doctor_exit_codes_and_json(setup, tmp_path):
    cfg = str(setup[0])
    ok = _kura(tmp_path, "-c", cfg, "doctor", "-s", "good", "--json")
    assert ok.returncode == 0, ok.stderr
    rep = json.loads(ok.stdout)
    assert SPEC_KEYS <= set(rep)
    assert set(rep["capacity"]) == CAPACITY_KEYS
    assert all(isinstance(rep["capacity"][k], int) for k in CAPACITY_KEYS - {"limit", "pressure"})
    assert rep["capacity"]["limit"] is None and rep["capacity"]["pressure"] is None
    assert rep["store"] == "good" and rep["ok"] is True and rep["memories"] == 2

    bad = _kura(tmp_path, "-c", cfg, "doctor", "-s", "broken", "--json")
    assert bad.returncode == 1
    rep = json.loads(bad.stdout)
    assert rep["ok"] is False and rep["dead_links"] == [{"from": "alpha", "to": "ghost"}]
    assert rep["index_drift"]["files_without_line"] == ["delta"]
    assert rep["index_drift"]["lines_without_file"] == ["omega"]

    text = _kura(tmp_path, "-c", cfg, "-s", "broken", "doctor")
    assert text.returncode == 1
    assert "BROKEN" in text.stdout and "ghost" in text.stdout
    assert "capacity" in text.stdout and "index tokens" in text.stdout
    plain_ok = _kura(tmp_path, "-c", cfg, "-s", "fine", "doctor")
    assert plain_ok.returncode == 0 and "good: ok" in plain_ok.stdout


def test_cli_doctor_all(setup, tmp_path):
    cfg, _, _, broken = setup
    both = _kura(tmp_path, "-c", str(cfg), "doctor", "--all", "--json")
    assert both.returncode == 1
    rep = json.loads(both.stdout)
    assert rep["ok"] is False
    assert {r["store"]: r["ok"] for r in rep["stores"]} == {"good": True, "broken": False}
    for r in rep["stores"]:
        assert SPEC_KEYS <= set(r)

    for p in list(broken.root.glob("*.md")):
        if p.name != "MEMORY.md":
            p.unlink()
    broken.index_path.write_text("# broken, now empty\n", encoding="utf-8")
    fixed = _kura(tmp_path, "-c", str(cfg), "doctor", "--all")
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert "good: ok" in fixed.stdout and "broken: ok" in fixed.stdout
