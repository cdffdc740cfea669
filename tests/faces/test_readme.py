"""Every command block marked runnable in README.md and docs/ runs as written, in a fresh
workspace, and prints what the page says it prints.

A block is runnable when the line before its opening fence is `<!-- runnable -->`. Lines
starting with `$ ` are commands; the lines after a command, up to the next command, are its
output as shown. A shown line `…` means "more output here"; timings (`9 ms`) may differ.
Paths under the temporary workspace are shown as `./`.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def runnable_blocks(text: str) -> list[list[tuple[str, list[str]]]]:
    blocks, lines, i = [], text.splitlines(), 0
    while i < len(lines):
        if (
            lines[i].strip() == "<!-- runnable -->"
            and i + 1 < len(lines)
            and lines[i + 1].startswith("```")
        ):
            j = i + 2
            cmds: list[tuple[str, list[str]]] = []
            while j < len(lines) and not lines[j].startswith("```"):
                line = lines[j]
                if line.startswith("$ "):
                    cmds.append((line[2:], []))
                elif cmds:
                    cmds[-1][1].append(line)
                j += 1
            blocks.append(cmds)
            i = j
        i += 1
    return blocks


def _norm(line: str) -> str:
    line = re.sub(r"\b\d+(\.\d+)? ms\b", "N ms", line)
    return " ".join(line.split())


def pages_with_blocks():
    return [p for p in PAGES if runnable_blocks(p.read_text(encoding="utf-8"))]


def test_the_readme_has_runnable_blocks():
    assert runnable_blocks((ROOT / "README.md").read_text(encoding="utf-8"))


@pytest.mark.slow
@pytest.mark.parametrize("page", pages_with_blocks(), ids=lambda p: p.name)
def test_runnable_blocks_run_as_written(page, tmp_path):
    steps = [c for block in runnable_blocks(page.read_text(encoding="utf-8")) for c in block]
    work = tmp_path / "work"
    work.mkdir()
    script = ["set -e"]
    for n, (cmd, _) in enumerate(steps):
        script.append(f"echo '@@step {n}@@'")
        script.append(cmd)
    script.append("echo '@@end@@'")
    env = {k: v for k, v in os.environ.items() if not k.startswith("KURA_")}
    env.update(
        HOME=str(tmp_path / "home"),
        PATH=str(Path(sys.executable).parent) + os.pathsep + env["PATH"],
        NO_COLOR="1",
    )
    out = subprocess.run(
        ["bash", "-c", "\n".join(script)],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert "@@end@@" in out.stdout, f"a command failed:\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}"
    shown = out.stdout.replace(str(work) + "/", "./").replace(str(work), ".")
    parts = re.split(r"@@step (\d+)@@\n", shown)
    produced = {
        int(parts[k]): parts[k + 1].split("@@end@@")[0] for k in range(1, len(parts) - 1, 2)
    }
    for n, (cmd, expected) in enumerate(steps):
        got = {_norm(l) for l in produced.get(n, "").splitlines()}
        for line in expected:
            if line.strip() in ("…", "") or line.strip().startswith("…"):
                continue
            assert _norm(line) in got, (
                f"{page.name}: `{cmd}` did not print:\n{line}\n--- it printed:\n{produced.get(n)}"
            )
