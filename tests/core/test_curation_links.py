"""No dead ends for a curator: retiring a memory others link to, with its links made plain
text or pointed elsewhere; doctor naming the command that fixes links to nothing; and that
command, checked on disk."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from kura_core.doctor import diagnose as doctor
from kura_core.errors import KuraError, NotFound
from kura_core.faces.cli import main
from kura_core.handwork.memories import rewrite_links
from kura_core.kura import Kura
from kura_core.registry import Registry
from kura_core.store import links_in
from tests.conftest import make_store

MEMS = {
    "old-way": ("The old way", "how it was done before", "Old. See [[new-way]] too."),
    "new-way": ("The new way", "how it is done now", "New."),
    "uses": (
        "Uses",
        "a memory that links",
        "Do it [[old-way|the old way]] and [[old-way#steps]], never [[old-way]].\nAlso [[new-way]].",
    ),
    "other": ("Other", "another linker", "Before [[old-way]] after."),
}


def _config(tmp_path: Path) -> Path:
    make_store(tmp_path / "main", "main", MEMS)
    cfg = tmp_path / "kura.toml"
    cfg.write_text(
        f'[stores.main]\npath = "{tmp_path / "main"}"\nwrite_policy = "distiller-only"\n'
    )
    return cfg


def _body(tmp_path: Path, slug: str) -> str:
    return (tmp_path / "main" / f"{slug}.md").read_text(encoding="utf-8").split("---\n", 2)[2]


def cli(capsys, *args) -> tuple[int, str]:
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out + out.err


# --------------------------------------------------------------------------- the rewrite rule

slugs = st.from_regex(r"[a-z][a-z0-9]{0,6}(-[a-z0-9]{1,4}){0,2}", fullmatch=True)
prose = st.text(alphabet=st.sampled_from(list("ab cd.,\n|#")), max_size=12)


@st.composite
def linked_text(draw):
    target = draw(slugs)
    parts = []
    for _ in range(draw(st.integers(0, 5))):
        parts.append(draw(prose).replace("[", "").replace("]", ""))
        kind = draw(st.sampled_from(["plain", "label", "part", "other"]))
        if kind == "plain":
            parts.append(f"[[{target}]]")
        elif kind == "label":
            parts.append(f"[[{target}|{draw(slugs)} x]]")
        elif kind == "part":
            parts.append(f"[[{target}#{draw(slugs)}]]")
        else:
            parts.append(f"[[{draw(slugs)}z]]")
    return target, "".join(parts)


@settings(max_examples=200, deadline=None)
@given(linked_text(), slugs)
def test_rewrite_leaves_no_link_to_the_target_and_keeps_every_other_link(case, to):
    target, text = case
    others = [s for s in links_in(text) if s != target]
    unlinked = rewrite_links(text, target, plain="PLAIN")
    assert target not in links_in(unlinked)
    assert [s for s in links_in(unlinked)] == others
    if to != target:
        moved = rewrite_links(text, target, to=to)
        n = links_in(text).count(target)
        assert links_in(moved).count(to) == n + others.count(to)
        assert target not in links_in(moved)
    if target not in links_in(text):
        assert unlinked == text


def test_rewrite_keeps_labels_and_parts():
    text = "a [[x|the label]] b [[x#part]] c [[x]] d [[y]]"
    assert rewrite_links(text, "x", plain="Ex") == "a the label b Ex c Ex d [[y]]"
    assert rewrite_links(text, "x", to="z") == "a [[z|the label]] b [[z#part]] c [[z]] d [[y]]"


# --------------------------------------------------------------------------- retire and relink


def test_retire_unlinks_the_links_and_doctor_stays_ok(tmp_path):
    k = Kura(Registry.open(_config(tmp_path)))
    res = k.retire("old-way", "replaced", store="main", links="unlink")
    assert set(res.relinked) == {"uses", "other"} and res.dead_links == ()
    assert not (tmp_path / "main" / "old-way.md").exists()
    assert "old-way" not in _body(tmp_path, "uses")
    assert "the old way" in _body(tmp_path, "uses")
    assert "Before The old way after." in _body(tmp_path, "other")
    assert "[[new-way]]" in _body(tmp_path, "uses")
    rep = doctor(k.registry, "main")
    assert rep.ok, rep.problems
    edits = {e.slug for e in k.gate_log(store="main") if e.kind == "edited"}
    assert edits == {"uses", "other"}


def test_retire_redirects_the_links(tmp_path):
    k = Kura(Registry.open(_config(tmp_path)))
    res = k.retire("old-way", "replaced", store="main", links="redirect", redirect_to="new-way")
    assert res.redirected_to == "new-way"
    body = _body(tmp_path, "uses")
    assert "[[new-way|the old way]]" in body and "[[new-way#steps]]" in body
    assert "old-way" not in body
    assert doctor(k.registry, "main").ok


def test_retire_refuses_a_redirect_to_nothing_and_changes_nothing(tmp_path):
    k = Kura(Registry.open(_config(tmp_path)))
    before = {p.name: p.read_bytes() for p in (tmp_path / "main").glob("*.md")}
    with pytest.raises(NotFound, match="redirect"):
        k.retire("old-way", "replaced", store="main", links="redirect", redirect_to="nope")
    with pytest.raises(NotFound, match="redirect"):
        k.retire("old-way", "replaced", store="main", links="redirect", redirect_to="old-way")
    with pytest.raises(KuraError):
        k.retire("old-way", "replaced", store="main", links="redirect")
    assert {p.name: p.read_bytes() for p in (tmp_path / "main").glob("*.md")} == before


def test_doctor_names_the_fix_and_the_fix_works(tmp_path, capsys):
    cfg = _config(tmp_path)
    code, out = cli(capsys, "-c", cfg, "retire", "old-way", "--reason", "replaced")
    assert code == 0 and "kura relink old-way -s main" in out
    assert (tmp_path / "main" / "uses.md").read_text().count("[[old-way") == 3
    code, out = cli(capsys, "-c", cfg, "doctor")
    assert code == 1 and "kura relink old-way -s main" in out
    code, out = cli(capsys, "-c", cfg, "relink", "old-way", "--to", "new-way", "--json")
    assert code == 0 and set(json.loads(out)["rewritten"]) == {"uses", "other"}
    assert "[[new-way|the old way]]" in _body(tmp_path, "uses")
    assert "[[new-way]] after." in _body(tmp_path, "other")
    code, out = cli(capsys, "-c", cfg, "doctor")
    assert code == 0, out
    code, out = cli(capsys, "-c", cfg, "relink", "old-way")
    assert code == 2 and "no memory" in out


def test_cli_retire_unlink(tmp_path, capsys):
    cfg = _config(tmp_path)
    code, out = cli(capsys, "-c", cfg, "retire", "old-way", "--reason", "gone", "--unlink")
    assert code == 0 and "plain text" in out
    assert "[[old-way" not in (tmp_path / "main" / "uses.md").read_text()
    assert cli(capsys, "-c", cfg, "doctor")[0] == 0


# --------------------------------------------------------------------------- adopting files


def _loose_files(root: Path) -> None:
    """Memory files as another tool or a person left them: no index, some with frontmatter."""
    root.mkdir(parents=True)
    (root / "deploy-steps.md").write_text(
        "---\nname: deploy-steps\ndescription: how the site is deployed by hand\n"
        "metadata:\n  type: procedure\n---\n# Deploy\n\nRun the script, then check [[rollback]].\n"
    )
    (root / "rollback.md").write_text("# Rolling back\n\nThe previous release stays in /srv/old.\n")
    (root / "empty.md").write_text("")


def test_init_adopts_the_files_already_there(tmp_path, capsys):
    root = tmp_path / "mine"
    _loose_files(root)
    before = {p.name: p.read_bytes() for p in root.glob("*.md")}
    cfg = tmp_path / "kura.toml"
    code, out = cli(capsys, "-c", cfg, "init", "mine", "--path", root)
    assert code == 0 and "adopted 2 memory file(s)" in out and "not adopted: empty.md" in out
    rolled = (root / "rollback.md").read_text()
    assert rolled.startswith("---\n") and rolled.endswith(
        "The previous release stays in /srv/old.\n"
    )
    index = (root / "MEMORY.md").read_text()
    assert "- [Deploy](deploy-steps.md) — how the site is deployed by hand" in index
    assert "- [Rolling back](rollback.md) — The previous release stays in /srv/old." in index
    # a file with frontmatter is as the person wrote it; plain markdown gained one, body kept
    after = {p.name: p.read_bytes() for p in root.glob("*.md") if p.name != "MEMORY.md"}
    assert after["deploy-steps.md"] == before["deploy-steps.md"]
    assert after["empty.md"] == before["empty.md"]
    k = Kura(Registry.open(cfg))
    rep = doctor(k.registry, "mine")
    assert not any("no index line" in p for p in rep.problems if "empty" not in p)
    assert "rollback.md" in repr(k.weave_preview(store="mine"))


def test_doctor_names_adopt_and_adopt_fixes_it(tmp_path, capsys):
    cfg = _config(tmp_path)
    (tmp_path / "main" / "copied-in.md").write_text(
        "---\nname: copied-in\ndescription: a memory copied from another store\n---\nBody.\n"
    )
    code, out = cli(capsys, "-c", cfg, "doctor")
    assert code == 1 and "kura adopt -s main" in out
    code, out = cli(capsys, "-c", cfg, "adopt")
    assert code == 0 and "adopted 1" in out
    assert (
        "(copied-in.md) — a memory copied from another store"
        in (tmp_path / "main" / "MEMORY.md").read_text()
    )
    assert cli(capsys, "-c", cfg, "doctor")[0] == 0
    code, out = cli(capsys, "-c", cfg, "adopt")
    assert code == 2 and "nothing to adopt" in out


def test_adopt_draws_a_trigger_from_the_body_when_there_is_no_description(tmp_path, capsys):
    cfg = _config(tmp_path)
    # a description claiming a number the memory does not hold
    (tmp_path / "main" / "made-up.md").write_text(
        "---\nname: made-up\ndescription: ''\n---\nThe cache holds 512 entries.\n"
    )
    k = Kura(Registry.open(cfg))
    res = k.adopt(store="main")
    assert res.adopted == ("made-up",)
    line = k.registry.store("main").index().by_slug()["made-up"].description
    assert line == "The cache holds 512 entries."


# --------------------------------------------------------------------------- $EDITOR text

_tag = st.from_regex(r"[a-z]{1,8}", fullmatch=True)


@settings(max_examples=100, deadline=None)
@given(st.lists(_tag, min_size=1, max_size=4, unique=True), st.sampled_from(["[", "{", '"']))
def test_an_edit_whose_frontmatter_is_not_yaml_is_refused_not_read_without_its_tags(tags, opener):
    from kura_core.handwork.memories import parse_editable
    from kura_core.store import render_memory

    text = render_memory(
        {"title": "T", "name": "s", "description": "d", "metadata": {"tags": tags}}, "Body.\n"
    )
    assert parse_editable(text, "s")["tags"] == tags
    broken = text.replace("metadata:", f"metadata: {opener}unclosed", 1)
    with pytest.raises(KuraError, match="not valid YAML"):
        parse_editable(broken, "s")


# --------------------------------------------------------------------------- huge bodies


@settings(max_examples=50, deadline=None)
@given(st.integers(200, 20_000), st.integers(0, 40_000))
def test_the_body_warning_is_exactly_the_bodies_over_the_budget(budget, size):
    from kura_core.doctor import body_warning

    body = ("word " * (size // 5 + 1))[:size].strip()
    warned = body_warning(body, budget)
    assert bool(warned) == (len(body) > budget)
    if warned:
        assert f"{len(body):,}" in warned and f"{budget:,}" in warned and "split" in warned


def test_doctor_names_a_huge_body_and_stays_ok(tmp_path, capsys):
    cfg = _config(tmp_path)
    k = Kura(Registry.open(cfg))
    k.registry.store("main").write(
        "huge", title="Huge", description="a whole manual pasted in", body="line of text\n" * 2000
    )
    rep = doctor(k.registry, "main")
    assert rep.ok
    (note,) = [n for n in rep.notes if "recall budget" in n]
    assert "biggest: huge" in note and "6,000" in note
    assert "6,001 characters" in k.body_warning("x" * 6001, store="main")
    assert k.body_warning("x" * 6000, store="main") == ""
    code, out = cli(capsys, "-c", cfg, "doctor")
    assert code == 0 and "biggest: huge" in out
