"""Secrets through the faces: an HTTP or MCP write carrying a raw secret is refused with
the kind named and the value never echoed; /doctor names stored secrets by place and kind;
`kura scrub` and `kura journal inspect` print markers, never values."""

from __future__ import annotations

import json
import random
import subprocess

from kura_core.faces.mcp import LocalBackend, McpSession
from tests.core.secret_samples import KINDS, placements
from tests.faces.test_http import _start, _stop

TOKEN = KINDS[3].make(random.Random(41))  # a fake GitHub token, shaped right
PASSWORD = KINDS[16].make(random.Random(42))


def test_http_remember_refuses_a_raw_secret_and_doctor_names_stored_ones(tmp_path):
    lv = _start(tmp_path)
    try:
        r = lv.client.post(
            "/remember",
            json={"slug": "deploy", "description": "the deploy token", "body": f"use {TOKEN}"},
        )
        assert r.status_code == 422 and "github-token" in r.json()["error"]
        assert TOKEN not in r.text
        ok = lv.client.post(
            "/remember",
            json={
                "slug": "deploy",
                "description": "the deploy token lives in the vault",
                "body": "the deploy uses [secret:github-token] from the vault",
            },
        )
        assert ok.status_code == 200, ok.text

        hearth = lv.reg.store("hearth")
        path = hearth.root / "disk-layout.md"
        path.write_text(path.read_text() + f"\nDB_PASSWORD={PASSWORD}\n", encoding="utf-8")
        got = lv.client.get("/doctor", params={"store": "hearth"})
        body = got.json()
        assert got.status_code == 200 and body["ok"] is False
        assert {
            "place": "disk-layout.md",
            "kind": "password",
            "line": body["secrets"][0]["line"],
        } in body["secrets"]
        assert PASSWORD not in got.text
    finally:
        _stop(lv)


def test_mcp_remember_refuses_a_raw_secret(tmp_path):
    lv = _start(tmp_path)
    try:
        from kura_core import Kura

        s = McpSession(LocalBackend(Kura(lv.reg)), readonly=False, bound="hearth")
        s.handle(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {"protocolVersion": "2024-11-05"},
            }
        )
        out = s.handle(
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {
                    "name": "kura_remember",
                    "arguments": {"slug": "k", "description": "the key", "body": f"key {TOKEN}"},
                },
            }
        )
        text = json.dumps(out)
        assert "github-token" in text and TOKEN not in text
        assert not (lv.reg.store("hearth").root / "k.md").exists()
    finally:
        _stop(lv)


def test_cli_scrub_and_inspect_print_markers_never_values(tmp_path, kura_bin):
    store = tmp_path / "main"
    from tests.conftest import make_store

    make_store(store, "main")
    cfg = tmp_path / "kura.toml"
    cfg.write_text(f'[stores.main]\npath = "{store}"\n', encoding="utf-8")
    (store / "MEMORY.md").write_text(
        (store / "MEMORY.md").read_text() + "\n- [Deploy](deploy.md) — deploy token\n", "utf-8"
    )
    (store / "deploy.md").write_text(
        f"---\nname: deploy\ndescription: deploy token\n---\n\nGITHUB_TOKEN={TOKEN}\n", "utf-8"
    )
    env = {"HOME": str(tmp_path / "home"), "PATH": "/usr/bin:/bin"}

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [*kura_bin, "-c", str(cfg), *args],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
        )

    doctor = run("doctor", "--json")
    assert doctor.returncode == 1 and "github-token" in doctor.stdout and TOKEN not in doctor.stdout
    first = run("scrub", "--json")
    assert first.returncode == 0, first.stderr
    rep = json.loads(first.stdout)
    assert rep["scrubbed"][0] == {"place": "deploy.md", "kind": "github-token", "line": 6}
    assert TOKEN not in first.stdout + first.stderr
    assert TOKEN not in (store / "deploy.md").read_text()
    assert run("scrub").returncode == 2  # nothing left

    journal = tmp_path / "s.jsonl"
    text = placements(KINDS[3], TOKEN, "ja")["cat .env"]
    journal.write_text(
        json.dumps(
            {"type": "user", "message": {"content": "鍵は<private>秘密の日記</private>ここ"}},
            ensure_ascii=False,
        )
        + "\n"
        + json.dumps(
            {"type": "user", "message": {"content": [{"type": "tool_result", "content": text}]}}
        )
        + "\n",
        "utf-8",
    )
    shown = run("journal", "inspect", str(journal))
    assert shown.returncode == 0, shown.stderr
    assert "[secret:github-token]" in shown.stdout
    assert TOKEN not in shown.stdout and "秘密の日記" not in shown.stdout
