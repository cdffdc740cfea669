"""Grouped index lines and ``## `` sectors: read as index lines for each memory they name,
kept byte-for-byte by every writer that does not change that memory's own link."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from hypothesis import given, settings, strategies as hs

from kura_core.doctor import diagnose
from kura_core.recall import index_shards
from kura_core.registry import Registry
from kura_core.store import (
    Store,
    parse_index,
    remove_index_text,
    sector_for,
    upsert_index_text,
)
from tests.core.linear_inputs import grows_linearly

GROUPED = (
    "- water and tools — [Two rain barrels](rain-barrels.md) / [Sharpen the hoe](hoe-sharpening.md)"
)
INDEX = f"""# garden

<!-- one line per memory -->
- [Compost ratio](compost.md) — three parts brown to one green

## water and tools

{GROUPED}
- [Drip line](drip-line.md) — 16 mm, pressure 1.5 bar

## people

- neighbours: [Ana](ana.md), [Ben](ben.md)
"""
SLUGS = ["compost", "rain-barrels", "hoe-sharpening", "drip-line", "ana", "ben"]


def _garden(root: Path) -> Store:
    st = Store(root, name="garden", today=lambda: dt.date(2026, 11, 2))
    st.init()
    for slug in SLUGS:
        st.write(slug, title=slug.title(), description=f"about {slug}", body=f"{slug} body")
    st.index_path.write_text(INDEX, encoding="utf-8")
    return st


def test_a_grouped_line_is_an_index_line_for_each_memory():
    idx = parse_index(INDEX)
    assert idx.slugs() == SLUGS
    by = idx.by_slug()
    assert by["rain-barrels"].grouped and by["hoe-sharpening"].grouped
    assert by["rain-barrels"].raw == by["hoe-sharpening"].raw == GROUPED
    assert by["hoe-sharpening"].title == "Sharpen the hoe"
    assert by["rain-barrels"].description == "water and tools"  # the line's label
    assert by["ana"].description == "neighbours" and by["ana"].sector == "people"
    assert not by["drip-line"].grouped and by["drip-line"].sector == "water and tools"
    assert idx.sectors() == ["water and tools", "people"]


def test_doctor_is_healthy_on_grouped_lines(tmp_path):
    _garden(tmp_path / "garden")
    rep = diagnose(Registry.for_path(tmp_path / "garden", "garden"), "garden")
    drift = rep.index_drift
    assert rep.ok, rep.problems
    assert not drift.files_without_line and not drift.lines_without_file
    assert not drift.duplicate_lines and not drift.bad_targets


def test_recall_sends_a_grouped_line_once():
    shards = index_shards(parse_index(INDEX).entries, 10_000)
    assert len(shards) == 1
    assert shards[0].count(GROUPED) == 1
    assert "## water and tools" in shards[0] and "## people" in shards[0]


def test_writes_keep_a_grouped_line_byte_for_byte(tmp_path):
    st = _garden(tmp_path / "garden")
    st.write("hoe-sharpening", title="Sharpen the hoe", description="a new line", body="b2")
    st.write("drip-line", title="Drip line", description="16 mm, now 2 bar", body="d2")
    assert GROUPED in st.index_text().split("\n")
    st.write("hoe-sharpening", title="Hone the hoe", description="x", body="b3")
    text = st.index_text()
    assert GROUPED.replace("Sharpen the hoe", "Hone the hoe") in text.split("\n")
    assert "(hoe-sharpening.md)" in text and text.count("hoe-sharpening.md") == 1


def test_retiring_one_memory_removes_only_its_link(tmp_path):
    st = _garden(tmp_path / "garden")
    st.retire("rain-barrels")
    lines = st.index_text().split("\n")
    assert "- water and tools — [Sharpen the hoe](hoe-sharpening.md)" in lines
    st.retire("ana")
    assert "- neighbours: [Ben](ben.md)" in st.index_text().split("\n")
    st.retire("ben")
    assert "neighbours" not in st.index_text()
    assert "## people" in st.index_text()  # the sector heading stays


def test_a_new_memory_goes_into_the_sector_its_tag_names(tmp_path):
    st = _garden(tmp_path / "garden")
    st.write("sprinkler", title="Sprinkler", description="s", body="s", tags=["water-and-tools"])
    st.write("loose", title="Loose", description="l", body="l", tags=["misc"])
    idx = st.index()
    assert idx.by_slug()["sprinkler"].sector == "water and tools"
    assert idx.by_slug()["loose"].sector == ""
    assert sector_for(idx, ["People"]) == "people"
    assert sector_for(parse_index("- [A](a.md)\n"), ["people"]) == ""


# --------------------------------------------------------------------------- round trips

_words = hs.text(alphabet="abcdefg xyz", min_size=1, max_size=12).map(lambda s: " ".join(s.split()))
_words = _words.filter(bool)
_slugs = hs.from_regex(r"[a-z]{1,6}(-[a-z]{1,4})?", fullmatch=True).filter(
    lambda s: s not in {"memory", "charter", "profile", "readme", "index"}
)


@hs.composite
def _index_files(draw: hs.DrawFn) -> tuple[str, list[str]]:
    """A MEMORY.md of headings, plain lines, grouped lines, prose and blanks; its slugs."""
    slugs = draw(hs.lists(_slugs, min_size=2, max_size=12, unique=True))
    out = ["# s", ""]
    rest = list(slugs)
    seps = draw(hs.lists(hs.sampled_from([" / ", ", ", " · ", " | ", " and "]), min_size=1))
    while rest:
        kind = draw(hs.sampled_from(["plain", "group", "head", "prose", "blank"]))
        if kind == "head":
            out.append(f"## {draw(_words)}")
        elif kind == "prose":
            out.append(draw(_words))
        elif kind == "blank":
            out.append("")
        elif kind == "plain":
            s = rest.pop()
            out.append(f"- [{draw(_words)}]({s}.md) — {draw(_words)}")
        else:
            k = draw(hs.integers(1, min(4, len(rest))))
            names = [rest.pop() for _ in range(k)]
            links = draw(hs.sampled_from(seps)).join(f"[{draw(_words)}]({n}.md)" for n in names)
            out.append(f"- {draw(_words)} — {links}")
    return "\n".join(out) + "\n", slugs


@settings(max_examples=150, deadline=None)
@given(_index_files(), hs.data())
def test_unrelated_writes_round_trip_byte_identically(made, data):
    text, slugs = made
    idx = parse_index(text)
    assert sorted(idx.slugs()) == sorted(slugs)
    # the same title and description again: nothing changes at all
    for e in idx.entries:
        desc = e.description if not e.grouped else "ignored for a grouped line"
        assert upsert_index_text(text, e.slug, e.title, desc) == text
    # a new memory: every line there was is still there, in order, and only one line is new
    after = upsert_index_text(text, "zz-new", "New", "fresh", data.draw(hs.sampled_from(["", "x"])))
    old_lines, new_lines = text.split("\n"), after.split("\n")
    it = iter(new_lines)
    assert all(line in it for line in old_lines)
    assert parse_index(after).slugs().count("zz-new") == 1
    # removing one memory touches only the line that names it
    gone = data.draw(hs.sampled_from(slugs))
    removed = remove_index_text(text, gone)
    assert gone not in parse_index(removed).slugs()
    assert sorted(parse_index(removed).slugs()) == sorted(s for s in slugs if s != gone)
    touched = parse_index(text).by_slug()[gone].line_no
    kept = [l for i, l in enumerate(old_lines) if i != touched]
    it = iter(removed.split("\n"))
    assert all(line in it for line in kept)


def test_grouped_lines_parse_in_linear_time():
    def family(n: int) -> str:
        return "- label " + "[x](a" * (n // 5) + "\n- " + "](" * (n // 2) + "\n"

    g = grows_linearly(parse_index, family, 20_000)
    assert g.ok, g.why


def test_weave_wears_a_grouped_line_as_written(tmp_path):
    from kura_core.cloth import read_cloth
    from kura_core.weave import weave

    st = _garden(tmp_path / "garden")
    reg = Registry.for_path(tmp_path / "garden", "garden")
    res = weave(reg, "garden", today=lambda: dt.date(2026, 11, 2))
    assert res.written, res.reason
    sha, cloth = read_cloth(st.still)
    assert sha is not None
    lines = cloth.split("\n")
    assert GROUPED in lines and "- neighbours: [Ana](ana.md), [Ben](ben.md)" in lines
    assert "## water and tools" in lines and "## people" in lines
