"""A generated Claude Code journal of any size, for the gate's throughput figures.

Realistic in mix, not in meaning: the human's prompts (some Japanese), the agent's prose,
shell commands with ``echo`` and heredoc payloads, ``Edit``/``Write`` calls with whole files,
long tool outputs (build logs, tables, ``grep`` hits, JSON) and tool outputs that print back
what the agent wrote earlier (``cat notes.md``) -- the records that make the gate's echo
and own-words checks work hardest. Seeded, so two runs write the same file.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path

_WORDS = [
    "pump",
    "controller",
    "fan",
    "curve",
    "duty",
    "cycle",
    "sensor",
    "reading",
    "config",
    "service",
    "restart",
    "log",
    "cache",
    "index",
    "build",
    "test",
    "deploy",
    "volume",
    "backup",
    "snapshot",
    "quota",
    "kernel",
    "driver",
    "thermal",
    "floor",
    "ceiling",
    "ramp",
    "threshold",
    "window",
    "batch",
    "queue",
    "retry",
    "timeout",
    "latency",
    "throughput",
    "shelf",
    "widget",
    "rack",
    "node",
    "cluster",
    "replica",
    "shard",
    "lease",
    "token",
    "budget",
    "watermark",
    "journal",
]
_JA = (
    "ポンプの設定を確認してください",
    "ファンの回転数を下げたい",
    "バックアップは毎晩三時に実行する",
    "このログの警告は無視して大丈夫です",
    "温度が高すぎるので閾値を見直す",
    "設定ファイルは別の場所に移した",
)
_ZH = ("我们决定把备份改到周末", "这个服务的延迟太高了", "配置文件已经更新")


@dataclass(frozen=True)
class GeneratedJournal:
    path: Path
    bytes: int
    records: int
    #: quotes a candidate can use, each with its class: (class, text)
    quotes: tuple[tuple[str, str], ...]


def _sentence(rng: random.Random, n: int = 12) -> str:
    words = [rng.choice(_WORDS) for _ in range(n)]
    if rng.random() < 0.4:
        words.insert(rng.randrange(len(words)), str(rng.randrange(1, 5000)))
    return " ".join(words).capitalize() + "."


def _prose(rng: random.Random, sentences: int) -> str:
    return " ".join(_sentence(rng, rng.randrange(6, 18)) for _ in range(sentences))


def _log(rng: random.Random, lines: int) -> str:
    out = []
    for i in range(lines):
        kind = rng.random()
        if kind < 0.3:
            out.append(f"[{i:05d}] {rng.choice(('INFO', 'WARN', 'DEBUG'))} {_sentence(rng)}")
        elif kind < 0.45:
            out.append(f"src/{rng.choice(_WORDS)}.py:{rng.randrange(1, 900)}:    {_sentence(rng)}")
        elif kind < 0.55:
            cells = " | ".join(f"{rng.choice(_WORDS):>10}" for _ in range(5))
            out.append(f"| {cells} |")
        elif kind < 0.6:
            out.append("+" + "-" * rng.randrange(20, 80) + "+")
        elif kind < 0.7:
            out.append(
                json.dumps({w: rng.randrange(10000) for w in rng.sample(_WORDS, 6)}, indent=None)
            )
        elif kind < 0.75:
            out.append(rng.choice(_JA) + "。" + rng.choice(_ZH) + "。")
        else:
            out.append(_sentence(rng, rng.randrange(4, 20)))
    return "\n".join(out)


class _Writer:
    def __init__(self, session: str) -> None:
        self.lines: list[str] = []
        self.size = 0
        self.n = 0
        self.session = session

    def entry(self, etype: str, content: list[dict], **extra: object) -> None:
        self.n += 1
        rec: dict[str, object] = {
            "parentUuid": None,
            "isSidechain": False,
            "userType": "external",
            "cwd": "/home/mika/rig",
            "sessionId": self.session,
            "version": "2.1.14",
            "type": etype,
            "uuid": f"00000000-0000-4000-8000-{self.n:012d}",
            "timestamp": f"2026-03-04T10:{(self.n // 60) % 60:02d}:{self.n % 60:02d}.000Z",
            "message": {"role": etype, "content": content},
        }
        rec.update(extra)
        line = json.dumps(rec, ensure_ascii=False) + "\n"
        self.lines.append(line)
        self.size += len(line.encode("utf-8"))


def _turn(w: _Writer, rng: random.Random, t: int, quotes: list[tuple[str, str]]) -> None:
    """One exchange: a prompt, the agent's prose, a few tool calls and their outputs."""
    ask = _prose(rng, rng.randrange(1, 4))
    if rng.random() < 0.2:
        ask = rng.choice(_JA) + "。" + ask
    w.entry("user", [{"type": "text", "text": ask}], origin={"kind": "human"})
    note = _prose(rng, rng.randrange(2, 6))
    w.entry("assistant", [{"type": "text", "text": note}])
    if t % 50 == 0:
        quotes.append(("USER", ask.split(".")[0]))
        quotes.append(("SELF", note.split(".")[0]))
    for k in range(rng.randrange(1, 4)):
        tid = f"toolu_{t}_{k}"
        pick = rng.random()
        if pick < 0.35:
            cmd = f"grep -rn {rng.choice(_WORDS)} src/ | head -{rng.randrange(5, 400)}"
            if rng.random() < 0.3:
                cmd = f'echo "{_sentence(rng)}" >> notes.md && ' + cmd
            if rng.random() < 0.15:
                cmd += f"\ncat > run.sh <<'EOF'\n{_log(rng, rng.randrange(3, 40))}\nEOF"
            call = {"name": "Bash", "input": {"command": cmd}}
            out = _log(rng, rng.randrange(5, 300))
        elif pick < 0.55:
            body = _log(rng, rng.randrange(20, 400))
            call = {
                "name": "Write",
                "input": {"file_path": f"/home/mika/rig/f{t}.py", "content": body},
            }
            out = f"File created successfully at: /home/mika/rig/f{t}.py"
        elif pick < 0.7:
            old, new = _log(rng, rng.randrange(2, 30)), _log(rng, rng.randrange(2, 30))
            call = {
                "name": "Edit",
                "input": {
                    "file_path": "/home/mika/rig/pump.py",
                    "old_string": old,
                    "new_string": new,
                },
            }
            out = "The file /home/mika/rig/pump.py has been updated."
        elif pick < 0.85:
            call = {"name": "Bash", "input": {"command": "cat notes.md"}}
            out = note + "\n" + _log(rng, rng.randrange(2, 20))  # the agent's words, back
        else:
            call = {"name": "Read", "input": {"file_path": "/home/mika/rig/pump.toml"}}
            out = _log(rng, rng.randrange(50, 600))
        w.entry("assistant", [{"type": "tool_use", "id": tid, **call}])
        w.entry(
            "user",
            [{"type": "tool_result", "tool_use_id": tid, "content": out}],
            origin={"kind": "human"},
        )
        if t % 50 == 25 and k == 0 and out.count("\n") > 5:
            quotes.append(("TOOL", out.splitlines()[3][:80].strip()))


def generate_journal(path: Path, target_bytes: int, *, seed: int = 7) -> GeneratedJournal:
    """Write a Claude Code transcript of about *target_bytes* to *path*."""
    rng = random.Random(seed)
    w = _Writer("9d3c1f52-7a2e-4b61-a0c4-5e8f2d7b1c90")
    quotes: list[tuple[str, str]] = []
    t = 0
    while w.size < target_bytes:
        _turn(w, rng, t, quotes)
        t += 1
    path.write_text("".join(w.lines), encoding="utf-8")
    good = [(c, q) for c, q in quotes if len(q) >= 12]
    return GeneratedJournal(path, w.size, w.n, tuple(good))


def gate_candidates(journal: GeneratedJournal, count: int, *, seed: int = 11) -> list[dict]:
    """*count* candidates quoting the journal (a few with a quote found nowhere)."""
    rng = random.Random(seed)
    out = []
    for i in range(count):
        picks = rng.sample(journal.quotes, min(2, len(journal.quotes)))
        qs = [f"[{c}] {q}" for c, q in picks]
        if i % 4 == 3:
            qs.append("[USER] a sentence nobody ever wrote in this journal")
        out.append(
            {
                "kind": "judgement" if i % 5 == 4 else "fact",
                "title": f"generated candidate {chr(97 + i % 26)}",
                "description": picks[0][1][:60] if picks else "nothing",
                "body": "I judged this from the journal." if i % 5 == 4 else picks[0][1],
                "quotes": qs,
            }
        )
    return out
