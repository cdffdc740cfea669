"""Drafts are never lost or doubled, and the gate log never lies — across processes and kills.

* concurrent distillers whose candidates share titles: every draft proposed is on disk
  exactly once (counted against the scribe's replies on the scripted model server);
* two processes saving drafts with one slug at the same instant keep every draft;
* a pour, a drain and a tidy killed at every step of their disk changes (SIGKILL from
  inside, through the disk seam), and killed at unplanned moments from outside: after the
  next reader, every memory poured has exactly one `poured` row, no `tossed` row names a
  memory in the store, every draft is in exactly one place, and the store holds together.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from kura_core import fsutil
from kura_core.distill import drafts as dr, pipeline
from kura_core.distill.tidy import tidy
from kura_core.fsutil import is_temp_name
from kura_core.registry import Registry
from kura_core.store import Store
from kura_core.workshop import Workshop
from tests import forked
from tests.conftest import make_store

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
SRC = "/journals/session.jsonl"


# --------------------------------------------------------------------------- building drafts


def _draft(store: Store, slug: str, title: str, said: str, *, created: str) -> dr.Draft:
    seg = {"cls": "USER", "text": said, "source": SRC, "start": 100, "end": 200, "unit": "byte"}
    manifest = dr.write_manifest(store, {"segments": [seg], "for": slug})
    quote = {
        "cls": "USER",
        "text": said,
        "status": "verified",
        "source": SRC,
        "start": 100,
        "end": 200,
        "unit": "byte",
    }
    return dr.save_draft(
        store,
        dr.Draft(
            slug=slug,
            title=title,
            description=said,
            body=said.capitalize() + ".",
            type="project",
            quotes=(quote,),
            gate={"verdict": "kept", "reasons": ["1 quote verified (USER)"]},
            manifest=manifest,
            created=created,
            source=SRC,
        ),
    )


SAYINGS = [
    ("kettle-descale", "Kettle descale", "descale the kettle every quarter"),
    ("archive-disk", "Archive disk", "the archive goes on the slow disk"),
    ("printer-room", "Printer room", "the printer lives in the study now"),
    ("router-cupboard", "Router cupboard", "the router lives in the hall cupboard"),
]


def _template(
    tmp_path: Path,
    model_url: str = "http://127.0.0.1:9/v1",
    n: int = 2,
    memories: dict | None = None,
) -> Path:
    root = tmp_path / "template"
    st = make_store(root / "main", "main", memories or {})
    for i, (slug, title, said) in enumerate(SAYINGS[:n]):
        _draft(st, slug, title, said, created=f"2026-11-0{i + 1}T10:00:00")
    ws = Workshop(st.still)
    _ = ws.schema_version
    ws.close()  # an open connection's WAL may vanish while the template is copied
    cfg = root / "kura.toml"
    cfg.write_text(
        f'[stores.main]\npath = "{root / "main"}"\n\n[models.thinker]\nurl = "{model_url}"\n'
        'model = "scripted"\ntimeout = 10\n'
    )
    return root


def _copy(template: Path, dest: Path) -> Path:
    shutil.copytree(template, dest, symlinks=True)
    cfg = dest / "kura.toml"
    cfg.write_text(cfg.read_text().replace(str(template), str(dest)))
    return cfg


def _draft_slugs(root: Path) -> set[str]:
    d = root / "_still" / "drafts"
    return (
        {p.stem for p in d.iterdir() if p.suffix == ".md" and not is_temp_name(p.name)}
        if d.is_dir()
        else set()
    )


def check_after_crash(root: Path, initial: set[str]) -> dict[str, int]:
    """The next reader opens the store; then every invariant of drafts and the gate log."""
    st = Store(root, name="main")
    idx = st.index()  # the next reader: finishes whatever a kill interrupted
    assert not st.intent_path.exists(), "the next reader must finish the interrupted step"
    assert not [n for n in os.listdir(root) if is_temp_name(n)]
    scan = st.scan()
    assert scan.unreadable == ()
    files = set(st.file_slugs())
    counts = Counter(e.slug for e in idx.entries)
    assert set(counts) == files and all(c == 1 for c in counts.values()), (counts, files)
    by = idx.by_slug()
    for m in scan.memories:
        assert by[m.slug].description == m.description

    ws = Workshop(root / "_still")
    rows = ws.query("SELECT kind, slug FROM gate_log")
    ws.close()
    poured = Counter(r["slug"] for r in rows if r["kind"] == "poured")
    tossed = Counter(r["slug"] for r in rows if r["kind"] == "tossed")
    waiting = _draft_slugs(root)
    for slug in files:
        assert poured[slug] == 1, f"{slug} is in the store with {poured[slug]} `poured` rows"
    for slug in poured:
        assert slug in files, f"`poured` logged for {slug}, which is not in the store"
    for slug in tossed:
        assert tossed[slug] == 1 and slug not in files, (
            f"`tossed` logged for {slug}, which is in the store"
        )
    for slug in waiting:
        assert slug not in files and slug not in tossed, (
            f"draft {slug} still waits but was poured or tossed"
        )
    assert waiting | files | set(tossed) == initial, (waiting, files, set(tossed), initial)
    assert len(waiting) + len(files) + len(tossed) == len(initial)
    return {"waiting": len(waiting), "poured": len(files), "tossed": len(tossed)}


# --------------------------------------------------------------------------- a kill at every step


class _Die(fsutil.FsOps):
    """The disk seam of a child that kills itself at its *k*-th disk step."""

    def __init__(self, k: int) -> None:
        self.k, self.n = k, 0

    def step(self) -> None:
        if self.n == self.k:
            os.kill(os.getpid(), signal.SIGKILL)
        self.n += 1

    def open(self, *a):
        self.step()
        return super().open(*a)

    def write(self, *a):
        self.step()
        return super().write(*a)

    def fsync(self, *a):
        self.step()
        return super().fsync(*a)

    def replace(self, *a):
        self.step()
        return super().replace(*a)

    def link(self, *a):
        self.step()
        return super().link(*a)

    def unlink(self, *a):
        self.step()
        return super().unlink(*a)


def _act_until_killed(cfg: str, action: str, k: int) -> None:
    """In a child: pour, drain or tidy with a disk that kills the process at step *k*."""
    reg = Registry.open(cfg)
    die = _Die(k)
    with fsutil.using(die):
        if action == "pour":
            for d in dr.list_drafts(reg.store("main")):
                dr.pour(reg, "main", d.slug)
        elif action == "drain":
            pipeline.drain(reg, "main")
        elif action == "tidy":
            tidy(reg, "main")
    print("finished", die.n, flush=True)


def _kill_at_every_step(tmp_path: Path, template: Path, action: str, check) -> int:
    for k in range(400):
        dest = tmp_path / f"{action}-{k}"
        cfg = _copy(template, dest)
        p = forked.run(_act_until_killed, str(cfg), action, k)
        if p.returncode == 0:
            assert p.stdout.startswith("finished"), p.stdout
            check(dest / "main", finished=True)
            return k  # the kills before this run
        assert p.returncode == -signal.SIGKILL, p.stderr
        check(dest / "main", finished=False)
        shutil.rmtree(dest)
    raise AssertionError("the action never finished")


def test_pour_killed_at_every_step_is_finished_and_logged_once(tmp_path):
    template = _template(tmp_path)
    initial = _draft_slugs(template / "main")

    def check(root: Path, finished: bool) -> None:
        got = check_after_crash(root, initial)
        if finished:
            assert got == {"waiting": 0, "poured": 2, "tossed": 0}
        # whatever the kill left waiting pours cleanly now, and is logged once
        reg = Registry.open(root.parent / "kura.toml")
        for d in dr.list_drafts(reg.store("main")):
            dr.pour(reg, "main", d.slug)
        reg.close()
        assert check_after_crash(root, initial) == {"waiting": 0, "poured": 2, "tossed": 0}

    assert _kill_at_every_step(tmp_path, template, "pour", check) > 20


@pytest.mark.slow
def test_drain_killed_at_every_step_never_judges_a_poured_draft_again(tmp_path, model):
    verdicts = {
        "Kettle descale": {"verdict": "pour", "reason": "true"},
        "Archive disk": {"verdict": "toss", "reason": "chatter"},
    }

    def judge(req):
        task = req.messages[-1]["content"]
        draft = json.loads(task.split("Draft:\n", 1)[1].split("\n\nEvidence:", 1)[0])
        judged.append(draft["title"])
        return verdicts[draft["title"]]

    judged: list[str] = []
    model.script("kura_judge", judge)
    template = _template(tmp_path, model.url)
    initial = _draft_slugs(template / "main")

    def check(root: Path, finished: bool) -> None:
        got = check_after_crash(root, initial)
        if finished:
            assert got == {"waiting": 0, "poured": 1, "tossed": 1}
        # the next drain: what was poured or tossed before the kill is never judged again
        before = len(judged)
        reg = Registry.open(root.parent / "kura.toml")
        pipeline.drain(reg, "main")
        reg.close()
        again = judged[before:]
        assert set(again) <= {title for _, title, _ in SAYINGS[:2]}
        if got["poured"]:
            assert "Kettle descale" not in again, "a poured draft was judged again"
        if got["tossed"]:
            assert "Archive disk" not in again, "a tossed draft was judged again"
        assert check_after_crash(root, initial) == {"waiting": 0, "poured": 1, "tossed": 1}

    assert _kill_at_every_step(tmp_path, template, "drain", check) > 20


@pytest.mark.slow
def test_tidy_killed_at_every_step_logs_exactly_the_lines_it_rewrote(tmp_path, model):
    mems = {
        "kettle": ("Kettle", "note", "Descale the kettle every quarter; the element scales fast."),
        "router": ("Router", "summary", "The router lives in the hall cupboard behind the coats."),
    }
    new_lines = {
        "kettle": "kettle descaling: every quarter, the element scales fast",
        "router": "router location: the hall cupboard, behind the coats",
    }

    def rewrite(req):
        task = req.messages[-1]["content"]
        slug = task.split("\nMemory ", 1)[1].split("\n", 1)[0].strip()
        return {"description": new_lines[slug]}

    model.script("kura_tidy", rewrite)
    template = _template(tmp_path, model.url, n=0, memories=mems)

    def check(root: Path, finished: bool) -> None:
        st = Store(root, name="main")
        idx = st.index()
        assert not st.intent_path.exists()
        ws = Workshop(root / "_still")
        rows = ws.gate_log(kinds=("tidied",))
        ws.close()
        by = idx.by_slug()
        logged = Counter(r["slug"] for r in rows)
        for slug, line in new_lines.items():
            rewritten = by[slug].description == line
            assert st.read(slug).description == by[slug].description
            assert logged[slug] == (1 if rewritten else 0), (slug, rewritten, logged)
        if finished:
            assert all(by[s].description == line for s, line in new_lines.items())

    assert _kill_at_every_step(tmp_path, template, "tidy", check) > 20


# --------------------------------------------------------------------------- kills from outside


def _storm_child(cfg: str, action: str) -> None:
    """In a child: pour or drain, saying which draft it is at, until killed from outside."""
    reg = Registry.open(cfg)
    print("ready", flush=True)
    if action == "pour":
        for d in dr.list_drafts(reg.store("main")):
            print("pouring", d.slug, flush=True)
            dr.pour(reg, "main", d.slug)
    else:
        pipeline.drain(
            reg, "main", progress=lambda kind, info: print("judging", info["slug"], flush=True)
        )
    print("finished", flush=True)


def test_a_storm_of_kills_on_pour_and_drain(tmp_path, model):
    model.script(
        "kura_judge",
        lambda req: {
            "verdict": "toss" if "router" in req.messages[-1]["content"] else "pour",
            "reason": "judged",
        },
    )
    template = _template(tmp_path, model.url, n=4)
    initial = _draft_slugs(template / "main")
    cfg = _copy(template, tmp_path / "storm")
    root = tmp_path / "storm" / "main"
    kills = 0
    for i in range(24):
        action = "pour" if i % 2 else "drain"
        child = forked.spawn(_storm_child, str(cfg), action)
        try:
            assert child.stdout.readline() == "ready\n", child.stderr.read()
            line = child.stdout.readline()  # wait until it is at work on a draft, then kill it
        finally:
            child.send_signal(signal.SIGKILL)
            child.wait(timeout=30)
            child.close()
        kills += line.startswith(("pouring", "judging"))
        got = check_after_crash(root, initial)
        if got["waiting"] == 0:
            break
    assert kills >= 1
    reg = Registry.open(cfg)
    pipeline.drain(reg, "main")
    reg.close()
    got = check_after_crash(root, initial)
    assert got["waiting"] == 0 and got["poured"] + got["tossed"] == 4


# --------------------------------------------------------------------------- concurrent drafts


def _saver(root: str, who: str, n: int) -> None:
    """In a child: wait for the go, then save *n* drafts that all want one slug."""
    st = Store(root, name="main")
    sys.stdin.readline()  # start together
    for i in range(n):
        dr.save_draft(
            st,
            dr.Draft(
                slug="same-title",
                title="Same title",
                description=f"{who} {i}",
                body=f"draft {i} of writer {who}",
                manifest="",
                created="2026-11-02T10:00:00",
            ),
        )
    print("done", flush=True)


def test_two_processes_saving_one_slug_keep_every_draft(tmp_path):
    st = make_store(tmp_path / "main")
    n = 30  # each writer; enough for the two to race for the same names many times
    procs = [forked.spawn(_saver, str(st.root), who, n) for who in ("a", "b")]
    for p in procs:
        p.stdin.write("go\n")
        p.stdin.flush()
    for p in procs:
        _out, err = p.communicate(timeout=120)
        p.close()
        assert p.returncode == 0, err
    drafts = dr.list_drafts(st)
    assert len(drafts) == 2 * n
    assert {d.description for d in drafts} == {f"{w} {i}" for w in "ab" for i in range(n)}
    assert len({d.slug for d in drafts}) == 2 * n
    for d in drafts:  # each file is whole and is the draft it names
        assert d.body == f"draft {d.description.split()[1]} of writer {d.description.split()[0]}"
    assert not [p for p in (st.still / "drafts").iterdir() if is_temp_name(p.name)]


def test_concurrent_distillers_with_colliding_titles_keep_every_draft(tmp_path, model, kura_bin):
    from tests.core.test_distill import config, evidence, write_journal

    lines = [("user", f"widget {i} is kept on shelf {i % 7}") for i in range(90)]
    write_journal(tmp_path / "journals" / "big.jsonl", lines)

    def colliding_brain(req):  # every candidate title is one of three, so slugs collide across runs
        cands = []
        for line in evidence(req):
            if line.startswith("[USER] "):
                said = line[7:]
                n = int(said.split()[1])
                cands.append(
                    {
                        "kind": "fact",
                        "title": f"shelf plan {('alpha', 'beta', 'gamma')[n % 3]}",
                        "description": said,
                        "body": said,
                        "quotes": [line],
                        "tags": [],
                    }
                )
        return {"candidates": cands}

    def scribe(req):
        task = req.messages[-1]["content"]
        cand = json.loads(task.split("Candidate:\n", 1)[1].split("\n\nVerified evidence:", 1)[0])
        return {
            "decision": "new",
            "slug": "",
            "title": cand["title"],
            "description": cand["description"],
            "type": "project",
            "body": cand["body"],
            "tags": [],
        }

    model.script("kura_candidates", colliding_brain)
    model.script("kura_compose", scribe)
    cfg = config(tmp_path, model.url, chunk_chars=300)
    procs = [
        subprocess.Popen(
            kura_bin + ["-c", str(cfg), "distill", "run", "--json"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=ENV,
        )
        for _ in range(3)
    ]
    outs = [p.communicate(timeout=240) for p in procs]
    for p, (_o, e) in zip(procs, outs, strict=False):
        assert p.returncode in (0, 2), e
    reg = Registry.open(cfg)
    drafts = dr.list_drafts(reg.store("main"))
    proposed = model.count("kura_compose")
    dropped = reg.workshop("main").gate_log(kinds=("dropped",))
    reg.close()
    # every draft any run proposed is on disk exactly once (or in the gate log with a reason)
    assert proposed == 90
    assert len(drafts) + len(dropped) == proposed, (len(drafts), len(dropped), proposed)
    assert sorted(d.description for d in drafts) == sorted(
        f"widget {i} is kept on shelf {i % 7}" for i in range(90)
    )
    assert len({d.slug for d in drafts}) == len(drafts)
    assert sum(json.loads(o)["drafts"] for o, _ in outs) == 90


# --------------------------------------------------------------------------- a gate log that cannot be written


def test_a_pour_whose_gate_log_cannot_be_written_is_recorded_once_it_can(tmp_path):
    template = _template(tmp_path, n=1)
    cfg = _copy(template, tmp_path / "run")
    root = tmp_path / "run" / "main"
    db = root / "_still" / "kura.db"
    for suffix in ("-wal", "-shm"):
        (root / "_still" / f"kura.db{suffix}").unlink(missing_ok=True)
    db.write_bytes(b"this is not a database, it was damaged" * 200)

    reg = Registry.open(cfg)
    mem = dr.pour(reg, "main", "kettle-descale")  # the memory is written; its row waits
    assert mem.slug == "kettle-descale"
    st = reg.store("main")
    assert dr.list_drafts(st) == []  # poured, so no longer waiting, though its file stays for now
    doc = __import__("kura_core.doctor", fromlist=["diagnose"]).diagnose(reg, "main").to_json()
    assert not doc["ok"]
    assert any("damaged" in p for p in doc["problems"])
    assert any("wait to be recorded in the gate log" in p for p in doc["problems"])
    assert not any("move it aside" in p and "damaged" not in p for p in doc["problems"])
    reg.close()

    db.unlink()  # the operator follows the advice for a damaged database
    reg = Registry.open(cfg)
    dr.finish_pours(reg, "main")
    assert check_after_crash(root, {"kettle-descale"}) == {"waiting": 0, "poured": 1, "tossed": 0}
    assert Store(root).pending() == []
    reg.close()
