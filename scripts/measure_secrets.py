"""Run a corpus of journals that hold fake secrets, look-alikes and ``<private>`` spans
through every door kura has and count what stays out and what stays in.

A corpus is a directory with ``journals/`` (agent transcripts in their own formats),
``manifest.jsonl`` (one ``{"kind": "secret"|"lookalike"|"private", "value": ...}`` a line,
``file`` optional) and optionally ``honest.jsonl`` (candidates in the ``kura_candidates``
shape, each with the ``journal`` it quotes, that an honest model would write beside the
secrets). The doors:

* ``inspect``: ``kura journal inspect FILE --json`` (what a person sees of a journal);
* ``gate``: ``kura gate --json`` with candidates that copy each secret into their title,
  body and quote (as a model that saw the raw text would) and the honest candidates;
* ``distil``: a whole distil and drain against the scripted model of ``tests/fakes`` whose
  brain proposes one candidate per evidence line: every byte kura sent to the model and
  every byte it wrote into the store (memory files, index, drafts, evidence manifests,
  the workshop database), which HTTP and MCP answer from.

A secret (or private span) *leaks* through a door when the door's output holds it whole,
JSON-escaped or percent-encoded, or any run of 8 of its characters (20, for a private
span: prose shares words with what else is said). A look-alike is
*kept* when ``journal inspect`` shows it whole. An honest candidate is *kept* when the gate
does not drop it.

    python scripts/measure_secrets.py CORPUS_DIR [--json] [--doors inspect,gate,distil]
    python scripts/measure_secrets.py --samples     # the corpus of tests/core/secret_samples
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

KURA = [sys.executable, "-m", "kura_core"]
_RUN = re.compile(r"[A-Za-z0-9]{12,}")


@dataclass
class Item:
    kind: str
    value: str
    file: str = ""
    note: str = ""
    decoded: str = ""
    secret_part: str = ""
    #: the secret part counts only whole: it is also a public word of the same value
    #: (postgres:postgres@, the password equal to the user name)
    whole_only: bool = False
    #: the journal's text with this value taken out: a run of the *decoded* value that the
    #: journal also says elsewhere (the user name of a base64 ``user:token``) proves nothing
    context: str = ""
    #: every journal of the corpus with this value taken out: a window of plain letters
    #: that it also says (/services beside service.json) is a word, not a leak
    corpus: str = ""
    leaks: set[str] = field(default_factory=set)

    def forms(self, common: str) -> set[str]:
        """What of this item may not appear: the whole value (as written, JSON-escaped,
        percent-encoded) and every run of 8 of its characters (of the random part when
        the value carries armour or a URL), except runs that boilerplate or a look-alike
        also holds (*common*)."""
        v = self.value
        out = {v, json.dumps(v, ensure_ascii=False)[1:-1], json.dumps(v)[1:-1]}
        out.add(quote(v, safe=""))
        if self.whole_only:
            return {f for f in out | {self.secret_part} if f}
        cores = [self.secret_part or v]
        if self.decoded and not self.secret_part:
            cores.append(self.decoded)
        # a secret leaks by any 8 of its characters; a private span is prose, and shares
        # words with everything else said: it leaks by any 20 of its characters in a row
        size = 20 if self.kind == "private" else 8
        for n, core in enumerate(cores):
            for i in range(max(1, len(core) - size + 1)):
                w = core[i : i + size]
                if _BOILERPLATE.search(w if size == 8 else w[:8]) or w in common:
                    continue
                if n and w in self.context:
                    continue
                if _WORDLIKE.fullmatch(w) and w in self.corpus:
                    continue  # a word the journal also says elsewhere (/services, service.json)
                out.add(w)
        return {f for f in out if f}


_BOILERPLATE = re.compile(
    r"----|BEGI|EGIN|PRIVATE|KEY-|https?:|:/|LS0|S0t|0tL|LS1|tLS|RUdJT|FTkQ|\\[nr\\]|\n|\s"
)
#: a window of plain letters, slashes and dots: a word or a host name (sentry.io,
#: qyapi.weixin.qq.com), not a random run
_WORDLIKE = re.compile(r"[/a-z_.-]+")


def load_corpus(root: Path) -> tuple[list[Path], list[Item], list[dict[str, Any]]]:
    journals = sorted(p for p in (root / "journals").rglob("*") if p.is_file())
    items = []
    for line in (root / "manifest.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            rec = json.loads(line)
            items.append(
                Item(
                    rec["kind"],
                    rec["value"],
                    str(rec.get("file") or rec.get("journal") or ""),
                    str(rec.get("provider_or_form") or rec.get("note") or rec.get("where") or ""),
                    str(rec.get("decoded") or ""),
                    str(rec.get("secret_part") or ""),
                    bool(rec.get("whole_only")),
                )
            )
    everything = "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in journals)
    # and what they say as kura reads them: a compressed or database journal (zstd, SQLite)
    # holds its words in no form its bytes show
    everything += "\n" + "\n".join(s.text for p in journals for s in _raw_segments(p))
    for it in items:
        it.corpus = everything.replace(it.value, "")
        path = root / it.file
        if it.decoded and it.file and path.is_file():
            it.context = path.read_text(encoding="utf-8", errors="replace").replace(it.value, "")
    honest = []
    hp = root / "honest.jsonl"
    if hp.is_file():
        for line in hp.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            rec = json.loads(line)
            if isinstance(rec.get("candidate"), dict):  # {"journal", "candidate": {...}}
                rec = {**rec["candidate"], "journal": rec.get("journal", "")}
            honest.append(rec)
    return journals, items, honest


def _kura(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*KURA, *args],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, **(env or {})},
        cwd=ROOT,
    )


def door_inspect(journals: list[Path]) -> dict[str, str]:
    out = {}
    for j in journals:
        got = _kura("journal", "inspect", str(j), "--json")
        out[j.name] = got.stdout + got.stderr
    return out


def _raw_segments(journal: Path) -> list[Any]:
    """The journal's segments as they read before redaction."""
    import kura_core.distill.journals.base as base
    from kura_core.distill.journals import read_journal
    from kura_core.secrets import Redaction

    class _AsRead:
        def redact(self, text: str) -> Redaction:
            return Redaction(text)

    saved = base.active_rules
    base.active_rules = lambda: _AsRead()  # type: ignore[assignment,return-value]
    try:
        return list(read_journal(journal, None)[1].segments)
    except Exception:  # noqa: BLE001 - a file no adapter reads has no segments
        return []
    finally:
        base.active_rules = saved


def _copying(item: Item, segments: list[Any]) -> dict[str, Any]:
    """A candidate a careless model writes: the secret in its title and body, and a quote
    of the raw text around it (as a model that saw the raw journal would write)."""
    v = item.value
    quotes = [f"[USER] {v}"]
    for probe in (v, item.decoded, item.secret_part):
        hit = next((s for s in segments if probe and probe in s.text), None)
        if hit is not None:
            i = hit.text.index(probe)
            around = hit.text[max(0, i - 40) : i + len(probe) + 20]
            quotes = [f"[{hit.cls}] {' '.join(around.split())}"]
            break
    return {
        "kind": "fact",
        "title": f"the key is {v}"[:200],
        "description": f"configured with {v}",
        "body": f"The service is configured with {v} for now.",
        "quotes": quotes,
        "tags": [],
    }


def _journal_of(name: str, journals: list[Path]) -> Path | None:
    for j in journals:
        if name and (j.name == name or str(j).endswith(name) or j.stem == Path(name).stem):
            return j
    return None


def door_gate(
    journals: list[Path], items: list[Item], honest: list[dict[str, Any]], tmp: Path
) -> tuple[dict[str, str], dict[str, Any]]:
    out: dict[str, str] = {}
    kept = Counter[str]()
    dropped: list[dict[str, Any]] = []
    per: dict[Path, list[dict[str, Any]]] = {j: [] for j in journals}
    for h in honest:
        j = _journal_of(str(h.get("journal") or h.get("file") or ""), journals)
        if j is not None:
            cand = {k: v for k, v in h.items() if k not in ("journal", "file", "note", "id")}
            cand.setdefault("kind", "fact")
            cand.setdefault("tags", [])
            cand["_honest"] = True
            per[j].append(cand)
    raw = {j: _raw_segments(j) for j in journals}
    for it in items:
        if it.kind in ("secret", "private"):
            j = _journal_of(it.file, journals) or journals[0]
            per[j].append(_copying(it, raw[j]))
    for j, cands in per.items():
        if not cands:
            continue
        marks = [c.pop("_honest", False) for c in cands]
        path = tmp / f"cands-{j.name}.json"
        path.write_text(json.dumps({"candidates": cands}, ensure_ascii=False), "utf-8")
        got = _kura("gate", "--journal", str(j), "--candidates", str(path), "--json")
        out[j.name] = got.stdout + got.stderr
        try:
            results = json.loads(got.stdout)["candidates"]
        except (ValueError, KeyError):
            results = []
        for honest_one, res, cand in zip(marks, results, cands, strict=False):
            if honest_one:
                verdict = res.get("verdict", "?")
                kept[verdict] += 1
                if verdict == "dropped":
                    dropped.append(
                        {
                            "journal": j.name,
                            "title": cand.get("title"),
                            "why": (res.get("reasons") or [])[:2],
                            "violations": [v.get("rule") for v in res.get("violations", [])]
                            + [res.get("drop")],
                        }
                    )
    return out, {"verdicts": dict(kept), "dropped": dropped, "total": sum(kept.values())}


def door_distil(journals: list[Path], corpus: Path, tmp: Path) -> dict[str, str]:
    from kura_core.distill import pipeline
    from kura_core.distill.journals import read_journal
    from kura_core.registry import Registry
    from tests.conftest import make_store
    from tests.fakes.model_server import ScriptedModel

    src = tmp / "journals"
    adapters: dict[str, Path] = {}
    for j in journals:
        try:
            used, _ = read_journal(j, None)
        except Exception:  # noqa: BLE001 - a file no adapter reads is left out
            continue
        # each adapter's root keeps the file's own layout (cline's tasks/<id>/…)
        dest = src / used / j.relative_to(corpus / "journals")
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(j.read_bytes())
        adapters[used] = src / used
    make_store(tmp / "main", "main")
    with ScriptedModel() as model:
        cfg = tmp / "kura.toml"
        roots = "\n".join(f'{a} = "{p}"' for a, p in sorted(adapters.items()))
        cfg.write_text(
            f'[stores.main]\npath = "{tmp / "main"}"\nwrite_policy = "direct-allowed"\n'
            f"[distill]\nchunk_chars = 60000\nmax_items = 200\n"
            f"[distill.journals]\n{roots}\n"
            f'[models.thinker]\nurl = "{model.url}"\nmodel = "scripted"\ntimeout = 20\n',
            encoding="utf-8",
        )
        model.script("kura_candidates", _brain)
        model.script("kura_compose", _scribe)
        model.script("kura_judge", {"verdict": "pour", "reason": "true to the evidence"})
        model.script("*", {"slugs": []})
        reg = Registry.open(cfg)
        try:
            pipeline.run(reg, "main")
            pipeline.drain(reg, "main")
        except Exception as exc:  # noqa: BLE001 - a measurement reports what broke
            print(f"distil: {type(exc).__name__}: {exc}", file=sys.stderr)
        sent = "\n".join(
            r.raw.decode("utf-8", "replace") + json.dumps(r.body, ensure_ascii=False)
            for r in model.requests
        )
    stored = "\n".join(
        p.read_bytes().decode("utf-8", "replace")
        for p in sorted((tmp / "main").rglob("*"))
        if p.is_file()
    )
    return {"model requests": sent, "store files": stored}


_EVIDENCE = re.compile(r"^\[(USER|TOOL|ACT|SELF)\] ")


def _brain(req: Any) -> dict[str, Any]:
    text = req.messages[-1]["content"]
    cands = []
    for line in text.splitlines():
        if _EVIDENCE.match(line):
            body = line[7:].strip()
            if len(body) < 12:
                continue
            cands.append(
                {
                    "kind": "fact",
                    "title": body[:60],
                    "description": body[:200],
                    "body": body[:600],
                    "quotes": [line[:7] + body[:200]],
                    "tags": [],
                }
            )
    return {"candidates": cands[:200]}


def _scribe(req: Any) -> dict[str, Any]:
    task = req.messages[-1]["content"]
    cand = json.loads(task.split("Candidate:\n", 1)[1].split("\n\nVerified evidence:", 1)[0])
    return {
        "decision": "new",
        "slug": "",
        "title": cand["title"],
        "description": cand["description"],
        "type": "project",
        "body": cand["body"],
        "tags": [],
    }


def score(items: list[Item], doors: dict[str, dict[str, str]]) -> dict[str, Any]:
    common = "\n".join(it.value for it in items if it.kind == "lookalike")
    for it in items:
        if it.kind == "lookalike":
            continue
        forms = it.forms(common)
        for door, outputs in doors.items():
            for text in outputs.values():
                if any(f in text for f in forms):
                    it.leaks.add(door)
                    break
    inspected = "\n".join(doors.get("inspect", {}).values())
    look = [it for it in items if it.kind == "lookalike"]
    lost = [
        it
        for it in look
        if it.value not in inspected
        and json.dumps(it.value, ensure_ascii=False)[1:-1] not in inspected
    ]
    secrets = [it for it in items if it.kind == "secret"]
    private = [it for it in items if it.kind == "private"]
    return {
        "secrets kept out": f"{sum(not it.leaks for it in secrets)}/{len(secrets)}",
        "private kept out": f"{sum(not it.leaks for it in private)}/{len(private)}",
        "look-alikes kept in": f"{len(look) - len(lost)}/{len(look)}"
        if "inspect" in doors
        else "-",
        "leaks by door": dict(Counter(d for it in secrets + private for d in it.leaks)),
        "leaked": [
            {"note": it.note, "file": it.file, "doors": sorted(it.leaks), "len": len(it.value)}
            for it in secrets + private
            if it.leaks
        ],
        "look-alikes lost": [{"note": it.note, "value": it.value} for it in lost],
    }


def samples_corpus(root: Path) -> Path:
    """The corpus of tests/core/secret_samples.py written out in this script's format."""
    from tests.core import test_secrets_store as t

    (root / "journals").mkdir(parents=True, exist_ok=True)
    rng = random.Random(2026)
    manifest = []
    for lang in ("en", "ja", "zh"):
        recs, raws = t._lines(lang, rng)
        name = f"{lang}.jsonl"
        (root / "journals" / name).write_text(
            "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in recs), "utf-8"
        )
        manifest += [{"kind": "secret", "value": v, "file": name} for v in dict.fromkeys(raws)]
        manifest.append({"kind": "private", "value": f"{t.PRIVATE_NOTE} {lang}", "file": name})
    (root / "manifest.jsonl").write_text(
        "".join(json.dumps(m, ensure_ascii=False) + "\n" for m in manifest), "utf-8"
    )
    return root


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("corpus", nargs="?")
    ap.add_argument("--samples", action="store_true", help="the tests' own corpus")
    ap.add_argument("--doors", default="inspect,gate,distil")
    ap.add_argument("--json", action="store_true", help="everything, as JSON")
    a = ap.parse_args(argv)
    wanted = set(a.doors.split(","))
    with tempfile.TemporaryDirectory() as tmpd:
        tmp = Path(tmpd)
        if a.samples:
            corpus = samples_corpus(tmp / "samples")
        elif a.corpus:
            corpus = Path(a.corpus)
        else:
            ap.error("name a corpus directory or --samples")
        journals, items, honest = load_corpus(corpus)
        doors: dict[str, dict[str, str]] = {}
        honest_report: dict[str, Any] = {}
        if "inspect" in wanted:
            doors["inspect"] = door_inspect(journals)
        if "gate" in wanted:
            doors["gate"], honest_report = door_gate(journals, items, honest, tmp)
        if "distil" in wanted:
            doors["distil"] = door_distil(journals, corpus, tmp / "distil")
        report = score(items, doors)
        if honest_report:
            v = honest_report["verdicts"]
            report["honest kept"] = (
                f"{honest_report['total'] - v.get('dropped', 0)}/{honest_report['total']}"
            )
            report["honest dropped"] = honest_report["dropped"]
    if a.json:
        print(json.dumps(report, ensure_ascii=False, indent=2))
    else:
        for k, v in report.items():
            if isinstance(v, list):
                print(f"{k}: {len(v)}")
                for x in v:
                    print(f"    {json.dumps(x, ensure_ascii=False)}")
            else:
                print(f"{k}: {v}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
