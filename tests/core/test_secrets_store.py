"""Secrets never reach a store, a model or a screen: a whole distil, drain and pour cycle
over transcripts full of credentials (EN/JA/ZH) against the scripted model server, then a
grep of every byte kura wrote and sent; writes carrying a raw secret are refused; doctor
finds secrets planted by hand and scrub removes them, keeping a backup outside."""

from __future__ import annotations

import json
import random
import re
import subprocess
from pathlib import Path

import pytest

from kura_core import Kura
from kura_core.distill import drafts as dr, pipeline
from kura_core.distill.drafts import FloorRefused
from kura_core.errors import KuraError
from kura_core.registry import Registry
from kura_core.secrets import SecretRefused
from tests.conftest import make_store
from tests.core.secret_samples import KINDS, LANGS, placements, private_key

PRIVATE_NOTE = "MY-PRIVATE-DIARY-LINE"


def _lines(lang: str, rng: random.Random) -> tuple[list[dict], list[str]]:
    """A Claude Code transcript in *lang* that shows every kind of secret in every place
    it really turns up, and the raw values it holds."""
    recs: list[dict] = []
    raws: list[str] = []
    n = 0

    def tool(name: str, inp: dict, result: str) -> None:
        nonlocal n
        n += 1
        tid = f"toolu_{lang}_{n:03d}"
        recs.append(
            {
                "type": "assistant",
                "message": {
                    "role": "assistant",
                    "content": [{"type": "tool_use", "id": tid, "name": name, "input": inp}],
                },
            }
        )
        recs.append(
            {
                "type": "user",
                "message": {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": tid, "content": result}],
                },
            }
        )

    for kind in KINDS:
        value = kind.make(rng)
        raws.append(value)
        places = placements(kind, value, lang)
        if "prompt paste" in places:
            recs.append(
                {"type": "user", "message": {"role": "user", "content": places["prompt paste"]}}
            )
        tool("Bash", {"command": "cat .env"}, places["cat .env"])
        tool("Bash", {"command": "env"}, places["env listing"])
        tool(
            "Write",
            {"file_path": "/srv/app/config.toml", "content": places["config file written"]},
            "File created successfully at: /srv/app/config.toml",
        )
        tool("Bash", {"command": places["curl"]}, '{"items": []}')
        tool("Bash", {"command": "python worker.py"}, places["stack trace"])
    key = private_key(rng)
    raws += key.splitlines()[1:-1]
    tool("Bash", {"command": "cat ~/.ssh/id_ed25519"}, key)
    said = {
        "en": "the archive goes on the slow disk from now on",
        "ja": "アーカイブは今後遅いディスクに置くことにする",
        "zh": "从现在起归档放在慢速磁盘上",
    }[lang]
    recs.append(
        {
            "type": "user",
            "message": {
                "role": "user",
                "content": f"{said} <private>{PRIVATE_NOTE} {lang}</private>",
            },
        }
    )
    recs.append(
        {"type": "user", "message": {"role": "user", "content": f"<private>{PRIVATE_NOTE}"}}
    )
    return recs, raws


def _journal(tmp_path: Path) -> list[str]:
    rng = random.Random(2026)
    raws: list[str] = []
    for lang in LANGS:
        recs, got = _lines(lang, rng)
        raws += got
        path = tmp_path / "journals" / f"{lang}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in recs), "utf-8")
    return raws


def _config(tmp_path: Path, url: str) -> Path:
    make_store(tmp_path / "main", "main")
    cfg = tmp_path / "kura.toml"
    cfg.write_text(
        f"""
[stores.main]
path = "{tmp_path / "main"}"
write_policy = "direct-allowed"

[distill]
chunk_chars = 200000
max_items = 50

[distill.journals]
claude = "{tmp_path / "journals"}"

[models.thinker]
url = "{url}"
model = "scripted"
timeout = 10
""",
        encoding="utf-8",
    )
    return cfg


def _evidence(req) -> list[str]:
    text = req.messages[-1]["content"]
    return [line for line in text.splitlines() if re.match(r"^\[(USER|TOOL|ACT|SELF)\] ", line)]


def _brain(req):
    """One candidate per USER line and per TOOL line that shows a marker, quoting it."""
    cands = []
    for line in _evidence(req):
        if line.startswith("[USER] ") or ("[secret:" in line and line.startswith("[TOOL] ")):
            body = line[7:]
            cands.append(
                {
                    "kind": "judgement" if line.startswith("[TOOL]") else "fact",
                    "title": body[:50],
                    "description": body[:200],
                    "body": body,
                    "quotes": [line[:7] + body[:150]],
                    "tags": [],
                }
            )
    return {"candidates": cands[:40]}


def _scribe(req):
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


def _all_bytes(root: Path) -> bytes:
    return b"\n".join(p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file())


def _assert_absent(raws: list[str], *blobs: bytes | str) -> None:
    for blob in blobs:
        text = blob.decode("utf-8", "replace") if isinstance(blob, bytes) else blob
        for raw in raws:
            for form in {raw, json.dumps(raw)[1:-1]}:
                assert form not in text, f"a raw secret ({len(raw)} chars) leaked"


@pytest.mark.slow
def test_a_whole_cycle_keeps_every_secret_out_of_store_models_and_output(tmp_path, model, kura_bin):
    raws = _journal(tmp_path)
    model.script("kura_candidates", _brain)
    model.script("kura_compose", _scribe)
    model.script("kura_judge", {"verdict": "pour", "reason": "true to the evidence"})
    model.script("*", {"slugs": []})
    cfg = _config(tmp_path, model.url)
    reg = Registry.open(cfg)

    rep = pipeline.run(reg, "main")
    assert rep.batches >= 1 and rep.drafts
    store = reg.store("main")
    drafted = dr.list_drafts(store)
    marked = [d for d in drafted if "[secret:" in d.body]
    assert marked, "a memory around a secret is kept, with the marker in place"
    assert all(q["status"] == "verified" for d in marked for q in d.quotes)
    pipeline.drain(reg, "main")
    assert any("[secret:" in store.read(s).body for s in store.file_slugs())
    assert not any(PRIVATE_NOTE in (d.body + d.description) for d in drafted)

    sent = [r.raw for r in model.requests] + [
        json.dumps(r.body, ensure_ascii=False).encode() for r in model.requests
    ]
    assert sent
    _assert_absent(raws + [PRIVATE_NOTE], *sent)
    _assert_absent(raws + [PRIVATE_NOTE], _all_bytes(tmp_path / "main"))

    printed = []
    for lang in LANGS:
        out = subprocess.run(
            [
                *kura_bin,
                "-c",
                str(cfg),
                "journal",
                "inspect",
                str(tmp_path / "journals" / f"{lang}.jsonl"),
                "--json",
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert out.returncode == 0, out.stderr
        printed += [out.stdout, out.stderr]
    for args in (["doctor", "--json"], ["scrub", "--dry-run"], ["gate", "--help"]):
        out = subprocess.run(
            [*kura_bin, "-c", str(cfg), *args], capture_output=True, text=True, timeout=120
        )
        printed += [out.stdout, out.stderr]
    assert "[secret:" in printed[0]
    _assert_absent(raws + [PRIVATE_NOTE], *printed)


# --------------------------------------------------------------------------- writes


@pytest.fixture
def kura(tmp_path):
    make_store(tmp_path / "main", "main", {"disk": ("Disk", "which disk holds what", "Body.")})
    cfg = tmp_path / "kura.toml"
    cfg.write_text(
        f'[stores.main]\npath = "{tmp_path / "main"}"\nwrite_policy = "direct-allowed"\n'
        '[stores.main.secrets]\nallow = ["AKIAIOSFODNN7EXAMPLE"]\n'
        'patterns = { acme-token = "acme_[a-z0-9]{24}" }\n',
        encoding="utf-8",
    )
    with Kura.open(cfg, env={"HOME": str(tmp_path / "home")}) as k:
        yield k


def test_every_write_path_refuses_a_raw_secret_naming_its_kind(kura, tmp_path):
    token = KINDS[3].make(random.Random(1))
    with pytest.raises(SecretRefused, match="github-token") as err:
        kura.remember("deploy-key", "the deploy uses a token", f"The token is {token}.")
    assert token not in str(err.value)
    with pytest.raises(SecretRefused, match="acme-token"):
        kura.remember("acme", "the acme account", "key acme_0123456789abcdefghijklmn")
    with pytest.raises(SecretRefused, match="password"):
        kura.remember("db", "the database", "use DB_PASSWORD=Tr0ub4dor-and-3")
    # a marker, and an allowlisted example, are fine
    kura.remember("deploy-key", "the deploy uses a token", "The token is [secret:github-token].")
    kura.remember("aws-doc", "the AWS doc key", "the docs use AKIAIOSFODNN7EXAMPLE as example")
    view = kura.memory("disk")
    with pytest.raises(SecretRefused):
        kura.edit_memory("disk", base=view.base, body=f"Body with {token}")
    with pytest.raises(KuraError):
        kura.annotate("disk", keep=f"keep {token}")
    with pytest.raises(SecretRefused, match="profile"):
        kura.profile_apply(store="main", text=f"Ren deploys with {token}.")
    assert token.encode() not in _all_bytes(tmp_path / "main")


def test_a_fix_carrying_a_raw_secret_is_refused_by_the_floor(tmp_path, model):
    raws = _journal(tmp_path)
    model.script("kura_candidates", _brain)
    model.script("kura_compose", _scribe)
    reg = Registry.open(_config(tmp_path, model.url))
    pipeline.run(reg, "main")
    (first, *_) = dr.list_drafts(reg.store("main"))
    with pytest.raises(FloorRefused, match="raw secret"):
        dr.fix(reg, "main", first.slug, body=first.body + " " + raws[0])
    _assert_absent(raws, _all_bytes(tmp_path / "main"))


# --------------------------------------------------------------------------- stored


def _plant(root: Path, ws, raws: dict[str, str]) -> None:
    """Secrets written by hand before redaction existed: a memory file, a draft, the
    profile, a gate-log row and a seed."""
    mem = root / "disk.md"
    mem.write_text(mem.read_text() + f"\nthe token was {raws['github-token']}\n", encoding="utf-8")
    drafts = root / "_still" / "drafts"
    drafts.mkdir(parents=True, exist_ok=True)
    (drafts / "hand.md").write_text(
        f"---\nname: hand\ndescription: x\n---\n\nDB_PASSWORD={raws['password']}\n", "utf-8"
    )
    (root / "profile.md").write_text(f"Ren uses {raws['openai-key']} for tests.\n", "utf-8")
    # rows written before redaction existed (kura's own writers redact: see below)
    ws.execute(
        "INSERT INTO gate_log(at, kind, title, reason) VALUES(0, 'dropped', ?, 'planted')",
        (f"key {raws['anthropic-key']}",),
    )
    ws.execute(
        "INSERT INTO seeds(at, title, body, updated) VALUES(0, 'idea', ?, 0)",
        (json.dumps({"k": raws["jwt"]}),),
    )


def test_doctor_names_stored_secrets_by_place_and_scrub_removes_them(kura, tmp_path):
    rng = random.Random(9)
    raws = {k.kind: k.make(rng) for k in KINDS}
    root = tmp_path / "main"
    ws = kura.registry.workshop("main")
    _plant(root, ws, raws)

    rep = kura.doctor(store="main")
    assert not rep.ok
    places = {(s.place, s.kind) for s in rep.secrets}
    assert ("disk.md", "github-token") in places
    assert ("_still/drafts/hand.md", "password") in places
    assert ("profile.md", "openai-key") in places
    assert any(p.startswith("gate_log.title") and k == "anthropic-key" for p, k in places)
    assert any(p.startswith("seeds.body") and k == "jwt" for p, k in places)
    shown = json.dumps(rep.to_json(), ensure_ascii=False)
    _assert_absent(list(raws.values()), shown, "\n".join(rep.problems))

    with pytest.raises(KuraError, match="inside the store"):
        kura.scrub(store="main", backup=root / "_still" / "backup")
    dry = kura.scrub(store="main", dry_run=True)
    assert (
        dry.scrubbed and not dry.did_work and raws["github-token"] in (root / "disk.md").read_text()
    )

    done = kura.scrub(store="main")
    assert done.did_work and len(done.scrubbed) == len(rep.secrets)
    ws.close()
    _assert_absent(list(raws.values()), _all_bytes(root))
    assert "[secret:github-token]" in (root / "disk.md").read_text()
    assert kura.read("disk").body.rstrip().endswith("the token was [secret:github-token]")
    backup = Path(done.backup)
    assert backup.is_dir() and not str(backup).startswith(str(root))
    assert str(backup).startswith(str(tmp_path / "home" / ".local" / "state" / "kura" / "scrub"))
    assert raws["github-token"] in (backup / "disk.md").read_text()
    assert (backup / "disk.md").stat().st_mode & 0o077 == 0
    log = kura.gate_log(store="main")
    assert any(e.kind == "scrubbed" for e in log)
    assert kura.doctor(store="main").secrets == ()
    assert not kura.scrub(store="main").scrubbed  # nothing left: nothing to do


def test_the_workshop_s_own_writers_never_keep_a_raw_secret(kura, tmp_path):
    rng = random.Random(13)
    token, jwt = KINDS[3].make(rng), KINDS[15].make(rng)
    ws = kura.registry.workshop("main")
    ws.log_gate("dropped", title=f"uses {token}", reason=f"r {token}", detail={"q": [jwt]})
    ws.plant_seed(
        title=f"t {token}", body=f"b {jwt}", quotes=json.dumps([f"[USER] {token}"]), source="s"
    )
    ws.log_reads([(0.0, f"what is {token}?", "words", "[]", 1.0)])
    (row,) = ws.gate_log(kinds=("dropped",))
    assert row["title"] == "uses [secret:github-token]" and row["detail"] == {"q": ["[secret:jwt]"]}
    ws.close()
    _assert_absent([token, jwt], _all_bytes(tmp_path / "main"))


def test_the_gate_command_shows_markers_and_a_quote_across_a_secret_verifies(tmp_path, kura_bin):
    token = KINDS[3].make(random.Random(21))
    journal = tmp_path / "s.jsonl"
    said = f"deploy with GITHUB_TOKEN={token} from the vault, always"
    journal.write_text(json.dumps({"type": "user", "message": {"content": said}}) + "\n", "utf-8")
    cands = tmp_path / "c.json"
    cands.write_text(
        json.dumps(
            {
                "candidates": [
                    {
                        "kind": "fact",
                        "title": "deploy token from the vault",
                        "description": "the deploy reads its token from the vault",
                        "body": "The deploy reads [secret:github-token] from the vault.",
                        "quotes": [f"[USER] deploy with GITHUB_TOKEN={token} from the vault"],
                    }
                ]
            }
        ),
        "utf-8",
    )
    out = subprocess.run(
        [*kura_bin, "gate", "--journal", str(journal), "--candidates", str(cands), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    rep = json.loads(out.stdout)
    (quote,) = rep["candidates"][0]["quotes"]
    assert quote["status"] == "verified" and "[secret:github-token]" in quote["text"]
    _assert_absent([token], out.stdout, out.stderr)
