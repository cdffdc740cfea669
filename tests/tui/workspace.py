"""A small fixed workspace for the TUI tests: two stores, drafts with evidence, a gate log.

Everything is built with a frozen clock and a fixed day, at a fixed path, so the screens
(which show paths, ages and dates) are byte-identical run after run.
"""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path

FIXED_DAY = dt.date(2026, 11, 20)
FIXED_NOW = dt.datetime(2026, 11, 20, 9, 30, tzinfo=dt.timezone.utc).timestamp()

MAKER = {
    "prefers-short-answers": ("Prefers short answers", "feedback",
                              "answers first, detail after; no preamble, no recap at the end",
                              "Lead with the answer. Detail goes after it, only if asked.\n\n"
                              "Related: [[archive-on-slow-disk]]", "2026-02-01", []),
    "archive-on-slow-disk": ("Archive on the slow disk", "project",
                             "the archive lives on the slow disk (sdb); the fast NVMe stays scratch — "
                             "⚠️ never point backups at /scratch",
                             "The archive goes on the slow disk. The fast disk is scratch space.\n\n"
                             "**Why:** the other way round burns write endurance for nothing.\n"
                             "Related: [[disk-layout]]", "2026-03-10", ["decision", "landmine"]),
    "disk-layout": ("Disk layout of the workshop box", "reference",
                    "sda 512 GB system, sdb 8 TB archive, nvme0 2 TB scratch; mounted under /srv",
                    "Three disks: system, archive, scratch.\n\nRelated: [[archive-on-slow-disk]]",
                    "2026-01-15", []),
    "kiln-firmware-3-2": ("Kiln controller firmware 3.2", "project",
                          "kiln controller stuck at 3.1 until the vendor fixed the thermocouple offset; "
                          "3.2 fixed it, flashed over USB, not over the network",
                          "Firmware 3.2 fixed the thermocouple offset. Flash it over USB only.\n\n"
                          "Related: [[disk-layout]]", "2026-11-12", ["decision"]),
    "laser-cutter-air-assist": ("Laser cutter needs air assist", "project",
                                "plywood cuts char without air assist at 18 psi; the compressor "
                                "lives under the bench and must be drained weekly",
                                "Without air assist the plywood chars. 18 psi is enough.\n\n"
                                "Related: [[kiln-firmware-3-2]]", "2026-05-02", []),
}

HOME = {
    "rice-cooker-water-line": ("炊飯器の水加減", "project",
                               "玄米は目盛りより2mm多め、白米は目盛りどおり",
                               "玄米は目盛りより少し多めに水を入れる。\n\nRelated: [[pantry-rotation]]",
                               "2026-11-15", []),
    "pantry-rotation": ("Pantry rotation", "user",
                        "oldest tins to the front; the pantry list lives on the fridge door",
                        "Rotate the pantry: oldest to the front.\n\nRelated: [[rice-cooker-water-line]]",
                        "2026-04-01", []),
}


def snapshot_root(name: str) -> Path:
    """A fixed, empty directory for one test (fixed so the paths on screen are fixed)."""
    root = Path("/tmp/kura-tui-tests") / name
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    return root


def _memories(store, mems) -> None:
    for slug, (title, type_, desc, body, created, tags) in mems.items():
        store.write(slug, title=title, description=desc, body=body, type=type_, tags=tags,
                    meta={"metadata": {"created": created}})


def _segment(cls: str, text: str, source: str, start: int) -> dict:
    return {"cls": cls, "text": text, "source": source, "start": start,
            "end": start + len(text.encode()) + 40, "unit": "byte"}


def _draft(store, slug, title, desc, body, quotes, segments, *, tags=(), gate=None, label="",
           decision="new", target="", created="2026-11-19T21:04:00"):
    from kura_core.distill.drafts import Draft, save_draft, write_manifest

    manifest = write_manifest(store, {"segments": segments})
    gate = gate or {"verdict": "kept",
                    "reasons": [f"{len(quotes)} quote(s) verified "
                                f"({', '.join(sorted({q['cls'] for q in quotes}))})"],
                    "violations": [], "tag_checks": {t: "ok" for t in tags}}
    return save_draft(store, Draft(
        slug=slug, title=title, description=desc, body=body, type="project", tags=tuple(tags),
        decision=decision, target=target, kind="judgement" if label else "fact", label=label,
        quotes=tuple(quotes), gate=gate,
        curation={"belongs_because": "this store keeps how the workshop's machines are run",
                  "keep": "the interval and why", "may_fade": "the exact reading"},
        manifest=manifest, created=created, source=segments[0]["source"]))


def build(root: Path) -> Path:
    """Write kura.toml and two stores under *root*; return the config path."""
    from kura_core.store import Store
    from kura_core.workshop import Workshop

    maker = Store(root / "maker", name="maker", today=lambda: FIXED_DAY)
    maker.init(label="maker mode — building things")
    _memories(maker, MAKER)
    home = Store(root / "home", name="home", today=lambda: FIXED_DAY)
    home.init(label="home — the household")
    _memories(home, HOME)

    src = str(root / "journals" / "session-0412.jsonl")
    u1 = "let's descale the kettle every 90 days, the scale was awful"
    t1 = "scale layer measured: 2.1 mm on the element"
    q = lambda cls, text, start: {"cls": cls, "text": text, "status": "verified", "source": src,  # noqa: E731
                                  "start": start, "end": start + len(text.encode()) + 40, "unit": "byte"}
    _draft(maker, "descale-kettle-every-90-days", "Descale the kettle every 90 days",
           "descale the workshop kettle every 90 days; the element had 2.1 mm of scale",
           "Descale the kettle every 90 days. The element had 2.1 mm of scale when first checked.\n\n"
           "Related: [[disk-layout]]",
           [q("USER", "descale the kettle every 90 days", 1204), q("TOOL", "scale layer measured: 2.1 mm", 1388)],
           [_segment("USER", u1, src, 1204), _segment("TOOL", t1, src, 1388)], tags=["decision"])
    s1 = "I think the glaze cracks because the kiln cools too fast past quartz inversion"
    _draft(maker, "glaze-cracks-cooling", "Glaze cracks: cooling too fast (my judgement)",
           "my judgement: glaze crazing comes from cooling too fast through quartz inversion",
           "I judge that the crazing comes from cooling too fast past quartz inversion; not measured.",
           [q("SELF", "the kiln cools too fast past quartz inversion", 2210)],
           [_segment("SELF", s1, src, 2210)], label="judgement",
           gate={"verdict": "kept", "reasons": ["kept as a first-person judgement: only SELF evidence survived"],
                 "violations": [], "tag_checks": {"landmine": "needs a surviving TOOL quote"}},
           created="2026-11-19T21:06:00")
    u2 = "the pantry list moved to the whiteboard by the door"
    _draft(home, "pantry-list-whiteboard", "Pantry list on the whiteboard",
           "the pantry list moved from the fridge to the whiteboard by the door",
           "The pantry list now lives on the whiteboard by the door.\n\nRelated: [[pantry-rotation]]",
           [q("USER", "the pantry list moved to the whiteboard", 88)], [_segment("USER", u2, src, 88)])

    for st, entries in ((maker, [
        (FIXED_NOW - 3 * 3600, "dropped", "The user approved the new bandsaw", "",
         "no quote survived (2 not found)", {"quotes": ["[USER] approved the bandsaw"]}),
        (FIXED_NOW - 2 * 3600, "tossed", "Coffee grinder burr size", "coffee-grinder-burr",
         "covered by grinder-settings already", {"by": "scribe"}),
        (FIXED_NOW - 1 * 3600, "refused", "Kiln peak temperature", "kiln-peak",
         "number 1300 is not in the evidence (body)", {"at": "fix", "by": "hand"}),
        (FIXED_NOW - 40 * 60, "poured", "Kiln controller firmware 3.2", "kiln-firmware-3-2",
         "poured by drain", {"by": "drain"}),
    ]), (home, [
        (FIXED_NOW - 5 * 3600, "dropped", "Buy more rice", "", "kind must be fact, judgement or idea", {}),
    ])):
        for at, kind, title, slug, reason, detail in entries:
            Workshop(st.still, clock=lambda at=at: at).log_gate(kind, title=title, slug=slug,
                                                                  reason=reason, detail=detail)
    ws = Workshop(maker.still, clock=lambda: FIXED_NOW - 7200)
    ws.execute("INSERT INTO seeds(at, title, body, state, source, updated) VALUES(?,?,?,?,?,?)",
               (FIXED_NOW - 7200, "A jig for repeatable dovetails", "an idea from the session",
                "waiting", src, FIXED_NOW - 7200))

    cfg = root / "kura.toml"
    cfg.write_text(
        "[stores.maker]\n"
        f'path = "{root / "maker"}"\n'
        'label = "maker mode — building things"\n'
        "[stores.home]\n"
        f'path = "{root / "home"}"\n'
        'label = "home — the household"\n'
        "[modes]\n"
        'build = "maker"\n', encoding="utf-8")
    return cfg


def open_kura(cfg: Path):
    """A Kura over *cfg* with the clock and the calendar frozen, and no model."""
    from kura_core.config import load_config
    from kura_core.kura import Kura
    from kura_core.registry import Registry

    reg = Registry(load_config(cfg, {}), env={}, clock=lambda: FIXED_NOW, today=lambda: FIXED_DAY)
    return Kura(reg)
