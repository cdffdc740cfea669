"""Every fast path answers exactly as the plain one it stands in for.

The index and the word index follow writes instead of being rebuilt; a cached memory is
returned on its file's status alone; the token estimate classifies ASCII without regular
expressions; the read log is written in batches. Each is checked against doing it the slow
way, over the writes a store really sees (a pour or remember, a rewrite, an editor's save,
an edit made in place, a delete, a rename, a hand-edited index line, a file that stops
parsing), in random sequences with a fixed seed. Nothing here is timed.
"""

from __future__ import annotations

import os
import random
import re
import sqlite3
import time
from dataclasses import asdict
from pathlib import Path

import pytest

import kura_core.recall as recall_mod
from kura_core.config import parse_config
from kura_core.errors import ContainmentError
from kura_core.kura import Kura
from kura_core.recall import RecallResult, flush_read_log, recall, word_index
from kura_core.registry import Registry
from kura_core.store import Store, memory_slug, parse_index, reparse_index
from kura_core.tokens import estimate_tokens
from tests.conftest import make_registry

# --------------------------------------------------------------------------- MEMORY.md

PIECES = [
    "# Title",
    "",
    "## Sector A",
    "## Sector B",
    "<!-- a comment -->",
    "<!-- opens",
    "inside the comment",
    "closes -->",
    "- [T](slug-a.md) — trigger a",
    "* [V](slug-c.md): trigger c",
    "- [Bad](../x.md) — escapes",
    "- [W](https://example.com) — a web link",
    "plain text -- with dashes",
    "  <!-- indented -->",
    "- [X](memory.md) — reserved",
    "- [Y](Y_Z.md) — not a slug",
    "- [Z](slug-d) — no extension",
]


def _line(rng: random.Random) -> str:
    if rng.random() < 0.6:
        i = rng.randint(0, 40)
        return f"- [Title {i}](m-{i}.md) — trigger {rng.randint(0, 9)}"
    return rng.choice(PIECES)


def _edited(lines: list[str], rng: random.Random) -> list[str]:
    """*lines* with one line changed, added or removed."""
    lines = list(lines)
    op = rng.random()
    if op < 0.4 and lines:
        lines[rng.randrange(len(lines))] = _line(rng)
    elif op < 0.7:
        lines.insert(rng.randint(0, len(lines)), _line(rng))
    elif lines:
        del lines[rng.randrange(len(lines))]
    return lines


def test_reparsing_after_an_edit_gives_what_a_full_parse_gives():
    rng = random.Random(7)
    for _ in range(1500):
        lines = [_line(rng) for _ in range(rng.randint(0, 30))]
        old = parse_index("\n".join(lines) + "\n")
        for _ in range(6):
            lines = _edited(lines, rng)
            if rng.random() < 0.2:
                at = rng.randint(0, len(lines))
                lines[at:at] = [_line(rng) for _ in range(3)]
            text = "\n".join(lines) + ("\n" if rng.random() < 0.8 else "")
            new = reparse_index(old, text)
            assert new == parse_index(text), text
            old = new


def test_a_reparse_says_which_entries_may_differ_from_the_parse_it_came_from():
    """changed_since names every slug whose entry differs between two parses joined by
    reparses (through up to 16 between), and says "not known" when a full parse broke the
    chain, so a reader never skips an entry that changed."""
    from kura_core.store import changed_since

    rng = random.Random(17)
    for _ in range(400):
        lines = [_line(rng) for _ in range(rng.randint(0, 30))]
        first = parse_index("\n".join(lines) + "\n")
        chain = [first]
        for _ in range(rng.randint(1, 20)):
            lines = _edited(lines, rng)
            chain.append(reparse_index(chain[-1], "\n".join(lines) + "\n"))
        newest = chain[-1]
        for at, older in enumerate(chain[:-1]):
            said = changed_since(older, newest)
            was, now = older.by_slug(), newest.by_slug()
            differ = {
                s
                for s in was.keys() | now.keys()
                if was.get(s) != now.get(s)
                and (
                    was.get(s) is None
                    or now.get(s) is None
                    or (was[s].title, was[s].description) != (now[s].title, now[s].description)
                )
            }
            if said is None:  # a full parse in between, or more than 16 reparses back
                full = [i for i in range(at + 1, len(chain)) if chain[i].delta is None]
                assert full or len(chain) - 1 - at > 16
                continue
            assert differ <= said, (sorted(differ - said), lines)


def test_an_unchanged_index_is_the_same_object_and_unchanged_entries_are_reused():
    text = "".join(f"- [T{i}](m-{i}.md) — trigger {i}\n" for i in range(50))
    old = parse_index(text)
    assert reparse_index(old, text) is old
    new = reparse_index(old, text.replace("trigger 30\n", "trigger thirty\n"))
    assert new.entries[:30] == old.entries[:30] and all(
        a is b for a, b in zip(new.entries[:30], old.entries, strict=False)
    )
    assert new.entries[30].description == "trigger thirty"


@pytest.mark.parametrize(
    "name,slug",
    [
        ("disk-layout.md", "disk-layout"),
        (".disk-layout.md.tmp-12", None),
        ("MEMORY.md", None),
        ("charter.md", None),
        ("Disk.md", None),
        ("a_b.md", None),
        ("notes.txt", None),
        ("x" * 81 + ".md", None),
    ],
)
def test_memory_slug_is_the_file_listing_rule(tmp_path, name, slug):
    assert memory_slug(name) == slug
    st = Store(tmp_path / "s")
    st.init()
    (st.root / name).write_text("---\ndescription: x\n---\n\nx\n")
    assert st.file_slugs() == ([slug] if slug else [])


# --------------------------------------------------------------------------- the word index in a store

WORDS = [
    "disk",
    "archive",
    "kettle",
    "router",
    "garden",
    "invoice",
    "backup",
    "fan",
    "cp932",
    "自宅",
    "周报",
]


def _body(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 20)))


def _file(desc: str, body: str) -> str:
    return f"---\ndescription: {desc}\nmetadata:\n  type: project\n---\n\n{body}\n"


def _fresh(root: Path) -> dict:
    """What a word index built from nothing over the store at *root* holds and answers."""
    reg = Registry(parse_config({"stores": {"s": {"path": str(root)}}}, source=None))
    try:
        return _state(word_index(reg, "s"))
    finally:
        reg.close()


def _state(idx) -> dict:
    queries = [" ".join(WORDS[i : i + k]) for i in range(len(WORDS)) for k in (1, 3)]
    return {
        "slugs": sorted(idx.slugs),
        "docs": {s: idx.get(s) for s in idx.slugs},
        "answers": [idx.search(q, top=t) for q in queries for t in (1, 5)],
    }


def _random_store(root: Path, rng: random.Random, n: int) -> Registry:
    """A registry over one store "s" of *n* random memories that takes direct writes."""
    mems = {
        f"m-{i}": (f"Memory {i}", f"trigger {i} {rng.choice(WORDS)}", _body(rng)) for i in range(n)
    }
    return make_registry(
        root, stores={"s": mems}, extra={"stores": {"s": {"write_policy": "direct-allowed"}}}
    )


class Writes:
    """The kinds of write a store sees, by a person, an editor or kura."""

    def __init__(self, reg: Registry, rng: random.Random):
        self.reg, self.rng = reg, rng
        self.store = reg.store("s")
        self.n = 0

    def slugs(self) -> list[str]:
        return self.store.file_slugs()

    def pick(self) -> str | None:
        s = self.slugs()
        return self.rng.choice(s) if s else None

    def remember(self) -> None:  # kura's own write, as pour and remember make it
        self.n += 1
        Kura(self.reg).remember(
            f"new-{self.n}",
            f"new memory {self.n} {self.rng.choice(WORDS)}",
            _body(self.rng),
            store="s",
            title=f"New {self.n}",
        )

    def rewrite(self) -> None:
        slug = self.pick()
        if slug:
            self.store.write(
                slug, title=f"Rewritten {slug}", description=_body(self.rng), body=_body(self.rng)
            )

    def editor_save(self) -> None:  # write a copy, rename it over the original
        slug = self.pick()
        if slug:
            path = self.store.root / f"{slug}.md"
            tmp = self.store.root / f".{slug}.swp"
            tmp.write_text(_file(_body(self.rng), _body(self.rng)))
            os.replace(tmp, path)

    def edit_in_place(self) -> None:  # same inode, new content
        slug = self.pick()
        if slug:
            with open(self.store.root / f"{slug}.md", "a", encoding="utf-8") as fh:
                fh.write(f"\nAdded by hand: {_body(self.rng)}\n")

    def delete(self) -> None:
        slug = self.pick()
        if slug:
            os.unlink(self.store.root / f"{slug}.md")

    def rename(self) -> None:
        slug = self.pick()
        if slug:
            self.n += 1
            os.rename(self.store.root / f"{slug}.md", self.store.root / f"moved-{self.n}.md")
            text = self.store.index_path.read_text(encoding="utf-8")
            self.store.index_path.write_text(
                text.replace(f"]({slug}.md)", f"](moved-{self.n}.md)"), encoding="utf-8"
            )

    def edit_index_line(self) -> None:
        slug = self.pick()
        if slug:
            text = self.store.index_path.read_text(encoding="utf-8")
            text = re.sub(
                rf"^- \[[^\]]*\]\({slug}\.md\).*$",
                f"- [Renamed by hand]({slug}.md) — {_body(self.rng)}",
                text,
                flags=re.M,
            )
            self.store.index_path.write_text(text, encoding="utf-8")

    def drop_index_line(self) -> None:  # the file stays; its title now comes from the file
        slug = self.pick()
        if slug:
            text = self.store.index_path.read_text(encoding="utf-8")
            self.store.index_path.write_text(
                re.sub(rf"^.*\]\({slug}\.md\).*\n", "", text, flags=re.M), encoding="utf-8"
            )

    def break_a_file(self) -> None:  # saved by an editor: it no longer parses
        slug = self.pick()
        if slug:
            tmp = self.store.root / f".{slug}.broken"
            tmp.write_text("---\ndescription: [unclosed\n---\n\nbody\n")
            os.replace(tmp, self.store.root / f"{slug}.md")

    def mend_a_file(self) -> None:
        for slug in self.slugs():
            path = self.store.root / f"{slug}.md"
            if "[unclosed" in path.read_text(encoding="utf-8"):
                tmp = path.with_name(f".{slug}.mend")
                tmp.write_text(_file("mended " + _body(self.rng), _body(self.rng)))
                os.replace(tmp, path)
                return


QUICK = [
    "remember",
    "rewrite",
    "editor_save",
    "delete",
    "rename",
    "edit_index_line",
    "drop_index_line",
    "break_a_file",
    "mend_a_file",
]


@pytest.mark.parametrize("check", ["every-call", "on-write"])
def test_the_word_index_follows_every_kind_of_write(tmp_path, monkeypatch, check):
    """After each write the store's word index holds and answers exactly what an index built
    from nothing over the store as it now is would. With "every-call" the full check of every
    file runs on each call (as it does every RECHECK_S); with "on-write" only the directory
    and the index are watched, as between full checks — an edit made in place is then seen at
    the next full check."""
    monkeypatch.setattr(recall_mod, "RECHECK_S", 0.0 if check == "every-call" else 1e9)
    kinds = QUICK + (["edit_in_place"] if check == "every-call" else [])
    rng = random.Random(1120 if check == "every-call" else 2011)
    for round_ in range(8):
        reg = _random_store(tmp_path / f"r{round_}", rng, 10)
        writes = Writes(reg, rng)
        idx = word_index(reg, "s")
        for _ in range(12):
            getattr(writes, rng.choice(kinds))()
            assert _state(word_index(reg, "s")) == _fresh(reg.store("s").root)
        assert (
            word_index(reg, "s") is idx
        )  # followed, never rebuilt: a dozen writes is no whole-store change
        reg.close()
    if check == "on-write":
        reg = make_registry(
            tmp_path / "inplace", stores={"s": {"m-1": ("One", "disk one", "the disk")}}
        )
        word_index(reg, "s")
        Writes(reg, random.Random(1)).edit_in_place()
        monkeypatch.setattr(recall_mod, "RECHECK_S", 0.0)  # the periodic full check comes round
        assert _state(word_index(reg, "s")) == _fresh(reg.store("s").root)


def test_the_word_index_follows_several_writes_between_two_recalls(tmp_path, monkeypatch):
    """Writes pile up between two looks (a busy tender, an editor saving twice): the index
    that follows them still answers as one built from nothing. Each look then compares a
    directory scan with one taken several changes ago, and MEMORY.md with a parse several
    reparses back."""
    monkeypatch.setattr(recall_mod, "RECHECK_S", 1e9)
    rng = random.Random(4242)
    held: list[int] = []
    try:
        for round_ in range(6):
            reg = _random_store(tmp_path / f"r{round_}", rng, 12)
            writes = Writes(reg, rng)
            idx = word_index(reg, "s")
            for _ in range(6):
                for _ in range(rng.randint(2, 5)):
                    # Every file a write may replace stays open, so the system cannot hand its
                    # inode number to the copy replacing it; a file replaced twice under one
                    # number between two looks is the periodic full check's to find (below).
                    held += [os.open(p, os.O_RDONLY) for p in reg.store("s").root.glob("*.md")]
                    getattr(writes, rng.choice(QUICK))()
                assert _state(word_index(reg, "s")) == _fresh(reg.store("s").root)
            assert word_index(reg, "s") is idx
            reg.close()
    finally:
        for fd in held:
            os.close(fd)


def test_a_file_replaced_under_its_old_inode_number_is_found_by_the_full_check(
    tmp_path, monkeypatch
):
    """Between two looks, an editor saves a memory twice and the file system gives the second
    copy the first one's inode number: the directory scan cannot tell it changed. The full
    check of every file (every RECHECK_S seconds) compares size and times too and finds it."""
    monkeypatch.setattr(recall_mod, "RECHECK_S", 1e9)
    reg = make_registry(tmp_path, stores={"s": {"m-1": ("One", "disk one", "the slow disk")}})
    assert [s for s, _ in word_index(reg, "s").search("disk")] == ["m-1"]
    path = reg.store("s").root / "m-1.md"
    before = os.stat(path)
    # the same inode, new content and size: what a reused inode number looks like to a scan
    path.write_text(_file("kettle one", "the kettle and nothing else at all"))
    assert os.stat(path).st_ino == before.st_ino
    os.utime(reg.store("s").root, ns=(time.time_ns(), time.time_ns()))  # the directory changed too
    assert [s for s, _ in word_index(reg, "s").search("slow")] == [
        "m-1"
    ]  # the old body: not seen yet
    monkeypatch.setattr(recall_mod, "RECHECK_S", 0.0)
    assert [s for s, _ in word_index(reg, "s").search("kettle")] == ["m-1"]
    assert word_index(reg, "s").search("slow") == []  # (the trigger line comes from MEMORY.md)
    reg.close()


def test_two_scans_of_a_directory_name_what_moved_and_what_went():
    """A file replaced under its name is found position by position when the names are
    unchanged; otherwise by name. Both give what comparing the two by name gives."""
    from kura_core.store import Listing

    rng = random.Random(9)
    for _ in range(2000):
        names = [f"n{i}.md" for i in rng.sample(range(40), rng.randint(0, 20))]
        earlier = Listing(names, [rng.randint(1, 30) for _ in names])
        later_names = list(names)
        if rng.random() < 0.5:
            for _ in range(rng.randint(1, 3)):
                op = rng.random()
                if op < 0.4 and later_names:
                    later_names.pop(rng.randrange(len(later_names)))
                elif op < 0.8:
                    later_names.insert(
                        rng.randint(0, len(later_names)), f"x{rng.randint(0, 60)}.md"
                    )
                else:
                    rng.shuffle(later_names)
        later_names = list(dict.fromkeys(later_names))
        was = dict(zip(earlier.names, earlier.inodes, strict=False))
        later = Listing(
            later_names,
            [was.get(n, 0) if rng.random() < 0.8 else rng.randint(1, 30) for n in later_names],
        )
        moved, went = later.changed_since(earlier)
        now = dict(zip(later.names, later.inodes, strict=False))
        assert sorted(moved) == sorted(n for n, i in now.items() if was.get(n) != i)
        assert sorted(went) == sorted(was.keys() - now.keys())


def test_the_word_index_follows_a_pour(tmp_path, model):
    from kura_core.distill import pipeline
    from tests.core.test_distill import config, echo_scribe, honest_brain, registry, write_journal

    write_journal(
        tmp_path / "journals" / "s1.jsonl",
        [
            ("user", "the archive goes on the slow disk from now on"),
            ("user", "the kettle stays with the router"),
        ],
    )
    model.script("kura_candidates", honest_brain)
    model.script("kura_compose", echo_scribe)
    model.script("kura_judge", {"verdict": "pour", "reason": "true to the evidence"})
    reg = registry(config(tmp_path, model.url))
    reg.store("main").write(
        "older", title="Older", description="an older note about the disk", body="disk"
    )
    before = word_index(reg, "main")
    pipeline.run(reg, "main")
    assert len(pipeline.drain(reg, "main").poured) == 2
    after = word_index(reg, "main")
    assert after is before and len(after) == 3
    assert _state(after) == _fresh(reg.store("main").root)


def test_a_whole_store_change_rebuilds_instead(tmp_path, monkeypatch):
    mems = {f"m-{i}": (f"M {i}", f"trigger {i}", f"body {i} disk") for i in range(120)}
    reg = make_registry(tmp_path, stores={"s": mems})
    first = word_index(reg, "s")
    store = reg.store("s")
    for i in range(100):  # a checkout: most files replaced at once
        path = store.root / f"m-{i}.md"
        tmp = path.with_name(f".m-{i}.new")
        tmp.write_text(_file(f"checked out {i}", f"kettle {i}"))
        os.replace(tmp, path)
    rebuilt = word_index(reg, "s")
    assert rebuilt is not first
    assert _state(rebuilt) == _fresh(store.root)
    store.write("m-5", title="M 5", description="one more", body="router")
    assert word_index(reg, "s") is rebuilt  # and one write after it is followed again


def test_recall_by_meaning_sees_a_written_line_in_its_prompt(tmp_path, model):
    model.script("kura_pick", {"slugs": []})
    reg = make_registry(
        tmp_path, stores={"s": {"m-1": ("One", "disk one", "the disk")}}, model_url=model.url
    )
    recall(reg, "s", "where is the disk")
    reg.store("s").write(
        "kiln-firing", title="Kiln firing", description="the kiln fires at cone 6", body="Cone 6."
    )
    recall(reg, "s", "kiln temperature")
    system = model.requests_for("kura_pick")[-1].messages[0]["content"]
    assert "- [Kiln firing](kiln-firing.md) — the kiln fires at cone 6" in system


# --------------------------------------------------------------------------- reads


def test_a_cached_read_is_refused_once_the_file_is_a_link(tmp_path):
    st = Store(tmp_path / "s")
    st.init()
    st.write("a", title="A", description="first", body="body a")
    assert st.read("a").body.strip() == "body a"
    elsewhere = tmp_path / "elsewhere.md"
    os.replace(st.root / "a.md", elsewhere)
    os.symlink(elsewhere, st.root / "a.md")
    with pytest.raises(ContainmentError, match="symbolic link"):
        st.read("a")
    os.unlink(st.root / "a.md")
    os.link(elsewhere, st.root / "a.md")
    with pytest.raises(ContainmentError, match="hard-linked"):
        st.read("a")


def test_a_read_against_a_held_index_uses_its_title(tmp_path):
    st = Store(tmp_path / "s")
    st.init()
    st.write("a", title="Old title", description="first", body="body a")
    held = st.index()
    st.set_index_line("a", "New title", "first")
    assert st.read("a", index=held).title == "Old title"
    assert st.read("a").title == "New title"


# --------------------------------------------------------------------------- tokens

_CJK_RANGES = (
    "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af\u31f0-\u31ff\uff66-\uff9f"
)


def _estimate_by_the_rule(text: str) -> int:
    """The estimator's rule, spelled out with regular expressions (see kura_core.tokens)."""
    if not text:
        return 0
    rest, cjk = re.subn(f"[{_CJK_RANGES}]", " ", text)
    words = sum((len(w) + 5) // 6 for w in re.findall(rf"[^\W{_CJK_RANGES}]+", rest))
    return (cjk * 6 + 4) // 5 + words + len(re.findall(r"[^\s\w]", rest))


def test_the_ascii_path_of_the_token_estimate_follows_the_rule():
    rng = random.Random(3)
    alphabet = [chr(c) for c in range(128)] + ["漢", "か", "한", "é", "😀"]
    samples = [
        "",
        "a",
        "abcdefg",
        "abcdefghijklm_nopq 12345678901234",
        "x\x1cy\x1fz",
        "tabs\tand\x0bvt",
    ]
    samples += [
        "".join(rng.choice(alphabet[:128]) for _ in range(rng.randint(0, 120))) for _ in range(3000)
    ]
    samples += [
        "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 60))) for _ in range(1000)
    ]
    for s in samples:
        assert estimate_tokens(s) == _estimate_by_the_rule(s), repr(s)


# --------------------------------------------------------------------------- results and the read log


def test_a_recall_result_serialises_as_asdict_would():
    r = RecallResult(
        "s",
        "q",
        "words",
        True,
        ("a", "b"),
        ("a",),
        "ctx",
        3,
        1.23456,
        0.5,
        "why",
        2,
        ("x",),
        (("a", 1.23456789),),
    )
    expected = asdict(r)
    expected.update(
        picked=["a", "b"],
        walked=["a"],
        dropped=["x"],
        scores=[["a", 1.2346]],
        elapsed_ms=1.23,
        model_ms=0.5,
        skipped=[],
        notice="⚠ degraded: recalled by words, not meaning (why)",
    )
    assert r.to_json() == expected
    from kura_core.recall import Skipped

    with_skip = RecallResult(
        "s",
        "q",
        "words",
        True,
        ("a",),
        (),
        "",
        0,
        1.0,
        0.0,
        "",
        1,
        (),
        (),
        (Skipped("a", "a.md is not UTF-8 text"),),
    )
    assert with_skip.to_json()["skipped"] == [{"slug": "a", "reason": "a.md is not UTF-8 text"}]


def _read_log(reg: Registry) -> list[str]:
    with sqlite3.connect(reg.store("main").still / "kura.db") as db:
        return [q for (q,) in db.execute("SELECT question FROM read_log ORDER BY id")]


def test_the_read_log_is_written_in_batches_and_loses_nothing(tmp_path):
    reg = make_registry(tmp_path, stores={"main": {"a": ("A", "the disk", "slow disk")}})
    recall(reg, "main", "first question")
    assert _read_log(reg) == ["first question"]  # after a quiet spell, at once
    for i in range(40):
        recall(reg, "main", f"burst {i}")
    logged = _read_log(reg)
    assert len(logged) < 41  # a burst waits for its batch
    flush_read_log(reg)
    assert _read_log(reg) == ["first question"] + [f"burst {i}" for i in range(40)]
