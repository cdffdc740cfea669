"""`kura distill drain` on the command line: the scribe's verdicts, as a line or as JSON."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.core.test_reliability_drafts import _copy, _template

ROOT = Path(__file__).resolve().parents[2]


def _drain(cfg: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KURA_")}
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run(
        [sys.executable, "-m", "kura_core", "-c", str(cfg), "distill", "drain", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )


def test_drain_prints_what_the_scribe_poured_and_tossed(tmp_path, model):
    def judge(req):  # the kettle draft is poured, the other one tossed
        if '"title": "Kettle descale"' in req.messages[-1]["content"]:
            return {"verdict": "pour", "reason": "true"}
        return {"verdict": "toss", "reason": "chatter"}

    model.script("kura_judge", judge)
    template = _template(tmp_path, model.url)

    line = _drain(_copy(template, tmp_path / "line"))
    assert (line.returncode, line.stdout, line.stderr) == (
        0,
        "main: poured 1, fixed 0, tossed 1, kept 0\n",
        "",
    )
    as_json = _drain(_copy(template, tmp_path / "json"), "--json")
    assert as_json.returncode == 0 and as_json.stderr == ""
    assert json.loads(as_json.stdout) == {
        "store": "main",
        "poured": ["kettle-descale"],
        "fixed": [],
        "tossed": ["archive-disk"],
        "kept": [],
        "errors": [],
        "stopped": "",
        "left": [],
    }
    # nothing left to judge: exit 2, and the line says so
    again = _drain(tmp_path / "line" / "kura.toml")
    assert again.returncode == 2 and again.stdout == "main: poured 0, fixed 0, tossed 0, kept 0\n"
