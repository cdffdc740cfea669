"""Curation by hand, headless: hand edits, retiring, seeds, tidy review, weave preview,
extension diffs, the tender's status and the journals a store drinks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kura_core.distill import drafts as dr, pipeline
from kura_core.distill.drafts import FloorRefused
from kura_core.errors import ConflictError, ContainmentError, KuraError, NotFound, PolicyError
from kura_core.handwork.memories import editable_text, parse_editable
from kura_core.kura import Kura
from kura_core.registry import Registry
from tests.conftest import make_store
from tests.core.test_distill import echo_scribe, honest_brain, write_journal

ROOT = Path(__file__).resolve().parents[2]


def _config(tmp_path: Path, model_url: str | None = None, policy: str = "distiller-only") -> Path:
    make_store(tmp_path / "main", "main")
    cfg = tmp_path / "kura.toml"
    text = f"""
[stores.main]
path = "{tmp_path / "main"}"
write_policy = "{policy}"

[distill]
max_items = 50

[distill.journals]
claude = "{tmp_path / "journals"}"
"""
    if model_url:
        text += f'\n[models.thinker]\nurl = "{model_url}"\nmodel = "scripted"\ntimeout = 5\n'
    cfg.write_text(text)
    return cfg


def _poured(tmp_path: Path, model) -> tuple[Kura, str]:
    """A store with one memory poured through the gate from a real journal."""
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
    pipeline.run(k.registry, "main")
    (d,) = dr.list_drafts(k.registry.store("main"))
    k.pour(d.slug, store="main", by="test")
    return k, d.slug


# --------------------------------------------------------------------------- the store primitive


def test_retire_removes_the_file_and_its_line_and_nothing_else(store):
    store.write("a", title="A", description="the first one", body="A.")
    store.write("b", title="B", description="the second one", body="B. Related: [[a]]")
    before = store.index_text()
    gone = store.retire("a")
    assert (
        gone.slug == "a"
        and "the first one" in gone.text
        and gone.index_line.startswith("- [A](a.md)")
    )
    assert not (store.root / "a.md").exists()
    assert store.index().slugs() == ["b"]
    assert store.index_text() == before.replace(gone.index_line + "\n", "")
    with pytest.raises(NotFound):
        store.retire("a")
    with pytest.raises(NotFound):
        store.read("a")


def test_a_retire_killed_after_its_intent_is_finished_by_the_next_reader(store):
    store.write("a", title="A", description="the first one", body="A.")
    store.write("b", title="B", description="the second one", body="B.")
    # what a process killed right after recording its intent leaves behind
    (store.still / "intent.json").write_text(json.dumps({"op": "retire", "slug": "a"}))
    assert store.index().slugs() == ["b"]
    assert not (store.root / "a.md").exists()
    assert not (store.still / "intent.json").exists()


def test_a_retire_killed_in_a_real_process_leaves_old_or_new(store):
    for i in range(20):
        store.write(
            f"m-{i}", title=f"M {i}", description=f"memory number {i} of the set", body=f"Body {i}."
        )
    code = (
        "import os, sys\n"
        "from kura_core import store as s\n"
        "def die(self, intent):\n"
        "    os._exit(9)\n"
        "s.Store._retire_files_locked = die\n"
        f"s.Store({str(store.root)!r}).retire('m-3')\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}
    )
    assert proc.returncode == 9
    assert (store.still / "intent.json").exists()
    from kura_core.store import Store

    fresh = Store(store.root)
    slugs = fresh.index().slugs()  # the reader rolls the intent forward
    assert "m-3" not in slugs and not (fresh.root / "m-3.md").exists()
    assert len(slugs) == 19 and set(fresh.file_slugs()) == set(slugs)


def test_none_in_meta_takes_a_key_out(store):
    store.write("a", title="A", description="one line", body="A.", meta={"keep": "the reason"})
    assert store.read("a").curation("keep") == "the reason"
    store.write("a", title="A", description="one line", body="A.", meta={"keep": None})
    assert "keep" not in store.read("a").meta


# --------------------------------------------------------------------------- hand edits


def test_pour_seals_and_a_hand_edit_breaks_the_seal_and_is_recorded(tmp_path, model):
    k, slug = _poured(tmp_path, model)
    view = k.memory(slug, store="main")
    assert view.provenance.state == "gated" and view.provenance.manifest_present
    assert view.quotes and view.quotes[0].cls == "USER"

    res = k.edit_memory(
        slug,
        store="main",
        base=view.base,
        by="ren (tui)",
        body="The archive goes on the slow disk. Checked twice.",
    )
    assert res.changed == ("body",)
    after = res.view
    assert after.provenance.state == "hand-edited" and after.provenance.seal_ok is False
    assert "no longer matches its evidence seal" in after.provenance.text
    assert "ren (tui)" in after.provenance.text
    md = after.memory.meta["metadata"]
    assert md["evidence_manifest"] == view.provenance.manifest  # the evidence is kept
    assert md["hand_edited"]["fields"] == ["body"]
    (entry,) = k.registry.workshop("main").gate_log(kinds=("edited",))
    assert entry["slug"] == slug and "passes no gate" in entry["reason"]
    assert entry["detail"]["before"] == view.text  # the text as the gate passed it
    assert after.history[0].kind == "edited"


def test_an_edit_made_outside_kura_is_seen_as_a_hand_edit(tmp_path, model):
    k, slug = _poured(tmp_path, model)
    path = k.registry.store("main").root / f"{slug}.md"
    path.write_text(path.read_text().replace("slow disk", "fast disk"))
    prov = k.memory(slug, store="main").provenance
    assert prov.state == "hand-edited" and "outside kura" in prov.text


def test_a_later_pour_seals_again(tmp_path, model):
    k, slug = _poured(tmp_path, model)
    view = k.memory(slug, store="main")
    k.edit_memory(slug, store="main", base=view.base, tags=["decision", "disks"])
    assert k.memory(slug, store="main").provenance.state == "hand-edited"
    assert k.memory(slug, store="main").provenance.seal_ok is True  # only tags changed
    store = k.registry.store("main")
    d = dr.save_draft(
        store,
        dr.Draft(
            slug=f"{slug}-ext",
            title="Archive",
            description="archive on the slow disk",
            body=store.read(slug).body + "\nChecked again.",
            decision="extends",
            target=slug,
            manifest=view.provenance.manifest,
            quotes=({"cls": "USER", "status": "verified", "text": "x"},),
        ),
    )
    k.pour(d.slug, store="main")
    assert k.memory(slug, store="main").provenance.state == "gated"


def test_an_edit_against_a_file_that_changed_since_is_refused(tmp_path, model):
    k, slug = _poured(tmp_path, model)
    view = k.memory(slug, store="main")
    k.edit_memory(slug, store="main", base=view.base, title="Archive disk")
    before = (k.registry.store("main").root / f"{slug}.md").read_text()
    with pytest.raises(ConflictError, match="changed on disk"):
        k.edit_memory(slug, store="main", base=view.base, body="something else entirely")
    assert (k.registry.store("main").root / f"{slug}.md").read_text() == before


def test_editing_title_tags_and_curation(tmp_path):
    k = Kura(Registry.open(_config(tmp_path)))
    st = k.registry.store("main")
    st.write(
        "kiln",
        title="Kiln",
        description="the kiln runs on the 32A circuit",
        body="Kiln.",
        tags=["decision", "recurred"],
        meta={"keep": "which circuit", "may_fade": "the date"},
    )
    v = k.memory("kiln", store="main")
    res = k.edit_memory(
        "kiln",
        store="main",
        base=v.base,
        title="Kiln circuit",
        tags=[],
        curation={"keep": "which circuit, and why", "may_fade": "", "belongs_because": "power"},
    )
    assert set(res.changed) == {"title", "tags", "keep", "may_fade", "belongs_because"}
    m = st.read("kiln")
    assert m.tags == () and m.curation("keep") == "which circuit, and why"
    assert "may_fade" not in m.meta and m.curation("belongs_because") == "power"
    assert st.index().by_slug()["kiln"].title == "Kiln circuit"
    assert res.view.provenance.state == "hand-edited"  # no evidence, edited by hand

    v = res.view
    with pytest.raises(KuraError, match="not one word"):
        k.edit_memory("kiln", store="main", base=v.base, tags=["a whole sentence here"])
    with pytest.raises(KuraError, match="distiller"):
        k.edit_memory("kiln", store="main", base=v.base, tags=["recurred"])  # not once it is gone
    with pytest.raises(KuraError, match="type must be"):
        k.edit_memory("kiln", store="main", base=v.base, type="fact")
    same = k.edit_memory("kiln", store="main", base=v.base, title="Kiln circuit")
    assert same.changed == ()


def test_a_frozen_store_refuses_hand_edits_and_retires(tmp_path):
    k = Kura(Registry.open(_config(tmp_path, policy="frozen")))
    k.registry.store("main").write("a", title="A", description="one line here", body="A.")
    v = k.memory("a", store="main")
    with pytest.raises(PolicyError, match="frozen"):
        k.edit_memory("a", store="main", base=v.base, body="B.")
    with pytest.raises(PolicyError, match="frozen"):
        k.retire("a", "no longer true", store="main")


def test_the_editor_text_round_trips_and_refuses_a_rename(tmp_path):
    k = Kura(Registry.open(_config(tmp_path)))
    k.registry.store("main").write(
        "kiln",
        title="Kiln: the big one",
        description="kiln on the 32A circuit",
        body="Kiln.\n\nRelated: [[x]]",
        tags=["decision"],
        meta={"keep": "which"},
    )
    v = k.memory("kiln", store="main")
    text = editable_text(v)
    assert text.startswith("---\ntitle: 'Kiln: the big one'") or "title:" in text.split("\n")[1]
    fields = parse_editable(text, "kiln")
    assert fields["title"] == "Kiln: the big one" and fields["tags"] == ["decision"]
    assert (
        fields["curation"]["keep"] == "which"
        and fields["body"].strip() == "Kiln.\n\nRelated: [[x]]"
    )
    res = k.edit_memory("kiln", store="main", base=v.base, **fields)
    assert res.changed == ()
    with pytest.raises(KuraError, match="renaming"):
        parse_editable(text.replace("name: kiln", "name: kiln-2"), "kiln")
    with pytest.raises(KuraError, match="cannot be read"):
        parse_editable("no frontmatter at all", "kiln")


# --------------------------------------------------------------------------- retire


def test_retire_keeps_the_memory_who_and_why_in_the_gate_log(tmp_path):
    k = Kura(Registry.open(_config(tmp_path)))
    st = k.registry.store("main")
    st.write(
        "old-router",
        title="Old router",
        description="the old router lives in the hall",
        body="Old.",
    )
    st.write(
        "network",
        title="Network",
        description="how the network is laid out",
        body="See [[old-router]].",
    )
    text = (st.root / "old-router.md").read_text()
    with pytest.raises(KuraError, match="say why"):
        k.retire("old-router", "  ", store="main")
    res = k.retire("old-router", "replaced by the mesh", store="main", by="ren (tui)")
    assert res.dead_links == ("network",)
    assert not st.has("old-router") and "old-router" not in st.index().slugs()
    (e,) = k.registry.workshop("main").gate_log(kinds=("retired",))
    assert e["reason"] == "replaced by the mesh" and e["detail"]["by"] == "ren (tui)"
    assert e["detail"]["text"] == text and e["detail"]["index_line"].startswith("- [Old router]")
    with pytest.raises(NotFound):
        k.retire("old-router", "again", store="main")
    assert (
        len(k.registry.workshop("main").gate_log(kinds=("retired",))) == 1
    )  # no entry for a failure


# --------------------------------------------------------------------------- seeds


def test_seeds_show_their_origin_what_confirmed_them_and_a_dismissal(tmp_path, model):
    cfg = _config(tmp_path, model.url)
    k = Kura(Registry.open(cfg))
    write_journal(
        tmp_path / "journals" / "a.jsonl",
        [
            ("assistant", "maybe a ZFS mirror would suit the NAS later"),
            ("assistant", "a solar panel on the shed could run the pump"),
        ],
    )
    ideas = [
        ("ZFS mirror for the NAS", "maybe a ZFS mirror would suit the NAS later"),
        ("Solar panel for the shed pump", "a solar panel on the shed could run the pump"),
    ]
    model.script(
        "kura_candidates",
        {
            "candidates": [
                {
                    "kind": "idea",
                    "title": t,
                    "description": t,
                    "body": t + ".",
                    "quotes": [f"[SELF] {q}"],
                }
                for t, q in ideas
            ]
        },
    )
    pipeline.run(k.registry, "main")
    seeds = {s.title: s for s in k.seed_list(store="main")}
    zfs = seeds["ZFS mirror for the NAS"]
    assert zfs.state == "waiting" and zfs.source.endswith("a.jsonl")
    assert zfs.quotes[0].cls == "SELF" and zfs.quotes[0].source.endswith("a.jsonl")

    write_journal(
        tmp_path / "journals" / "b.jsonl", [("user", "ok let's build the NAS as a ZFS mirror")]
    )
    model.script("kura_candidates", {"candidates": []})
    model.script(
        "kura_seed_check",
        {
            "confirms": [zfs.id],
            "quotes": {str(zfs.id): ["[USER] ok let's build the NAS as a ZFS mirror"]},
        },
    )
    model.script("kura_compose", echo_scribe)
    pipeline.run(k.registry, "main")
    zfs = next(s for s in k.seed_list(store="main") if s.id == zfs.id)
    assert zfs.state == "graduated"
    (conf,) = zfs.confirmed
    assert conf.journal.endswith("b.jsonl") and conf.draft
    assert conf.quotes[0].cls == "USER" and "ZFS mirror" in conf.quotes[0].text
    assert conf.draft in [d.slug for d in dr.list_drafts(k.registry.store("main"))]

    solar = seeds["Solar panel for the shed pump"]
    with pytest.raises(ConflictError, match="graduated"):
        k.dismiss_seed(zfs.id, store="main")
    out = k.dismiss_seed(solar.id, "the shed has no sun", store="main", by="ren (tui)")
    assert out.state == "dismissed" and out.dismissed[1:] == ("ren (tui)", "the shed has no sun")
    assert k.doctor(store="main").seeds == 0
    with pytest.raises(NotFound):
        k.dismiss_seed(9999, store="main")


# --------------------------------------------------------------------------- tidy review


def _weak(st):
    st.write(
        "router",
        title="Router",
        description="note",
        body="The router is in the hall cupboard; reboot weekly.",
    )
    st.write("nas", title="NAS", description="misc info", body="The NAS holds 4 disks of 8TB.")
    st.write(
        "printer",
        title="Printer",
        description="the printer in the study needs the blue cable, not wifi",
        body="The printer only works over the blue cable; do not use wifi.",
    )


def test_tidy_review_proposes_without_writing_and_apply_passes_the_floors(tmp_path, model):
    k = Kura(Registry.open(_config(tmp_path, model.url)))
    st = k.registry.store("main")
    _weak(st)
    before = st.index_text()

    def rewrite(req):
        if "Memory router" in req.messages[-1]["content"]:
            return {"description": "router in the hall cupboard; reboot weekly"}
        return {"description": "NAS with 6 disks of 8TB"}

    model.script("kura_tidy", rewrite)
    seen = []
    review = k.tidy_review(store="main", progress=seen.append)
    assert st.index_text() == before  # nothing written
    props = {p.slug: p for p in review.proposals}
    assert set(props) == {"router", "nas"} and review.scribe
    assert (
        props["router"].proposed == "router in the hall cupboard; reboot weekly"
        and not props["router"].problems
    )
    assert props["nas"].problems and "6" in props["nas"].problems[0]
    assert seen[-1].done == seen[-1].total == 2

    with pytest.raises(FloorRefused):
        k.apply_tidy("nas", props["nas"].proposed, expected="misc info", store="main")
    assert st.index().by_slug()["nas"].description == "misc info"
    # a person's own line passes the same floors
    assert (
        k.apply_tidy("nas", "NAS: 4 disks of 8TB", expected="misc info", store="main", by="ren")
        == "NAS: 4 disks of 8TB"
    )
    assert st.index().by_slug()["nas"].description == "NAS: 4 disks of 8TB"
    tidied = k.registry.workshop("main").gate_log(kinds=("tidied",))
    assert tidied[0]["detail"]["by"] == "ren" and tidied[0]["detail"]["old"] == "misc info"
    with pytest.raises(ConflictError):
        k.apply_tidy("router", "router in the hall", expected="something else", store="main")
    k.reject_tidy("router", props["router"].proposed, store="main", by="ren")
    assert k.registry.workshop("main").gate_log(kinds=("tidy-rejected",))[0]["slug"] == "router"
    assert st.index().by_slug()["router"].description == "note"


def test_tidy_review_without_a_scribe_lists_the_weak_lines(tmp_path):
    k = Kura(Registry.open(_config(tmp_path)))
    _weak(k.registry.store("main"))
    review = k.tidy_review(store="main")
    assert not review.scribe and "no scribe model is configured" in review.note
    assert {p.slug for p in review.proposals} == {"router", "nas"}
    assert all(p.proposed == "" for p in review.proposals)


def test_tidy_review_stops_when_asked(tmp_path, model):
    k = Kura(Registry.open(_config(tmp_path, model.url)))
    _weak(k.registry.store("main"))
    model.script("kura_tidy", {"description": "a rewritten line about the thing"})
    review = k.tidy_review(store="main", should_stop=lambda: True)
    assert review.stopped == "asked to stop" and model.count("kura_tidy") == 0
    assert len(review.proposals) == 2


# --------------------------------------------------------------------------- weave preview


def test_weave_preview_shows_changes_and_write_refuses_a_changed_index(tmp_path):
    k = Kura(Registry.open(_config(tmp_path)))
    st = k.registry.store("main")
    st.write(
        "a",
        title="A",
        description="short line",
        body="A.",
        type="project",
        meta={"metadata": {"created": "2020-01-01"}},
    )
    long = (
        "a very long recognition trigger that goes on and on about the archive disk, the scratch disk, "
        "the backup rotation and why the kiln controller sits on its own circuit breaker"
    )
    st.write(
        "b",
        title="B",
        description=long,
        body="B.",
        type="project",
        meta={"metadata": {"created": "2020-01-01"}},
    )
    pv = k.weave_preview(store="main")
    assert pv.current_source == "canonical" and not (st.still / "woven.md").exists()
    kinds = {c.slug: c.kind for c in pv.changes}
    assert kinds == {"a": "same", "b": "changed"} and pv.changed == 1
    b = next(c for c in pv.changes if c.slug == "b")
    assert b.before == long and b.after != long and b.layer == "trigger"

    st.write("c", title="C", description="another line", body="C.")
    with pytest.raises(ConflictError, match="preview the weave again"):
        k.weave_write(store="main", index_sha256=pv.result.index_sha256)
    pv = k.weave_preview(store="main")
    res = k.weave_write(store="main", index_sha256=pv.result.index_sha256)
    assert res.written and res.cloth == pv.result.cloth
    mv = k.map_view(store="main")
    assert mv.source == "woven" and {ln.slug: ln.text for ln in mv.lines}["b"] == b.after
    assert {ln.slug for ln in mv.lines if ln.compressed} == {"b"}
    again = k.weave_preview(store="main")
    assert again.changed == 0


# --------------------------------------------------------------------------- extension drafts


def test_an_extension_draft_carries_the_diff_of_what_it_changes(tmp_path):
    k = Kura(Registry.open(_config(tmp_path)))
    st = k.registry.store("main")
    st.write(
        "disk-layout",
        title="Disk layout",
        description="two disks: /data slow, /scratch fast",
        body="The machine has two disks.\n\n/scratch is fast.",
        tags=["reference"],
    )
    cur = st.read("disk-layout")
    dr.save_draft(
        st,
        dr.Draft(
            slug="disk-layout-ext",
            title="Disk layout",
            description="two disks: /data slow 3.2T, /scratch fast",
            body="The machine has two disks.\n\n/data holds 3.2T.\n\n/scratch is fast.",
            decision="extends",
            target="disk-layout",
            target_digest=dr.body_digest(cur.body),
        ),
    )
    dr.save_draft(
        st, dr.Draft(slug="new-one", title="New", description="a new memory", body="New.")
    )
    view = k.drafts(store="main")
    assert [d.slug for d in view.drafts] == ["disk-layout-ext", "new-one"]
    diff = view.extensions["disk-layout-ext"]
    assert set(view.extensions) == {"disk-layout-ext"}
    assert diff.exists and not diff.changed_since
    assert diff.description == (
        "two disks: /data slow, /scratch fast",
        "two disks: /data slow 3.2T, /scratch fast",
    )
    assert [(d.op, d.text) for d in diff.body if d.op != " "] == [
        ("+", "/data holds 3.2T."),
        ("+", ""),
    ]
    assert diff.added == 2 and diff.removed == 0
    st.write("disk-layout", title="Disk layout", description="two disks", body="Rewritten by hand.")
    assert k.drafts(store="main").extensions["disk-layout-ext"].changed_since


# --------------------------------------------------------------------------- tender and journals


def test_tend_status_reads_the_heartbeat_and_the_log(tmp_path):
    from kura_core.tend import Tender

    reg = Registry.open(_config(tmp_path), clock=lambda: 1_800_000_000.0)
    k = Kura(reg)
    assert k.tend_status(store="main").state == "never started"
    t = Tender(reg, "main")
    t.beat("resting")
    t.log("distil: 1 batch(es) → 2 draft(s), 0 dropped")
    t.log(
        'tick: {"did_work": true, "tracks": ["run"], "counts": {"drafted": 2}, "notes": [], "failed": "", '
        '"stopped": "", "quiet": true}'
    )
    t.rest("run")
    s = k.tend_status(store="main")
    assert s.state == "alive" and s.running and s.pid == os.getpid() and s.doing == "resting"
    assert s.last_tick["tracks"] == ["run"] and s.last_tick_at
    assert len(s.last_tick_lines) == 1 and s.last_tick_lines[0].endswith(
        "distil: 1 batch(es) → 2 draft(s), 0 dropped"
    )
    assert s.log_tail[-2].endswith("distil: 1 batch(es) → 2 draft(s), 0 dropped")
    assert "run" in s.resting and s.resting["run"] > 0
    t.beat("stopped")
    assert not k.tend_status(store="main").running
    # a tender run with --once logs what it did but no tick line: that is what its last tick did
    t.log("drain failed: drain needs a scribe model")
    t.log("tidy skipped: tidy needs a scribe model")
    assert k.tend_status(store="main").last_tick_lines[-2:] == tuple(
        line for line in k.tend_status(store="main").log_tail[-2:]
    )


def test_journals_show_marks_backlog_and_shelved_stretches(tmp_path, model):
    from tests.fakes.model_server import Status

    k = Kura(Registry.open(_config(tmp_path, model.url)))
    j = write_journal(
        tmp_path / "journals" / "s1.jsonl", [("user", "the archive goes on the slow disk")]
    )
    view = k.journals(store="main")
    (f,) = view.files
    assert (
        f.adapter == "claude" and f.unit == "byte" and f.mark == 0 and f.backlog == j.stat().st_size
    )
    assert view.roots[0].exists and view.roots[0].include == "**/*.jsonl"
    model.script("kura_candidates", Status(500, "down"))
    rep = pipeline.run(k.registry, "main")
    assert rep.shelved == 1
    (f,) = k.journals(store="main").files
    (s,) = f.shelved
    assert s.start == 0 and s.end == j.stat().st_size and "500" in s.reason


def test_journal_roots_show_every_default_pattern_of_their_adapter(tmp_path):
    cfg = _config(tmp_path)
    cfg.write_text(cfg.read_text().replace("claude = ", "gemini = "))
    (root,) = Kura(Registry.open(cfg)).journals(store="main").roots
    assert root.adapter == "gemini"
    assert root.include == "**/session-*.json, **/session-*.jsonl"


def test_a_journal_excerpt_opens_the_segment_a_quote_came_from(tmp_path, model):
    k, slug = _poured(tmp_path, model)
    q = k.memory(slug, store="main").quotes[0]
    ex = k.journal_excerpt(q.source, q.start, store="main")
    assert ex.adapter == "claude" and ex.found
    target = [ln for ln in ex.lines if ln.target]
    assert target[0].cls == "USER" and "slow disk" in target[0].text
    assert any(ln.cls == "SELF" for ln in ex.lines)  # the segment after it, too


def test_a_journal_excerpt_refuses_files_the_store_does_not_drink(tmp_path, model):
    k, _ = _poured(tmp_path, model)
    secret = tmp_path / "secret.jsonl"
    secret.write_text('{"type": "user", "message": {"content": "hush"}}\n')
    with pytest.raises(ContainmentError, match="not one of the journals"):
        k.journal_excerpt(str(secret), 0, store="main")
    with pytest.raises(ContainmentError):
        k.journal_excerpt(str(tmp_path / "journals" / ".." / "secret.jsonl"), 0, store="main")
    with pytest.raises(NotFound):
        k.journal_excerpt(str(tmp_path / "journals" / "gone.jsonl"), 0, store="main")


# --------------------------------------------------------------------------- the metabolism


def test_distil_and_drain_report_progress_and_stop_when_asked(tmp_path, model):
    k = Kura(Registry.open(_config(tmp_path, model.url)))
    for i in range(3):
        write_journal(
            tmp_path / "journals" / f"s{i}.jsonl",
            [("user", f"the archive goes on disk number {i}")],
        )
    model.script("kura_candidates", honest_brain)
    model.script("kura_compose", echo_scribe)
    seen = []
    out = k.distil(store="main", progress=seen.append, should_stop=lambda: len(seen) >= 2)
    assert out.stopped == "asked to stop" and out.report.batches == 2
    assert len(seen) == 2 and seen[0].total > 0 and seen[1].done > seen[0].done
    out = k.distil(store="main")
    assert out.report.batches == 1 and out.did_work  # the third journal, nothing lost
    model.script("kura_judge", {"verdict": "pour", "reason": "true"})
    seen.clear()
    out = k.drain(store="main", progress=seen.append)
    assert out.did_work and "poured 3" in out.summary
    assert [p.total for p in seen] == [3, 3, 3] and [p.done for p in seen] == [0, 1, 2]


def test_without_a_model_the_metabolism_says_so(tmp_path):
    k = Kura(Registry.open(_config(tmp_path)))
    assert "needs a brain and a scribe model" in k.needs("distil", store="main")
    assert "needs a scribe model" in k.needs("drain", store="main")
    assert k.needs("tidy", store="main") == "" and k.needs("weave", store="main") == ""
    # nothing to drink is not an error, model or no model (a scheduler reads exit 2)
    out = k.distil(store="main")
    assert not out.did_work and out.report.batches == 0 and out.stopped
    with pytest.raises(KuraError, match="needs a scribe model"):
        k.drain(store="main")


def test_every_shape_rule_says_what_to_fix():
    from kura_core.floors import SHAPE, TAG, Violation

    assert (
        Violation(SHAPE, "keep", "more than one line", "one_line").message()
        == "keep must be one sentence on one line"
    )
    assert (
        Violation(SHAPE, "keep", "612 characters", "too_long", "600").message()
        == "keep is 612 characters; keep it under 600"
    )
    assert Violation(SHAPE, "description", "", "empty").message() == "description is empty"
    assert (
        Violation(SHAPE, "tags", "dict", "not_a_list").message()
        == "tags must be a list of one-word strings, not dict"
    )
    assert Violation(SHAPE, "title", "?", "something_new").message() == "title is malformed: ?"
    assert Violation(TAG, "tags", "x", "something_new").message() == "tag x is refused"
    assert Violation("legacy", "", "an old reason", "legacy").message() == "legacy an old reason ()"
