"""Time to first paint: how long until a person sees their stores.

    from kura_tui.bench import first_paint_ms
    first_paint_ms("/tmp/kura-bench", 5000, 500)

Generates a store of *n_memories* memories and *n_drafts* waiting drafts (each with its
evidence manifest; ``kura_core.bench.stores`` makes them), then runs the app headless and measures from constructing the app to
the first screen composed with the stores pane populated (counts shown). Every other
pane fills in afterwards, in its own worker. ``probe()`` offers the figure to
`kura bench perf`, which never imports the app itself.
"""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path
from typing import Any


def generate(workdir: str | os.PathLike, n_memories: int, n_drafts: int) -> Path:
    """A workspace with one store of generated memories and drafts; returns kura.toml."""
    from kura_core.bench.stores import generate_workspace

    return generate_workspace(workdir, n_memories, n_drafts)


def first_paint_ms(workdir: str | os.PathLike, n_memories: int, n_drafts: int) -> float:
    """Milliseconds from constructing the app to the first screen with the stores pane populated."""
    from kura_core.config import load_config
    from kura_core.kura import Kura
    from kura_core.registry import Registry

    from .app import KuraApp

    cfg = generate(workdir, n_memories, n_drafts)

    async def measure() -> float:
        t0 = time.perf_counter()
        kura = Kura(Registry(load_config(cfg, {}), env={}))
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

    Importing the app here, not when the figure is taken, lets a missing Textual show up as
    an ImportError while the command is being wired.
    """
    from kura_core.bench import Probe

    from . import app  # noqa: F401 - fail now if Textual is missing

    def run(workdir: Path) -> dict[str, Any]:
        return {"memories": n_memories, "drafts": n_drafts,
                "first_paint_ms": round(first_paint_ms(workdir, n_memories, n_drafts), 1)}

    def line(got: dict[str, Any]) -> str:
        return f"tui: first paint {got['first_paint_ms']} ms at {got['memories']} memories, {got['drafts']} drafts"

    return Probe(name="tui", label=f"TUI first paint at {n_memories:,} memories with {n_drafts} drafts",
                 run=run, line=line)


if __name__ == "__main__":  # pragma: no cover
    import sys
    import tempfile

    n_mem = int(sys.argv[1]) if len(sys.argv) > 1 else 5000
    n_dr = int(sys.argv[2]) if len(sys.argv) > 2 else 500
    with tempfile.TemporaryDirectory() as tmp:
        print(f"first paint: {first_paint_ms(Path(tmp) / 'ws', n_mem, n_dr):.1f} ms "
              f"({n_mem} memories, {n_dr} drafts)")
