"""Every adapter through the distiller: its watermark unit, its classes, exactly once."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from kura_core.distill import drafts as dr, marks, pipeline
from kura_core.registry import Registry
from tests.conftest import make_store

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "journals"


def user_quoting_brain(req):
    """One candidate per USER evidence line, quoting it exactly."""
    text = req.messages[-1]["content"]
    cands = []
    for line in text.splitlines():
        if line.startswith("[USER] "):
            said = line[7:]
            cands.append(
                {
                    "kind": "fact",
                    "title": said[:60],
                    "description": said,
                    "body": said,
                    "quotes": [line],
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
        "tags": [],
    }


def setup(
    tmp_path: Path, model_url: str, journals: dict[str, Path], chunk_chars: int = 24000
) -> Registry:
    make_store(tmp_path / "main", "main")
    table = "\n".join(f'{a} = {{ root = "{p}" }}' for a, p in journals.items())
    cfg = tmp_path / "kura.toml"
    cfg.write_text(f"""
[stores.main]
path = "{tmp_path / "main"}"

[distill]
chunk_chars = {chunk_chars}
max_items = 50

[distill.journals]
{table}

[models.thinker]
url = "{model_url}"
model = "scripted"
timeout = 5
""")
    return Registry.open(cfg)


def test_each_adapter_drinks_its_journals_once_in_its_own_unit(tmp_path, model):
    roots = {}
    for adapter, src in (
        ("codex", FIX / "codex"),
        ("gemini", FIX / "gemini"),
        ("opencode", FIX / "opencode"),
        ("aider", FIX / "aider"),
    ):
        dst = tmp_path / "journals" / adapter
        shutil.copytree(src, dst)
        roots[adapter] = dst
    model.script("kura_candidates", user_quoting_brain)
    model.script("kura_compose", echo_scribe)
    reg = setup(tmp_path, model.url, roots, chunk_chars=600)
    rep = pipeline.run(reg, "main")
    assert not rep.errors and rep.batches > 4
    quoted = {}
    for d in dr.list_drafts(reg.store("main")):
        for q in d.quotes:
            quoted[q["text"]] = (q["cls"], q["unit"], Path(q["source"]).name)

    def find(phrase: str) -> tuple[str, str]:
        (hit,) = [v for k, v in quoted.items() if phrase in k]
        return hit[:2]

    assert find("raise the upload limit to 64 megabytes") == ("USER", "byte")  # codex
    assert find("leave the listener alone") == ("USER", "seq")  # gemini saved chat
    assert find("night setback to 18 degrees") == ("USER", "seq")  # gemini stream
    assert find("set the grafana refresh to 30s") == ("USER", "seq")  # opencode
    assert find("what time does the backup run now?") == ("USER", "byte")  # aider
    assert not [t for t in quoted if "NOTHUMAN" in t]
    ws = reg.workshop("main")
    units = {
        r["journal"].split(":", 1)[0]: r["unit"]
        for r in ws.query("SELECT journal, unit FROM watermarks")
    }
    assert units == {"codex": "byte", "gemini": "seq", "opencode": "seq", "aider": "byte"}
    again = pipeline.run(reg, "main")
    assert again.batches == 0 and not again.did_work


def test_catchup_moves_seq_and_byte_marks_to_the_present(tmp_path, model):
    roots = {"gemini": tmp_path / "g", "codex": tmp_path / "c"}
    shutil.copytree(FIX / "gemini", roots["gemini"])
    shutil.copytree(FIX / "codex", roots["codex"])
    reg = setup(tmp_path, model.url, roots)
    moved = pipeline.catchup(reg, "main").to_json()["moved"]
    by_name = {Path(m["journal"]).name: (m["unit"], m["mark"]) for m in moved}
    doc = next(roots["gemini"].glob("*.json"))
    assert by_name[doc.name] == ("seq", 5)
    rollout = next(roots["codex"].glob("rollout-2025-*.jsonl"))
    assert by_name[rollout.name] == ("byte", rollout.stat().st_size)
    ws = reg.workshop("main")
    assert marks.mark_of(ws, marks.journal_key("gemini", doc)) == 5
    model.script("kura_candidates", user_quoting_brain)
    assert not pipeline.run(reg, "main").did_work and model.count() == 0


def test_the_configured_adapter_names_are_accepted(tmp_path):
    from kura_core.config import load_config

    cfg = tmp_path / "kura.toml"
    body = "\n".join(
        f'{a} = "{tmp_path / a}"'
        for a in ("claude", "codex", "gemini", "opencode", "aider", "evidence", "text")
    )
    cfg.write_text(f'[stores.main]\npath = "{tmp_path / "s"}"\n\n[distill.journals]\n{body}\n')
    got = load_config(cfg)
    assert sorted(j.adapter for j in got.distill.journals) == sorted(
        ["claude", "codex", "gemini", "opencode", "aider", "evidence", "text"]
    )
    cfg.write_text(
        f'[stores.main]\npath = "{tmp_path / "s"}"\n\n[distill.journals]\nnotanagent = "{tmp_path}"\n'
    )
    try:
        load_config(cfg)
    except Exception as exc:  # noqa: BLE001 - the message is what matters
        assert re.search(r"unknown journal adapter.*codex.*gemini.*opencode.*aider", str(exc))
    else:
        raise AssertionError("an unknown adapter name must be refused")
