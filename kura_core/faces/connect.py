"""The ``kura connect`` and ``kura hook`` commands: argparse setup and bodies, called from
the CLI's parser and dispatch so the CLI itself holds only a few lines for them."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from ..errors import KuraError

OK, FAIL, NOTHING = 0, 1, 2

#: ``kura_core.connect.AGENTS`` by name, spelt out so building the parser imports nothing
AGENT_NAMES = (
    "claude-code",
    "codex",
    "gemini",
    "opencode",
    "qwen-code",
    "copilot",
    "crush",
    "zed",
    "amp",
)


def add_parsers(add: Callable[..., argparse.ArgumentParser], cmd: Callable[..., int]) -> None:
    """``kura connect`` and ``kura hook`` through the CLI's ``add`` (*cmd* is the CLI's
    dispatcher for ``connect``)."""
    helptext = "wire a store into an agent: MCP, the map at session start (where it runs hooks), its journals"
    sp = add("connect", cmd, helptext)
    sp.add_argument("agent", nargs="?", choices=AGENT_NAMES, help="the agent to wire")
    sp.add_argument("--status", action="store_true", help="which agents are wired to which store")
    sp.add_argument(
        "--plugin-dir",
        action="store_true",
        help="print the Claude Code plugin marketplace shipped with kura (for claude plugin)",
    )
    sp.add_argument("--dry-run", action="store_true", help="show the diff, write nothing")
    sp.add_argument("--undo", action="store_true", help="take kura out of the agent again")
    sp.add_argument("--yes", "-y", action="store_true", help="write without asking")
    sp.add_argument(
        "--recall", action="store_true", help="also recall for every prompt (off by default)"
    )
    sp.add_argument(
        "--deadline",
        type=float,
        default=None,
        help="seconds a hook may take before the session goes on without it (default 1.5)",
    )
    sp.add_argument(
        "--http",
        nargs="?",
        const="auto",
        default="",
        metavar="URL",
        help="MCP over HTTP to kura serve instead of stdio (no URL: [server] host and port, "
        "bound to the store through /s/STORE/mcp)",
    )
    hp = add(
        "hook",
        cmd,
        "what an agent's hook runs (fail-open, hard deadline; KURA_OFF=1 skips it)",
        json_flag=False,
    )
    hp.add_argument("rest", nargs=argparse.REMAINDER)


def cmd_connect(ctx: Any) -> int:
    a = ctx.args
    if a.plugin_dir:
        from ..kura import Kura

        ctx.print(str(Kura.connect_plugin_dir()))
        return OK
    if a.status:
        return _status(ctx)
    if not a.agent:
        raise KuraError("name the agent: kura connect claude-code (or --status)")
    if a.undo:
        return _undo(ctx)
    k = ctx.kura()
    plan = k.connect_plan(
        a.agent, store=ctx.selector, deadline=a.deadline, recall=a.recall, url=a.http
    )
    if plan.nothing:
        if a.json:
            ctx.json({**plan.to_json(), "written": []})
        else:
            ctx.print(
                f"{a.agent} is already wired to store {plan.wiring.store!r}: nothing to change"
            )
            for n in plan.notes:
                ctx.print(f"  note: {n}")
        return NOTHING
    if a.dry_run:
        if a.json:
            ctx.json(plan.to_json())
        else:
            ctx.out.write(plan.diff())
            for n in plan.notes:
                ctx.print(f"note: {n}")
        return OK
    if not a.yes:
        if a.json or not sys.stdin.isatty():
            raise KuraError(
                "kura connect changes the agent's own config: see the diff with --dry-run, "
                "then run again with --yes"
            )
        ctx.out.write(plan.diff())
        ctx.out.write("Write these changes? [y/N] ")
        ctx.out.flush()
        if sys.stdin.readline().strip().lower() not in ("y", "yes"):
            ctx.print("nothing written")
            return NOTHING
    done = k.connect_apply(plan)
    _report(ctx, plan, done)
    return OK


def _report(ctx: Any, plan: Any, done: Any) -> None:
    a = ctx.args
    if a.json:
        ctx.json(done.to_json())
        return
    ctx.print(f"{a.agent} wired to store {done.store!r}:")
    for line in plan.what():
        ctx.print(f"  {line}")
    for path, backup in dict((w.path, w.backup) for w in done.written if w.backup).items():
        ctx.print(f"  backup of {path}: {backup}")
    for n in done.notes:
        ctx.print(f"  note: {n}")
    ctx.print(f"undo with: kura connect {a.agent} --undo")


def _undo(ctx: Any) -> int:
    from ..kura import Kura

    a = ctx.args
    done = Kura.connect_undo(a.agent)
    if not done:
        if a.json:
            ctx.json({"agent": a.agent, "files": []})
        else:
            ctx.print(f"kura connect has not wired {a.agent} here: nothing to undo")
        return NOTHING
    if a.json:
        ctx.json({"agent": a.agent, "files": [{"path": r.path, "how": r.how} for r in done]})
        return OK
    for r in done:
        ctx.print(f"{r.how:<10} {r.path}")
    ctx.print(f"kura is no longer wired into {a.agent}")
    return OK


def _status(ctx: Any) -> int:
    from ..kura import Kura

    rows = Kura.connect_status()
    if ctx.args.json:
        ctx.json([r.to_json() for r in rows])
        return OK
    for r in rows:
        if not r.found.wired and r.matches is None:
            ctx.print(f"  {r.agent:<12} not wired")
            continue
        named = r.store or r.found.mcp or r.found.hook_store
        store = repr(named) if named else "(the default)"
        if r.matches is None and "plugin" in r.found.hooks:
            state = "the kura plugin for Claude Code"
        elif r.matches is None:
            state = "wired by hand (no kura connect record)"
        elif r.matches:
            state = "matches what kura connect wrote"
        else:
            state = "CHANGED since kura connect: " + "; ".join(r.drift)
        parts = (["MCP"] if r.found.mcp is not None else []) + list(r.found.hooks)
        ctx.print(f"* {r.agent:<12} store {store} ({', '.join(parts) or 'nothing'}): {state}")
    return OK
