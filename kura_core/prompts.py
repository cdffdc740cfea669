"""How every model prompt is laid out, so a local server's prefix cache pays off.

The charter comes first, byte-identical for every role; then the role's stable
instructions; then any large stable material (the index); the task's own input is
always the last message. Nothing volatile (dates, counters, the question) may appear
before the last message.
"""

from __future__ import annotations


def system_prompt(charter: str, instructions: str, stable: str = "") -> str:
    parts = []
    if charter.strip():
        parts.append("# What this store is for (charter)\n\n" + charter.strip())
    parts.append("# Your task\n\n" + instructions.strip())
    if stable:
        parts.append(stable.rstrip("\n"))
    return "\n\n".join(parts) + "\n"


def messages(charter: str, instructions: str, task_input: str, stable: str = "") -> list[dict[str, str]]:
    return [
        {"role": "system", "content": system_prompt(charter, instructions, stable)},
        {"role": "user", "content": task_input},
    ]
