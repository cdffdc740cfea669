"""The command line's history commands: history, show, undo, sync."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

from .. import Change

OK, FAIL, NOTHING = 0, 1, 2


def add_parsers(add: Callable[..., Any]) -> None:
    """kura history, show, undo, sync (each with -c/-s and --json)."""
    sp = add(
        "history",
        cmd_history,
        "the store's changes, newest first: rev, when, what, who, which memories",
    )
    sp.add_argument("slug", nargs="?", default=None, help="only the changes to this memory")
    sp.add_argument("--limit", type=int, default=50, help="at most this many (default 50)")
    sp.add_argument(
        "--enable",
        action="store_true",
        help="give an existing store history (a git repository at its root); safe to repeat",
    )

    sp = add("show", cmd_show, "one change of the store's history, as a diff")
    sp.add_argument("rev", help="the change's rev (from kura history; a prefix will do)")

    sp = add(
        "undo",
        cmd_undo,
        "revert one change as a new entry (refused, changing nothing, when something later "
        "touched the same memory or index line)",
    )
    sp.add_argument("rev", help="the change's rev (from kura history)")

    add(
        "sync",
        cmd_sync,
        "share the store through its git remote ([stores.X.sync] remote): fetch, merge, push",
    )


def _when(iso: str) -> str:
    try:
        return dt.datetime.fromisoformat(iso).strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return iso


def change_line(c: Change) -> str:
    slugs = ", ".join(c.slugs[:4]) + (f" +{len(c.slugs) - 4}" if len(c.slugs) > 4 else "")
    return f"{c.rev[:12]}  {_when(c.when)}  {c.what:<14} {c.who:<22} {slugs}"


def cmd_history(ctx: Any) -> int:
    a = ctx.args
    k = ctx.kura()
    if a.enable:
        made = k.enable_history(store=ctx.selector)
        name = k.resolve(ctx.selector)
        if a.json:
            ctx.json({"store": name, "enabled": True, "created": made})
        else:
            ctx.print(
                f"store {name!r} keeps history"
                + (" from now on (its first entry holds everything there)" if made else "")
            )
        return OK
    if a.limit < 1:
        ctx.warn("kura: --limit must be at least 1")
        return FAIL
    changes = k.history(a.slug or "", store=ctx.selector, limit=a.limit)
    if a.json:
        ctx.json([c.to_json() for c in changes])
    else:
        for c in changes:
            ctx.print(change_line(c))
    return OK if changes else NOTHING


def cmd_show(ctx: Any) -> int:
    k = ctx.kura()
    text = k.show_change(ctx.args.rev, store=ctx.selector)
    if ctx.args.json:
        c = k.change(ctx.args.rev, store=ctx.selector)
        ctx.json({**c.to_json(), "diff": text})
    else:
        ctx.out.write(text if text.endswith("\n") else text + "\n")
    return OK


def cmd_undo(ctx: Any) -> int:
    c = ctx.kura().undo(ctx.args.rev, store=ctx.selector)
    if ctx.args.json:
        ctx.json(c.to_json())
    else:
        ctx.print(f"{c.ref.replace('undoes', 'undid', 1)} — recorded as {c.rev[:12]}")
    return OK


def cmd_sync(ctx: Any) -> int:
    rep = ctx.kura().sync(store=ctx.selector)
    if ctx.args.json:
        ctx.json(rep.to_json())
    else:
        ctx.print(f"{rep.store} ⇄ {rep.remote}: {rep.merged or 'nothing to merge'}")
        if rep.brought:
            ctx.print(
                f"  brought {len(rep.brought)} memory change(s): {', '.join(rep.brought[:8])}"
            )
        for d in rep.conflicts:
            ctx.print(
                f"  changed on both machines: the other text waits as draft {d!r} "
                "(kura distill drafts; pour, edit or toss it)"
            )
        for p in rep.kept_ours:
            ctx.print(f"  {p} changed on both machines: this machine's copy is kept")
        ctx.print("  pushed" if rep.pushed else f"  not pushed: {rep.push_error}")
    return OK if rep.pushed else FAIL
