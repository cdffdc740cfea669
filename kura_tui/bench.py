"""How fast the app is at scale: first paint, every pane filled, switching panes.

    from kura_tui.bench import first_paint_ms, pane_timings
    first_paint_ms("/tmp/kura-bench", 5000, 500)   # float, ms
    pane_timings("/tmp/kura-bench", 5000, 500)     # dict, see pane_timings

Generates a store of *n_memories* memories and *n_drafts* waiting drafts (each with its
evidence manifest; ``kura_core.bench.stores`` makes them), then runs the app headless.
First paint is from constructing the app to the first screen composed with the stores
pane populated (counts shown); every other pane fills in afterwards, in its own worker.
``probe()`` offers these figures to `kura bench perf`, which never imports the app itself.
"""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path
from typing import Any

from textual import events

from kura_core.bench import Probe
from kura_core.bench.stores import generate_workspace
from kura_core.kura import Kura

from .app import PARTS, KuraApp


def generate(workdir: str | os.PathLike, n_memories: int, n_drafts: int) -> Path:
    """A workspace with one store of generated memories and drafts; returns kura.toml."""

    return generate_workspace(workdir, n_memories, n_drafts)


def first_paint_ms(workdir: str | os.PathLike, n_memories: int, n_drafts: int) -> float:
    """Milliseconds from constructing the app to the first screen with the stores pane populated."""

    cfg = generate(workdir, n_memories, n_drafts)

    async def measure() -> float:
        t0 = time.perf_counter()
        kura = Kura.open(cfg, env={})
        app = KuraApp(kura, watch=False, frozen=True)
        try:
            async with app.run_test(size=(120, 40)) as pilot:
                while app.first_paint is None:
                    await asyncio.sleep(0.002)
                painted = app.first_paint
                await pilot.pause()
                return (painted - t0) * 1000.0
        finally:
            kura.close()

    return asyncio.run(measure())


def probe(n_memories: int = 5000, n_drafts: int = 500) -> Any:
    """First paint as a `kura bench perf` measurement; the command line hands it to the core.

    This module imports the app, so a missing Textual shows up as an ImportError when the
    command line asks for the probe, not when the figure is taken.
    """

    def run(workdir: Path) -> dict[str, Any]:
        return {
            "memories": n_memories,
            "drafts": n_drafts,
            "first_paint_ms": round(first_paint_ms(workdir / "paint", n_memories, n_drafts), 1),
            "panes": pane_timings(workdir / "panes", n_memories, n_drafts),
        }

    def line(got: dict[str, Any]) -> str:
        p = got.get("panes") or {}
        return (
            f"tui: first paint {got['first_paint_ms']} ms at {got['memories']} memories, {got['drafts']} drafts; "
            f"every pane filled {p.get('all_filled_ms')} ms; switching ≤ {p.get('switch_max_ms')} ms "
            f"(settled ≤ {p.get('settled_max_ms')} ms)"
        )

    return Probe(
        name="tui",
        label=f"TUI first paint at {n_memories:,} memories with {n_drafts} drafts",
        run=run,
        line=line,
    )


#: the panes a person can switch to, by key, and the load that fills each
PANES = (
    ("1", "map"),
    ("2", "drafts"),
    ("3", "gatelog"),
    ("4", "recall"),
    ("5", "doctor"),
    ("6", "seeds"),
    ("7", "tender"),
    ("8", "journals"),
)


def pane_timings(
    workdir: str | os.PathLike, n_memories: int, n_drafts: int, *, rounds: int = 3
) -> dict:
    """Every pane filled, and switching between panes, on a generated store.

    Returns a dict::

        memories, drafts, first_paint_ms
        filled_ms      {pane: ms}  from constructing the app to the frame showing the pane's data
        all_filled_ms              the last of those
        switch_ms      {pane: ms}  from the pane's key arriving to the first frame showing the pane:
                                   the slowest of its first visit and *rounds* later ones
        settled_ms     {pane: ms}  … to the last frame the key causes (tab underline, scrollbars
                                   appearing), the screen then still for QUIET seconds (not counted)
        switch_max_ms, settled_max_ms

    Key events are posted to the app directly, so none of the test pilot's idle waiting is
    counted; frames are the app's own screen updates (rendered, then dropped by the
    headless driver).
    """

    cfg = generate(workdir, n_memories, n_drafts)

    async def measure() -> dict:
        t0 = time.perf_counter()
        kura = Kura.open(cfg, env={})
        app = KuraApp(kura, watch=False, frozen=True, by="bench")
        frames: list[float] = []
        real = app._display

        def display(screen: Any, renderable: Any) -> None:
            if renderable is not None:
                frames.append(time.perf_counter())
            real(screen, renderable)

        vars(app)["_display"] = display  # the probe wraps how the app paints a frame

        async def switch(key: str) -> tuple[float, float]:
            frames.clear()
            t = time.perf_counter()
            app.post_message(events.Key(key, key))
            while True:  # until no frame has come for QUIET seconds
                await asyncio.sleep(0.005)
                last = frames[-1] if frames else t
                if time.perf_counter() - last > QUIET:
                    first = frames[0] if frames else t
                    return (first - t) * 1000.0, (last - t) * 1000.0

        try:
            async with app.run_test(size=(120, 40)) as pilot:
                while app.first_paint is None or not all(p in app.filled for p in PARTS):
                    await asyncio.sleep(0.005)
                await pilot.pause()
                shown: dict[str, float] = {}
                settled: dict[str, float] = {}
                for _ in range(rounds + 1):
                    for key, pane in PANES[1:] + PANES[:1]:
                        first, last = await switch(key)
                        shown[pane] = round(max(first, shown.get(pane, 0.0)), 1)
                        settled[pane] = round(max(last, settled.get(pane, 0.0)), 1)
                filled = {p: round((app.filled[p] - t0) * 1000.0, 1) for p in PARTS}
                return {
                    "memories": n_memories,
                    "drafts": n_drafts,
                    "first_paint_ms": round((app.first_paint - t0) * 1000.0, 1),
                    "filled_ms": filled,
                    "all_filled_ms": max(filled.values()),
                    "switch_ms": shown,
                    "switch_max_ms": max(shown.values()),
                    "settled_ms": settled,
                    "settled_max_ms": max(settled.values()),
                }
        finally:
            kura.close()

    return asyncio.run(measure())


#: a switch is over when no frame has come for this long
QUIET = 0.25


if __name__ == "__main__":  # pragma: no cover
    import sys
    import tempfile

    n_mem = int(sys.argv[1]) if len(sys.argv) > 1 else 5000
    n_dr = int(sys.argv[2]) if len(sys.argv) > 2 else 500
    with tempfile.TemporaryDirectory() as tmp:
        print(
            f"first paint: {first_paint_ms(Path(tmp) / 'ws', n_mem, n_dr):.1f} ms "
            f"({n_mem} memories, {n_dr} drafts)"
        )
        import json

        print(json.dumps(pane_timings(Path(tmp) / "ws2", n_mem, n_dr), indent=2))
