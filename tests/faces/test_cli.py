"""The `kura` command line, run as a user would: a subprocess, a fresh HOME, an empty cwd."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


class Kura:
    def __init__(self, tmp_path: Path):
        self.home = tmp_path / "home"
        self.cwd = tmp_path / "work"
        self.home.mkdir()
        self.cwd.mkdir()
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("KURA_")}
        self.env.update(HOME=str(self.home), PYTHONPATH=str(ROOT))

    @property
    def config(self) -> Path:
        return self.home / ".config" / "kura" / "kura.toml"

    def __call__(
        self, *args: str, input: str | None = None, env: dict | None = None
    ) -> subprocess.CompletedProcess:
        proc = subprocess.run(
            [sys.executable, "-m", "kura_core", *args],
            capture_output=True,
            text=True,
            cwd=self.cwd,
            env={**self.env, **(env or {})},
            input=input,
            timeout=60,
        )
        assert "Traceback" not in proc.stderr, proc.stderr
        return proc


@pytest.fixture
def kura(tmp_path):
    return Kura(tmp_path)


def _allow_direct(kura: Kura, name: str) -> None:
    text = kura.config.read_text(encoding="utf-8")
    head = f"[stores.{name}]\n"
    assert head in text
    kura.config.write_text(
        text.replace(head, head + 'write_policy = "direct-allowed"\n'), encoding="utf-8"
    )


def test_init_then_doctor_from_nothing(kura, tmp_path):
    store_dir = tmp_path / "stores" / "main"
    assert not kura.config.exists()
    init = kura("init", "main", "--path", str(store_dir))
    assert init.returncode == 0, init.stderr
    assert kura.config.is_file()
    assert (store_dir / "MEMORY.md").is_file()
    assert (store_dir / "_still" / "kura.db").is_file()
    assert not (kura.cwd / "kura.toml").exists()

    doc = kura("doctor", "-s", "main", "--json")
    assert doc.returncode == 0, doc.stdout + doc.stderr
    rep = json.loads(doc.stdout)
    assert rep["store"] == "main" and rep["ok"] is True and rep["memories"] == 0
    assert rep["capacity"]["memories"] == 0 and rep["capacity"]["index_tokens"] > 0


def test_init_json_and_idempotent(kura, tmp_path):
    store_dir = tmp_path / "s"
    first = kura("init", "main", "--path", str(store_dir), "--label", "the main store", "--json")
    assert first.returncode == 0, first.stderr
    out = json.loads(first.stdout)
    assert out == {
        "store": "main",
        "path": str(store_dir.resolve()),
        "config": str(kura.config),
        "adopted": [],
        "skipped": [],
        "history": "on",
    }
    config_text = kura.config.read_text()
    index_text = (store_dir / "MEMORY.md").read_text()
    assert "the main store" in index_text

    again = kura("init", "main", "--path", str(store_dir))
    assert again.returncode == 0, again.stderr
    assert kura.config.read_text() == config_text
    assert (store_dir / "MEMORY.md").read_text() == index_text
    assert config_text.count("[stores.main]") == 1

    elsewhere = kura("init", "main", "--path", str(tmp_path / "other"))
    assert elsewhere.returncode == 1
    assert "already configured" in elsewhere.stderr
    assert kura.config.read_text() == config_text
    assert not (tmp_path / "other").exists()

    nested = kura("init", "inner", "--path", str(store_dir / "inner"))
    assert nested.returncode == 1 and "nest" in nested.stderr
    assert kura.config.read_text() == config_text


def test_stores_json(kura, tmp_path):
    assert kura("init", "main", "--path", str(tmp_path / "a"), "--label", "first").returncode == 0
    assert kura("init", "eq", "--path", str(tmp_path / "b")).returncode == 0
    out = kura("stores", "--json")
    assert out.returncode == 0, out.stderr
    info = json.loads(out.stdout)
    assert info["default"] == "main"
    by_name = {s["name"]: s for s in info["stores"]}
    assert list(by_name) == ["main", "eq"]
    assert by_name["main"]["label"] == "first"
    assert by_name["main"]["write_policy"] == "distiller-only"
    assert by_name["main"]["memories"] == 0 and by_name["main"]["exists"] is True
    assert set(info["models"]) == {"thinker", "brain", "scribe"}

    plain = kura("stores")
    assert plain.returncode == 0 and "main" in plain.stdout and "eq" in plain.stdout


def test_remember_is_refused_unless_direct_allowed(kura, tmp_path):
    store_dir = tmp_path / "s"
    assert kura("init", "main", "--path", str(store_dir)).returncode == 0

    refused = kura("remember", "disk-layout", "which disk holds what", "Fast is scratch.")
    assert refused.returncode == 1
    assert "write_policy" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1
    assert not (store_dir / "disk-layout.md").exists()

    _allow_direct(kura, "main")
    # a tag that claims something about the human needs evidence, and a direct write has none
    claim = kura(
        "remember", "disk-layout", "which disk holds what", "Fast is scratch.", "--tag", "landmine"
    )
    assert claim.returncode == 1 and "landmine" in claim.stderr
    assert not (store_dir / "disk-layout.md").exists()
    ok = kura(
        "remember",
        "disk-layout",
        "which disk holds what",
        "Fast is scratch. See [[archive]].",
        "--type",
        "reference",
        "--title",
        "Disk layout",
        "--tag",
        "decision",
        "--tag",
        "disks",
    )
    assert ok.returncode == 0, ok.stderr
    assert "disk-layout" in ok.stdout

    from kura_core.store import Store

    mem = Store(store_dir).read("disk-layout")
    assert mem.description == "which disk holds what"
    assert mem.body.strip() == "Fast is scratch. See [[archive]]."
    assert mem.type == "reference" and mem.tags == ("decision", "disks")
    assert mem.title == "Disk layout"

    piped = kura(
        "remember",
        "archive",
        "the archive lives on the slow disk",
        "-",
        "--json",
        input="The archive goes on the slow disk.\n\n**Why:** endurance.\n",
    )
    assert piped.returncode == 0, piped.stderr
    out = json.loads(piped.stdout)
    assert out["store"] == "main" and out["slug"] == "archive"
    mem = Store(store_dir).read("archive")
    assert mem.body.strip() == "The archive goes on the slow disk.\n\n**Why:** endurance."
    assert sorted(Store(store_dir).index().slugs()) == ["archive", "disk-layout"]

    escape = kura("remember", "../evil", "an escape", "body")
    assert escape.returncode == 1 and not (tmp_path / "evil.md").exists()


def test_remember_refused_when_frozen(kura, tmp_path):
    store_dir = tmp_path / "s"
    assert kura("init", "main", "--path", str(store_dir)).returncode == 0
    text = kura.config.read_text()
    kura.config.write_text(
        text.replace("[stores.main]\n", '[stores.main]\nwrite_policy = "frozen"\n')
    )
    out = kura("remember", "a", "d", "b")
    assert out.returncode == 1 and "frozen" in out.stderr and "write_policy" in out.stderr
    assert not (store_dir / "a.md").exists()


def test_read(kura, tmp_path):
    store_dir = tmp_path / "s"
    assert kura("init", "main", "--path", str(store_dir)).returncode == 0
    _allow_direct(kura, "main")
    assert kura("remember", "alpha", "the first one", "Alpha body.").returncode == 0

    out = kura("read", "alpha")
    assert out.returncode == 0, out.stderr
    assert out.stdout == (store_dir / "alpha.md").read_text(encoding="utf-8")
    assert out.stdout.startswith("---\n") and "Alpha body." in out.stdout

    js = kura("read", "alpha", "--json", "-s", "main")
    assert js.returncode == 0
    data = json.loads(js.stdout)
    assert (
        data["store"] == "main"
        and data["slug"] == "alpha"
        and data["description"] == "the first one"
    )

    missing = kura("read", "nope")
    assert missing.returncode == 1 and "nope" in missing.stderr

    for bad in ("../s/alpha", "/etc/passwd", "MEMORY", "_still"):
        escape = kura("read", bad)
        assert escape.returncode == 1, bad
        assert escape.stdout == ""
        assert "root:" not in escape.stderr


def test_unknown_store_selector(kura, tmp_path):
    assert kura("init", "main", "--path", str(tmp_path / "a")).returncode == 0
    assert kura("init", "secretive", "--path", str(tmp_path / "b")).returncode == 0
    for args in (
        ("-s", "ghost", "doctor"),
        ("doctor", "-s", "ghost", "--json"),
        ("read", "x", "-s", "ghost"),
    ):
        out = kura(*args)
        assert out.returncode == 1, args
        assert "ghost" in out.stderr
        # a person at the command line is told what there is (`kura stores` says as much);
        # HTTP and MCP name none (tests/faces/test_http.py, tests/core/test_config.py)
        assert "stores: main, secretive" in out.stderr, out.stderr
        assert out.stdout == ""
    via_env = kura("doctor", env={"KURA_STORE": "ghost"})
    assert via_env.returncode == 1 and "stores: main, secretive" in via_env.stderr


def test_store_from_env_and_mode(kura, tmp_path):
    assert kura("init", "main", "--path", str(tmp_path / "a")).returncode == 0
    assert kura("init", "eq", "--path", str(tmp_path / "b")).returncode == 0
    with open(kura.config, "a", encoding="utf-8") as fh:
        fh.write('\n[modes]\ntalk = "eq"\n')
    assert json.loads(kura("doctor", "--json", env={"KURA_STORE": "eq"}).stdout)["store"] == "eq"
    assert json.loads(kura("doctor", "--json", "-s", "talk").stdout)["store"] == "eq"
    assert json.loads(kura("doctor", "--json").stdout)["store"] == "main"


def test_config_flag_and_local_config(kura, tmp_path):
    cfg = tmp_path / "elsewhere.toml"
    out = kura("-c", str(cfg), "init", "main", "--path", str(tmp_path / "a"))
    assert out.returncode == 0, out.stderr
    assert cfg.is_file() and not kura.config.exists()
    assert kura("-c", str(cfg), "doctor").returncode == 0
    assert kura("doctor", "-c", str(cfg)).returncode == 0

    (kura.cwd / "kura.toml").write_text(cfg.read_text())
    assert json.loads(kura("stores", "--json").stdout)["stores"][0]["name"] == "main"


def test_no_config_doctor_says_what_to_do(kura):
    out = kura("doctor")
    assert out.returncode == 1
    assert "kura init" in out.stderr
