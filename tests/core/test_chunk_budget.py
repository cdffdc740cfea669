"""The time budget of one chunk: a check that overruns it shelves that chunk with a note
(file, offset, check), the loop moves on, and the watermark never passes the chunk.

The overrun is injected, not raced: a fake floor advances a fake clock when it sees the
marked candidate, through the ``pipeline.Checks`` seam. Nothing here sleeps.
"""

from __future__ import annotations

import os
import re
import signal
import threading
import time

import pytest

from kura_core.budget import Deadline, Overran
from kura_core.config import load_config
from kura_core.distill import marks, pipeline
from kura_core.distill.gate import Floors
from kura_core.doctor import diagnose
from kura_core.floors import check_surface
from kura_core.registry import Registry
from kura_core.tend import Tender
from kura_core.vocabulary import GateLogKind
from tests.core.test_distill import config, echo_scribe, honest_brain, write_journal

SLOW = "the slow floor trips on this line"


class Clock:
    def __init__(self, t: float = 1000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


def slow_checks(clock: Clock, *, seconds: float = 500.0) -> pipeline.Checks:
    """Real floors, except that the surface floor takes *seconds* on the marked line."""

    def surface(fields, evidence, **kw):
        if SLOW in str(fields.get("title", "")):
            clock.t += seconds
        return check_surface(fields, evidence, **kw)

    return pipeline.Checks(floors=Floors(surface=surface), clock=clock)


# --------------------------------------------------------------------------- the deadline


def test_the_deadline_counts_only_the_checks_and_names_the_one_that_overran():
    clock = Clock(0.0)
    d = Deadline(10.0, clock)
    clock.t = 6.0
    d.check("first step")  # 6 of 10
    with d.paused():  # a model call: not counted, however long
        clock.t = 500.0
        with d.paused():
            clock.t = 900.0
    clock.t = 903.0
    d.check("second step")  # 9 of 10
    clock.t = 905.0
    with pytest.raises(Overran) as got:
        d.check("third step")
    assert got.value.check == "third step" and got.value.spent == pytest.approx(11.0)
    assert "chunk_seconds" in str(got.value)  # what to do about it


def test_no_budget_never_overruns():
    clock = Clock(0.0)
    d = Deadline(0, clock)
    clock.t = 10**9
    d.check("anything")
    Deadline.unlimited().check("anything")


# --------------------------------------------------------------------------- the distiller


def _journal(tmp_path):
    lines = [
        "the spare key hangs in the hall closet",
        SLOW + " and nothing else",
        "the boiler is serviced every october",
        "the cat eats twice a day and no more",
    ]
    path = write_journal(tmp_path / "journals" / "j.jsonl", [("user", t) for t in lines])
    return path, lines


def _setup(tmp_path, model):
    path, lines = _journal(tmp_path)
    cfg = config(tmp_path, model.url, chunk_chars=60)  # one line per chunk
    model.script("kura_candidates", honest_brain)
    model.script("kura_compose", echo_scribe)
    return cfg, path, lines


def _line_starts(path):
    out, pos = [], 0
    for raw in path.read_bytes().splitlines(keepends=True):
        out.append(pos)
        pos += len(raw)
    return out


def test_an_overrunning_check_shelves_its_chunk_and_the_run_moves_on(tmp_path, model):
    cfg, path, lines = _setup(tmp_path, model)
    reg = Registry.open(cfg)
    clock = Clock()
    rep = pipeline.run(reg, "main", checks=slow_checks(clock))

    assert rep.overran == 1 and rep.shelved == 0 and not rep.stopped
    assert rep.batches == 3 and len(rep.drafts) == 3  # the chunks before AND after it
    starts = _line_starts(path)
    ws = reg.workshop("main")
    (held,) = marks.outstanding(ws)
    assert held["state"] == "shelved" and (held["start"], held["end"]) == (starts[1], starts[2])
    note = held["reason"]
    for part in (str(path), f"byte {starts[1]}–{starts[2]}", "floor: the candidate's text"):
        assert part in note
    assert rep.errors == (note,)
    # the watermark waits below the shelved chunk: nothing after it is lost, nothing skipped
    assert marks.mark_of(ws, marks.journal_key("claude", path)) == starts[1]

    (logged,) = ws.gate_log(kinds=(GateLogKind.SHELVED,))
    detail = logged["detail"]
    assert detail["check"] == "floor: the candidate's text" and detail["start"] == starts[1]
    assert detail["journal"] == str(path) and logged["reason"] == note

    doc = diagnose(reg, "main")
    assert any(f"{starts[1]}–{starts[2]}" in n and "floor: the candidate" in n for n in doc.notes)


def test_a_shelved_chunk_is_tried_again_by_a_later_run_and_the_mark_reaches_the_end(
    tmp_path, model
):
    cfg, path, _ = _setup(tmp_path, model)
    reg = Registry.open(cfg)
    clock = Clock()
    pipeline.run(reg, "main", checks=slow_checks(clock))
    # still too slow: shelved again, once, and the run ends instead of looping on it
    again = pipeline.run(reg, "main", checks=slow_checks(clock))
    ws = reg.workshop("main")
    (held,) = marks.outstanding(ws)
    assert again.overran == 1 and again.batches == 0 and held["attempts"] == 2
    # the check is fast again: the chunk is drunk and the watermark reaches the end
    fine = pipeline.run(reg, "main", checks=slow_checks(clock, seconds=0.0))
    assert fine.batches == 1 and len(fine.drafts) == 1 and fine.overran == 0
    assert marks.outstanding(ws) == []
    assert marks.mark_of(ws, marks.journal_key("claude", path)) == path.stat().st_size


def test_the_budget_comes_from_kura_toml(tmp_path, model):
    cfg, path, _ = _setup(tmp_path, model)
    cfg.write_text(cfg.read_text().replace("max_items = 50", "max_items = 50\nchunk_seconds = 0"))
    reg = Registry.open(cfg)
    assert reg.config.stores["main"].distill.chunk_seconds == 0
    rep = pipeline.run(reg, "main", checks=slow_checks(Clock()))  # 0: no limit
    assert rep.overran == 0 and rep.batches == 4
    cfg.write_text(cfg.read_text().replace("chunk_seconds = 0", "chunk_seconds = 900"))
    assert Registry.open(cfg).config.stores["main"].distill.chunk_seconds == 900


def test_model_time_does_not_count_against_the_budget(tmp_path, model):
    cfg, path, _ = _setup(tmp_path, model)
    clock = Clock()

    def slow_brain(req):
        clock.t += 10_000  # the model thinks for hours: its own timeout governs that
        return honest_brain(req)

    model.script("kura_candidates", slow_brain)
    rep = pipeline.run(
        Registry.open(cfg), "main", checks=pipeline.Checks(floors=Floors(), clock=clock)
    )
    assert rep.overran == 0 and rep.batches == 4


# --------------------------------------------------------------------------- the tender


def test_the_tender_moves_on_past_a_chunk_that_overruns(tmp_path, model):
    cfg, path, _ = _setup(tmp_path, model)
    old = time.time() - 3600
    os.utime(path, (old, old))
    wall = Clock(time.time())
    reg = Registry(load_config(cfg), clock=wall)
    tender = Tender(reg, "main", clock=wall, checks=slow_checks(Clock()))
    tick = tender.tick()
    assert tick.tracks[0] == "run" and not tick.failed and tick.did_work
    (note,) = [n for n in tick.notes if n.startswith(pipeline.OVERRAN)]
    assert str(path) in note and "floor: the candidate's text" in note
    log = (reg.store("main").still / "tend.log").read_text()
    assert "shelved " + note in log
    assert tender.counts["drafted"] == 3


# --------------------------------------------------------------------------- preemption

#: backtracks through 2**28 ways of splitting the run before it gives up: minutes, unless
#: something interrupts it
RUNAWAY = (re.compile(r"(a+)+$"), "a" * 28 + "b")


def test_a_step_that_never_reaches_a_check_is_interrupted_where_it_is():
    d = Deadline(0.05)
    t0 = time.monotonic()
    with pytest.raises(Overran) as got, d.preempting(), d.step("floor: a runaway pattern"):
        RUNAWAY[0].match(RUNAWAY[1])
    assert got.value.check == "floor: a runaway pattern"
    assert time.monotonic() - t0 < 20  # the budget plus its grace, not the minutes it needs
    assert signal.getitimer(signal.ITIMER_REAL)[0] == 0  # nothing left armed


def test_the_timer_sleeps_while_the_clock_is_paused():
    d = Deadline(30.0)
    with d.preempting():
        assert signal.getitimer(signal.ITIMER_REAL)[0] > 0
        with d.paused():
            assert signal.getitimer(signal.ITIMER_REAL)[0] == 0
        assert signal.getitimer(signal.ITIMER_REAL)[0] > 0
    assert signal.getitimer(signal.ITIMER_REAL)[0] == 0


def test_outside_the_main_thread_the_budget_stays_cooperative():
    armed = []

    def work():
        with Deadline(30.0).preempting():
            armed.append(signal.getitimer(signal.ITIMER_REAL)[0])

    t = threading.Thread(target=work)
    t.start()
    t.join()
    assert armed == [0.0]


def test_a_runaway_floor_is_shelved_by_the_distiller_and_the_run_moves_on(tmp_path, model):
    cfg, path, _ = _setup(tmp_path, model)
    cfg.write_text(cfg.read_text().replace("max_items = 50", "max_items = 50\nchunk_seconds = 3"))

    def runaway(fields, evidence, **kw):
        if SLOW in str(fields.get("title", "")):
            RUNAWAY[0].match(RUNAWAY[1])
        return check_surface(fields, evidence, **kw)

    reg = Registry.open(cfg)
    rep = pipeline.run(reg, "main", checks=pipeline.Checks(floors=Floors(surface=runaway)))
    assert rep.overran == 1 and rep.batches == 3 and len(rep.drafts) == 3
    (held,) = marks.outstanding(reg.workshop("main"))
    assert "floor: the candidate's text" in held["reason"] and str(path) in held["reason"]
