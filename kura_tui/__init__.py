"""kura's full-screen face: a Textual app over the same core every other face uses.

from kura_tui import run
run(Registry.open())          # what `kura` and `kura tui` do
"""

from __future__ import annotations

from typing import Any


def run(registry: Any, *, store: str | None = None, watch: bool = True) -> int:
    """Run the TUI on *registry* (a Registry or a Kura) until the person quits."""
    # lazy: the command line imports this package for every `kura tui` and `kura bench`
    # wiring; Textual and the app load only when the app opens
    from kura_core.kura import Kura

    from .app import KuraApp

    kura = registry if isinstance(registry, Kura) else Kura(registry)
    app = KuraApp(kura, store=store, watch=watch)
    app.run()
    return app.return_code or 0


def bench_probe() -> Any:
    """The app's first-paint figure for `kura bench perf` (see :mod:`kura_tui.bench`)."""
    from .bench import probe  # lazy: the bench's own probe, above the app (see LAYERS)

    return probe()


__all__ = ["bench_probe", "run"]
