"""A live kura under things going wrong around it.

* two and more processes opening a fresh `_still/kura.db` at the same instant all succeed;
* `kura.db` deleted under a running server: every route keeps answering, never a 500;
* a person's editor saving a memory in place while recalls run: every memory recall
  picked is either in the context or named in `skipped` with the reason, and a read that
  raced the save is retried.

No sleeps and no timing assertions: processes start together on a line written to
their stdin, threads stop on events.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import sys
import threading
import time

import httpx

from kura_core.errors import MemoryFormatError
from kura_core.faces.cli import main as cli_main
from kura_core.faces.http import make_server, start_in_thread
from kura_core.faces.mcp import LocalBackend, McpSession
from kura_core.recall import read_settled, recall
from kura_core.workshop import MIGRATIONS, Workshop
from tests import forked
from tests.conftest import make_registry, make_store
from tests.wait import wait_for

MEMS = {
    "alpha": (
        "Alpha",
        "the archive lives on the slow disk",
        "The archive goes on the slow disk.\n\nRelated: [[beta]]",
    ),
    "beta": ("Beta", "the scratch disk is the fast NVMe", "Scratch lives on the fast NVMe disk."),
    "gamma": ("Gamma", "the printer lives in the study", "The printer is in the study."),
}


# --------------------------------------------------------------------------- first opens


def _opener(still: str) -> None:
    """In a child: open the workshop, wait for the go, log one line, say the schema version."""
    ws = Workshop(still)
    sys.stdin.readline()  # all together
    ws.log_gate("note", reason="opened")
    print(ws.schema_version, flush=True)


def test_processes_opening_a_fresh_workshop_together_all_succeed(tmp_path):
    for round_ in range(6):
        still = tmp_path / f"r{round_}" / "_still"
        procs = [forked.spawn(_opener, str(still)) for _ in range(5)]
        for p in procs:
            p.stdin.write("go\n")
            p.stdin.flush()
        for p in procs:
            out, err = p.communicate(timeout=120)
            p.close()
            assert p.returncode == 0, err
            assert "aside" not in err and "locked" not in err
            assert out.strip() == str(len(MIGRATIONS))
        ws = Workshop(still)
        assert len(ws.gate_log(kinds=("note",))) == 5
        ws.close()


def test_opening_waits_while_another_process_creates_the_database(tmp_path):
    """The race behind a first open that failed with "database is locked": while another
    connection holds a fresh database in a write transaction, switching it to WAL is
    refused at once (SQLite does not wait there). Opening waits and then succeeds."""
    import sqlite3

    still = tmp_path / "_still"
    still.mkdir()
    creator = sqlite3.connect(still / "kura.db", isolation_level=None)
    creator.execute("BEGIN IMMEDIATE")
    creator.execute("CREATE TABLE other_process_was_here(x)")
    ws = Workshop(still)
    outcome: list = []
    opener = threading.Thread(target=lambda: outcome.append(_try(lambda: ws.schema_version)))
    opener.start()
    wait_for(
        lambda: ws.busy_waits or not opener.is_alive(),
        "the opener to meet the busy database",
        timeout=60,
        interval=0.001,
    )
    creator.execute("COMMIT")
    creator.close()
    opener.join(timeout=60)
    assert outcome == [("ok", len(MIGRATIONS))], outcome
    assert ws.busy_waits >= 1
    ws.close()


def _try(fn):
    try:
        return ("ok", fn())
    except Exception as exc:  # the test reports what happened instead
        return ("error", str(exc))


def test_a_busy_database_is_called_busy_never_damaged(tmp_path):
    import sqlite3

    from kura_core.errors import BusyError

    ws = Workshop(tmp_path / "_still")
    _ = ws.schema_version
    holder = sqlite3.connect(ws.path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        exc = ws._translate(
            sqlite3.OperationalError("database is locked"), "write to the workshop database"
        )
        assert isinstance(exc, BusyError) and "not damaged" in str(exc) and "aside" not in str(exc)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
        ws.close()


# --------------------------------------------------------------------------- kura.db deleted


def _routes_answer(c: httpx.Client) -> dict:
    out = {}
    for path in (
        "/health",
        "/index",
        "/memory/alpha",
        "/prefill",
        "/stores",
        "/profile",
        "/doctor",
        "/doctor?all=1",
    ):
        r = c.get(path)
        assert r.status_code == 200, (path, r.status_code, r.text)
        out[path] = r
    r = c.post("/recall", json={"question": "which disk holds the archive"})
    assert r.status_code == 200, r.text
    mcp = c.post(
        "/mcp",
        json={
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "kura_doctor", "arguments": {}},
        },
    )
    assert mcp.status_code == 200 and not mcp.json()["result"]["isError"], mcp.text
    return out


def test_kura_db_deleted_under_a_live_server(tmp_path):
    reg = make_registry(
        tmp_path,
        stores={"main": MEMS},
        extra={"stores": {"main": {"write_policy": "direct-allowed"}}},
    )
    log = io.StringIO()
    server = make_server(reg, "127.0.0.1", 0, log=log)
    start_in_thread(server)
    still = tmp_path / "main" / "_still"
    try:
        c = httpx.Client(
            base_url=server.url, timeout=10
        )  # keep-alive: one server thread, one connection
        _routes_answer(c)
        reg.workshop("main").log_gate("note", reason="before")
        for variant in ("db", "db+wal", "still"):
            if variant == "still":
                shutil.rmtree(still)
            else:
                for suffix in ("", "-wal", "-shm") if variant == "db+wal" else ("",):
                    p = still / f"kura.db{suffix}"
                    if p.exists():
                        p.unlink()
            answers = _routes_answer(c)
            doc = answers["/doctor"].json()
            assert "internal error" not in json.dumps(doc)
            assert any("fresh one was started" in n for n in doc["notes"]), doc["notes"]
            r = c.post(
                "/remember",
                json={
                    "slug": f"after-{variant.replace('+', '-')}",
                    "description": "written after the database went",
                    "body": "b",
                },
            )
            assert r.status_code == 200, r.text
            # the workshop works again: a row written now is read back
            reg.workshop("main").log_gate("note", reason=f"after {variant}")
            assert [e["reason"] for e in reg.workshop("main").gate_log(kinds=("note",))] == [
                f"after {variant}"
            ]
            assert (still / "kura.db").exists()
        c.close()
    finally:
        server.shutdown()
        server.server_close()
        reg.close()
    assert "internal error" not in log.getvalue()


# --------------------------------------------------------------------------- skipped and retried


def test_recall_names_every_picked_memory_it_could_not_include(tmp_path, model, capsys):
    reg = make_registry(tmp_path, stores={"main": MEMS}, model_url=model.url)
    st = reg.store("main")
    (st.root / "gamma.md").write_bytes(
        b"---\nname: gamma\ndescription: \xff\xfe not text\n---\nbody\n"
    )
    long_ago = time.time() - 3600
    os.utime(st.root / "gamma.md", (long_ago, long_ago))
    model.script("kura_pick", {"slugs": ["alpha", "gamma"]})

    res = recall(reg, "main", "where are the archive and the printer?")
    assert res.picked == ("alpha", "gamma")
    assert "alpha" in res.walked and "gamma" not in res.walked
    (skipped,) = res.skipped
    assert skipped.slug == "gamma" and "gamma.md" in skipped.reason
    assert res.to_json()["skipped"] == [{"slug": "gamma", "reason": skipped.reason}]

    cfg = tmp_path / "kura.toml"
    cfg.write_text(
        f'[stores.main]\npath = "{st.root}"\n[models.thinker]\nurl = "{model.url}"\nmodel = "m"\n'
    )
    assert cli_main(["-c", str(cfg), "recall", "--json", "archive", "printer"]) == 0
    assert json.loads(capsys.readouterr().out)["skipped"][0]["slug"] == "gamma"
    assert cli_main(["-c", str(cfg), "recall", "archive", "printer"]) == 0
    assert "⚠ skipped gamma: gamma.md" in capsys.readouterr().out

    server = make_server(reg, "127.0.0.1", 0, log=io.StringIO())
    start_in_thread(server)
    try:
        r = httpx.post(server.url + "/recall", json={"question": "archive and printer"}, timeout=10)
        assert r.status_code == 200 and r.json()["skipped"][0]["slug"] == "gamma"
    finally:
        server.shutdown()
        server.server_close()
    s = McpSession(LocalBackend(__import__("kura_core.kura", fromlist=["Kura"]).Kura(reg)))
    out = s.handle(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "kura_recall", "arguments": {"question": "archive and printer"}},
        }
    )
    assert "⚠ skipped gamma" in out["result"]["content"][0]["text"]
    reg.close()


def test_a_read_that_raced_an_in_place_save_is_retried(tmp_path):
    st = make_store(tmp_path / "main", "main", MEMS)
    full = (st.root / "alpha.md").read_text(encoding="utf-8")
    (st.root / "alpha.md").write_text(
        "", encoding="utf-8"
    )  # the editor truncated it and is writing
    real_read = st.read
    attempts = []
    saving = [True]

    def read(slug, **kw):
        attempts.append(slug)
        try:
            return real_read(slug, **kw)
        except MemoryFormatError:
            if saving[0]:
                saving[0] = False
                (st.root / "alpha.md").write_text(full, encoding="utf-8")  # ... and the save lands
            raise

    st.read = read
    mem, why = read_settled(st, "alpha")
    assert mem is not None and why == "" and mem.description == "the archive lives on the slow disk"
    assert len(attempts) == 2

    # a file broken long ago is not a race: read once, reported, no waiting
    (st.root / "alpha.md").write_text("", encoding="utf-8")
    long_ago = time.time() - 3600
    os.utime(st.root / "alpha.md", (long_ago, long_ago))
    attempts.clear()
    mem, why = read_settled(st, "alpha")
    assert mem is None and "alpha.md" in why and len(attempts) == 1


def test_an_editor_saving_in_place_under_recall_load(tmp_path, model):
    model.script("kura_pick", {"slugs": ["alpha", "gamma"]})
    reg = make_registry(tmp_path, stores={"main": MEMS}, model_url=model.url)
    st = reg.store("main")
    path = st.root / "alpha.md"
    versions = [
        path.read_text(encoding="utf-8").replace("slow disk.", f"slow disk (save {i}).")
        for i in range(200)
    ]
    done = threading.Event()
    results = []
    errors = []

    def editor():
        try:
            for text in versions:  # like an editor with backupcopy=yes: truncate, write, in place
                data = text.encode()
                with open(path, "r+b") as fh:
                    fh.truncate(0)
                    fh.write(data[: len(data) // 2])
                    fh.flush()
                    fh.write(data[len(data) // 2 :])
        except Exception as exc:  # pragma: no cover - surfaced below
            errors.append(exc)
        finally:
            done.set()

    def reader():
        try:
            while not done.is_set():
                results.append(recall(reg, "main", "which disk holds the archive"))
        except Exception as exc:  # pragma: no cover - surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=editor)] + [
        threading.Thread(target=reader) for _ in range(2)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors
    assert results
    for res in results:
        skipped = dict(res.skipped)
        assert all(why for why in skipped.values())
        assert res.how == "meaning" and res.picked == ("alpha", "gamma")
        for slug in res.picked:
            assert (slug in res.walked) != (slug in skipped), (slug, res.walked, skipped)
        assert set(res.walked) <= set(res.picked) | {"beta"}  # beta only through alpha's link
        if "alpha" in res.walked:
            assert "slow disk (save " in res.context
    final = recall(reg, "main", "which disk holds the archive")
    assert "alpha" in final.walked and final.skipped == () and "save 199" in final.context
    reg.close()


# --------------------------------------------------------------------------- no stores


def test_doctor_on_a_config_with_no_stores_says_what_to_add(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    cfg = tmp_path / "kura.toml"
    cfg.write_text("# nothing here yet\n")
    for argv in (
        ["-c", str(cfg), "doctor", "--all"],
        ["-c", str(cfg), "doctor"],
        ["-c", str(cfg), "doctor", "--all", "--json"],
    ):
        assert cli_main(argv) == 1, argv
        printed = capsys.readouterr()
        assert "no stores are configured" in printed.err + printed.out
        assert (
            "[stores.NAME]" in printed.err + printed.out
            and "kura init" in printed.err + printed.out
        )
    assert cli_main(["doctor", "--all"]) == 1  # no config file at all
    assert "no stores are configured" in capsys.readouterr().err

    from kura_core.config import parse_config
    from kura_core.registry import Registry

    reg = Registry(parse_config({}, source=None), env={})
    server = make_server(reg, "127.0.0.1", 0, log=io.StringIO())
    start_in_thread(server)
    try:
        r = httpx.get(server.url + "/doctor?all=1", timeout=10)
        assert r.status_code == 200 and r.json()["ok"] is False
        assert "no stores are configured" in r.json()["problems"][0]
    finally:
        server.shutdown()
        server.server_close()
