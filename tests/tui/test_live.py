"""Live: a change made by another process shows up without a key press."""

from __future__ import annotations

import asyncio
import sys
import threading
from pathlib import Path

from tests.tui.conftest import run, settle, until

ROOT = Path(__file__).resolve().parents[2]

WRITER = """
import sys
from kura_core.store import Store
st = Store(sys.argv[1], name="maker")
st.write("band-saw-blade-tension", title="Band saw blade tension",
         description="the band saw blade is tensioned to the 1/2 inch mark, never the 3/4",
         body="Tension to the 1/2 inch mark.", type="project")
"""


async def _until(pilot, check, timeout: float = 30.0) -> None:
    await until(pilot, check, "the change made by another process to show up", timeout)


def test_a_memory_written_by_another_process_appears_without_a_key_press(make_app):
    app = make_app(watch=True)
    root = app.kura.registry.store("maker").root

    async def script(pilot):
        await asyncio.get_running_loop().run_in_executor(None, app.watching.wait, 10)
        assert app.watching.is_set()
        before = list(app.main.map.slugs)
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-c",
            WRITER,
            str(root),
            cwd=str(ROOT),
            env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        )
        assert await proc.wait() == 0
        await _until(pilot, lambda: "band-saw-blade-tension" in app.main.map.slugs)
        await _until(
            pilot, lambda: {r.name: r.memories for r in app.main.stores.rows}.get("maker") == 6
        )
        return before

    before = run(app, script)
    assert "band-saw-blade-tension" not in before


def test_a_draft_tossed_from_a_thread_leaves_the_queue_and_enters_the_gate_log(make_app):
    app = make_app(watch=True)

    async def script(pilot):
        await asyncio.get_running_loop().run_in_executor(None, app.watching.wait, 10)
        await pilot.press("2")
        assert "glaze-cracks-cooling" in [d.slug for d in app.main.drafts.drafts]

        def tender():
            from kura_core.distill.drafts import toss

            toss(
                app.kura.registry,
                "maker",
                "glaze-cracks-cooling",
                "a judgement the store already holds",
                by="tender",
            )

        t = threading.Thread(target=tender)
        t.start()
        t.join()
        await _until(
            pilot, lambda: "glaze-cracks-cooling" not in [d.slug for d in app.main.drafts.drafts]
        )
        await _until(
            pilot, lambda: any(e.slug == "glaze-cracks-cooling" for e in app.main.gatelog.shown)
        )
        await settle(pilot)
        return True

    assert run(app, script)


def test_changed_paths_are_sorted_into_the_panes_they_touch():
    from kura_tui.app import classify

    assert classify(Path("archive-on-slow-disk.md")) == "memories"
    assert classify(Path("MEMORY.md")) == "memories"
    assert classify(Path("_still/drafts/kettle.md")) == "drafts"
    assert classify(Path("_still/kura.db-wal")) == "workshop"
    assert classify(Path("_still/woven.md")) == "map"
    assert classify(Path("profile.md")) == "profile"  # the learned profile is no memory
    assert classify(Path("_still/profile-draft.md")) == "profile"
    assert classify(Path("_still/profile-previous.md")) == "profile"
    for quiet in (
        "_still/write.lock",
        "_still/intent.json",
        "_still/kura.db-shm",
        "_still/manifests/ab.json",
        "notes/x.txt",
        ".archive.md.tmp-123",
    ):
        assert classify(Path(quiet)) is None, quiet
