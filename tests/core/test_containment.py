"""A store answers only for its own memories: every escape attempt is a clear error, never a file."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kura_core.errors import ContainmentError, KuraError
from kura_core.store import MAX_SLUG, Store, check_slug, parse_index
from tests.conftest import make_store

SECRET = "TOP-SECRET-OUTSIDE-THE-STORE"

ESCAPES = [
    "../x",
    "../../outside",
    "a/b",
    "/etc/passwd",
    "/tmp/x",
    "..%2f..%2fetc",
    "%2e%2e",
    "%2e%2e%2foutside",
    "a\\b",
    "..\\outside",
    "a\x00b",
    "alpha\x00",
    "..",
    ".",
    "",
    "MEMORY",
    "memory",
    "MEMORY.md",
    "charter",
    "profile",
    "readme",
    "index",
    "_still",
    "_still/kura",
    "_still/kura.db",
    "Alpha",
    "ALPHA",
    "café",
    "ｆｕｌｌｗｉｄｔｈ",
    "記憶",
    "alpha.md",
    "alpha beta",
    "-alpha",
    "alpha-",
    "alpha--beta",
    "a" * (MAX_SLUG + 1),
]


@pytest.fixture
def boxed(tmp_path):
    """A store next to an outside directory holding a secret."""
    outside = tmp_path / "outside"
    outside.mkdir()
    secret = outside / "secret.md"
    secret.write_text(
        f"---\nname: secret\ndescription: {SECRET}\n---\n{SECRET}\n", encoding="utf-8"
    )
    st = make_store(
        tmp_path / "store", memories={"alpha": ("Alpha", "the one real memory", "body")}
    )
    return st, outside, secret


def _snapshot(*dirs: Path) -> dict[str, tuple[int, int]]:
    out = {}
    for d in dirs:
        for p in d.rglob("*"):
            if p.is_file() and not p.is_symlink() and "_still" not in p.parts:
                st = p.stat()
                out[str(p)] = (st.st_mtime_ns, st.st_size)
    return out


@pytest.mark.parametrize("slug", ESCAPES, ids=[repr(s)[:30] for s in ESCAPES])
def test_check_slug_refuses(slug):
    with pytest.raises(ContainmentError) as exc:
        check_slug(slug)
    msg = str(exc.value)
    assert msg and "\n" not in msg


@pytest.mark.parametrize("slug", ESCAPES, ids=[repr(s)[:30] for s in ESCAPES])
def test_store_read_and_write_refuse_escapes(boxed, slug):
    st, outside, secret = boxed
    before = _snapshot(st.root, outside)
    with pytest.raises(ContainmentError):
        st.read(slug)
    with pytest.raises(ContainmentError):
        st.write(slug, title="x", description="an attempt", body=SECRET)
    with pytest.raises(ContainmentError):
        st.memory_path(slug)
    assert st.has(slug) is False
    assert _snapshot(st.root, outside) == before
    assert SECRET not in st.index_text()
    assert st.file_slugs() == ["alpha"]


def test_longest_slug_is_allowed(boxed):
    st, _, _ = boxed
    slug = "a" * MAX_SLUG
    st.write(slug, title="long", description="long slug", body="b")
    assert st.read(slug).slug == slug


def test_symlink_out_of_the_store_is_never_followed(boxed):
    st, outside, secret = boxed
    os.symlink(secret, st.root / "evil.md")
    before = secret.read_bytes()

    with pytest.raises(ContainmentError, match="symbolic link"):
        st.read("evil")
    with pytest.raises(ContainmentError, match="symbolic link"):
        st.write("evil", title="Evil", description="overwrite through the link", body="pwned")
    assert st.has("evil") is False

    scan = st.scan()
    assert [m.slug for m in scan.memories] == ["alpha"]
    assert [f for f, _ in scan.unreadable] == ["evil.md"]
    assert "symbolic link" in scan.unreadable[0][1]
    assert all(SECRET not in m.body and SECRET not in m.description for m in scan.memories)

    assert secret.read_bytes() == before
    assert (st.root / "evil.md").is_symlink()
    assert "evil" not in st.index().slugs()


def test_symlink_to_a_directory_or_dangling_is_refused(boxed):
    st, outside, _ = boxed
    os.symlink(outside, st.root / "dir.md")
    os.symlink(outside / "does-not-exist.md", st.root / "dangling.md")
    for slug in ("dir", "dangling"):
        with pytest.raises(ContainmentError):
            st.read(slug)
        with pytest.raises(ContainmentError):
            st.write(slug, title="x", description="d", body="b")
    assert not (outside / "does-not-exist.md").exists()


def test_hard_link_to_an_outside_file_is_refused(boxed):
    st, outside, secret = boxed
    os.link(secret, st.root / "linked.md")
    before = secret.read_bytes()
    with pytest.raises(ContainmentError, match="hard-linked"):
        st.read("linked")
    with pytest.raises(ContainmentError, match="hard-linked"):
        st.write("linked", title="x", description="through the hard link", body="pwned")
    scan = st.scan()
    assert "linked.md" in [f for f, _ in scan.unreadable]
    assert all(SECRET not in m.body for m in scan.memories)
    assert secret.read_bytes() == before


def test_a_directory_named_like_a_memory_is_refused(boxed):
    st, _, _ = boxed
    (st.root / "folder.md").mkdir()
    with pytest.raises(ContainmentError, match="not a regular file"):
        st.read("folder")
    with pytest.raises(ContainmentError):
        st.write("folder", title="x", description="d", body="b")


def test_symlinked_index_is_refused_and_never_copied_in(boxed):
    st, outside, secret = boxed
    os.unlink(st.index_path)
    os.symlink(secret, st.index_path)
    with pytest.raises(ContainmentError, match="MEMORY.md"):
        st.index_text()
    with pytest.raises(ContainmentError, match="MEMORY.md"):
        st.index()
    with pytest.raises(ContainmentError, match="MEMORY.md"):
        st.write("beta", title="Beta", description="d", body="b")
    assert not (st.root / "beta.md").exists()
    assert not st.intent_path.exists()
    assert st.index_path.is_symlink()
    assert SECRET in secret.read_text()
    assert "beta" not in secret.read_text()


def test_index_lines_pointing_outside_are_not_entries(boxed):
    st, _, secret = boxed
    with open(st.index_path, "a", encoding="utf-8") as fh:
        fh.write(
            f"- [Up](../outside/secret.md) — up\n- [Abs]({secret}) — absolute\n"
            "- [Etc](/etc/passwd) — etc\n- [Enc](..%2foutside%2fsecret.md) — encoded\n"
        )
    idx = st.index()
    assert idx.slugs() == ["alpha"]
    assert len(idx.foreign_links) == 4
    scan = st.scan()
    assert [m.slug for m in scan.memories] == ["alpha"]
    assert all(SECRET not in m.body for m in scan.memories)


def test_parse_index_drops_escaping_targets():
    idx = parse_index("- [a](../x.md) — a\n- [b](/etc/passwd) — b\n- [c](c.md) — c\n")
    assert idx.slugs() == ["c"]
    assert [t for _, t in idx.foreign_links] == ["../x.md", "/etc/passwd"]


def test_workshop_symlinked_out_keeps_memories_inside(tmp_path):
    """A `_still` that is a link elsewhere: memories and the index still live in the store
    directory; only workshop files (lock, intent, database) go through the link."""
    root = tmp_path / "store"
    root.mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    os.symlink(elsewhere, root / "_still")
    st = Store(root, name="s")
    st.init()
    st.write("alpha", title="Alpha", description="d", body="b")
    assert (root / "alpha.md").is_file() and not (root / "alpha.md").is_symlink()
    assert "alpha" in st.index().slugs()
    assert not list(elsewhere.rglob("*.md"))
    assert not (elsewhere / "intent.json").exists()
    assert "_still" not in st.file_slugs()
    with pytest.raises(ContainmentError):
        st.read("_still")


def test_errors_are_kura_errors_with_a_message(boxed):
    st, _, _ = boxed
    for slug in ("../x", "/etc/passwd", "MEMORY"):
        with pytest.raises(KuraError) as exc:
            st.read(slug)
        assert isinstance(exc.value, ContainmentError)
        assert len(str(exc.value)) > 10
