"""Memories people already have, and the original's behaviour: YAML-ish frontmatter, age
from written dates after a `cp -r`, journals never shared by accident, coverage passes,
exit codes, the original's config keys, capacity limits, curation on the direct doors and
the learned profile — through the core and the CLI."""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kura_core.config import load_config
from kura_core.curation import curation_violations
from kura_core.distill import drafts as dr, pipeline
from kura_core.faces.cli import main
from kura_core.kura import Kura
from kura_core.registry import Registry
from kura_core.store import Store, read_frontmatter, written_dates
from kura_core.weave import weave
from tests.conftest import make_store
from tests.core.test_distill import echo_scribe, honest_brain, write_journal

ROOT = Path(__file__).resolve().parents[2]
YAMLISH = ROOT / "tests" / "fixtures" / "yamlish"
TODAY = dt.date.today()
READABLE = (
    "which-disk",
    "build-flags",
    "tab-indented",
    "never-closed",
    "empty-values",
    "archive-ja",
    "router-zh",
    "strict",
)


def yamlish_store(tmp_path: Path, *, broken: bool = False) -> Path:
    root = tmp_path / "main"
    shutil.copytree(YAMLISH, root)
    if not broken:
        (root / "broken.md").unlink()
        idx = root / "MEMORY.md"
        idx.write_text(
            "".join(
                l for l in idx.read_text(encoding="utf-8").splitlines(True) if "broken.md" not in l
            ),
            encoding="utf-8",
        )
    return root


def cfg_for(tmp_path: Path, root: Path, extra: str = "") -> Path:
    cfg = tmp_path / "kura.toml"
    cfg.write_text(
        f'[stores.main]\npath = "{root}"\nwrite_policy = "direct-allowed"\n' + extra,
        encoding="utf-8",
    )
    return cfg


def cli(capsys, *args) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


# =========================================================================== YAML-ish frontmatter


def test_yamlish_files_read_as_written():
    def fm(name):
        return read_frontmatter((YAMLISH / name).read_text(encoding="utf-8"))

    f = fm("which-disk.md")
    assert f.form == "lines" and "not strict YAML" in f.why
    assert (
        f.meta["description"] == "which disk holds what: nvme is scratch, the HDD keeps the archive"
    )
    assert f.meta["metadata"] == {"type": "project", "tags": ["decision", "landmine"]}
    f = fm("build-flags.md")  # CRLF, '#', quotes and brackets inside the value
    assert (
        f.meta["description"]
        == 'build flags for PR #42: use -O2, never -Ofast (breaks "fast-math" [sic])'
    )
    assert f.meta["type"] == "feedback" and f.body.startswith("Use -O2") and "\r" not in f.body
    f = fm("tab-indented.md")  # BOM, tab-indented metadata children, a '- item' list
    assert f.meta["metadata"] == {"type": "reference", "tags": ["network", "router"]}
    f = fm(
        "never-closed.md"
    )  # no closing '---': the body starts at the first line that is not a key
    assert f.meta["tags"] == ["household"] and f.body.startswith("Descale the kettle")
    assert "never closed" in f.why
    f = fm("empty-values.md")
    assert f.meta["description"] == 'the pantry list lives in the notes app: "Pantry"'
    assert f.meta["type"] == "" and f.meta["tags"] == "" and f.meta["created"] == ""
    assert (
        fm("archive-ja.md").meta["description"]
        == "アーカイブ: 遅いディスクに置く（NVMeはスクラッチ）"
    )
    f = fm(
        "router-zh.md"
    )  # strict YAML would read ' #家里' as a comment: the text as written is kept
    assert f.meta["description"] == "路由器密码: 在抽屉里的卡片上 #家里" and f.form == "lines"
    assert fm("strict.md").form == "yaml"


def test_line_form_first_key_wins_and_a_comment_stays_a_comment():
    f = read_frontmatter(
        "---\nname: a\ndescription: first: one\ndescription: second\n"
        "metadata:\n  type: project  # user | feedback\n---\nbody\n"
    )
    assert f.meta["description"] == "first: one" and f.meta["metadata"]["type"] == "project"


def test_every_reader_sees_yamlish_memories_and_doctor_calls_them_normal(tmp_path, capsys):
    root = yamlish_store(tmp_path)
    cfg = cfg_for(tmp_path, root)
    k = Kura.open(cfg)
    scan = k.registry.store("main").scan()
    assert sorted(m.slug for m in scan.memories) == sorted(READABLE) and scan.unreadable == ()
    rep = k.doctor(store="main").to_json()
    assert rep["ok"], rep["problems"]
    assert rep["unreadable"] == []
    assert sorted(n["file"] for n in rep["normalise_on_write"]) == sorted(
        f"{s}.md" for s in READABLE if s != "strict"
    )
    assert any("YAML-ish" in n and "next time it writes" in n for n in rep["notes"])

    # recall without a model (the fastpath, or words when it is not sure) finds them in
    # every language
    for q, slug in (
        ("which disk is nvme scratch", "which-disk"),
        ("アーカイブ ディスク", "archive-ja"),
        ("路由器密码在哪里", "router-zh"),
        ("descale the kettle", "never-closed"),
    ):
        res = k.recall(q, store="main")
        assert res.how in ("fastpath", "words") and slug in res.walked, (q, res.walked)
    # weave keeps every line; prefill wears it
    woven = k.weave(store="main")
    assert woven.written and sorted(s for _l, s, _t in woven.lines) == sorted(READABLE)
    assert "router-zh.md" in k.prefill(store="main").text
    k.close()

    code, out, _ = cli(capsys, "-c", cfg, "read", "build-flags", "--json")
    assert code == 0 and json.loads(out)["description"].startswith(
        "build flags for PR #42: use -O2"
    )
    code, out, _ = cli(capsys, "-c", cfg, "doctor", "--json")
    assert code == 0 and json.loads(out)["ok"]
    code, out, _ = cli(capsys, "-c", cfg, "recall", "路由器密码", "--json")
    assert code == 0 and "router-zh" in json.loads(out)["walked"]


def test_a_file_neither_form_reads_is_named_and_the_rest_still_work(tmp_path, capsys):
    root = yamlish_store(tmp_path, broken=True)
    cfg = cfg_for(tmp_path, root)
    code, out, _ = cli(capsys, "-c", cfg, "doctor", "--json")
    rep = json.loads(out)
    assert code == 1 and [u["file"] for u in rep["unreadable"]] == ["broken.md"]
    assert "broken.md" in " ".join(rep["problems"])
    code, out, err = cli(capsys, "-c", cfg, "read", "broken")
    assert code == 1 and "broken.md" in err
    code, out, _ = cli(capsys, "-c", cfg, "recall", "kettle descaling", "--json")
    assert code == 0 and "never-closed" in json.loads(out)["walked"]


def test_kura_writes_yamlish_memories_back_as_yaml_losing_nothing(tmp_path):
    root = yamlish_store(tmp_path)
    k = Kura.open(cfg_for(tmp_path, root))
    before = k.read("tab-indented", store="main")
    k.annotate("tab-indented", store="main", add_tags=["admin"])
    raw = (root / "tab-indented.md").read_text(encoding="utf-8")
    import yaml

    meta = yaml.safe_load(raw.split("---\n")[1])
    assert meta["description"] == before.description
    assert meta["metadata"]["tags"] == ["network", "router", "admin"]
    after = k.read("tab-indented", store="main")
    assert after.form == "yaml" and after.body.strip() == before.body.strip()
    assert "tab-indented.md" not in [n.file for n in k.doctor(store="main").normalise_on_write]
    k.close()


def test_doctor_names_markdown_files_whose_names_are_not_slugs(tmp_path):
    root = yamlish_store(tmp_path)
    (root / "user_role.md").write_text(
        "---\nname: user_role\ndescription: a data scientist\ntype: user\n---\nbody\n",
        encoding="utf-8",
    )
    k = Kura.open(cfg_for(tmp_path, root))
    rep = k.doctor(store="main").to_json()
    assert rep["ok"] and rep["ignored_files"][0]["file"] == "user_role.md"
    assert "user-role.md" in rep["ignored_files"][0]["why"]
    k.close()


# =========================================================================== age


def test_written_dates_in_every_common_form():
    got = written_dates(
        "Settled on 2026-11-28. 2025年3月1日に決定。二〇 no. ２０２４年１２月３１日. "
        "Also 28 November 2023, Nov 2, 2022 and 2021/07/04. Not 2026-02-30."
    )
    assert set(got) == {
        dt.date(2026, 11, 28),
        dt.date(2025, 3, 1),
        dt.date(2024, 12, 31),
        dt.date(2023, 11, 28),
        dt.date(2022, 11, 2),
        dt.date(2021, 7, 4),
    }


def test_after_cp_r_a_memory_dated_last_week_is_still_worn_in_full(tmp_path):
    src = tmp_path / "src"
    make_store(src, "main")
    week = TODAY - dt.timedelta(days=7)
    old = TODAY - dt.timedelta(days=400)
    future = TODAY + dt.timedelta(days=30)
    long = (
        "the archive moved to the slow disk and the fast disk is scratch space now, "
        "with the cold backups on the tape shelf beside the printer in the hall closet"
    )
    bodies = {
        "body-iso": f"Settled on {week.isoformat()}.",
        "body-cjk": f"{week.year}年{week.month}月{week.day}日に決定。",
        "old-note": f"Written {old.isoformat()}.",
        "deadline": f"Due {future.isoformat()}; agreed {old.isoformat()}.",
        "undated": "No date here at all.",
    }
    lines = ["# main", ""]
    for slug, body in bodies.items():
        (src / f"{slug}.md").write_text(
            f"---\nname: {slug}\ndescription: {slug} {long}\n---\n\n{body}\n", encoding="utf-8"
        )
        lines.append(f"- [{slug}]({slug}.md) — {slug} {long}")
    (src / "MEMORY.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    dst = tmp_path / "copy"
    subprocess.run(["cp", "-r", str(src), str(dst)], check=True)  # every mtime is now today
    now = time.time()
    for p in dst.glob("*.md"):
        os.utime(p, (now, now))
    reg = Registry.for_path(dst, "main")
    res = weave(reg, "main", today=lambda: TODAY)
    layer = {s: l for l, s, _t in res.lines}
    assert layer["body-iso"] == "fresh" and layer["body-cjk"] == "fresh"
    assert layer["old-note"] == "trigger" and layer["undated"] == "trigger"
    assert layer["deadline"] == "trigger"  # a date later than tomorrow is not its age
    assert res.distrusted_days == (dt.date.fromtimestamp(now).isoformat(),)
    reg.close()


# =========================================================================== journals


def two_stores(
    tmp_path: Path, model_url: str | None, *, eq_table: str = "", work_table: str = ""
) -> Path:
    make_store(tmp_path / "work", "work")
    make_store(tmp_path / "eq", "eq")
    cfg = tmp_path / "kura.toml"
    text = (
        f'[stores.work]\npath = "{tmp_path / "work"}"\n{work_table}\n'
        f'[stores.eq]\npath = "{tmp_path / "eq"}"\n{eq_table}\n'
        f'[distill.journals]\nclaude = "{tmp_path / "journals"}"\n'
    )
    if model_url:
        text += f'[models.thinker]\nurl = "{model_url}"\nmodel = "scripted"\ntimeout = 5\n'
    cfg.write_text(text, encoding="utf-8")
    write_journal(
        tmp_path / "journals" / "private.jsonl",
        [("user", "I have been feeling low since the move and I want to talk it through")],
    )
    return cfg


def test_two_stores_and_one_global_root_drink_nothing_unless_written_down(tmp_path, model, capsys):
    cfg = two_stores(tmp_path, model.url)
    model.script("kura_candidates", honest_brain)
    model.script("kura_compose", echo_scribe)
    code, out, _ = cli(capsys, "-c", cfg, "distill", "run", "-s", "work", "--json")
    rep = json.loads(out)
    assert code == 2 and rep["batches"] == 0 and "inherit_global_journals" in rep["stopped"]
    assert model.count("kura_candidates") == 0  # the private conversation was never read
    assert not dr.list_drafts(Store(tmp_path / "work"))

    code, out, _ = cli(capsys, "-c", cfg, "doctor", "-s", "eq", "--json")
    rep = json.loads(out)
    assert rep["journals"]["from"] == "none" and rep["journals"]["roots"] == []
    assert any("drinks nothing" in n and "inherit_global_journals" in n for n in rep["notes"])


def test_inherit_global_journals_and_doctor_names_a_root_two_stores_drink(tmp_path, model, capsys):
    cfg = two_stores(
        tmp_path,
        model.url,
        eq_table="inherit_global_journals = true",
        work_table=f'[stores.work.journals]\nclaude = "{tmp_path / "journals"}"',
    )
    c = load_config(cfg)
    assert c.stores["eq"].journals_from == "global" and c.stores["work"].journals_from == "own"
    model.script("kura_candidates", honest_brain)
    model.script("kura_compose", echo_scribe)
    code, out, _ = cli(capsys, "-c", cfg, "distill", "run", "-s", "eq", "--json")
    assert code == 0 and json.loads(out)["drafts"] == 1
    for store in ("eq", "work"):
        code, out, _ = cli(capsys, "-c", cfg, "doctor", "-s", store, "--json")
        rep = json.loads(out)
        (shared,) = rep["journals"]["shared"]
        assert shared["stores"] == ["eq", "work"] and shared["root"] == str(tmp_path / "journals")
        assert any(
            str(tmp_path / "journals") in n and "drunk by this store" in n for n in rep["notes"]
        )


def test_one_store_drinks_the_global_journals(tmp_path):
    make_store(tmp_path / "main", "main")
    cfg = tmp_path / "kura.toml"
    cfg.write_text(
        f'[stores.main]\npath = "{tmp_path / "main"}"\n'
        f'[distill.journals]\nclaude = "{tmp_path / "j"}"\n',
        encoding="utf-8",
    )
    c = load_config(cfg)
    assert (
        c.stores["main"].journals_from == "global" and len(c.stores["main"].distill.journals) == 1
    )


# =========================================================================== distil: passes, exit codes


def test_coverage_passes_ask_again_for_what_was_missed(tmp_path, model, capsys):
    write_journal(
        tmp_path / "journals" / "s.jsonl",
        [
            ("user", "the archive goes on the slow disk from now on"),
            ("user", "the kettle gets descaled with citric acid"),
            ("user", "the router admin page is only for the study laptop"),
        ],
    )
    make_store(tmp_path / "main", "main")
    cfg = tmp_path / "kura.toml"
    cfg.write_text(
        f'[stores.main]\npath = "{tmp_path / "main"}"\n[distill]\ncoverage_passes = 3\n'
        f'max_items = 8\n[distill.journals]\nclaude = "{tmp_path / "journals"}"\n'
        f'[models.thinker]\nurl = "{model.url}"\nmodel = "scripted"\ntimeout = 5\n',
        encoding="utf-8",
    )
    said = [
        "the archive goes on the slow disk from now on",
        "the kettle gets descaled with citric acid",
        "the router admin page is only for the study laptop",
    ]

    def cand(s):
        return {
            "kind": "fact",
            "title": s[:40],
            "description": s,
            "body": s,
            "quotes": [f"[USER] {s}"],
        }

    model.script(
        "kura_candidates",
        {"candidates": [cand(said[0])]},  # pass 1 takes one
        {"candidates": [cand(said[0]), cand(said[1])]},  # pass 2: one repeat, one new
        {"candidates": [cand(said[2])]},
    )  # pass 3: the last
    model.script("kura_compose", echo_scribe)
    code, out, _ = cli(capsys, "-c", cfg, "distill", "run", "--json")
    rep = json.loads(out)
    assert code == 0 and rep["drafts"] == 3 and rep["candidates"] == 3
    reqs = model.requests_for("kura_candidates")
    assert len(reqs) == 3
    assert "Already taken" not in reqs[0].messages[-1]["content"]
    second = reqs[1].messages[-1]["content"]
    assert "Already taken" in second and said[0] in second.split("Already taken", 1)[1]
    third = reqs[2].messages[-1]["content"].split("Already taken", 1)[1]
    assert said[0] in third and said[1] in third
    # the stable prefix is the same for every pass
    assert reqs[0].messages[0] == reqs[1].messages[0] == reqs[2].messages[0]


def test_coverage_passes_stop_when_a_pass_adds_nothing(tmp_path, model):
    write_journal(
        tmp_path / "journals" / "s.jsonl", [("user", "the archive goes on the slow disk")]
    )
    make_store(tmp_path / "main", "main")
    cfg = tmp_path / "kura.toml"
    cfg.write_text(
        f'[stores.main]\npath = "{tmp_path / "main"}"\n[distill]\ncoverage_passes = 4\n'
        f'[distill.journals]\nclaude = "{tmp_path / "journals"}"\n'
        f'[models.thinker]\nurl = "{model.url}"\nmodel = "scripted"\ntimeout = 5\n',
        encoding="utf-8",
    )
    model.script("kura_candidates", honest_brain, {"candidates": []})
    model.script("kura_compose", echo_scribe)
    reg = Registry.open(cfg)
    rep = pipeline.run(reg, "main")
    assert rep.batches == 1 and model.count("kura_candidates") == 2
    reg.close()


def test_distill_run_with_no_model_exits_2_when_nothing_is_new_and_1_when_something_is(
    tmp_path, capsys
):
    make_store(tmp_path / "main", "main")
    cfg = tmp_path / "kura.toml"
    cfg.write_text(
        f'[stores.main]\npath = "{tmp_path / "main"}"\n'
        f'[distill.journals]\nclaude = "{tmp_path / "journals"}"\n',
        encoding="utf-8",
    )
    (tmp_path / "journals").mkdir()
    (tmp_path / "journals" / "empty.jsonl").write_text("", encoding="utf-8")
    code, out, _ = cli(capsys, "-c", cfg, "distill", "run", "--json")
    assert code == 2 and json.loads(out)["stopped"] == "nothing new in the journals"
    write_journal(tmp_path / "journals" / "empty.jsonl", [("user", "something new was said here")])
    code, _, err = cli(capsys, "-c", cfg, "distill", "run")
    assert code == 1 and "needs a brain model" in err


# =========================================================================== config keys


def test_the_seeds_config_keys_load(tmp_path):
    cfg = tmp_path / "kura.toml"
    cfg.write_text(
        f'[stores.maker]\npath = "{tmp_path / "maker"}"\nlabel = "maker mode — building things"\n'
        '[modes]\nmaker = "maker"\n'
        '[models.thinker]\nurl = "http://127.0.0.1:8000/v1"\nmodel = "local-small"\n'
        '[models.scribe]\nurl = "https://api.example.com/v1"\nmodel = "big-model"\n'
        'api_key_env = "EXAMPLE_API_KEY"\ntimeout = 3600\ndialect = "openai"\n'
        "[distill]\nmax_items = 8\ncoverage_passes = 2\nidle_min = 10\nbackoff_min = 20\n"
        "yield_on_return = false\n[capacity]\nmemories = 500\n",
        encoding="utf-8",
    )
    c = load_config(cfg)
    assert c.distill.coverage_passes == 2 and c.distill.max_items == 8
    assert c.models["scribe"].timeout == 3600 and c.capacity.memories == 500


@pytest.mark.parametrize(
    "table, key, says",
    [
        ("stores.main", "readonly = true", "KURA_READONLY"),
        ("stores.main", "allowSwitch = true", "KURA_STORE"),
        ("stores.main", 'store = "other"', "KURA_STORE"),
    ],
)
def test_a_key_kura_deliberately_does_not_support_says_so_and_what_instead(
    tmp_path, capsys, table, key, says
):
    cfg = tmp_path / "kura.toml"
    body = f'[stores.main]\npath = "{tmp_path / "m"}"\n'
    if table == "stores.main":
        body += key + "\n"
    else:
        body += f"[{table}]\n{key}\n"
    cfg.write_text(body, encoding="utf-8")
    code, _, err = cli(capsys, "-c", cfg, "stores")
    assert code == 1 and "deliberately does not support" in err and says in err
    assert "unknown key" not in err


@pytest.mark.parametrize(
    "table, key, says",
    [
        ("distill", 'metrics_file = "_still/metrics.jsonl"', "SQLite metrics table"),
        ("distill", 'seed_file = "seeds.md"', "seeds table"),
        ("server", "promptOrder = -50", "host"),
        ("stores.main", "alive_file = 'tending.alive'", "heartbeat"),
    ],
)
def test_a_key_safe_to_ignore_loads_with_a_warning_saying_what_instead(
    tmp_path, capsys, table, key, says
):
    cfg = tmp_path / "kura.toml"
    body = f'[stores.main]\npath = "{tmp_path / "m"}"\n'
    if table == "stores.main":
        body += key + "\n"
    else:
        body += f"[{table}]\n{key}\n"
    cfg.write_text(body, encoding="utf-8")
    code, _, err = cli(capsys, "-c", cfg, "stores")
    assert code == 0 and "kura: warning:" in err and "ignores" in err and says in err
    name = key.split(" ")[0]
    assert f"{table}.{name}" in err
    assert any(says in w for w in load_config(cfg).warnings)


# =========================================================================== capacity


def test_capacity_limit_and_pressure(tmp_path, capsys):
    st = make_store(
        tmp_path / "main",
        "main",
        {f"m{i}": (f"M {i}", f"memory {i}", f"body {i}") for i in range(4)},
    )
    cfg = tmp_path / "kura.toml"
    cfg.write_text(f'[stores.main]\npath = "{st.root}"\n', encoding="utf-8")
    code, out, _ = cli(capsys, "-c", cfg, "doctor", "--json")
    cap = json.loads(out)["capacity"]
    assert cap["limit"] is None and cap["pressure"] is None and cap["memories"] == 4
    cfg.write_text(
        f'[stores.main]\npath = "{st.root}"\n[capacity]\nmemories = 5\n'
        f"[stores.main.capacity]\nmemories = 4\nbytes = 1000000\n",
        encoding="utf-8",
    )
    code, out, _ = cli(capsys, "-c", cfg, "doctor", "--json")
    rep = json.loads(out)
    assert rep["capacity"]["limit"] == {"memories": 4, "bytes": 1000000}
    assert rep["capacity"]["pressure"] == 1.0 and rep["ok"]
    assert any("capacity limit" in n for n in rep["notes"])
    code, out, _ = cli(capsys, "-c", cfg, "doctor")
    assert code == 0 and "limit      4 memories · 1000000 bytes · pressure 100%" in out
    assert "profile    none" in out


# =========================================================================== curation on direct doors


def test_remember_carries_curation_through_the_floors(tmp_path, capsys):
    root = yamlish_store(tmp_path)
    cfg = cfg_for(tmp_path, root)
    code, out, err = cli(
        capsys,
        "-c",
        cfg,
        "remember",
        "boiler-service",
        "the boiler is serviced every May",
        "The boiler is serviced every May by Ito, 2 hours each time.",
        "--belongs-because",
        "this store keeps how the house runs",
        "--keep",
        "every May, and who does it",
        "--may-fade",
        "the 2 hours",
        "--json",
    )
    assert code == 0, err
    got = json.loads(out)
    assert got["keep"] == "every May, and who does it" and got["may_fade"] == "the 2 hours"
    mem = Kura.open(cfg).read("boiler-service", store="main")
    assert mem.curation("belongs_because") == "this store keeps how the house runs"
    # a number the memory does not state, and a claim about the user it does not make
    code, _, err = cli(
        capsys,
        "-c",
        cfg,
        "remember",
        "boiler-cost",
        "the boiler service",
        "Ito services it.",
        "--keep",
        "it costs 120 euros",
        "--may-fade",
        "the user asked for Ito",
    )
    assert code == 1 and "120" in err and "attribution" in err and "nothing was written" in err
    assert not (root / "boiler-cost.md").exists()
    # a tag that claims something about the human needs evidence a direct write has none of
    code, _, err = cli(
        capsys,
        "-c",
        cfg,
        "remember",
        "boiler-cost",
        "the boiler service",
        "Ito services it.",
        "--tag",
        "entrusted",
    )
    assert code == 1 and "entrusted" in err and "evidence manifest" in err


def test_curation_violations_is_the_one_place_the_floors_are_asked():
    from kura_core.floors import Evidence

    mine = ["The fast disk is 2 TB."]
    assert (
        curation_violations({"keep": "the 2 TB figure"}, [], evidence=Evidence(), memory_text=mine)
        == []
    )
    bad = curation_violations(
        {"keep": "the 4 TB figure", "may_fade": "x\u202ey"},
        ["two words"],
        evidence=Evidence(),
        memory_text=mine,
    )
    assert {(v.kind, v.field) for v in bad} >= {
        ("number", "keep"),
        ("disguise", "may_fade"),
        ("tag", "tags"),
    }
    assert any("4" in v.text for v in bad if v.kind == "number")
    turn = "please keep the archive on the slow disk, I leave it to you"
    users = Evidence.of([("USER", turn)], [("USER", turn, turn)])
    assert (
        curation_violations(
            {"keep": "the user asked to keep the archive there"},
            ["entrusted"],
            evidence=users,
            memory_text=mine,
        )
        == []
    )
    # a USER quote about something else does not carry the claim
    other = Evidence.of(
        [("USER", "the router rotates monthly")],
        [("USER", "the router rotates monthly", "the router rotates monthly")],
    )
    (v,) = curation_violations(
        {"keep": "the user asked to keep the archive there"}, [], evidence=other, memory_text=mine
    )
    assert (v.kind, v.rule) == ("attribution", "not_carried")


def test_annotate_sets_tags_and_sentences_on_an_existing_memory(tmp_path, capsys):
    root = yamlish_store(tmp_path)
    cfg = cfg_for(tmp_path, root)
    code, out, err = cli(
        capsys,
        "-c",
        cfg,
        "annotate",
        "archive-ja",
        "--tag",
        "decision",
        "--keep",
        "遅いディスクに置くこと",
        "--json",
    )
    assert code == 0, err
    got = json.loads(out)
    assert got["tags"] == ["decision"] and got["keep"] == "遅いディスクに置くこと"
    code, out, _ = cli(
        capsys, "-c", cfg, "annotate", "archive-ja", "--untag", "decision", "--keep", "", "--json"
    )
    got = json.loads(out)
    assert code == 0 and got["tags"] == [] and got["keep"] == ""
    mem = Kura.open(cfg).read("archive-ja", store="main")
    assert mem.body.startswith("アーカイブは遅いディスクに置く")
    code, _, err = cli(capsys, "-c", cfg, "annotate", "archive-ja", "--keep", "3台のディスク")
    assert code == 1 and "3" in err
    code, _, err = cli(capsys, "-c", cfg, "annotate", "archive-ja")
    assert code == 1 and "nothing to annotate" in err
    cfg.write_text(cfg.read_text().replace("direct-allowed", "frozen"), encoding="utf-8")
    code, _, err = cli(capsys, "-c", cfg, "annotate", "archive-ja", "--tag", "decision")
    assert code == 1 and "frozen" in err


# =========================================================================== the learned profile


def profile_cfg(tmp_path: Path, model_url: str, policy: str = "distiller-only") -> Path:
    st = make_store(
        tmp_path / "room",
        "room",
        {
            "tea-in-the-morning": (
                "Tea in the morning",
                "green tea before 9, never coffee",
                "Green tea before 9.",
            ),
            "walks-by-the-river": (
                "Walks by the river",
                "the river walk is the thinking time",
                "Walks by the river.",
            ),
        },
    )
    (st.root / "charter.md").write_text(
        "A room that follows one person, not one purpose.\n", encoding="utf-8"
    )
    cfg = tmp_path / "kura.toml"
    cfg.write_text(
        f'[stores.room]\npath = "{st.root}"\nwrite_policy = "{policy}"\n'
        f'[models.thinker]\nurl = "{model_url}"\nmodel = "scripted"\ntimeout = 5\n',
        encoding="utf-8",
    )
    return cfg


PROFILE = (
    "This room follows one person through the day. Mornings start with green tea, never "
    "coffee, and the river walk is where thinking happens."
)


def test_profile_draft_show_apply_and_every_role_reads_it_after_the_charter(
    tmp_path, model, capsys
):
    cfg = profile_cfg(tmp_path, model.url)
    room = tmp_path / "room"
    code, out, _ = cli(capsys, "-c", cfg, "profile", "show", "--json")
    assert code == 2 and json.loads(out)["state"] == "none"

    model.script("kura_profile", {"profile": PROFILE})
    code, out, err = cli(capsys, "-c", cfg, "profile", "draft", "--json")
    assert code == 0, err
    assert json.loads(out)["from_memories"] == 2
    ask = model.last("kura_profile").messages
    assert "green tea before 9" in ask[-1]["content"] and ask[0]["content"].startswith(
        "# What this store is for"
    )
    assert not (room / "profile.md").exists()  # a draft waits in the workshop
    assert (room / "_still" / "profile-draft.md").is_file()
    code, out, _ = cli(capsys, "-c", cfg, "profile", "show")
    assert code == 0 and "draft waiting" in out and PROFILE in out
    code, out, _ = cli(capsys, "-c", cfg, "doctor", "--json")
    assert json.loads(out)["profile"]["state"] == "draft waiting"

    code, out, err = cli(capsys, "-c", cfg, "profile", "apply", "--json")
    assert code == 0, err
    assert (room / "profile.md").read_text(encoding="utf-8").strip() == PROFILE
    assert not (room / "_still" / "profile-draft.md").exists()
    code, out, _ = cli(capsys, "-c", cfg, "doctor", "--json")
    assert json.loads(out)["profile"]["state"] == "applied"

    # recall (thinker) reads charter, then profile, then its instructions
    model.script("kura_pick", {"slugs": ["tea-in-the-morning"]})
    code, out, _ = cli(capsys, "-c", cfg, "recall", "what do I drink first thing", "--json")
    system = model.last("kura_pick").messages[0]["content"]
    charter_at = system.index("A room that follows one person")
    profile_at = system.index(PROFILE)
    assert charter_at < profile_at < system.index("# Your task")
    # never in the map
    code, out, _ = cli(capsys, "-c", cfg, "prefill")
    assert PROFILE not in out and "profile.md" not in out


def test_profile_prefix_is_byte_identical_across_roles(tmp_path, model, capsys):
    cfg = profile_cfg(tmp_path, model.url)
    (tmp_path / "room" / "profile.md").write_text(PROFILE + "\n", encoding="utf-8")
    write_journal(tmp_path / "j" / "s.jsonl", [("user", "green tea before 9, never coffee")])
    cfg.write_text(
        cfg.read_text() + f'[distill.journals]\nclaude = "{tmp_path / "j"}"\n', encoding="utf-8"
    )
    model.script("kura_candidates", honest_brain)
    model.script("kura_compose", echo_scribe)
    model.script("kura_pick", {"slugs": []})
    cli(capsys, "-c", cfg, "distill", "run")
    cli(capsys, "-c", cfg, "recall", "tea")
    heads = {m.messages[0]["content"].split("# Your task")[0] for m in model.requests if m.messages}
    assert len(heads) == 1 and PROFILE in heads.pop()


def test_profile_apply_is_refused_on_a_frozen_store_and_a_list_is_not_a_profile(
    tmp_path, model, capsys
):
    cfg = profile_cfg(tmp_path, model.url, policy="frozen")
    model.script("kura_profile", {"profile": PROFILE})
    assert cli(capsys, "-c", cfg, "profile", "draft")[0] == 0
    code, _, err = cli(capsys, "-c", cfg, "profile", "apply")
    assert code == 1 and "frozen" in err
    assert not (tmp_path / "room" / "profile.md").exists()

    cfg = profile_cfg(tmp_path / "b", model.url)
    model.script("kura_profile", {"profile": "- likes tea\n- walks"})
    code, _, err = cli(capsys, "-c", cfg, "profile", "draft")
    assert code == 1 and "sentences" in err
    model.script("kura_profile", {"profile": "This room drinks tea 7 times a day."})
    code, _, err = cli(capsys, "-c", cfg, "profile", "draft")
    assert code == 1 and "7" in err


def test_profile_apply_a_persons_own_text_keeps_the_previous(tmp_path, model, capsys):
    cfg = profile_cfg(tmp_path, model.url)
    room = tmp_path / "room"
    (room / "profile.md").write_text("The old profile.\n", encoding="utf-8")
    mine = tmp_path / "mine.txt"
    mine.write_text("This room keeps the small habits of one person.\n", encoding="utf-8")
    code, out, err = cli(capsys, "-c", cfg, "profile", "apply", "--file", mine, "--json")
    assert code == 0, err
    assert (room / "_still" / "profile-previous.md").read_text(
        encoding="utf-8"
    ) == "The old profile.\n"
    assert "small habits" in (room / "profile.md").read_text(encoding="utf-8")


def test_python_m_kura_core_mcp_serves_like_kura_mcp(tmp_path):
    root = yamlish_store(tmp_path)
    cfg = cfg_for(tmp_path, root)
    msgs = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-03-26",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "kura_read", "arguments": {"slug": "router-zh"}},
        },
    ]
    out = subprocess.run(
        [sys.executable, "-m", "kura_core.mcp"],
        input="".join(json.dumps(m) + "\n" for m in msgs),
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
        env={**os.environ, "KURA_CONFIG": str(cfg), "PYTHONPATH": str(ROOT)},
    )
    assert out.returncode == 0, out.stderr
    replies = [json.loads(l) for l in out.stdout.splitlines()]
    assert replies[0]["result"]["serverInfo"]["name"]
    assert "路由器密码: 在抽屉里的卡片上 #家里" in replies[1]["result"]["content"][0]["text"]


def test_the_example_config_loads_and_documents_the_new_keys():
    text = (ROOT / "kura.example.toml").read_text(encoding="utf-8")
    c = load_config(ROOT / "kura.example.toml")
    assert c.distill.coverage_passes == 1 and c.capacity.limits() == {}
    for key in ("inherit_global_journals", "coverage_passes", "[capacity]", "1800", "max_tokens"):
        assert key in text, key


def test_license_file_matches_pyproject():
    import tomllib

    meta = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert meta["license"] == {"text": "MIT"}
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License\n")
