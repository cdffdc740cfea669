"""Identifiers the number floor compares exactly: e-mail addresses, URLs, domains, paths,
commit SHAs and codes (a booking reference PCS-44817, a plate MA68TPX, CVE-2024-1234).

An identifier in a stored text must be one the evidence shows: ``admin@example.org`` is not
vouched by ``admin@example.com``, ``/var/log/api.log`` not by ``/var/log/app.log``,
``3f2a9c2`` not by ``3f2a9c1``. Less specific is allowed, never more: a domain is vouched by
a URL or address on that host, a path by the same path or one it is the tail or a parent
of, a short SHA by a longer one it begins.

Each pattern is one flat character-class run anchored at a token start (no nested
quantifiers); the rest is checked in Python. Linear time.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

IDENTIFIER = "identifier"

_URL = re.compile(r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{0,15}://[^\s<>\"'`)\]}]+")
_EMAIL = re.compile(r"(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+")
_PATH = re.compile(r"(?<![\w./~%-])(?:~|\.\.?)?/[\w.@%+/-]+")
#: A home folder at the head of a path: the one ``~`` stands for.
_HOME = re.compile(r"(?:/home/[^/\s]+|/Users/[^/\s]+|/root|~)(?=/)")
#: A file named without a leading slash (10-mail.conf, 2024-report.pdf, budget_2026.xlsx,
#: oncall/rota-2026-12.yaml): a name of letters, digits, "-" and "_" with an extension of the list below. Its digits
#: are part of the name, not figures.
_FILE_EXTENSIONS = (
    "conf|cfg|ini|toml|ya?ml|json|jsonl|xml|csv|tsv|xlsx?|docx?|pptx?|pdf|txt|md|rst|log|"
    "rules|service|timer|sh|bash|zsh|ps1|py|js|mjs|ts|tsx|jsx|go|rs|rb|java|kt|swift|c|h|"
    "cpp|hpp|cs|php|sql|html?|css|scss|env|lock|png|jpe?g|gif|svg|webp|mp3|mp4|mov|zip|"
    "tar|gz|tgz|7z|ipynb|r|parquet|db|sqlite"
)
_FILE = re.compile(
    # with its folders when it has them (oncall/rota-2026-12.yaml)
    # never from the minutes of a clock time (22:30跑daily_push.py)
    rf"(?<![\w./~@-])(?<!\d:)(?:[\w.-]+/){{0,8}}[A-Za-z0-9][\w-]*(?:\.[\w-]+)*\.(?:{_FILE_EXTENSIONS})"
    r"(?![\w-])(?!\.[\w-])",  # a sentence's full stop may follow it
    re.IGNORECASE,
)
_SHA = re.compile(r"(?<![A-Za-z0-9])[0-9a-f]{7,40}(?![A-Za-z0-9])")
_DOTTED = re.compile(r"(?<![\w@./-])[A-Za-z0-9][A-Za-z0-9.-]*[A-Za-z0-9]")
#: Top-level domains that are not also common file extensions (.md, .sh, .py …).
_TLDS = frozenset(
    [
        "com",
        "org",
        "net",
        "io",
        "dev",
        "app",
        "jp",
        "cn",
        "co",
        "uk",
        "de",
        "fr",
        "info",
        "biz",
        "edu",
        "gov",
        "tv",
        "xyz",
        "ai",
        "cloud",
        "site",
        "tech",
        "us",
        "eu",
        "ru",
        "tw",
        "hk",
        "kr",
        "sg",
        "au",
        "ca",
        "nl",
        "se",
        "ch",
        "local",
        "lan",
        "internal",
        "test",
        "example",
    ]
)
_TRAIL = ".,;:!?"
#: A code: letters and digits in one token, hyphens or underscores between them. What is
#: one is decided in Python (:func:`_is_code`), not by the pattern.
_CODE = re.compile(
    r"(?<![A-Za-z0-9_./@:-])[A-Za-z0-9]+(?:[-_][A-Za-z0-9]+)*+(?![A-Za-z0-9_@]|[./:-][A-Za-z0-9])"
)


_PARTS = re.compile(r"[-_]")


def _is_code(raw: str) -> bool:
    """Whether a token is a code: it holds letters and at least two digits, and is not a
    figure with its unit (64GB, 30min, 1080p, 3rd): a letter comes before a digit in it,
    and it is at least five characters long or has three digits."""
    if any(len(part) >= 3 and part.isalpha() and part.islower() for part in _PARTS.split(raw)):
        return False  # every-90-days, top-10-list: a phrase around a figure, not a code
    digits = sum(ch.isdigit() for ch in raw)
    if digits < 2 or not any(ch.isalpha() for ch in raw):
        return False
    if raw[0].isdigit():
        # 64GB, 2nd, 1080p, 1920x1080, 13d24h: a figure and its unit. A docket or part
        # number that starts with digits (24-cv-0917) is a code: parts, one of them opening
        # with a letter, digits after it, and at least four digits in all
        parts = _PARTS.split(raw)
        lettered = [i for i, part in enumerate(parts) if i and part[:1].isalpha()]
        if len(parts) == 1:
            # a tax or registration number that opens with digits (a GSTIN,
            # 27AAHCP7315M1Z2): ten characters or more, letters among them and digits after
            # a letter -- no figure and its unit is that long
            letters = sum(ch.isalpha() for ch in raw)
            first = next(i for i, ch in enumerate(raw) if ch.isalpha())
            return len(raw) >= 10 and letters >= 3 and any(ch.isdigit() for ch in raw[first:])
        return (
            digits >= 4
            and bool(lettered)
            and any(ch.isdigit() for ch in "".join(parts[lettered[0] :]))
        )
    return len(raw) >= 5 or digits >= 3


def _host(url: str) -> str:
    rest = url.split("://", 1)[1]
    return rest.split("/", 1)[0].split("@")[-1].split(":")[0].lower()


def identifiers(text: str) -> list[tuple[int, int, str, str]]:
    """Every identifier in *text*: (start, end, sort, canonical form) with sort one of
    url, email, domain, path, sha; overlapping finds are left to the first, longest."""
    found: list[tuple[int, int, str, str]] = []
    taken: list[tuple[int, int]] = []

    def add(a: int, b: int, sort: str, canon: str) -> None:
        if any(x < b and a < y for x, y in taken):
            return
        taken.append((a, b))
        found.append((a, b, sort, canon))

    for m in _URL.finditer(text):
        raw = m.group(0).rstrip(_TRAIL)
        scheme, rest = raw.split("://", 1)
        host, _, tail = rest.partition("/")
        canon = f"{scheme.lower()}://{host.lower()}" + (f"/{tail}" if tail else "")
        add(m.start(), m.start() + len(raw), "url", canon.rstrip("/"))
    for m in _EMAIL.finditer(text):
        raw = m.group(0).rstrip(_TRAIL)
        local, _, domain = raw.partition("@")
        if local and "." in domain:
            add(m.start(), m.start() + len(raw), "email", raw.lower())
    for m in _PATH.finditer(text):
        raw = m.group(0).rstrip(_TRAIL)
        if len(raw) > 1 and any(ch.isalnum() for ch in raw):
            add(m.start(), m.start() + len(raw), "path", raw.rstrip("/") or raw)
    for found_id in _names_and_codes(text):
        add(*found_id)
    for m in _DOTTED.finditer(text):
        labels = m.group(0).split(".")
        named = not all(lb.isdigit() for lb in labels[:-1])
        if len(labels) >= 2 and all(labels) and labels[-1].lower() in _TLDS and named:
            add(m.start(), m.end(), "domain", m.group(0).lower())
    found.sort()
    return found


def _names_and_codes(text: str) -> Iterator[tuple[int, int, str, str]]:
    """Files named without their folder, hashes and codes, in that order of precedence."""
    for m in _FILE.finditer(text):
        raw = m.group(0)
        if any(ch.isdigit() for ch in raw):  # only where a figure could be misread
            yield m.start(), m.end(), "path", raw
    for m in _SHA.finditer(text):
        raw = m.group(0)
        if any(ch.isdigit() for ch in raw) and any(ch.isalpha() for ch in raw):
            yield m.start(), m.end(), "sha", raw
    for m in _CODE.finditer(text):
        raw = m.group(0)
        if _is_code(raw):
            yield m.start(), m.end(), "code", raw.upper().replace("_", "").replace("-", "")


def covers(c_sort: str, c: str, e_sort: str, e: str) -> bool:
    """Whether an identifier in the evidence (*e*, of sort *e_sort*) vouches for one a model
    wrote (*c*): the same, or *c* less specific."""
    if c == e:
        return True
    if c_sort == "url":
        return e_sort == "url" and e.startswith(c + "/")
    if c_sort == "domain":
        if e_sort == "domain":
            return e.endswith("." + c)
        if e_sort == "url":
            host = _host(e)
            return host == c or host.endswith("." + c)
        if e_sort == "email":
            host = e.rsplit("@", 1)[1]
            return host == c or host.endswith("." + c)
        return False
    if c_sort == "path":
        if e_sort not in ("path", "url"):
            return False
        if c.startswith("~/"):
            # ~/.dbt/profiles.yml: the same file under the home folder the evidence names
            home = _HOME.match(e)
            rest = e[home.end() :] if home else ""
            return rest == c[1:] or rest.startswith(c[1:] + "/")
        return e.endswith(c if c.startswith("/") else "/" + c) or e.startswith(c + "/")
    if c_sort == "sha":
        return e_sort == "sha" and e.startswith(c)
    return False
