"""The distiller end to end against a scripted model server on a real socket."""

from __future__ import annotations

import json
import re
import signal
import subprocess
from pathlib import Path

import pytest

from kura_core.distill import drafts as dr, marks, pipeline
from kura_core.recall import recall
from kura_core.registry import Registry
from tests.conftest import make_store
from tests.fakes.model_server import Hang, Status
from tests.wait import Overlap, wait_for

ROOT = Path(__file__).resolve().parents[2]


def claude_line(kind: str, text: str) -> str:
    if kind == "user":
        return json.dumps(
            {"type": "user", "message": {"content": [{"type": "text", "text": text}]}}
        )
    if kind == "assistant":
        return json.dumps(
            {"type": "assistant", "message": {"content": [{"type": "text", "text": text}]}}
        )
    if kind == "tool":
        return json.dumps(
            {
                "type": "user",
                "message": {
                    "content": [
                        {"type": "tool_result", "content": [{"type": "text", "text": text}]}
                    ]
                },
            }
        )
    raise ValueError(kind)


def write_journal(path: Path, events: list[tuple[str, str]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(claude_line(k, t) + "\n" for k, t in events), encoding="utf-8")
    return path


def evidence(req) -> list[str]:
    text = req.messages[-1]["content"]
    return [l for l in text.splitlines() if re.match(r"^\[(USER|TOOL|ACT|SELF)\] ", l)]


def honest_brain(req):
    """One candidate per USER line, quoting it exactly, plus one fabrication per batch."""
    cands = []
    for line in evidence(req):
        if line.startswith("[USER] "):
            said = line[7:]
            cands.append(
                {
                    "kind": "fact",
                    "title": said[:60],
                    "description": said,
                    "body": said,
                    "quotes": [line],
                    "tags": ["decision"],
                }
            )
    cands.append(
        {
            "kind": "fact",
            "title": "the user approved a third disk",
            "description": "the user approved a third disk",
            "body": "The user approved a third disk.",
            "quotes": ["[USER] yes, buy a third disk today"],
            "tags": [],
        }
    )
    return {"candidates": cands}


def echo_scribe(req):
    task = req.messages[-1]["content"]
    cand = json.loads(task.split("Candidate:\n", 1)[1].split("\n\nVerified evidence:", 1)[0])
    return {
        "decision": "new",
        "slug": "",
        "title": cand["title"],
        "description": cand["description"],
        "type": "project",
        "body": cand["body"],
        "tags": cand.get("tags") or [],
    }


def config(
    tmp_path: Path, model_url: str, *, chunk_chars: int = 24000, timeout: float = 5.0
) -> Path:
    make_store(tmp_path / "main", "main")
    cfg = tmp_path / "kura.toml"
    cfg.write_text(f"""
[stores.main]
path = "{tmp_path / "main"}"

[distill]
chunk_chars = {chunk_chars}
max_items = 50

[distill.journals]
claude = "{tmp_path / "journals"}"

[models.thinker]
url = "{model_url}"
model = "scripted"
timeout = {timeout}
""")
    return cfg


def registry(cfg: Path) -> Registry:
    return Registry.open(cfg)


def test_journal_to_memory_end_to_end(tmp_path, model):
    write_journal(
        tmp_path / "journals" / "s1.jsonl",
        [
            ("user", "the archive goes on the slow disk from now on"),
            ("assistant", "understood, I will move it tonight"),
            ("tool", "throughput 43.7 tok/s"),
        ],
    )
    model.script("kura_candidates", honest_brain)
    model.script("kura_compose", echo_scribe)
    model.script("kura_judge", {"verdict": "pour", "reason": "true to the evidence"})
    model.script(
        "kura_pick", lambda req: {"slugs": ["the-archive-goes-on-the-slow-disk-from-now-on"]}
    )
    reg = registry(config(tmp_path, model.url))

    rep = pipeline.run(reg, "main")
    assert rep.batches == 1 and len(rep.drafts) == 1
    assert rep.dropped == 1  # the fabricated quote
    store = reg.store("main")
    (d,) = dr.list_drafts(store)
    assert d.quotes[0]["cls"] == "USER" and d.quotes[0]["status"] == "verified"
    assert d.quotes[0]["source"].endswith("s1.jsonl") and d.quotes[0]["unit"] == "byte"
    text = d.path.read_text()
    assert "<!-- kura:evidence" in text and "[USER] the archive goes on the slow disk" in text
    assert store.file_slugs() == []  # nothing enters the store before drain

    dropped = reg.workshop("main").gate_log(kinds=("dropped",))
    assert dropped and "third disk" in dropped[0]["title"]

    drep = pipeline.drain(reg, "main")
    assert list(drep.poured) == [d.slug]
    mem = store.read(d.slug)
    manifest = mem.meta["metadata"]["evidence_manifest"]
    assert (
        dr.read_manifest(store, manifest)["segments"][0]["text"]
        == "the archive goes on the slow disk from now on"
    )
    assert "third" not in store.index_text()

    res = recall(reg, "main", "which disk holds the archive?")
    assert d.slug in res.walked

    again = pipeline.run(reg, "main")
    assert not again.did_work


def test_cli_run_exit_codes(tmp_path, model, kura_bin):
    write_journal(
        tmp_path / "journals" / "s1.jsonl", [("user", "we keep exactly one index, always")]
    )
    model.script("kura_candidates", honest_brain)
    model.script("kura_compose", echo_scribe)
    cfg = config(tmp_path, model.url)
    first = subprocess.run(
        kura_bin + ["-c", str(cfg), "distill", "run", "--json"], capture_output=True, text=True
    )
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout)["drafts"] == 1
    second = subprocess.run(
        kura_bin + ["-c", str(cfg), "distill", "run", "--json"], capture_output=True, text=True
    )
    assert second.returncode == 2, second.stderr
    drafts = subprocess.run(
        kura_bin + ["-c", str(cfg), "distill", "drafts"], capture_output=True, text=True
    )
    assert "we keep exactly one index" in drafts.stdout


def test_no_model_says_so_plainly(tmp_path, kura_bin):
    make_store(tmp_path / "main", "main")
    cfg = tmp_path / "kura.toml"
    cfg.write_text(
        f'[stores.main]\npath = "{tmp_path / "main"}"\n[distill.journals]\nclaude = "{tmp_path}/j"\n'
    )
    write_journal(tmp_path / "j" / "a.jsonl", [("user", "something worth keeping here")])
    out = subprocess.run(
        kura_bin + ["-c", str(cfg), "distill", "run"], capture_output=True, text=True
    )
    assert (
        out.returncode == 1
        and "needs a brain model" in out.stderr
        and "Traceback" not in out.stderr
    )


def test_failed_batch_is_shelved_and_retried(tmp_path, model):
    write_journal(tmp_path / "journals" / "s1.jsonl", [("user", "the kiln fires at cone six")])
    model.script("kura_candidates", Status(500, "overloaded"), honest_brain)
    model.script("kura_compose", echo_scribe)
    reg = registry(config(tmp_path, model.url))
    rep = pipeline.run(reg, "main")
    assert rep.shelved == 1 and not rep.drafts and "HTTP 500" in rep.errors[0]
    ws = reg.workshop("main")
    assert [r["state"] for r in marks.outstanding(ws)] == ["shelved"]
    rep2 = pipeline.run(reg, "main")
    assert len(rep2.drafts) == 1 and marks.outstanding(ws) == []
    size = (tmp_path / "journals" / "s1.jsonl").stat().st_size
    assert list(marks.marks(ws).values())[0]["mark"] == size


def test_echo_of_the_store_produces_no_new_draft(tmp_path, model):
    cfg = config(tmp_path, model.url)
    reg = registry(cfg)
    reg.store("main").write(
        "slow-disk",
        title="Slow disk",
        description="the archive lives on the slow disk",
        body="The archive goes on the slow disk; the fast one is scratch only.",
    )
    write_journal(
        tmp_path / "journals" / "s2.jsonl",
        [
            (
                "tool",
                "slow-disk.md: The archive goes on the slow disk; the fast one is scratch only.",
            ),
        ],
    )

    def brain(req):
        return {
            "candidates": [
                {
                    "kind": "fact",
                    "title": "Archive on the slow disk",
                    "description": "the archive goes on the slow disk",
                    "body": "x",
                    "quotes": [
                        "[TOOL] The archive goes on the slow disk; the fast one is scratch only."
                    ],
                }
            ]
        }

    model.script("kura_candidates", brain)
    model.script("kura_compose", echo_scribe)
    rep = pipeline.run(reg, "main")
    assert rep.batches == 1 and rep.drafts == () and rep.dropped == 1
    log = reg.workshop("main").gate_log(kinds=("dropped",))
    assert "echo" in json.dumps(log[0]["detail"]["gate"])


def test_catchup_moves_marks_without_drinking(tmp_path, model, kura_bin):
    write_journal(
        tmp_path / "journals" / "old.jsonl", [("user", f"old history line {i}") for i in range(50)]
    )
    cfg = config(tmp_path, model.url)
    out = subprocess.run(
        kura_bin + ["-c", str(cfg), "distill", "catchup", "--json"], capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert model.count() == 0
    rep = pipeline.run(registry(cfg), "main")
    assert not rep.did_work and model.count() == 0


def kill_mid_batch(cmd: list[str], model) -> None:
    """Start a kura process, wait until the brain has its batch, and SIGKILL it there."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    wait_for(lambda: model.count("kura_candidates"), "the killed run to ask for its batch")
    assert model.count("kura_candidates") == 1
    p.send_signal(signal.SIGKILL)
    p.wait()


def _batches(ws) -> list[tuple[int, int]]:
    return sorted((r["start"], r["end"]) for r in ws.query("SELECT start, end FROM batches"))


def test_two_distillers_drink_every_stretch_exactly_once(tmp_path, model, kura_bin):
    lines = [("user", f"fact number {i}: widget {i} lives on shelf {i}") for i in range(120)]
    journal = write_journal(tmp_path / "journals" / "big.jsonl", lines)

    together = Overlap(2)

    def slow_brain(req):  # each process asks one batch at a time: two at once are both drinking
        with together:
            pass
        return honest_brain(req)

    model.script("kura_candidates", slow_brain)
    model.script("kura_compose", echo_scribe)
    cfg = config(tmp_path, model.url, chunk_chars=400)
    procs = [
        subprocess.Popen(
            kura_bin + ["-c", str(cfg), "distill", "run", "--json"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    outs = [p.communicate(timeout=120) for p in procs]
    for p, (_o, e) in zip(procs, outs, strict=False):
        assert p.returncode in (0, 2), e
    both = [json.loads(o)["batches"] for o, _ in outs]
    assert together.peak == 2, "the two distillers never asked for a batch at the same time"
    assert all(n > 0 for n in both), f"one distiller did all the work: {both}"
    reg = registry(cfg)
    spans = _batches(reg.workshop("main"))
    assert spans[0][0] == 0 and spans[-1][1] == journal.stat().st_size
    for (a0, a1), (b0, b1) in zip(spans, spans[1:], strict=False):
        assert a1 == b0, f"gap or overlap between {a0}-{a1} and {b0}-{b1}"
    titles = [d.title for d in dr.list_drafts(reg.store("main"))]
    assert len(titles) == len(set(titles)) == 120


def test_a_run_killed_mid_batch_loses_nothing(tmp_path, model, kura_bin):
    journal = write_journal(
        tmp_path / "journals" / "k.jsonl",
        [("user", f"item {i} is stored in bin {i}") for i in range(30)],
    )
    model.script("kura_candidates", Hang(30.0))
    model.script("kura_compose", echo_scribe)
    cfg = config(tmp_path, model.url, chunk_chars=300, timeout=60)
    kill_mid_batch(kura_bin + ["-c", str(cfg), "distill", "run"], model)
    reg = registry(cfg)
    held = marks.outstanding(reg.workshop("main"))
    assert len(held) == 1 and held[0]["state"] == "held" and held[0]["start"] == 0

    model.script("kura_candidates", honest_brain)
    rep = pipeline.run(reg, "main")
    assert rep.did_work
    spans = _batches(reg.workshop("main"))
    assert spans[0][0] == 0 and spans[-1][1] == journal.stat().st_size
    assert len(dr.list_drafts(reg.store("main"))) == 30
    assert marks.outstanding(reg.workshop("main")) == []


def test_number_invented_by_the_scribe_is_retried_then_dropped(tmp_path, model):
    write_journal(
        tmp_path / "journals" / "n.jsonl", [("user", "the fans made the build noticeably faster")]
    )
    model.script("kura_candidates", honest_brain)
    model.script(
        "kura_compose",
        {
            "decision": "new",
            "slug": "fans",
            "title": "Fans",
            "type": "project",
            "description": "fans made the build 3x faster",
            "body": "3x faster.",
        },
    )
    reg = registry(config(tmp_path, model.url))
    rep = pipeline.run(reg, "main")
    assert rep.drafts == ()
    assert model.count("kura_compose") == 2  # one retry naming the violation
    retry = model.requests_for("kura_compose")[1]
    assert "Refused" in retry.messages[-1]["content"] and "3x" in retry.messages[-1]["content"]
    log = reg.workshop("main").gate_log(kinds=("dropped",))
    assert any("floor" in e["reason"] for e in log)


def test_drain_without_verdict_keeps_the_draft_and_fix_faces_the_floor(tmp_path, model):
    write_journal(
        tmp_path / "journals" / "d.jsonl",
        [
            ("user", "the router lives in the hall cupboard"),
            ("user", "the printer lives in the study now"),
        ],
    )
    model.script("kura_candidates", honest_brain)
    model.script("kura_compose", echo_scribe)
    reg = registry(config(tmp_path, model.url))
    pipeline.run(reg, "main")
    a, b = dr.list_drafts(reg.store("main"))
    model.script(
        "kura_judge",
        {"verdict": "maybe", "reason": "unsure"},
        {"verdict": "fix", "reason": "add a figure", "fix": {"body": "It moved 12 times."}},
    )
    rep = pipeline.drain(reg, "main")
    assert rep.poured == () and set(rep.kept) == {a.slug, b.slug}
    assert len(dr.list_drafts(reg.store("main"))) == 2
    assert reg.store("main").file_slugs() == []


def test_toss_is_kept_in_the_gate_log(tmp_path, model):
    write_journal(tmp_path / "journals" / "t.jsonl", [("user", "weather is nice today isn't it")])
    model.script("kura_candidates", honest_brain)
    model.script("kura_compose", echo_scribe)
    model.script("kura_judge", {"verdict": "toss", "reason": "small talk, not a memory"})
    reg = registry(config(tmp_path, model.url))
    pipeline.run(reg, "main")
    rep = pipeline.drain(reg, "main")
    assert len(rep.tossed) == 1
    (entry,) = reg.workshop("main").gate_log(kinds=("tossed",))
    assert entry["reason"] == "small talk, not a memory" and "weather" in entry["detail"]["draft"]


def test_extension_draft_rewrites_its_target_on_pour(tmp_path, model):
    cfg = config(tmp_path, model.url)
    reg = registry(cfg)
    store = reg.store("main")
    store.write(
        "disk-layout",
        title="Disk layout",
        description="two disks: /data slow, /scratch fast",
        body="The machine has two disks.",
    )
    write_journal(tmp_path / "journals" / "e.jsonl", [("tool", "/data 3.2T used 1.1T avail")])

    def brain(req):
        return {
            "candidates": [
                {
                    "kind": "fact",
                    "title": "data disk size",
                    "description": "/data is 3.2T",
                    "body": "/data is 3.2T",
                    "quotes": ["[TOOL] /data 3.2T used 1.1T avail"],
                }
            ]
        }

    model.script("kura_candidates", brain)
    model.script(
        "kura_compose",
        {
            "decision": "extends",
            "target": "disk-layout",
            "title": "Disk layout",
            "description": "two disks: /data slow 3.2T, /scratch fast",
            "body": "The machine has two disks.\n\n/data holds 3.2T.",
            "type": "project",
        },
    )
    pipeline.run(reg, "main")
    (d,) = dr.list_drafts(store)
    assert d.decision == "extends" and d.target == "disk-layout" and d.writes == "disk-layout"
    mem = dr.pour(reg, "main", d.slug)
    assert mem.slug == "disk-layout" and "3.2T" in mem.body
    assert store.file_slugs() == ["disk-layout"]
    assert store.index().entries[0].description == "two disks: /data slow 3.2T, /scratch fast"


def test_covered_from_another_session_marks_recurred(tmp_path, model):
    cfg = config(tmp_path, model.url)
    reg = registry(cfg)
    model.script("kura_candidates", honest_brain)
    model.script("kura_compose", echo_scribe)
    write_journal(
        tmp_path / "journals" / "a.jsonl", [("user", "the fans must stay on the quiet profile")]
    )
    pipeline.run(reg, "main")
    (d,) = dr.list_drafts(reg.store("main"))
    dr.pour(reg, "main", d.slug)
    write_journal(
        tmp_path / "journals" / "b.jsonl",
        [("user", "again: the fans must stay on the quiet profile")],
    )
    model.script("kura_compose", {"decision": "covered", "target": d.slug})
    rep = pipeline.run(reg, "main")
    assert rep.covered == 1 and rep.drafts == ()
    assert "recurred" in reg.store("main").read(d.slug).tags
    # raised again in the same session: no second tag, no change
    assert reg.store("main").read(d.slug).tags.count("recurred") == 1


def test_ideas_go_to_seeds_and_graduate_only_on_verified_evidence(tmp_path, model):
    cfg = config(tmp_path, model.url)
    reg = registry(cfg)
    write_journal(
        tmp_path / "journals" / "a.jsonl",
        [("assistant", "maybe a ZFS mirror would suit the NAS later")],
    )
    model.script(
        "kura_candidates",
        {
            "candidates": [
                {
                    "kind": "idea",
                    "title": "ZFS mirror for the NAS",
                    "description": "a ZFS mirror might suit the NAS",
                    "body": "A ZFS mirror might suit the NAS.",
                    "quotes": ["[SELF] maybe a ZFS mirror would suit the NAS later"],
                }
            ]
        },
    )
    rep = pipeline.run(reg, "main")
    assert rep.seeds == 1 and rep.drafts == ()
    ws = reg.workshop("main")
    (seed,) = ws.query("SELECT id, state FROM seeds")
    assert seed["state"] == "waiting"
    write_journal(
        tmp_path / "journals" / "b.jsonl", [("user", "ok let's build the NAS as a ZFS mirror")]
    )
    model.script("kura_candidates", {"candidates": []})
    model.script(
        "kura_seed_check",
        {"confirms": [seed["id"]], "quotes": {str(seed["id"]): ["[USER] I never said this"]}},
        {
            "confirms": [seed["id"]],
            "quotes": {str(seed["id"]): ["[USER] ok let's build the NAS as a ZFS mirror"]},
        },
    )
    model.script("kura_compose", echo_scribe)
    pipeline.run(reg, "main")  # first check: a fabricated quote, the seed stays waiting
    assert ws.query("SELECT state FROM seeds")[0]["state"] == "waiting"
    write_journal(
        tmp_path / "journals" / "c.jsonl", [("user", "ok let's build the NAS as a ZFS mirror")]
    )
    rep = pipeline.run(reg, "main")
    assert rep.graduated == 1
    assert ws.query("SELECT state FROM seeds")[0]["state"] == "graduated"
    assert any("ZFS" in d.title for d in dr.list_drafts(reg.store("main")))


def test_tidy_rewrites_weak_lines_through_the_floors(tmp_path, model):
    from kura_core.distill.tidy import find_weak_lines, tidy

    cfg = config(tmp_path, model.url)
    reg = registry(cfg)
    st = reg.store("main")
    st.write(
        "router",
        title="Router",
        description="note",
        body="The router is in the hall cupboard; reboot weekly.",
    )
    st.write(
        "printer",
        title="Printer",
        description="the printer in the study needs the blue cable, not wifi",
        body="The printer only works over the blue cable; do not use wifi.",
    )
    st.write("nas", title="NAS", description="misc info", body="The NAS holds 4 disks of 8TB.")
    flagged = {f["slug"]: f["why"] for f in find_weak_lines(reg, "main")}
    assert set(flagged) == {"router", "nas"}

    def rewrite(req):
        task = req.messages[-1]["content"]
        if "Memory router" in task:
            return {"description": "router in the hall cupboard; reboot weekly"}
        return {"description": "NAS with 6 disks of 8TB"}  # invents a number

    model.script("kura_tidy", rewrite)
    rep = tidy(reg, "main")
    assert [r["slug"] for r in rep.rewritten] == ["router"]
    assert rep.refused and rep.refused[0]["slug"] == "nas" and "6" in rep.refused[0]["reason"]
    assert (
        st.index().by_slug()["router"].description == "router in the hall cupboard; reboot weekly"
    )
    assert st.index().by_slug()["nas"].description == "misc info"


def test_gate_cli_json_contract(tmp_path, kura_bin):
    journal = write_journal(
        tmp_path / "j.jsonl",
        [("user", "we are NOT going to add a second index"), ("tool", "throughput 43.7 tok/s")],
    )
    cands = tmp_path / "c.json"
    cands.write_text(
        json.dumps(
            {
                "candidates": [
                    {
                        "kind": "fact",
                        "title": "One index",
                        "description": "no second index",
                        "body": "One index.",
                        "quotes": ["[TOOL] we are NOT going to add a second index"],
                    },
                    {
                        "kind": "fact",
                        "title": "Throughput",
                        "description": "44 tok/s",
                        "body": "44 tok/s",
                        "quotes": ["[TOOL] throughput 43.7 tok/s"],
                    },
                ]
            }
        )
    )
    out = subprocess.run(
        kura_bin + ["gate", "--journal", str(journal), "--candidates", str(cands), "--json"],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    first, second = data["candidates"]
    assert first["verdict"] == "kept"
    assert first["quotes"][0]["claimed"] == "TOOL" and first["quotes"][0]["class"] == "USER"
    assert first["quotes"][0]["status"] == "verified"
    assert second["verdict"] == "dropped"
    assert any(
        v["kind"] == "number" and "44" in v["text"] and "44" in v["message"]
        for v in second["violations"]
    )
    for c in data["candidates"]:
        assert set(("title", "verdict", "reasons", "classes", "quotes", "violations")) <= set(c)


def test_a_missing_journal_root_is_named(tmp_path, model, kura_bin):
    cfg = config(tmp_path, model.url)  # journals point at tmp_path/journals, never created
    out = subprocess.run(
        kura_bin + ["-c", str(cfg), "distill", "run"], capture_output=True, text=True
    )
    assert out.returncode == 2
    assert f"journal root {tmp_path / 'journals'} (claude) does not exist" in out.stdout
    doc = subprocess.run(kura_bin + ["-c", str(cfg), "doctor"], capture_output=True, text=True)
    assert "does not exist" in doc.stdout


def test_a_batch_drunk_again_after_a_scribe_failure_makes_no_duplicate_drafts(tmp_path, model):
    write_journal(
        tmp_path / "journals" / "r.jsonl",
        [
            ("user", "the router lives in the hall cupboard"),
            ("user", "the printer lives in the study now"),
        ],
    )
    model.script("kura_candidates", honest_brain)
    model.script("kura_compose", echo_scribe, Status(503, "busy"), echo_scribe)
    reg = registry(config(tmp_path, model.url))
    first = pipeline.run(reg, "main")
    assert first.shelved == 1 and len(first.drafts) == 1
    second = pipeline.run(reg, "main")
    assert len(second.drafts) == 1 and second.covered == 1
    titles = sorted(d.title for d in dr.list_drafts(reg.store("main")))
    assert titles == ["the printer lives in the study now", "the router lives in the hall cupboard"]


def test_fix_refuses_a_sentence_smuggled_into_a_tag_and_claim_tags_without_evidence(
    tmp_path, model
):
    write_journal(tmp_path / "journals" / "f.jsonl", [("tool", "fan speed held at 30 % on GPU 1")])

    def brain(req):
        return {
            "candidates": [
                {
                    "kind": "fact",
                    "title": "GPU 1 fan at 30 %",
                    "description": "GPU 1 fan held at 30 %",
                    "body": "The fan on GPU 1 held at 30 %.",
                    "quotes": ["[TOOL] fan speed held at 30 % on GPU 1"],
                    "tags": ["cooling"],
                }
            ]
        }

    model.script("kura_candidates", brain)
    model.script("kura_compose", echo_scribe)
    reg = registry(config(tmp_path, model.url))
    pipeline.run(reg, "main")
    (d,) = dr.list_drafts(reg.store("main"))
    with pytest.raises(dr.FloorRefused, match="not one word"):
        dr.fix(reg, "main", d.slug, tags=["cooling", "the user decided this after 7 tries"])
    with pytest.raises(dr.FloorRefused, match="entrusted needs a surviving USER quote"):
        dr.fix(reg, "main", d.slug, tags=["cooling", "entrusted"])
    with pytest.raises(dr.FloorRefused, match="written by the distiller"):
        dr.fix(reg, "main", d.slug, tags=["recurred"])
    assert dr.read_draft(reg.store("main"), d.slug).tags == ("cooling",)  # unchanged
    fixed = dr.fix(reg, "main", d.slug, tags=["cooling", "gpu", "ファン"])
    assert fixed.tags == ("cooling", "gpu", "ファン")
    assert dr.pour(reg, "main", d.slug).tags == ("cooling", "gpu", "ファン")
