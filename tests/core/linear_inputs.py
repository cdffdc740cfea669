"""Pathological inputs and a growth measure, shared by the linear-time tests.

An input *family* is a function from a size ``n`` to a text of about ``n`` characters built
to make a backtracking matcher work hard: long runs of Markdown and table punctuation at line
starts, openers that are never closed followed by large bodies, long digit and CJK-numeral
runs, Japanese and Chinese without punctuation, minified JSON, and the characters and words a
given pattern itself is made of. ``grows_linearly`` times a call at ``n`` and ``10 n`` and says
whether the cost grew like the input (10x the input within ~15x the time) under a hard cap.

Times are CPU times (``time.process_time``), best of three, so a loaded machine slows both
sizes alike instead of failing the test.
"""

from __future__ import annotations

import json
import random
import re
import signal
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

Family = Callable[[int], str]

#: Characters that open Markdown structure, tables, rules, diffs and quotes.
RUN_CHARS = "-#*>+=|~_"
WHITESPACE = (" ", "\t", "\n", " \t", "\r\n")

JA = "これは句読点のない長い日本語の文章で設定ファイルを三回読み直した結果です"
ZH = "我们今天讨论了很多关于系统设计的问题用户说要把缓存改成两千五百条"
CJK_NUMERALS = "〇一二三四五六七八九十百千万億兆两廿卅零"

OPENERS = (
    "<",
    "<a>",
    "<system-reminder>",
    "<command>",
    "<think>",
    "</",
    "<!--",
    "```",
    "```python\n",
    '"',
    "'",
    "`",
    "“",
    "「",
    "(",
    "[",
    "[[",
    "{",
    "**",
    "<<EOF\n",
    "<<'EOF'\n",
    "$(",
    "${",
    "\\",
    "%",
    "http://",
    "---\n",
)


def _fill(unit: str, n: int) -> str:
    """``unit`` repeated to about ``n`` characters (at least once)."""
    return unit * max(1, n // max(1, len(unit)))


def _mixed(alphabet: str, seed: int, line_every: int = 0) -> Family:
    def make(n: int) -> str:
        rng = random.Random(seed)
        out = []
        for i in range(n):
            if line_every and i % line_every == 0:
                out.append("\n")
            else:
                out.append(rng.choice(alphabet))
        return "".join(out)

    return make


def _json(n: int) -> str:
    rng = random.Random(7)
    items = []
    size = 0
    while size < n:
        item = {
            "id": rng.randrange(10**6),
            "type": rng.choice(["message", "tool_use", "function_call"]),
            "text": rng.choice(["- [ ] 1. ok", "# ---- x", "3万円", "a:b", "<b>x"]),
            "nested": {"xs": [1, 2.5, -3e4, None, True], "s": '\\n\\t\\"q'},
        }
        text = json.dumps(item, separators=(",", ":"), ensure_ascii=False)
        items.append(text)
        size += len(text) + 1
    return "[" + ",".join(items) + "]"


def common_families() -> dict[str, Family]:
    """Inputs every pattern is run against."""
    fams: dict[str, Family] = {}
    for c in RUN_CHARS:
        fams[f"run {c!r}"] = lambda n, c=c: _fill(c, n)
        fams[f"run {c!r} then x"] = lambda n, c=c: _fill(c, n) + "x"
        fams[f"lines of {c!r}"] = lambda n, c=c: _fill(c * 40 + " 1. x\n", n)
        fams[f"spaced {c!r}"] = lambda n, c=c: _fill(c + " ", n) + "1)"
    for w in WHITESPACE:
        fams[f"whitespace {w!r}"] = lambda n, w=w: _fill(w, n) + "x"
    fams["mixed markup"] = _mixed(RUN_CHARS + " \t", 1)
    fams["mixed markup lines"] = _mixed(RUN_CHARS + " \t1.)", 2, line_every=97)
    for op in OPENERS:
        fams[f"unclosed {op!r}"] = lambda n, op=op: op + _fill("body text ", n)
        fams[f"openers {op!r}"] = lambda n, op=op: _fill(op + "x ", n)
    fams["digits"] = lambda n: _fill("1", n)
    fams["digits then 万"] = lambda n: _fill("9", n) + "万"
    for unit in ("1,", "1.", "1e", "1 ", "12:", "1-", "1/", "0x", "v1.", "1万", "1x", "1h"):
        fams[f"digit units {unit!r}"] = lambda n, unit=unit: _fill(unit, n)
    fams["cjk numerals"] = lambda n: _fill(CJK_NUMERALS, n)
    fams["cjk one"] = lambda n: _fill("一", n)
    fams["cjk digits mixed"] = _mixed(CJK_NUMERALS + "0123456789.年月日時分", 3)
    fams["japanese"] = lambda n: _fill(JA, n)
    fams["chinese"] = lambda n: _fill(ZH, n)
    fams["kana"] = lambda n: _fill("あ", n)
    fams["minified json"] = _json
    fams["long line, then more"] = lambda n: _fill("we said it ", n) + "\nnext."
    fams["long japanese line, then more"] = lambda n: _fill(JA, n) + "\n次。"
    fams["escaped quotes"] = lambda n: 'echo "' + _fill('a\\" ', n)
    fams["escaped single quotes"] = lambda n: _fill("printf 'a\\' ", n)
    fams["letters"] = lambda n: _fill("a", n)
    fams["words"] = lambda n: _fill("the user said we ", n)
    fams["capitals"] = lambda n: _fill("Alice Bob ", n)
    return fams


def pattern_alphabet(pattern: re.Pattern[str] | re.Pattern[bytes]) -> tuple[str, list[str]]:
    """The characters a pattern can match literally or by class, and its literal words."""
    try:
        from re import _parser  # type: ignore[attr-defined]

        tree = _parser.parse(
            pattern.pattern
            if isinstance(pattern.pattern, str)
            else pattern.pattern.decode("latin-1"),
            pattern.flags & ~re.UNICODE if isinstance(pattern.pattern, bytes) else pattern.flags,
        )
    except Exception:  # a private module changed shape: fall back to the source text
        src = pattern.pattern if isinstance(pattern.pattern, str) else pattern.pattern.decode()
        return "".join(sorted(set(src))), []
    chars: set[str] = set()
    words: list[str] = []
    _walk(_parser, tree, chars, words)
    return "".join(sorted(chars)), [w for w in words if len(w) > 1]


def _walk(p, tree, chars: set[str], words: list[str]) -> None:
    """Gather the characters of a parsed pattern, and its runs of literal characters."""
    run: list[str] = []
    for op, av in tree:
        if op is p.LITERAL:
            chars.add(chr(av))
            run.append(chr(av))
            continue
        if run:
            words.append("".join(run))
            run = []
        if op is p.IN:
            _walk_class(p, av, chars)
        elif op is p.CATEGORY:
            chars.add(_CATEGORY_CHAR.get(str(av), "a"))
        elif op is p.NOT_LITERAL:
            chars.add("x" if av != ord("x") else "y")
        for sub in _children(p, op, av):
            _walk(p, sub, chars, words)
    if run:
        words.append("".join(run))


def _walk_class(p, items, chars: set[str]) -> None:
    for op, av in items:
        if op is p.LITERAL:
            chars.add(chr(av))
        elif op is p.RANGE:
            lo, hi = av
            chars.update({chr(lo), chr(hi), chr((lo + hi) // 2)})
        elif op is p.CATEGORY:
            chars.add(_CATEGORY_CHAR.get(str(av), "a"))


def _children(p, op, av) -> list:
    """The sub-patterns of one parsed item."""
    if op in (p.MAX_REPEAT, p.MIN_REPEAT, p.POSSESSIVE_REPEAT):
        return [av[2]]
    if op is p.SUBPATTERN:
        return [av[-1]]
    if op is p.ATOMIC_GROUP:
        return [av]
    if op is p.BRANCH:
        return list(av[1])
    if op in (p.ASSERT, p.ASSERT_NOT):
        return [av[1]]
    if op is p.GROUPREF_EXISTS:
        return [sub for sub in av[1:] if sub is not None]
    return []


_CATEGORY_CHAR = {
    "CATEGORY_DIGIT": "7",
    "CATEGORY_NOT_DIGIT": "a",
    "CATEGORY_SPACE": " ",
    "CATEGORY_NOT_SPACE": "a",
    "CATEGORY_WORD": "a",
    "CATEGORY_NOT_WORD": "-",
}


def pattern_families(pattern: re.Pattern[str] | re.Pattern[bytes]) -> dict[str, Family]:
    """Inputs made of the pattern's own characters and words: each character repeated, the
    whole alphabet shuffled (with and without line breaks), and each literal word repeated
    or left open before a large body."""
    alphabet, words = pattern_alphabet(pattern)
    fams: dict[str, Family] = {}
    for ch in alphabet[:: max(1, len(alphabet) // 40)]:  # at most ~40, spread over the range
        fams[f"own char {ch!r}"] = lambda n, ch=ch: _fill(ch, n)
    if alphabet:
        fams["own alphabet"] = _mixed(alphabet, 11)
        fams["own alphabet lines"] = _mixed(alphabet, 12, line_every=61)
        fams["own alphabet spaced"] = _mixed(alphabet + "  ", 13)
    for w in dict.fromkeys(words[:40]):
        fams[f"own word {w!r}"] = lambda n, w=w: _fill(w, n)
        fams[f"own word {w!r} spaced"] = lambda n, w=w: _fill(w + " ", n)
        fams[f"own word {w!r} open"] = lambda n, w=w: w + _fill("body text ", n)
    return fams


# --------------------------------------------------------------------------- timing


class TooSlow(Exception):
    """A single call ran past the absolute cap."""


@contextmanager
def _cap(seconds: float) -> Iterator[None]:
    """Interrupt the block once the process has used *seconds* of CPU (a profiling timer:
    a loaded machine stretches the wall clock, not this). The regex engine checks for
    signals as it works, so even a runaway match stops."""

    def _raise(signum, frame):
        raise TooSlow(f"over {seconds:.1f} CPU seconds")

    old = signal.signal(signal.SIGPROF, _raise)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, old)


def cpu_time(call: Callable[[], object], cap: float, repeat: int = 3) -> float:
    """Best-of-``repeat`` CPU seconds of ``call``; raises TooSlow past ``cap`` CPU seconds."""
    best = float("inf")
    for _ in range(repeat):
        with _cap(cap):
            t0 = time.process_time()
            call()
            best = min(best, time.process_time() - t0)
    return best


@dataclass(frozen=True)
class Growth:
    ok: bool
    small: float
    big: float
    why: str = ""


def grows_linearly(
    run: Callable[[str], object],
    family: Family,
    n: int,
    *,
    factor: float = 15.0,
    floor: float = 0.02,
    cap: float = 2.0,
    retry: tuple[int, ...] = (4, 16),
) -> Growth:
    """Time ``run`` on ``family(n)`` and ``family(10 n)``. A big run under ``floor`` CPU
    seconds passes at once (20 ms: a loaded machine's page faults and cache misses reach a
    few ms on a scan that costs well under one; a super-linear scan of the big input costs
    seconds); otherwise the big run may cost at most ``factor`` times the
    small one plus the floor. A failure is measured again at each of ``retry`` times the
    size, and only one that fails every time fails (a blip on a loaded machine does not
    repeat, a fixed bound on the work per item -- a window, a cache -- fills up; quadratic
    work only grows). Any run past ``cap`` CPU seconds fails at once."""
    g = _growth(run, family, n, factor, floor, cap)
    for scale in retry:
        if g.ok or g.big >= cap:
            return g
        # a retry allows a third more: large inputs suffer most from a busy machine's caches
        g = _growth(run, family, scale * n, factor * 4 / 3, floor, cap)
    return g


def _growth(
    run: Callable[[str], object], family: Family, n: int, factor: float, floor: float, cap: float
) -> Growth:
    small_text, big_text = family(n), family(10 * n)
    try:
        big = cpu_time(lambda: run(big_text), cap, repeat=1)
        if big < floor:
            return Growth(True, 0.0, big)
        small = cpu_time(lambda: run(small_text), cap, repeat=1)
        if big <= factor * small + floor:
            return Growth(True, small, big)  # a quadratic run outgrows any blip on the small one
        for _ in range(3):  # in turns, so both sizes meet the same load
            big = min(big, cpu_time(lambda: run(big_text), cap, repeat=1))
            small = min(small, cpu_time(lambda: run(small_text), cap, repeat=1))
    except TooSlow as e:
        return Growth(False, 0.0, cap, f"a call {e}")
    if big <= factor * small + floor:
        return Growth(True, small, big)
    return Growth(False, small, big, f"{small * 1000:.2f} ms at n={n}, {big * 1000:.2f} ms at 10n")
