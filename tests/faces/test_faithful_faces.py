"""HTTP and MCP over stores made the way people make them: YAML-ish memory files in three
languages, curation on the direct doors, and the learned profile's state."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import anyio
import httpx
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from tests.core.test_faithful import PROFILE, READABLE, cfg_for, yamlish_store

ROOT = Path(__file__).resolve().parents[2]


def _serve(cfg: Path):
    from kura_core.faces.http import make_server, start_in_thread
    from kura_core.registry import Registry

    reg = Registry.open(cfg)
    server = make_server(reg, "127.0.0.1", 0, log=io.StringIO())
    start_in_thread(server)
    return server, reg


def test_http_reads_yamlish_memories_and_carries_curation(tmp_path):
    root = yamlish_store(tmp_path)
    (root / "profile.md").write_text(PROFILE + "\n", encoding="utf-8")
    server, reg = _serve(cfg_for(tmp_path, root))
    try:
        with httpx.Client(base_url=server.url, timeout=10) as c:
            for slug in READABLE:
                r = c.get(f"/memory/{slug}")
                assert r.status_code == 200, (slug, r.text)
            assert (
                c.get("/memory/router-zh").json()["description"]
                == "路由器密码: 在抽屉里的卡片上 #家里"
            )
            assert c.get("/memory/never-closed").json()["body"].startswith("Descale the kettle")
            doc = c.get("/doctor").json()
            assert doc["ok"] and len(doc["normalise_on_write"]) == len(READABLE) - 1
            r = c.post("/recall", json={"question": "アーカイブ ディスク"}).json()
            assert "archive-ja" in r["walked"]
            assert "which-disk.md" in c.get("/prefill", params={"format": "text"}).text

            r = c.post(
                "/remember",
                json={
                    "slug": "boiler-service",
                    "description": "the boiler is serviced every May",
                    "body": "Ito services the boiler every May.",
                    "tags": ["household"],
                    "belongs_because": "this store keeps how the house runs",
                    "keep": "every May",
                },
            )
            assert r.status_code == 200, r.text
            assert r.json()["keep"] == "every May"
            assert (
                reg.store("main").read("boiler-service").curation("belongs_because")
                == "this store keeps how the house runs"
            )
            r = c.post(
                "/remember",
                json={
                    "slug": "boiler-cost",
                    "description": "boiler service",
                    "body": "Ito services it.",
                    "may_fade": "it costs 120 euros",
                },
            )
            assert r.status_code == 422 and "120" in r.json()["error"]
            assert not (root / "boiler-cost.md").exists()
            r = c.post(
                "/remember", json={"slug": "x-y", "description": "d", "body": "b", "keep": 5}
            )
            assert r.status_code == 400 and "keep" in r.json()["error"]

            prof = c.get("/profile").json()
            assert prof["learned"]["state"] == "applied" and prof["learned"]["text"] == PROFILE
            assert c.post("/profile", json={}).status_code in (
                404,
                405,
            )  # applying is a person's act
    finally:
        server.shutdown()
        server.server_close()
        reg.close()


def test_mcp_reads_yamlish_memories_and_remember_carries_curation(tmp_path):
    root = yamlish_store(tmp_path)
    cfg = cfg_for(tmp_path, root)
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "kura_core.mcp"],
        env={"KURA_CONFIG": str(cfg), "PYTHONPATH": str(ROOT), "KURA_READONLY": "0"},
        cwd=str(tmp_path),
    )

    async def main():
        async with Client(params, read_timeout_seconds=30) as c:
            tools = {t.name: t for t in (await c.list_tools()).tools}
            props = tools["kura_remember"].input_schema["properties"]
            assert {"belongs_because", "keep", "may_fade"} <= set(props)
            r = await c.call_tool("kura_read", {"slug": "archive-ja"})
            assert not r.is_error and "アーカイブ: 遅いディスクに置く" in r.content[0].text
            r = await c.call_tool("kura_map", {})
            assert all(f"{s}.md" in r.content[0].text for s in READABLE)
            r = await c.call_tool(
                "kura_remember",
                {
                    "slug": "tea-habit",
                    "description": "green tea before 9",
                    "body": "Green tea before 9.",
                    "keep": "before 9",
                    "may_fade": "which tea",
                },
            )
            assert not r.is_error, r.content[0].text
            r = await c.call_tool(
                "kura_remember",
                {
                    "slug": "tea-cost",
                    "description": "tea",
                    "body": "Green tea.",
                    "keep": "the user asked for 3 cups",
                },
            )
            assert r.is_error and "3" in r.content[0].text and "attribution" in r.content[0].text

    anyio.run(main)
    from kura_core.store import Store

    mem = Store(root).read("tea-habit")
    assert mem.curation("keep") == "before 9" and mem.curation("may_fade") == "which tea"
    assert not (root / "tea-cost.md").exists()
