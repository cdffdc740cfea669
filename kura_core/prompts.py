"""How every model prompt is laid out, so a local server's prefix cache pays off.

The charter comes first, byte-identical for every role; then the learned profile (when the
store has one), byte-identical too; then the role's stable instructions; then any large
stable material (the index); the task's own input is always the last message. Nothing
volatile (dates, counters, the question) may appear before the last message.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Preamble:
    """What every role reads first: the store's charter, then its learned profile."""

    charter: str
    profile: str = ""

    def text(self) -> str:
        parts = []
        if self.charter.strip():
            parts.append("# What this store is for (charter)\n\n" + self.charter.strip())
        if self.profile.strip():
            parts.append("# What this store has learned (profile)\n\n" + self.profile.strip())
        return "\n\n".join(parts)


def system_prompt(charter: str | Preamble, instructions: str, stable: str = "") -> str:
    head = charter if isinstance(charter, Preamble) else Preamble(charter)
    parts = []
    if head.text():
        parts.append(head.text())
    parts.append("# Your task\n\n" + instructions.strip())
    if stable:
        parts.append(stable.rstrip("\n"))
    return "\n\n".join(parts) + "\n"


def messages(
    charter: str | Preamble, instructions: str, task_input: str, stable: str = ""
) -> list[dict[str, str]]:
    return [
        {"role": "system", "content": system_prompt(charter, instructions, stable)},
        {"role": "user", "content": task_input},
    ]


#: What the deterministic gate cannot see (docs/TRUST.md, "What the deterministic gate
#: cannot see"), asked of the drain judge one by one. The gate has made sure every word and
#: figure was said, measured or done by someone other than the agent; these are the twists
#: left when every word and figure is vouched.
TRUST_QUESTIONS = """\
Ask of the draft, against its evidence, each of these -- any "yes" means fix or toss:
1. Does the text contradict a quote, or reverse it (keep -> delete, allow -> forbid, more ->
   less), using only words the quotes contain?
2. Is a figure, date, name or identifier attached to a different thing than in the evidence
   (two figures of one line swapped, a temperature moved to the other card)?
3. Is a negation, a condition (if, unless, only when), a report (someone else said it), a
   question or a hedge (maybe, might) of the evidence missing from the text, so that it
   states as settled what the evidence only asked, doubted, reported or made conditional?
4. Is something credited to the human that the human only quoted, asked about, or heard
   from someone else -- or credited to a named person that another person said?
5. Does a line of tool output, a command or a file mean something else than the text reads
   into it (a cron line is not a clock time; an example is not a setting)?
6. Is the agent's own view, guess or plan presented as a fact, a measurement or a decision?"""
