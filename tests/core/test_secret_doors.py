"""One rule set on every door: the allow-list and a store's own patterns hold for journal
inspect, the gate, the floors and writes alike; kura never repeats a raw secret, even one a
candidate copied without a shape of its own; honest memories beside secrets are kept; and
redaction changes at most half a percent of segments that hold no secret."""

from __future__ import annotations

import importlib.util
import json
import random
import string
import subprocess
from pathlib import Path

import pytest

from kura_core import Kura
from kura_core.floors import shape_violations
from kura_core.secrets import BUILTIN, SecretRules, using_rules
from tests.conftest import make_store

ROOT = Path(__file__).resolve().parents[2]
ALNUM = string.ascii_letters + string.digits


def _token(seed: int) -> str:
    rng = random.Random(seed)
    return "ghp_" + "".join(rng.choice(ALNUM) for _ in range(33)) + "Ab1"


def _journal(path: Path, *said: str) -> Path:
    path.write_text(
        "".join(json.dumps({"type": "user", "message": {"content": s}}) + "\n" for s in said),
        "utf-8",
    )
    return path


def _config(tmp_path: Path, allowed: str) -> Path:
    make_store(tmp_path / "main", "main")
    cfg = tmp_path / "kura.toml"
    cfg.write_text(
        f'[stores.main]\npath = "{tmp_path / "main"}"\n'
        f'[stores.main.secrets]\nallow = ["{allowed}"]\n'
        'patterns = { acme-token = "acme_[a-z0-9]{24}" }\n',
        encoding="utf-8",
    )
    return cfg


def test_an_allowed_value_passes_inspect_the_gate_and_the_floors(tmp_path, kura_bin):
    allowed, other = _token(1), _token(2)
    cfg = _config(tmp_path, allowed)
    said = f"the docs use {allowed} as the fixture token, and acme_0123456789abcdefghijklmn is ours"
    journal = _journal(tmp_path / "s.jsonl", said, f"the real one is {other}, rotate it monthly")
    out = subprocess.run(
        [*kura_bin, "-c", str(cfg), "journal", "inspect", str(journal), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert allowed in out.stdout and other not in out.stdout
    assert "[secret:acme-token]" in out.stdout and "[secret:github-token]" in out.stdout

    cand = {
        "kind": "fact",
        "title": "the fixture token of the docs",
        "description": "which token the docs use as a fixture",
        "body": f"The docs use {allowed} as their fixture token.",
        "quotes": [f"[USER] the docs use {allowed} as the fixture token"],
    }
    with Kura.open(cfg, env={"HOME": str(tmp_path)}) as k:
        rep = k.gate(journal, [cand])
        (res,) = rep.to_json()["candidates"]
        assert res["verdict"] != "dropped", res
        assert not [v for v in res["violations"] if v.get("rule") == "raw_secret"], res
    with using_rules(SecretRules.build({}, [allowed])):
        assert shape_violations({"body": cand["body"]}) == []
    assert [v.rule for v in shape_violations({"body": cand["body"]})] == ["raw_secret"]


def test_the_gate_never_repeats_a_secret_a_candidate_copied(tmp_path, kura_bin):
    rng = random.Random(3)
    pw = "".join(rng.choice(ALNUM) for _ in range(16)) + "7q"
    journal = _journal(
        tmp_path / "s.jsonl",
        f"export DB_PASSWORD={pw}",
        "keep the archive on the slow disk from now on",
        "<private>my visa renewal is stuck, keep this out</private> move the backups to friday",
    )
    cands = tmp_path / "c.json"
    copied = {
        "kind": "fact",
        "title": f"db password is {pw}",
        "description": f"the database password, {pw[:12]}",
        "body": f"Use {pw}. Also: my visa renewal is stuck, keep this out",
        "quotes": [f"[USER] export DB_PASSWORD={pw}", f"[USER] {pw[4:16]} and more"],
    }
    honest = {
        "kind": "fact",
        "title": "archive on the slow disk",
        "description": "where the archive lives",
        "body": "The archive goes on the slow disk.",
        "quotes": ["[USER] keep the archive on the slow disk from now on"],
    }
    cands.write_text(json.dumps({"candidates": [copied, honest]}), "utf-8")
    printed = []
    for extra in (["--json"], []):
        out = subprocess.run(
            [*kura_bin, "gate", "--journal", str(journal), "--candidates", str(cands), *extra],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert out.returncode == 0, out.stderr
        printed.append(out.stdout + out.stderr)
    for text in printed:
        assert pw not in text and pw[:12] not in text and pw[4:16] not in text, text
        assert "visa renewal" not in text
    results = json.loads(printed[0])["candidates"]
    assert results[1]["verdict"] != "dropped", results[1]


def _false_positive_script():
    spec = importlib.util.spec_from_file_location(
        "secrets_false_positives", ROOT / "scripts" / "secrets_false_positives.py"
    )
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.slow
def test_false_positives_stay_under_half_a_percent_of_segments(monkeypatch):
    import kura_core.distill.journals.base as base

    # the script reads the fixtures as written by swapping intake's rules; put them back after
    monkeypatch.setattr(base, "active_rules", base.active_rules)
    script = _false_positive_script()
    for name, segs in (
        ("fixture journals", script.fixture_segments()),
        ("kura's own source, docs and tests", script.code_segments()),
    ):
        assert len(segs) > 300, name
        changed = [s for s in segs if BUILTIN.redact(s).findings]
        assert len(changed) <= 0.005 * len(segs), (name, len(changed), [c[:80] for c in changed])


def _claude_journal(path, user: str, assistant: str):
    """A Claude Code journal of one user message and one assistant reply, at *path*."""
    import json as _json

    def entry(kind: str, content: object, uuid: str) -> dict:
        return {
            "type": kind,
            "message": {"role": kind, "content": content},
            "sessionId": "s",
            "uuid": uuid,
        }

    entries = (
        entry("user", user, "u1"),
        entry("assistant", [{"type": "text", "text": assistant}], "a1"),
    )
    path.write_text(
        "".join(_json.dumps(e, ensure_ascii=False) + "\n" for e in entries), encoding="utf-8"
    )
    return path


def test_inspect_redacts_a_value_the_agent_repeats_later_in_the_journal(tmp_path):
    from kura_core.distill.journals.inspect import inspect as inspect_journal

    path = _claude_journal(
        tmp_path / "s.jsonl",
        "事務所のWi-Fiパスワードは Kz8-umeboshi-9870 ね",
        "まとめ: 事務所 Wi-Fi: Kz8-umeboshi-9870",
    )
    got = inspect_journal(path)
    texts = [s.text for s in got.segments]
    assert len(texts) == 2 and all("Kz8-umeboshi-9870" not in t for t in texts), texts


def test_a_word_of_a_private_text_is_no_secret_elsewhere(tmp_path):
    from kura_core.distill.gate import gate_journal
    from kura_core.distill.journals.inspect import inspect as inspect_journal

    private = "the Northwind droplet is still on my personal account because they never paid"
    path = _claude_journal(
        tmp_path / "s.jsonl",
        f"<private>{private}</private> Deploy the Northwind theme today.",
        "Deploying the Northwind Outfitters theme.",
    )
    texts = [s.text for s in inspect_journal(path).segments]
    assert "Deploy the Northwind theme today." in texts[0]
    assert "Deploying the Northwind Outfitters theme." in texts[1]
    candidate = {
        "kind": "fact",
        "title": "Northwind theme deploy",
        "description": "When working on the Northwind Outfitters theme deploy",
        "body": "The user asked to deploy the Northwind theme today.",
        "quotes": ["[USER] Deploy the Northwind theme today."],
    }
    _, _, results, _ = gate_journal(path, [candidate])
    assert not [v for v in results[0].violations if v.rule == "raw_secret"], results[0].violations
