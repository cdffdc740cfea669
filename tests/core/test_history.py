"""History: every write is one commit that says what, which memory and who; hand edits are
their own entries; undo restores bytes or refuses and changes nothing; git's absence is said."""

from __future__ import annotations

import contextlib
import random
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

from kura_core import history, sync
from kura_core.errors import ConflictError, NotFound
from kura_core.history import HistoryError
from kura_core.kura import Kura
from kura_core.store import Store
from tests import forked
from tests.conftest import make_registry, write_config
from tests.wait import wait_for


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(root), *args], capture_output=True, text=True, check=True
    ).stdout


def tree_bytes(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in root.iterdir() if p.is_file()}


def clean(root: Path) -> bool:
    return git(root, "status", "--porcelain", "-uall") == ""


@pytest.fixture
def k(tmp_path):
    reg = make_registry(
        tmp_path,
        stores={"main": {}},
        extra={"stores": {"main": {"write_policy": "direct-allowed"}}},
    )
    assert history.enable(reg.store("main")) is True
    assert history.enable(reg.store("main")) is False  # idempotent
    kura = Kura(reg)
    yield kura
    reg.close()


def _root(k: Kura) -> Path:
    return k.registry.store("main").root


def test_every_kind_of_write_is_one_commit_naming_what_which_and_who(k):
    root = _root(k)
    first = len(k.history(store="main"))
    history.set_default_who("person")  # the face this process is (a test may have run another)
    with history.acting("agent (mcp)"):
        k.remember("shed-key", "the shed key hangs behind the blue door", "Behind the blue door.")
    k.remember("boat-oar", "the spare oar is in the loft of the boat house", "In the loft.")
    k.annotate("shed-key", store="main", add_tags=["garden"])
    mem = k.memory("shed-key", store="main")
    k.edit_memory("shed-key", store="main", base=mem.base, body="Behind the blue door, left hook.")
    line = k.registry.store("main").index().by_slug()["boat-oar"].description
    k.apply_tidy("boat-oar", "spare oar: loft of the boat house", expected=line, store="main")
    k.retire("boat-oar", "sold the boat", store="main")
    changes = k.history(store="main")
    assert len(changes) - first == 6, [c.what for c in changes]
    got = [(c.what, c.who, c.slugs) for c in changes[:6]]
    assert got == [
        ("retire", "person", ("boat-oar",)),
        ("tidy", "person", ("boat-oar",)),
        ("edit", "person", ("shed-key",)),
        ("annotate", "person", ("shed-key",)),
        ("remember", "person", ("boat-oar",)),
        ("remember", "agent (mcp)", ("shed-key",)),
    ]
    assert clean(root)
    # each entry changes the memory and its index line together
    assert set(git(root, "show", "--name-only", "--format=", changes[4].rev).split()) == {
        "boat-oar.md",
        "MEMORY.md",
    }
    assert [c.rev for c in k.history("shed-key", store="main")] == [
        c.rev for c in changes if "shed-key" in c.slugs
    ]
    assert "_still" not in git(root, "ls-tree", "-r", "--name-only", "HEAD")


def test_a_hand_edit_is_its_own_entry_before_kura_s_next_write(k):
    root = _root(k)
    k.remember("shed-key", "the shed key hangs behind the blue door", "Behind the blue door.")
    (root / "shed-key.md").write_text(
        (root / "shed-key.md").read_text() + "\nAdded by hand.\n", encoding="utf-8"
    )
    (root / "notes.txt").write_text("a loose note\n", encoding="utf-8")
    k.remember("boat-oar", "the spare oar is in the loft of the boat house", "In the loft.")
    top, hand = k.history(store="main")[:2]
    assert (top.what, top.slugs) == ("remember", ("boat-oar",))
    assert (hand.what, hand.who, hand.slugs) == ("hand edit", history.HAND, ("shed-key",))
    shown = k.show_change(hand.rev, store="main")
    assert "+Added by hand." in shown and "notes.txt" in shown
    assert clean(root)


def test_undo_restores_memory_and_index_line_byte_for_byte(k):
    root = _root(k)
    k.remember("shed-key", "the shed key hangs behind the blue door", "Behind the blue door.")
    k.remember("boat-oar", "the spare oar is in the loft of the boat house", "In the loft.")
    before = tree_bytes(root)
    k.retire("shed-key", "moved house", store="main")
    k.remember("kiln-temp", "the kiln is fired to cone six for the glaze", "Cone six.")
    retire = next(c for c in k.history(store="main") if c.what == "retire")
    done = k.undo(retire.rev, store="main")
    assert done.what == "undo" and done.slugs == ("shed-key",) and retire.rev[:12] in done.ref
    after = tree_bytes(root)
    assert after["shed-key.md"] == before["shed-key.md"]
    # the index holds the restored line exactly as before, and the later memory's line too
    idx = after["MEMORY.md"].decode()
    assert idx.count("(kiln-temp.md)") == 1
    old_line = next(x for x in before["MEMORY.md"].decode().splitlines() if "shed-key" in x)
    assert old_line in idx.splitlines()
    assert clean(root)
    # undoing the later write leaves every byte as it was before the retire's undo had more
    kiln = next(c for c in k.history(store="main") if "kiln-temp" in c.slugs)
    k.undo(kiln.rev, store="main")
    assert tree_bytes(root) == {**before, ".gitignore": after[".gitignore"]}


def test_an_undo_that_conflicts_is_refused_and_changes_nothing(k):
    root = _root(k)
    k.remember("shed-key", "the shed key hangs behind the blue door", "Behind the blue door.")
    remember = k.history(store="main")[0]
    k.annotate("shed-key", store="main", add_tags=["garden"])
    head = git(root, "rev-parse", "HEAD")
    before = tree_bytes(root)
    with pytest.raises(ConflictError) as err:
        k.undo(remember.rev, store="main")
    msg = str(err.value)
    assert "shed-key.md changed after it" in msg and "annotate" in msg and "Nothing" in msg
    assert tree_bytes(root) == before
    assert git(root, "rev-parse", "HEAD") == head
    with pytest.raises(ConflictError):
        k.undo(k.history(store="main")[-1].rev, store="main")  # the first entry
    with pytest.raises(Exception, match="no change"):
        k.undo("--all", store="main")


def test_a_crashed_undo_is_finished_by_the_next_writer(k, monkeypatch):
    root = _root(k)
    k.remember("shed-key", "the shed key hangs behind the blue door", "Behind the blue door.")
    before = tree_bytes(root)
    k.retire("shed-key", "moved house", store="main")
    retire = k.history(store="main")[0]

    def killed(*a, **kw):
        raise KeyboardInterrupt  # the process dies after the record, before any file moved

    monkeypatch.setattr(history, "atomic_write_bytes", killed)
    with pytest.raises(KeyboardInterrupt):
        k.undo(retire.rev, store="main")
    monkeypatch.undo()
    assert (root / "_still" / "history" / "apply.json").exists()
    k.remember("boat-oar", "the spare oar is in the loft of the boat house", "In the loft.")
    assert (root / "shed-key.md").read_bytes() == before["shed-key.md"]
    whats = [c.what for c in k.history(store="main")[:3]]
    assert whats == ["remember", "undo", "retire"]
    assert clean(root)


def test_scrub_and_adopt_are_recorded_as_such(k):
    root = _root(k)
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    (root / "stray-note.md").write_text(
        "---\nname: stray-note\ndescription: the stray note about the deploy token\n---\n\n"
        f"The deploy token was {token} until it was rotated.\n",
        encoding="utf-8",
    )
    k.adopt(store="main")
    hand, *_ = [c for c in k.history(store="main") if c.what == "hand edit"]
    assert hand.slugs == ("stray-note",)
    assert any(c.what == "adopt" for c in k.history(store="main"))
    rep = k.scrub(store="main", backup=root.parent / "backup")
    assert rep.scrubbed
    top = k.history(store="main")[0]
    assert (top.what, top.slugs) == ("scrub", ("stray-note",))
    assert token not in (root / "stray-note.md").read_text()
    assert clean(root)


def test_history_off_by_config_and_without_git(tmp_path, monkeypatch):
    cfg = write_config(
        tmp_path / "kura.toml",
        f"""
        [stores.quiet]
        path = "{tmp_path / "quiet"}"
        history = false
        """,
    )
    res = Kura.init_store("quiet", tmp_path / "quiet", config=cfg)
    assert res.history == "off" and not (tmp_path / "quiet" / ".git").exists()
    with Kura.open(cfg) as k:
        with pytest.raises(Exception, match="history = false"):
            k.enable_history(store="quiet")
        with pytest.raises(HistoryError, match="keeps no history"):
            k.history(store="quiet")

    monkeypatch.setattr(history, "git_path", lambda: None)
    res = Kura.init_store("plain", tmp_path / "plain", config=tmp_path / "other.toml")
    assert "apt install git" in res.history
    st = Store(tmp_path / "plain", name="plain")
    st.write("shed-key", title="Shed key", description="behind the blue door", body="Door.")
    with Kura.open(tmp_path / "other.toml") as k, pytest.raises(HistoryError, match="git"):
        k.enable_history(store="plain")


def test_kura_init_gives_history_and_the_cli_shows_it(tmp_path, kura_bin, monkeypatch):
    cfg = tmp_path / "kura.toml"
    env = {"KURA_CONFIG": str(cfg), "HOME": str(tmp_path)}
    import os

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*kura_bin, *args], capture_output=True, text=True, env={**os.environ, **env}
        )

    out = run("init", "notes", "--path", str(tmp_path / "notes"))
    assert out.returncode == 0 and "history:" in out.stdout, out.stderr
    assert (tmp_path / "notes" / ".git").is_dir()
    assert "/_still/" in (tmp_path / "notes" / ".gitignore").read_text()
    with cfg.open("a") as f:
        f.write('write_policy = "direct-allowed"\n')
    assert (
        run("remember", "shed-key", "the shed key hangs behind the blue door", "Door.").returncode
        == 0
    )
    out = run("history", "--json")
    import json

    rows = json.loads(out.stdout)
    assert rows[0]["what"] == "remember" and rows[0]["who"] == "person (command line)"
    assert set(rows[0]) >= {"rev", "when", "what", "who", "slugs"}
    shown = run("show", rows[0]["rev"][:10])
    assert shown.returncode == 0 and "+Door." in shown.stdout
    undone = run("undo", rows[0]["rev"])
    assert undone.returncode == 0, undone.stderr
    assert not (tmp_path / "notes" / "shed-key.md").exists()
    again = run("undo", rows[0]["rev"])
    assert again.returncode != 0 and "Nothing was changed" in again.stderr
    assert run("history", "--enable").returncode == 0


# --------------------------------------------------------------------------- killed writers


def _history_writer(root: str, seed: int) -> None:
    """In a child: write, retire and undo memories as fast as it can, until killed."""
    rng = random.Random(seed)
    st = Store(root, name="crash")
    print("ready", flush=True)
    n = 0
    while True:
        n += 1
        slug = f"m{rng.randrange(12)}"
        if rng.random() < 0.15 and st.has(slug):
            st.retire(slug)
            continue
        if rng.random() < 0.1:
            with contextlib.suppress(ConflictError, HistoryError, NotFound):
                sync.undo(st, "HEAD")
            continue
        st.write(
            slug,
            title="Memory " + slug,
            description=f"version {seed}-{n}",
            body=f"body version {seed}-{n}\n" + "x" * rng.randrange(0, 2000),
            sector=rng.choice(["", "Alpha", "Beta"]),
        )


def test_writers_killed_at_random_moments_leave_history_whole(tmp_path):
    root = tmp_path / "store"
    st = Store(root, name="crash")
    st.init()
    history.enable(st)
    rng = random.Random(20261204)
    kills = interrupted = 0
    # eight kills at least, more (up to 30) until two landed between a write's files and its
    # record: on a loaded machine a child may not reach its loop before the kill
    while kills < 30 and not (kills >= 8 and interrupted >= 2):
        child = forked.spawn(_history_writer, str(root), kills)
        try:
            assert child.stdout.readline() == "ready\n", child.stderr.read()
            # the pause is the thing under test: a kill at a random moment of the write loop
            time.sleep(rng.uniform(0.05, 0.5))
        finally:
            child.send_signal(signal.SIGKILL)
            child.wait(timeout=10)
        child.close()
        kills += 1
        waiting = [
            p
            for p in ("_still/intent.json", "_still/history/apply.json", ".git/index.lock")
            if (root / p).exists()
        ]
        interrupted += bool(waiting) or not clean(root)
        fresh = Store(root, name="crash")
        fresh.recover()  # the next command
        if (root / "_still" / "history" / "apply.json").exists():
            # the killed writer's git child still held its lock on a loaded machine: the
            # undo waits and says so, and a later command finishes it
            assert fresh.pending_reason.startswith("history waits"), fresh.pending_reason

            def finished() -> bool:
                nonlocal fresh
                fresh = Store(root, name="crash")
                fresh.recover()
                return not (root / "_still" / "history" / "apply.json").exists()

            wait_for(finished, "the interrupted undo finished by a later command", interval=0.2)
        assert clean(root), (git(root, "status", "--porcelain"), fresh.pending_reason)
        assert not (root / "_still" / "history" / "apply.json").exists(), fresh.pending_reason
        log = sync.log(fresh, limit=10_000)
        assert [c.what for c in log if not c.parents] == ["history begins"], "history forked"
        whats = {c.what for c in log}
        assert "hand edit" not in whats, "a killed write was recorded as someone else's"
        idx = fresh.index().by_slug()
        assert sorted(idx) == fresh.file_slugs()
        for slug, entry in idx.items():
            assert fresh.read(slug).description == entry.description
    assert interrupted >= 2, "no kill landed inside a write; the test proved nothing"
    assert len(sync.log(Store(root, name="crash"), limit=10_000)) > 1, "nothing was written"


def test_a_pour_names_its_draft_and_evidence_manifest(tmp_path, model):
    from kura_core.distill import drafts as dr, pipeline
    from kura_core.registry import Registry
    from tests.core.test_curation import _config
    from tests.core.test_distill import echo_scribe, honest_brain, write_journal

    write_journal(
        tmp_path / "journals" / "s1.jsonl",
        [
            ("user", "the archive goes on the slow disk from now on"),
            ("assistant", "understood, I will move it tonight"),
        ],
    )
    model.script("kura_candidates", honest_brain)
    model.script("kura_compose", echo_scribe)
    k = Kura(Registry.open(_config(tmp_path, model.url)))
    history.enable(k.registry.store("main"))
    pipeline.run(k.registry, "main")
    (d,) = dr.list_drafts(k.registry.store("main"))
    with history.acting("person (app)"):
        k.pour(d.slug, store="main", by="test")
    top = k.history(store="main")[0]
    assert (top.what, top.who, top.slugs) == ("pour", "person (app)", (d.slug,))
    assert f"drafts/{d.slug}.md" in top.ref and f"evidence {d.manifest}" in top.ref
    assert clean(k.registry.store("main").root)
    k.close()


def test_history_reads_memory_names_as_the_store_does():
    from kura_core import store

    assert history._RESERVED == store.RESERVED
    assert history._SLUG.pattern == store.SLUG_RE.pattern
    assert history.slug_of("shed-key.md") == "shed-key"
    assert history.slug_of("MEMORY.md") is None and history.slug_of("charter.md") is None
    assert history.slug_of("_still/x.md") is None and history.slug_of("notes.txt") is None


def test_a_git_lock_a_killed_writer_s_child_still_holds_is_waited_for_not_failed_on(k):
    """A writer killed mid-step leaves its git child running for a moment: the next
    writer's git call finds that child's lock and waits for it rather than giving up."""
    st = k.registry.store("main")
    st.write("alpha", title="Alpha", description="first", body="one")
    lock = _root(k) / ".git" / "index.lock"
    lock.write_bytes(b"")

    def let_go() -> None:
        # the pause is the thing under test: the lock is held a while, then let go
        time.sleep(0.4)
        lock.unlink()

    t = threading.Thread(target=let_go)
    t.start()
    git = history.Git(_root(k))
    (_root(k) / "probe0.txt").write_text("probe\n", encoding="utf-8")
    git.run("add", "--", "probe0.txt")  # writes the index: needs its lock
    t.join()
    assert not lock.exists()
    # a lock nobody lets go of is reported, after the grace, as git's own words (a call
    # that must write the index: a refresh that finds nothing to write never takes it)
    lock.write_bytes(b"")
    (_root(k) / "probe.txt").write_text("probe\n", encoding="utf-8")
    with pytest.raises(HistoryError, match="index.lock"):
        git.run("add", "--", "probe.txt")
    lock.unlink()
