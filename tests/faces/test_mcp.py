"""MCP, driven by the official SDK client (the `mcp` package, a test dependency only):
`kura mcp` over stdio as a subprocess, and /mcp on `kura serve` over streamable HTTP."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError

from tests.conftest import make_store
from tests.wait import wait_for

ROOT = Path(__file__).resolve().parents[2]

HEARTH = {
    "archive-on-slow-disk": (
        "Archive on the slow disk",
        "the archive lives on the slow disk; the fast one stays scratch",
        "The archive goes on the slow disk.\n\nRelated: [[disk-layout]]",
    ),
    "disk-layout": (
        "Disk layout",
        "two disks: a slow 8 TB archive and a fast NVMe scratch",
        "The slow disk is 8 TB. The fast disk is NVMe.\n\nRelated: [[archive-on-slow-disk]]",
    ),
}
FORGE = {
    "kiln-temperature": (
        "Kiln temperature",
        "the kiln fires at 1240 C for stoneware",
        "Stoneware fires at 1240 C. FORGE-ONLY-FACT",
    ),
}
READ_TOOLS = {"kura_recall", "kura_glance", "kura_read", "kura_map", "kura_doctor"}


@pytest.fixture
def setup(tmp_path):
    """Two stores (hearth accepts direct writes, forge does not), modes, and a kura.toml."""
    make_store(tmp_path / "hearth", "hearth", HEARTH)
    make_store(tmp_path / "forge", "forge", FORGE)
    cfg = tmp_path / "kura.toml"
    cfg.write_text(
        f'[stores.hearth]\npath = "{tmp_path / "hearth"}"\nwrite_policy = "direct-allowed"\n'
        f'[stores.forge]\npath = "{tmp_path / "forge"}"\n'
        '[modes]\ntalk = "hearth"\nbuild = "forge"\n',
        encoding="utf-8",
    )
    return tmp_path, cfg


def stdio(cfg: Path, cwd: Path, **env: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "kura_core", "mcp"],
        env={"KURA_CONFIG": str(cfg), "PYTHONPATH": str(ROOT), **env},
        cwd=str(cwd),
    )


def text_of(result) -> str:
    assert len(result.content) == 1 and result.content[0].type == "text"
    return result.content[0].text


def run(fn):
    return anyio.run(fn)


def tool_map(tools) -> dict:
    return {t.name: t for t in tools.tools}


# --------------------------------------------------------------------------- stdio


def test_read_only_is_on_unless_it_says_no():
    from kura_core.faces.mcp import env_readonly

    assert env_readonly(None) and env_readonly("1") and env_readonly("yes") and env_readonly("")
    assert not any(env_readonly(v) for v in ("0", "false", "no", "FALSE", " No ", "off"))


def test_stdio_sdk_client_initializes_lists_and_calls(setup):
    tmp, cfg = setup

    async def main():
        async with Client(stdio(cfg, tmp), read_timeout_seconds=20) as c:
            assert c.server_info.name == "kura" and c.server_info.version
            assert c.protocol_version == "2025-11-25"
            ins = c.instructions
            assert ins and len(ins.encode("utf-8")) <= 2048
            assert "kura_map" in ins and "kura_recall" in ins
            assert c.server_capabilities.tools is not None

            tools = tool_map(await c.list_tools())
            assert set(tools) == READ_TOOLS | {
                "kura_list",
                "kura_use",
            }  # read-only: no kura_remember
            for t in tools.values():
                assert t.input_schema["type"] == "object" and t.output_schema is None
            assert "store" in tools["kura_recall"].input_schema["properties"]

            r = await c.call_tool("kura_recall", {"question": "where does the archive live"})
            assert not r.is_error
            txt = text_of(r)
            # a direct question: the fastpath answers it, no model and no word tier involved
            assert "how: fastpath · picked: archive-on-slow-disk" in txt
            assert "fastpath: ok" in txt and "⚠ degraded" not in txt
            assert "The archive goes on the slow disk." in txt

            r = await c.call_tool("kura_glance", {"slug": "archive-on-slow-disk"})
            assert not r.is_error
            g = text_of(r)
            assert g.startswith("glance archive-on-slow-disk · store: hearth")
            assert "- [Archive on the slow disk](archive-on-slow-disk.md)" in g
            r = await c.call_tool("kura_glance", {"slug": "archive-on-slow"})
            assert r.is_error and "no memory 'archive-on-slow'" in text_of(r)

            r = await c.call_tool("kura_read", {"slug": "disk-layout"})
            assert not r.is_error and "The slow disk is 8 TB." in text_of(r)

            r = await c.call_tool("kura_map", {})
            m = text_of(r)
            assert not r.is_error and m.startswith("<<<KURA-MAP") and "archive-on-slow-disk" in m
            assert "kiln" not in m

            r = await c.call_tool("kura_doctor", {})
            assert not r.is_error and text_of(r).startswith("store hearth:")

            r = await c.call_tool("kura_list", {})
            assert "* hearth" in text_of(r) and "forge" in text_of(r)

            # a per-call store, then a session switch
            r = await c.call_tool("kura_read", {"slug": "kiln-temperature", "store": "build"})
            assert not r.is_error and "FORGE-ONLY-FACT" in text_of(r)
            r = await c.call_tool("kura_use", {"store": "build"})
            assert not r.is_error and "forge" in text_of(r)
            m = text_of(await c.call_tool("kura_map", {}))
            assert "kiln-temperature" in m and "archive-on-slow-disk" not in m
            assert "* forge" in text_of(await c.call_tool("kura_list", {}))

            # failures are isError results naming the cause
            r = await c.call_tool("kura_use", {"store": "atlantis"})
            assert r.is_error and "atlantis" in text_of(r) and "hearth" not in text_of(r)
            r = await c.call_tool("kura_read", {"slug": "../kura"})
            assert r.is_error and "'..'" in text_of(r)
            r = await c.call_tool("kura_read", {"slug": "MEMORY"})
            assert r.is_error and "reserved" in text_of(r)
            r = await c.call_tool("kura_read", {"slug": "nothing-here", "store": "hearth"})
            assert r.is_error and "nothing-here" in text_of(r)
            r = await c.call_tool("kura_recall", {})
            assert r.is_error and "question" in text_of(r)
            r = await c.call_tool("kura_recall", {"question": "x", "hops": "far"})
            assert r.is_error and "hops" in text_of(r)
            r = await c.call_tool("kura_recall", {"question": "x", "colour": "red"})
            assert r.is_error and "colour" in text_of(r)
            with pytest.raises(MCPError, match="read-only"):
                await c.call_tool("kura_remember", {"slug": "a-b", "description": "d", "body": "b"})
            with pytest.raises(MCPError, match="unknown tool"):
                await c.call_tool("kura_teleport", {})

    run(main)


def test_stdio_bound_mode_hides_the_store_argument_and_switching(setup):
    tmp, cfg = setup

    async def main():
        async with Client(stdio(cfg, tmp, KURA_STORE="talk"), read_timeout_seconds=20) as c:
            tools = tool_map(await c.list_tools())
            assert set(tools) == READ_TOOLS
            for t in tools.values():
                assert "store" not in t.input_schema.get("properties", {})
            assert "hearth" in c.instructions
            txt = text_of(
                await c.call_tool("kura_recall", {"question": "how big is the slow disk"})
            )
            assert "disk-layout" in txt and "FORGE-ONLY-FACT" not in txt
            r = await c.call_tool("kura_read", {"slug": "kiln-temperature", "store": "forge"})
            assert r.is_error and "bound" in text_of(r)
            r = await c.call_tool("kura_read", {"slug": "kiln-temperature"})
            assert r.is_error  # not in this store
            with pytest.raises(MCPError, match="bound"):
                await c.call_tool("kura_use", {"store": "forge"})

    run(main)


def test_kura_remember_appears_only_when_writable_and_not_read_only(setup):
    tmp, cfg = setup

    async def names(**env) -> set[str]:
        async with Client(stdio(cfg, tmp, **env), read_timeout_seconds=20) as c:
            return set(tool_map(await c.list_tools()))

    async def main():
        assert "kura_remember" not in await names(KURA_STORE="hearth")  # read-only by default
        assert "kura_remember" not in await names(KURA_STORE="hearth", KURA_READONLY="1")
        assert "kura_remember" not in await names(
            KURA_STORE="forge", KURA_READONLY="0"
        )  # distiller-only
        assert "kura_remember" in await names(KURA_STORE="hearth", KURA_READONLY="no")

        async with Client(
            stdio(cfg, tmp, KURA_STORE="talk", KURA_READONLY="0"), read_timeout_seconds=20
        ) as c:
            assert "kura_remember" in c.instructions
            r = await c.call_tool(
                "kura_remember",
                {
                    "slug": "boiler-service",
                    "description": "boiler serviced every May",
                    "body": "The boiler is serviced every May by Ito.",
                    "tags": ["decision"],
                    "type": "project",
                },
            )
            assert not r.is_error and "boiler-service" in text_of(r)
            assert "serviced every May by Ito" in text_of(
                await c.call_tool("kura_read", {"slug": "boiler-service"})
            )
            assert "boiler-service" in text_of(await c.call_tool("kura_map", {}))
            r = await c.call_tool(
                "kura_remember", {"slug": "charter", "description": "d", "body": "b"}
            )
            assert r.is_error and "reserved" in text_of(r)

        # unbound and writable: offered, and refused for a store that does not accept it
        async with Client(stdio(cfg, tmp, KURA_READONLY="0"), read_timeout_seconds=20) as c:
            tools = tool_map(await c.list_tools())
            assert "kura_remember" in tools and "hearth" in tools["kura_remember"].description
            r = await c.call_tool(
                "kura_remember", {"slug": "x-y", "description": "d", "body": "b", "store": "forge"}
            )
            assert r.is_error and "distiller-only" in text_of(r)
        assert (tmp / "hearth" / "boiler-service.md").is_file()
        assert not (tmp / "forge" / "x-y.md").exists()

    run(main)


def _rpc(proc, obj) -> None:
    proc.stdin.write((json.dumps(obj) + "\n").encode())
    proc.stdin.flush()


def test_stdio_stdout_is_only_protocol_and_exit_is_prompt(setup):
    tmp, cfg = setup
    env = {k: v for k, v in os.environ.items() if not k.startswith("KURA_")}
    env.update(KURA_CONFIG=str(cfg), PYTHONPATH=str(ROOT))
    proc = subprocess.Popen(
        [sys.executable, "-m", "kura_core", "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp,
        env=env,
    )
    try:
        _rpc(proc, {"jsonrpc": "2.0", "id": 0, "method": "server/discover", "params": {}})
        _rpc(
            proc,
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-03-26",
                    "capabilities": {},
                    "clientInfo": {"name": "t", "version": "0"},
                },
            },
        )
        _rpc(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        proc.stdin.write(b"this is not json\n\n")
        _rpc(proc, {"jsonrpc": "2.0", "id": "p", "method": "ping"})
        _rpc(proc, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        _rpc(
            proc,
            [
                {
                    "jsonrpc": "2.0",
                    "id": 3,
                    "method": "tools/call",
                    "params": {"name": "kura_recall", "arguments": {"question": "archive"}},
                },
                {
                    "jsonrpc": "2.0",
                    "method": "notifications/cancelled",
                    "params": {"requestId": 99},
                },
            ],
        )
        _rpc(proc, {"jsonrpc": "2.0", "id": 4, "method": "resources/list"})
        _rpc(
            proc,
            {
                "jsonrpc": "2.0",
                "id": 5,
                "method": "initialize",
                "params": {"protocolVersion": "1999-01-01"},
            },
        )
        replies = [json.loads(proc.stdout.readline()) for _ in range(8)]
        t0 = time.monotonic()
        proc.stdin.close()
        code = proc.wait(timeout=10)
        elapsed = time.monotonic() - t0
        rest = proc.stdout.read()
        err = proc.stderr.read().decode()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    # it exits on its own when stdin closes, not on a signal; the bound is loose so a busy
    # machine cannot fail it, yet far below any wait on a read that never comes
    assert code == 0 and elapsed < 5.0, (code, elapsed, err)
    assert rest == b""  # nothing else on stdout, ever
    for r in replies[:5] + replies[6:]:
        assert isinstance(r, dict) and r["jsonrpc"] == "2.0"
    by_id = {}
    for r in replies:
        items = r if isinstance(r, list) else [r]
        for it in items:
            by_id[it["id"]] = it
    assert by_id[0]["error"]["code"] == -32601
    assert by_id[1]["result"]["protocolVersion"] == "2025-03-26"
    assert by_id[1]["result"]["serverInfo"]["name"] == "kura"
    assert by_id[1]["result"]["capabilities"] == {"tools": {}}
    assert by_id[None]["error"]["code"] == -32700
    assert by_id["p"]["result"] == {}
    assert {t["name"] for t in by_id[2]["result"]["tools"]} == READ_TOOLS | {
        "kura_list",
        "kura_use",
    }
    assert (
        isinstance(replies[5], list) and len(replies[5]) == 1
    )  # the batch's notification got no reply
    assert "archive-on-slow-disk" in by_id[3]["result"]["content"][0]["text"]
    assert by_id[4]["error"]["code"] == -32601
    assert by_id[5]["result"]["protocolVersion"] == "2025-11-25"
    assert "kura mcp:" in err and "Traceback" not in err


def test_stdio_exits_promptly_even_mid_request(setup, model):
    """stdin closes while a recall waits on a hung model: the process still exits at once."""
    from tests.fakes.model_server import Hang

    tmp, cfg = setup
    model.script("*", Hang(30, {"slugs": []}))
    cfg.write_text(
        cfg.read_text()
        + f'[models.thinker]\nurl = "{model.spec().url}"\nmodel = "m"\ntimeout = 30\n'
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("KURA_")}
    env.update(KURA_CONFIG=str(cfg), PYTHONPATH=str(ROOT))
    proc = subprocess.Popen(
        [sys.executable, "-m", "kura_core", "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp,
        env=env,
    )
    try:
        _rpc(proc, {"jsonrpc": "2.0", "id": 1, "method": "ping"})
        assert json.loads(proc.stdout.readline())["id"] == 1
        _rpc(
            proc,
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {"name": "kura_recall", "arguments": {"question": "archive"}},
            },
        )
        wait_for(lambda: model.requests, "the recall to reach the model")
        t0 = time.monotonic()
        proc.stdin.close()
        code = proc.wait(timeout=10)
        elapsed = time.monotonic() - t0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert code == 0 and elapsed < 10.0, elapsed  # the model hangs for 30 s: nothing waits for it


def test_stdio_refuses_an_unknown_bound_store_at_the_door(setup):
    tmp, cfg = setup
    env = {k: v for k, v in os.environ.items() if not k.startswith("KURA_")}
    env.update(KURA_CONFIG=str(cfg), PYTHONPATH=str(ROOT), KURA_STORE="atlantis")
    p = subprocess.run(
        [sys.executable, "-m", "kura_core", "mcp"],
        input=b"",
        capture_output=True,
        cwd=tmp,
        env=env,
        timeout=30,
    )
    assert p.returncode == 1 and p.stdout == b""
    assert b"atlantis" in p.stderr and b"hearth" not in p.stderr


# --------------------------------------------------------------------------- streamable HTTP


@pytest.fixture
def server(setup):
    from kura_core.faces.http import make_server, start_in_thread
    from kura_core.registry import Registry

    tmp, cfg = setup
    reg = Registry.open(cfg, env={})
    srv = make_server(reg, "127.0.0.1", 0, log=io.StringIO())
    start_in_thread(srv)
    yield srv
    srv.shutdown()
    srv.server_close()
    reg.close()


def test_http_mcp_with_the_sdk_client(server):
    async def main():
        async with Client(server.url + "/mcp", read_timeout_seconds=20) as c:
            assert c.server_info.name == "kura"
            tools = tool_map(await c.list_tools())
            # stateless HTTP: no session to remember kura_use in; pass store per call instead
            assert set(tools) == READ_TOOLS | {"kura_list"}
            txt = text_of(
                await c.call_tool("kura_recall", {"question": "where does the archive live"})
            )
            assert "how: fastpath" in txt and "archive-on-slow-disk" in txt
            g = text_of(await c.call_tool("kura_glance", {"slug": "disk-layout"}))
            assert g.startswith("glance disk-layout") and "(disk-layout.md)" in g
            assert "8 TB" in text_of(await c.call_tool("kura_read", {"slug": "disk-layout"}))
            assert text_of(await c.call_tool("kura_map", {})).startswith("<<<KURA-MAP")
            r = await c.call_tool("kura_read", {"slug": "kiln-temperature", "store": "build"})
            assert "FORGE-ONLY-FACT" in text_of(r)
            with pytest.raises(MCPError, match="keep no state"):
                await c.call_tool("kura_use", {"store": "forge"})

        async with Client(server.url + "/s/build/mcp", read_timeout_seconds=20) as c:
            tools = tool_map(await c.list_tools())
            assert set(tools) == READ_TOOLS
            assert all("store" not in t.input_schema.get("properties", {}) for t in tools.values())
            m = text_of(await c.call_tool("kura_map", {}))
            assert "kiln-temperature" in m and "archive" not in m

        async with Client(
            server.url + "/mcp?store=hearth&readonly=0", read_timeout_seconds=20
        ) as c:
            tools = tool_map(await c.list_tools())
            assert "kura_remember" in tools
            r = await c.call_tool(
                "kura_remember",
                {
                    "slug": "fuse-box",
                    "description": "the fuse box is in the hall",
                    "body": "The fuse box is in the hall cupboard.",
                },
            )
            assert not r.is_error
        async with Client(server.url + "/s/forge/mcp?readonly=0", read_timeout_seconds=20) as c:
            assert "kura_remember" not in tool_map(await c.list_tools())

    run(main)


def test_http_mcp_raw_protocol(server):
    import httpx

    with httpx.Client(base_url=server.url, timeout=10) as h:
        r = h.post(
            "/mcp",
            json={"jsonrpc": "2.0", "id": 1, "method": "server/discover"},
            headers={"mcp-protocol-version": "2026-07-28", "mcp-method": "server/discover"},
        )
        assert r.status_code == 200 and r.json()["error"]["code"] == -32601
        r = h.post("/mcp", json={"jsonrpc": "2.0", "method": "notifications/initialized"})
        assert r.status_code == 202 and r.content == b""
        r = h.post("/mcp", content=b"{oops", headers={"content-type": "application/json"})
        assert r.status_code == 400 and r.json()["error"]["code"] == -32700
        r = h.post(
            "/mcp",
            json={
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {"name": "kura_map", "arguments": {}},
            },
        )
        assert r.status_code == 200 and r.json()["result"]["content"][0]["text"].startswith(
            "<<<KURA-MAP"
        )
        assert "mcp-session-id" not in r.headers
        assert h.get("/mcp").status_code == 405
        assert h.post("/mcp", json=[]).json()["error"]["code"] == -32600


# --------------------------------------------------------------------------- the bridge


def test_stdio_bridge_to_a_running_server(setup, server):
    tmp, cfg = setup

    async def main():
        params = stdio(tmp / "no-such-config.toml", tmp, KURA_URL=server.url, KURA_STORE="talk")
        async with Client(params, read_timeout_seconds=20) as c:
            assert set(tool_map(await c.list_tools())) == READ_TOOLS
            txt = text_of(
                await c.call_tool("kura_recall", {"question": "where does the archive live"})
            )
            assert "how: fastpath" in txt and "archive-on-slow-disk" in txt
            g = text_of(await c.call_tool("kura_glance", {"slug": "archive-on-slow-disk"}))
            assert "(archive-on-slow-disk.md)" in g  # the bridge asks GET /glance/<slug>
            assert "8 TB" in text_of(await c.call_tool("kura_read", {"slug": "disk-layout"}))
            assert "archive-on-slow-disk" in text_of(await c.call_tool("kura_map", {}))
            r = await c.call_tool("kura_read", {"slug": "..%2fx"})
            assert r.is_error

        # a bound store the server does not know fails at the door
        env = {k: v for k, v in os.environ.items() if not k.startswith("KURA_")}
        env.update(PYTHONPATH=str(ROOT), KURA_URL=server.url, KURA_STORE="atlantis")
        p = subprocess.run(
            [sys.executable, "-m", "kura_core", "mcp"],
            input=b"",
            capture_output=True,
            cwd=tmp,
            env=env,
            timeout=30,
        )
        assert p.returncode == 1 and p.stdout == b"" and b"atlantis" in p.stderr

        params = stdio(tmp / "no-such-config.toml", tmp, KURA_URL=server.url)
        async with Client(params, read_timeout_seconds=20) as c:
            assert await c.call_tool("kura_use", {"store": "build"})
            assert "FORGE-ONLY-FACT" in text_of(
                await c.call_tool("kura_read", {"slug": "kiln-temperature"})
            )
            r = await c.call_tool("kura_use", {"store": "atlantis"})
            assert r.is_error and "atlantis" in text_of(r)

    run(main)


def test_stdio_bridge_says_the_map_is_missing_when_kura_is_unreachable(setup):
    from tests.fakes.model_server import closed_port_url

    tmp, cfg = setup
    url = closed_port_url().split("/v1")[0]

    async def main():
        async with Client(
            stdio(cfg, tmp, KURA_URL=url, KURA_STORE="hearth"), read_timeout_seconds=20
        ) as c:
            r = await c.call_tool("kura_map", {})
            m = text_of(r)
            assert m.startswith("<<<KURA-MAP") and "missing" in m and m.strip()
            r = await c.call_tool("kura_recall", {"question": "archive"})
            assert r.is_error and "unreachable" in text_of(r)

    run(main)


def test_json_rpc_edge_cases_in_process():
    from kura_core.faces.mcp import McpSession

    class NoStores:
        def stores(self):
            return {"stores": []}

    s = McpSession(NoStores())
    bad = [
        {"jsonrpc": "2.0", "id": True, "method": "ping"},
        {"jsonrpc": "2.0", "id": None, "method": "ping"},
        {"id": 1, "method": "ping"},
        {"jsonrpc": "2.0", "id": 1},
        7,
    ]
    for m in bad:
        assert s.handle(m)["error"]["code"] == -32600, m
    assert s.handle({"jsonrpc": "2.0", "id": 1, "result": {}}) is None  # a stray response
    assert (
        s.handle({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": [1]})["error"]["code"]
        == -32602
    )
    assert (
        s.handle({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": 5}})[
            "error"
        ]["code"]
        == -32602
    )
    assert s.handle([{"jsonrpc": "2.0", "method": "notifications/initialized"}]) is None
    assert s.handle_line(b"\xff")["error"]["code"] == -32700
    assert s.handle_line(b"[" + b"7" * 5000 + b"]")["error"]["code"] == -32700
    init = s.handle(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"protocolVersion": "2024-11-05"},
        }
    )
    assert init["result"]["protocolVersion"] == "2024-11-05"
    assert len(init["result"]["instructions"].encode()) <= 2048
