"""kura prefill: the resident block, its header, budget and ceiling, ETag, the missing map."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import re
import time
from pathlib import Path

import pytest

from kura_core.config import parse_config
from kura_core.errors import ConfigError
from kura_core.prefill import (
    CLOSE,
    DEFAULT_HEADER,
    build_prefill,
    check_header,
    frame,
    missing_map_note,
    volatile_in,
)
from kura_core.registry import Registry
from kura_core.weave import weave

TODAY = dt.date.today()


def gen_store(root: Path, n: int) -> list[str]:
    (root / "_still").mkdir(parents=True, exist_ok=True)
    lines = ["# main", ""]
    slugs = []
    for i in range(n):
        slug = f"thing-{i}"
        desc = (
            f"the lantern{i} hangs in the shed next to the saddle and the quartz tunnel map, "
            f"and the meadow gate stays shut for the harbor crew on rainy weeks"
        )
        created = TODAY - dt.timedelta(days=3 if i % 10 == 0 else 200)
        (root / f"{slug}.md").write_text(
            f"---\nname: {slug}\ndescription: {desc}\nmetadata:\n  type: project\n"
            f"  created: {created.isoformat()}\n---\n\n{desc}.\n",
            encoding="utf-8",
        )
        lines.append(f"- [Thing {i}]({slug}.md) — {desc}")
        slugs.append(slug)
    (root / "MEMORY.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return slugs


def registry(root: Path, *, clock=time.time, today=dt.date.today, **prefill) -> Registry:
    raw = {
        "stores": {"main": {"path": str(root)}},
        "prefill": {"window_tokens": 2_000_000, **prefill},
    }
    return Registry(parse_config(raw, source=None), env={}, clock=clock, today=today)


@pytest.fixture
def root(tmp_path) -> Path:
    r = tmp_path / "main"
    gen_store(r, 60)
    return r


# --------------------------------------------------------------------------- the header

VOLATILE = [
    "Memory map as of 2026-03-01.",
    "Map built at 14:05, read it first.",
    "Built 3pm by the tender.",
    "session id: 7f3a9c — read the map",
    "Request 1767225600 served this map.",
    "trace 550e8400-e29b-41d4-a716-446655440000",
    "Today is Monday: read the map first.",
    "now: 10:30",
    "Current time: {{time}}",
    "Generated at startup, read first.",
    "This is turn 12 of the conversation.",
    "Built on March 3rd.",
    "今日は2026年3月1日です。",
    "Stamp %Y-%m-%d %H:%M here",
    "cache key 3f9a7c1e2b4d5f60a1b2",
]
STABLE = [
    DEFAULT_HEADER,
    "Read this map first. Recall now and then when a line bears on the task.",
    "One line per memory; 3 kinds of lines. Version 2 of the rules applies.",
    "この地図は記憶の索引です。詳細は kura_recall で呼び出してください。",
    "Step 1: read the map. Step 2: recall what bears on the task, now, before answering.",
    "",
]


@pytest.mark.parametrize("header", VOLATILE)
def test_volatile_header_is_refused_at_build_time(tmp_path, root, header):
    assert volatile_in(header)
    with pytest.raises(ConfigError, match="prefill.header"):
        check_header(header)
    reg = registry(root, header=header)
    with pytest.raises(ConfigError, match="changes from turn to turn"):
        build_prefill(reg, "main")
    reg.close()


@pytest.mark.parametrize("header", STABLE)
def test_stable_header_is_accepted(root, header):
    assert volatile_in(header) == []
    reg = registry(root, header=header)
    p = build_prefill(reg, "main")
    assert (header or DEFAULT_HEADER).splitlines()[0] in p.text
    reg.close()


def test_default_header_says_how_to_read_the_map():
    h = DEFAULT_HEADER.replace("\n", " ")
    assert "one line per memory" in h
    assert "kura_recall" in h and "POST /recall" in h
    assert "compressed" in h
    assert "missing" in h and "not empty" in h


# --------------------------------------------------------------------------- the block


def test_block_markers_and_no_volatile_content(root):
    reg = registry(root)
    weave(reg, "main")
    p = build_prefill(reg, "main")
    lines = p.text.split("\n")
    assert lines[0] == "<<<KURA-MAP store=main>>>"
    assert lines[-1] == CLOSE
    assert volatile_in(p.text) == []
    assert not re.search(r"\d{4}-\d{2}-\d{2}|\d{1,2}:\d{2}", p.text)
    reg.close()

    # built at another time of day, by another process: byte for byte the same block
    later = registry(root, clock=lambda: time.time() + 86_400 * 3)
    assert build_prefill(later, "main").text == p.text
    later.close()


def test_source_woven_canonical_and_stale(root):
    reg = registry(root)
    p = build_prefill(reg, "main")
    assert (p.source, p.stale) == ("canonical", False)
    index = (root / "MEMORY.md").read_text()
    assert p.text == frame("main", DEFAULT_HEADER, index)
    res = weave(reg, "main")
    assert res.written
    p = build_prefill(reg, "main")
    assert (p.source, p.stale) == ("woven", False)
    assert res.cloth in p.text
    with open(root / "MEMORY.md", "a") as fh:
        fh.write("- [Late](thing-0.md) — a second line for the first thing\n")
    p = build_prefill(reg, "main")
    assert (p.source, p.stale) == ("canonical", True)
    assert "a second line for the first thing" in p.text
    assert p.warning
    reg.close()


def test_over_budget_is_the_whole_map_and_a_warning_only_in_json(root, capsys, tmp_path):
    normal = registry(root)
    base = build_prefill(normal, "main")
    assert not base.over_budget and base.warning == ""
    normal.close()
    window = base.tokens_est * 4  # budget 5% of it: far below; ceiling 50%: above
    reg = registry(root, window_tokens=window, budget_fraction=0.05, hard_fraction=0.5)
    p = build_prefill(reg, "main")
    assert p.over_budget and not p.over_ceiling and p.map_shown
    assert p.text == base.text  # identical: no banner in the text
    assert p.etag == base.etag
    j = p.to_json()
    assert j["over_budget"] is True and j["warning"] and "budget" in j["warning"]
    assert "budget" not in p.text.lower()
    reg.close()

    from kura_core.faces.cli import main

    cfg = tmp_path / "kura.toml"
    cfg.write_text(
        f'[stores.main]\npath = "{root}"\n[prefill]\nwindow_tokens = {window}\n'
        "budget_fraction = 0.05\nhard_fraction = 0.5\n"
    )
    assert main(["-c", str(cfg), "prefill"]) == 0
    cap = capsys.readouterr()
    assert cap.out == base.text + "\n"
    assert main(["-c", str(cfg), "prefill", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["over_budget"] is True and out["text"] == base.text


def test_over_ceiling_is_a_stub_that_says_the_map_is_missing(root):
    # ceiling 400 tokens; the map is far heavier; resident_mode full: no constellation
    reg = registry(root, window_tokens=2000, resident_mode="full")
    p = build_prefill(reg, "main")
    assert p.over_ceiling and p.over_budget and not p.map_shown
    assert "](" not in p.text and "thing-" not in p.text
    assert "missing" in p.text and "not empty" in p.text
    assert p.text.startswith("<<<KURA-MAP store=main>>>") and p.text.endswith(CLOSE)
    j = p.to_json()
    assert j["over_ceiling"] is True and j["map_shown"] is False
    assert j["map_tokens_est"] > j["ceiling_tokens"] >= j["tokens_est"]
    reg.close()


def test_json_has_the_spec_fields(root, tmp_path, capsys):
    from kura_core.faces.cli import main

    cfg = tmp_path / "kura.toml"
    cfg.write_text(f'[stores.main]\npath = "{root}"\n[prefill]\nwindow_tokens = 2000000\n')
    assert main(["-c", str(cfg), "prefill", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    for k in (
        "text",
        "source",
        "stale",
        "tokens_est",
        "over_budget",
        "over_ceiling",
        "map_shown",
        "etag",
    ):
        assert k in out
    assert out["source"] == "canonical" and out["map_shown"] is True


# --------------------------------------------------------------------------- ETag


def test_etag_changes_iff_the_text_changes(root):
    reg = registry(root)
    a = build_prefill(reg, "main")
    assert a.etag == '"' + hashlib.sha256(a.text.encode()).hexdigest()[:32] + '"'
    assert build_prefill(reg, "main").etag == a.etag
    t = time.time() + 5
    os.utime(root / "MEMORY.md", (t, t))  # touched, not changed
    b = build_prefill(reg, "main")
    assert (b.text, b.etag) == (a.text, a.etag)
    weave(reg, "main")
    c = build_prefill(reg, "main")
    assert c.text != a.text and c.etag != a.etag
    text = (root / "MEMORY.md").read_text().replace("Thing 3]", "Thing three]")
    (root / "MEMORY.md").write_text(text)
    d = build_prefill(reg, "main")
    assert d.text != c.text and d.etag not in (a.etag, c.etag)
    reg.close()


# --------------------------------------------------------------------------- the missing map


def test_missing_map_note_is_explicit_and_never_empty(root):
    for name in ("main", "", "odd name\n>>>"):
        note = missing_map_note(name)
        assert note.strip()
        assert "missing" in note and "not mean the memory is empty" in note
        assert note.startswith("<<<KURA-MAP") and note.endswith(CLOSE)
        assert note.count(CLOSE) == 1 and "\n>>>" not in note
        assert volatile_in(note) == []
    reg = registry(root)
    p = build_prefill(reg, "main", unreachable=True)
    assert p.text == missing_map_note("main")
    assert not p.map_shown and p.warning
    reg.close()


def test_store_without_an_index_gets_the_missing_note(tmp_path):
    reg = registry(tmp_path / "nothing-here")
    p = build_prefill(reg, "main")
    assert "missing" in p.text and not p.map_shown
    assert "kura init" in p.warning
    reg.close()


def _imports(module: str) -> set[str]:
    """Every kura_core module *module* imports, at the top or inside a function."""
    import ast

    import kura_core

    path = Path(kura_core.__file__).parent / f"{module}.py"
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level == 1:
                found.add(base.split(".")[0] if base else "")
                if not base:
                    found |= {a.name for a in node.names}
            elif base.startswith("kura_core."):
                found.add(base.split(".")[1])
        elif isinstance(node, ast.Import):
            found |= {a.name.split(".")[1] for a in node.names if a.name.startswith("kura_core.")}
    return found


def test_the_resident_block_and_the_cloth_never_import_the_loom():
    # the dependency runs one way: weave -> prefill -> cloth (and weave -> cloth)
    assert "weave" not in _imports("prefill")
    assert not {"weave", "prefill"} & _imports("cloth")
    assert {"prefill", "cloth"} <= _imports("weave")


def test_prefill_wears_the_cloth_only_while_the_index_hashes_to_its_header(root):
    from kura_core.cloth import WOVEN_FILE, cloth_file_text, index_sha

    reg = registry(root)
    text = (root / "MEMORY.md").read_text(encoding="utf-8")
    (root / "_still" / WOVEN_FILE).write_text(
        cloth_file_text(index_sha(text), "# hand-made cloth"), encoding="utf-8"
    )
    p = build_prefill(reg, "main")
    assert p.source == "woven" and "# hand-made cloth" in p.text
    (root / "_still" / WOVEN_FILE).write_text(
        cloth_file_text(index_sha(text + "\n"), "# hand-made cloth"), encoding="utf-8"
    )
    p = build_prefill(reg, "main")
    assert p.source == "canonical" and p.stale and "# hand-made cloth" not in p.text
    reg.close()
