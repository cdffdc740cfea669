"""One verdict: ``kura gate`` and the distiller run the same gate with the same floors and
the same secret rules, so a candidate is kept by one exactly when it is kept by the other."""

from __future__ import annotations

import json

import pytest

from kura_core.distill.gate import run_gate
from kura_core.distill.journals import read_journal
from kura_core.kura import Kura
from kura_core.secrets import using_rules
from tests.core.test_secrets_store import make_store

PASSWORD_URL = "postgres://admin:S3cr3tPassw0rd@db.internal:5432/app"


@pytest.fixture
def kura(tmp_path):
    make_store(tmp_path / "main", "main", {"disk": ("Disk", "which disk holds what", "Body.")})
    cfg = tmp_path / "kura.toml"
    cfg.write_text(
        f'[stores.main]\npath = "{tmp_path / "main"}"\nwrite_policy = "direct-allowed"\n'
        '[stores.main.secrets]\nallow = ["AKIAIOSFODNN7EXAMPLE"]\n',
        encoding="utf-8",
    )
    with Kura.open(cfg, env={"HOME": str(tmp_path / "home")}) as k:
        yield k


def _journal(tmp_path, said: str):
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps({"type": "user", "message": {"content": said}}) + "\n", "utf-8")
    return path


def _both(kura: Kura, journal, cand: dict) -> tuple[str, str]:
    """The verdict of ``kura gate`` and of the distiller's own call on one candidate."""
    by_command = kura.gate(journal, [cand], store="main").results[0]
    spec = kura.registry.spec("main")
    with using_rules(spec.secrets):  # what the distiller runs under (under_store_rules)
        _, read = read_journal(journal, None)
        by_distiller = run_gate([cand], list(read.segments), min_quote_chars=8)[0]
    return by_command.verdict, by_distiller.verdict


def test_a_body_carrying_a_raw_password_url_is_dropped_by_both(kura, tmp_path):
    journal = _journal(tmp_path, f"the staging database is {PASSWORD_URL}, use it for tests")
    cand = {
        "kind": "fact",
        "title": "staging database",
        "description": "where the staging database lives",
        "body": f"The staging database is {PASSWORD_URL}.",
        "quotes": [f"[USER] the staging database is {PASSWORD_URL}"],
    }
    command, distiller = _both(kura, journal, cand)
    assert command == distiller == "dropped"
    result = kura.gate(journal, [cand], store="main").results[0]
    assert [(v.kind, v.rule) for v in result.violations] == [("shape", "raw_secret")]


def test_the_marker_in_place_of_the_secret_is_kept_by_both(kura, tmp_path):
    journal = _journal(tmp_path, f"the staging database is {PASSWORD_URL}, use it for tests")
    cand = {
        "kind": "fact",
        "title": "staging database",
        "description": "where the staging database lives",
        "body": "The staging database URL carries [secret:url-password]; use it for tests.",
        "quotes": [f"[USER] the staging database is {PASSWORD_URL}, use it for tests"],
    }
    assert _both(kura, journal, cand) == ("kept", "kept")


def test_the_store_allowlist_applies_to_both(kura, tmp_path):
    key = "AKIAIOSFODNN7EXAMPLE"  # allowed by the store: not a secret there
    journal = _journal(tmp_path, f"the example key in the docs is {key}, keep it there")
    cand = {
        "kind": "fact",
        "title": "example key",
        "description": "the docs' example key",
        "body": f"The docs use the example key {key}.",
        "quotes": [f"[USER] the example key in the docs is {key}"],
    }
    assert _both(kura, journal, cand) == ("kept", "kept")
