"""Secrets and private text: found, named, never kept.

A transcript carries credentials: a key pasted into a prompt, ``cat .env``, an ``env``
listing, a config file the agent writes, ``curl`` with a token, a stack trace with a
connection string. kura quotes evidence verbatim, so a credential that reaches evidence
would reach drafts, the gate log, memory files, model prompts and every face. This module
finds them and puts a stable marker in their place, ``[secret:github-token]``, naming the
kind and never the value. ``<private>…</private>`` (and an unclosed ``<private>`` to the
end of its text) is removed before anything else looks at the text.

What is found (each a *kind*, the word in the marker):

* provider keys and tokens by their published shapes: OpenAI, Anthropic, GitHub, GitLab,
  Slack, AWS access keys, Google, Stripe, Twilio, SendGrid, npm, PyPI, Hugging Face;
* JWTs, PEM and OpenSSH private key blocks;
* ``Authorization`` headers and bearer tokens, ``curl -u user:password``;
* passwords inside URLs and connection strings (``postgres://u:pw@host``);
* assignments to secret-named keys (``DB_PASSWORD=…``, ``"api_key": "…"``, ``token: …``,
  ``--password …``) in .env, shell, JSON, YAML and TOML forms, when the value is a
  password or looks random (a high-entropy value).

Every pattern has bounded repetition and is anchored on a literal or a character class, and
assignments are found from their key word outward with bounded look-around, so one pass
costs time linear in the text (no input can make the scan backtrack without bound). A
store may add patterns of its own (bounded too: checked when kura.toml is read) and an
allowlist of values that are not secrets (:class:`SecretRules`).
"""

from __future__ import annotations

import bisect
import functools
import math
import re
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

from .errors import ConfigError, KuraError

__all__ = [
    "BUILTIN",
    "Finding",
    "Redaction",
    "SecretRefused",
    "SecretRules",
    "active_rules",
    "drop_private",
    "marker",
    "redact_value",
    "using_rules",
]


def marker(kind: str) -> str:
    """The text that stands where a secret of *kind* was."""
    return f"[secret:{kind}]"


#: A marker already in a text: never itself a secret.
MARKER = re.compile(r"\[secret:[a-z][a-z-]{0,40}\]")


class SecretRefused(KuraError):
    """A write carries a raw secret; nothing was written."""

    status = 422


@dataclass(frozen=True)
class Finding:
    """One secret in a text: its kind and where it is (never its value)."""

    kind: str
    start: int
    end: int

    def line(self, text: str) -> int:
        """The 1-based line of *text* the secret starts on."""
        return text.count("\n", 0, self.start) + 1


@dataclass(frozen=True)
class Redaction:
    """A text with its secrets replaced by markers and its private parts removed."""

    text: str
    findings: tuple[Finding, ...] = ()
    private: int = 0

    @property
    def changed(self) -> bool:
        return bool(self.findings or self.private)

    def kinds(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(f.kind for f in self.findings))


# --------------------------------------------------------------------------- private

_PRIVATE = re.compile(r"<[ \t]{0,4}(/?)[ \t]{0,4}private[ \t]{0,4}>", re.IGNORECASE)


def drop_private(text: str) -> tuple[str, int]:
    """*text* without its ``<private>…</private>`` parts, and how many were dropped.

    Tags nest; an opening tag that is never closed hides everything after it. A closing
    tag with nothing open is removed and hides nothing.
    """
    if "<" not in text:
        return text, 0
    out: list[str] = []
    depth, pos, dropped = 0, 0, 0
    for m in _PRIVATE.finditer(text):
        closing = bool(m.group(1))
        if depth == 0:
            out.append(text[pos : m.start()])
        if closing:
            depth = max(0, depth - 1)
        else:
            dropped += depth == 0
            depth += 1
        pos = m.end()
    if not pos:
        return text, 0
    if depth == 0:
        out.append(text[pos:])
    return "".join(out), dropped


# --------------------------------------------------------------------------- shapes

_TOKEN_RUN = re.compile(r"[A-Za-z0-9_-]*")


def _run_end(run: re.Pattern[str], text: str, pos: int) -> int:
    """Where the run of *run*'s characters that starts at *pos* ends."""
    m = run.match(text, pos)
    return m.end() if m else pos


@dataclass(frozen=True)
class _Shape:
    kind: str
    pattern: re.Pattern[str]
    #: a value must also pass this (the matched text) to count
    check: Callable[[str], bool] | None = None


_UPPER, _LOWER = re.compile(r"[A-Z]"), re.compile(r"[a-z]")
_DIGIT, _LETTER = re.compile(r"[0-9]"), re.compile(r"[^\W\d_]")
_SPACE = re.compile(r"\s")


def _mixed(value: str) -> bool:
    """Upper and lower case letters and digits, as a generated key has."""
    return bool(_UPPER.search(value) and _LOWER.search(value) and _DIGIT.search(value))


def _has_digit_and_letter(value: str) -> bool:
    return bool(_DIGIT.search(value) and _LETTER.search(value))


def _shape(kind: str, prefix: str, rest: str, check: Callable[[str], bool] | None = None) -> _Shape:
    """A token that starts with *prefix* (a regex of fixed width, matched first so the
    engine can skip to it) at the start of a run: the look-behind after the prefix makes
    every run of token characters a candidate once, however often the prefix repeats
    inside it, so no stretch of text is scanned more than a bounded number of times."""
    width = len(re.sub(r"\\(.)", r"\1", re.sub(r"\[[^]]*\]", "x", prefix)))
    return _Shape(kind, re.compile(f"{prefix}(?<![A-Za-z0-9_+.-].{{{width}}}){rest}"), check)


#: Provider shapes, most specific first. Each starts with a literal prefix.
_SHAPES: tuple[_Shape, ...] = (
    _shape("anthropic-key", "sk-ant-", r"[a-z]{2,12}[0-9]{0,3}-[A-Za-z0-9_-]{32,400}"),
    _shape(
        "openai-key",
        "sk-",
        r"(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,400}",
        lambda v: _mixed(v[3:]) and not v.startswith("sk-ant-"),
    ),
    _shape("github-token", "gh[pousr]_", r"[A-Za-z0-9]{36,255}"),
    _shape("github-token", "github_pat_", r"[A-Za-z0-9_]{40,255}"),
    _shape("gitlab-token", "gl", r"(?:pat|dt|rt|ptt|cbt|oas|soat|ft|imt)-[A-Za-z0-9_-]{20,255}"),
    _shape("slack-token", "xox[abposre]-", r"[A-Za-z0-9-]{10,255}", _has_digit_and_letter),
    _shape("slack-token", r"xoxe\.xox[bp]-", r"[A-Za-z0-9-]{10,255}", _has_digit_and_letter),
    _shape("slack-token", "xapp-", r"[0-9]-[A-Za-z0-9-]{10,255}"),
    _shape("aws-access-key", "A", r"(?:KIA|SIA|BIA|CCA|3T[A-Z0-9])[A-Z0-9]{16}(?![A-Za-z0-9])"),
    _shape("google-api-key", "AIza", r"[0-9A-Za-z_-]{35}"),
    _shape("google-oauth-token", r"ya29\.", r"[0-9A-Za-z_-]{20,2048}"),
    _shape("google-client-secret", "GOCSPX-", r"[A-Za-z0-9_-]{20,64}"),
    _shape("stripe-key", "[sr]k_", r"(?:live|test)_[A-Za-z0-9]{16,247}"),
    _shape("stripe-key", "whsec_", r"[A-Za-z0-9]{24,64}"),
    _shape("twilio-key", "SK", r"[0-9a-f]{32}(?![A-Za-z0-9])"),
    _shape("sendgrid-key", r"SG\.", r"[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{16,64}"),
    _shape("npm-token", "npm_", r"[A-Za-z0-9]{36,64}"),
    _shape("pypi-token", "pypi-AgE", r"[A-Za-z0-9_-]{50,1024}"),
    _shape(
        "huggingface-token",
        "hf_",
        r"[A-Za-z0-9]{30,40}",
        lambda v: bool(_UPPER.search(v, 3) and _LOWER.search(v, 3)),
    ),
    _shape("jwt", "eyJ", r"[A-Za-z0-9_-]{8,4096}\.eyJ[A-Za-z0-9_-]{8,8192}\.[A-Za-z0-9_-]{0,4096}"),
)
#: A Slack webhook is a URL; its secret is the path after the host.
_SLACK_HOOK = _Shape(
    "slack-webhook",
    re.compile(
        r"hooks\.slack\.com/services/(?P<v>T[A-Z0-9]{6,20}/B[A-Z0-9]{6,20}/[A-Za-z0-9]{16,64})"
    ),
)


def _placeholder(value: str) -> bool:
    """A value that stands for a secret without being one (``${TOKEN}``, ``<password>``,
    ``xxxx``, ``changeme``) or a reference to one (``$DB_PASS``, ``%(pw)s``)."""
    v = value.strip().strip("\"'`")
    return not v or bool(_PLACEHOLDER.fullmatch(v)) or bool(MARKER.search(v))


_PLACEHOLDER = re.compile(
    r"""(?ix)
    [*.x#•-]{1,64}                              # masks: ****, xxxx, ...., ----
    | <[^<>\n]{0,64}>                           # <password>, <your-token>
    | \$\{?[A-Za-z_][A-Za-z0-9_]{0,64}\}?         # $VAR, ${VAR}
    | \$\(\S{0,64}\)                            # $(command)
    | %\(?[A-Za-z_]{0,32}\)?s                   # %s, %(password)s
    | \{\{?[^{}\n]{0,64}\}?\}                   # {password}, {{ secret }}
    | (?:your|my|some|the|example|dummy|fake|test|placeholder)[_-][A-Za-z0-9_-]{0,48}
    | changeme|change[_-]me|password|passwd|pass|pw|pwd|secret|token|api[_-]?key|redacted
    | none|null|nil|true|false|undefined|empty|required|optional|string|str|env
    """
)

#: A bare identifier: in code a value like ``password=password`` or ``token=self.token``
#: names a variable; it carries no secret unless it has digits in it.
_IDENT = re.compile(r"[A-Za-z_][A-Za-z_.]{0,127}")
#: ``docker run -u 1000:1000`` or ``-u app:staff`` names a user and group, not a password.
_GROUP = re.compile(r"[0-9]{1,10}|[a-z_][a-z0-9_-]{0,15}")
_ENV_NAME = re.compile(r"[A-Z][A-Z0-9_]{1,127}")
_NUMBER = re.compile(r"[0-9]{1,32}(?:\.[0-9]{1,32})?")
_VERSION = re.compile(r"v?[0-9]{1,6}(?:[._-][0-9A-Za-z]{1,16}){1,6}")


def entropy(value: str) -> float:
    """Shannon entropy of *value* in bits per character."""
    if not value:
        return 0.0
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in Counter(value).values())


def looks_random(value: str, *, strict: bool = False) -> bool:
    """Whether *value* reads as a generated credential rather than a word, path, number
    or version: long enough, letters and digits both, no spaces, high entropy."""
    v = value.strip()
    if len(v) < (20 if strict else 12) or _SPACE.search(v):
        return False
    if v.startswith(("/", "~", "./", "../", "http://", "https://")) or "://" in v or "\\" in v:
        return False
    if not _has_digit_and_letter(v) or _VERSION.fullmatch(v) or _placeholder(v):
        return False
    return entropy(v) >= (3.5 if strict else 3.0)


# --------------------------------------------------------------------------- values

_VALUE_CHARS = r"A-Za-z0-9._~+/-"


@dataclass(frozen=True)
class _Valued:
    """A shape whose secret is one group of the match (the rest is context)."""

    kind: str
    pattern: re.Pattern[str]
    check: Callable[[str], bool]


def _not_placeholder(v: str) -> bool:
    return not _placeholder(v)


def _cjk_password(v: str) -> bool:
    """A password named in Japanese or Chinese prose: a value with a symbol in it, or two
    digits and a letter, or six digits (a word, a name such as 1Password, or a short number
    reads as prose)."""
    if _placeholder(v) or len(v) < 4 or _IDENT.fullmatch(v):
        return False
    if v.isdigit():
        return len(v) >= 6
    digits = sum(c.isdigit() for c in v)
    return not v.isalnum() or (digits >= 2 and _LETTER.search(v) is not None)


_VALUED: tuple[_Valued, ...] = (
    _Valued(
        "bearer-token",
        re.compile(r"(?i:bearer)[ \t]{1,4}([" + _VALUE_CHARS + r"]{16,4096}={0,2})"),
        _has_digit_and_letter,
    ),
    _Valued(
        "authorization",
        re.compile(
            r"(?i:authorization)[\"']?[ \t]{0,4}[:=][ \t]{0,4}[\"']?"
            r"(?:(?i:bearer|basic|token|digest|apikey|sso-key|key)[ \t]{1,4})?"
            r"([^\s\"'`\\,;]{8,4096})"
        ),
        _not_placeholder,
    ),
    _Valued(
        "password",
        re.compile(r"-(?:-user|u)[ \t]{1,4}[\"']?[^\s:\"'`]{0,128}:([^\s\"'`]{1,256})"),
        lambda v: _not_placeholder(v) and not _GROUP.fullmatch(v),
    ),
    _Valued(
        "password",
        re.compile(
            r"(?:パスワード|パスフレーズ|暗証番号|密码|密碼|口令)[ \t]{0,4}(?:(?:は|是|为|為)[ \t]{0,4}[:：=＝]?|[:：=＝])"
            r"[ \t]{0,4}[「『\"'“`]?([!-~]{4,128})"
        ),
        lambda v: _cjk_password(v.rstrip("」』\"'”`。、，,.")),
    ),
    _Valued(
        "token",
        re.compile(
            r"(?:トークン|令牌|密钥|密鑰|APIキー|API 키|アクセスキー|シークレット)[ \t]{0,4}"
            r"(?:(?:は|是|为|為)[ \t]{0,4}[:：=＝]?|[:：=＝])[ \t]{0,4}[「『\"'“`]?([!-~]{12,512})"
        ),
        lambda v: looks_random(v.rstrip("」』\"'”`。、，,.")),
    ),
    _Valued(
        "password",  # ~/.netrc: machine HOST login USER password VALUE
        re.compile(r"login[ \t]{1,8}[^\s]{1,128}[ \t]{1,8}password[ \t]{1,8}([^\s]{1,256})"),
        _not_placeholder,
    ),
    _Valued(
        "url-password",
        re.compile(r"://[^\s:/@\"'<>]{0,128}:([^\s@/\"'<>]{1,256})@"),
        _not_placeholder,
    ),
)


# --------------------------------------------------------------------------- keys

_KEYWORD = re.compile(r"(?i)pass|pwd|secret|token|key|credential|auth")
_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")
_PARTS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+")
_SEPARATOR = re.compile(r"(?:\\?[\"'])?[ \t]{0,8}(?::=|=>|==|=|:)[ \t]{0,8}")
_FLAG_SEPARATOR = re.compile(r"(?:[ \t]{1,4}|=)")
_VALUE = re.compile(
    r"\\?\"([^\"\\\n]{0,512})\\?\"|\\?'([^'\\\n]{0,512})\\?'|`([^`\n]{0,512})`"
    r"|([^\s\"'`,;&|<>(){}\[\]\\]{1,512})"
)

_PASSWORD_WORDS = frozenset({"password", "passwd", "pass", "passphrase", "pwd", "pw"})
_SECRET_WORDS = frozenset({"secret", "secrets", "token", "credential", "credentials", "auth"})
_KEY_PAIRS = frozenset(
    {"api", "access", "private", "secret", "signing", "encryption", "master", "auth", "client"}
)
#: A last name part that makes the key describe a secret rather than hold one.
_NOT_SECRET_LAST = frozenset(
    [
        "len",
        "length",
        "min",
        "max",
        "count",
        "size",
        "timeout",
        "ttl",
        "expiry",
        "expires",
        "expiration",
        "age",
        "rounds",
        "iterations",
        "policy",
        "file",
        "path",
        "dir",
        "directory",
        "name",
        "names",
        "field",
        "type",
        "types",
        "url",
        "uri",
        "endpoint",
        "id",
        "ids",
        "hint",
        "prompt",
        "label",
        "regex",
        "pattern",
        "hash",
        "hasher",
        "hashers",
        "validator",
        "validators",
        "limit",
        "limits",
        "usage",
        "budget",
        "env",
        "var",
        "header",
        "param",
        "mode",
        "format",
        "enabled",
        "required",
        "method",
        "provider",
        "source",
        "store",
        "manager",
        "helper",
        "prefix",
        "suffix",
        "index",
        "version",
        "kind",
        "reset",
        "at",
        "strength",
        "rule",
        "rules",
        "error",
        "errors",
        "message",
        "msg",
        "lifetime",
        "location",
        "ref",
        "arn",
        "set",
        "list",
        "command",
        "cmd",
        "flag",
        "option",
        "options",
        "config",
        "class",
        "input",
        "output",
        "fn",
        "func",
        "callback",
        "style",
        "color",
        "id_token_hint",
        "tokens",
        "chars",
        "bytes",
        "used",
        "remaining",
        "estimate",
        "estimated",
        "counter",
        "cost",
        "pricing",
        "rate",
    ]
)
_NOT_SECRET_KEY_BEFORE = frozenset(
    [
        "primary",
        "foreign",
        "sort",
        "cache",
        "partition",
        "public",
        "pub",
        "ssh",
        "gpg",
        "idempotency",
        "dedup",
        "lookup",
        "hash",
        "map",
        "dict",
        "row",
        "column",
        "object",
        "unique",
        "composite",
        "sharding",
        "routing",
        "group",
        "hot",
        "shortcut",
        "translation",
        "i18n",
        "react",
        "list",
        "data",
        "index",
        "sign",
        "host",
    ]
)


def _name_kind(name: str) -> tuple[str, bool] | None:
    """The kind of secret a key of this name holds, and whether its value must look
    strongly random (a bare ``*_key``); None when the name is not secret-ish."""
    parts = [p.lower() for p in _PARTS.findall(name)]
    if not parts or parts[-1] in _NOT_SECRET_LAST:
        return None
    words = set(parts)
    if ("secret" in words and "access" in words) or ("aws" in words and "secret" in words):
        return "aws-secret-key", False
    if words & (_PASSWORD_WORDS - {"pass"}) or parts[-1] == "pass":
        return "password", False
    pairs = set(zip(parts, parts[1:], strict=False))
    if ("private", "key") in pairs:
        return "private-key", False
    if "token" in words:
        return "token", False
    if ("secret", "key") in pairs:
        return "secret", False
    if "apikey" in words or any(a in _KEY_PAIRS and b == "key" for a, b in pairs):
        return "api-key", False
    if words & _SECRET_WORDS:
        return ("secret" if "secret" in words or "secrets" in words else "credential"), False
    if parts[-1] == "key" and len(parts) > 1 and parts[-2] not in _NOT_SECRET_KEY_BEFORE:
        return "api-key", True
    return None


def _value_counts(kind: str, value: str, quoted: bool, strict: bool, env: bool = False) -> bool:
    """Whether *value*, assigned to a key naming *kind*, is a secret. *env*: the key is an
    environment variable's (``DB_PASSWORD``), whose value is data, never code."""
    v = value.strip()
    if not v or _placeholder(v):
        return False
    if kind == "password":
        if not (quoted or env) and (_IDENT.fullmatch(v) or v.isalpha()):
            return False  # a word, or code: password=password, password=self.password
        if _NUMBER.fullmatch(v):
            return v.isdigit() and len(v) >= 6
        return len(v) >= 3
    return looks_random(v, strict=strict)


def _assignments(text: str) -> list[tuple[int, int, str]]:
    """``(start, end, kind)`` of each value assigned to a secret-named key."""
    out: list[tuple[int, int, str]] = []
    done = 0
    n = len(text)
    for m in _KEYWORD.finditer(text):
        if m.start() < done:
            continue
        a = m.start()
        while a > 0 and a > m.start() - 64 and text[a - 1] in _NAME_CHARS:
            a -= 1
        b = m.end()
        while b < n and b < m.end() + 64 and text[b] in _NAME_CHARS:
            b += 1
        done = b
        if a > 0 and text[a - 1] == "[" and text[a:b] == "secret":
            continue  # a marker: [secret:kind]
        got = _value_after(text, a, b)
        if got is None:
            continue
        start, end, quoted = got
        done = max(done, end)
        named = _name_kind(text[a:b].strip(".-"))
        if named is None:
            continue
        kind, strict = named
        env = _ENV_NAME.fullmatch(text[a:b]) is not None and text[b : b + 1] == "="
        if _value_counts(kind, text[start:end], quoted, strict, env):
            out.append((start, end, kind))
    return out


def _value_after(text: str, a: int, b: int) -> tuple[int, int, bool] | None:
    """Where the value assigned after a key at ``text[a:b]`` is, and whether quoted."""
    sep = _SEPARATOR.match(text, b)
    if sep is None and text[max(0, a - 2) : a] == "--":
        sep = _FLAG_SEPARATOR.match(text, b)
    if sep is None:
        return None
    val = _VALUE.match(text, sep.end())
    if val is None:
        return None
    for group in (1, 2, 3, 4):
        if val.group(group) is not None:
            return val.start(group), val.end(group), group != 4
    return None


# --------------------------------------------------------------------------- private keys

_PEM_BEGIN = re.compile(r"-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----")
_PEM_END = re.compile(r"-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----")
_PEM_BODY = re.compile(r"[A-Za-z0-9+/=\\\r\n\t :,-]*")


def _private_keys(text: str) -> list[tuple[int, int]]:
    """Spans of PEM/OpenSSH private key blocks, BEGIN to END; a block cut off before its
    END line runs over the key material that follows it."""
    if "PRIVATE KEY" not in text:
        return []
    ends = [m.end() for m in _PEM_END.finditer(text)]
    out: list[tuple[int, int]] = []
    covered, i = 0, 0
    for m in _PEM_BEGIN.finditer(text):
        if m.start() < covered:
            continue
        while i < len(ends) and ends[i] <= m.end():
            i += 1
        stop = ends[i] if i < len(ends) else _run_end(_PEM_BODY, text, m.end())
        out.append((m.start(), stop))
        covered = stop
    return out


# --------------------------------------------------------------------------- rules

#: Which finding wins where two overlap: a store's own pattern, then a provider's shape
#: (the most specific name), then a header or URL value, then a secret-named assignment.
_OWN, _SHAPED, _VALUED_RANK = 0, 1, 2
_ASSIGNED = _VALUED_RANK + 10  # after every valued shape, each ranked by its order


@dataclass(frozen=True)
class SecretRules:
    """What counts as a secret for one store: the built-in shapes, the store's own
    ``patterns`` (kind -> bounded regex; a group named ``secret`` marks the part to
    replace) and ``allow``, values that are never secrets (an example key in the docs)."""

    patterns: tuple[tuple[str, re.Pattern[str]], ...] = ()
    allow: frozenset[str] = field(default_factory=frozenset)

    @classmethod
    def build(
        cls, patterns: Mapping[str, str] | None = None, allow: Sequence[str] = (), where: str = ""
    ) -> SecretRules:
        """Rules from kura.toml's ``patterns`` and ``allow``; a pattern that is not a
        bounded regex is a ConfigError naming it."""
        compiled = []
        for kind, source in (patterns or {}).items():
            key = f"{where}.patterns.{kind}" if where else kind
            if not re.fullmatch(r"[a-z][a-z-]{0,40}", kind):
                raise ConfigError(
                    f"kura.toml: {key}: a secret kind is lower-case letters and hyphens "
                    "(it is written into the marker [secret:KIND])"
                )
            problem = unbounded(source)
            if problem:
                raise ConfigError(f"kura.toml: {key}: {problem}")
            try:
                compiled.append((kind, re.compile(source)))
            except re.error as exc:
                raise ConfigError(f"kura.toml: {key} is not a regular expression: {exc}") from None
        return cls(tuple(compiled), frozenset(a for a in allow if a))

    def find(self, text: str) -> tuple[Finding, ...]:
        """Every secret in *text*, in order, none overlapping."""
        if not text:
            return ()
        ranked: list[tuple[int, int, int, str]] = []
        for kind, pattern in self.patterns:
            for m in pattern.finditer(text):
                g = "secret" if "secret" in pattern.groupindex else 0
                if m.end(g) > m.start(g):
                    ranked.append((_OWN, m.start(g), m.end(g), kind))
        for shape in (*_SHAPES, _SLACK_HOOK):
            ranked += [(_SHAPED, s, e, shape.kind) for s, e in _shape_spans(shape, text)]
        for s, e in _private_keys(text):
            ranked.append((_SHAPED, s, e, "private-key"))
        for i, valued in enumerate(_VALUED):
            for m in valued.pattern.finditer(text):
                if valued.check(m.group(1)):
                    ranked.append((_VALUED_RANK + i, m.start(1), m.end(1), valued.kind))
        ranked += [(_ASSIGNED, s, e, k) for s, e, k in _assignments(text)]
        return self._settle(text, ranked)

    def _settle(self, text: str, ranked: list[tuple[int, int, int, str]]) -> tuple[Finding, ...]:
        taken: list[tuple[int, int, str]] = []
        starts: list[int] = []
        for _rank, s, e, kind in sorted(ranked):
            if self.allow and text[s:e] in self.allow:
                continue
            i = bisect.bisect_left(starts, s)
            if i > 0 and taken[i - 1][1] > s:
                continue
            if i < len(taken) and taken[i][0] < e:
                continue
            starts.insert(i, s)
            taken.insert(i, (s, e, kind))
        return tuple(Finding(kind, s, e) for s, e, kind in taken)

    def redact(self, text: str) -> Redaction:
        """*text* with ``<private>`` parts removed and every secret replaced by its
        marker."""
        if not text:
            return Redaction(text or "")
        text, private = drop_private(text)
        found = self.find(text)
        if not found:
            return Redaction(text, (), private)
        out: list[str] = []
        pos = 0
        for f in found:
            out.append(text[pos : f.start])
            out.append(marker(f.kind))
            pos = f.end
        out.append(text[pos:])
        return Redaction("".join(out), found, private)

    def refuse(self, fields: Mapping[str, Any], what: str) -> None:
        """Raise :class:`SecretRefused` when a string in *fields* (strings, lists and
        mappings of them) carries a raw secret; the message names kind and field, never
        the value."""
        for name, value in fields.items():
            for text in _strings(value):
                found = self.find(text)
                if found:
                    f = found[0]
                    raise SecretRefused(
                        f"{what}: {name} carries a raw secret ({f.kind}, line {f.line(text)}); "
                        f"nothing was written. Remove it, or write the marker {marker(f.kind)} "
                        "in its place (kura never stores a secret's value)"
                    )


def redact_value(value: Any, rules: SecretRules | None = None) -> Any:
    """*value* (a string, or lists and mappings of them, as JSON holds) with every string
    redacted by *rules* (the built-in ones by default); other values as they are."""
    rules = rules or BUILTIN
    if isinstance(value, str):
        return rules.redact(value).text if value else value
    if isinstance(value, list):
        return [redact_value(v, rules) for v in value]
    if isinstance(value, tuple):
        return tuple(redact_value(v, rules) for v in value)
    if isinstance(value, Mapping):
        return {k: redact_value(v, rules) for k, v in value.items()}
    return value


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for k, v in value.items():
            yield from _strings(k)
            yield from _strings(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _strings(v)


def _shape_spans(shape: _Shape, text: str) -> Iterator[tuple[int, int]]:
    """Spans of *shape* in *text*, each extended over the token characters that follow
    its bounded pattern; a run that goes on as base64 is data, not a token."""
    n = len(text)
    group = "v" if "v" in shape.pattern.groupindex else 0
    reached = 0
    for m in shape.pattern.finditer(text):
        start, end = m.start(group), m.end(group)
        if start < reached:
            continue  # inside a run already extended over
        end = _run_end(_TOKEN_RUN, text, end)
        reached = end
        if end < n and text[end] in "+/=":
            continue
        if shape.check is None or shape.check(text[start:end]):
            yield start, end


BUILTIN = SecretRules()


# --------------------------------------------------------------------------- user patterns


def unbounded(pattern: str) -> str:
    """Why *pattern* could make a scan slower than linear, or ``""``.

    A store's own pattern must bound every repetition (``{1,64}``, not ``+`` or ``*``),
    may not repeat a group that itself repeats, and may not use backreferences: then each
    match attempt is bounded and a scan stays linear in the text.
    """
    repeats: list[bool] = [False]  # per open group: does it hold a repetition?
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\":
            if pattern[i + 1 : i + 2] in tuple("123456789") or pattern.startswith("(?P=", i):
                return _BACKREF
            i += 2
            continue
        if c == "[":
            i = _class_end(pattern, i)
            continue
        if c == "(":
            if pattern.startswith("(?P=", i):
                return _BACKREF
            repeats.append(False)
        elif c == ")" or c in "*+{":
            inner = (repeats.pop() if len(repeats) > 1 else False) if c == ")" else False
            rep = _repeat_at(pattern, i + 1 if c == ")" else i)
            if rep == "unbounded":
                return _UNBOUNDED
            if rep and inner:
                return "a repeated group may not contain a repetition (nested quantifiers)"
            repeats[-1] = repeats[-1] or bool(rep or inner)
        i += 1
    return ""


def _class_end(pattern: str, i: int) -> int:
    """The index just past the character class that opens at *i*."""
    j = i + 1
    if pattern[j : j + 1] == "^":
        j += 1
    if pattern[j : j + 1] == "]":
        j += 1
    while j < len(pattern) and pattern[j] != "]":
        j += 2 if pattern[j] == "\\" else 1
    return j + 1


_BACKREF = "backreferences are not allowed in a secret pattern"
_UNBOUNDED = (
    "every repetition needs an upper bound: write {1,64} instead of + and {0,64} instead of *"
)
_BRACES = re.compile(r"\{([0-9]{0,6})(,?)([0-9]{0,6})\}")


def _repeat_at(pattern: str, i: int) -> str:
    """``"unbounded"``, ``"bounded"`` or ``""`` for the quantifier at *i*, if any."""
    c = pattern[i : i + 1]
    if c in ("*", "+"):
        return "unbounded"
    if c == "?":
        return "bounded"
    m = _BRACES.match(pattern, i)
    if m is None or not (m.group(1) or m.group(3)):
        return ""
    if m.group(2) and not m.group(3):
        return "unbounded"
    top = int(m.group(3) or m.group(1))
    return "unbounded" if top > 4096 else "bounded"


# --------------------------------------------------------------------------- scope

_ACTIVE: ContextVar[SecretRules] = ContextVar("kura_secret_rules", default=BUILTIN)


def active_rules() -> SecretRules:
    """The rules journal intake applies here: a store's own while its journals are read
    (:func:`using_rules`), else the built-in ones."""
    return _ACTIVE.get()


@contextmanager
def using_rules(rules: SecretRules) -> Iterator[SecretRules]:
    """Apply *rules* to every journal read inside the block (in this thread)."""
    token = _ACTIVE.set(rules)
    try:
        yield rules
    finally:
        _ACTIVE.reset(token)


F = TypeVar("F", bound=Callable[..., Any])


def under_store_rules(fn: F) -> F:
    """Run ``fn(registry, selector, …)`` with the selected store's secret rules active,
    so what its journals say is redacted by that store's patterns and allowlist."""

    @functools.wraps(fn)
    def wrapper(reg: Any, selector: Any, *args: Any, **kwargs: Any) -> Any:
        with using_rules(reg.spec(selector).secrets):
            return fn(reg, selector, *args, **kwargs)

    return cast(F, wrapper)
