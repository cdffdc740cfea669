"""How often redaction changes text that holds no secret: the share of segments changed on
the fixture journals, the demo sessions, and (a code-heavy stress corpus) every paragraph
of kura's own source, docs and tests. With ``--detect-secrets`` the same segments are also
scanned by detect-secrets (``pip install detect-secrets``), each as its own file with its
default plugins and filters, for comparison.

    python scripts/secrets_false_positives.py [--detect-secrets]
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import yaml

import kura_core.distill.journals.base as base
from kura_core.distill.journals import read_journal
from kura_core.secrets import BUILTIN, Redaction

ROOT = Path(__file__).resolve().parent.parent


class _AsRead:
    """Rules that change nothing: the adapters hand back the journal's own text."""

    def redact(self, text: str) -> Redaction:
        return Redaction(text)


def fixture_segments() -> list[str]:
    base.active_rules = lambda: _AsRead()
    out: list[str] = []
    for p in sorted((ROOT / "tests" / "fixtures" / "journals").rglob("*")):
        if not p.is_file() or "storage" in p.parts:
            continue
        for adapter in (None, "text"):
            try:
                _, read = read_journal(p, adapter)
            except Exception:
                continue
            out += [s.text for s in read.segments]
            break
    return out


def demo_segments() -> list[str]:
    out: list[str] = []
    data = ROOT / "kura_core" / "demo" / "data"
    for f in sorted(data.glob("*/sessions.yaml")):
        for session in yaml.safe_load(f.read_text(encoding="utf-8")):
            for turn in session["turns"]:
                for k, v in turn.items():
                    if k in ("user", "self", "tool"):
                        out.append(str(v))
                    elif k == "act":
                        out.append(json.dumps(v.get("input", {}), ensure_ascii=False))
    return out


def code_segments() -> list[str]:
    files = [*ROOT.joinpath("kura_core").rglob("*.py"), *ROOT.joinpath("docs").glob("*.md")]
    files += ROOT.joinpath("tests").rglob("*.py")
    out: list[str] = []
    for p in sorted(files):
        if "secret" not in p.name:
            out += [part for part in p.read_text(encoding="utf-8").split("\n\n") if part.strip()]
    return out


def detect_secrets_share(texts: list[str]) -> tuple[int, Counter[str], float]:
    from detect_secrets.core.scan import scan_file
    from detect_secrets.settings import default_settings

    hit, kinds = 0, Counter[str]()
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as d, default_settings():
        for i, text in enumerate(texts):
            p = Path(d) / f"s{i}.txt"
            p.write_text(text, encoding="utf-8")
            found = list(scan_file(str(p)))
            hit += bool(found)
            kinds.update(s.type for s in found)
    return hit, kinds, time.perf_counter() - t0


def main(argv: list[str]) -> int:
    report: dict[str, Any] = {}
    for name, segs in (
        ("fixture journals", fixture_segments()),
        ("demo sessions", demo_segments()),
        ("kura source, docs and tests", code_segments()),
    ):
        t0 = time.perf_counter()
        changed = [s for s in segs if BUILTIN.redact(s).changed]
        took = time.perf_counter() - t0
        row = {
            "segments": len(segs),
            "chars": sum(map(len, segs)),
            "changed": len(changed),
            "share": round(len(changed) / max(1, len(segs)), 4),
            "seconds": round(took, 3),
            "kinds": sorted({k for s in changed for k in BUILTIN.redact(s).kinds()}),
        }
        if "--detect-secrets" in argv:
            hit, kinds, ds_took = detect_secrets_share(segs)
            row["detect_secrets"] = {
                "flagged": hit,
                "share": round(hit / max(1, len(segs)), 4),
                "seconds": round(ds_took, 3),
                "kinds": dict(kinds),
            }
        report[name] = row
    print(json.dumps(report, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
