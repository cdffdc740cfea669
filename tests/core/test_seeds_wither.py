"""Seeds never starve: the newest waiting ideas are checked first, seeds wither after a
configurable time or number of checks, and a withered seed is listed and can be revived."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from kura_core import Kura
from kura_core.distill import pipeline
from kura_core.errors import ConflictError, NotFound
from kura_core.registry import Registry
from kura_core.vocabulary import GateLogKind, SeedState
from tests.conftest import make_store
from tests.core.test_distill import write_journal

DAY = 86_400.0


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


def _config(tmp_path: Path, model_url: str, extra: str = "") -> Path:
    make_store(tmp_path / "main", "main")
    cfg = tmp_path / "kura.toml"
    cfg.write_text(f"""
[stores.main]
path = "{tmp_path / "main"}"

[distill]
seed_check = 5
{extra}

[distill.journals]
claude = "{tmp_path / "journals"}"

[models.thinker]
url = "{model_url}"
model = "scripted"
timeout = 5.0
""")
    return cfg


def _plant(reg: Registry, n: int, clock: Clock) -> list[int]:
    ws = reg.workshop("main")
    ids = []
    for i in range(n):
        ids.append(ws.plant_seed(title=f"idea {i}", body=f"body {i}", quotes="[]", source="j"))
        clock.now += 60
    return ids


def _shown_ids(req) -> list[int]:
    task = req.body["messages"][-1]["content"]
    ideas = task.split("New evidence")[0]
    return [int(m) for m in re.findall(r"^(\d+): ", ideas, re.M)]


def test_the_newest_waiting_ideas_are_checked_first(tmp_path, model):
    clock = Clock()
    reg = Registry.open(_config(tmp_path, model.url), clock=clock)
    ids = _plant(reg, 12, clock)
    model.script("kura_candidates", {"candidates": []})
    model.script("kura_seed_check", {"confirms": []})
    write_journal(tmp_path / "journals" / "a.jsonl", [("user", "the NAS runs ZFS now")])
    pipeline.run(reg, "main")
    (req,) = model.requests_for("kura_seed_check")
    assert _shown_ids(req) == sorted(ids, reverse=True)[:5]  # seed_check = 5, newest first
    checks = {
        r["id"]: r["checks"] for r in reg.workshop("main").query("SELECT id, checks FROM seeds")
    }
    assert [checks[i] for i in ids] == [0] * 7 + [1] * 5
    reg.close()


def test_seeds_wither_after_enough_checks_and_the_older_ones_get_their_turn(tmp_path, model):
    clock = Clock()
    cfg = _config(tmp_path, model.url, "seed_wither_checks = 2\nseed_wither_days = 0")
    reg = Registry.open(cfg, clock=clock)
    ids = _plant(reg, 8, clock)
    model.script("kura_candidates", {"candidates": []})
    model.script("kura_seed_check", {"confirms": []})
    for n in range(3):
        write_journal(tmp_path / "journals" / f"{n}.jsonl", [("user", f"stretch {n} of talk")])
        pipeline.run(reg, "main")
    shown = [_shown_ids(r) for r in model.requests_for("kura_seed_check")]
    assert shown[0] == shown[1] == ids[3:][::-1]
    # the newest five were checked twice and withered: the three older ones are shown now
    assert shown[2] == ids[:3][::-1]
    k = Kura(reg)
    withered = [s for s in k.seed_list(store="main") if s.state == SeedState.WITHERED]
    assert sorted(s.id for s in withered) == ids[3:]
    assert all(s.withered and "2 stretches" in s.withered[1] for s in withered)
    reg.close()


def test_seeds_wither_after_a_time_and_can_be_revived(tmp_path, model):
    clock = Clock()
    cfg = _config(tmp_path, model.url, "seed_wither_days = 30\nseed_wither_checks = 0")
    reg = Registry.open(cfg, clock=clock)
    old, new = _plant(reg, 2, clock)
    k = Kura(reg)
    assert k.wither_seeds(store="main") == 0
    clock.now += 30 * DAY - 60  # the older idea is past 30 days, the newer is not yet
    assert k.wither_seeds(store="main") == 1
    states = {s.id: s.state for s in k.seed_list(store="main")}
    assert states == {old: SeedState.WITHERED, new: SeedState.WAITING}
    log = reg.workshop("main").query("SELECT kind, detail FROM gate_log ORDER BY id")
    assert [r["kind"] for r in log] == [GateLogKind.SEED_WITHERED]
    assert json.loads(log[0]["detail"])["seed"] == old

    revived = k.revive_seed(old, store="main")
    assert revived.state == SeedState.WAITING and revived.checks == 0 and revived.withered is None
    clock.now += 1
    assert k.wither_seeds(store="main") == 1  # the newer one's turn; the revived waits afresh
    assert {s.id: s.state for s in k.seed_list(store="main")}[old] == SeedState.WAITING
    with pytest.raises(ConflictError, match="not withered"):
        k.revive_seed(old, store="main")
    with pytest.raises(NotFound):
        k.revive_seed(999, store="main")
    reg.close()


def test_cli_lists_withered_seeds_and_revives_one(tmp_path, model, capsys):
    from kura_core.faces.cli import main

    clock = Clock()
    cfg = _config(tmp_path, model.url, "seed_wither_days = 1")
    reg = Registry.open(cfg, clock=clock)
    (sid,) = _plant(reg, 1, clock)
    reg.workshop("main").query("UPDATE seeds SET updated = 0")  # planted long ago
    reg.close()
    assert main(["-c", str(cfg), "seeds", "--state", "withered"]) == 2
    capsys.readouterr()
    assert main(["-c", str(cfg), "seeds", "--wither", "--state", "withered", "--json"]) == 0
    (s,) = json.loads(capsys.readouterr().out)["seeds"]
    assert s["id"] == sid and s["state"] == "withered" and "no evidence" in s["withered"]["reason"]
    assert main(["-c", str(cfg), "seeds", "--revive", str(sid)]) == 0
    assert "revived seed" in capsys.readouterr().out
    assert main(["-c", str(cfg), "seeds", "--state", "withered"]) == 2


def test_an_old_workshop_gains_the_checks_column(tmp_path):
    from kura_core.workshop import MIGRATIONS, Workshop

    ws = Workshop(tmp_path)
    assert ws.schema_version == len(MIGRATIONS)
    ws.plant_seed(title="t", body="b", quotes="[]", source="s")
    assert ws.query("SELECT checks FROM seeds")[0]["checks"] == 0
