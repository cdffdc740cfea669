"""Prose documents versus configuration, code and data files.

What an agent writes into a configuration, code or data file is an action: it licenses
"this is now set" (ACT). What it writes into a prose document -- notes, a README, a plan
in Markdown -- is its own prose (SELF), however official the file looks. The decision is
made on the file name alone, so it is the same for every adapter and every tool:

* prose: ``.md .markdown .mdx .mdown .txt .text .rst .adoc .asciidoc .org .tex .rtf .log
  .note .notes .wiki .textile``, and extensionless names such as ``README``, ``NOTES``,
  ``CHANGELOG``, ``TODO`` (any case, with or without one of those extensions);
* not prose (ACT), although ``.txt``: dependency and build lists that tools read --
  ``requirements*.txt``, ``constraints*.txt``, ``CMakeLists.txt``, ``robots.txt``,
  ``LICENSE`` texts are prose;
* everything else -- ``.toml .yaml .json .service .conf .ini .env .py .sh``, crontabs,
  ``Dockerfile``, files without an extension -- is configuration, code or data (ACT).
"""

from __future__ import annotations

import os
import posixpath
import re

PROSE_SUFFIXES = frozenset(
    {
        ".md",
        ".markdown",
        ".mdx",
        ".mdown",
        ".mkd",
        ".txt",
        ".text",
        ".rst",
        ".adoc",
        ".asciidoc",
        ".org",
        ".tex",
        ".rtf",
        ".log",
        ".note",
        ".notes",
        ".wiki",
        ".textile",
    }
)
PROSE_STEMS = frozenset(
    {
        "readme",
        "notes",
        "note",
        "changelog",
        "changes",
        "todo",
        "history",
        "news",
        "authors",
        "contributing",
        "license",
        "licence",
        "copying",
        "journal",
        "diary",
        "memo",
        "memory",
        "plan",
        "summary",
        "report",
    }
)
_DRIVE = re.compile(r"[A-Za-z]:[\\/]")
#: data files named .txt. A name counts when the run of name characters that ends it holds
#: one of the words before its ".txt"; the run is read from its start and only the first
#: word in it is tried (if that one fails, every later one does), so a long name costs one
#: pass, not one per occurrence of the word.
_DATA_TXT = re.compile(
    r"""
      (?<![\w.-])(?>[\w.-]*?(?:requirements|constraints|dev-requirements))[\w.-]*+$(?<=\.txt)
    | cmakelists\.txt$ | robots\.txt$ | llms\.txt$
    """,
    re.IGNORECASE | re.VERBOSE,
)


def is_prose_path(path: str) -> bool:
    """True when a file named *path* is a prose document (see the module docstring)."""
    if not path:
        return False
    name = posixpath.basename(path.replace("\\", "/")).strip()
    if not name:
        return False
    lower = name.lower()
    if _DATA_TXT.search(lower):
        return False
    stem, dot, suffix = lower.rpartition(".")
    if not dot or not stem:  # no extension (or a dotfile such as .env)
        return lower.lstrip(".") in PROSE_STEMS and not lower.startswith(".")
    return "." + suffix in PROSE_SUFFIXES


def resolve(path: str, cwd: str = "") -> str:
    """*path* made absolute against *cwd* (when both are known) and normalised."""
    if not path:
        return path
    p = path.strip()
    if cwd and not (p.startswith("/") or p.startswith("~") or _DRIVE.match(p)):
        p = posixpath.join(cwd.replace("\\", "/"), p)
    if p.startswith(("/", "~")):
        p = posixpath.normpath(p)
    return p


def same_file(a: str, b: str) -> bool:
    return bool(a) and os.path.normcase(a) == os.path.normcase(b)
