"""Regenerate screenshots/*.svg: the TUI's states on the demo workspace, at 120×40.

    .venv/bin/python scripts/screenshots.py [--out screenshots] [--size 120x40]

The demo is built with a fixed day into a fixed directory, and the app runs with a
frozen clock, no animation and no file watching, so the same code gives the same SVGs.
No model is needed (recall shows its degraded mode). Before the shots the script does
what a person would have done by then: previews a weave (shot), pours one draft by hand
(so a memory carries its evidence), lets the tender tick once (it has no model, so its
log says what it could not do; its pid is this process's), weaves every store, writes the
eq store a profile of their own and has the brain draft a new one — the brain being the
scripted model server of the tests (tests/fakes/) on a loopback socket, answering with the
text below, which passes the same checks as any brain's draft.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DAY = dt.date(2026, 11, 20)
NOW = dt.datetime.combine(DAY, dt.time(8, 30)).timestamp()
DEMO_DIR = Path("/tmp/kura-demo")

#: name -> keys pressed after the first screen settles (on the woven demo)
STATES = {
    "main": (),  # stores and the woven map
    "drafts": ("2",),  # the queue, the draft beside its evidence
    "extension": ("2", "slash", *"ups", "enter"),  # an extension draft: what it changes, as a diff
    "evidence": ("2", "o"),  # a quote beside the journal it came from
    "gatelog": ("3",),
    "recall": ("4", *"the gpu fans are too loud", "enter"),  # degraded: no model
    "doctor": ("5",),
    "memory": ("slash", *"gpu1", "enter", "enter"),  # a poured memory: provenance, evidence, links
    "edit": ("slash", *"gpu1", "enter", "e"),  # a hand edit, in the app
    "find": ("slash", *"disk"),
    "seeds": ("6",),
    "tender": ("7",),
    "journals": ("8",),
    "help": ("question_mark",),
    "profile": ("left_square_bracket", "P"),  # eq: profile.md beside the brain's waiting draft
}

#: the eq store's profile as its owner first wrote it, and the draft the brain proposes
PROFILE_OWN = (
    "Ren thinks out loud and decides alone: offer options with their trade-offs, not verdicts.\n\n"
    "Evenings after dinner belong to the family."
)
PROFILE_DRAFT = (
    "This room holds how Ren thinks things through and the boundaries Ren has set. Ren decides: "
    "offer options with their trade-offs, not verdicts.\n\n"
    "Evenings after dinner belong to the family, and the work phone sleeps in the hallway until the "
    "morning train. Big purchases wait one night. Long builds go better when the stage that just "
    "finished is named before what is left."
)

#: shot before the demo is woven, so the preview has something to show
BEFORE_WEAVE = {"weave": ("w",)}


async def _settle(pilot) -> None:
    from textual.worker import WorkerState

    quiet = 0
    for _ in range(400):
        await pilot.pause()
        if any(w.state in (WorkerState.PENDING, WorkerState.RUNNING) for w in pilot.app.workers):
            quiet = 0
            await asyncio.sleep(0.01)
            continue
        quiet += 1
        if quiet >= 2:
            return


async def _shoot(cfg: Path, keys: tuple[str, ...], size: tuple[int, int], out: Path) -> None:
    from kura_core.config import load_config
    from kura_core.kura import Kura
    from kura_core.registry import Registry
    from kura_tui.app import KuraApp

    kura = Kura(Registry(load_config(cfg, {}), env={}, clock=lambda: NOW, today=lambda: DAY))
    app = KuraApp(kura, watch=False, frozen=True, by="ren (tui)")
    try:
        async with app.run_test(size=size) as pilot:
            await _settle(pilot)
            await pilot.press(*keys)
            await _settle(pilot)
            app.save_screenshot(filename=out.name, path=str(out.parent))
    finally:
        kura.close()


def _kura(cfg: Path):
    from kura_core.config import load_config
    from kura_core.kura import Kura
    from kura_core.registry import Registry

    return Kura(Registry(load_config(cfg, {}), env={}, clock=lambda: NOW, today=lambda: DAY))


def _weave_all(cfg: Path) -> None:
    """Weave every store once, as `kura weave` would, so the map shows the woven cloth."""
    with _kura(cfg) as kura:
        for name in kura.registry.names():
            kura.weave(store=name)


def _a_day_of_work(cfg: Path) -> None:
    """Pour one draft by hand and let the tender tick once (it has no model)."""
    from kura_core.tend import run_once

    with _kura(cfg) as kura:
        kura.pour("gpu1-fan-floor", store="maker", by="ren (tui)")
        run_once(kura.registry, "maker")


def _a_profile(cfg: Path) -> None:
    """eq gets a profile of its owner's own, written days ago, and the brain's draft of a new
    one, waiting beside it."""
    import os

    from kura_core.config import load_config
    from kura_core.kura import Kura
    from kura_core.registry import Registry
    from tests.fakes.model_server import ScriptedModel

    brain = cfg.with_name("kura-brain.toml")
    with ScriptedModel() as model:
        model.script("kura_profile", {"profile": PROFILE_DRAFT})
        brain.write_text(
            cfg.read_text(encoding="utf-8") + f'\n[models.brain]\nurl = "{model.url}"\n'
            'model = "scripted"\n',
            encoding="utf-8",
        )
        try:
            with Kura(
                Registry(
                    load_config(brain, {}), env={}, clock=lambda: NOW - 1500, today=lambda: DAY
                )
            ) as kura:
                own = kura.profile_apply(store="eq", text=PROFILE_OWN)
                os.utime(own.path, (NOW - 5 * 86400, NOW - 5 * 86400))
                kura.profile_draft(store="eq")
        finally:
            brain.unlink(missing_ok=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(ROOT / "screenshots"))
    ap.add_argument("--size", default="120x40")
    a = ap.parse_args(argv)
    w, h = (int(x) for x in a.size.split("x"))
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)

    from kura_core.demo import build_demo

    if DEMO_DIR.exists():
        shutil.rmtree(DEMO_DIR)
    cfg = build_demo(DEMO_DIR, today=DAY)

    def shoot(states: dict) -> None:
        for name, keys in states.items():
            target = out / f"{name}.svg"
            asyncio.run(_shoot(cfg, keys, (w, h), target))
            print(target.relative_to(ROOT) if target.is_relative_to(ROOT) else target)

    shoot(BEFORE_WEAVE)
    _a_day_of_work(cfg)
    _weave_all(cfg)
    _a_profile(cfg)
    shoot(STATES)
    return 0


if __name__ == "__main__":
    sys.exit(main())
