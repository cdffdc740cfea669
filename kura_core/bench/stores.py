"""Synthetic stores for the benchmarks: generated fast, deterministic, never a real memory.

* ``generate_store`` writes *n* dated memories drawn from a 24-word vocabulary, in sectors
  of 250, each with an index line of about 57 tokens and one ``[[link]]``;
* ``generate_workspace`` adds a kura.toml and waiting drafts with evidence manifests, the
  shape the curation app opens;
* ``QUESTIONS`` are asked in the same vocabulary, so the word tier really ranks postings.
"""

from __future__ import annotations

import datetime as dt
import os
import random
import shutil
from pathlib import Path

from ..distill.drafts import Draft, save_draft, write_manifest
from ..store import INDEX_FILE, Store
from ..vocabulary import ProvenanceClass

WORDS = (
    "archive",
    "disk",
    "deploy",
    "kettle",
    "router",
    "garden",
    "invoice",
    "backup",
    "camera",
    "cluster",
    "printer",
    "pantry",
    "laptop",
    "schedule",
    "recipe",
    "tenant",
    "license",
    "mirror",
    "sensor",
    "ticket",
    "budget",
    "harbor",
    "violin",
    "ledger",
)

#: questions in the generated stores' vocabulary, so the word tier really ranks postings
QUESTIONS = (
    "where did the archive move after the tries",
    "which kettle stays with the router",
    "the garden invoice and the backup",
    "what happened to the camera cluster",
    "is the printer still in the pantry",
    "the laptop schedule for the recipe",
    "tenant license and the mirror sensor",
    "which ticket moved the budget",
    "harbor violin ledger",
)

#: the day generated workspaces are dated from, so a workspace looks the same on any day
TODAY = dt.date(2026, 11, 20)


def generate_store(
    root: str | os.PathLike, n: int, *, today: dt.date | None = None, seed: int = 7
) -> Path:
    """Write a store of *n* dated memories under *root* (a fresh directory), quickly."""
    rng = random.Random(seed)
    today = today or dt.date.today()
    root = Path(root)
    (root / "_still").mkdir(parents=True, exist_ok=True)
    lines = [f"# {root.name}", ""]
    for i in range(n):
        if i % 250 == 0:
            lines += ["", f"## Sector {i // 250 + 1}", ""]
        w = [rng.choice(WORDS) for _ in range(30)]
        slug = f"{w[0]}-{w[1]}-{i}"
        title = f"{w[0].title()} {w[1]} {i}"
        desc = (
            f"the {w[2]} {w[3]} moved to the {w[4]} after {rng.randint(2, 90)} tries; "
            f"{' '.join(w[5:14])} and the {w[14]} stays with the {w[15]} "
            f"{' '.join(w[16:24])}"
        )
        kind = "feedback" if i % 40 == 0 else "project"
        created = today - dt.timedelta(days=rng.randint(0, 900))
        (root / f"{slug}.md").write_text(
            f"---\nname: {slug}\ndescription: {desc}\nmetadata:\n  type: {kind}\n"
            f"  created: {created.isoformat()}\n---\n\n{desc}.\n\nRelated: [[{slug}]]\n",
            encoding="utf-8",
        )
        lines.append(f"- [{title}]({slug}.md) — {desc}")
    (root / INDEX_FILE).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


def generate_workspace(workdir: str | os.PathLike, n_memories: int, n_drafts: int) -> Path:
    """A fresh workspace with one store ("bench") of generated memories and *n_drafts*
    waiting drafts, each with its evidence manifest; returns its kura.toml."""

    root = Path(workdir)
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    store_dir = generate_store(root / "bench", n_memories, today=TODAY)
    st = Store(store_dir, name="bench", today=lambda: TODAY)
    st.init()
    src = str(root / "journals" / "session.jsonl")
    for i in range(n_drafts):
        user = f"we settled on rotating the backup disk every {i % 90 + 2} days for the shed"
        tool = f"disk check: {i % 500 + 10} GB free on the backup volume"
        manifest = write_manifest(
            st,
            {
                "segments": [
                    {
                        "cls": ProvenanceClass.USER,
                        "text": user,
                        "source": src,
                        "start": i * 400,
                        "end": i * 400 + 120,
                        "unit": "byte",
                    },
                    {
                        "cls": ProvenanceClass.TOOL,
                        "text": tool,
                        "source": src,
                        "start": i * 400 + 150,
                        "end": i * 400 + 260,
                        "unit": "byte",
                    },
                ]
            },
        )
        quotes = (
            {
                "cls": ProvenanceClass.USER,
                "text": user[9:60],
                "status": "verified",
                "source": src,
                "start": i * 400,
                "end": i * 400 + 120,
                "unit": "byte",
            },
            {
                "cls": ProvenanceClass.TOOL,
                "text": tool,
                "status": "verified",
                "source": src,
                "start": i * 400 + 150,
                "end": i * 400 + 260,
                "unit": "byte",
            },
        )
        save_draft(
            st,
            Draft(
                slug=f"backup-rotation-{i}",
                title=f"Backup rotation {i}",
                description=f"rotate the shed backup disk every {i % 90 + 2} days; {i % 500 + 10} GB free",
                body=f"Rotate the backup disk every {i % 90 + 2} days.",
                tags=("decision",),
                quotes=quotes,
                gate={
                    "verdict": "kept",
                    "reasons": ["2 quote(s) verified (TOOL, USER)"],
                    "violations": [],
                    "tag_checks": {"decision": "ok"},
                },
                manifest=manifest,
                created=f"2026-11-19T10:{i % 60:02d}:00",
                source=src,
            ),
        )
    cfg = root / "kura.toml"
    cfg.write_text(f'[stores.bench]\npath = "{store_dir}"\n', encoding="utf-8")
    return cfg
