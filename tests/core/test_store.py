"""A store on disk: memory files, the MEMORY.md index, slugs, links, caching, workshop."""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import sqlite3
import textwrap
from pathlib import Path

import pytest

from kura_core.errors import ConflictError, KuraError, MemoryFormatError, NotFound
from kura_core.store import (
    Store,
    check_slug,
    entry_line,
    links_in,
    parse_index,
    remove_index_text,
    render_memory,
    slugify,
    split_frontmatter,
    upsert_index_text,
)
from kura_core.workshop import MIGRATIONS, Workshop
from tests.conftest import make_store

FIXED_DAY = dt.date(2026, 11, 2)


def _store(root: Path, name: str = "main") -> Store:
    st = Store(root, name=name, today=lambda: FIXED_DAY)
    st.init()
    return st


def _bump_mtime(path: Path, delta_ns: int = 7_000_000_000) -> None:
    """Give *path* an mtime that differs from the current one, whatever the clock resolution."""
    st = os.stat(path)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + delta_ns))
    assert os.stat(path).st_mtime_ns != st.st_mtime_ns


def _edit_in_place(path: Path, old: str, new: str) -> None:
    """Overwrite bytes in the same inode, keeping the size."""
    assert len(old.encode()) == len(new.encode())
    ino = os.stat(path).st_ino
    data = path.read_bytes()
    assert data.count(old.encode()) == 1
    with open(path, "r+b") as fh:
        fh.seek(data.index(old.encode()))
        fh.write(new.encode())
    assert os.stat(path).st_ino == ino
    assert path.stat().st_size == len(data)


# --------------------------------------------------------------------------- frontmatter

HAND_WRITTEN = textwrap.dedent("""\
    ---
    name: archive-on-slow-disk
    description: the archive lives on the slow disk; the fast one stays scratch
    metadata:
      type: project
      tags: [decision, landmine]
      evidence_manifest: sha256:abc123
      created: 2026-10-01
      reviewer: hana
    belongs_because: this store keeps how the machine is laid out and why
    keep: which disk, and the reason
    may_fade: the df figures from that afternoon
    source_session: s-42
    custom_list: [1, 2, 3]
    ---

    The archive goes on the slow disk. The fast disk is scratch space.

    Related: [[disk-layout]]
    """)


def test_split_and_render_round_trip():
    meta, body = split_frontmatter(HAND_WRITTEN)
    assert meta["name"] == "archive-on-slow-disk"
    assert meta["metadata"]["tags"] == ["decision", "landmine"]
    assert meta["custom_list"] == [1, 2, 3]
    assert body.startswith("The archive goes on the slow disk.")
    again_meta, again_body = split_frontmatter(render_memory(meta, body))
    assert again_meta == meta
    assert again_body.strip() == body.strip()


def test_bom_is_tolerated():
    meta, body = split_frontmatter("\ufeff---\nname: a\n---\nbody\n")
    assert meta == {"name": "a"}
    assert body == "body\n"


@pytest.mark.parametrize(
    "text, why",
    [
        ("no frontmatter here\n", "no YAML frontmatter"),
        ("---\n\njust prose, and the frontmatter never closes\n", "never closed"),
        ("---\n[unclosed: a\n---\nbody\n", "not valid YAML"),
        ("---\nthis is prose, not a key\n---\nbody\n", "mapping"),
        ("---\n- a\n- b\n---\nbody\n", "mapping"),
        ("--- name: a\n---\nbody\n", "exactly '---'"),
    ],
)
def test_bad_frontmatter_is_refused(text, why):
    with pytest.raises(MemoryFormatError, match=re.escape(why)):
        split_frontmatter(text)


def test_rewrite_preserves_unknown_keys(tmp_path):
    st = _store(tmp_path / "s")
    path = st.root / "archive-on-slow-disk.md"
    path.write_text(HAND_WRITTEN, encoding="utf-8")
    before, _ = split_frontmatter(HAND_WRITTEN)

    st.write(
        "archive-on-slow-disk",
        title="Archive on the slow disk",
        description="the archive moved to the slow disk in November",
        body="New body.",
    )

    meta, body = split_frontmatter(path.read_text(encoding="utf-8"))
    assert body.strip() == "New body."
    assert meta["description"] == "the archive moved to the slow disk in November"
    assert meta["name"] == "archive-on-slow-disk"
    for key in ("belongs_because", "keep", "may_fade", "source_session", "custom_list"):
        assert meta[key] == before[key], key
    md = meta["metadata"]
    assert md["evidence_manifest"] == "sha256:abc123"
    assert md["reviewer"] == "hana"
    assert md["tags"] == ["decision", "landmine"]  # tags not given: kept
    assert md["type"] == "project"
    assert str(md["created"]) == "2026-10-01"
    assert md["updated"] == FIXED_DAY.isoformat()


def test_write_then_read_round_trip(store):
    mem = store.write(
        "disk-layout",
        title="Disk layout",
        description="which disk holds what",
        body="Fast: scratch. Slow: archive. See [[archive]].",
        type="reference",
        tags=["decision", "decision", "landmine"],
        meta={"keep": "the two disks", "metadata": {"evidence_manifest": "sha256:ff"}},
    )
    again = Store(store.root).read("disk-layout")
    assert again.title == "Disk layout"
    assert again.description == "which disk holds what"
    assert again.type == "reference"
    assert again.tags == ("decision", "landmine")
    assert again.body.strip() == "Fast: scratch. Slow: archive. See [[archive]]."
    assert again.links == ["archive"]
    assert again.curation("keep") == "the two disks"
    assert again.meta["metadata"]["evidence_manifest"] == "sha256:ff"
    assert again.problems == ()
    assert mem.body == again.body


def test_write_validates_its_input(store):
    with pytest.raises(KuraError, match="description"):
        store.write("a", title="A", description="   ", body="b")
    with pytest.raises(KuraError, match="body"):
        store.write("a", title="A", description="d", body="\n\n")
    with pytest.raises(KuraError, match="type"):
        store.write("a", title="A", description="d", body="b", type="opinion")
    assert not (store.root / "a.md").exists()
    assert store.index().entries == ()


def test_create_only_refuses_an_existing_memory(store):
    store.write("a", title="A", description="first", body="one")
    with pytest.raises(ConflictError):
        store.write("a", title="A", description="second", body="two", create_only=True)
    assert store.read("a").description == "first"


def test_problems_in_frontmatter_are_reported_not_fatal(store):
    (store.root / "odd.md").write_text(
        "---\nname: other\ndescription: 5\nmetadata:\n  type: opinion\n  tags: {a: 1}\n---\nbody\n",
        encoding="utf-8",
    )
    mem = store.read("odd")
    joined = " | ".join(mem.problems)
    assert "does not match the file name" in joined
    assert "not one of" in joined
    assert "tags is not a list" in joined
    assert "description is not text" in joined


def test_missing_memory_is_not_found(store):
    with pytest.raises(NotFound):
        store.read("nothing-here")


# --------------------------------------------------------------------------- the index

INDEX = textwrap.dedent("""\
    # main

    What this store is for, in a sentence a person wrote.

    <!-- a comment on one line -->
    <!--
    - [Commented out](commented.md) — this entry is inside a comment
    -->
    - [Alpha](alpha.md) — the first one
    * a foreign bullet someone wrote
    - [A web page](https://example.com/page) — not a memory

    ## Machines
    - [Beta](beta.md) — the second one
    | a | table |

    ## People
    - [Gamma](gamma.md): the third one
    - [Alpha again](alpha.md) — a duplicate line for alpha
    trailing words
    """)


def test_parse_index_entries_and_sectors():
    idx = parse_index(INDEX)
    got = [(e.slug, e.title, e.description, e.sector) for e in idx.entries]
    assert got == [
        ("alpha", "Alpha", "the first one", ""),
        ("beta", "Beta", "the second one", "Machines"),
        ("gamma", "Gamma", "the third one", "People"),
        ("alpha", "Alpha again", "a duplicate line for alpha", "People"),
    ]
    assert "commented" not in idx.slugs()
    assert idx.by_slug()["alpha"].title == "Alpha"
    assert idx.text == INDEX.rstrip("\n")


def test_parse_index_never_yields_escaping_targets():
    text = textwrap.dedent("""\
        - [Up](../x.md) — up and out
        - [Root](/etc/passwd) — absolute
        - [Abs md](/tmp/evil.md) — absolute md
        - [Enc](..%2f..%2fetc.md) — encoded
        - [Back](..\\x.md) — backslash
        - [Reserved](MEMORY.md) — the index itself
        - [Still](_still/kura.md) — the workshop
        - [Ok](fine.md) — fine
        """)
    idx = parse_index(text)
    assert idx.slugs() == ["fine"]
    targets = {t for _, t in idx.foreign_links}
    assert {
        "../x.md",
        "/etc/passwd",
        "/tmp/evil.md",
        "..%2f..%2fetc.md",
        "MEMORY.md",
        "_still/kura.md",
    } <= targets


def _is_subsequence(needle: list[str], hay: list[str]) -> bool:
    it = iter(hay)
    return all(any(x == y for y in it) for x in needle)


def _non_entry_lines(text: str) -> list[str]:
    entry_rows = {e.line_no for e in parse_index(text).entries}
    return [l for i, l in enumerate(text.rstrip("\n").split("\n")) if i not in entry_rows]


def test_writes_leave_foreign_lines_untouched(tmp_path):
    st = _store(tmp_path / "s")
    st.index_path.write_text(INDEX, encoding="utf-8")
    before = _non_entry_lines(INDEX)

    st.write("beta", title="Beta", description="the second one, rewritten", body="b")
    st.write("delta", title="Delta", description="new in machines", body="d", sector="Machines")
    st.write("epsilon", title="Epsilon", description="no sector", body="e")
    st.write("zeta", title="Zeta", description="new sector", body="z", sector="Places")

    after_text = st.index_text()
    after = _non_entry_lines(after_text)
    assert [l for l in after if l.strip()][: len([l for l in before if l.strip()])] == [
        l for l in before if l.strip()
    ]
    for line in before:
        assert line in after_text.split("\n"), line

    untouched = [l for l in INDEX.rstrip("\n").split("\n") if "(beta.md)" not in l]
    assert _is_subsequence(untouched, after_text.split("\n"))
    sectors = {e.slug: e.sector for e in parse_index(after_text).entries}
    assert sectors["beta"] == "Machines" and sectors["delta"] == "Machines"
    # a line kura cannot place goes above the headings, not into whichever sector is last
    assert sectors["epsilon"] == "" and sectors["zeta"] == "Places"
    assert "- [Beta](beta.md) — the second one, rewritten" in after_text
    assert "- [Commented out](commented.md) — this entry is inside a comment" in after_text
    assert "<!-- a comment on one line -->" in after_text
    assert "| a | table |" in after_text
    assert "- [A web page](https://example.com/page) — not a memory" in after_text
    assert "- [Gamma](gamma.md): the third one" in after_text  # untouched entry keeps its form


def test_upsert_replaces_in_place_and_drops_duplicates(tmp_path):
    st = _store(tmp_path / "s")
    st.index_path.write_text(INDEX, encoding="utf-8")
    first_row = parse_index(INDEX).by_slug()["alpha"].line_no

    st.write("alpha", title="Alpha", description="rewritten", body="a", sector="People")

    text = st.index_text()
    idx = parse_index(text)
    alpha = [e for e in idx.entries if e.slug == "alpha"]
    assert len(alpha) == 1
    assert alpha[0].line_no == first_row  # stays where it was, not moved to its sector
    assert alpha[0].raw == "- [Alpha](alpha.md) — rewritten"
    assert "duplicate line for alpha" not in text
    assert idx.slugs() == ["alpha", "beta", "gamma"]


def test_new_entries_go_to_their_sector():
    text = "# s\n\n## A\n- [One](one.md) — 1\n\n## B\n- [Two](two.md) — 2\n"
    text = upsert_index_text(text, "three", "Three", "3", sector="A")
    text = upsert_index_text(text, "four", "Four", "4", sector="C")
    text = upsert_index_text(text, "five", "Five", "5")
    idx = parse_index(text)
    sectors = {e.slug: e.sector for e in idx.entries}
    # no sector named: above the first heading (the unsorted part), never the last sector
    assert sectors == {"one": "A", "three": "A", "two": "B", "four": "C", "five": ""}
    lines = text.split("\n")
    assert lines.index("- [Three](three.md) — 3") == lines.index("- [One](one.md) — 1") + 1
    assert lines.index("- [Three](three.md) — 3") < lines.index("## B")
    assert lines.index("## C") < lines.index("- [Four](four.md) — 4")
    assert lines.index("- [Five](five.md) — 5") < lines.index("## A")
    assert lines[lines.index("- [Five](five.md) — 5") + 1] == ""


def test_remove_index_text_only_drops_that_slug():
    text = remove_index_text(INDEX, "alpha")
    assert "alpha.md" not in text.replace("commented.md", "")
    assert "- [Beta](beta.md) — the second one" in text
    assert "* a foreign bullet someone wrote" in text
    assert "- [Commented out](commented.md) — this entry is inside a comment" in text


def test_entry_line_is_one_clean_line():
    line = entry_line("a", "A [weird]\ntitle", "two\nlines   here")
    assert line == "- [A (weird) title](a.md) — two lines here"
    assert entry_line("b", "", "") == "- [b](b.md)"
    assert parse_index(line).entries[0].title == "A (weird) title"


def test_index_line_for_a_new_memory(store):
    store.write(
        "archive-on-slow-disk",
        title="Archive on the slow disk",
        description="the archive lives on the slow disk",
        body="b",
    )
    assert (
        "- [Archive on the slow disk](archive-on-slow-disk.md) — the archive lives on the slow disk"
        in store.index_text().split("\n")
    )
    assert store.read("archive-on-slow-disk").title == "Archive on the slow disk"


# --------------------------------------------------------------------------- slugs and links


def test_slugify_ascii_kebab():
    assert slugify("Archive on the slow disk") == "archive-on-the-slow-disk"
    assert (
        slugify("  Running the 2.6T model off an SSD tier!  ")
        == "running-the-2-6t-model-off-an-ssd-tier"
    )
    assert slugify("Café résumé") == "cafe-resume"
    assert slugify("SSD 推理チップ") == "ssd"
    long = slugify(" ".join(["word"] * 40))
    assert len(long) <= 60 and check_slug(long) == long


@pytest.mark.parametrize(
    "title", ["遅いディスクにアーカイブを置く", "存档放在慢速磁盘上", "🙂🙂", "Memory", "---"]
)
def test_slugify_digest_for_titles_without_ascii_words(title):
    slug = slugify(title)
    assert re.fullmatch(r"m-[0-9a-f]{10}", slug)
    assert slugify(title) == slug  # stable
    assert check_slug(slug) == slug


def test_slugify_digests_differ_per_title():
    assert slugify("遅いディスク") != slugify("速いディスク")
    assert slugify("存档") != slugify("档案")


def test_links_in():
    text = "See [[disk-layout]] and [[archive|the archive]], again [[disk-layout]]; not [single] or [[]]"
    assert links_in(text) == ["disk-layout", "archive", "disk-layout"]
    assert links_in("[[ spaced ]]") == ["spaced"]
    assert links_in("no links") == []


# --------------------------------------------------------------------------- hand edits are seen


def test_same_size_hand_edit_of_a_memory_is_seen(store):
    store.write("alpha", title="Alpha", description="first words", body="the colour is GREEN today")
    assert "GREEN" in store.read("alpha").body
    path = store.root / "alpha.md"
    _edit_in_place(path, "GREEN", "WHITE")
    _bump_mtime(path)
    mem = store.read("alpha")
    assert "WHITE" in mem.body and "GREEN" not in mem.body
    assert "WHITE" in store.scan().by_slug()["alpha"].body


def test_replacing_a_memory_file_by_hand_is_seen(store):
    store.write("alpha", title="Alpha", description="first words", body="one")
    store.read("alpha")
    path = store.root / "alpha.md"
    tmp = store.root / "editor-swap"
    tmp.write_text(
        "---\nname: alpha\ndescription: edited by a person\n---\n\ntwo\n", encoding="utf-8"
    )
    os.replace(tmp, path)
    mem = store.read("alpha")
    assert mem.description == "edited by a person"
    assert mem.body.strip() == "two"


def test_same_size_hand_edit_of_the_index_is_seen(store):
    store.write("alpha", title="Alpha", description="first words", body="one")
    assert store.read("alpha").title == "Alpha"
    assert store.index().by_slug()["alpha"].description == "first words"
    _edit_in_place(store.index_path, "[Alpha]", "[Omega]")
    _edit_in_place(store.index_path, "first words", "final words")
    _bump_mtime(store.index_path)
    assert store.index().by_slug()["alpha"].title == "Omega"
    assert store.index().by_slug()["alpha"].description == "final words"
    assert store.read("alpha").title == "Omega"
    assert "[Omega]" in store.index_text()


def test_hand_added_index_line_and_file_are_seen(store):
    store.write("alpha", title="Alpha", description="first words", body="one")
    store.scan()
    (store.root / "beta.md").write_text(
        "---\nname: beta\ndescription: by hand\n---\nb\n", encoding="utf-8"
    )
    with open(store.index_path, "a", encoding="utf-8") as fh:
        fh.write("- [Beta](beta.md) — by hand\n")
    _bump_mtime(store.index_path)
    scan = store.scan()
    assert [m.slug for m in scan.memories] == ["alpha", "beta"]
    assert scan.by_slug()["beta"].title == "Beta"


def test_file_slugs_skip_reserved_temp_and_odd_names(store):
    store.write("alpha", title="Alpha", description="d", body="b")
    for name in (
        "charter.md",
        "profile.md",
        "README.md",
        ".alpha.md.tmp-123",
        "Upper.md",
        "notes.txt",
        "has space.md",
    ):
        (store.root / name).write_text("x", encoding="utf-8")
    (store.still / "drafts" / "draft-one.md").write_text("x", encoding="utf-8")
    assert store.file_slugs() == ["alpha"]
    assert [m.slug for m in store.scan().memories] == ["alpha"]


def test_init_is_idempotent_and_keeps_a_hand_edited_index(tmp_path):
    st = make_store(tmp_path / "s", memories={"a": ("A", "d", "b")})
    st.index_path.write_text(st.index_text() + "a line a person added\n", encoding="utf-8")
    text = st.index_text()
    st.init(label="ignored the second time")
    assert st.index_text() == text
    assert (st.still / "drafts").is_dir()


def test_init_refuses_a_file_where_the_directory_should_be(tmp_path):
    f = tmp_path / "file"
    f.write_text("x")
    with pytest.raises(KuraError, match="not a directory"):
        Store(f).init()


def test_memory_date_prefers_newest(store):
    (store.root / "d.md").write_text(
        "---\nname: d\ndescription: x\nmetadata:\n  created: 2026-01-02\n  updated: '2026-03-04'\n---\nb\n",
        encoding="utf-8",
    )
    assert store.read("d").date() == dt.date(2026, 3, 4)
    assert (
        json.loads(json.dumps(store.read("d").to_json()))["meta"]["metadata"]["created"]
        == "2026-01-02"
    )


# --------------------------------------------------------------------------- the workshop


def test_workshop_is_wal_and_migrated(tmp_path):
    ws = Workshop(tmp_path / "_still")
    assert ws.schema_version == len(MIGRATIONS)
    mode = ws.query("PRAGMA journal_mode")[0][0]
    assert mode.lower() == "wal"
    tables = {r[0] for r in ws.query("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {
        "kv",
        "watermarks",
        "reservations",
        "gate_log",
        "seeds",
        "trigger_ledger",
        "read_log",
        "model_calls",
        "heartbeat",
    } <= tables
    ws.close()


def test_workshop_migrations_are_idempotent_across_reopen(tmp_path):
    ws = Workshop(tmp_path / "_still")
    ws.put("k", {"v": 1})
    ws.log_gate("dropped", title="t", reason="r")
    ws.close()
    for _ in range(2):
        again = Workshop(tmp_path / "_still")
        assert again.schema_version == len(MIGRATIONS)
        assert again.get("k") == {"v": 1}
        assert len(again.gate_log()) == 1
        again.close()


def test_workshop_refuses_a_newer_schema(tmp_path):
    still = tmp_path / "_still"
    first = Workshop(still)
    assert first.schema_version == len(MIGRATIONS)
    first.close()
    conn = sqlite3.connect(still / "kura.db")
    conn.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 3}")
    conn.close()
    ws = Workshop(still)
    with pytest.raises(KuraError, match=r"newer kura.*upgrade"):
        _ = ws.schema_version
    conn = sqlite3.connect(still / "kura.db")
    assert conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS) + 3
    conn.close()
    ws.close()


def test_workshop_loses_no_memory_when_deleted(store):
    store.write("alpha", title="Alpha", description="d", body="b")
    ws = Workshop(store.still)
    ws.put("x", 1)
    ws.close()
    for p in store.still.glob("kura.db*"):
        p.unlink()
    assert Store(store.root).read("alpha").description == "d"
    assert Workshop(store.still).get("x") is None
