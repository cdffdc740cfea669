"""A disk that refuses: full, read-only, no permission — at every step of a write.

Faults are injected through kura's one seam for disk changes (``fsutil.OPS``), step by
step; where the machine lets the test mount a small tmpfs, the same checks also run on
a real full and a real read-only filesystem (root cannot write to a read-only mount,
so this is how a read-only store is made real when tests run as root).
"""

from __future__ import annotations

import errno
import io
import json
import os
from pathlib import Path

import httpx
import pytest

from kura_core import fsutil
from kura_core.config import parse_config
from kura_core.errors import ReadOnlyStore, StorageError, StorageFull
from kura_core.faces.cli import main as cli_main
from kura_core.faces.http import make_server, start_in_thread
from kura_core.faces.mcp import LocalBackend, McpSession
from kura_core.fsutil import is_temp_name
from kura_core.kura import Kura
from kura_core.recall import recall
from kura_core.registry import Registry
from kura_core.store import Store, render_memory
from tests.fakes.disk import FailAt, FullDisk, ReadOnlyDisk, Recorder, SmallFs
from tests.fakes.model_server import closed_port_url

REASONS = {
    errno.ENOSPC: "no space left",
    errno.EROFS: "read-only",
    errno.EACCES: "permission denied",
}


def _state(root: Path) -> tuple[str, str]:
    """(alpha.md text, MEMORY.md text) as they are on disk."""
    return (root / "alpha.md").read_text(encoding="utf-8"), (root / "MEMORY.md").read_text(
        encoding="utf-8"
    )


def _consistent(root: Path) -> Store:
    """A fresh reader: rolls forward what it must, and the store holds together."""
    st = Store(root, name="s")
    idx = st.index()
    assert not st.intent_path.exists()
    assert not [n for n in os.listdir(root) if is_temp_name(n)], os.listdir(root)
    scan = st.scan()
    assert scan.unreadable == ()
    by = idx.by_slug()
    for m in scan.memories:
        assert by[m.slug].description == m.description, "memory and index line changed apart"
    return st


def _write_steps(tmp_path: Path) -> list[tuple[str, str]]:
    st = Store(tmp_path / "trace", name="s")
    st.init()
    st.write("alpha", title="Alpha", description="version one", body="body one")
    with fsutil.using(Recorder()) as rec:
        st.write("alpha", title="Alpha", description="version two", body="body two")
    return rec.steps


def test_a_write_is_traced_through_the_seam(tmp_path):
    steps = _write_steps(tmp_path)
    ops = [op for op, _ in steps]
    # temp memory, temp index and the intent are written before anything moves
    assert ops[:3] == ["open", "write", "fsync"]
    assert ("replace", "intent.json") in steps and ("replace", "alpha.md") in steps
    # the intent is the commit point; then the index, then the memory move into place
    assert (
        steps.index(("replace", "intent.json"))
        < steps.index(("replace", "MEMORY.md"))
        < steps.index(("replace", "alpha.md"))
    )
    assert steps[-1] == ("unlink", "intent.json")


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EROFS, errno.EACCES])
def test_a_failure_at_every_step_of_a_write_leaves_old_or_new_and_says_why(tmp_path, code):
    steps = _write_steps(tmp_path)
    moved = steps.index(("replace", "alpha.md"))  # the last step that changes what a reader sees
    outcomes = set()
    for i, (op, name) in enumerate(steps):
        root = tmp_path / f"s{i}"
        st = Store(root, name="s")
        st.init()
        st.write("alpha", title="Alpha", description="version one", body="body one")
        before = _state(root)
        with fsutil.using(FailAt(i, code)) as fault:
            try:
                st.write("alpha", title="Alpha", description="version two", body="body two")
                raised = None
            except StorageError as exc:
                raised = exc
        assert fault.failed == (op, fault.steps[i][1]), (i, fault.failed)
        if raised is None:
            # only tidying up after everything is in place may fail without a word
            assert i > moved, (i, op, name)
            outcomes.add("finished")
        else:
            msg = str(raised)
            assert i <= moved, (i, op, msg)
            assert REASONS[code] in msg and "Nothing was changed" in msg, msg
            assert "internal error" not in msg and "aside" not in msg
            assert _state(root) == before, f"step {i} ({op} {name}) changed the store"
            outcomes.add("old")
        # the next reader (with the disk working again) sees a whole state, and a write that
        # reported failure never appears later
        fresh = _consistent(root)
        mem = fresh.read("alpha")
        if raised is not None:
            assert mem.description == "version one" and mem.body.strip() == "body one"
        else:
            assert mem.description == "version two" and mem.body.strip() == "body two"
        # and the store takes the next write
        fresh.write("alpha", title="Alpha", description="version three", body="body three")
        assert Store(root).read("alpha").description == "version three"
    assert outcomes == {"old", "finished"}


def test_a_disk_that_refuses_even_the_undo_says_the_write_will_be_finished(tmp_path):
    """After the commit point, a failed rename is taken back by renaming the old index back.
    If the disk refuses that too, the message says the write is recorded — and it is then
    finished by the next reader, never lost and never half."""
    steps = _write_steps(tmp_path)
    st = Store(tmp_path / "s", name="s")
    st.init()
    st.write("alpha", title="Alpha", description="version one", body="body one")
    with (
        fsutil.using(FailAt(steps.index(("replace", "alpha.md")), errno.EIO, sticky=True)),
        pytest.raises(StorageError) as exc,
    ):
        st.write("alpha", title="Alpha", description="version two", body="body two")
    assert "is recorded" in str(exc.value) and "next read" in str(exc.value)
    assert "Nothing was changed" not in str(exc.value)
    mem = _consistent(st.root).read("alpha")
    assert mem.description == "version two" and mem.body.strip() == "body two"


def test_a_new_memory_that_did_not_fit_never_appears(tmp_path):
    st = Store(tmp_path / "s", name="s")
    st.init()
    st.write("alpha", title="Alpha", description="one", body="b")
    refused = 0
    for n in range(20):
        with fsutil.using(FailAt(n, errno.ENOSPC)):
            try:
                st.write("beta", title="Beta", description="new", body="nb")
                break
            except StorageFull as exc:
                told = str(exc)
                said_nothing = "Nothing was changed" in told
        fresh = _consistent(st.root)
        there = "beta" in fresh.file_slugs()
        assert there == ("beta" in fresh.index().slugs())
        assert there != said_nothing, (n, told)
        refused += said_nothing
        if there:  # recorded before the failure: finished by the reader; start over
            os.unlink(st.root / "beta.md")
            (st.root / "MEMORY.md").write_text(
                "\n".join(
                    l for l in (st.root / "MEMORY.md").read_text().split("\n") if "beta" not in l
                )
            )
    assert refused >= 9  # every step before the commit point
    assert Store(st.root).read("beta").description == "new"


def _old_style_intent(st: Store, slug: str, description: str, body: str) -> None:
    """What a writer killed after recording its intent, before preparing files, leaves."""
    text = render_memory(
        {"name": slug, "description": description, "metadata": {"type": "project", "tags": []}},
        body,
    )
    st.intent_path.write_text(
        json.dumps(
            {
                "op": "upsert",
                "slug": slug,
                "text": text,
                "title": slug,
                "description": description,
                "sector": "",
            }
        ),
        encoding="utf-8",
    )


def test_a_full_disk_never_takes_reads_down_even_with_a_write_waiting(tmp_path):
    from tests.conftest import make_registry

    reg = make_registry(
        tmp_path,
        stores={
            "main": {
                "alpha": (
                    "Alpha",
                    "the archive lives on the slow disk",
                    "The archive goes on the slow disk.",
                ),
                "beta": (
                    "Beta",
                    "the scratch disk is fast",
                    "Scratch is on NVMe.\n\nRelated: [[alpha]]",
                ),
            }
        },
        model_url=closed_port_url(),
        extra={"stores": {"main": {"write_policy": "direct-allowed"}}},
    )
    st = reg.store("main")
    _old_style_intent(st, "alpha", "the archive moved to the NAS", "The archive is on the NAS now.")
    k = Kura(reg)
    with fsutil.using(FullDisk()):
        assert Store(st.root).read("alpha").description == "the archive lives on the slow disk"
        assert "alpha" in k.index(store="main")
        res = recall(reg, "main", "where does the archive live?")
        assert res.how == "words" and res.degraded and "alpha" in res.walked
        doc = k.doctor(store="main").to_json()
        assert not doc["ok"] and any(
            "waiting to be finished" in p and "no space" in p for p in doc["problems"]
        )
        assert k.prefill(store="main").text
        with pytest.raises(StorageError) as exc:
            k.remember("gamma", "a third disk", "body", store="main")
        assert "no space" in str(exc.value) and "interrupted write" in str(exc.value)
    # space again: the next reader finishes the crashed write, and the refused one never appears
    fresh = _consistent(st.root)
    assert fresh.read("alpha").description == "the archive moved to the NAS"
    assert "gamma" not in fresh.file_slugs()
    assert k.doctor(store="main").ok, k.doctor(store="main").problems
    reg.close()


def test_a_crashed_write_is_finished_by_renames_alone_on_a_full_disk(tmp_path):
    """The intent names complete temp files: rolling it forward needs no new space."""
    st = Store(tmp_path / "s", name="s")
    st.init()
    st.write("alpha", title="Alpha", description="one", body="b1")
    steps = _write_steps(tmp_path)
    commit = steps.index(("replace", "intent.json"))

    class Crash(Recorder):
        def _note(self, op, path):
            super()._note(op, path)
            if len(self.steps) == commit + 2:  # right after the intent is in place
                raise KeyboardInterrupt  # the writer dies here, leaving its intent

    with fsutil.using(Crash()), pytest.raises(KeyboardInterrupt):
        st.write("alpha", title="Alpha", description="two", body="b2")
    assert st.intent_path.exists()
    with fsutil.using(FullDisk()):
        fresh = Store(st.root, name="s")
        assert fresh.read("alpha").description == "two"
        assert not fresh.intent_path.exists()
    _consistent(st.root)


# --------------------------------------------------------------------------- real filesystems


@pytest.fixture(params=["seam", "tmpfs"])
def small_fs(request, tmp_path):
    """A real tmpfs when asked for and the machine allows it; otherwise (and for the
    "seam" run) nothing is mounted and the test injects the fault through the seam."""
    fs = SmallFs(tmp_path / "mnt", size=768 * 1024)
    if request.param == "tmpfs":
        fs.mount()
    yield fs
    fs.unmount()


def _registry_on(root: Path) -> Registry:
    from tests.conftest import make_store

    make_store(
        root / "main",
        "main",
        {
            "alpha": (
                "Alpha",
                "the archive lives on the slow disk",
                "The archive goes on the slow disk.",
            ),
        },
    )
    cfg = parse_config(
        {
            "stores": {"main": {"path": str(root / "main"), "write_policy": "direct-allowed"}},
            "models": {"thinker": {"url": closed_port_url(), "model": "m", "timeout": 1}},
        },
        source=None,
    )
    return Registry(cfg, env={})


def test_a_full_filesystem(small_fs, tmp_path):
    """On a real full tmpfs where the machine allows one, else through the seam."""
    base = small_fs.path if small_fs.mounted else tmp_path / "plain"
    reg = _registry_on(base)
    k = Kura(reg)
    k.remember("beta", "written while there was room", "room", store="main")
    reg.workshop("main").log_gate("note", reason="before the disk filled")
    full = fsutil.using(FullDisk())
    if small_fs.mounted:
        assert small_fs.fill() > 0
        full = fsutil.using(fsutil.FsOps())
    with full:
        with pytest.raises(StorageFull) as exc:
            k.remember("gamma", "does not fit", "x" * 20000, store="main")
        assert "no space" in str(exc.value) and "Nothing was changed" in str(exc.value)
        st = reg.store("main")
        assert not st.intent_path.exists()
        res = recall(reg, "main", "where is the archive?")
        # no model: the fastpath answers this direct question, or the word tier does
        assert "alpha" in res.walked and res.how in ("fastpath", "words")
        assert k.read("beta", store="main").description == "written while there was room"
        doc = k.doctor(store="main").to_json()
        assert doc["capacity"]["memories"] == 2 and not doc["ok"]
        assert any("cannot be written" in p and "no space" in p for p in doc["problems"]), doc[
            "problems"
        ]
        assert k.prefill(store="main").text
        server = make_server(reg, "127.0.0.1", 0, log=io.StringIO())
        start_in_thread(server)
        try:
            c = httpx.Client(base_url=server.url, timeout=10)
            for path in (
                "/index",
                "/memory/alpha",
                "/prefill",
                "/stores",
                "/profile",
                "/doctor",
                "/health",
            ):
                assert c.get(path).status_code == 200, path
            r = c.post("/recall", json={"question": "archive"})
            assert r.status_code == 200 and "alpha" in r.json()["walked"]
            r = c.post("/remember", json={"slug": "gamma", "description": "d", "body": "x" * 20000})
            assert r.status_code == 507 and "no space" in r.json()["error"], r.text
            c.close()
        finally:
            server.shutdown()
            server.server_close()
    if small_fs.mounted:
        small_fs.free()
    k.remember("delta", "fits again", "room again", store="main")
    fresh = _consistent(reg.store("main").root)
    assert "gamma" not in fresh.file_slugs() and "delta" in fresh.file_slugs()
    assert reg.workshop("main").gate_log(kinds=("note",))
    reg.close()


def test_a_read_only_store(small_fs, tmp_path, capsys):
    """A real read-only mount where the machine allows one (root cannot write there),
    else EROFS through the seam: precise refusals, 4xx over HTTP, exit 1 on the CLI,
    reads keep working, and never advice to move a healthy kura.db aside."""
    base = small_fs.path if small_fs.mounted else tmp_path / "plain"
    reg = _registry_on(base)
    from tests.core.test_reliability_drafts import _draft

    _draft(
        reg.store("main"),
        "kettle-descale",
        "Kettle descale",
        "descale the kettle every quarter",
        created="2026-11-01T10:00:00",
    )
    ws = reg.workshop("main")
    ws.log_gate("note", reason="kept across the read-only spell", key="note:1")
    ws.put("watermark-like", {"mark": 42})
    reg.close()
    cfg_path = tmp_path / "kura.toml"
    cfg_path.write_text(
        f'[stores.main]\npath = "{base / "main"}"\nwrite_policy = "direct-allowed"\n'
    )

    if small_fs.mounted:
        assert small_fs.remount("ro")
        ro = fsutil.using(fsutil.FsOps())
    else:
        ro = fsutil.using(ReadOnlyDisk())
    try:
        with ro:
            reg = Registry.open(cfg_path, env={})
            k = Kura(reg)
            with pytest.raises(ReadOnlyStore) as exc:
                k.remember("beta", "refused", "body", store="main")
            assert "read-only" in str(exc.value) and "aside" not in str(exc.value)

            _read_only_on_the_cli(cfg_path, capsys)
            _read_only_over_http(reg)
            _read_only_over_mcp(k)

            code = cli_main(["-c", str(cfg_path), "doctor"])
            printed = capsys.readouterr()
            assert (
                code == 1
                and "read-only" in printed.out
                and "move it aside" not in printed.out + printed.err
            )
            reg.close()
    finally:
        if small_fs.mounted:
            small_fs.remount("rw")
    # writable again: nothing was lost, and writing works
    reg = Registry.open(cfg_path, env={})
    ws = reg.workshop("main")
    assert ws.logged("note:1") and ws.get("watermark-like") == {"mark": 42}
    Kura(reg).remember("beta", "written once it could be", "body", store="main")
    from kura_core.distill import drafts as dr

    dr.pour(reg, "main", "kettle-descale")
    assert {"beta", "kettle-descale"} <= set(_consistent(base / "main").file_slugs())
    assert [r["slug"] for r in ws.gate_log(kinds=("poured",))] == ["kettle-descale"]
    reg.close()


def _read_only_on_the_cli(cfg_path, capsys) -> None:
    """Writes exit 1 naming what to fix; reads work."""
    # the CLI: exit 1 naming what to fix
    code = cli_main(["-c", str(cfg_path), "remember", "beta", "refused", "body"])
    err = capsys.readouterr().err
    assert code == 1 and "read-only" in err and "internal error" not in err and "aside" not in err
    assert cli_main(["-c", str(cfg_path), "read", "alpha"]) == 0
    assert "slow disk" in capsys.readouterr().out
    for argv in (
        ["distill", "pour", "--all"],
        ["distill", "toss", "kettle-descale", "--reason", "no"],
    ):
        code = cli_main(["-c", str(cfg_path), *argv])
        err = capsys.readouterr().err
        assert (
            code == 1 and "read-only" in err and "internal error" not in err and "aside" not in err
        )
    assert cli_main(["-c", str(cfg_path), "distill", "drafts"]) == 0
    assert "kettle-descale" in capsys.readouterr().out


def _read_only_over_http(reg) -> None:
    """Reads answer, writes are a 403 with the reason, never a 500."""
    # HTTP: reads answer, writes are a 403 with the reason, never a 500
    server = make_server(reg, "127.0.0.1", 0, log=io.StringIO())
    start_in_thread(server)
    try:
        c = httpx.Client(base_url=server.url, timeout=10)
        r = c.post("/remember", json={"slug": "beta", "description": "d", "body": "b"})
        assert r.status_code == 403 and "read-only" in r.json()["error"], r.text
        for path in (
            "/index",
            "/memory/alpha",
            "/prefill",
            "/stores",
            "/profile",
            "/health",
        ):
            assert c.get(path).status_code == 200, path
        d = c.get("/doctor")
        assert d.status_code == 200 and d.json()["ok"] is False
        text = json.dumps(d.json())
        assert "read-only" in text and "Do not move kura.db aside" in text
        assert "move it aside" not in text
        rr = c.post("/recall", json={"question": "archive disk"})
        assert rr.status_code == 200 and "alpha" in rr.json()["walked"]
        c.close()
    finally:
        server.shutdown()
        server.server_close()


def _read_only_over_mcp(k) -> None:
    """The write tool answers with the reason; reads work."""
    # MCP: the write tool answers with the reason; reads work
    s = McpSession(LocalBackend(k), readonly=False)
    out = s.handle(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {
                "name": "kura_remember",
                "arguments": {"slug": "beta", "description": "d", "body": "b"},
            },
        }
    )
    assert out["result"]["isError"] and "read-only" in out["result"]["content"][0]["text"]
    out = s.handle(
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "kura_read", "arguments": {"slug": "alpha"}},
        }
    )
    assert not out["result"]["isError"]


def test_a_hand_made_intent_is_never_acted_on_outside_the_store(tmp_path):
    st = Store(tmp_path / "s", name="s")
    st.init()
    st.write("alpha", title="Alpha", description="one", body="b")
    victim = tmp_path / "victim.md"
    victim.write_text("keep me")
    (st.still / "drafts" / "x.md").write_text("a draft")
    for intent in (
        {"op": "settle", "also": {"remove": "../../victim.md"}},
        {
            "op": "settle",
            "also": {"remove": "drafts/../../../victim.md", "log": {"kind": "x", "key": "k"}},
        },
        {"op": "upsert", "slug": "../victim", "text": "pwned", "title": "t", "description": "d"},
        {
            "op": "upsert",
            "slug": "alpha",
            "title": "t",
            "description": "d",
            "tmp": {"memory": "../victim.md"},
            "text": render_memory({"name": "alpha", "description": "d"}, "x"),
        },
        {"op": "delete-everything"},
        ["not", "an", "intent"],
    ):
        st.intent_path.write_text(json.dumps(intent), encoding="utf-8")
        fresh = Store(st.root, name="s")
        assert fresh.read("alpha").body.strip() in ("b", "x")
        assert not st.intent_path.exists()
        assert victim.read_text() == "keep me"
    assert (st.still / "drafts" / "x.md").exists()
