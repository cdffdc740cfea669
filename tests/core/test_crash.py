"""Crash safety: a writer killed at any instant leaves the old state or the new, never half."""

from __future__ import annotations

import json
import os
import random
import signal
import time
from pathlib import Path

from kura_core.fsutil import is_temp_name
from kura_core.store import Store, parse_index, render_memory, split_frontmatter
from tests import forked

ROOT = Path(__file__).resolve().parents[2]


def _writer(root: str, seed: int) -> None:
    """In a child: write random versions of 48 memories as fast as it can, until killed."""
    rng = random.Random(seed)
    st = Store(root, name="crash")
    st.init()
    print("ready", flush=True)
    n = 0
    while True:
        n += 1
        slug = f"m{rng.randrange(48)}"
        tag = f"{seed}-{n}"
        st.write(
            slug,
            title="Memory " + slug,
            description="version " + tag,
            body="body version " + tag + "\n" + "x" * rng.randrange(0, 3000),
            sector=rng.choice(["", "", "Alpha", "Beta"]),
            tags=[rng.choice(["decision", "landmine", "recurred"])],
        )


KILLS = 25


def _check_store(root: Path) -> dict[str, str]:
    """Open *root* fresh and check every invariant; return {slug: version} of what is there."""
    st = Store(root, name="crash")
    idx = st.index()  # the next read: rolls any intent forward
    assert not st.intent_path.exists(), "the next read must roll the intent forward"

    names = os.listdir(root)
    assert not [n for n in names if is_temp_name(n)], f"temp files left after recovery: {names}"

    files = st.file_slugs()
    assert not [s for s in files if is_temp_name(s) or "tmp" in s]
    scan = st.scan()
    assert scan.unreadable == (), scan.unreadable
    assert sorted(m.slug for m in scan.memories) == files

    counts: dict[str, int] = {}
    for e in idx.entries:
        counts[e.slug] = counts.get(e.slug, 0) + 1
    for e in idx.entries:
        assert (root / f"{e.slug}.md").is_file(), f"index line for {e.slug} points at no file"
    for slug in files:
        assert counts.get(slug) == 1, f"{slug} has {counts.get(slug, 0)} index lines"
    assert idx.foreign_links == ()

    versions = {}
    by_slug = idx.by_slug()
    for m in scan.memories:
        version = m.description.removeprefix("version ")
        assert m.body.startswith(f"body version {version}\n"), (m.slug, m.description, m.body[:40])
        assert m.meta["name"] == m.slug
        assert by_slug[m.slug].description == m.description, "memory and index line changed apart"
        versions[m.slug] = version
    return versions


def test_sigkill_at_random_moments_never_leaves_half_a_write(tmp_path):
    root = tmp_path / "store"
    rng = random.Random(20261102)
    intents_left = 0
    rolled_forward = 0
    writes_seen = 0
    # KILLS kills at least, and more (up to four times as many) until one has landed inside
    # a write: on a loaded machine a child may not reach its write loop before the kill
    for i in range(4 * KILLS):
        if i >= KILLS and intents_left >= 1:
            break
        child = forked.spawn(_writer, str(root), i)
        try:
            line = child.stdout.readline()
            assert line == "ready\n", child.stderr.read()
            # the pause is the thing under test: a kill at a random moment of the write loop
            time.sleep(rng.uniform(0.0, 0.060))
        finally:
            child.send_signal(signal.SIGKILL)
            child.wait(timeout=10)
        assert child.returncode == -signal.SIGKILL, child.stderr.read()
        child.close()

        st_intent = root / "_still" / "intent.json"
        pending = None
        if st_intent.exists():
            intents_left += 1
            pending = json.loads(st_intent.read_text(encoding="utf-8"))

        versions = _check_store(root)
        writes_seen = max(writes_seen, len(versions))

        if pending is not None:
            slug = pending["slug"]
            text = (root / f"{slug}.md").read_text(encoding="utf-8")
            assert text == pending["text"], "the intent was not the state rolled forward"
            assert versions[slug] == pending["description"].removeprefix("version ")
            rolled_forward += 1

    assert writes_seen > 5, "the children never got to write"
    assert intents_left >= 1, "no kill landed inside a write; the test proved nothing"
    assert rolled_forward == intents_left


def _intent(slug: str, description: str, body: str, **kw) -> dict:
    text = render_memory(
        {"name": slug, "description": description, "metadata": {"type": "project", "tags": []}},
        body,
    )
    return {
        "op": "upsert",
        "slug": slug,
        "text": text,
        "title": kw.get("title", slug),
        "description": description,
        "sector": kw.get("sector", ""),
    }


def test_an_intent_that_is_not_utf8_is_discarded_and_reading_goes_on(store):
    store.write("alpha", title="Alpha", description="old", body="old body")
    store.intent_path.write_bytes(b'{"op": "upsert", "slug": "alpha", "text": "\xff\xfe"}')

    fresh = Store(store.root)
    assert fresh.read("alpha").description == "old"
    assert not store.intent_path.exists()
    assert fresh.pending() == []


def test_intent_written_but_nothing_applied_is_rolled_forward(store):
    store.write("alpha", title="Alpha", description="old", body="old body")
    intent = _intent("alpha", "new", "new body", title="Alpha")
    store.intent_path.write_text(json.dumps(intent), encoding="utf-8")

    fresh = Store(store.root)
    mem = fresh.read("alpha")
    assert mem.description == "new"
    assert mem.body.strip() == "new body"
    assert fresh.index().by_slug()["alpha"].description == "new"
    assert not store.intent_path.exists()


def test_crash_between_memory_and_index_is_rolled_forward(store):
    intent = _intent("beta", "brand new", "the body", title="Beta", sector="Things")
    store.intent_path.write_text(json.dumps(intent), encoding="utf-8")
    (store.root / "beta.md").write_text(intent["text"], encoding="utf-8")
    (store.root / ".MEMORY.md.tmp-99999").write_text("half an index", encoding="utf-8")
    assert "beta" not in parse_index(store.index_path.read_text()).slugs()

    fresh = Store(store.root)
    idx = fresh.index()
    assert [e.slug for e in idx.entries] == ["beta"]
    assert idx.entries[0].sector == "Things"
    assert not store.intent_path.exists()
    assert not (store.root / ".MEMORY.md.tmp-99999").exists()
    assert fresh.file_slugs() == ["beta"]


def test_temp_file_of_a_dead_writer_is_never_a_memory(store):
    store.write("alpha", title="Alpha", description="d", body="b")
    (store.root / ".alpha.md.tmp-4242").write_text("---\nname: alpha\n", encoding="utf-8")
    (store.root / ".gamma.md.tmp-4242").write_text("---\nname: gamma\n", encoding="utf-8")
    assert store.file_slugs() == ["alpha"]
    assert [m.slug for m in store.scan().memories] == ["alpha"]
    store.write("beta", title="Beta", description="d", body="b")  # a writer sweeps them
    assert not [n for n in os.listdir(store.root) if is_temp_name(n)]


def test_every_write_leaves_no_intent_and_parses(store):
    for i in range(20):
        store.write(f"m{i % 5}", title=f"M{i % 5}", description=f"version {i}", body=f"body {i}")
    assert not store.intent_path.exists()
    for slug in store.file_slugs():
        meta, _ = split_frontmatter((store.root / f"{slug}.md").read_text(encoding="utf-8"))
        assert meta["name"] == slug
    assert sorted(store.index().slugs()) == [f"m{i}" for i in range(5)]
