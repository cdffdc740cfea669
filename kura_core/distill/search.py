"""Where many strings first occur in one long text, in one pass.

The gate asks, for every piece of a tool's output that a quote lands in, whether the agent
wrote or typed that piece earlier in the batch. Asked one ``str.find`` at a time that is a
scan of everything the agent typed per piece; here it is one Aho-Corasick pass for all of
them (``pyahocorasick``), and each piece's first occurrence is all that is kept.
"""

from __future__ import annotations

from collections.abc import Iterable

import ahocorasick

from ..budget import Deadline

#: matches between two looks at the deadline
_CHECK_EVERY = 1 << 16


def first_occurrences(
    text: str, patterns: Iterable[str], deadline: Deadline | None = None
) -> dict[str, int]:
    """Where each of *patterns* first starts in *text* (-1 when it does not occur).

    Matches of a pattern already placed are wasted work; when a periodic text makes them
    outnumber what is left to scan plus the patterns' own length, the automaton is made
    again from the patterns not yet placed and the scan goes on from where it was (less
    the longest pattern, so no occurrence is cut). Every remake drops at least one pattern.
    """
    deadline = deadline or Deadline.unlimited()
    out = {p: -1 for p in patterns}
    live = [p for p in out if p]
    if "" in out:
        out[""] = 0
    pos = 0
    while live and pos <= len(text):
        restart = _scan(text, pos, live, out, deadline)
        if restart is None:
            break
        live = [p for p in live if out[p] < 0]
        pos = restart
    return out


def _scan(
    text: str, pos: int, live: list[str], out: dict[str, int], deadline: Deadline
) -> int | None:
    """One pass from *pos*; where to go on from when wasted matches got too many, else None."""
    auto = ahocorasick.Automaton()
    for k, p in enumerate(live):
        auto.add_word(p, k)
    auto.make_automaton()
    longest = max(len(p) for p in live)
    allowed = len(text) - pos + sum(len(p) for p in live)
    waste = 0
    for seen, (end, k) in enumerate(auto.iter(text, pos), 1):
        p = live[k]
        if out[p] < 0:
            out[p] = end - len(p) + 1
        else:
            waste += 1
            if waste > allowed:
                return max(pos, end - longest + 1)
        if not seen % _CHECK_EVERY:
            deadline.check("gate: the agent's own words")
    return None
