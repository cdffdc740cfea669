"""TUI test fixtures: a fixed workspace, a frozen app, and a way to wait for its workers.

tests/conftest.py already strips TEXTUAL_*, NO_COLOR, FORCE_COLOR, COLUMNS and LINES.
Here the terminal and locale are pinned too, so nothing on screen depends on the host.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from tests.tui.workspace import build, open_kura, snapshot_root

for _k in ("TERM_PROGRAM", "COLORTERM", "TZ", "LANG", "LC_ALL"):
    os.environ.pop(_k, None)
os.environ["TERM"] = "xterm-256color"


@pytest.fixture
def tui_config(_isolated_home) -> Any:
    """kura.toml of the fixed workspace, built for this test in its own home (shown as ``~``)."""
    return build(snapshot_root(_isolated_home))


@pytest.fixture
def make_app(tui_config) -> Callable[..., Any]:
    """KuraApp over the fixed workspace: frozen clock, no animation, no blink, no watching."""
    from kura_tui.app import KuraApp

    made = []

    def make(**kw: Any) -> Any:
        kura = open_kura(tui_config)
        made.append(kura)
        kw.setdefault("watch", False)
        kw.setdefault("frozen", True)
        return KuraApp(kura, **kw)  # it keeps every message in app.notes_seen itself

    yield make
    for k in made:
        k.close()


async def settle(pilot: Any, timeout: float = 60.0) -> None:
    """Wait until every worker (but the file watcher) is done and its messages are handled.
    The timeout only bounds a hang; nothing here depends on how fast the machine is."""
    import time

    from textual.worker import WorkerState

    app = pilot.app
    quiet = 0
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        await pilot.pause()
        busy = [
            w
            for w in app.workers
            if w.group != "watch" and w.state in (WorkerState.PENDING, WorkerState.RUNNING)
        ]
        if busy:
            quiet = 0
            await asyncio.sleep(0.01)
            continue
        quiet += 1
        # what waits for a repaint (a scroll to lines just mounted) runs before the next look
        await asyncio.wait_for(app.screen.wait_for_refresh(), max(0.1, deadline - time.monotonic()))
        if quiet >= 2:
            await pilot.pause()
            return
    raise AssertionError("the app did not settle")


async def until(
    pilot: Any, check: Callable[[], Any], what: str = "the condition", timeout: float = 30.0
) -> None:
    """Let the app run until *check* comes true; fail naming *what* after *timeout* seconds
    (which only bounds a hang)."""
    import time

    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() >= deadline:
            raise AssertionError(f"waited {timeout:g}s for {what}; it never happened")
        await pilot.pause(0.02)


async def palette_offers(pilot: Any, text: str) -> None:
    """Wait until the command palette has searched and highlights a command naming *text*."""
    from textual.command import CommandList

    def highlighted() -> bool:
        lists = pilot.app.screen.query(CommandList)
        if not lists:
            return False
        found = lists.first()
        i = found.highlighted
        return i is not None and text in str(found.get_option_at_index(i).prompt)

    await until(pilot, highlighted, f"the palette to offer {text!r}")


def run(
    app: Any,
    script: Callable[[Any], Awaitable[Any]],
    size: tuple[int, int] = (120, 40),
    notifications: bool = True,
) -> Any:
    """Run *script(pilot)* against *app* headless; return what it returns."""

    async def main() -> Any:
        async with app.run_test(size=size, notifications=notifications) as pilot:
            await settle(pilot)
            return await script(pilot)

    return asyncio.run(main())


def screen_text(app: Any) -> str:
    """What the terminal shows right now, as plain text."""
    strips = app.screen._compositor.render_strips()
    return "\n".join("".join(seg.text for seg in strip) for strip in strips)
