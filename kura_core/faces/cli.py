"""The `kura` command line. It parses, calls the core, and prints; nothing else.

Exit codes: 0 did work / ok, 2 nothing to do, 1 failure or refusal (with a message
naming what to fix). Every command that reports takes --json.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import Kura, KuraError, Registry, set_default_who
from ..errors import ConfigError, SelectorError
from ..vocabulary import CURATION_FIELDS, MEMORY_TYPES, DraftDecision, GateVerdict
from .connect import add_parsers as add_connect_parsers, cmd_connect as connect_body
from .guard import guarded
from .history_cli import add_parsers as add_history_parsers
from .render import doctor_text

OK, FAIL, NOTHING = 0, 1, 2


#: who a command's writes are recorded as, by the face it runs
_WHO = {"serve": "host (http)", "mcp": "agent (mcp)", "tui": "person (app)", "tend": "tender"}


class UsageError(KuraError):
    pass


@dataclass
class Ctx:
    args: argparse.Namespace
    out: Any = field(default_factory=lambda: sys.stdout)
    err: Any = field(default_factory=lambda: sys.stderr)
    _reg: Any = None
    _kura: Any = None

    @property
    def selector(self) -> str | None:
        return getattr(self.args, "store", None) or None

    def registry(self):
        if self._reg is None:
            self._reg = Registry.open(self.args.config)
            for w in self._reg.config.warnings:
                self.warn(f"kura: warning: {w}")
        return self._reg

    def kura(self):
        """The application layer every command calls (kura_core.kura.Kura)."""
        if self._kura is None:
            self._kura = Kura(self.registry())
        return self._kura

    def print(self, text: str = "") -> None:
        self.out.write(text + "\n")

    def json(self, obj: Any) -> None:
        self.out.write(json.dumps(obj, ensure_ascii=False, indent=2, default=str) + "\n")

    def warn(self, text: str) -> None:
        self.err.write(text + "\n")


# --------------------------------------------------------------------------- commands


def cmd_init(ctx: Ctx) -> int:
    a = ctx.args
    res = Kura.init_store(a.name, a.path, label=a.label or "", config=a.config)
    if a.json:
        ctx.json(res.to_json())
    else:
        ctx.print(f"store {res.store!r} ready at {a.path}")
        ctx.print(f"config: {a.config or res.config}")
        if res.history == "on":
            ctx.print("history: every change is a git commit (kura history, show, undo, sync)")
        elif res.history != "off":
            ctx.print(f"history: off — {res.history}")
        _print_adopted(ctx, res.store, res.adopted, res.skipped)
        found = [(ad, root) for ad, root, there in Kura.journal_roots_here() if there]
        if found:
            ctx.print(f"journals on this machine (add to [stores.{res.store}.journals]):")
            for ad, root in found:
                ctx.print(f'  {ad} = "{root}"')
    return OK


def _print_adopted(
    ctx: Ctx, store: str, adopted: Sequence[str], skipped: Sequence[tuple[str, str]]
) -> None:
    if adopted:
        ctx.print(
            f"adopted {len(adopted)} memory file(s) already there: their index lines are written"
        )
    for slug, why in skipped:
        ctx.print(f"  not adopted: {slug}.md — {why}")
    if skipped:
        ctx.print(f"  fix those files, then run `kura adopt -s {store}`")


def cmd_adopt(ctx: Ctx) -> int:
    k = ctx.kura()
    res = k.adopt(store=ctx.selector)
    if ctx.args.json:
        ctx.json(res.to_json())
    elif not res.adopted and not res.skipped:
        ctx.print(f"every memory file in {res.store} has its index line: nothing to adopt")
    else:
        _print_adopted(ctx, res.store, res.adopted, res.skipped)
    return FAIL if res.skipped else (OK if res.adopted else NOTHING)


def cmd_stores(ctx: Ctx) -> int:
    info = ctx.kura().stores(probe=ctx.args.probe)
    if ctx.args.json:
        ctx.json(info.to_json())
        return OK
    if not info.stores:
        ctx.print("no stores configured: run `kura init NAME --path DIR`")
        return OK
    for s in info.stores:
        mark = "*" if s.default else " "
        modes = f"  modes: {', '.join(s.modes)}" if s.modes else ""
        state = "" if s.exists else "  (missing: run kura init)"
        ctx.print(
            f"{mark} {s.name:<14} {s.memories:>5} memories  {s.drafts_waiting:>3} drafts  "
            f"{s.write_policy}{modes}{state}"
        )
        if s.label:
            ctx.print(f"    {s.label}")
    for role, m in info.models.items():
        if m is None:
            ctx.print(f"  {role:<8} not configured")
            continue
        err = f"  ⚠ {m.last_error}" if m.last_error else ""
        said = f"  {m.said}" if m.said else ""
        if m.reachable is not None:
            err = ""
        ctx.print(f"  {role:<8} {m.model} @ {m.url}{said}{err}")
    return OK


def cmd_read(ctx: Ctx) -> int:
    k = ctx.kura()
    mem = k.read(ctx.args.slug, store=ctx.selector)
    if ctx.args.json:
        ctx.json({"store": k.resolve(ctx.selector), **mem.to_json()})
    else:
        ctx.out.write(mem.render())
    return OK


def cmd_glance(ctx: Ctx) -> int:
    g = ctx.kura().glance(ctx.args.slug, store=ctx.selector)
    if ctx.args.json:
        ctx.json(g.to_json())
    else:
        ctx.print(g.text)
        ctx.print(
            f"(~{g.tokens_est} tokens · keep: {g.keep_state} · `kura read {g.slug}` for all of it)"
        )
    return OK


def cmd_remember(ctx: Ctx) -> int:
    a = ctx.args
    body = a.body
    if body == "-" or (body is None and not sys.stdin.isatty()):
        body = sys.stdin.read()
    if body is None:
        body = a.description
    k = ctx.kura()
    mem = k.remember(
        a.slug,
        a.description,
        body,
        store=ctx.selector,
        type=a.type or "",
        title=a.title or "",
        tags=a.tag or [],
        belongs_because=a.belongs_because,
        keep=a.keep,
        may_fade=a.may_fade,
    )
    if a.json:
        ctx.json(
            {
                "store": k.resolve(ctx.selector),
                "slug": mem.slug,
                "path": str(mem.path),
                "tags": list(mem.tags),
                **{k: mem.curation(k) for k in CURATION_FIELDS if mem.curation(k)},
            }
        )
    else:
        ctx.print(f"remembered {mem.slug} in {k.resolve(ctx.selector)}")
    return OK


def cmd_annotate(ctx: Ctx) -> int:
    a = ctx.args
    k = ctx.kura()
    mem = k.annotate(
        a.slug,
        store=ctx.selector,
        add_tags=a.tag or [],
        remove_tags=a.untag or [],
        belongs_because=a.belongs_because,
        keep=a.keep,
        may_fade=a.may_fade,
    )
    cur = {k: mem.curation(k) for k in CURATION_FIELDS}
    if a.json:
        ctx.json(
            {"store": k.resolve(ctx.selector), "slug": mem.slug, "tags": list(mem.tags), **cur}
        )
    else:
        ctx.print(f"annotated {mem.slug} in {k.resolve(ctx.selector)}")
        ctx.print(f"  tags: {', '.join(mem.tags) or '(none)'}")
        for k, v in cur.items():
            if v:
                ctx.print(f"  {k}: {v}")
    return OK


def cmd_seeds(ctx: Ctx) -> int:
    """List the seeds (withered ones first to revive), or revive one; exit 2 when none."""
    a = ctx.args
    k = ctx.kura()
    if a.revive is not None:
        s = k.revive_seed(a.revive, store=ctx.selector)
        if a.json:
            ctx.json(s.to_json())
        else:
            ctx.print(f"revived seed {s.id}: {s.title} (waiting again, checked afresh)")
        return OK
    if a.wither:
        k.wither_seeds(store=ctx.selector)
    seeds = [s for s in k.seed_list(store=ctx.selector) if a.state in ("all", s.state)]
    if a.json:
        ctx.json({"seeds": [s.to_json() for s in seeds]})
    else:
        for s in seeds:
            why = f" — {s.withered[1]}" if s.withered else ""
            ctx.print(f"{s.id:>5}  {s.state:<9} {s.checks:>3} checks  {s.title}{why}")
        if not seeds:
            ctx.warn(f"kura: no {'' if a.state == 'all' else a.state + ' '}seeds")
    return OK if seeds else NOTHING


def cmd_retire(ctx: Ctx) -> int:
    a = ctx.args
    k = ctx.kura()
    links = "redirect" if a.redirect else ("unlink" if a.unlink else "keep")
    res = k.retire(a.slug, a.reason, store=ctx.selector, links=links, redirect_to=a.redirect or "")
    if a.json:
        ctx.json(
            {
                "store": res.store,
                "slug": res.slug,
                "relinked": list(res.relinked),
                "redirected_to": res.redirected_to,
                "dead_links": list(res.dead_links),
                "log_id": res.log_id,
            }
        )
        return OK
    ctx.print(f"retired {res.slug} from {res.store}; the gate log keeps it whole (#{res.log_id})")
    if res.relinked:
        how = f"now point at {res.redirected_to}" if res.redirected_to else "are plain text now"
        ctx.print(f"  its links in {', '.join(res.relinked)} {how}")
    if res.dead_links:
        ctx.print(
            f"  {len(res.dead_links)} memory(ies) still link to it ({', '.join(res.dead_links)}): "
            f"`kura relink {res.slug} -s {res.store}` makes those links plain text"
        )
    return OK


def cmd_relink(ctx: Ctx) -> int:
    a = ctx.args
    k = ctx.kura()
    done = k.relink(a.target, to=a.to or "", store=ctx.selector)
    if a.json:
        ctx.json({"store": k.resolve(ctx.selector), "target": a.target, "rewritten": list(done)})
        return OK
    if not done:
        ctx.print(f"no memory in {k.resolve(ctx.selector)} links to [[{a.target}]]")
        return NOTHING
    how = f"now point at [[{a.to}]]" if a.to else "are plain text now"
    ctx.print(f"links to [[{a.target}]] {how} in: {', '.join(done)}")
    return OK


def cmd_profile(ctx: Ctx) -> int:
    a = ctx.args
    k = ctx.kura()
    if a.action == "show":
        st = k.profile_state(store=ctx.selector)
        if a.json:
            ctx.json(st.to_json())
            return OK if (st.present or st.draft_present) else NOTHING
        ctx.print(f"{st.store}: learned profile — {st.state}")
        if st.problem:
            ctx.print(f"  ⚠ {st.problem}")
        if st.present:
            ctx.print(
                f"  {st.path} (~{st.tokens_est} tokens; every role reads it right after the charter)"
            )
            ctx.print("")
            ctx.print(st.text)
        if st.draft_present:
            ctx.print("")
            ctx.print(f"draft waiting ({st.draft_path}, drafted from {st.draft_from} memories):")
            ctx.print("")
            ctx.print(st.draft_text)
            ctx.print("")
            ctx.print(
                "apply it with `kura profile apply"
                + (f" -s {st.store}" if ctx.selector else "")
                + "`"
                + (" (refused: the store is frozen)" if st.frozen else "")
            )
        if not st.present and not st.draft_present:
            ctx.print(
                "  none yet: `kura profile draft` asks the brain to draft one from this store's memories"
            )
        return OK if (st.present or st.draft_present) else NOTHING
    if a.action == "draft":
        d = k.profile_draft(store=ctx.selector)
        if a.json:
            ctx.json(d.to_json())
        else:
            ctx.print(f"{d.store}: drafted from {d.from_memories} memories → {d.path}")
            ctx.print("")
            ctx.print(d.text)
            ctx.print("")
            ctx.print("nothing changes until a person applies it: `kura profile apply`")
        return OK
    text = None
    if a.file:
        text = sys.stdin.read() if a.file == "-" else _read_text_file(a.file)
    res = k.profile_apply(store=ctx.selector, text=text)
    if a.json:
        ctx.json(res.to_json())
    else:
        ctx.print(f"{res.store}: profile applied ({res.bytes} bytes) → {res.path}")
        if res.previous_path:
            ctx.print(f"  the previous profile is kept in {res.previous_path}")
    return OK


def _read_text_file(path: str) -> str:
    try:
        return open(os.path.expanduser(path), encoding="utf-8").read()
    except OSError as exc:
        raise KuraError(f"cannot read {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise KuraError(f"{path} is not UTF-8 text") from None


def cmd_recall(ctx: Ctx) -> int:
    a = ctx.args
    res = ctx.kura().recall(
        " ".join(a.question), store=ctx.selector, hops=a.hops, top=a.top, chars=a.chars
    )
    if a.json:
        ctx.json(res.to_json())
    else:
        if res.notice:
            ctx.print(res.notice)
        ctx.print(
            f"how: {res.how} · picked: {', '.join(res.picked) or '—'} · "
            f"walked: {', '.join(res.walked) or '—'} · ~{res.tokens_est} tokens · "
            f"{res.elapsed_ms:.0f} ms"
        )
        ctx.print(f"tier: {_tier_line(res)}")
        if res.dropped:
            ctx.print(f"dropped (not in the store): {', '.join(res.dropped)}")
        for slug, why in res.skipped:
            ctx.print(f"⚠ skipped {slug}: {why}")
        if res.context:
            ctx.print()
            ctx.print(res.context.rstrip())
    return OK if res.walked else NOTHING


def _tier_line(res: Any) -> str:
    """Which rung of the ladder answered, in words."""
    fp = f"fastpath {res.fastpath_verdict}"
    if res.fastpath_verdict != "disabled":
        fp += f" in {res.fastpath_ms:.2f} ms"
    if res.how in ("fastpath", "fastpath-cue"):
        return f"{res.how} answered ({fp}); no model was asked"
    if res.how == "meaning":
        return f"the thinker answered ({fp})"
    return f"the word tier answered ({fp})"


def _progress(ctx: Ctx):
    """A progress callback: a live line on a terminal, nothing in scripts."""
    if ctx.args.json or not ctx.err.isatty():
        return None

    def show(p) -> None:
        ctx.err.write(f"\r  {p.text}\x1b[K")
        ctx.err.flush()

    return show


def _progress_done(ctx: Ctx, progress) -> None:
    if progress is not None:
        ctx.err.write("\r\x1b[K")


def cmd_gate(ctx: Ctx) -> int:
    a = ctx.args
    k = ctx.kura() if ctx.selector else _kura_for_journals(ctx)
    rep = k.gate(a.journal, a.candidates, adapter=a.adapter, store=ctx.selector)
    if a.json:
        ctx.json(rep.to_json())  # redacted: the report never repeats a secret
        return OK
    shown = rep.shown
    ctx.print(f"{Path(rep.journal).name}: {rep.segments} segments ({rep.adapter})")
    for r in rep.results:
        ctx.print(shown(f"{r.verdict.upper():<8} {r.title}"))
        for q in r.quotes:
            ctx.print(shown(f"    [{q.cls or q.claimed or '?'}] {q.status}: {shown(q.text)[:90]}"))
        mark = "✗" if r.verdict == GateVerdict.DROPPED else "·"
        for why in r.reasons:
            ctx.print(shown(f"    {mark} {why}"))
        for v in r.violations:
            ctx.print(shown(f"    ✗ {v.message()}"))
    return OK


def _kura_for_journals(ctx: Ctx) -> Kura:
    """A Kura to read a journal file with: the configured one when the config loads (its
    default store's secret rules and allow-list apply), else one with no stores (reading
    a journal needs no config)."""
    try:
        return ctx.kura()
    except ConfigError:
        return Kura.without_stores()


def _one_line(text: str, width: int = 110) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def cmd_journal(ctx: Ctx) -> int:
    from .. import Note  # lazy: start-up (the journal readers, for this command only)

    a = ctx.args
    k = _kura_for_journals(ctx)  # reading a journal file needs no config
    if a.action == "context":
        if a.at is None:
            raise UsageError("kura journal context needs --at POSITION (a segment's start)")
        near = k.journal_context(a.file, a.at, adapter=a.adapter, radius=a.radius)
        if a.json:
            ctx.json(near.to_json())
            return OK
        ctx.print(f"{Path(near.path).name} ({near.adapter}, {near.unit}) around {near.start}:")
        for i, s in enumerate(near.segments):
            mark = "▶" if i in near.focus else " "
            text = s.text if a.full or i in near.focus else _one_line(s.text)
            ctx.print(
                f"{mark} {s.start:>9}  [{s.cls}] {s.kind}: " + text.replace("\n", "\n" + " " * 14)
            )
        return OK
    got = k.journal_inspect(a.file, adapter=a.adapter, start=a.start)
    if a.json:
        ctx.json(got.to_json())
        return FAIL if got.fatal else OK
    classes = " · ".join(f"{c} {n}" for c, n in sorted(got.classes.items()))
    skipped, ignored = got.count("skipped"), got.count("ignored")
    repaired, held = got.count("repaired"), got.count("held")
    variant = f" ({got.variant})" if got.variant else ""
    ctx.print(
        f"{Path(got.path).name}: {got.adapter} adapter{variant}, {got.unit} {got.start}–{got.end}, "
        f"{got.records} records → {len(got.segments)} segments"
        + (f" ({classes})" if classes else "")
        + f"; {skipped} skipped, {ignored} ignored, {held} held back"
        + (f", {repaired} repaired" if repaired else "")
    )
    if got.fatal:
        ctx.print(f"✗ {got.fatal}")
        return FAIL
    for pos, _, item in got.entries():
        if isinstance(item, Note):
            ctx.print(f"{pos:>10}  {item.kind:<8} {item.reason}")
        else:
            text = item.text if a.full else _one_line(item.text)
            if a.full:
                text = text.replace("\n", "\n" + " " * 21)
            ctx.print(f"{pos:>10}  [{item.cls}]{' ' * (6 - len(item.cls))} {item.kind}: {text}")
    return OK


def _reported(ctx: Ctx, run: Callable[[Any], Any]) -> Any:
    """The report of a long run, which *run* makes given the progress callback (a live
    line on a terminal); with --json the report is printed here."""
    progress = _progress(ctx)
    out = run(progress)
    _progress_done(ctx, progress)
    rep = out.report
    if ctx.args.json:
        ctx.json(rep.to_json())
    return rep


def cmd_distill_run(ctx: Ctx) -> int:
    k = ctx.kura()
    rep = _reported(
        ctx,
        lambda progress: k.distil(
            store=ctx.selector, max_batches=ctx.args.max_batches, progress=progress
        ),
    )
    if not ctx.args.json:
        ctx.print(
            f"{rep.store}: {rep.batches} batch(es), {rep.segments} segments → {len(rep.drafts)} draft(s), "
            f"{rep.dropped} dropped, {rep.seeds} seed(s), {rep.covered} already covered"
        )
        if rep.stopped:
            ctx.print(f"stopped: {rep.stopped}")
        for e in rep.errors:
            ctx.print(f"  ⚠ {e}")
        for r in rep.refused:
            ctx.print(f"  ⚠ not read: {r}")
    if (rep.shelved or rep.overran) and not rep.batches:
        return FAIL  # a stretch waits on the shelf (a model failed, or the time budget ran out)
    return OK if rep.did_work else NOTHING


def cmd_distill_drafts(ctx: Ctx) -> int:
    k = ctx.kura()
    view = k.drafts(store=ctx.selector)
    ds = view.drafts
    if ctx.args.json:
        ctx.json({"store": view.store, "drafts": [d.to_json() for d in ds]})
    else:
        for d in ds:
            ext = f" (extends {d.target})" if d.decision == DraftDecision.EXTENDS else ""
            ctx.print(f"{d.slug}{ext} — {d.description}")
            for q in d.quotes:
                if q.get("status") == "verified":
                    ctx.print(f"    [{q.get('cls')}] {str(q.get('text'))[:100]}")
        for name, why in view.problems:
            ctx.print(f"  ⚠ {name}: {why}")
        if not ds:
            ctx.print("no drafts waiting")
    return OK if ds else NOTHING


def cmd_distill_drain(ctx: Ctx) -> int:
    rep = _reported(ctx, lambda progress: ctx.kura().drain(store=ctx.selector, progress=progress))
    if not ctx.args.json:
        ctx.print(
            f"{rep.store}: poured {len(rep.poured)}, fixed {len(rep.fixed)}, tossed {len(rep.tossed)}, "
            f"kept {len(rep.kept)}" + (f", left {len(rep.left)}" if rep.left else "")
        )
        if rep.stopped:
            ctx.print(f"stopped: {rep.stopped}")
        for e in rep.errors:
            ctx.print(f"  ⚠ {e}")
    if rep.errors and not rep.did_work:
        return FAIL
    return OK if rep.did_work else NOTHING


def cmd_distill_pour(ctx: Ctx) -> int:
    a = ctx.args
    k = ctx.kura()
    if not a.all and not a.slug:
        raise UsageError("name a draft to pour (kura distill pour SLUG) or pass --all")
    if a.all and a.slug:
        raise UsageError("name one draft or pass --all, not both")
    slugs = [d.slug for d in k.drafts(store=ctx.selector).drafts] if a.all else [a.slug]
    poured = [k.pour(s, store=ctx.selector).slug for s in slugs]
    if a.json:
        ctx.json({"store": k.resolve(ctx.selector), "poured": poured})
    else:
        ctx.print(f"poured {', '.join(poured) if poured else 'nothing'}")
    return OK if poured else NOTHING


def cmd_distill_toss(ctx: Ctx) -> int:
    a = ctx.args
    k = ctx.kura()
    k.toss(a.slug, a.reason, store=ctx.selector)
    if a.json:
        ctx.json({"store": k.resolve(ctx.selector), "tossed": a.slug})
    else:
        ctx.print(f"tossed {a.slug} (kept in the gate log)")
    return OK


def cmd_distill_catchup(ctx: Ctx) -> int:
    rep = ctx.kura().catchup(store=ctx.selector)
    if ctx.args.json:
        ctx.json(rep.to_json())
    else:
        for m in rep.moved:
            ctx.print(f"{m.journal}: mark → {m.mark} {m.unit}")
        if not rep.moved:
            ctx.print("every mark is already at the present")
    return OK if rep.moved else NOTHING


def cmd_distill_tidy(ctx: Ctx) -> int:
    a = ctx.args
    rep = ctx.kura().tidy(store=ctx.selector, dry_run=a.dry_run)
    if a.dry_run:
        if a.json:
            ctx.json({"store": rep.store, "flagged": [dict(f) for f in rep.flagged]})
        else:
            for f in rep.flagged:
                ctx.print(f"{f['slug']}: {f['why']}\n    {f['line']}")
        return OK if rep.flagged else NOTHING
    if a.json:
        ctx.json(rep.to_json())
    else:
        for r in rep.rewritten:
            ctx.print(f"{r['slug']}:\n  - {r['old']}\n  + {r['new']}")
        for r in rep.refused:
            ctx.print(f"{r['slug']}: refused ({r['reason']})")
        for e in rep.errors:
            ctx.print(f"  ⚠ {e}")
        if not rep.flagged:
            ctx.print("every index line does its job")
    return OK if rep.did_work else NOTHING


def cmd_distill_night(ctx: Ctx) -> int:
    return ctx.kura().tend_forever(store=ctx.selector, out=ctx.err)


def cmd_tend(ctx: Ctx) -> int:
    k = ctx.kura()
    if ctx.args.once:
        res = k.tend_once(store=ctx.selector, out=None if ctx.args.json else ctx.err)
        tick = res.tick
        if ctx.args.json:
            ctx.json(res.to_json())
        else:
            what = ", ".join(tick.tracks) or "nothing"
            ctx.print(
                f"tend: {what}"
                + (f" — {tick.failed}" if tick.failed else "")
                + ("" if tick.tracks else f" ({'; '.join(tick.notes) or 'nothing to do'})")
            )
        return res.code
    return k.tend_forever(store=ctx.selector, out=ctx.err, poll_s=ctx.args.poll)


def cmd_serve(ctx: Ctx) -> int:
    from .http import serve_forever  # lazy: start-up (~50 ms more for every command)

    return serve_forever(ctx.registry(), ctx.args.host, ctx.args.port, log=ctx.err)


def cmd_mcp(ctx: Ctx) -> int:
    from .mcp import run_stdio  # lazy: start-up, as the server above

    return run_stdio(ctx.registry, ctx.selector, os.environ, err=ctx.err)


def cmd_weave(ctx: Ctx) -> int:
    res = ctx.kura().weave(store=ctx.selector)
    if ctx.args.json:
        ctx.json(res.to_json())
    else:
        lay = res.layers
        fresh = (
            "no setting fits"
            if res.fresh_days_used is None
            else f"{res.fresh_days_used} of {res.fresh_days} days"
        )
        ctx.print(
            f"{res.store}: {sum(lay.values())} lines (pinned {lay['pinned']} · fresh {lay['fresh']} · "
            f"trigger {lay['trigger']}) · ~{res.tokens_est} tokens of {res.budget_tokens} budget · "
            f"fresh window {fresh}"
        )
        ctx.print(
            f"  scribe calls {res.model_calls} · from the ledger {res.ledger_hits} · "
            f"mechanical {res.mechanical}" + (f" · ⚠ {res.model_error}" if res.model_error else "")
        )
        for slug, why in res.refused:
            ctx.print(f"  refused trigger for {slug}: {why}")
        if res.written:
            ctx.print(f"  {'unchanged' if res.unchanged else 'written'}: {res.path}")
    if res.warning:
        ctx.warn(f"kura: ⚠ {res.warning}")
    if not res.written:
        ctx.warn(f"kura: {res.reason}")
        return NOTHING
    return OK


def cmd_trail(ctx: Ctx) -> int:
    res = ctx.kura().trail(store=ctx.selector)
    if ctx.args.json:
        ctx.json(res.to_json())
    else:
        for line in res.lines:
            ctx.print(line)
        what = "rebuilt" if res.changed else "unchanged"
        ctx.warn(f"kura: hot trail of {res.store} {what}: {len(res.lines)} line(s), {res.path}")
    return OK if res.changed else NOTHING


def cmd_warm(ctx: Ctx) -> int:
    rep = ctx.kura().warm(store=ctx.selector)
    if ctx.args.json:
        ctx.json(rep.to_json())
    else:
        ctx.print(rep.line())
    return FAIL if rep.errors and not rep.warmed else OK


def cmd_prefill(ctx: Ctx) -> int:
    p = ctx.kura().prefill(store=ctx.selector)
    if ctx.args.json:
        ctx.json(p.to_json())
    else:
        ctx.print(p.text)
        if p.warning:
            ctx.warn(f"kura: {p.warning}")
    return OK


def cmd_bench(ctx: Ctx) -> int:
    a = ctx.args
    if a.what == "compress":
        return _bench_compress(ctx)
    if a.tokenizer_command:
        raise KuraError("--tokenizer-command is for kura bench compress")
    if a.what == "retention":
        return _bench_retention(ctx)
    if a.what == "models":
        return _bench_models(ctx)
    return _bench_perf(ctx)


def _bench_models(ctx: Ctx) -> int:
    from .. import bench  # lazy: the bench sits above the faces (and is heavy)

    a = ctx.args
    if a.limit is not None and a.limit < 1:
        raise KuraError("--limit needs at least 1 question")
    if not 1 <= a.k <= 10:
        raise KuraError("--k must be from 1 to 10")
    rep = bench.models_bench(ctx.registry(), limit=a.limit, k=a.k, save_verdict=not a.no_save)
    if a.json:
        ctx.json(rep)
    else:
        for line in bench.models_table(rep):
            ctx.print(line)
    return OK


def _bench_compress(ctx: Ctx) -> int:
    from .. import bench  # lazy: the bench sits above the faces (and is heavy)

    rep = bench.compress(ctx.registry(), ctx.selector, tokenizer_command=ctx.args.tokenizer_command)
    if ctx.args.json:
        ctx.json(rep)
    else:
        ratio = "—" if rep["store_ratio"] is None else f"{rep['store_ratio']:.4f}"
        ctx.print(
            f"{rep['store']}: store_ratio {ratio} ({rep['ratio_label']}) = {rep['memory_tokens']} memory + "
            f"{rep['index_tokens']} index tokens / {rep['raw_tokens_drunk']} journal tokens drunk "
            f"({rep['batches']} batches); {rep['memories_counted']} memories counted, "
            f"{rep['unattributed']} unattributed"
        )
        ctx.print(f"  counted by {rep['counted_by']}")
    return OK if rep["batches"] else NOTHING


def _bench_retention(ctx: Ctx) -> int:
    from .. import bench  # lazy: the bench sits above the faces (and is heavy)

    a = ctx.args
    if not a.questions:
        raise KuraError("kura bench retention needs --questions FILE (and --corpus FILE beside it)")
    rep = bench.retention(ctx.registry(), Path(a.questions), Path(a.corpus) if a.corpus else None)
    if a.json:
        ctx.json(rep)
    else:
        ctx.print(bench.score_line(rep))
        ctx.print(f"({rep['memories']} memories stored; passing needs {bench.PASS_SCORE})")
    if rep["score"] < bench.PASS_SCORE:
        ctx.warn(f"kura: retention score {round(rep['score'], 2)} is below {bench.PASS_SCORE}")
        return FAIL
    return OK


def _bench_perf(ctx: Ctx) -> int:
    from .. import bench  # lazy: the bench sits above the faces (and is heavy)

    a = ctx.args
    try:
        sizes = tuple(int(x) for x in a.sizes.split(",") if x.strip())
    except ValueError:
        raise KuraError(
            f"--sizes {a.sizes!r}: give store sizes as whole numbers, comma-separated"
        ) from None
    if not sizes or min(sizes) < 1 or a.runs < 1:
        raise KuraError("--sizes needs at least one size of 1 or more, and --runs at least 1")
    probes, skipped = [], None
    if not a.no_tui:
        try:  # the app offers its own figure when it is installed; the core never imports it
            from kura_tui import bench_probe
        except ImportError as exc:
            skipped = f"the TUI is not installed ({exc})"
        else:
            probes.append(bench_probe())
    say = None if a.json else (lambda m: ctx.err.write(f"  {m}…\n"))
    rep = bench.perf(
        sizes,
        runs=a.runs,
        http=not a.no_http,
        rss=not a.no_rss,
        probes=probes,
        progress=say,
        journal_mb=a.journal_mb,
    )
    if skipped:
        rep["tui"] = {"skipped": skipped}
    elif a.no_tui:
        rep["tui"] = None
    if a.out:
        Path(a.out).write_text(json.dumps(rep, indent=2) + "\n", encoding="utf-8")
    if a.json:
        ctx.json(rep)
    else:
        ctx.print(bench.perf_table(rep, probes))
    return OK


def cmd_doctor(ctx: Ctx) -> int:
    if ctx.args.all:
        every = ctx.kura().doctor_all(probe=ctx.args.probe)
        if ctx.args.json:
            ctx.json(every.to_json())
        else:
            for r in every.stores:
                ctx.print(doctor_text(r))
                ctx.print()
            for p in every.problems:
                ctx.warn(f"kura: {p}")
        return OK if every.ok else FAIL
    rep = ctx.kura().doctor(store=ctx.selector, probe=ctx.args.probe)
    if ctx.args.json:
        ctx.json(rep.to_json())
    else:
        ctx.print(doctor_text(rep))
    return OK if rep.ok else FAIL


def cmd_scrub(ctx: Ctx) -> int:
    """Redact the secrets a store already keeps; exit 2 when there are none."""
    a = ctx.args
    rep = ctx.kura().scrub(store=ctx.selector, backup=a.backup, dry_run=a.dry_run)
    if a.json:
        ctx.json(rep.to_json())
    elif not rep.scrubbed:
        ctx.print(f"no secrets are stored in {rep.store}")
    else:
        verb = "would redact" if rep.dry_run else "redacted"
        ctx.print(f"{rep.store}: {verb} {rep.summary()}")
        for s in rep.scrubbed:
            ctx.print(f"  {s.kind:<20} {s.place} line {s.line}")
        if rep.backup:
            ctx.print(f"originals kept in {rep.backup} (owner-only; delete it once checked)")
    return OK if rep.scrubbed else NOTHING


def cmd_connect(ctx: Ctx) -> int:
    return connect_body(ctx)


def cmd_tui(ctx: Ctx) -> int:
    """The full-screen TUI on the configured stores."""
    from kura_tui import run  # lazy: the app and textual load only when it opens

    reg = ctx.registry()
    if not reg.names():
        ctx.warn(
            "kura: no stores are configured. Try `kura demo` for a ready-made workspace, "
            "or `kura init NAME --path DIR` to start your own."
        )
        return FAIL
    reg.resolve(ctx.selector)
    return run(reg, store=ctx.selector, watch=not getattr(ctx.args, "no_watch", False))


def cmd_demo(ctx: Ctx) -> int:
    """Build (or reuse) the demo workspace and open the TUI on it. No model needed."""
    a = ctx.args
    from .. import build_demo, default_demo_dir  # lazy: start-up (the whole distiller)

    dest = Path(a.path).expanduser() if a.path else default_demo_dir()
    cfg = build_demo(dest, force=a.rebuild)
    if a.no_tui:
        if a.json:
            ctx.json({"config": str(cfg), "path": str(cfg.parent)})
        else:
            shown = Path(a.path) if a.path else cfg.parent
            ctx.print(f"demo workspace ready: {a.path or cfg.parent}")
            ctx.print(f"try: kura -c {shown / cfg.name} doctor --all")
        return OK
    from kura_tui import run  # lazy: the app and textual load only when it opens

    ctx._reg = Registry.open(cfg)
    return run(ctx._reg, store=ctx.selector, watch=not a.no_watch)


# --------------------------------------------------------------------------- parser


def _adapter_choices() -> list[str]:
    return list(Kura.journal_adapters())


#: how a command is added to the parser: name, handler, help; ``json_flag`` adds --json
AddCommand = Callable[..., argparse.ArgumentParser]


def build_parser() -> argparse.ArgumentParser:
    common = _common_options()
    p = argparse.ArgumentParser(
        prog="kura",
        description="kura — long-term memory for AI agents, distilled, not accumulated.",
        parents=[common],
    )
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    add = _adder(sub, common)
    _store_commands(add)
    _curation_commands(add)
    _evidence_commands(add)
    _distill_commands(sub, common)
    _service_commands(add)
    _bench_command(add)
    _app_commands(add)
    add_connect_parsers(add, cmd_connect)
    add_history_parsers(add)
    return p


def _adder(sub: Any, common: argparse.ArgumentParser) -> AddCommand:
    """How a group adds its commands to *sub*: each takes the *common* options (-c, -s),
    --json unless ``json_flag=False``, and runs its handler."""

    def add(
        name: str, fn: Callable[[Ctx], int], help: str, *, json_flag: bool = True
    ) -> argparse.ArgumentParser:
        sp = sub.add_parser(name, help=help, description=help, parents=[common])
        if json_flag:
            sp.add_argument("--json", action="store_true", help="print JSON for scripts")
        sp.set_defaults(fn=fn)
        return sp

    return add


def _common_options() -> argparse.ArgumentParser:
    """-c and -s, accepted before and after the command."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "-c",
        "--config",
        default=argparse.SUPPRESS,
        help="path to kura.toml (default: $KURA_CONFIG, ./kura.toml, ~/.config/kura/kura.toml)",
    )
    common.add_argument("-s", "--store", default=argparse.SUPPRESS, help="store or mode name")
    return common


def _store_commands(add: AddCommand) -> None:
    """Stores and their memories: init, stores, read, remember, annotate, profile, recall."""
    sp = add("init", cmd_init, "create a store and add it to the config")
    sp.add_argument("name")
    sp.add_argument("--path", required=True, help="directory for the store")
    sp.add_argument("--label", default="", help="a one-line description of the store")

    sp = add("stores", cmd_stores, "list stores, modes and model roles (with the last model error)")
    sp.add_argument(
        "--probe", action="store_true", help="also ask each model endpoint if it answers"
    )

    sp = add("read", cmd_read, "print one memory")
    sp.add_argument("slug")

    sp = add(
        "glance",
        cmd_glance,
        "a look at one memory by its exact slug in about 150 tokens: its map line, KEEP, links",
    )
    sp.add_argument("slug")

    sp = add(
        "remember",
        cmd_remember,
        "write a memory directly (only when write_policy = direct-allowed)",
    )
    sp.add_argument("slug")
    sp.add_argument("description")
    sp.add_argument("body", nargs="?", help="the body, or - to read it from stdin")
    sp.add_argument("--type", choices=list(MEMORY_TYPES))
    sp.add_argument("--title")
    sp.add_argument("--tag", action="append")
    _curation_args(sp)

    sp = add(
        "annotate",
        cmd_annotate,
        "set tags and the three curation sentences on an existing memory "
        "(through the same floors as the distiller's text)",
    )
    sp.add_argument("slug")
    sp.add_argument("--tag", action="append", help="add a tag (repeatable)")
    sp.add_argument("--untag", action="append", help="remove a tag (repeatable)")
    _curation_args(sp, clear=True)

    sp = add(
        "profile",
        cmd_profile,
        "the learned profile: show it, draft one from the store's memories, "
        "or apply the draft (a person's act)",
    )
    sp.add_argument("action", choices=["show", "draft", "apply"])
    sp.add_argument(
        "--file",
        help="apply: your own profile text from this file (- for stdin) "
        "instead of the waiting draft",
    )

    sp = add("recall", cmd_recall, "recall what bears on a question (exit 2 when nothing does)")
    sp.add_argument("question", nargs="+")
    sp.add_argument("--hops", type=int, default=None, help="how far to walk [[links]]")
    sp.add_argument("--top", type=int, default=None, help="at most this many picked memories")
    sp.add_argument("--chars", type=int, default=None, help="context budget in characters")


def _curation_commands(add: AddCommand) -> None:
    """A person's hands on a store: retire, relink, adopt."""
    sp = add("retire", cmd_retire, "retire a memory (the gate log keeps it whole, who and why)")
    sp.add_argument("slug")
    sp.add_argument("--reason", required=True, help="why it is retired (kept in the gate log)")
    how = sp.add_mutually_exclusive_group()
    how.add_argument(
        "--unlink", action="store_true", help="make the links other memories make to it plain text"
    )
    how.add_argument("--redirect", metavar="SLUG", help="point the links to it at this memory")

    sp = add(
        "relink",
        cmd_relink,
        "rewrite every [[link]] to a memory as plain text, or point it at another memory",
    )
    sp.add_argument("target", help="the slug the links name")
    sp.add_argument("--to", metavar="SLUG", help="point the links at this memory instead")

    add(
        "adopt",
        cmd_adopt,
        "write the index line of every memory file that has none (through the floors)",
    )

    sp = add(
        "seeds",
        cmd_seeds,
        "list ideas kept as seeds (exit 2 when none), or revive a withered one",
    )
    sp.add_argument(
        "--state",
        choices=("waiting", "graduated", "dismissed", "withered", "all"),
        default="all",
        help="only seeds in this state (default: all)",
    )
    sp.add_argument("--revive", type=int, metavar="ID", help="put a withered seed back to wait")
    sp.add_argument(
        "--wither",
        action="store_true",
        help="first wither the ideas past [distill] seed_wither_days or seed_wither_checks",
    )


def _evidence_commands(add: AddCommand) -> None:
    """The evidence gate and the journal inspector."""
    sp = add("gate", cmd_gate, "run the evidence gate on candidates without a model")
    sp.add_argument("--journal", required=True, help="the journal file the quotes must come from")
    sp.add_argument(
        "--adapter", choices=_adapter_choices(), help="default: detected from the content"
    )
    sp.add_argument("--candidates", required=True, help="JSON in the kura_candidates shape")

    sp = add(
        "journal",
        cmd_journal,
        "see what kura reads in a journal: classed segments, skipped records",
    )
    sp.add_argument("action", choices=["inspect", "context"])
    sp.add_argument("file", help="the journal file")
    sp.add_argument(
        "--adapter", choices=_adapter_choices(), help="default: detected from the content"
    )
    sp.add_argument(
        "--from",
        dest="start",
        type=int,
        default=0,
        help="inspect: start at this watermark (byte offset or record number)",
    )
    sp.add_argument("--at", type=int, default=None, help="context: the segment position to open")
    sp.add_argument("--radius", type=int, default=3, help="context: segments on each side")
    sp.add_argument("--full", action="store_true", help="print every segment's whole text")


def _distill_commands(sub: Any, common: argparse.ArgumentParser) -> None:
    """kura distill and its actions."""
    sp = sub.add_parser(
        "distill",
        help="distil journals into drafts, judge them, pour them",
        description="distil journals into drafts, judge them, pour them",
        parents=[common],
    )
    dsub = sp.add_subparsers(dest="action", metavar="ACTION", required=True)
    action = _adder(dsub, common)
    ap = action(
        "run",
        cmd_distill_run,
        "drink what is new in the journals into drafts (exit 2: nothing new)",
    )
    ap.add_argument("--max-batches", type=int, default=None, help="stop after this many batches")
    action(
        "drafts",
        cmd_distill_drafts,
        "list the drafts waiting, each with the quotes that vouch for it",
    )
    action("drain", cmd_distill_drain, "the scribe re-reads each draft cold: pour, fix or toss")
    ap = action(
        "pour", cmd_distill_pour, "pour a draft into the store by hand (through the floors)"
    )
    ap.add_argument("slug", nargs="?", help="the draft to pour")
    ap.add_argument("--all", action="store_true", help="pour every waiting draft")
    ap = action("toss", cmd_distill_toss, "toss a draft; the gate log keeps it with the reason")
    ap.add_argument("slug", help="the draft to toss")
    ap.add_argument("--reason", required=True, help="why it is tossed (kept in the gate log)")
    action("catchup", cmd_distill_catchup, "move every watermark to the present without drinking")
    ap = action(
        "tidy", cmd_distill_tidy, "rewrite index lines that do not do their job, through the floors"
    )
    ap.add_argument("--dry-run", action="store_true", help="list weak lines, rewrite nothing")
    action(
        "night",
        cmd_distill_night,
        "stay resident and tend the store (as kura tend)",
        json_flag=False,
    )


def _service_commands(add: AddCommand) -> None:
    """What runs for a host: tend, serve, mcp, weave, prefill."""
    sp = add(
        "tend",
        cmd_tend,
        "distil unattended whenever the journal goes quiet (one process per store)",
    )
    sp.add_argument(
        "--once", action="store_true", help="one tick: exit 0 did work, 2 nothing to do, 1 failure"
    )
    sp.add_argument("--poll", type=float, default=15.0, help="seconds between ticks when resident")

    sp = add(
        "serve",
        cmd_serve,
        "serve HTTP and MCP (/mcp) on loopback until SIGTERM/SIGINT",
        json_flag=False,
    )
    sp.add_argument(
        "--host", default=None, help="address to bind (default: [server] host, 127.0.0.1)"
    )
    sp.add_argument(
        "--port", type=int, default=None, help="port (default: [server] port, 8085; 0 = any)"
    )

    add(
        "mcp", cmd_mcp, "MCP over stdio (env: KURA_STORE, KURA_READONLY, KURA_URL)", json_flag=False
    )

    add(
        "weave",
        cmd_weave,
        "re-weave the index into the resident map (exit 2 when not written; a map over budget is still written, the lightest one, with a warning)",
    )

    add("prefill", cmd_prefill, "print the resident map block a host injects")
    add(
        "trail",
        cmd_trail,
        "rebuild the hot trail, the freshest index lines worn after the map (exit 2 when unchanged)",
    )
    add("warm", cmd_warm, "refill the thinker's prompt cache with the store's index")


def _bench_command(add: AddCommand) -> None:
    """kura bench."""
    sp = add(
        "bench",
        cmd_bench,
        "measure: compress (distiller ratio), retention (planted facts), perf, models (does "
        "each configured model help?)",
    )
    sp.add_argument("what", choices=["compress", "retention", "perf", "models"])
    sp.add_argument("--questions", help="retention: questions JSON (see shared bench fixtures)")
    sp.add_argument(
        "--corpus",
        help="retention: the transcript to distil (default: corpus.jsonl beside the questions)",
    )
    sp.add_argument("--sizes", default="500,5000,20000", help="perf: store sizes, comma-separated")
    sp.add_argument(
        "--runs", type=int, default=9, help="perf: runs per measurement (median reported)"
    )
    sp.add_argument("--no-http", action="store_true", help="perf: skip the HTTP throughput run")
    sp.add_argument(
        "--journal-mb",
        type=float,
        default=20.0,
        help="perf: size of the generated journal the gate is timed on (0 skips it)",
    )
    sp.add_argument("--no-tui", action="store_true", help="perf: skip the TUI first-paint run")
    sp.add_argument(
        "--no-rss", action="store_true", help="perf: skip the resident memory of kura serve"
    )
    sp.add_argument("--out", help="perf: also write the JSON report to this file")
    sp.add_argument(
        "--limit", type=int, help="models: ask this many of the built-in questions (default all)"
    )
    sp.add_argument("--k", type=int, default=3, help="models: hit@k counts the first k picked")
    sp.add_argument(
        "--no-save",
        action="store_true",
        help="models: do not write the thinker's verdict into the stores ([recall] thinker)",
    )
    sp.add_argument(
        "--tokenizer-command",
        metavar="CMD",
        help="compress: count the store side exactly with CMD (reads text on stdin, prints a "
        "token count); the ratio is then labelled mixed",
    )


def _app_commands(add: AddCommand) -> None:
    """The app, the demo workspace and the doctor."""
    sp = add("tui", cmd_tui, "the full-screen TUI (also: kura with no command)", json_flag=False)
    sp.add_argument("--no-watch", action="store_true", help="do not watch the stores for changes")

    sp = add("demo", cmd_demo, "build a demo workspace (no model needed) and open the TUI on it")
    sp.add_argument("--path", help="where to build it (default: ~/.local/share/kura/demo)")
    sp.add_argument(
        "--rebuild", action="store_true", help="rebuild the demo workspace from scratch"
    )
    sp.add_argument("--no-tui", action="store_true", help="only build it and print where it is")
    sp.add_argument("--no-watch", action="store_true", help="do not watch the stores for changes")

    sp = add("doctor", cmd_doctor, "health of a store (exit 1 when something is broken)")
    sp.add_argument("--all", action="store_true", help="every store")
    sp.add_argument(
        "--probe", action="store_true", help="also ask each model endpoint if it answers"
    )

    sp = add("scrub", cmd_scrub, "redact secrets already stored (originals kept outside the store)")
    sp.add_argument("--backup", default=None, help="where to keep the originals")
    sp.add_argument("--dry-run", action="store_true", help="only say what would be redacted")


def _curation_args(sp: argparse.ArgumentParser, *, clear: bool = False) -> None:
    tail = ' ("" clears it)' if clear else ""
    sp.add_argument(
        "--belongs-because",
        dest="belongs_because",
        default=None,
        help="one sentence: why this memory belongs in this store" + tail,
    )
    sp.add_argument(
        "--keep",
        default=None,
        help="one sentence: what meaning must outlive any later shortening" + tail,
    )
    sp.add_argument(
        "--may-fade",
        dest="may_fade",
        default=None,
        help="one sentence: what detail may fade" + tail,
    )


def _parse(argv: list[str]) -> argparse.Namespace:
    """The command line as a namespace, with the store and config always present."""
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    # argparse cannot place an optional positional after an option (`distill pour -s S SLUG`)
    if (
        extra
        and getattr(args, "slug", "x") is None
        and len(extra) == 1
        and not extra[0].startswith("-")
    ):
        args.slug, extra = extra[0], []
    if extra:
        parser.error("unrecognized arguments: " + " ".join(extra))
    for k in ("config", "store"):
        if not hasattr(args, k):
            setattr(args, k, None)
    if args.store is None and os.environ.get("KURA_STORE"):
        args.store = os.environ["KURA_STORE"]
    if getattr(args, "fn", None) is None:
        if not (sys.stdin.isatty() and sys.stdout.isatty()):
            parser.print_help()
            args.fn = None
        else:
            args.fn = cmd_tui
    return args


#: Commands whose refusals an agent may read (an MCP host passes a failed server's words on
#: to its model): an unknown store is refused there without naming the others.
AGENT_FACING = frozenset({"mcp", "hook"})


def _with_choices(ctx: Ctx, fn: Callable[[Ctx], int]) -> int:
    """Run a command; a store or mode it does not know is refused naming the ones there are.
    The core's refusal names none (an agent bound to one store learns nothing of the
    others over HTTP or MCP); a person at the command line reads their own config."""
    try:
        return fn(ctx)
    except SelectorError as exc:
        if ctx.args.command in AGENT_FACING:
            raise
        try:
            info = ctx.kura().stores()
        except KuraError:
            raise exc from None
        if not info.stores:
            raise
        names = ", ".join(s.name for s in info.stores)
        modes = ", ".join(f"{m} → {s}" for m, s in info.modes.items() if m != s)
        choice = f"stores: {names}" + (f"; modes: {modes}" if modes else "")
        raise SelectorError(f"{exc}; {choice}") from None


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["hook"]:  # an agent's hook: quick, fail-open, never a message
        from .. import run_hook

        return run_hook(argv[1:])
    args = _parse(argv)
    if args.fn is None:
        return OK  # help was printed
    ctx = Ctx(args)
    set_default_who(_WHO.get(getattr(args, "command", None) or "tui", "person (command line)"))
    try:
        return guarded(lambda: _with_choices(ctx, args.fn), ctx.warn)
    finally:
        if ctx._reg is not None:
            ctx._reg.close()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
