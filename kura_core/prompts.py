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
