"""The person's own words in a message a host may have wrapped or added to.

One rule for every adapter that meets a format without a structural mark for what the
host inserted: text a host puts around or into the person's turn -- system reminders,
editor and environment context, runtime context, attached file contents, steering
wrappers -- is never the person's. What is left when those blocks are removed is. When a
host wraps the person's words in a block of its own (``<user_query>``, ``<user_request>``),
only the inside of that block is the person's.

Blocks are XML-like tags an agent's host writes (``<system-reminder>…</system-reminder>``,
``<environment_details>…``); an unclosed block runs to the end of the text (a host that
crashed mid-write never turns its own block into the person's words). Each pass is one
regular-expression scan: linear in the text.
"""

from __future__ import annotations

import re

#: Blocks hosts add to the person's turn (names compared without case, ``-`` = ``_``).
HOST_TAGS = (
    "system_reminder",
    "system_notification",
    "environment_details",
    "environment_context",
    "ide_context",
    "ide_selection",
    "ide_opened_file",
    "editor_context",
    "attached_files",
    "user_info",
    "user_rules",
    "project_context",
    "session_context",
    "runtime_context",
    "git_status",
    "additional_data",
    "hook_context",
    "internal_instruction",
)
#: Blocks that hold the person's own words inside a host's wrapper.
PERSON_TAGS = ("user_query", "user_request", "user_message", "user_input")


def _names(names: tuple[str, ...]) -> str:
    return "|".join(n.replace("_", "[_-]") for n in sorted(names, key=len, reverse=True))


#: Only the known names open a block, so a stray ``<T>`` in code never swallows the text
#: after it, and an unclosed block is scanned once (to the end) and consumed.
_BLOCK = re.compile(
    rf"<({_names(HOST_TAGS + PERSON_TAGS)})(?:\s[^<>]*)?>(.*?)(?:</\1\s*>|\Z)",
    re.DOTALL | re.IGNORECASE,
)
_HOST = frozenset(HOST_TAGS)
_PERSON = frozenset(PERSON_TAGS)


def _norm(name: str) -> str:
    return name.lower().replace("-", "_")


#: A slash command's expanded template (spec-kit's ``/speckit.*`` and the commands built
#: like it, in Codex CLI prompts, Gemini and Qwen TOML commands, Claude Code commands): the
#: host sends the template with the person's arguments in a fenced block under
#: ``## User Input``, followed by its own instruction to consider them. Only the fenced
#: block is the person's. Anchored at the start and matched once: linear in the text.
_TEMPLATE = re.compile(
    r"\s*#{1,3} User Input[ \t]*\n\s*```[\w-]*[ \t]*\n(.*?)\n?[ \t]*```[ \t]*\n"
    r"\s*You \*\*MUST\*\* consider the user input",
    re.DOTALL,
)


def command_template(text: str) -> tuple[str, str] | None:
    """``(the person's arguments, the whole template)`` when *text* is a slash command's
    expanded template (see ``_TEMPLATE``), else ``None``."""
    m = _TEMPLATE.match(text)
    if m is None:
        return None
    return m.group(1).strip(), text.strip()


def person_words(text: str) -> str:
    """What the person wrote in *text* (see the module doc): the inside of the person's
    wrapper blocks when there are any, else the text with every host block removed. A
    slash command's expanded template gives only the arguments the person typed."""
    template = command_template(text)
    if template is not None:
        return template[0]
    if "<" not in text:
        return text.strip()
    inside: list[str] = []
    out: list[str] = []
    last = 0
    for m in _BLOCK.finditer(text):
        name = _norm(m.group(1))
        if name in _PERSON:
            inside.append(m.group(2).strip())
        elif name in _HOST:
            out.append(text[last : m.start()])
            last = m.end()
    if inside:
        return "\n".join(w for w in inside if w).strip()
    out.append(text[last:])
    return "".join(out).strip()


def host_block_names(text: str) -> list[str]:
    """The names of the host blocks in *text*, in order (for notes)."""
    return [_norm(m.group(1)) for m in _BLOCK.finditer(text) if _norm(m.group(1)) in _HOST]
