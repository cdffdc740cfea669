"""Sync: two machines share a store through a bare repository; MEMORY.md merges by slug,
a memory changed on both keeps both texts, nothing of _still/ travels, no edit is lost."""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from kura_core import history
from kura_core.distill.drafts import list_drafts
from kura_core.errors import KuraError
from kura_core.kura import Kura
from kura_core.sync import merge_index, sync_conflicts
from tests.conftest import make_registry
from tests.core.linear_inputs import grows_linearly


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(root), *args], capture_output=True, text=True, check=True
    ).stdout


def machine(tmp_path: Path, name: str, remote: Path) -> Kura:
    reg = make_registry(
        tmp_path / name,
        stores={"main": {}},
        extra={
            "stores": {"main": {"write_policy": "direct-allowed", "sync": {"remote": str(remote)}}}
        },
    )
    history.enable(reg.store("main"))
    return Kura(reg)


@pytest.fixture
def pair(tmp_path):
    remote = tmp_path / "usb" / "notes.git"
    remote.parent.mkdir()
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    a, b = machine(tmp_path, "a", remote), machine(tmp_path, "b", remote)
    yield a, b, remote
    a.close()
    b.close()


def root(k: Kura) -> Path:
    return k.registry.store("main").root


def write(k: Kura, slug: str, desc: str, body: str, sector: str = "") -> None:
    k.registry.store("main").write(slug, title=slug, description=desc, body=body, sector=sector)


def files(k: Kura) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in root(k).iterdir() if p.is_file()}


def test_different_memories_on_two_machines_merge_both_ways(pair):
    a, b, remote = pair
    write(a, "shed-key", "the shed key hangs behind the blue door", "Blue door.", "Garden")
    assert a.sync(store="main").pushed
    write(b, "boat-oar", "the spare oar is in the loft of the boat house", "Loft.", "Boats")
    rep = b.sync(store="main")
    assert rep.merged == "merge" and rep.pushed and rep.brought == ["shed-key"]
    assert not rep.conflicts
    rep = a.sync(store="main")
    assert rep.merged == "fast-forward" and rep.brought == ["boat-oar"]
    assert files(a) == files(b)
    index = (root(a) / "MEMORY.md").read_text()
    for slug in ("shed-key", "boat-oar"):
        assert index.count(f"({slug}.md)") == 1
    assert index.count("## Garden") == 1 and index.count("## Boats") == 1
    assert "<<<<<<<" not in index
    for k in (a, b):
        assert git(root(k), "status", "--porcelain", "-uall") == ""
        assert k.doctor(store="main").ok, k.doctor(store="main").problems
    travelled = git(remote, "ls-tree", "-r", "--name-only", "main").split()
    assert not [p for p in travelled if p.startswith("_still")]
    assert {"shed-key.md", "boat-oar.md", "MEMORY.md"} <= set(travelled)


def test_the_same_memory_changed_on_both_keeps_both_texts(pair):
    a, b, _ = pair
    write(a, "shed-key", "the shed key hangs behind the blue door", "Blue door.")
    a.sync(store="main")
    b.sync(store="main")
    write(a, "shed-key", "the shed key hangs behind the blue door", "Blue door, left hook.")
    (root(b) / "shed-key.md").write_text(
        (root(b) / "shed-key.md").read_text() + "\nMoved to the red door by hand.\n"
    )
    assert a.sync(store="main").pushed
    rep = b.sync(store="main")
    assert rep.merged == "merge" and rep.pushed
    assert rep.conflicts == ["shed-key"]
    here = (root(b) / "shed-key.md").read_text()
    assert "Moved to the red door by hand." in here and "<<<<<<<" not in here
    (draft,) = list_drafts(b.registry.store("main"))
    assert draft.source == "sync" and draft.target == "shed-key"
    assert "Blue door, left hook." in draft.body
    assert sync_conflicts(b.registry.store("main")) == ["shed-key"]
    doc = b.doctor(store="main")
    assert doc.sync_conflicts == ("shed-key",)
    assert any("sync conflict" in n for n in doc.notes)
    # a second sync offers nothing twice
    assert not b.sync(store="main").conflicts
    assert len(list_drafts(b.registry.store("main"))) == 1


def test_a_memory_retired_on_one_machine_and_changed_on_the_other_stays(pair):
    a, b, _ = pair
    write(a, "shed-key", "the shed key hangs behind the blue door", "Blue door.")
    a.sync(store="main")
    b.sync(store="main")
    a.retire("shed-key", "moved house", store="main")
    write(b, "shed-key", "the shed key hangs behind the red door", "Red door now.")
    a.sync(store="main")
    b.sync(store="main")
    a.sync(store="main")
    for k in (a, b):
        assert "Red door now." in (root(k) / "shed-key.md").read_text()
        assert (root(k) / "MEMORY.md").read_text().count("(shed-key.md)") == 1
        assert k.doctor(store="main").ok


def test_sync_without_a_remote_or_with_a_bad_one_says_what_to_do(tmp_path):
    reg = make_registry(tmp_path, stores={"main": {}})
    history.enable(reg.store("main"))
    k = Kura(reg)
    with pytest.raises(KuraError, match=r"\[stores.main.sync\]"):
        k.sync(store="main")
    from kura_core.sync import sync

    with pytest.raises(KuraError, match="cannot fetch"):
        sync(reg.store("main"), str(tmp_path / "nowhere.git"))


# --------------------------------------------------------------------------- MEMORY.md's merge

SECTORS = ("", "## Garden", "## Boats", "## Kiln")


def _index(lines: dict[str, tuple[int, str]]) -> str:
    out = ["# main", ""]
    for s, head in enumerate(SECTORS):
        if head:
            out += ["", head, ""]
        out += [f"- [{k}]({k}.md) — {d}" for k, (sec, d) in lines.items() if sec == s]
    return "\n".join(out) + "\n"


@st.composite
def three_indexes(draw):
    slugs = [f"m{i}" for i in range(draw(st.integers(0, 30)))]
    base = {s: (draw(st.integers(0, 3)), f"line {s}") for s in slugs}
    pool = [*slugs, *[f"n{i}" for i in range(10)]]
    sides = []
    for side in ("o", "t"):
        mine = draw(st.lists(st.sampled_from(pool), unique=True, max_size=12))
        sides.append((side, mine))
    (_, ours_touch), (_, theirs_touch) = sides
    theirs_touch = [s for s in theirs_touch if s not in ours_touch]
    ours, theirs = dict(base), dict(base)
    for side, touched, version in (("o", ours_touch, ours), ("t", theirs_touch, theirs)):
        for s in touched:
            if s in version and draw(st.booleans()):
                del version[s]
            else:
                version[s] = (version.get(s, (draw(st.integers(0, 3)), ""))[0], f"{side} {s}")
    return base, ours, theirs


@settings(max_examples=150, deadline=None)
@given(three_indexes())
def test_the_index_merge_keeps_every_line_once_and_every_change(case):
    base, ours, theirs = case
    merged, clashes = merge_index(_index(base), _index(ours), _index(theirs))
    assert clashes == []
    want = dict(base)
    for version in (ours, theirs):
        for s in set(base) | set(version):
            if version.get(s) != base.get(s):
                if s in version:
                    want[s] = version[s]
                else:
                    want.pop(s, None)
    lines = merged.split("\n")
    for s in set(base) | set(ours) | set(theirs):
        hits = [x for x in lines if x.startswith(f"- [{s}]")]
        assert hits == ([f"- [{s}]({s}.md) — {want[s][1]}"] if s in want else []), s
    for head in SECTORS[1:]:
        assert lines.count(head) == 1
    if ours == base:
        assert merged == _index(theirs)


def test_a_line_changed_on_both_sides_keeps_ours_and_names_it():
    base = _index({"m1": (1, "old"), "m2": (2, "two")})
    ours = _index({"m1": (1, "ours"), "m2": (2, "two")})
    theirs = _index({"m1": (1, "theirs"), "m2": (2, "two"), "m3": (2, "new")})
    merged, clashes = merge_index(base, ours, theirs)
    assert clashes == ["m1"]
    assert "- [m1](m1.md) — ours" in merged and "- [m3](m3.md) — new" in merged
    assert merged.index("## Boats") < merged.index("(m3.md)")


def _big(n: int) -> str:
    rng = random.Random(n)
    k = max(1, n // 60)
    return "\n".join(f"- [m{i}](m{i}.md) — line {rng.random()}" for i in range(k))


def test_the_index_merge_runs_in_linear_time():
    def run(text: str) -> object:
        lines = text.split("\n")
        ours = "\n".join(lines[::2])  # half the lines gone here
        theirs = "\n".join(x + " changed" if i % 3 else x for i, x in enumerate(lines))
        return merge_index(text, ours, theirs, present=None)

    g = grows_linearly(run, _big, 60_000, cap=10.0)
    assert g.ok, g


def test_the_tender_syncs_when_due(pair):
    from kura_core.tend import run_once

    a, b, remote = pair
    write(a, "shed-key", "the shed key hangs behind the blue door", "Blue door.")
    _, tick = run_once(a.registry, "main")
    assert "sync" in tick.tracks
    assert "shed-key.md" in git(remote, "ls-tree", "--name-only", "main")
    _, again = run_once(a.registry, "main")
    assert "sync" not in again.tracks  # not due for another every_min minutes
    _, tick = run_once(b.registry, "main")
    assert (root(b) / "shed-key.md").read_bytes() == (root(a) / "shed-key.md").read_bytes()
