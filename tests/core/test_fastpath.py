"""The fastpath: recall's tier zero answers direct questions without a model, and never wrongly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from kura_core.config import parse_config
from kura_core.distill import drafts as dr
from kura_core.errors import ConfigError
from kura_core.fastpath import FastDoc, Recognizer, compact, learn_cues, strip_filler
from kura_core.recall import fast_index, recall
from kura_core.registry import Registry
from tests.conftest import make_registry
from tests.core.linear_inputs import JA, ZH, grows_linearly

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "recall_set.json"
SET = json.loads(FIXTURE.read_text(encoding="utf-8"))
MEMORIES = SET["memories"]
DOCS = [FastDoc(m["slug"], m["title"], m["description"], m["body"]) for m in MEMORIES]
REC = Recognizer(DOCS)

#: how a direct question frames a title, by language
FRAMES = {
    "en": ("what about {t}?", "{t}", "tell me about {t}", "remind me: {t}", "{t} — what was it?"),
    "ja": ("{t}について教えて", "{t}は?", "{t}ってなんだっけ", "{t}"),
    "zh": ("{t}是怎么回事？", "关于{t}", "{t}吗", "请问{t}"),
}

#: direct questions in the memory's own words (not its whole title), by language
DIRECT = [
    ("where does the archive go?", "archive-on-slow-disk"),
    ("is pg_upgrade --link reversible?", "pg-upgrade-link-no-way-back"),
    ("what is Mochi's diet?", "mochi-kidney-diet"),
    ("is the server cron in UTC?", "server-cron-is-utc"),
    ("which VLAN is the IoT gear on?", "iot-on-vlan-30"),
    ("where is the spare YubiKey?", "spare-yubikey-in-fireproof-box"),
    ("ゴミ出しは何曜日?", "garbage-collection-days"),
    ("車検はいつ?", "car-inspection-june-2026"),
    ("花粉症の薬はいつから?", "hay-fever-meds-mid-february"),
    ("合鍵はどこ?", "spare-house-keys"),
    ("花生过敏吗？", "peanut-allergy"),
    ("路由器管理密码在哪？", "router-admin-password"),
    ("租约什么时候到期？", "lease-ends-august-2026"),
    ("Redis还是Kafka？", "queue-on-redis-not-kafka"),
]

#: questions about things the store does not hold
ABSENT = [
    "what port does grafana listen on?",
    "Kubernetesのポートは何番?",
    "冰箱什么时候清理？",
    "where is the spare car key?",
    "who is the dentist?",
    "猫の予防接種はいつ?",
    "什么时候换轮胎？",
    "backup of the phone photos",
]


@pytest.mark.parametrize("lang", ["en", "ja", "zh"])
def test_every_title_in_every_frame_finds_its_memory(lang):
    for m in (m for m in MEMORIES if m["lang"] == lang):
        for frame in FRAMES[lang]:
            q = frame.format(t=m["title"])
            j = REC.judge(q)
            assert (j.verdict, j.slug, j.how) == ("ok", m["slug"], "fastpath"), (q, j)


@pytest.mark.parametrize("question,slug", DIRECT)
def test_direct_questions_in_english_japanese_and_chinese(question, slug):
    j = REC.judge(question)
    assert (j.verdict, j.slug) == ("ok", slug), j
    assert j.score >= 1.0 and j.score >= 1.5 * j.runner_up and j.ms > 0


@pytest.mark.parametrize("question", ABSENT)
def test_a_question_about_something_absent_stays_silent(question):
    j = REC.judge(question)
    assert j.verdict == "no-confident-hit" and not j.slug, j
    assert j.why


def test_indirect_questions_never_get_a_wrong_memory():
    """The evaluation set's paraphrases share few words with their memory: the fastpath
    leaves nearly all of them to the thinker and answers none wrongly."""
    for q in SET["questions"]:
        j = REC.judge(q["question"])
        assert j.verdict != "ok" or j.slug in q["expect"], (q, j)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    chosen=st.lists(st.integers(0, len(MEMORIES) - 1), min_size=2, max_size=30, unique=True),
    target=st.integers(0, 10_000),
    frame=st.sampled_from([f for fs in FRAMES.values() for f in fs]),
    noise=st.sampled_from(["", "please", "quickly,", "ねえ、", "那个", "again"]),
    twin=st.booleans(),
)
def test_a_question_from_a_title_finds_it_or_stays_silent(chosen, target, frame, noise, twin):
    """Whatever the store holds — even a second memory with the very same title — a
    question made of a memory's title names that memory or nothing, never another."""
    docs = [DOCS[i] for i in chosen]
    want = docs[target % len(docs)]
    if twin:
        docs.append(FastDoc(want.slug + "-copy", want.title, "another line", "another body"))
    rec = Recognizer(docs)
    j = rec.judge(f"{noise} {frame.format(t=want.title)}")
    if twin:
        assert j.verdict == "no-confident-hit", j
    else:
        assert j.verdict == "no-confident-hit" or j.slug == want.slug, j


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, len(MEMORIES) - 1), min_size=1, max_size=20), st.data())
def test_an_updated_recogniser_judges_as_a_fresh_one(steps, data):
    """Adding, replacing and removing memories one by one leaves the recogniser exactly
    as one built from the memories that remain."""
    rec = Recognizer()
    held: dict[str, FastDoc] = {}
    for i in steps:
        d = DOCS[i]
        if d.slug in held and data.draw(st.booleans()):
            rec.update(remove=[d.slug])
            del held[d.slug]
        else:
            rec.update([d])
            held[d.slug] = d
    fresh = Recognizer(held.values())
    for m in MEMORIES[:20]:
        for q in (m["title"], SET["questions"][MEMORIES.index(m)]["question"]):
            a, b = rec.judge(q), fresh.judge(q)
            assert (a.verdict, a.slug, a.scores) == (b.verdict, b.slug, b.scores)


def test_filler_is_dropped_in_every_language():
    assert strip_filler("What is the UPS shutdown order?") == "ups shutdown order"
    assert strip_filler("自宅NASについて教えてください") == "自宅 nas"
    assert strip_filler("MySQL备份是什么？") == "mysql 备份"
    assert compact("Ｖｅｒｓｉｏｎ 2.6T の ＮＡＳ") == "version 2.6t の nas"


@pytest.mark.parametrize("family", ["ja", "zh", "latin", "punct"])
def test_question_parsing_is_linear(family):
    make = {
        "ja": lambda n: (JA * (n // len(JA) + 1))[:n],
        "zh": lambda n: (ZH * (n // len(ZH) + 1))[:n],
        "latin": lambda n: ("a" * 40 + " ") * (n // 41 + 1),
        "punct": lambda n: ".-_:" * (n // 4 + 1),
    }[family]
    g = grows_linearly(lambda text: REC.judge(text), make, n=2_000)
    assert g.ok, g.why


# --------------------------------------------------------------------------- through recall

CHAIN = {
    "archive-on-slow-disk": (
        "Archive on the slow disk",
        "the archive lives on the slow disk; the fast one stays scratch",
        "The archive goes on the slow disk.\n\nRelated: [[disk-layout]]",
    ),
    "disk-layout": (
        "Disk layout",
        "two disks: /data is slow and big, /scratch is fast",
        "The machine has two disks.",
    ),
    "vllm-port": (
        "vLLM listens on port 8085",
        "the vLLM server on the GPU box answers on :8085, not 8000",
        "vLLM is started with --port 8085.",
    ),
}


def test_a_direct_question_reaches_no_model(tmp_path, model):
    model.script("kura_pick", {"slugs": ["disk-layout"]})
    reg = make_registry(tmp_path, stores={"main": CHAIN}, model_url=model.url, fastpath=True)
    res = recall(reg, "main", "what port does vLLM listen on?")
    assert res.how == "fastpath" and res.picked == ("vllm-port",) and not res.degraded
    assert res.fastpath_verdict == "ok" and res.fastpath_ms > 0 and res.model_ms == 0
    assert model.requests == []  # no request at all reached the thinker
    d = res.to_json()
    assert d["how"] == "fastpath" and d["fastpath_verdict"] == "ok" and d["fastpath_ms"] > 0
    # the archive memory's link is walked as for any pick
    res = recall(reg, "main", "the archive on the slow disk")
    assert res.how == "fastpath" and res.walked == ("archive-on-slow-disk", "disk-layout")
    assert model.requests == []
    # a question that names no memory falls through to the thinker, which is asked once
    res = recall(reg, "main", "how should big files be stored?")
    assert res.fastpath_verdict == "no-confident-hit" and res.how == "meaning"
    assert res.picked == ("disk-layout",) and len(model.requests_for("kura_pick")) == 1


def test_the_fastpath_follows_writes(tmp_path):
    reg = make_registry(tmp_path, stores={"main": CHAIN}, fastpath=True)
    store = reg.store("main")
    assert recall(reg, "main", "what is the kettle descaling routine?").how == "words"
    store.write(
        "kettle-descaling",
        title="Kettle descaling routine",
        description="descale the kettle with citric acid every month",
        body="Citric acid, 2 spoons, every month.",
    )
    res = recall(reg, "main", "what is the kettle descaling routine?")
    assert (res.how, res.picked) == ("fastpath", ("kettle-descaling",))
    store.retire("kettle-descaling")
    res = recall(reg, "main", "what is the kettle descaling routine?")
    assert res.how == "words" and "kettle-descaling" not in res.picked
    assert fast_index(reg, "main").explain()["memories"] == 3


def test_disabled_per_store_says_so(tmp_path):
    reg = make_registry(
        tmp_path,
        stores={"main": CHAIN, "other": CHAIN},
        fastpath=True,
        extra={"stores": {"other": {"fastpath": {"enabled": False}}}},
    )
    assert recall(reg, "main", "what port does vLLM listen on?").how == "fastpath"
    res = recall(reg, "other", "what port does vLLM listen on?")
    assert res.how == "words" and res.fastpath_verdict == "disabled" and res.fastpath_ms == 0
    high = make_registry(
        tmp_path / "g", stores={"main": CHAIN}, fastpath=True, extra={"fastpath": {"gate": 9.0}}
    )
    res = recall(high, "main", "what port does vLLM listen on?")
    assert res.how == "words" and res.fastpath_verdict == "no-confident-hit"


def test_config_keys_and_their_errors(tmp_path):
    base = {"stores": {"a": {"path": str(tmp_path / "a")}}}
    cfg = parse_config(base, source=None)
    assert cfg.fastpath.enabled and cfg.fastpath.gate == 1.0 and cfg.fastpath.cues
    raw = {
        "fastpath": {"gate": 1.5, "cues": False},
        "stores": {"a": {"path": str(tmp_path / "a"), "fastpath": {"enabled": False}}},
    }
    s = parse_config(raw, source=None).stores["a"].fastpath
    assert (s.enabled, s.gate, s.cues) == (False, 1.5, False)  # the rest inherited
    for bad, says in (
        ({"gate": 0}, "fastpath.gate must be greater than 0"),
        ({"enabled": "yes"}, "fastpath.enabled must be"),
        ({"ratio": 2}, "unknown key fastpath.ratio"),
    ):
        with pytest.raises(ConfigError, match=says):
            parse_config({**base, "fastpath": bad}, source=None)


# --------------------------------------------------------------------------- callsign cues

SRC = "/journals/session.jsonl"


def _pour(reg: Registry, slug: str, title: str, said: str, description: str) -> None:
    store = reg.store("main")
    seg = {"cls": "USER", "text": said, "source": SRC, "start": 0, "end": 99, "unit": "byte"}
    manifest = dr.write_manifest(  # shaped as the distiller writes it: segments and evidence
        store,
        {
            "segments": [seg],
            "evidence": {"segments": [["USER", said]], "quotes": [["USER", said, said]]},
        },
    )
    quote = {**seg, "status": "verified"}
    dr.save_draft(
        store,
        dr.Draft(
            slug=slug,
            title=title,
            description=description,
            body=description.capitalize() + ".",
            type="project",
            quotes=(quote,),
            gate={"verdict": "kept", "reasons": ["1 quote verified (USER)"]},
            manifest=manifest,
            created="2026-11-19T10:00:00",
            source=SRC,
        ),
    )
    dr.pour(reg, "main", slug)


def test_cues_come_from_the_humans_own_words_only():
    doc = FastDoc(
        "yk",
        "Spare YubiKey in the fireproof box",
        "t",
        "b",
        "sha256:" + "0" * 64,
        ("the spare YubiKey lives in the fireproof box now",),
    )
    assert {r.cue for r in learn_cues(doc)} == {"yubikey", "spare yubikey", "fireproof box"}
    unsaid = FastDoc(doc.slug, doc.title, "t", "b", doc.manifest, ("it lives in the box",))
    assert learn_cues(unsaid) == ()  # plain words ("lives", "box") are never callsigns
    assert learn_cues(FastDoc(doc.slug, doc.title, "t", "b")) == ()  # no manifest, no cue


def test_a_cue_routes_with_a_receipt_rechecked_on_every_hit(tmp_path):
    reg = make_registry(tmp_path, stores={"main": CHAIN}, fastpath=True)
    _pour(
        reg,
        "yk-box",
        "Spare YubiKey in the fireproof box",
        "the spare YubiKey lives in the fireproof box now",
        "the spare hardware token is kept in the fireproof box",
    )
    _pour(
        reg,
        "nas-key",
        "NAS backup passphrase",
        "the NAS backup passphrase is in the password manager",
        "the backup passphrase of the file server is in the password manager",
    )
    res = recall(reg, "main", "where did I put my YubiKey?")
    assert (res.how, res.picked) == ("fastpath-cue", ("yk-box",))
    # two cues naming different memories: silence, and the word tier answers instead
    res = recall(reg, "main", "YubiKey or NAS backup?")
    assert res.fastpath_verdict == "no-confident-hit" and res.how == "words"
    # the receipt is read again on every hit: with the manifest gone the cue is not used
    mem = reg.store("main").read("yk-box")
    ref = mem.meta["metadata"]["evidence_manifest"]
    (dr.manifests_dir(reg.store("main")) / f"{ref[7:]}.json").unlink()
    res = recall(reg, "main", "where did I put my YubiKey?")
    assert res.how != "fastpath-cue"


def test_cues_off_leaves_the_heads(tmp_path):
    reg = make_registry(
        tmp_path, stores={"main": CHAIN}, fastpath=True, extra={"fastpath": {"cues": False}}
    )
    _pour(
        reg,
        "yk-box",
        "Spare YubiKey in the fireproof box",
        "the spare YubiKey lives in the fireproof box now",
        "the spare hardware token is kept in the fireproof box",
    )
    res = recall(reg, "main", "where did I put my YubiKey?")
    assert res.how != "fastpath-cue"
    assert fast_index(reg, "main", cues=False).explain()["cues"] == 0
