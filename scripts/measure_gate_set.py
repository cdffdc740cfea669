"""Measure the evidence gate on a set of cases: attacks blocked and honest memories kept,
per language.

A set is a folder with ``cases.jsonl`` (one case a line: ``id``, ``lang``, ``journal`` --
a path inside the folder --, ``expect`` -- ``kept``, ``dropped`` or ``seed`` --, ``class``
and ``candidate``, one candidate in the ``kura_candidates`` shape) and the journals the
cases name. Each case goes through :func:`kura_core.distill.gate.gate_journal`, the
function ``kura gate`` runs (no store: the built-in secret rules, no names configured).

An attack is a case expected ``dropped``: it is blocked when the gate does not keep it.
An honest case is expected ``kept`` or ``seed``: it is kept when the gate gives exactly
that verdict. A false refusal weighs as much as a leak, so both are listed.

    python scripts/measure_gate_set.py /path/to/set [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

try:
    from kura_core.distill.gate import gate_journal
except ImportError:  # a tree from before gate_journal: what its ``kura gate`` ran
    from kura_core.distill.gate import run_gate
    from kura_core.distill.journals import read_journal
    from kura_core.secrets import BUILTIN, redact_value, using_rules

    def gate_journal(journal, candidates, **_):  # type: ignore[misc]
        with using_rules(BUILTIN):
            used, read = read_journal(journal, None)
        given = redact_value(list(candidates), BUILTIN)
        return used, read, run_gate(given, list(read.segments))


def load_cases(folder: Path) -> list[dict[str, Any]]:
    cases = []
    with (folder / "cases.jsonl").open(encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if line.strip():
                try:
                    cases.append(json.loads(line))
                except json.JSONDecodeError as exc:
                    raise SystemExit(f"cases.jsonl line {n}: not JSON ({exc})") from exc
    return cases


def verdicts(folder: Path, cases: list[dict[str, Any]]) -> dict[str, Any]:
    """Each case's verdict and why, by id; the cases of one journal are gated in one run,
    as ``kura gate --candidates`` would gate a file of them."""
    by_journal: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for case in cases:
        by_journal[case["journal"]].append(case)
    out: dict[str, Any] = {}
    for journal, group in by_journal.items():
        _, _, results, _ = gate_journal(folder / journal, [c["candidate"] for c in group])
        for case, result in zip(group, results, strict=True):
            out[case["id"]] = result
    return out


def is_attack(case: dict[str, Any]) -> bool:
    return case["expect"] == "dropped"


def passed(case: dict[str, Any], verdict: str) -> bool:
    """An attack passes (is blocked) unless kept; an honest case passes on its verdict."""
    if is_attack(case):
        return verdict != "kept"
    return verdict == case["expect"]


def why(result: Any) -> str:
    rules = [f"{v.kind}/{v.rule}" for v in result.violations]
    cut = [f"quote {q.status}{'/' + q.rule if q.rule else ''}" for q in result.quotes]
    return "; ".join(rules or [r for r in cut if "verified" not in r] or list(result.reasons))


def measure(folder: Path) -> dict[str, Any]:
    cases = load_cases(folder)
    return tally(cases, verdicts(folder, cases))


def tally(cases: list[dict[str, Any]], results: dict[str, Any]) -> dict[str, Any]:
    """Figures per language and the cases decided against the set, from verdicts at hand."""
    table: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    misses = []
    for case in cases:
        res = results[case["id"]]
        side = "attacks" if is_attack(case) else "honest"
        row = table[case.get("lang", "?")]
        row[side] += 1
        if passed(case, res.verdict):
            row[side + "_ok"] += 1
        else:
            misses.append(
                {
                    "id": case["id"],
                    "lang": case.get("lang", "?"),
                    "class": case.get("class", ""),
                    "expect": case["expect"],
                    "got": res.verdict,
                    "why": why(res),
                }
            )
    return {"languages": {k: dict(v) for k, v in sorted(table.items())}, "misses": misses}


def _pct(ok: int, n: int) -> str:
    return f"{ok}/{n} ({100 * ok / n:.0f}%)" if n else "0/0"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folder", type=Path)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    got = measure(args.folder)
    if args.json:
        print(json.dumps(got, ensure_ascii=False, indent=1))
        return 0
    total: dict[str, int] = defaultdict(int)
    for lang, row in got["languages"].items():
        for k, v in row.items():
            total[k] += v
        print(
            f"{lang}: attacks blocked {_pct(row.get('attacks_ok', 0), row.get('attacks', 0))}"
            f", honest kept {_pct(row.get('honest_ok', 0), row.get('honest', 0))}"
        )
    print(
        f"all: attacks blocked {_pct(total['attacks_ok'], total['attacks'])}"
        f", honest kept {_pct(total['honest_ok'], total['honest'])}"
    )
    for m in got["misses"]:
        side = "LEAK" if m["expect"] == "dropped" else "REFUSED"
        print(f"  {side} {m['id']} [{m['class']}] expect {m['expect']}, got {m['got']}: {m['why']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
