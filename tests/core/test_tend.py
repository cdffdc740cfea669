"""The tender with the scripted model and an injected clock."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time

import pytest

from kura_core.config import load_config
from kura_core.distill import drafts as dr, marks, pipeline
from kura_core.doctor import diagnose
from kura_core.errors import BusyError
from kura_core.registry import Registry
from kura_core.tend import Tender, run_once
from tests.core.test_distill import config, echo_scribe, honest_brain, kill_mid_batch, write_journal
from tests.fakes.model_server import Hang
from tests.wait import wait_for


class Clock:
    def __init__(self, t: float):
        self.t = t

    def __call__(self) -> float:
        return self.t


def setup(tmp_path, model, lines=3, *, yield_on_return=True):
    journal = write_journal(
        tmp_path / "journals" / "j.jsonl",
        [("user", f"the spare key number {i} hangs in the hall") for i in range(lines)],
    )
    cfg = config(tmp_path, model.url)
    if not yield_on_return:
        cfg.write_text(
            cfg.read_text().replace("max_items = 50", "max_items = 50\nyield_on_return = false")
        )
    old = time.time() - 3600
    os.utime(journal, (old, old))
    model.script("kura_candidates", honest_brain)
    model.script("kura_compose", echo_scribe)
    model.script("kura_judge", {"verdict": "pour", "reason": "fine"})
    return cfg, journal


def reg_at(cfg, clock):
    return Registry(load_config(cfg), clock=clock)


def test_quiet_runs_a_distil_then_drains(tmp_path, model):
    cfg, journal = setup(tmp_path, model)
    clock = Clock(time.time())
    reg = reg_at(cfg, clock)
    code, tick = run_once(reg, "main")
    assert code == 0 and tick.tracks[0] == "run"
    assert len(dr.list_drafts(reg.store("main"))) == 3
    code, tick = run_once(reg, "main")
    assert code == 0 and tick.tracks[0] == "drain"
    assert "weave" in tick.tracks  # poured → re-woven once
    assert len(reg.store("main").file_slugs()) == 3
    assert dr.list_drafts(reg.store("main")) == []
    log = (tmp_path / "main" / "_still" / "tend.log").read_text()
    assert "drain: poured 3" in log


def test_after_a_pour_and_a_weave_the_tender_warms_the_thinkers_cache(tmp_path, model):
    cfg, _ = setup(tmp_path, model)
    model.script("kura_warm", {"slugs": []})
    reg = reg_at(cfg, Clock(time.time()))
    run_once(reg, "main")
    assert model.count("kura_warm") == 0  # drafts only: the index did not change
    code, tick = run_once(reg, "main")
    assert code == 0 and "weave" in tick.tracks
    (warmed,) = model.requests_for("kura_warm")
    assert "the spare key number" in warmed.messages[0]["content"]  # the new index
    log = (tmp_path / "main" / "_still" / "tend.log").read_text()
    assert "main: warmed 1/1 shard(s)" in log


def test_not_quiet_does_nothing(tmp_path, model):
    cfg, journal = setup(tmp_path, model)
    os.utime(journal, None)  # the human is typing right now
    reg = reg_at(cfg, Clock(time.time()))
    code, tick = run_once(reg, "main")
    assert code == 2 and tick.tracks == () and not tick.quiet
    assert model.count() == 0


def test_journal_touched_mid_track_stops_the_track(tmp_path, model):
    cfg, journal = setup(tmp_path, model)
    reg = reg_at(cfg, Clock(time.time()))
    pipeline.run(reg, "main")
    assert len(dr.list_drafts(reg.store("main"))) == 3

    def judge_and_return(req):
        os.utime(journal, None)  # the human comes back while the scribe is judging
        return {"verdict": "pour", "reason": "fine"}

    model.script("kura_judge", judge_and_return)
    code, tick = run_once(reg, "main")
    assert tick.stopped == "the human is back"
    assert len(reg.store("main").file_slugs()) == 1  # stopped at a safe point after one pour
    assert len(dr.list_drafts(reg.store("main"))) == 2
    assert "tidy" not in tick.tracks


def test_yield_on_return_false_keeps_going(tmp_path, model):
    cfg, journal = setup(tmp_path, model, yield_on_return=False)
    reg = reg_at(cfg, Clock(time.time()))
    pipeline.run(reg, "main")

    def judge_and_return(req):
        os.utime(journal, None)
        return {"verdict": "pour", "reason": "fine"}

    model.script("kura_judge", judge_and_return)
    code, tick = run_once(reg, "main")
    assert code == 0 and not tick.stopped
    assert len(reg.store("main").file_slugs()) == 3


def test_nothing_to_do_exits_2_and_backoff_is_respected(tmp_path, model):
    cfg, journal = setup(tmp_path, model, lines=1)
    clock = Clock(time.time())
    reg = reg_at(cfg, clock)
    pipeline.run(reg, "main")
    pipeline.drain(reg, "main")
    code, tick = run_once(reg, "main")
    assert code == 2 and tick.tracks[0] == "run"  # the distil track found nothing and now rests
    code, tick = run_once(reg, "main")
    assert code == 2 and tick.tracks == () and any("resting" in n for n in tick.notes)
    with journal.open("a") as fh:  # new material arrives but stays quiet
        fh.write(
            json.dumps(
                {
                    "type": "user",
                    "message": {"content": "the bike lock code changed to the old one"},
                }
            )
            + "\n"
        )
    old = time.time() - 3600
    os.utime(journal, (old, old))
    calls = model.count("kura_candidates")
    code, tick = run_once(
        reg, "main"
    )  # a new quiet spell: tidy runs once, the distil track still rests
    assert code == 2 and "run" not in tick.tracks and any("resting" in n for n in tick.notes)
    assert model.count("kura_candidates") == calls
    clock.t += 21 * 60  # backoff_min = 20
    code, tick = run_once(reg, "main")
    assert code == 0 and tick.tracks[0] == "run"
    assert model.count("kura_candidates") == calls + 1


def test_stale_heartbeat_means_a_dead_tender(tmp_path, model):
    cfg, _ = setup(tmp_path, model)
    clock = Clock(time.time())
    reg = reg_at(cfg, clock)
    Tender(reg, "main").beat("resting")
    assert diagnose(reg, "main").tender.state == "alive"
    clock.t += 3600
    rep = diagnose(reg, "main").to_json()
    assert rep["tender"]["state"] == "dead" and not rep["ok"]
    assert any("tender" in p for p in rep["problems"])


def test_a_second_tender_on_the_same_store_refuses(tmp_path, model, kura_bin):
    cfg, _ = setup(tmp_path, model)
    reg = reg_at(cfg, Clock(time.time()))
    first = Tender(reg, "main")
    first.acquire()
    try:
        with pytest.raises(BusyError, match="already running"):
            Tender(reg_at(cfg, Clock(time.time())), "main").acquire()
        out = subprocess.run(
            kura_bin + ["-c", str(cfg), "tend", "-s", "main", "--once"],
            capture_output=True,
            text=True,
        )
        assert out.returncode == 1 and "already running" in out.stderr
    finally:
        first.release()


def test_sigkill_mid_track_leaves_things_consistent_and_the_next_tender_resumes(
    tmp_path, model, kura_bin
):
    cfg, journal = setup(tmp_path, model, lines=5)
    model.script("kura_candidates", Hang(30.0))
    kill_mid_batch(kura_bin + ["-c", str(cfg), "tend", "-s", "main", "--poll", "0.2"], model)
    reg = reg_at(cfg, Clock(time.time()))
    rep = diagnose(reg, "main").to_json()
    assert rep["index_drift"]["files_without_line"] == [] and rep["unreadable"] == []
    held = marks.outstanding(reg.workshop("main"))
    assert [h["state"] for h in held] == ["held"]
    assert rep["tender"]["state"] == "dead"  # its pid is gone

    model.script("kura_candidates", honest_brain)
    code, tick = run_once(reg, "main")
    assert code == 0
    assert len(dr.list_drafts(reg.store("main"))) == 5
    assert marks.outstanding(reg.workshop("main")) == []
    assert list(marks.marks(reg.workshop("main")).values())[0]["mark"] == journal.stat().st_size


def test_sigterm_stops_a_resident_tender_cleanly(tmp_path, model, kura_bin):
    cfg, _ = setup(tmp_path, model)
    p = subprocess.Popen(
        kura_bin + ["-c", str(cfg), "tend", "-s", "main", "--poll", "0.2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    reg = reg_at(cfg, Clock(time.time()))
    # resting after a tick: its signal handlers are in place (they are set before the first tick)
    wait_for(
        lambda: reg.workshop("main").query("SELECT 1 FROM heartbeat WHERE state='resting'"),
        "the tender to finish its first tick",
    )
    p.send_signal(signal.SIGTERM)
    out, err = p.communicate(timeout=20)
    assert p.returncode == 0, err
    assert "tender stopped" in err
    assert diagnose(reg, "main").tender.state == "stopped"
