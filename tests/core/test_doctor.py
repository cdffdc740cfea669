"""Doctor: what is in a store and what is broken, in process and through `kura doctor`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kura_core.doctor import DeadLink, diagnose, diagnose_all, heartbeat_state
from kura_core.registry import Registry
from kura_core.tokens import estimate_tokens
from tests.conftest import make_store, write_config

ROOT = Path(__file__).resolve().parents[2]

SPEC_KEYS = {
    "store",
    "ok",
    "memories",
    "dead_links",
    "islands",
    "index_drift",
    "unreadable",
    "drafts_waiting",
    "seeds",
    "tender",
    "models",
    "capacity",
}
CAPACITY_KEYS = {"memories", "index_tokens", "body_tokens", "bytes", "limit", "pressure"}


def _config(tmp_path: Path) -> Path:
    return write_config(
        tmp_path / "kura.toml",
        """
        [stores.good]
        path = "good"
        [stores.broken]
        path = "broken"
        [modes]
        fine = "good"
    """,
    )


def _good(root: Path):
    return make_store(
        root,
        "good",
        {
            "alpha": ("Alpha", "first, links to beta", "See [[beta]]."),
            "beta": ("Beta", "second, links to alpha", "See [[alpha]]."),
        },
    )


def _broken(root: Path):
    st = make_store(
        root,
        "broken",
        {
            "alpha": (
                "Alpha",
                "links to beta and a ghost",
                "See [[beta]] and [[ghost]] and [[beta]].",
            ),
            "beta": ("Beta", "links back", "Back to [[alpha]]."),
            "gamma": ("Gamma", "nothing links here", "Alone."),
        },
    )
    # a file with no index line
    (st.root / "delta.md").write_text(
        "---\nname: delta\ndescription: by hand\n---\nDelta body\n", encoding="utf-8"
    )
    # unreadable frontmatter
    (st.root / "bad.md").write_text("no frontmatter at all\n", encoding="utf-8")
    # readable file with unreadable fields
    (st.root / "odd.md").write_text(
        "---\nname: odd\ndescription: odd one\nmetadata:\n  tags: 7\n---\nOdd links [[gamma]].\n",
        encoding="utf-8",
    )
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
    assert set(r.to_json()) >= SPEC_KEYS
    assert r.store == "good" and r.ok is True and r.exists
    assert r.memories == 2
    assert r.dead_links == () and r.islands == () and r.unreadable == ()
    assert r.index_drift.files_without_line == () and r.index_drift.lines_without_file == ()
    assert r.index_drift.duplicate_lines == ()
    assert r.drafts_waiting == 0 and r.seeds == 0
    assert r.tender.state == "never started"
    assert set(r.models) == {"thinker", "brain", "scribe"}
    assert r.models["thinker"].configured is False
    assert diagnose(reg, "fine").store == "good"


def test_broken_store_finds_everything(setup):
    _, reg, _, broken = setup
    r = diagnose(reg, "broken")
    assert r.ok is False
    assert r.memories == 6  # alpha beta gamma delta bad odd
    assert r.dead_links == (DeadLink("alpha", "ghost"),)
    assert r.to_json()["dead_links"] == [{"from": "alpha", "to": "ghost"}]
    assert r.islands == ("delta", "odd")  # gamma is linked from odd
    drift = r.index_drift
    assert drift.files_without_line == ("delta",)
    assert drift.lines_without_file == ("omega",)
    assert drift.duplicate_lines == ("alpha",)
    unreadable = {u.file: u.why for u in r.unreadable}
    assert set(unreadable) == {"bad.md", "odd.md"}
    assert "frontmatter" in unreadable["bad.md"]
    assert "tags" in unreadable["odd.md"]
    problems = " | ".join(r.problems)
    for word in ("ghost", "delta.md", "omega.md", "more than one index line", "bad.md"):
        assert word in problems, word


def test_capacity_in_four_units(setup):
    _, reg, good, _ = setup
    r = diagnose(reg, "good").to_json()
    cap = r["capacity"]
    assert set(cap) == CAPACITY_KEYS
    mems = [good.read(s) for s in ("alpha", "beta")]
    assert cap["memories"] == 2
    assert cap["index_tokens"] == estimate_tokens(good.index_path.read_text(encoding="utf-8")) > 0
    assert cap["body_tokens"] == sum(estimate_tokens(m.body) for m in mems) > 0
    assert (
        cap["bytes"]
        == sum((good.root / f"{s}.md").stat().st_size for s in ("alpha", "beta"))
        + good.index_path.stat().st_size
    )

    good.write(
        "gamma", title="Gamma", description="a third, bigger one", body="word " * 400 + "[[alpha]]"
    )
    cap2 = diagnose(reg, "good").to_json()["capacity"]
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
    ws.execute(
        "INSERT INTO seeds(at, title, state, updated) VALUES(?,?,?,?)",
        (now, "old", "withered", now),
    )
    r = diagnose(reg, "good")
    assert r.drafts_waiting == 2 and r.seeds == 1 and r.ok is True

    good.write(
        "gamma",
        title="Gamma",
        description="has evidence",
        body="[[alpha]]",
        meta={"metadata": {"evidence_manifest": "sha256:" + "ab" * 32}},
    )
    r = diagnose(reg, "good")
    assert r.ok is False and r.manifests_missing == ("gamma",)
    (good.still / "manifests").mkdir()
    (good.still / "manifests" / ("ab" * 32 + ".json")).write_text("{}", encoding="utf-8")
    assert diagnose(reg, "good").ok is True

    ws.execute(
        "INSERT INTO heartbeat(name, pid, host, started, beat, state) VALUES('tend', ?, '', ?, ?, 'idle')",
        (os.getpid(), now, now),
    )
    assert diagnose(reg, "good").tender.state == "alive"
    ws.execute("UPDATE heartbeat SET beat = ?", (now - 3600,))
    r = diagnose(reg, "good")
    assert r.tender.state == "dead" and r.ok is False


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
    assert r.ok is False and "kura init ghost" in r.problems[0]
    assert set(r.to_json()) >= SPEC_KEYS and set(r.to_json()["capacity"]) == CAPACITY_KEYS
    reg.close()


def test_diagnose_all(setup):
    _, reg, _, _ = setup
    rep = diagnose_all(reg)
    assert rep.ok is False
    assert [r.store for r in rep.stores] == ["good", "broken"]
    assert [r.ok for r in rep.stores] == [True, False]


def test_symlink_out_is_reported_not_read(setup, tmp_path):
    _, reg, good, _ = setup
    secret = tmp_path / "secret.md"
    secret.write_text(
        "---\nname: evil\ndescription: SECRET-WORDS\n---\nSECRET-WORDS\n", encoding="utf-8"
    )
    os.symlink(secret, good.root / "evil.md")
    r = diagnose(reg, "good")
    assert r.ok is False
    assert any(u.file == "evil.md" and "symbolic link" in u.why for u in r.unreadable)
    assert "SECRET-WORDS" not in json.dumps(r.to_json())


# --------------------------------------------------------------------------- through the CLI


def _kura(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "HOME": str(tmp_path), "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "kura_core", *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=60,
    )


def test_cli_doctor_exit_codes_and_json(setup, tmp_path):
    cfg = str(setup[0])
    ok = _kura(tmp_path, "-c", cfg, "doctor", "-s", "good", "--json")
    assert ok.returncode == 0, ok.stderr
    rep = json.loads(ok.stdout)
    assert set(rep) >= SPEC_KEYS
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
        assert set(r) >= SPEC_KEYS

    for p in list(broken.root.glob("*.md")):
        if p.name != "MEMORY.md":
            p.unlink()
    broken.index_path.write_text("# broken, now empty\n", encoding="utf-8")
    fixed = _kura(tmp_path, "-c", str(cfg), "doctor", "--all")
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert "good: ok" in fixed.stdout and "broken: ok" in fixed.stdout


# --------------------------------------------------------------------------- the typed report


def _shape(value):
    """The keys of a JSON value all the way down (list items by their first element)."""
    if isinstance(value, dict):
        return {k: _shape(v) for k, v in value.items()}
    if isinstance(value, list) and value:
        return [_shape(value[0])]
    return type(value).__name__ if value is not None else None


def _nested_keys(value, prefix=""):
    if isinstance(value, dict):
        out = set()
        for k, v in value.items():
            out.add(prefix + k)
            if k not in ("profile", "models", "tender"):
                out |= _nested_keys(v, prefix + k + ".")
        return out
    return set()


def test_a_missing_store_and_a_healthy_one_have_one_shape(setup, tmp_path):
    from dataclasses import fields

    from kura_core.doctor import DoctorReport

    cfg = write_config(
        tmp_path / "two.toml",
        f"""
        [stores.good]
        path = "{setup[2].root}"
        [stores.ghost]
        path = "{tmp_path / "nowhere"}"
    """,
    )
    reg = Registry.open(cfg)
    try:
        healthy, missing = diagnose(reg, "good"), diagnose(reg, "ghost")
    finally:
        reg.close()
    assert type(healthy) is type(missing) is DoctorReport
    for f in fields(DoctorReport):  # the same fields, of the same kinds, filled in both
        a, b = getattr(healthy, f.name), getattr(missing, f.name)
        if f.name != "profile":
            assert type(a) is type(b), f.name
    assert missing.exists is False and missing.workshop == "missing" and missing.profile is None
    assert missing.memories == 0 and missing.capacity.memories == 0 and not missing.writable
    assert healthy.exists and healthy.profile is not None and healthy.profile.state == "none"
    h, m = healthy.to_json(), missing.to_json()
    assert list(h) == list(m)  # every key, in one order
    assert _nested_keys(h) == _nested_keys(m)
    assert set(m["index_drift"]) == {
        "files_without_line",
        "lines_without_file",
        "duplicate_lines",
        "bad_targets",
    }
    assert m["charter"] == {"present": False, "path": str(tmp_path / "nowhere" / "charter.md")}
    assert m["manifests_missing"] == [] and m["profile"] is None
    assert m["tender"] == {"state": "never started"}
    assert json.loads(json.dumps(h)) == h and json.loads(json.dumps(m)) == m


def test_the_report_is_frozen_all_the_way_down(setup):
    from dataclasses import FrozenInstanceError

    _, reg, _, _ = setup
    r = diagnose(reg, "broken")
    with pytest.raises(FrozenInstanceError):
        r.ok = True  # type: ignore[misc]
    with pytest.raises(FrozenInstanceError):
        r.capacity.memories = 0  # type: ignore[misc]
    with pytest.raises(TypeError):
        r.models["thinker"] = r.models["brain"]  # type: ignore[index]
    assert isinstance(r.problems, tuple) and isinstance(r.islands, tuple)
    assert isinstance(r.dead_links, tuple) and isinstance(r.unreadable, tuple)


def test_the_parts_say_what_the_json_says(setup):
    from kura_core.doctor import ModelRole, Tender

    _, reg, good, _ = setup
    now = time.time()
    reg.workshop("good").execute(
        "INSERT INTO heartbeat(name, pid, host, started, beat, state, counts) VALUES('tend', ?, '', ?, ?, "
        "'resting', '{\"drained\": 2}')",
        (os.getpid(), now, now),
    )
    r = diagnose(reg, "good")
    t = r.to_json()["tender"]
    assert r.tender.beat and r.tender.state == "alive" and r.tender.doing == "resting"
    assert set(t) == {"state", "pid", "last_beat_s", "doing", "counts"} and t["counts"] == {
        "drained": 2
    }
    assert Tender.from_heartbeat(heartbeat_state(None, now)).to_json() == {"state": "never started"}

    unprobed = ModelRole(
        "thinker", True, "http://x/v1", "m", last_ok_at=1.0, last_error="boom", last_error_at=2.0
    )
    assert unprobed.failing and "reachable" not in unprobed.to_json()
    fixed = ModelRole(
        "thinker", True, "http://x/v1", "m", last_ok_at=3.0, last_error="boom", last_error_at=2.0
    )
    assert not fixed.failing
    probed = ModelRole(
        "thinker", True, "http://x/v1", "m", reachable=False, reason="connection refused"
    )
    assert (
        probed.to_json()["reachable"] is False
        and probed.to_json()["reason"] == "connection refused"
    )
    unconfigured = r.models["brain"].to_json()
    assert unconfigured["reachable"] is False and "not configured" in unconfigured["reason"]


def test_doctor_all_with_no_stores_says_what_to_do(tmp_path):
    cfg = write_config(tmp_path / "kura.toml", "# nothing yet\n")
    reg = Registry.open(cfg)
    try:
        every = diagnose_all(reg)
    finally:
        reg.close()
    assert every.ok is False and every.stores == ()
    assert "no stores are configured" in every.problems[0] and str(cfg) in every.problems[0]
    assert every.to_json()["problems"] == list(every.problems) and every.to_json()["stores"] == []


def test_every_face_gives_the_reports_json(setup):
    import io

    import httpx

    from kura_core.faces.http import make_server, start_in_thread
    from kura_core.faces.mcp import LocalBackend, McpSession
    from kura_core.kura import Kura

    _, reg, _, _ = setup
    k = Kura(reg)
    k.doctor_all()  # the first look opens each workshop ("new"); the faces see it open ("ok")
    want = k.doctor(store="broken").to_json()
    want_all = k.doctor_all().to_json()
    server = make_server(reg, "127.0.0.1", 0, log=io.StringIO())
    start_in_thread(server)
    try:
        got = httpx.get(server.url + "/doctor", params={"store": "broken"}, timeout=10).json()
        got_all = httpx.get(server.url + "/doctor", params={"all": "1"}, timeout=10).json()
    finally:
        server.shutdown()
        server.server_close()
    assert got == want
    assert set(got_all) == set(want_all) and got_all["stores"] == want_all["stores"]
    out = McpSession(LocalBackend(k)).handle(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "kura_doctor", "arguments": {"store": "broken"}},
        }
    )
    text = out["result"]["content"][0]["text"]
    assert text.startswith("store broken: BROKEN\n✗ ")
    assert json.loads(text[text.index("\n{") + 1 :]) == want


def test_the_cli_renders_the_typed_report(setup):
    from kura_core.faces.render import doctor_text

    _, reg, good, _ = setup
    text = doctor_text(diagnose(reg, "broken"))
    lines = text.split("\n")
    assert lines[0] == f"broken: BROKEN  ({setup[3].root})"
    assert lines[1].startswith("  capacity   6 memories · ") and "index tokens" in lines[1]
    assert "  drafts     0 waiting · seeds 0" in lines
    assert "  tender     never started" in lines and "  thinker    not configured" in lines
    assert (
        "  ✗ 1 link(s) point at no memory (first: [[ghost]] in alpha): run `kura relink ghost "
        "-s broken` to make them plain text, or add `--to SLUG` to point them at another memory"
        in lines
    )
    assert any(l.startswith("  · 2 memory(ies) are islands") for l in lines)

    cfg = write_config(
        setup[0].parent / "capped.toml",
        f"""
        [stores.good]
        path = "{good.root}"
        [capacity]
        memories = 1
    """,
    )
    capped = Registry.open(cfg)
    try:
        text = doctor_text(diagnose(capped, "good"))
    finally:
        capped.close()
    assert "  limit      1 memories · pressure 200%" in text.split("\n")


def test_the_app_renders_the_typed_report(setup):
    from kura_tui.widgets.doctor import render_report

    _, reg, _, _ = setup
    plain = render_report(diagnose(reg, "broken"), time.time()).plain
    assert plain.startswith("✗ broken  broken")
    assert "✗ 1 link(s) point at no memory" in plain
    assert "6 memories" in plain and "1 dead links" in plain and "2 islands" in plain
    assert "files without line: delta" in plain and "dead link [[ghost]] in alpha" in plain
    assert "thinker not configured — recall falls back to words" in plain
    assert "(d asks each endpoint)" in plain

    missing = Registry.open(
        write_config(setup[0].parent / "ghost.toml", '[stores.ghost]\npath = "ghost"\n')
    )
    try:
        plain = render_report(diagnose(missing, "ghost"), time.time(), probed=True).plain
    finally:
        missing.close()
    assert plain.startswith("✗ broken  ghost") and "kura init ghost" in plain
    assert "(d asks each endpoint)" not in plain and "no tender has run here" in plain
