"""A small fixed workspace for the TUI tests: two stores, drafts with evidence, a gate log.

Everything is built with a frozen clock and a fixed day, at a fixed path, so the screens
(which show paths, ages and dates) are byte-identical run after run.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path

from kura_core.distill.drafts import body_digest, write_manifest
from kura_core.store import Store, seal_of
from kura_core.workshop import Workshop

FIXED_DAY = dt.date(2026, 11, 20)
FIXED_NOW = dt.datetime(2026, 11, 20, 9, 30, tzinfo=dt.UTC).timestamp()

MAKER = {
    "prefers-short-answers": (
        "Prefers short answers",
        "feedback",
        "answers first, detail after; no preamble, no recap at the end",
        "Lead with the answer. Detail goes after it, only if asked.\n\n"
        "Related: [[archive-on-slow-disk]]",
        "2026-02-01",
        [],
    ),
    "archive-on-slow-disk": (
        "Archive on the slow disk",
        "project",
        "the archive lives on the slow disk (sdb); the fast NVMe stays scratch — "
        "⚠️ never point backups at /scratch",
        "The archive goes on the slow disk. The fast disk is scratch space.\n\n"
        "**Why:** the other way round burns write endurance for nothing.\n"
        "Related: [[disk-layout]]",
        "2026-03-10",
        ["decision", "landmine"],
    ),
    "disk-layout": (
        "Disk layout of the workshop box",
        "reference",
        "sda 512 GB system, sdb 8 TB archive, nvme0 2 TB scratch; mounted under /srv",
        "Three disks: system, archive, scratch.\n\nRelated: [[archive-on-slow-disk]]",
        "2026-01-15",
        [],
    ),
    "kiln-firmware-3-2": (
        "Kiln controller firmware 3.2",
        "project",
        "kiln controller stuck at 3.1 until the vendor fixed the thermocouple offset; "
        "3.2 fixed it, flashed over USB, not over the network",
        "Firmware 3.2 fixed the thermocouple offset. Flash it over USB only.\n\n"
        "Related: [[disk-layout]]",
        "2026-11-12",
        ["decision"],
    ),
    "laser-cutter-air-assist": (
        "Laser cutter needs air assist",
        "project",
        "plywood cuts char without air assist at 18 psi; the compressor "
        "lives under the bench and must be drained weekly",
        "Without air assist the plywood chars. 18 psi is enough.\n\nRelated: [[kiln-firmware-3-2]]",
        "2026-05-02",
        [],
    ),
}

HOME = {
    "rice-cooker-water-line": (
        "炊飯器の水加減",
        "project",
        "玄米は目盛りより2mm多め、白米は目盛りどおり",
        "玄米は目盛りより少し多めに水を入れる。\n\nRelated: [[pantry-rotation]]",
        "2026-11-15",
        [],
    ),
    "pantry-rotation": (
        "Pantry rotation",
        "user",
        "oldest tins to the front; the pantry list lives on the fridge door",
        "Rotate the pantry: oldest to the front.\n\nRelated: [[rice-cooker-water-line]]",
        "2026-04-01",
        [],
    ),
}


def snapshot_root(home: Path) -> Path:
    """The workspace's directory: ``~/ws`` in the test's own home. The app writes the home
    directory as ``~``, so every test's screen shows the same paths (``~/ws/journals/…``)
    while each test has a directory of its own, under its own temporary home."""
    root = home / "ws"
    root.mkdir(parents=True)
    return root


def _memories(store, mems, extra=None) -> None:
    for slug, (title, type_, desc, body, created, tags) in mems.items():
        store.write(
            slug,
            title=title,
            description=desc,
            body=body,
            type=type_,
            tags=tags,
            meta={"metadata": {"created": created, **(extra or {}).get(slug, {})}},
        )


def _journal(path: Path, records: list[tuple[str, str]]) -> dict[str, dict]:
    """Write a Claude Code transcript; return {text: segment} as the adapter reads it back."""
    import json

    from kura_core.distill.journals import read_claude

    path.parent.mkdir(parents=True, exist_ok=True)
    lines = []
    for n, (kind, text) in enumerate(records):
        stamp = f"2026-11-19T21:{n:02d}:00Z"
        if kind == "user":
            msg = {
                "type": "user",
                "message": {"role": "user", "content": [{"type": "text", "text": text}]},
            }
        elif kind == "tool":
            msg = {
                "type": "user",
                "message": {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": f"t{n}",
                            "content": [{"type": "text", "text": text}],
                        }
                    ],
                },
            }
        else:
            msg = {
                "type": "assistant",
                "message": {"role": "assistant", "content": [{"type": "text", "text": text}]},
            }
        msg.update(sessionId="session-0412", timestamp=stamp)
        lines.append(json.dumps(msg, ensure_ascii=False))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return {
        seg.text: {
            "cls": seg.cls,
            "text": seg.text,
            "source": seg.source,
            "start": seg.start,
            "end": seg.end,
            "unit": seg.unit,
            "session_id": seg.session_id,
        }
        for seg in read_claude(path, 0).segments
    }


def _quote(seg: dict, text: str) -> dict:
    assert text in seg["text"], text
    return {
        "cls": seg["cls"],
        "text": text,
        "status": "verified",
        "source": seg["source"],
        "start": seg["start"],
        "end": seg["end"],
        "unit": "byte",
    }


def _draft(
    store,
    slug,
    title,
    desc,
    body,
    quotes,
    segments,
    *,
    tags=(),
    gate=None,
    label="",
    decision="new",
    target="",
    target_digest="",
    created="2026-11-19T21:04:00",
):
    from kura_core.distill.drafts import Draft, save_draft, write_manifest

    manifest = write_manifest(store, {"segments": segments})
    gate = gate or {
        "verdict": "kept",
        "reasons": [
            f"{len(quotes)} quote(s) verified ({', '.join(sorted({q['cls'] for q in quotes}))})"
        ],
        "violations": [],
        "tag_checks": {t: "ok" for t in tags},
    }
    return save_draft(
        store,
        Draft(
            slug=slug,
            title=title,
            description=desc,
            body=body,
            type="project",
            tags=tuple(tags),
            decision=decision,
            target=target,
            target_digest=target_digest,
            kind="judgement" if label else "fact",
            label=label,
            quotes=tuple(quotes),
            gate=gate,
            curation={
                "belongs_because": "this store keeps how the workshop's machines are run",
                "keep": "the interval and why",
                "may_fade": "the exact reading",
            },
            manifest=manifest,
            created=created,
            source=segments[0]["source"],
        ),
    )


KETTLE_USER = "let's descale the kettle every 90 days, the scale was awful"
KETTLE_TOOL = "scale layer measured: 2.1 mm on the element"
GLAZE_SELF = "I think the glaze cracks because the kiln cools too fast past quartz inversion"
KILN_TOOL = "kiln controller: firmware 3.2 flashed over USB; thermocouple offset now 0.0"
DISK_TOOL = "sdb: 8 TB archive, 5.1 TB used; weekly scrub finished clean"
JIG_SELF = "a jig for repeatable dovetails would save an evening per drawer"
PLANE_SELF = "sharpening the plane irons before every glue-up might stop the tear-out"
PLANE_USER = "yes, sharpen the plane irons before every glue-up from now on"
LASER_TOOL = "air assist regulator reads 18 psi; plywood cut clean at 18 psi"
PANTRY_USER = "the pantry list moved to the whiteboard by the door"


def build(root: Path) -> Path:
    """Write kura.toml and two stores under *root*; return the config path."""
    maker = Store(root / "maker", name="maker", today=lambda: FIXED_DAY)
    maker.init(label="maker mode — building things")
    home = Store(root / "home", name="home", today=lambda: FIXED_DAY)
    home.init(label="home — the household")
    _memories(home, HOME)

    segs = _journal(
        root / "journals" / "maker" / "session-0412.jsonl",
        [
            ("tool", KILN_TOOL),
            ("tool", LASER_TOOL),
            ("assistant", JIG_SELF),
            ("user", KETTLE_USER),
            ("tool", KETTLE_TOOL),
            ("assistant", "Noted; I will put it on the maintenance list."),
            ("assistant", GLAZE_SELF),
            ("tool", DISK_TOOL),
            ("assistant", PLANE_SELF),
            ("user", PLANE_USER),
            ("user", "and the bandsaw blade is due, remind me on Friday"),
        ],
    )
    home_segs = _journal(root / "journals" / "home" / "kitchen.jsonl", [("user", PANTRY_USER)])
    src = segs[KETTLE_USER]["source"]
    _sealed_memories(maker, segs)
    for j in (src, home_segs[PANTRY_USER]["source"]):
        os.utime(j, (FIXED_NOW - 3600, FIXED_NOW - 3600))

    _drafts(maker, home, segs, home_segs)
    _gate_log(maker, home)
    ws = Workshop(maker.still, clock=lambda: FIXED_NOW - 7200)
    _seeds(maker, ws, segs, src)
    _marks_and_tender(maker, ws, segs, src)
    return _config(root)


def _sealed_memories(maker: Store, segs: dict) -> None:
    """Two memories with their evidence: one as the gate passed it, one edited by hand since."""
    extra = {}
    for slug, seg, original in (
        ("kiln-firmware-3-2", segs[KILN_TOOL], None),
        (
            "laser-cutter-air-assist",
            segs[LASER_TOOL],
            "Without air assist the plywood chars.\n\nRelated: [[kiln-firmware-3-2]]",
        ),
    ):
        ref = write_manifest(maker, {"segments": [seg]})
        extra[slug] = {
            "evidence_manifest": ref,
            "evidence_seal": seal_of(original or MAKER[slug][3], {}),
        }
        if original:
            extra[slug]["hand_edited"] = {
                "at": "2026-11-18T19:12:00",
                "by": "ren (tui)",
                "fields": ["body"],
            }
    _memories(maker, MAKER, extra)


def _drafts(maker: Store, home: Store, segs: dict, home_segs: dict) -> None:
    _draft(
        maker,
        "descale-kettle-every-90-days",
        "Descale the kettle every 90 days",
        "descale the workshop kettle every 90 days; the element had 2.1 mm of scale",
        "Descale the kettle every 90 days. The element had 2.1 mm of scale when first checked.\n\n"
        "Related: [[disk-layout]]",
        [
            _quote(segs[KETTLE_USER], "descale the kettle every 90 days"),
            _quote(segs[KETTLE_TOOL], "scale layer measured: 2.1 mm"),
        ],
        [segs[KETTLE_USER], segs[KETTLE_TOOL]],
        tags=["decision"],
    )
    _draft(
        maker,
        "glaze-cracks-cooling",
        "Glaze cracks: cooling too fast (my judgement)",
        "my judgement: glaze crazing comes from cooling too fast through quartz inversion",
        "I judge that the crazing comes from cooling too fast past quartz inversion; not measured.",
        [_quote(segs[GLAZE_SELF], "the kiln cools too fast past quartz inversion")],
        [segs[GLAZE_SELF]],
        label="judgement",
        gate={
            "verdict": "kept",
            "reasons": ["kept as a first-person judgement: only SELF evidence survived"],
            "violations": [],
            "tag_checks": {"landmine": "needs a surviving TOOL quote"},
        },
        created="2026-11-19T21:06:00",
    )
    disk = maker.read("disk-layout")
    _draft(
        maker,
        "disk-layout-ext",
        "Disk layout of the workshop box",
        "sda 512 GB system, sdb 8 TB archive (5.1 TB used), nvme0 2 TB scratch; mounted under /srv",
        "Three disks: system, archive, scratch.\n\nThe archive disk holds 5.1 TB of its 8 TB; the weekly "
        "scrub finished clean.\n\nRelated: [[archive-on-slow-disk]]",
        [_quote(segs[DISK_TOOL], "sdb: 8 TB archive, 5.1 TB used")],
        [
            segs[DISK_TOOL],
            {
                "cls": "TOOL",
                "text": disk.description + "\n" + disk.body,
                "source": "memory:disk-layout",
                "start": 0,
                "end": 0,
                "unit": "byte",
            },
        ],
        decision="extends",
        target="disk-layout",
        target_digest=body_digest(disk.body),
        created="2026-11-19T21:08:00",
    )
    _draft(
        home,
        "pantry-list-whiteboard",
        "Pantry list on the whiteboard",
        "the pantry list moved from the fridge to the whiteboard by the door",
        "The pantry list now lives on the whiteboard by the door.\n\nRelated: [[pantry-rotation]]",
        [_quote(home_segs[PANTRY_USER], "the pantry list moved to the whiteboard")],
        [home_segs[PANTRY_USER]],
    )


def _gate_log(maker: Store, home: Store) -> None:
    for st, entries in (
        (
            maker,
            [
                (
                    FIXED_NOW - 3 * 3600,
                    "dropped",
                    "The user approved the new bandsaw",
                    "",
                    "no quote survived (2 not found)",
                    {"quotes": ["[USER] approved the bandsaw"]},
                ),
                (
                    FIXED_NOW - 2 * 3600,
                    "tossed",
                    "Coffee grinder burr size",
                    "coffee-grinder-burr",
                    "covered by grinder-settings already",
                    {"by": "scribe"},
                ),
                (
                    FIXED_NOW - 1 * 3600,
                    "refused",
                    "Kiln peak temperature",
                    "kiln-peak",
                    "number 1300 is not in the evidence (body)",
                    {"at": "fix", "by": "hand"},
                ),
                (
                    FIXED_NOW - 40 * 60,
                    "poured",
                    "Kiln controller firmware 3.2",
                    "kiln-firmware-3-2",
                    "poured by drain",
                    {"by": "drain"},
                ),
            ],
        ),
        (
            home,
            [
                (
                    FIXED_NOW - 5 * 3600,
                    "dropped",
                    "Buy more rice",
                    "",
                    "kind must be fact, judgement or idea",
                    {},
                ),
            ],
        ),
    ):
        for at, kind, title, slug, reason, detail in entries:
            Workshop(st.still, clock=lambda at=at: at).log_gate(
                kind, title=title, slug=slug, reason=reason, detail=detail
            )


def _seeds(maker: Store, ws: Workshop, segs: dict, src: str) -> None:
    # seeds: one still waiting, one that later evidence confirmed
    origin = lambda seg, text: {
        "text": text,
        "claimed": "SELF",
        "class": "SELF",
        "status": "verified",  # noqa: E731
        "where": {
            "source": seg["source"],
            "start": seg["start"],
            "end": seg["end"],
            "unit": "byte",
        },
    }
    ws.execute(
        "INSERT INTO seeds(at, title, body, quotes, state, source, updated) VALUES(?,?,?,?,?,?,?)",
        (
            FIXED_NOW - 7200,
            "A jig for repeatable dovetails",
            "an idea from the session",
            json.dumps([origin(segs[JIG_SELF], JIG_SELF)]),
            "waiting",
            src,
            FIXED_NOW - 7200,
        ),
    )
    sid = ws.execute(
        "INSERT INTO seeds(at, title, body, quotes, state, source, updated) VALUES(?,?,?,?,?,?,?)",
        (
            FIXED_NOW - 6 * 3600,
            "Sharpen the plane irons before each glue-up",
            "Sharp irons might stop the tear-out on the maple tops.",
            json.dumps([origin(segs[PLANE_SELF], PLANE_SELF)]),
            "graduated",
            src,
            FIXED_NOW - 1800,
        ),
    )
    confirm = {
        "text": PLANE_USER,
        "claimed": "USER",
        "class": "USER",
        "status": "verified",
        "where": {k: segs[PLANE_USER][k] for k in ("source", "start", "end", "unit")},
    }
    Workshop(maker.still, clock=lambda: FIXED_NOW - 1800).log_gate(
        "graduated",
        title="Sharpen the plane irons before each glue-up",
        slug="sharpen-plane-irons",
        reason="later evidence confirmed the idea",
        detail={
            "seed": sid,
            "draft": "sharpen-plane-irons",
            "journal": src,
            "batch": 3,
            "quotes": [confirm],
        },
    )


def _marks_and_tender(maker: Store, ws: Workshop, segs: dict, src: str) -> None:
    # the distiller's marks: a stretch shelved when the scribe was down, the rest not drunk yet
    key = f"claude:{Path(src).resolve()}"
    shelf_a, shelf_b = segs[KETTLE_USER]["start"], segs[GLAZE_SELF]["start"]
    ws.execute(
        "INSERT INTO watermarks(journal, adapter, unit, mark, reserved_to, updated) VALUES(?,?,?,?,?,?)",
        (key, "claude", "byte", shelf_a, shelf_b, FIXED_NOW - 3 * 3600),
    )
    ws.execute(
        "INSERT INTO reservations(journal, start, end, owner, state, reason, attempts, created, updated) "
        "VALUES(?,?,?,?,?,?,?,?,?)",
        (
            key,
            shelf_a,
            shelf_b,
            "workshop-box:4242:5e1f0a2b",
            "shelved",
            "scribe: connection refused (http://127.0.0.1:8080/v1)",
            2,
            FIXED_NOW - 3 * 3600,
            FIXED_NOW - 2 * 3600,
        ),
    )

    # a tender that is alive on another host (so its pid is not looked up here)
    ws.execute(
        "INSERT INTO heartbeat(name, pid, host, started, beat, state, counts) VALUES(?,?,?,?,?,?,?)",
        (
            "tend",
            4242,
            "workshop-box",
            FIXED_NOW - 6 * 3600,
            FIXED_NOW - 40,
            "resting",
            json.dumps(
                {"poured": 1, "tossed": 1, "fixed": 0, "drafted": 3, "tidied": 0, "woven": 1}
            ),
        ),
    )
    (maker.still / "tend.log").write_text(
        "2026-11-20T03:30:00 [maker] tender started (pid 4242)\n"
        "2026-11-20T05:30:00 [maker] distil: 2 batch(es) → 3 draft(s), 1 dropped\n"
        '2026-11-20T05:30:01 [maker] tick: {"did_work": true, "quiet": true, "tracks": ["run"], "counts": '
        '{"poured": 0, "tossed": 0, "fixed": 0, "drafted": 3, "tidied": 0, "woven": 0}, "notes": [], '
        '"failed": "", "stopped": ""}\n'
        "2026-11-20T06:30:00 [maker] distil: 0 batch(es) → 0 draft(s), 0 dropped — stopped: a model failed\n"
        "2026-11-20T08:50:00 [maker] drain: poured 1, fixed 0, tossed 1, kept 0\n"
        "2026-11-20T08:50:02 [maker] re-wove the map\n"
        '2026-11-20T08:50:02 [maker] tick: {"did_work": true, "quiet": true, "tracks": ["drain", "tidy", '
        '"weave"], "counts": {"poured": 1, "tossed": 1, "fixed": 0, "drafted": 3, "tidied": 0, "woven": 1}, '
        '"notes": [], "failed": "", "stopped": ""}\n',
        encoding="utf-8",
    )


def _config(root: Path) -> Path:
    cfg = root / "kura.toml"
    cfg.write_text(
        "[stores.maker]\n"
        f'path = "{root / "maker"}"\n'
        'label = "maker mode — building things"\n'
        "[stores.maker.journals]\n"
        f'claude = "{root / "journals" / "maker"}"\n'
        "[stores.maker.distill]\n"
        'human_names = ["Ren"]\n'
        "[stores.home]\n"
        f'path = "{root / "home"}"\n'
        'label = "home — the household"\n'
        "[stores.home.journals]\n"
        f'claude = "{root / "journals" / "home"}"\n'
        "[modes]\n"
        'build = "maker"\n',
        encoding="utf-8",
    )
    return cfg


def open_kura(cfg: Path):
    """A Kura over *cfg* with the clock and the calendar frozen, and no model."""
    from kura_core.config import load_config
    from kura_core.kura import Kura
    from kura_core.registry import Registry

    reg = Registry(load_config(cfg, {}), env={}, clock=lambda: FIXED_NOW, today=lambda: FIXED_DAY)
    return Kura(reg)


PROFILE_NOW = (
    "Ren builds things in the workshop and wants short answers.\n\n"
    "The kiln runs firmware that was flashed over USB, not over the network."
)
PROFILE_DRAFT = (
    "This room holds how Ren runs the workshop: the kiln, the laser cutter and the disks of the "
    "workshop box. Ren wants short answers.\n\n"
    "The kiln runs firmware that was flashed over USB, not over the network. Decisions are kept "
    "with why they were made, and the archive lives on the slow disk."
)


def with_profile(cfg: Path, model_url: str, *, draft: bool = True, store: str = "maker") -> None:
    """Give *store* an applied profile (a person's own text) and, when *draft*, a draft the
    brain wrote through the core, from a scripted model at *model_url* that answers
    ``kura_profile`` with PROFILE_DRAFT. The app itself is opened on *cfg* without a model."""
    from kura_core.config import load_config
    from kura_core.kura import Kura
    from kura_core.registry import Registry

    brain = cfg.with_name("kura-brain.toml")
    brain.write_text(
        cfg.read_text()
        + f'\n[models.brain]\nurl = "{model_url}"\nmodel = "scripted"\ntimeout = 5\n',
        encoding="utf-8",
    )
    with Kura(
        Registry(
            load_config(brain, {}), env={}, clock=lambda: FIXED_NOW - 1200, today=lambda: FIXED_DAY
        )
    ) as k:
        applied = k.profile_apply(store=store, text=PROFILE_NOW)
        os.utime(applied.path, (FIXED_NOW - 3 * 86400, FIXED_NOW - 3 * 86400))
        if draft:
            k.profile_draft(store=store)
    brain.unlink()
