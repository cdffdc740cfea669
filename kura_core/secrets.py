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

import base64
import binascii
import bisect
import functools
import itertools
import json
import math
import re
import tomllib
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from importlib import resources
from re import _parser as re_parser  # type: ignore[attr-defined]
from typing import Any, TypeVar, cast

import ahocorasick

from .errors import ConfigError, KuraError
from .secret_views import views

__all__ = [
    "BUILTIN",
    "PRIVATE_MARK",
    "collecting",
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


def drop_private(text: str, parts: list[str] | None = None) -> tuple[str, int]:
    """*text* without its ``<private>…</private>`` parts, and how many were dropped;
    with *parts*, the dropped texts are appended to it.

    Tags nest; an opening tag that is never closed hides everything after it. A closing
    tag with nothing open is removed and hides nothing.
    """
    if "<" not in text:
        return text, 0
    out: list[str] = []
    depth, pos, dropped, hidden = 0, 0, 0, 0
    for m in _PRIVATE.finditer(text):
        closing = bool(m.group(1))
        if depth == 0:
            out.append(text[pos : m.start()])
        if closing:
            if depth == 1 and parts is not None:
                parts.append(text[hidden : m.start()])
            depth = max(0, depth - 1)
        else:
            dropped += depth == 0
            if depth == 0:
                hidden = m.end()
            depth += 1
        pos = m.end()
    if not pos:
        return text, 0
    if depth == 0:
        out.append(text[pos:])
    elif parts is not None:
        parts.append(text[hidden:])
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
    #: the shape is tried only on a text holding one of these (none: always)
    keywords: tuple[str, ...] = ()
    ident: str = ""


_UPPER, _LOWER = re.compile(r"[A-Z]"), re.compile(r"[a-z]")
_DIGIT, _LETTER = re.compile(r"[0-9]"), re.compile(r"[^\W\d_]")
_SPACE = re.compile(r"\s")


def _mixed(value: str) -> bool:
    """Upper and lower case letters and digits, as a generated key has."""
    return bool(_UPPER.search(value) and _LOWER.search(value) and _DIGIT.search(value))


def _has_digit_and_letter(value: str) -> bool:
    return bool(_DIGIT.search(value) and _LETTER.search(value))


def _upper_and_lower(value: str) -> bool:
    return bool(_UPPER.search(value) and _LOWER.search(value))


def _openai(value: str) -> bool:
    return _mixed(value[3:]) and not value.startswith(("sk-ant-", "sk-or-"))


def _not_anon_jwt(value: str) -> bool:
    """A JWT, unless its payload gives it the role ``anon``: Supabase's anon key, made to
    ship in every copy of a web app (the service-role key beside it stays a secret)."""
    parts = value.split(".")
    if len(parts) < 2 or len(parts[1]) > 4096:
        return True
    body = parts[1] + "=" * (-len(parts[1]) % 4)
    try:
        claims = json.loads(base64.urlsafe_b64decode(body))
    except (ValueError, binascii.Error):
        return True
    return not (isinstance(claims, dict) and claims.get("role") == "anon")


#: The checks a catalogue entry may name.
CHECKS: dict[str, Callable[[str], bool]] = {
    "mixed": _mixed,
    "digit_and_letter": _has_digit_and_letter,
    "upper_and_lower": _upper_and_lower,
    "openai": _openai,
    "jwt": _not_anon_jwt,
}


def _width(prefix: str) -> int:
    """The fixed width of *prefix* (a regex); ValueError when it has none."""
    low, high = re_parser.parse(prefix).getwidth()
    if low != high:
        raise ValueError(f"the prefix {prefix!r} has no fixed width")
    return int(low)


def _shape(
    kind: str,
    prefix: str,
    rest: str,
    check: Callable[[str], bool] | None = None,
    keywords: tuple[str, ...] = (),
    ident: str = "",
) -> _Shape:
    """A token that starts with *prefix* (a regex of fixed width, matched first so the
    engine can skip to it) at the start of a run: the look-behind after the prefix makes
    every run of token characters a candidate once, however often the prefix repeats
    inside it, so no stretch of text is scanned more than a bounded number of times."""
    width = _width(prefix)
    pattern = re.compile(f"(?:{prefix})(?<![A-Za-z0-9_+.-].{{{width}}}){rest}")
    return _Shape(kind, pattern, check, keywords, ident or kind)


CATALOGUE = "secret_catalogue.toml"


def catalogue_entries() -> list[dict[str, Any]]:
    """The provider catalogue as written (``secret_catalogue.toml``, shipped with kura)."""
    raw = resources.files(__package__ or "kura_core").joinpath(CATALOGUE).read_text("utf-8")
    return list(tomllib.loads(raw).get("provider", []))


def _entry_shape(entry: Mapping[str, Any]) -> _Shape:
    """One catalogue entry compiled; a malformed entry is a ValueError naming it."""
    ident = str(entry.get("id", "?"))
    kind = str(entry.get("kind") or ident)
    check_name = str(entry.get("check") or "")
    if check_name and check_name not in CHECKS:
        raise ValueError(f"{CATALOGUE}: {ident}: unknown check {check_name!r}")
    check = CHECKS.get(check_name)
    keywords = tuple(str(k) for k in entry.get("keywords", ()))
    if "pattern" in entry:
        source = str(entry["pattern"])
        if unbounded(source):
            raise ValueError(f"{CATALOGUE}: {ident}: {unbounded(source)}")
        return _Shape(kind, re.compile(source), check, keywords, ident)
    body = str(entry["body"])
    if unbounded(body):
        raise ValueError(f"{CATALOGUE}: {ident}: {unbounded(body)}")
    return _shape(kind, str(entry["prefix"]), body, check, keywords, ident)


@functools.cache
def _catalogue_keywords() -> frozenset[str]:
    """Every keyword of the catalogue, each looked for once per text."""
    return frozenset(k for shape in _scanned_shapes() for k in shape.keywords)


def _keyword_finder(words: frozenset[str]) -> tuple[ahocorasick.Automaton | None, frozenset[str]]:
    """One automaton over the keywords of two characters and more, and the shorter ones
    (":", "=") apart: each text is scanned once for all of them."""
    long = sorted(w for w in words if len(w) > 1)
    auto = None
    if long:
        auto = ahocorasick.Automaton()
        for w in long:
            auto.add_word(w, w)
        auto.make_automaton()
    return auto, frozenset(w for w in words if len(w) <= 1)


@functools.cache
def _shapes_by_keyword() -> tuple[tuple[int, ...], dict[str, tuple[int, ...]]]:
    """The provider shapes with no keyword (tried on every text), and each keyword's shapes
    (tried on a text that holds it), by their place in :func:`provider_shapes`."""
    always: list[int] = []
    by: dict[str, list[int]] = {}
    for n, shape in enumerate(_scanned_shapes()):
        if not shape.keywords:
            always.append(n)
        for k in shape.keywords:
            by.setdefault(k, []).append(n)
    return tuple(always), {k: tuple(v) for k, v in by.items()}


@functools.cache
def _catalogue_finder() -> tuple[ahocorasick.Automaton | None, frozenset[str]]:
    return _keyword_finder(_catalogue_keywords())


@functools.cache
def _valued_finder() -> tuple[ahocorasick.Automaton | None, frozenset[str]]:
    return _keyword_finder(
        frozenset(k for v in _VALUED for k in v.keywords) | _SENTENCE_KEYS | _GENERATOR_KEYS
    )


#: What a text holds when it may run a secret generator (``_GENERATOR``), lower-cased.
_GENERATOR_KEYS = frozenset(
    {"pwgen", "apg", "makepasswd", "xkcdpass", "openssl", "gpg", "/dev/", "token_", "randombytes"}
    | {"generatepassword", "get-random", "securerandom", "generate", "gen-secret", "genpasswd"}
)


#: The words for a password in Chinese and Japanese prose (an OCR's パスワ一ド too; a
#: mail service's 授权码 is the password a mail client logs in with). Every prose rule --
#: a sentence naming a secret, a quoted value after its name, a label line, a value given
#: in the next sentence -- reads this table and the next, so a word added here is known
#: to all of them.
_PASSWORD_WORDS_CJK = (
    "パスワード",
    "パスワ一ド",
    "パスコード",
    "パスフレーズ",
    "暗証番号",
    "暗証",
    "合言葉",
    "密码",
    "密碼",
    "口令",
    "授权码",
    "授權碼",
)
#: The words for a key or a token in Chinese and Japanese prose: a stream key read off a
#: settings screen (串流金钥, 推流码, ストリームキー) too.
_KEY_WORDS_CJK = (
    "密钥",
    "密鑰",
    "秘钥",
    "秘鑰",
    "私钥",
    "令牌",
    "シークレット",
    "トークン",
    "秘密鍵",
    "アクセスキー",
    "共有キー",
    "共享密钥",
    "ストリームキー",
    "金钥",
    "金鑰",
    "推流码",
    "串流码",
    "直播码",
    # a Wi-Fi router's sticker or screen: the network's key is its password
    # a licence or product key said in prose: 新しいライセンスキーは SL3163… です
    "ライセンスキー",
    "プロダクトキー",
    "認証キー",
    "マスターキー",
    "シークレットキー",
    "秘密キー",
    "激活码",
    "激活碼",
    "许可证密钥",
    "暗号化キー",
    "暗号キー",
    "ネットワークキー",
    "セキュリティキー",
    "加密密钥",
    "无线密钥",
    "無線密鑰",
)
#: What a text holds when a sentence of it may name a secret (the words of
#: ``_SECRET_SENTENCE_WORD``, lower-cased, as literal pieces): the sentence rule is read
#: only then.
_SECRET_WORDS_CJK = _PASSWORD_WORDS_CJK + _KEY_WORDS_CJK
_SENTENCE_KEYS = (
    frozenset({"pass", "secret", "token", "key", "bearer", "psk", "pw"})
    # the password words of a message forwarded from another language
    | frozenset({"senha", "contraseña", "contrasena", "passwort", "kennwort", "wachtwoord"})
    | frozenset({"mot de passe", "пароль", "キー"})
    # the key and secret words of Portuguese, Spanish and French (_GIVEN_NAME_ROMANCE)
    # ("cle" alone is inside clear and cycle: a prefilter word must be rarer than that)
    | frozenset({"chave", "clave", "clé", "segredo", "secreto", "jeton"})
    | frozenset(_SECRET_WORDS_CJK)
)


def _found(text: str, finder: tuple[ahocorasick.Automaton | None, frozenset[str]]) -> set[str]:
    auto, short = finder
    out = {w for w in short if w in text}
    if auto is not None:
        out.update(w for _end, w in auto.iter(text))
    return out


def _present(text: str) -> set[str]:
    """The catalogue's keywords *text* holds (as written)."""
    return _found(text, _catalogue_finder())


def _present_lowered(lowered: str) -> set[str]:
    """The keywords of the valued shapes a lower-cased text holds."""
    return _found(lowered, _valued_finder())


@functools.cache
def provider_shapes() -> tuple[_Shape, ...]:
    """Every shape of the provider catalogue, in its order (most specific first)."""
    return tuple(_entry_shape(e) for e in catalogue_entries())


@functools.cache
def _scanned_shapes() -> tuple[_Shape, ...]:
    """The shapes a text is scanned for: the catalogue's, then a key of one of its providers
    cut short by an ellipsis (:func:`_partial_shape`)."""
    return (*provider_shapes(), _partial_shape(catalogue_entries()))


def _partial_shape(entries: Sequence[Mapping[str, Any]]) -> _Shape:
    """A provider's key shown in part and cut short ("the old one, dapi2864b885…, is
    revoked", "ghp_R2x9Kq…"): its prefix, at least six characters of its body, then an
    ellipsis. What is shown is still the key's own characters, and is kept out as the whole
    would be. Prefixes of four characters and more only: "sk-" begins too many words."""
    prefixes = sorted(
        {str(e["prefix"]) for e in entries if "prefix" in e and _width(str(e["prefix"])) >= 4},
        key=len,
        reverse=True,
    )
    keywords = tuple(
        sorted({str(k) for e in entries if "prefix" in e for k in e.get("keywords", ())})
    )
    body = r"(?<![A-Za-z0-9_-])(?:" + "|".join(prefixes) + r")[A-Za-z0-9_-]{6,80}(?=\u2026|\.\.\.)"
    return _Shape("partial-key", re.compile(body), _has_digit_and_letter, keywords, "partial-key")


def _placeholder(value: str) -> bool:
    """A value that stands for a secret without being one (``${TOKEN}``, ``<password>``,
    ``xxxx``, ``changeme``) or a reference to one (``$DB_PASS``, ``%(pw)s``)."""
    v = value.strip().strip("\"'`")
    return not v or bool(_PLACEHOLDER.fullmatch(v)) or bool(MARKER.search(v))


_PLACEHOLDER = re.compile(
    r"""(?ix)
    [*.x#•…-]{1,64}                             # masks: ****, xxxx, ...., ----, …
    | <[^<>\n]{0,64}>                           # <password>, <your-token>
    | \$\{?[A-Za-z_][A-Za-z0-9_]{0,64}\}?         # $VAR, ${VAR}
    | \$\{[A-Za-z_][A-Za-z0-9_]{0,64}:?\?[^{}\n]{0,120}\}   # ${VAR:?set it in .env}: an error
    | \$\([^()\n]{0,200}\)                      # $(command), $(jq -r .secret f.json)
    | %\(?[A-Za-z_]{0,32}\)?s                   # %s, %(password)s
    | \{\{?[^{}\n]{0,64}\}?\}                   # {password}, {{ secret }}
    | (?:your|my|some|the|example|dummy|fake|test|placeholder)[_-][A-Za-z0-9_-]{0,48}
    | (?:get|insert|add|enter|use)[_-]your[_-](?:own[_-])?[A-Za-z0-9_-]{0,48}   # get_your_own_… (docs)
    | (?:process\.env|import\.meta\.env|os\.environ|ENV|env)(?:\.|\[["']?)[A-Za-z_][A-Za-z0-9_]{0,64}["']?\]?[,;)]?
                                                # process.env.B2_PASSWORD: where the value is read from
    | (?-i:[A-Z][A-Z0-9]{0,20}_(?:[A-Z0-9]+_){0,4}(?:PASSWORD|PASSWD|PASS|PWD|SECRET|TOKEN|KEY)(?:_[A-Z0-9]+){0,3})
                                                # B2_PASSWORD, STRIPE_SECRET_KEY: a variable's name
    | [A-Za-z0-9_-]{1,48}[_-]here                 # password_here (wp-config-sample.php)
    | put[ ]your[ ]unique[ ]phrase[ ]here
    | changeme|change[_-]me|password|passwd|pass|pw|pwd|secret|token|api[_-]?key|redacted
    | none|null|nil|true|false|undefined|empty|required|optional|string|str|env
    """
)

#: A placeholder of words in brackets that a value's pattern cut at a space: the docs'
#: ``Bearer {channel access token}``, ``-p <your password>``.
_BRACKETED = re.compile(r"\{[^{}\n]{1,64}\}|<[^<>\n]{1,64}>|\[[^\[\]\n]{1,64}\]")


def _bracketed(text: str, at: int) -> bool:
    """Whether a value found at *at* opens a bracketed placeholder of words."""
    return text[at : at + 1] in ("{", "<", "[") and _BRACKETED.match(text, at) is not None


#: A bare identifier: in code a value like ``password=password`` or ``token=self.token``
#: names a variable; it carries no secret unless it has digits in it.
_IDENT = re.compile(r"[A-Za-z_][A-Za-z_.]{0,127}")
#: ``docker run -u 1000:1000`` or ``-u app:staff`` names a user and group, not a password.
_GROUP = re.compile(r"[0-9]{1,10}|[a-z_][a-z0-9_-]{0,15}")
_ENV_NAME = re.compile(r"[A-Z][A-Z0-9_]{1,127}")
_NUMBER = re.compile(r"[0-9]{1,32}(?:\.[0-9]{1,32})?")
#: Words run together with hyphens or dots (``file``, ``on-demand``): a setting, no secret.
_IDENT_WORDS = re.compile(r"[a-z]{2,}(?:[._-][a-z]{2,}){0,6}")
_VERSION = re.compile(r"v?[0-9]{1,6}(?:[._-][0-9A-Za-z]{1,16}){1,6}")


def entropy(value: str) -> float:
    """Shannon entropy of *value* in bits per character."""
    if not value:
        return 0.0
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in Counter(value).values())


def _scrambled(value: str) -> bool:
    """Whether the letters of *value* change case as a generator's output does, not as
    words run together: two lower-case letters or more that stand alone between capitals
    (``pBArGDNnvkU``, ``fJRvPkXDZzx``), where CamelCase gives each capital its word
    (``SetMaxPoolSize``, ``XMLHttpRequest``). What tells a random string with no digit in
    it from an identifier."""
    letters = [c for c in value if c.isalpha()]
    if len(letters) < 10 or not all(c.isascii() for c in letters):
        return False
    alone = 0
    for i in range(1, len(letters) - 1):
        if letters[i].islower() and letters[i - 1].isupper() and letters[i + 1].isupper():
            alone += 1
    return alone >= 2


def looks_random(value: str, *, strict: bool = False) -> bool:
    """Whether *value* reads as a generated credential rather than a word, path, number
    or version: long enough, letters and digits both, no spaces, high entropy."""
    v = value.strip()
    if len(v) < (20 if strict else 12) or _SPACE.search(v):
        return False
    if v.startswith(("/", "~", "./", "../", "http://", "https://")) or "://" in v or "\\" in v:
        return False
    if not (_has_digit_and_letter(v) or _scrambled(v)) or _VERSION.fullmatch(v) or _placeholder(v):
        return False
    if strict and len(v) >= 32 and _HEXISH.fullmatch(v):
        return entropy(v) >= 3.0  # a hex key: at most 4 bits a character
    return entropy(v) >= (3.5 if strict else 3.0)


# --------------------------------------------------------------------------- values

_VALUE_CHARS = r"A-Za-z0-9._~+/-"


@dataclass(frozen=True)
class _Valued:
    """A shape whose secret is one group of the match (the first that took part; the rest
    is context)."""

    kind: str
    pattern: re.Pattern[str]
    check: Callable[[str], bool]
    #: tried only on a text holding one of these, in lower case (none: always)
    keywords: tuple[str, ...] = ()


def _not_placeholder(v: str) -> bool:
    return not _placeholder(v)


_TRAILING = "」』\"'”`。、，,.;:)）(（["


#: Where passwords are kept: named where a password is, never one.
_KEEPERS = frozenset(
    {"1password", "lastpass", "bitwarden", "keepass", "keepassxc", "dashlane", "keychain"}
)


def _said_password(v: str) -> bool:
    """A value a sentence names as a password (in English, Japanese or Chinese prose):
    what the sentence says makes it one, so any value counts that is not a placeholder, a
    bare lower-case word or identifier (``password is required``), or a short number."""
    v = v.rstrip(_TRAILING)
    if _placeholder(v) or len(v) < 4 or v.lower() in _KEEPERS or _a_path(v):
        return False
    if v.isdigit():
        return len(v) >= 6
    if v.isalpha() and (v.islower() or len(v) < 6):
        return False
    if _IDENT.fullmatch(v) and not _mixed(v) and not _has_digit_and_letter(v):
        return False
    return not (v.isalpha() and v[:1].isupper() and v[1:].islower())  # a Capitalised word


def _long_hex_run(v: str) -> bool:
    """Hex of twenty characters or more somewhere in *v*: a key behind a prefix."""
    return _HEX_IN.search(v) is not None


_HEX_IN = re.compile(r"[0-9a-f]{20,}")


def _random_letters(v: str) -> bool:
    """Letters only, twelve or more, that read as no word: a mail service's app password
    (qwhdkzmxptbvlcie), not "passwordrequired" or "CorrectHorse"."""
    return len(v) >= 12 and v.isascii() and v.isalpha() and not _wordy(v)


def _cjk_token(v: str) -> bool:
    return looks_random(v.rstrip(_TRAILING))


def _group(m: re.Match[str]) -> int:
    """The first group of *m* that took part in the match."""
    for i in range(1, (m.lastindex or 0) + 1):
        if m.start(i) >= 0:
            return i
    return 0


#: How a password is spelled out character by character: 大文字のK, 数字の7, 大写Q, 符号#
#: (not a policy: 英大文字と数字を含める names no character).
_SPELLED_OUT = re.compile(
    r"(?:大文字|小文字|数字|記号|英字)の[ \t]?(?:[!-~]|[ァ-ヴー]{1,5})"
    r"|(?:大写|小写|大楷|细楷|細楷|符号|字母|数字)[ \t]?[!-~]"
    # a symbol said by its name: kohaku アットマーク 2291 シャープ
    r"|アットマーク|シャープ|ハイフン|アンダーバー|アンダースコア|ビックリマーク|エクスクラメーション"
    r"|クエスチョン|アスタリスク|ドル記号|パーセント記号|艾特|井号|下划线|横杠|感叹号|星号"
)
#: A word said while recalling a value (えーと, um, 呃): no part of it.
_FILLER = (
    r"(?:[、，,][ \t]{0,2}(?:えーと|えっと|ええと|えー|あのー?|(?i:um+|uh+|erm)|嗯|呃|那个|那個)"
    r"[ー…]{0,3}[、，,]?[ \t]{0,2})?"
)
_SAID = (
    # a key in quotes first ("パスワード": "…", 「密码」：…)
    r"[\"'”」』]?[ \t]{0,4}(?:(?:は|是|为|為|も|改成了?|改为|改為|换成了?|換成了?|设为|設為|设成|设置为|設置為)"
    r"[ \t]{0,4}[:：=＝]?|[:：=＝])" + _FILLER + r"[ \t]{0,4}[「『\"'“`]?"
)
#: A secret's name given a value by a format: DB_PASSWORD=%s, "token": "%s".
_FORMAT_NAME = r"(?i:pass(?:word|wd)?|secret|token|api[_-]?key|private[_-]?key)[A-Za-z_]{0,24}[\"]?[ \t]{0,2}[=:][ \t]{0,2}[\"]?%s"
_QUOTED_OR_BARE = r"(?:'([^'\n]{1,256})'|\"([^\"\n]{1,256})\"|([^\s'\"`]{1,256}))"

_VALUED: tuple[_Valued, ...] = (
    _Valued(
        "token",  # a PHP-serialized field holding a credential (a queued job's payload:
        # s:9:"authToken";s:32:"…"), its quotes escaped once or twice inside JSON strings
        re.compile(
            r"s:[0-9]{1,3}:\\{0,3}\"[A-Za-z_]{0,24}(?i:token|secret|password|passwd|api_?key|"
            r"access_?key|private_?key)\\{0,3}\";s:[0-9]{1,4}:\\{0,3}\"([^\"\\\n]{6,512})\\{0,3}\""
        ),
        _not_placeholder,
        ('";s:',),
    ),
    _Valued(
        "bearer-token",
        re.compile(r"(?i:bearer)[ \t]{1,4}([" + _VALUE_CHARS + r"]{16,4096}={0,2})"),
        _has_digit_and_letter,
        ("bearer",),
    ),
    _Valued(
        "authorization",
        re.compile(
            r"(?i:authorization)[\"']?[ \t]{0,4}[:=][ \t]{0,4}[\"']?"
            # the scheme, whichever it is (Bearer, Basic, SSWS, GenieKey, Splunk …)
            r"(?:[A-Za-z][A-Za-z0-9-]{1,20}[ \t]{1,4})?+"
            # a scheme's parameter (Snowflake Token="…", Digest response="…"), its quotes
            # escaped when the header sits in a JSON string
            r"(?:[A-Za-z_]{1,20}=\\?[\"']?)?+"
            r"([^\s\"'`\\,;]{8,4096})"
        ),
        _not_placeholder,
        ("authorization",),
    ),
    _Valued(
        "password",  # an account and its password before a host, no scheme: a proxy's
        # deploy:…@proxy.corp.example.com:3128, a sed that writes lab-ci:…@ into a config
        re.compile(
            r"(?<![\w.:/@%+-])[A-Za-z][\w.+-]{0,63}:([^\s:@/'\"`#]{6,128}+)@"
            r"(?=[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63})+|[#|,'\"\s])"
        ),
        lambda v: _not_placeholder(v) and _has_digit_and_letter(v) and not _VERSION.fullmatch(v),
        ("@",),
    ),
    _Valued(
        "password",  # curl -u user:password, --user user:password
        re.compile(r"-(?:-user|u)[ \t]{1,4}[\"']?[^\s:\"'`]{0,128}:([^\s\"'`]{1,256})"),
        lambda v: _not_placeholder(v) and not _GROUP.fullmatch(v),
        ("-u",),
    ),
    _Valued(
        "api-key",  # curl -u KEY: (an API key as the user, the password left empty: Stripe,
        # Lambda Cloud, Mailgun's api:KEY aside)
        re.compile(r"-(?:-user|u)[ \t]{1,4}[\"']?([^\s:\"'`]{16,256}):(?=[\"']?(?:\s|$))"),
        lambda v: (
            _not_placeholder(v)
            and (_generated(v) or _long_hex_run(v) or looks_random(v, strict=True))
        ),
        ("-u",),
    ),
    _Valued(
        "password",  # echo '…' | openconnect --passwd-on-stdin, | docker login --password-stdin
        re.compile(
            r"\b(?:echo(?:[ \t]{1,4}-[neE]{1,3})?|printf(?:[ \t]{1,4}'%s')?)[ \t]{1,4}"
            + _QUOTED_OR_BARE
            + r"(?=[ \t]{0,4}\|[^\n|]{0,200}?(?:--passwd-on-stdin|--password-stdin|--password-from-stdin"
            r"|passwd[ \t]{1,4}--stdin))"
        ),
        _not_placeholder,
        ("stdin",),
    ),
    _Valued(
        "password",  # printf 'DB_PASSWORD=%s\n' '…' >> .env: the argument the format names
        re.compile(
            r"\bprintf[ \t]{1,4}(?:'[^'\n]{0,80}?" + _FORMAT_NAME + r"[^'\n]{0,40}'"
            r"|\"[^\"\n]{0,80}?" + _FORMAT_NAME + r"[^\"\n]{0,40}\")[ \t]{1,4}" + _QUOTED_OR_BARE
        ),
        _not_placeholder,
        ("printf",),
    ),
    _Valued(
        "password",  # lftp -u user,'password' (the account and its password by a comma)
        re.compile(
            r"\blftp\b[^\n]{0,200}?[ \t]-u[ \t]{1,4}[\"']?[^\s,\"']{1,64},[ \t]?" + _QUOTED_OR_BARE
        ),
        lambda v: _not_placeholder(v.rstrip("'\"")),
        ("lftp",),
    ),
    _Valued(
        "password",  # xcrun altool / notarytool -p "…": an Apple ID's app-specific password
        # (an @keychain: or @env: reference names where it is kept, and stays)
        re.compile(
            r"\b(?:altool|notarytool|iTMSTransporter)\b[^\n]{0,300}?[ \t](?:-p|--password)[ \t]{1,4}"
            + _QUOTED_OR_BARE
        ),
        lambda v: _not_placeholder(v) and not v.strip("'\"").startswith("@"),
        ("altool", "notarytool", "iTMSTransporter"),
    ),
    _Valued(
        "password",  # mysql -p'…' / -pVALUE: attached to the flag, on a mysql command line
        re.compile(
            r"(?<![\w-])(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlsh|mariadb|mariadb-dump)"
            r"\b[^\n]{0,300}?[ \t]-p" + _QUOTED_OR_BARE
        ),
        _not_placeholder,
        ("mysql", "mariadb"),
    ),
    _Valued(
        "url-secret",  # a credential in a URL's query, whatever the scheme (otpauth, https, wss)
        re.compile(
            r"[?&](?i:secret|client_secret|access_token|refresh_token|id_token|api_key|apikey"
            r"|token|sig|signature|password|passwd|pwd|x-(?:amz|goog)-(?:signature|security-token)"
            r"|wssecret|auth_key|upload_?token)=([^&#\s\"'`<>\\]{10,4096})"
        ),
        _not_placeholder,
        ("=",),
    ),
    _Valued(
        "url-secret",  # a URL signed until it expires (a live platform's push code, a CDN's
        # signed link: ?expire=…&sign=…): its sign is the credential; a request's own sign
        # beside a timestamp (Shopee's ?timestamp=…&sign=…) signs that request alone
        re.compile(
            r"[?&](?i:expires?|expiry|deadline)=[^&\s]{1,32}(?:&[\w.-]{1,32}=[^&\s]{0,256}){0,6}"
            r"&(?i:sign)=([^&#\s\"'`<>\\]{10,4096})"
            r"|[?&](?i:sign)=([^&#\s\"'`<>\\]{10,4096})"
            r"(?=(?:&[\w.-]{1,32}=[^&\s]{0,256}){0,6}&(?i:expires?|expiry|deadline)=)"
        ),
        _not_placeholder,
        ("sign=",),
    ),
    _Valued(
        "password",  # ipmitool -P PASS (the BMC's password), racadm -p, sshpass-like tools
        re.compile(r"(?<![\w-])ipmitool\b[^\n]{0,200}?[ \t]-P[ \t]{1,4}" + _QUOTED_OR_BARE),
        _not_placeholder,
        ("ipmitool",),
    ),
    _Valued(
        "password",  # a share link's extraction code: 提取码: k7xq (Baidu, 123pan …)
        re.compile(
            r"(?:提取码|提取碼|访问码|訪問碼|取件码)[ \t]*[:：][ \t]*([A-Za-z0-9]{4,8})(?![A-Za-z0-9])"
        ),
        lambda v: True,
        ("提取码", "提取碼", "访问码", "訪問碼", "取件码"),
    ),
    _Valued(
        "password",  # Oracle's connect string, user/password@host: a JDBC thin URL, and
        # what sqlplus, expdp, impdp, sqlldr and rman take on their command lines
        re.compile(
            r"(?:jdbc:oracle:(?:thin|oci):|(?<![\w-])(?:sqlplus|expdp|impdp|sqlldr|rman|exp|imp)"
            r"(?:[ \t]{1,4}-[A-Za-z]{1,2})?[ \t]{1,4}(?:target=|userid=)?)"
            r"[A-Za-z][\w$#]{0,29}/([^\s@/\"'`]{1,64})@"
        ),
        _not_placeholder,
        ("jdbc:oracle", "sqlplus", "expdp", "impdp", "sqlldr", "rman", "exp ", "imp "),
    ),
    _Valued(
        "url-secret",  # a token endpoint asked with client_id alone (CloudSign's
        # /token?client_id=…): the id is what the token is issued for, the credential
        re.compile(
            r"/(?:oauth2?/)?token\?(?:[^\s\"'#&]{0,256}&){0,8}client_id=([^&#\s\"'`<>\\]{16,256})"
        ),
        _has_digit_and_letter,
        ("client_id",),
    ),
    _Valued(
        "url-secret",  # a webhook's or a map's key= is its credential, whatever it looks like
        # (WeCom's robot key is a UUID), when it holds letters and digits (not ?key=name)
        re.compile(
            r"[?&](?i:key|app_?key|app_?secret|auth|auth_?token|private_token|access_?key"
            r"|session_?id|sk|secret_?key|client_?key|pass(?:code|key)?|credentials?)"
            r"=([^&#\s\"'`<>\\]{10,4096})"
            # a path's parameter: LINZ's /services;key=…/wmts/…
            r"|;(?i:key|api_?key|token|access_?token|auth)=([^;/?&#\s\"'`<>\\]{10,4096})"
        ),
        lambda v: _not_placeholder(v) and _has_digit_and_letter(v),
        ("=",),
    ),
    _Valued(
        "token",  # an SDK set up with its key as the first argument: rollbar.init('e0e1…'),
        # Stripe('sk_…') aside, posthog.init("phc_…"), analytics.setApiKey("…")
        re.compile(
            r"\b(?i:init|initialize|configure|setup|set_?api_?key"
            r"|set_?access_?token|set_?token|set_?key|authenticate|auth|client|api)"
            r"\([ \t]{0,2}[\"']([A-Za-z0-9_\-]{24,128})[\"']"
        ),
        lambda v: looks_random(v) or bool(re.fullmatch(r"[0-9a-fA-F]{32,128}", v)),
        (
            "init(",
            "configure(",
            "setup(",
            "key(",
            "token(",
            "auth(",
            "client(",
            "api(",
            "authenticate(",
        ),
    ),
    _Valued(
        "password",  # a password typed into a login form by a browser script: Playwright's
        # page.fill('#login-password', '…'), Selenium's send_keys, Cypress's type
        re.compile(
            r"(?i:fill|type|press_?sequentially|set_?value|setvalue)[ \t]{0,2}\([ \t]{0,2}"
            r"[\"'][^\"'\n]{0,80}(?i:pass|pwd|secret|token|pin)[^\"'\n]{0,40}[\"'][ \t]{0,2},[ \t]{0,2}"
            r"[\"']([^\"'\n]{4,128})[\"']"
        ),
        _not_placeholder,
        ("fill", "type", "setvalue", "set_value"),
    ),
    _Valued(
        "session",  # Cookie: / Set-Cookie: / curl -b: a cookie whose name says session or token
        re.compile(
            r"(?:(?i:cookie)[\"']?[ \t]{0,4}:|(?<![\w-])(?:-b|--cookie)[ \t]{1,4}[\"']?)"
            r"[^\n]{0,300}?(?<![\w.-])(?i:[\w.-]{0,32}(?:sess|sid|token|auth|jwt|remember)[\w.-]{0,32})"
            r"=([^;\s\"'`,]{8,4096})"
        ),
        _not_placeholder,
        ("cookie", "-b"),
    ),
    _Valued(
        "password",  # registry logins and sshpass give the password to a short -p flag
        re.compile(
            r"(?<![\w-])(?:(?:docker|podman|nerdctl|buildah|skopeo|oras|helm[ \t]{1,4}registry)"
            r"[ \t]{1,4}login|sshpass)\b[^\n|;&]{0,300}?[ \t]-p[ \t]{1,4}" + _QUOTED_OR_BARE
        ),
        _not_placeholder,
        ("login", "sshpass"),
    ),
    _Valued(
        "password",  # keytool, openssl, jarsigner: -storepass X, -passout pass:X, -keypass 'X'
        re.compile(
            r"(?<![\w-])(?:-(?:deststorepass|srcstorepass|storepass|destkeypass|srckeypass"
            r"|keypass)[ \t]{1,4}|-(?:passout|passin|pass)[ \t]{1,4}pass:)" + _QUOTED_OR_BARE
        ),
        lambda v: _not_placeholder(v) and not v.startswith(("env:", "file:", "fd:", "stdin")),
        ("pass",),
    ),
    _Valued(
        "api-key",  # ngrok config add-authtoken X, ngrok authtoken X
        re.compile(r"(?<![\w-])(?:add-authtoken|authtoken)[ \t]{1,4}" + _QUOTED_OR_BARE),
        lambda v: _not_placeholder(v) and len(v) >= 20,
        ("authtoken",),
    ),
    _Valued(
        "password",  # a command line that logs a user in gives the password to a short flag
        # after the user's (mosquitto_sub -u gw -P X, sqlcmd -U sa -P X, mongosh -u a -p X):
        # a value of digits alone is a port (-p 8883), never a password
        re.compile(
            r"(?<![\w-])(?:-u|-U|--user|--username)(?:[ \t]{1,4}|=)[^\s\-][^\s]{0,64}"
            r"[^\n|;&]{0,300}?[ \t](?:-p|-P|--pass|--password)(?:[ \t]{1,4}|=)" + _QUOTED_OR_BARE
        ),
        lambda v: _not_placeholder(v) and not v.isdigit() and len(v) >= 4 and not v.startswith("-"),
        ("-u",),
    ),
    _Valued(
        "password",  # redis-cli -a X, and --pass / --askpass-less forms of the same tool
        re.compile(
            r"(?<![\w-])(?:redis-cli|valkey-cli|keydb-cli)\b[^\n|;&]{0,300}?[ \t](?:-a|--pass)[ \t]{1,4}"
            + _QUOTED_OR_BARE
        ),
        _not_placeholder,
        ("-cli",),
    ),
    _Valued(
        "password",  # ldapsearch -w X: the LDAP tools take the bind password after -w
        re.compile(
            r"(?<![\w-])(?:ldapsearch|ldapmodify|ldapadd|ldapdelete|ldapwhoami|ldappasswd"
            r"|ldapcompare|ldapmodrdn|ldapexop)\b[^\n|;&]{0,300}?[ \t]-w[ \t]{1,4}"
            + _QUOTED_OR_BARE
        ),
        _not_placeholder,
        ("ldap",),
    ),
    _Valued(
        "password",  # <password>X</password>, <apiKey>X</apiKey>: an XML element named for it
        re.compile(
            r"<(?i:[\w.:-]{0,32}(?:pass(?:word|wd|phrase)?|secret|token|api[_-]?key|credential"
            r"|private[_-]?key)[\w.:-]{0,32})"
            # attributes may follow the name: FileZilla's <Pass encoding="base64">
            r"(?:[ \t]{1,4}[\w:-]{1,32}=(?:\\?\"[^\"<>\n]{0,64}\\?\"|'[^'<>\n]{0,64}')){0,4}[ \t]{0,4}>"
            r"[ \t]{0,4}([^<\s]{1,512})[ \t]{0,4}</"
        ),
        _not_placeholder,
        ("<",),
    ),
    _Valued(
        "token",  # "twilio auth token 26e5…", "the api key is 8f…": a secret's name in prose,
        # then a value that looks random
        re.compile(
            r"(?<![\w-])(?i:auth[ \t]?token|access[ \t]?token|api[ \t]?key|secret[ \t]?key"
            r"|access[ \t]?key|app[ \t]?secret|client[ \t]?secret|signing[ \t]?secret)"
            # a note in brackets between the name and its value: "API key (send it as
            # "Authorization: App <key>"): …"
            r"(?:[ \t]{0,2}[(（][^()（）\n]{1,80}[)）])?"
            r"[ \t]{0,4}(?:(?i:is|was|=|:|is now|set to)|[是为為は：])?[ \t]{0,4}[\"'“`「]?"
            r"([A-Za-z0-9_+/=.-]{16,512})"
        ),
        lambda v: looks_random(v) and _not_placeholder(v),
        ("token", "key", "secret", "Token", "Key", "Secret", "TOKEN", "KEY", "SECRET"),
    ),
    _Valued(
        "password",  # an app password (four groups of four lower-case letters: Apple's
        # with hyphens, Google's with spaces) on a line that speaks of one or of a password
        re.compile(
            r"(?i:apple|icloud|gmail|google|app[- ]specific|app[- ]password|app用|アプリ用"
            r"|パスワード|password|_pass|passwd|密码|密碼)"
            r"[^\n]{0,60}?(?<![A-Za-z0-9-])([a-z]{4}([- ])[a-z]{4}\2[a-z]{4}\2[a-z]{4})"
            r"(?![A-Za-z0-9-])"
        ),
        _not_placeholder,
        (
            "apple",
            "icloud",
            "gmail",
            "google",
            "app-specific",
            "app specific",
            "app password",
            "app_password",
            "app用",
            "アプリ用",
            "smtp",
            "_pass",
        ),
    ),
    _Valued(
        "password",  # a Wi-Fi network's QR code: WIFI:T:WPA;S:name;P:password;;
        re.compile(r"(?i:WIFI:)[^\n]{0,120}?(?<=[:;])P:((?:\\;|[^;\n]){1,63});"),
        _not_placeholder,
        ("wifi:",),
    ),
    _Valued(
        "password",  # a password a command takes as a plain argument after the account:
        # steamcmd +login USER PASS, Yamaha's pp auth myname|username USER PASS (the
        # router's own login, and a remote user's), htpasswd -b FILE
        # USER PASS, rabbitmqctl add_user USER PASS, lftp -u USER,PASS, smbclient -U USER%PASS
        re.compile(
            r"(?<![\w-])(?:steamcmd\b[^\n]{0,80}?\+login[ \t]{1,4}\S{1,64}"
            r"|pp[ \t]{1,4}auth[ \t]{1,4}(?:myname|username)[ \t]{1,4}\S{1,128}"
            r"|(?:htpasswd|mosquitto_passwd)[ \t]{1,4}-[a-zA-Z]{0,4}b[a-zA-Z]{0,4}[ \t]{1,4}\S{1,256}"
            r"[ \t]{1,4}\S{1,64}"
            r"|rabbitmqctl[ \t]{1,4}(?:add_user|change_password)[ \t]{1,4}\S{1,64})"
            r"[ \t]{1,4}"
            + _QUOTED_OR_BARE
            + r"|(?<![\w-])lftp\b[^\n]{0,80}?[ \t]-u[ \t]{1,4}[^\s,]{1,64},([^\s\"']{1,128})"
            r"|(?<![\w-])smbclient\b[^\n]{0,120}?[ \t]-U[ \t]{1,4}[^\s%]{1,64}%([^\s\"']{1,128})"
        ),
        lambda v: _not_placeholder(v) and not v.startswith(("+", "-")),
        (
            "steamcmd",
            "myname",
            "username",
            "htpasswd",
            "mosquitto_passwd",
            "rabbitmqctl",
            "lftp",
            "smbclient",
        ),
    ),
    _Valued(
        "password",  # a Go MySQL DSN: user:password@tcp(host:port)/db (no scheme)
        re.compile(r"(?<![\w/:@.-])[\w.-]{1,64}:([^\s\"'`/]{1,128})@(?:tcp|unix|tcp6)\("),
        _not_placeholder,
        ("@tcp(", "@unix(", "@tcp6("),
    ),
    _Valued(
        "password",  # Redis AUTH in the cloud's "instance:password" form, under auth
        re.compile(
            r"(?i:\bauth|requirepass|redis_password)[\"']?[ \t]{0,4}[:=][ \t]{0,4}[\"']?"
            r"[a-z]{2,8}-[a-z0-9]{6,16}:([^\s\"'`]{6,128})"
        ),
        _not_placeholder,
        ("auth", "requirepass", "redis"),
    ),
    _Valued(
        "password",  # Postfix's sasl_passwd: "[smtp.example.jp]:587 user@example.jp:password"
        re.compile(
            r"(?m)^[ \t]{0,8}\[?[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){1,8}\]?(?::\d{2,5})?"
            r"[ \t]{1,8}[!-9;-~]{1,128}:([!-~]{4,256})[ \t]*$"
        ),
        _not_placeholder,
        (":",),
    ),
    _Valued(
        "password",  # a device's configuration line: "ipsec ike pre-shared-key 1 text X"
        # (Yamaha), "username admin privilege 15 secret 0 X" (Cisco), "requirepass X" (Redis)
        re.compile(
            # a grep's file and line number before it too (1036:requirepass …)
            r"(?m)^(?:(?:[\w./~-]{1,128}:)?\d{1,7}[:-])?[ \t]{0,16}(?:[\w.-]{1,32}[ \t]{1,4}){0,4}"
            r"(?i:pre-?shared-?key|psk|password|passwd|secret|requirepass|masterauth|key-string"
            r"|auth-key|authentication-key"
            # Redis Sentinel's "sentinel auth-pass <master> X": the master's name, then it
            r"|auth-pass[ \t]{1,4}[\w.-]{1,64})"
            r"(?:[ \t]{1,4}(?:\d{1,3}|text|ascii|hex|plain|cleartext|unencrypted))*"
            r"[ \t]{1,4}([!-~]{6,256})[ \t]*\r?$"
        ),
        lambda v: _said_password(v) and not _IDENT_WORDS.fullmatch(v) and "://" not in v,
        ("key", "psk", "pass", "secret", "auth"),
    ),
    _Valued(
        "password",  # PowerShell: ConvertTo-SecureString "…" -AsPlainText
        re.compile(
            r"(?i:convertto-securestring)[ \t]{1,4}(?:-(?i:string)[ \t]{1,4})?"
            r"(?:\"([^\"\n]{1,256})\"|'([^'\n]{1,256})')"
        ),
        _not_placeholder,
        ("convertto-securestring",),
    ),
    *(
        _Valued(
            "password",  # "changed its admin password from Ward3Print!2024 to PrIvqROdq1#HD1":
            # the old one may still open something, the new one does: each is redacted
            re.compile(
                r"(?i:password|passcode|passphrase|pin)[ \t]{1,4}(?i:from)[ \t]{1,4}[\"'“`]?"
                + (r"([!-~]{4,128}?)" if old else r"[!-~]{4,128}?")
                + r"[\"'”`]?[ \t]{1,4}(?i:to)[ \t]{1,4}[\"'“`]?"
                + (r"[!-~]{4,128}?" if old else r"([!-~]{4,128}?)")
                + r"[\"'”`]?(?=[\s,.;)]|$)"
            ),
            lambda v: _not_placeholder(v) and _has_digit_and_letter(v),
            ("password", "passcode", "passphrase", "pin"),
        )
        for old in (True, False)
    ),
    _Valued(
        "password",  # "the JupyterHub shared secret is kestrel-otter-19", "Cloudflare token
        # (DNS edit) starts with ImTPO…": a sentence that says what a secret is, or how it
        # begins, names it whatever it looks like (letters and digits both, eight or more)
        re.compile(
            r"(?:(?<![\w-])(?i:secret|token|password|passphrase|passcode|pass[ \t]?word)|"
            + "(?i:"
            + "|".join(_SECRET_WORDS_CJK)
            + ")"
            + r")(?:[ \t]{1,4}\([^)\n]{1,60}\))?[ \t]{0,4}"
            r"(?:(?i:is|was|is[ \t]now|starts[ \t]with|begins[ \t]with|ends[ \t]with|set[ \t]to)"
            r"|(?:[，、][ \t]{0,2})?(?:是|は|为|為))"
            r"[ \t]{0,4}[\"'“`「]?([A-Za-z0-9_+/=.!@#$%^&*~-]{8,256}+)"
            # a place it is kept in, not its value: パスワードは 1Password に保存, 密码在 …里
            r"(?![ \t]{0,2}(?:に|で(?!す|し)|へ|から|を|の|里|裡|中|上))"
        ),
        lambda v: (
            _not_placeholder(v.rstrip(".,;:"))
            and (_has_digit_and_letter(v) or _random_letters(v.rstrip(".,;:")))
            and not _VERSION.fullmatch(v.rstrip(".,;:"))
            and "://" not in v
        ),
        ("secret", "token", "pass", "Secret", "Token", "Pass", *_SECRET_WORDS_CJK),
    ),
    _Valued(
        "api-key",  # "客服给我重新发了 key，是 rXqTbWmN2847", "新しい key は …": an English key
        # word in Chinese or Japanese prose, given by its copula, random letters and digits
        re.compile(
            r"(?<![\w-])(?i:(?:api|app|access|secret)?[ _-]?key)[ \t]{0,2}(?:[，、,][ \t]{0,2})?"
            r"(?:是|为|為|は)[ \t]{0,4}[「\"'“`]?([A-Za-z0-9_-]{8,128}+)"
            r"(?![ \t]{0,2}(?:に|で(?!す|し)|へ|から|を|の|里|裡|中|上))"
        ),
        lambda v: _has_digit_and_letter(v) and _not_placeholder(v) and looks_random(v),
        ("key", "Key", "KEY"),
    ),
    _Valued(
        "password",  # AUTH at a Redis prompt: "10.8.3.21:6379> AUTH default X", "redis> AUTH X"
        re.compile(
            r"(?m)^[ \t]{0,8}(?:[\w.-]{1,64}:\d{2,5}(?:\[\d{1,2}\])?|redis|valkey)>[ \t]{0,4}"
            r"(?i:auth)[ \t]{1,4}(?:\S{1,64}[ \t]{1,4})?" + _QUOTED_OR_BARE
        ),
        _not_placeholder,
        ("auth",),
    ),
    _Valued(
        "api-key",  # a registry's token given to its login: cargo login X, gem signin X
        re.compile(
            r"(?<![\w-])(?:cargo|npm|pnpm|yarn|gem|twine|heroku|flyctl|fly|vercel|netlify|doctl|"
            r"railway|supabase)[ \t]{1,4}(?:auth[ \t]{1,4})?(?:login|signin)[ \t]{1,4}"
            r"(?:--?[\w-]{1,20}(?:=\S{0,64})?[ \t]{1,4}){0,3}" + _QUOTED_OR_BARE
        ),
        lambda v: _not_placeholder(v) and len(v) >= 16 and not v.startswith("-"),
        ("login", "signin"),
    ),
    _Valued(
        "password",  # 密码 qiuyu-7734-Lan: a password after its word and a space alone, when
        # it is written as one (letters and digits, no spaces)
        re.compile(r"(?:パスワード|密码|密碼|口令)[ \t]{1,2}([!-~]{6,128})(?![!-~])"),
        lambda v: _said_password(v) and _has_digit_and_letter(v),
        ("パスワード", "密"),
    ),
    _Valued(
        "password",  # recovery and backup codes named by their sentence, in any of the three
        re.compile(
            r"(?:リカバリー?コード|リカバリキー|復旧コード|バックアップコード|回復コード|恢复码|恢复代码"
            r"|备用码|备份码|救援码|復原碼|(?i:recovery[ \t]code|backup[ \t]code|recovery[ \t]key))"
            r"s?" + _SAID + r"([A-Za-z0-9]{4,12}(?:[ \t-][A-Za-z0-9]{4,12}){0,9})(?![A-Za-z0-9])"
        ),
        lambda v: _not_placeholder(v) and any(c.isdigit() for c in v),
        ("コード", "码", "碼", "code", "キー", "key"),
    ),
    _Valued(
        "password",
        re.compile(
            r"(?:パスワード|パスフレーズ|暗証番号|密码|密碼|口令|密钥|密鑰|秘钥|私钥|秘密鍵|シークレット"
            # a PIN in capitals that is more than digits: PINは "DP-3674-hojin"
            r"|(?<![A-Za-z])PIN(?![A-Za-z]))"
            # when it was or is now: 口令原来是 X, 密码现在是 X, パスワードは前は X
            r"(?:原来|以前|之前|现在|現在|目前|本来|原先|新的|旧的|舊的|最初)?"
            + _SAID
            + r"([!-~]{4,128})(?![!-~])"
            # not where it is kept (…は settings.py に書いた), but what it is set to (…は X
            # にしてある, に変更した)
            r"(?![ \t]{0,2}(?:に(?!し|変|設|す|な)|で(?!す)|へ|から|を|の|と|里|中|上))"
        ),
        _said_password,
        ("パス", "暗証", "密", "口令", "秘钥", "私钥", "秘密鍵", "シークレット", "pin"),
    ),
    _Valued(
        "password",  # a PIN named by its sentence: 暗証番号は3176, PIN: 3176, 支付密码是 482913
        re.compile(
            r"(?:暗証番号|暗証コード|(?<![A-Za-z])(?i:pin)(?:コード|码|碼|[ \t]?(?i:code))?"
            r"|(?i:passcode)|支付密码|取款密码|支付密碼|验证码|驗證碼|認証コード|確認コード"
            r"|ワンタイムパスワード|(?i:otp|one-time code|verification code))"
            + r"(?:"
            + _SAID
            + r"|[ \t]{1,2})(\d{4,12}|\d{2,4}(?:[ \t-]\d{2,4}){1,3}|\d(?:[ \t]\d){3,11})(?![\d])"
            r"(?![ \t]{0,2}(?:桁|位|文字|字|個|回|次|分|秒|日|月|年|円|元|人|件|%|(?i:digit|char|number)))"
        ),
        _not_placeholder,
        (
            "暗証",
            "pin",
            "passcode",
            "密",
            "验证",
            "驗證",
            "認証",
            "確認",
            "ワンタイム",
            "otp",
            "code",
        ),
    ),
    _Valued(
        "password",  # dictated in pieces: 密码是 Qm 加 7731 加 river, "Qm plus 7731"
        re.compile(
            r"(?:パスワード|暗証番号|密码|密碼|口令|(?i:password|passcode))"
            + _SAID
            + r"((?:[!-~]{1,32}[ \t]{0,2}(?:加|＋|\+|プラス|と|(?i:plus))[ \t]{0,2}){1,6}[!-~]{1,32})"
        ),
        lambda v: len(re.sub(r"[ \t]|加|＋|\+|プラス|と|(?i:plus)", "", v)) >= 6,
        ("パス", "暗証", "密", "口令", "pass"),
    ),
    _Valued(
        "password",  # spelled out: パスワードは大文字のK、小文字のp、数字の7 … moana です
        re.compile(
            r"(?:パスワード|暗証番号|密码|密碼|口令)(?:は|是|：|:)[ \t]{0,4}"
            r"([^。\n]{4,120}?)(?=[ \t]{0,2}(?:です|でした|だよ|だ。|。|\n|$))"
        ),
        lambda v: len(_SPELLED_OUT.findall(v)) >= 2,
        ("パス", "暗証", "密", "口令"),
    ),
    _Valued(
        "password",  # 密码是六六八八九一九五: a password said in Chinese or Japanese digits
        re.compile(
            r"(?:パスワード|暗証番号|密码|密碼|口令|支付密码)"
            + _SAID
            + r"([〇零一二三四五六七八九两]{4,16})(?![〇零一二三四五六七八九十百千万億亿两])"
        ),
        _not_placeholder,
        ("パス", "暗証", "密", "口令"),
    ),
    _Valued(
        "password",  # the old one, named beside its change: パスワードは先月変えました（前は
        # umeboshi8726 でした）, 之前是 …, "it used to be …"
        re.compile(
            r"(?:パスワード|暗証番号|密码|密碼|(?i:password|passcode))[^\n。]{0,40}?"
            r"(?:前は|以前は|元は|之前是|以前是|原来是|原來是|(?i:used[ \t]+to[ \t]+be|was[ \t]+previously"
            r"|the[ \t]+old[ \t]+one[ \t]+(?:is|was)))[ \t:：]{0,4}[「\"'“`]?([!-~]{6,64})"
        ),
        lambda v: _not_placeholder(v.rstrip(_TRAILING)) and _has_digit_and_letter(v),
        (
            "前は",
            "以前",
            "元は",
            "之前",
            "以前是",
            "原来",
            "原來",
            "used to",
            "previously",
            "old one",
        ),
    ),
    _Valued(
        "password",  # "the password is X — sorry, the right one is Y", 不好意思，正确的是 Y: a
        # correction right after a secret is named gives the secret again
        re.compile(
            r"(?:(?i:password|passphrase|secret|token|key|pin)|パスワード|シークレット|トークン"
            r"|密码|密碼|密钥|密鑰|秘钥)[^\n]{0,120}?\n?[^\n]{0,60}?"
            r"(?:(?i:the[ \t]+(?:right|correct|actual|real|new)[ \t]+one[ \t]+is)|正确的是|正確的是"
            r"|正しいのは|正しくは)[ \t:：]{0,4}[\"'“`「]?([!-~]{6,256})"
        ),
        lambda v: _not_placeholder(v.rstrip(_TRAILING)) and _has_digit_and_letter(v),
        ("right one", "correct one", "actual one", "real one", "new one", "正确", "正確", "正し"),
    ),
    _Valued(
        "password",  # a secret sent in parts: "first part is Tq8v-Lm29", "rest of the password: …"
        re.compile(
            r"(?i:(?:first|second|last|other)[ \t](?:part|half|bit|piece)|"
            r"(?:the[ \t])?rest[ \t]of[ \t](?:the[ \t]|my[ \t]|it)?[a-z \t]{0,24}?"
            r"(?:password|passphrase|secret|token|key|pin)?)"
            r"[ \t]{0,2}(?i:is|:)[ \t]{1,4}([!-~]{4,64})"
        ),
        lambda v: (
            (_has_digit_and_letter(w := v.strip(_TRAILING + "`'\"")) and len(w) >= 6)
            or (len(w) >= 10 and _upper_and_lower(w) and sum(c.isupper() for c in w[1:]) >= 2)
        ),
        ("part", "rest", "half", "bit"),
    ),
    _Valued(
        "secret",  # a secret sent in halves: 前半: adDHImLM…, 後半: zuDhH5…
        re.compile(
            r"(?:前半|後半|后半|前一半|后一半|上半|下半|(?i:first half|second half|part[ \t]?[12]))"
            r"[ \t]{0,2}[:：][ \t]{0,4}([!-~]{8,128})"
        ),
        lambda v: looks_random(v.rstrip(_TRAILING)),
        ("半", "half", "part", "Part"),
    ),
    _Valued(
        "password",  # English prose: "the PIN is 3176", "passcode was 904412"
        re.compile(
            r"(?<![A-Za-z])(?i:pin(?:[ \t]code)?|passcode)"
            r"[ \t]{1,4}(?i:is|was|will be|is now|set to|changed to)[ \t]{1,4}[\"'“`]?"
            r"(\d{4,12})(?!\d)(?![ \t]{0,2}(?i:digit|char|number))"
        ),
        _not_placeholder,
        ("pin", "passcode"),
    ),
    _Valued(
        "password",  # English prose: "the wifi password is X", "password: X"
        re.compile(
            r"(?i:pass(?:word|wd|phrase|code)|pwd|pin|(?:recovery|backup)[ \t](?:key|code)s?)"
            r"[ \t]{1,4}(?i:is|are|was|will be|became|is now|set to|changed to"
            r"|(?:has|have|had)[ \t]+been[ \t]+(?:changed|reset|set)[ \t]+to|(?:was|were)[ \t]+"
            r"(?:changed|reset|set)[ \t]+to)[ \t]{1,4}"
            r"[\"'“`]?([!-~]{4,128})"
        ),
        _said_password,
        ("pass", "pwd", "pin", "recovery", "backup"),
    ),
    _Valued(
        "token",
        re.compile(
            r"(?:トークン|令牌|密钥|密鑰|API[ \t]?キー|API 키|アクセスキー|シークレット|秘密鍵|秘密キー)"
            r"(?:[（(][^）)\n]{1,8}[）)])?"  # チャネルアクセストークン（長期）: …
            + _SAID
            + r"([!-~]{12,512})"
        ),
        _cjk_token,
        ("トークン", "令牌", "密", "キー", "키", "シークレット", "秘密鍵"),
    ),
    _Valued(
        "password",  # ~/.netrc: machine HOST login USER password VALUE (one line or several)
        re.compile(
            r"machine[ \t]{1,8}[^\s]{1,128}\s{1,40}"
            r"(?:login[ \t]{1,8}[^\s]{1,128}\s{1,40})?password[ \t]{1,8}([^\s]{1,256})"
        ),
        _not_placeholder,
        ("password",),
    ),
    _Valued(
        "password",  # a .netrc line without its machine: login USER password VALUE, where a
        # word of a sentence is no password ("write a login or password into a file")
        re.compile(r"login[ \t]{1,8}[^\s]{1,128}\s{1,40}password[ \t]{1,8}([^\s]{1,256})"),
        lambda v: _not_placeholder(v) and not (v.isalpha() and v.islower()),
        ("password",),
    ),
    _Valued(
        "password",  # ~/.pgpass: host:port:database:user:password
        re.compile(
            # (a database's and a user's names hold no quote or semicolon: s:7:"subject";s:12:…
            # is a PHP-serialized string, not a .pgpass line)
            r"(?m)^[ \t]{0,8}[^\s:#\"';][^\s:\"';]{0,252}:(?:[0-9]{1,5}|\*):[^\s:\"';]{1,128}:[^\s:\"';]{1,128}"
            r":([^\s]{1,256})[ \t]{0,8}$"
        ),
        _not_placeholder,
        (":",),
    ),
    _Valued(
        "url-password",
        re.compile(r"://[^\s:/@\"'<>]{0,128}:([^\s@/\"'<>]{1,256})@"),
        _not_placeholder,
        ("://",),
    ),
    _Valued(
        "password",  # "the desk lamp's key wasn't there, so I copied it by hand, it's
        # `lQ@~-K8q;lWE@P}/`": a value in backticks in a sentence that names a secret
        re.compile(
            r"(?:(?<![\w-])(?i:key|password|passcode|passphrase|token|secret|pin)(?![\w-])|"
            + "(?i:"
            + "|".join(_SECRET_WORDS_CJK)
            + ")"
            + r")[^.!?。！？\n`]{0,160}`([^`\s]{8,128})`"
        ),
        lambda v: _backticked_secret(v),
        ("key", "pass", "token", "secret", "pin", *_SECRET_WORDS_CJK),
    ),
    _Valued(
        "password",  # part of a secret, told by where it stands: "the app token starting
        # zHS9cf9e3WQ", client_secret … 末尾が 661c990288, 密钥开头是 …
        re.compile(
            r"(?:(?<![A-Za-z0-9-])(?i:key|password|passcode|passphrase|token|secret)|"
            + "(?i:"
            + "|".join(_SECRET_WORDS_CJK)
            + ")"
            + r")[^\n]{0,120}?"
            r"(?:(?i:starting|beginning|ending|starts|begins|ends|started|began|ended)"
            r"(?:[ \t]{1,3}(?:with|in))?"
            r"|(?:末尾|先頭|頭|最初|最後|开头|開頭|结尾|結尾|末尾|前几位|后几位|前幾位|後幾位|"
            # a secret sent in two halves: SK 分两段发。前半段：…
            r"前半段|后半段|後半段|上半段|下半段|前一半|后一半|後一半|前半|後半|后半"
            r"|(?i:first|second|last)[ \t]half|(?i:part)[ \t]?(?:1|2|one|two))"
            r"[ \t]{0,2}(?:が|は|是|为|為|[:：]))"
            # a part written as one, after an ellipsis: 末尾が …Kw0E=
            r"[ \t]{0,4}[\"'“`「]?(?:…|\.\.\.|⋯)?([A-Za-z0-9_+/=-]{6,128})"
        ),
        lambda v: (
            (
                _has_digit_and_letter(v)
                or len(v.rstrip("=")) >= 8
                and v.rstrip("=").isalpha()
                and _upper_and_lower(v)
            )
            and _not_placeholder(v)
            and not _VERSION.fullmatch(v)
            and not _camel_words(v)
        ),
        ("key", "pass", "token", "secret", *_SECRET_WORDS_CJK),
    ),
    _Valued(
        "recovery-code",  # a list of backup or recovery codes after their name: "Two Factor
        # backup codes (each works once): 91836287, 82217632"
        re.compile(
            r"(?i)(?:backup|recovery|one[- ]time|2fa|two[- ]factor)[ \t]codes?[^:：\n]{0,40}[:：][ \t]*"
            r"((?:[0-9A-Za-z]{4,5}-?[0-9A-Za-z]{4,5}[ \t]*[,、;][ \t]*){1,15}[0-9A-Za-z]{4,5}-?[0-9A-Za-z]{4,5})"
        ),
        lambda v: sum(c.isdigit() for c in v) >= 6,
        ("code",),
    ),
    _Valued(
        "secret",  # a CSV row whose key names a secret and whose last cell is its value:
        # ESP-IDF's factory NVS file, "product_secret,data,string,eJLZh0vP7iVb5xA9"
        re.compile(
            r"(?m)^[ \t]*(?:\d{1,6}[|:→\t][ \t]*)?[A-Za-z0-9_.-]{0,40}?"
            r"(?i:secret|password|passwd|token|private)[A-Za-z0-9_.-]{0,20},"
            r"(?:[^,\n]{0,24},){1,3}([^,\s]{8,256})[ \t]*\r?$"
        ),
        lambda v: looks_random(v) and not _named_like_code(v),
        ("secret", "pass", "token", "private"),
    ),
    _Valued(
        "private-key",  # a private key printed in hex on a log line, whatever stands
        # between its name and its colon: "[prov] slot2 privkey (debug): e5a68849…"
        re.compile(
            r"(?i)(?<![a-z])priv(?:ate)?[ _-]?key(?![a-z])[^:=\n]{0,24}[:=][ \t]{0,4}"
            r"(?:0x)?([0-9a-f]{32,128})(?![0-9a-z])"
        ),
        lambda v: _has_digit_and_letter(v),
        ("priv",),
    ),
    _Valued(
        "password",  # in curly or corner quotes after a password word, spaces and all:
        # 密码是 “lumi 8864 nest”，中间有空格
        re.compile(
            r"(?:(?<![\w-])(?i:password|passphrase)(?![\w-])|"
            + "|".join(_PASSWORD_WORDS_CJK)
            + r")[ \t]{0,2}(?:(?i:is)|は|是|为|為|[:：])[ \t]{0,3}[“「『\"]([^”」』\"\n]{6,64})[”」』\"]"
        ),
        lambda v: (
            " " in v.strip() and any(c.isdigit() for c in v) and not _wordy(v.replace(" ", ""))
        ),
        ("pass", *_PASSWORD_WORDS_CJK),
    ),
    _Valued(
        "password",  # read out in Japanese, letter by letter and digit by digit:
        # パスワードは 小文字で k-o-m-o、数字で なな・よん・さん・に、最後に大文字の R です
        re.compile(
            r"(?:" + "|".join(_PASSWORD_WORDS_CJK) + r")(?:は|が|を|：|:|[ \t\u3000]{0,2}[→⇒＝=])"
            r"[、，, \t\u3000]{0,3}"
            # up to a note in brackets on the letters' case: …サン（英字は全部小文字）です
            r"((?:[^。！？!?\n（(]|[（(][^（(）)\n]{0,30}[）)]){6,120}?)"
            r"(?=[ \t\u3000]*(?:[（(][^）)\n]{0,30}[）)])?"
            r"[ \t\u3000]*(?:です|だよ|だ。|になります|。|\n|$))"
        ),
        lambda v: _dictated_ja(v),
        _PASSWORD_WORDS_CJK,
    ),
    _Valued(
        "secret",  # a secret word, what was done to it, then the value after a colon:
        # タイトルシークレットキーを新しくしました：99BER8…, 密钥已经换了：…
        re.compile(
            r"(?:"
            + "(?i:"
            + "|".join(_SECRET_WORDS_CJK)
            + ")"
            + r")[^。！？!?\n:：]{0,20}[:：][ \t\u3000]{0,4}"
            r"[\"'“`「]?([!-~]{12,256}?)[\"'”`」]?(?=[\s\u3000。、，,]|$)"
        ),
        lambda v: looks_random(v),
        _SECRET_WORDS_CJK,
    ),
    _Valued(
        "secret",  # a secret sent in halves, each message naming its half and nothing
        # else: 前半段：10BxeYed3mZC9Y9mkTCl / 后半段：nB8_35MiHf7v046HUerv
        re.compile(
            r"(?:前半段|后半段|後半段|上半段|下半段|前一半|后一半|後一半|前半部分|后半部分|前半|後半|后半|"
            r"(?i:first|second|last)[ \t]half|(?i:part)[ \t]?(?:1|2|one|two))"
            r"(?:[ \t]{0,2}(?:は|是|为|為|[:：])[ \t]{0,4}|[ \t]{1,3})[\"'“`「]?([A-Za-z0-9_+/=-]{10,128})"
            r"(?![A-Za-z0-9_+/=-])"
        ),
        # each half is short: letters of both cases and digits are enough
        lambda v: (
            looks_random(v)
            or (
                _upper_and_lower(v)
                and sum(c.isdigit() for c in v) >= 2
                and sum(c.isupper() for c in v) >= 2
            )
        ),
        ("半", "half", "part"),
    ),
    _Valued(
        "password",  # spaced out: 確認用パスワードは ９ ９ ９ ５ ８ ７ ６ ９, "PIN is 4 7 1 9"
        re.compile(
            r"(?:(?<![\w-])(?i:password|passcode|passphrase|pin)(?![\w-])|"
            + "|".join(_PASSWORD_WORDS_CJK)
            + r")[ \t]{0,2}(?:(?i:is|was|:)|は|是|为|為|：|[:：])[ \t\u3000]{0,4}"
            r"((?:[0-9A-Za-z０-９Ａ-Ｚａ-ｚ][ \t\u3000]{1,2}){3,40}[0-9A-Za-z０-９Ａ-Ｚａ-ｚ])"
            r"(?![0-9A-Za-z０-９Ａ-Ｚａ-ｚ])"
        ),
        lambda v: sum(c.isdigit() for c in v) >= 3,
        ("pass", "pin", *_PASSWORD_WORDS_CJK),
    ),
    _Valued(
        "password",  # an SMTP login's password in base64 (curl -v, openssl s_client): the
        # line after the server's "334 UGFzc3dvcmQ6" (Password:), or AUTH PLAIN's argument
        re.compile(
            # the client's line may carry its tool's mark: "C: ", "> ", swaks' " ~> "
            r"(?m)334[ \t]{1,4}UGFzc3dvcmQ6[ \t]*\r?\n[ \t]{0,4}(?:[~<>C-]{1,3}[:]?[ \t]{0,4})?"
            r"([A-Za-z0-9+/]{4,256}={0,2})[ \t]*\r?$"
            r"|(?i:auth[ \t]{1,4}plain)[ \t]{1,4}([A-Za-z0-9+/]{8,256}={0,2})(?![\w+/=])"
        ),
        _not_placeholder,
        ("ugfzc3dvcmq6", "auth plain"),
    ),
    _Valued(
        "license-key",  # 登録コード（ライセンスキー）: H7ER9-NQWRF-ZABJ8-LY35B-Q3YLW, "Product key: …"
        re.compile(
            r"(?:ライセンスキー|登録コード|プロダクトキー|シリアルキー|シリアル番号|認証キー|"
            r"序列号|序號|激活码|激活碼|注册码|註冊碼|产品密钥|產品金鑰|"
            r"(?i:licen[cs]e[ \t]?key|product[ \t]?key|serial[ \t]?key|activation[ \t]?key|"
            r"registration[ \t]?code|licen[cs]e[ \t]?code))"
            r"[^\n:：]{0,20}[:：][ \t]{0,4}"
            r"([A-Za-z0-9]{4,8}(?:-[A-Za-z0-9]{4,8}){2,7})(?![\w-])"
        ),
        lambda v: _has_digit_and_letter(v) and _not_placeholder(v),
        (
            "key",
            "code",
            "ライセンス",
            "登録コード",
            "プロダクト",
            "シリアル",
            "認証キー",
            "序列",
            "序號",
            "激活",
            "注册",
            "註冊",
            "密钥",
            "金鑰",
        ),
    ),
    _Valued(
        "password",  # read out in words: "the password is Marble dash harbour dash seven
        # nine": words, with the names of symbols and digits between them
        re.compile(
            r"(?<![\w-])(?i:password|passcode|passphrase|pass[ \t]?word)(?![\w-])"
            r"[ \t]{0,2}(?i:is|was|:)"
            # a speaker's filler before it ("the password is, um, …")
            r"(?:,?[ \t]{1,3}(?i:um|uh|er|erm|so|like|ok|okay)\b,?)?[ \t]{1,4}"
            # words apart by spaces, or by commas as a dictation pauses ("tangerine, dash,
            # four four seven one, dash, Harbor with a capital H"), a number said with its
            # hyphen (twenty-two)
            r"([A-Za-z0-9-]{1,20}(?:,?[ \t]{1,3}[A-Za-z0-9-]{1,20}){2,24})"
            r"(?=[ \t]*(?:[,;.!?\n]|$))"
        ),
        lambda v: _read_out(v),
        ("pass",),
    ),
    _Valued(
        "password",  # Windows' netsh wlan show profile key=clear: the Wi-Fi's passphrase
        re.compile(
            r"(?m)^[ \t]{0,8}(?:(?i:key[ \t]content)|主要なコンテンツ|关键内容|關鍵內容|"
            r"(?i:contenu[ \t]de[ \t]la[ \t]cl[ée])|(?i:schl(?:ü|ue)sselinhalt))"
            r"[ \t]{0,40}:[ \t]{0,4}([^\s\\][^\n\r\\]{0,62}?)[ \t]*(?:\\r)?\r?$"
        ),
        _not_placeholder,
        ("key content", "主要なコンテンツ", "关键内容", "關鍵內容", "contenu", "schl"),
    ),
    _Valued(
        "secret",  # the key an HMAC or a signature is made with, written into the call:
        # hmac.new(b"…", body, sha256), crypto.createHmac("sha256", "…"), hmac.New(sha256.New,
        # []byte("…")), hash_hmac('sha256', $body, '…'), OpenSSL::HMAC.hexdigest('SHA256', '…',
        # body), CryptoJS.HmacSHA256(body, "…"), new SecretKeySpec("…".getBytes(), …),
        # jwt.encode(payload, "…"): the literal is the secret whatever it looks like
        re.compile(
            r"(?<![\w$])(?:"
            r"(?:hmac\.(?:new|HMAC|digest)|HMAC\.new|HMAC)[ \t]{0,2}\([ \t]{0,2}(?:key[ \t]{0,2}=[ \t]{0,2})?"
            r"|createHmac[ \t]{0,2}\([ \t]{0,2}[\"'`][\w-]{2,16}[\"'`][ \t]{0,2},[ \t]{0,2}"
            r"|hmac\.New[ \t]{0,2}\([ \t]{0,2}[\w.]{1,40}[ \t]{0,2},[ \t]{0,2}\[\]byte\([ \t]{0,2}"
            r"|hash_hmac[ \t]{0,2}\([ \t]{0,2}[\"'][\w-]{2,16}[\"'][ \t]{0,2},[^,\n]{1,120},[ \t]{0,2}"
            r"|HMAC\.(?:hexdigest|digest|base64digest)[ \t]{0,2}\([^,\n]{1,80},[ \t]{0,2}"
            r"|Hmac(?:SHA1|SHA224|SHA256|SHA384|SHA512|MD5)[ \t]{0,2}\([^,\n]{1,120},[ \t]{0,2}"
            r"|SecretKeySpec[ \t]{0,2}\([ \t]{0,2}"
            r"|HMAC(?:SHA1|SHA256|SHA384|SHA512|MD5)[ \t]{0,2}\([^()\n]{0,40}?GetBytes[ \t]{0,2}\([ \t]{0,2}"
            r"|jwt\.(?:encode|sign)[ \t]{0,2}\([^,\n]{1,120},[ \t]{0,2})"
            # the literal, a bytes literal's b too, its escapes part of it
            r"b?(?:\"((?:[^\"\\\n]|\\.){6,256}+)\"|'((?:[^'\\\n]|\\.){6,256}+)'|`([^`\\\n]{6,256}+)`)"
        ),
        lambda v: len(v) >= 8 and _not_placeholder(v) and not _dummy(v),
        ("hmac", "secretkeyspec", "jwt."),
    ),
    _Valued(
        "password",  # a login's call given the user and then the password: jq.auth('139…',
        # 'jqLzh_8830x'), ftp.login("user", "…"), smtp.login('a@b', '…')
        re.compile(
            r"(?<![\w])(?:[A-Za-z_][\w]{0,30}\.)?(?i:auth|login|signin|sign_in|authenticate)"
            r"[ \t]{0,2}\([ \t]{0,2}(?:'[^'\n]{1,64}'|\"[^\"\n]{1,64}\")[ \t]{0,2},[ \t]{0,2}"
            r"(?:'([^'\n]{4,128})'|\"([^\"\n]{4,128})\")[ \t]{0,2}[,)]"
        ),
        _not_placeholder,
        ("auth", "login", "sign"),
    ),
    _Valued(
        "private-key",  # an RSA private key in base64 with no PEM lines around it (Alipay's
        # open platform form): PKCS#1 (MIIE…AgEAAoIBAQ) or PKCS#8 (MIIE…AgEAMA0GCSqGSIb3DQEB)
        re.compile(
            r"(?<![A-Za-z0-9+/])(MII[A-Za-z0-9+/]{1,3}(?:AgEAAoIBAQ|AgEAAoICAQ|IBAAKCAQEA|IBAAKCAgEA"
            r"|AgEAMA0GCSqGSIb3DQEBAQUABII|IBADANBgkqhkiG9w0BAQEFAASC)[A-Za-z0-9+/]{400,4000}={0,2})"
        ),
        _not_placeholder,
        ("mii",),
    ),
    _Valued(
        "api-key",  # a webhook's key in its query: …/webhook/send?key=3c2346b8-…, ?access_key=…
        re.compile(
            r"[?&](?:key|access_key|accesskey|sendkey|token)=([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-"
            r"[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|[A-Za-z0-9_-]{16,128})(?![\w-])"
        ),
        lambda v: "-" in v and len(v) == 36 or looks_random(v),
        ("key=", "token="),
    ),
    _Valued(
        "api-key",  # 企业微信的 key 直接给你：df9e085d-…: a key handed over in CJK prose, a
        # bot's webhook key in the shape of a UUID
        re.compile(
            r"(?<![\w-])(?i:key)(?![\w-])[\u3040-\u30ff\u4e00-\u9fff \t]{0,12}[:：][ \t]{0,4}"
            r"([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})(?![\w-])"
        ),
        _not_placeholder,
        ("key",),
    ),
)


@functools.cache
def _read_out_words() -> frozenset[str]:
    """The words that name a symbol or a digit when a password is read out."""
    spoken = (w for w in _SPOKEN_WORDS if w.isascii() and " " not in w and len(w) > 1)
    return frozenset(spoken) | {"space", "bang", "colon", "comma"}


#: What a Japanese dictation of a password is made of: single letters (k-o-m-o, Ｒ),
#: digits said in kana (なな・よん), the case of a letter (小文字で, 大文字の).
#: A Latin letter said by its katakana name (ピー、エフ、ケー), a symbol by its name.
_JA_NAMED = (
    r"(?:エー|ビー|シー|ディー|イー|エフ|ジー|エイチ|アイ|ジェー|ケー|エル|エム|エヌ|オー|ピー|"
    r"キュー|アール|エス|ティー|ユー|ブイ|ダブリュー|エックス|ワイ|ゼット|ズィー)(?=[・、 ]|$)|"
    r"びっくりマーク|ビックリマーク|感嘆符|ハイフン|アンダーバー|アンダースコア|ドット|シャープ|"
    r"アットマーク|スラッシュ|ピリオド"
)
_JA_SPOKEN_UNIT = re.compile(
    r"(?<![A-Za-z])[A-Za-z](?![A-Za-z])|[0-9]|ゼロ|れい|いち|に(?=[・、 ]|$)|さん|よん|し(?=[・、 ])|ご(?=[・、 ]|$)|"
    r"ろく|なな|しち|はち|きゅう|く(?=[・、 ])|" + _JA_NAMED
)
_JA_SPOKEN_CASE = re.compile(r"小文字|大文字|数字で|記号")
_JA_NAMED_UNIT = re.compile(_JA_NAMED)


def _dictated_ja(v: str) -> bool:
    """Whether what follows パスワードは is a password read out in parts: six spoken
    letters or digits at least, and a word for a letter's case or for the digits."""
    folded = unicodedata.normalize("NFKC", v)
    if len(_JA_SPOKEN_UNIT.findall(folded)) < 6:
        return False
    # a case word, or two letters or symbols said by their names (エム、ケー、ハイフン)
    return bool(_JA_SPOKEN_CASE.search(folded)) or len(_JA_NAMED_UNIT.findall(folded)) >= 2


def _read_out(v: str) -> bool:
    """Words of which two or more name a symbol or a digit (dash, seven): a password read
    out, not a sentence that goes on after "the password is"."""
    words = [w for w in _SPOKEN_SPLIT.split(v.lower()) if w]
    named = sum(w in _read_out_words() or w in _TENS for w in words)
    if (
        named >= 2
        and 5 * named >= 2 * len(words)  # most of what is said spells, not a sentence
        and any(
            w in ("dash", "hyphen", "underscore", "dot", "hash", "slash", "plus") for w in words
        )
    ):
        return True
    # "harbour front all one word with a capital H, then twenty-two ninety-one, then an
    # exclamation mark": how its letters are written, and figures and symbols said
    return named >= 3 and _SPELLING_NOTE.search(v) is not None


_SPOKEN_SPLIT = re.compile(r"[\s,-]+")
_TENS = frozenset(
    [
        "ten",
        "eleven",
        "twelve",
        "thirteen",
        "fourteen",
        "fifteen",
        "sixteen",
        "seventeen",
        "eighteen",
        "nineteen",
        "twenty",
        "thirty",
        "forty",
        "fifty",
        "sixty",
        "seventy",
        "eighty",
        "ninety",
        "hundred",
    ]
)
#: What a dictation says of how the letters are written.
_SPELLING_NOTE = re.compile(
    r"(?i)\b(?:capital|upper[ -]?case|lower[ -]?case|all one word|one word|small letters?"
    r"|exclamation mark|at sign|no spaces)\b"
)


#: An identifier or a dotted name, as code writes one (api_key, config.auth.token).
_CODE_NAME = re.compile(r"[A-Za-z_$][\w$]*(?:[.:][A-Za-z_$][\w$]*)*")


def _backticked_secret(v: str) -> bool:
    """A backticked value that reads as a generated secret, not code: mixed case, letters
    and digits, no word and no identifier; or symbols between letters and digits."""
    if _placeholder(v) or _CODE_NAME.fullmatch(v) or v.startswith(("/", "~", ".", "-")):
        return False
    if "://" in v or "=" in v or _wordy(v) or entropy(v) < 3.3:
        return False
    symbols = sum(not c.isalnum() for c in v)
    return _has_digit_and_letter(v) and (_upper_and_lower(v) or 2 <= symbols <= len(v) // 2)


# --------------------------------------------------------------------------- keys

_KEYWORD = re.compile(
    # _AK/_SK: a cloud's access and secret keys by their short names (QINIU_SK=…), only
    # as a name's last part before its separator
    r"(?i)pass|pwd|secret|token|key|credential|auth|serial|(?:_|(?<![A-Za-z0-9.]))[as]k(?=[ \t]{0,8}[=:])"
    # a session's id (sid), a query's app id, the password and key words of other languages
    r"|security[\w-]{0,6}code|app[\w \t-]{0,2}certificate|(?<![a-z])sid(?![a-z])|appid|kennwort|wachtwoord|senha|contrase|salasana|schl(?:ü|ue|u)ssel"
    r"|(?<=[a-z])pw(?=[\"']?\]?[ \t]{0,8}[=:])"  # rootpw, pgpw: a password word joined on
    r"|(?<![A-Za-z0-9_.-])pw(?=[ \t]{0,8}[=:])"  # pw: … on its own
    # a signing salt (douyin pay's SALT) and a hash's pepper: the value right after
    r"|salt(?=[\"']?[ \t]{0,8}[=:])|pepper"
)
_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")
_PARTS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+")
#: What stands between a key and its value: a closing quote (escaped in a JSON string),
#: a subscript's bracket ($_config['db']['dbpw'] = …, ENV['API_TOKEN'] = …), an operator.
_SEPARATOR = re.compile(r"(?:\\?[\"'])?\]?[ \t]{0,8}(?::=|=>|==|=|:)[ \t]{0,8}")
_FLAG_SEPARATOR = re.compile(r"(?:[ \t]{1,4}|=)")
#: A value is read to 4,096 characters: an AWS session token runs past a thousand.
_VALUE = re.compile(
    r"\\\"([^\"\\\n]{0,4096})\\\""  # \"value\" inside an escaped JSON string
    r"|\"((?:[^\"\\\n]|\\.){0,4096})\""  # "value", its escapes (\" \\ \/) part of it
    r"|\\?'((?:[^'\\\n]|\\[nrt]){0,4096})\\?'|`([^`\n]{0,4096})`"  # 'v', and 'v\\n' as a repr shows it
    # unquoted: to a space, a quote or a mark that ends it (a full-width one of Chinese or
    # Japanese prose too: "secret-encoding: base64）再验签，…")
    r"|([^\s\"'`,;&|<>(){}\[\]\\（）「」『』【】，。、；：！？]{1,4096})"
)

#: The next element of an argument list, after a flag's closing quote: ``", "`` (or
#: escaped once more, ``\", \"``) then the value to its closing quote.
_NEXT_ARGUMENT = re.compile(r'\\?"[ \t]{0,4},[ \t]{0,4}\\?"((?:[^"\\\n]|\\[^"]){1,512}+)\\?"')
#: A YAML anchor before a value (``&pgpw``), with its space.
_YAML_ANCHOR = re.compile(r"&[A-Za-z0-9_-]{1,64}[ \t]{1,8}")
#: The rest of a JSON string to its closing quote, escapes part of it.
_STRING_REST = re.compile(r"((?:[^\"\\\n]|\\.){1,4096}+)\"")

_PASSWORD_WORDS = frozenset(
    {"password", "passwd", "pass", "passphrase", "pwd", "pw"}
    # other languages' words, as a router's sticker or a form writes them (accents dropped)
    | {"kennwort", "passwort", "wachtwoord", "senha", "contrasena", "salasana", "motdepasse"}
)
_SECRET_WORDS = frozenset({"secret", "secrets", "token", "credential", "credentials", "auth"})
#: Name parts that make a bare "key" a Wi-Fi network's passphrase.
_WIFI_WORDS = frozenset({"wireless", "wifi", "wlan", "wpa", "wpa2", "wpa3", "radio", "ssid"})
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
        # where a service is, never what opens it: AUTH0_DOMAIN, OAUTH_ISSUER, AUTH_REGION
        "domain",
        "host",
        "hostname",
        "issuer",
        "audience",
        "tenant",
        "realm",
        "region",
        "zone",
        "port",
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
        "site",  # a reCAPTCHA, hCaptcha or Turnstile site key ships in every page
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
        "group",
        "hot",
        "shortcut",
        "translation",
        "i18n",
        "react",
        "list",
        "data",
        "index",
        "host",
    ]
)


def _name_kind(name: str) -> tuple[str, bool] | None:
    """The kind of secret a key of this name holds, and whether its value must look
    strongly random (a bare ``*_key``); None when the name is not secret-ish."""
    parts = [p.lower() for p in _PARTS.findall(_unaccented(name))]
    found = _bare_name_kind(parts)
    if found is not None:
        return found
    if not parts or parts[-1] in _NOT_SECRET_LAST:
        return None
    words = set(parts)
    if any(p.endswith(("password", "passwd")) for p in parts):
        return "password", False  # PGPASSWORD, MYSQLPASSWORD
    if any(_joined_password(p) for p in parts):
        return "password", False  # requirepass, rootpw, pgpw: a password word joined on
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
    joined = _key_word_kind(parts, words, pairs)
    if joined is not None:
        return joined
    if words & _SECRET_WORDS:
        return ("secret" if "secret" in words or "secrets" in words else "credential"), False
    if any(p.endswith(("secret", "secrets")) and p not in _NOT_SECRET_LAST for p in parts):
        return "secret", False  # WECHAT_APPSECRET, clientsecret
    if any(p.endswith("token") and len(p) > 5 for p in parts):
        return "token", False  # ACCESSTOKEN, authtoken
    return _last_part_kind(parts)


#: Words that end like a joined password word without naming one.
_NOT_JOINED_PASSWORD = frozenset(
    {"bypass", "compass", "overpass", "underpass", "surpass", "trespass"}
)


def _bare_name_kind(parts: list[str]) -> tuple[str, bool] | None:
    """:func:`_name_kind` for the names whose last parts alone say it: a key's id, a
    session's id, an app id, a key word of another language."""
    if parts == ["sid"]:
        return "session-id", True  # a login's session id (Synology's sid): whoever has it is in
    if parts[-3:] == ["private", "key", "id"]:
        return "private-key-id", True  # a service account's key id: it names the key
    if parts[-2:] == ["secret", "id"]:
        # Vault's AppRole secret_id, a cloud's SecretId: the credential's half a login sends
        return "secret", True
    if parts[-3:] == ["access", "key", "id"]:
        return "access-key", True  # an S3-style access key id (rclone, s3cmd): a random one
    if parts and parts[-1] in ("license", "licence", "licensekey", "licencekey"):
        return "license-key", True  # ACF_PRO_LICENSE: a licence key, when it looks random
    if parts and (
        parts[-1] in ("salt", "pepper") or "pepper" in parts or parts[-2:] == ["salt", "hex"]
    ):
        # a payment API's SALT, a password hash's pepper (pepper_hex): the signing secret,
        # when its value looks random (not salt_rounds: 10)
        return "secret", True
    if parts in (["ak"], ["sk"]):
        # ~/.obsutilconfig, a cloud SDK's ini: ak=…, sk=… (access and secret keys)
        return ("access-key", True) if parts == ["ak"] else ("secret", True)
    if "security" in parts[:-1] and parts[-1] in ("code", "key", "token"):
        # AMap's securityJsCode, a security_key: the secret a public key is paired with
        return "secret", True
    if parts[-2:] == ["app", "certificate"] or parts[-1:] == ["appcertificate"]:
        # Agora's App Certificate: the secret its tokens are signed with, not a TLS one
        return "secret", True
    if parts and parts[-1] == "appid":
        return "app-key", True  # OpenWeatherMap's appid=: a key, when long and random
    if any(p.endswith(("schlussel", "schluessel")) for p in parts):
        # WLAN-Netzwerkschlüssel: a Wi-Fi network's key is its password
        wifi = any(p.startswith(("wlan", "netzwerk", "wifi")) for p in parts)
        return ("password", False) if wifi else ("api-key", True)
    return None


def _unaccented(name: str) -> str:
    """*name* with its accents dropped (Schlüssel -> Schlussel, contraseña -> contrasena)."""
    if name.isascii():
        return name
    return "".join(c for c in unicodedata.normalize("NFKD", name) if not unicodedata.combining(c))


def _key_word_kind(
    parts: list[str], words: set[str], pairs: set[tuple[str, str]]
) -> tuple[str, bool] | None:
    """An API key's name (apikey, api_key, access_key), a key word joined on (authkey,
    appkey, masterkey), and a wireless section's bare key (wireless.default_radio0.key,
    OpenWrt: the Wi-Fi's passphrase)."""
    if "apikey" in words or any(a in _KEY_PAIRS and b == "key" for a, b in pairs):
        return "api-key", False
    if any(p.endswith("key") and p[:-3] in _KEY_PAIRS for p in parts):
        return "api-key", True
    if parts[-1] == "key" and words & _WIFI_WORDS:
        return "password", False
    return None


def _joined_password(part: str) -> bool:
    """A name part that joins a word to pass or pw (requirepass, rootpw, dbpw)."""
    if part.endswith("pass"):
        return len(part) > 5 and part not in _NOT_JOINED_PASSWORD
    return part.endswith(("pw", "pwd")) and 2 < len(part) <= 10 and part not in ("pwd",)


def _last_part_kind(parts: list[str]) -> tuple[str, bool] | None:
    """:func:`_name_kind` read from a name's last part alone (API_KEY, QINIU_SK, UNITY_SERIAL)."""
    if len(parts) < 2:
        return None
    if parts[-1] == "key" and parts[-2] not in _NOT_SECRET_KEY_BEFORE:
        return "api-key", True
    if parts[-1] in _SHORT_KEYS:
        # QINIU_SK, OSS_AK: a cloud's secret key and access key under their short names,
        # counted only when the value looks random
        return _SHORT_KEYS[parts[-1]], True
    if parts[-1] == "serial" and parts[-2] in ("unity", "license", "licence"):
        return "license-key", False  # UNITY_SERIAL, LICENSE_SERIAL: a paid licence's key
    return None


#: A Twilio resource's identifier: two capitals and 32 hex (AC…, SM…, PN…).
_TWILIO_SID = re.compile(r"[A-Z]{2}[0-9a-f]{32}")
_CJK_PROSE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
#: A name's last part that abbreviates a key: QINIU_SK, OSS_AK.
_SHORT_KEYS = {"sk": "secret", "ak": "access-key"}


_CMDLET = re.compile(r"[A-Z][A-Za-z]+-[A-Z][A-Za-z]+")


#: A password's hash as a config stores it: argon2, bcrypt ($2b$), crypt ($6$), PBKDF2,
#: Jupyter's sha1:…
_PASSWORD_HASH = re.compile(
    r"(?:argon2:)?\$argon2(?:id|i|d)\$|\$2[abxy]\$\d\d\$|\$[156]\$[./A-Za-z0-9]{1,16}\$"
    r"|pbkdf2[_:$]|(?:sha1|sha256|sha512):[0-9a-f]{8,}:[0-9a-f]{16,}"
)
#: A whole password hash in a text (its salt and digest are no secret to take out).
_HASH_SPAN = re.compile(
    r"(?:argon2:)?\$argon2(?:id|i|d)\$v=\d{1,3}\$m=\d{1,9},t=\d{1,4},p=\d{1,4}\$[A-Za-z0-9+/]{8,128}\$[A-Za-z0-9+/]{16,256}"
    r"|\$2[abxy]\$\d\d\$[./A-Za-z0-9]{53}"
)
#: A file's path from home, here or the root, down to a name with an extension.
_FILE_PATH = re.compile(
    # from home, here, the root or a variable ($HOME/Downloads/…pem, ${KEY_DIR}/app.key)
    r"(?:~|\.{1,2}|\$\{?[A-Za-z_][A-Za-z0-9_]{0,31}\}?)?/(?:[\w.-]{1,64}/){0,16}"
    r"[\w-][\w.-]{0,63}\.[A-Za-z][A-Za-z0-9]{0,9}"
)


#: A path from home or here (``~/.pgpass``, ``./secrets/db``) or down from the root past
#: one folder at least (``/etc/app/pgpass``), extension or none.
_DIR_PATH = re.compile(
    r"(?:~|\.{1,2})/(?:[\w.-]{1,64}/){0,16}[\w.-]{1,64}|/(?:[\w.-]{1,64}/){1,16}[\w.-]{1,64}"
)


def _a_path(v: str) -> bool:
    """Whether *v* names a file where a secret is kept, not the secret: a path whose
    pieces read as names, not as generated text (パスワードは ~/.pgpass から)."""
    if _FILE_PATH.fullmatch(v):
        return True
    if not _DIR_PATH.fullmatch(v):
        return False
    return not any(looks_random(p) for p in v.split("/") if p.strip("~."))


def _value_counts(kind: str, value: str, quoted: bool, strict: bool, env: bool = False) -> bool:
    """Whether *value*, assigned to a key naming *kind*, is a secret. *env*: the key is an
    environment variable's (``DB_PASSWORD``), whose value is data, never code."""
    v = value.strip()
    if not v or _placeholder(v) or _FILE_PATH.fullmatch(v):
        return False  # grep ^STORE_PASSWORD= ~/.gradle/gradle.properties: a file, read
    if _PASSWORD_HASH.match(v.strip("\"'")):
        return False  # "hashed_password": "argon2:$argon2id$…": what checks a password, stored
    if kind == "license-key":
        return _has_digit_and_letter(v) and len(v) >= 10
    if kind == "device-key":
        # a bare key's random value (Tuya's 16 characters, a JSON escape inside): mixed
        # case, letters and digits, no word -- not a cache key (user:123:profile) or an id
        u = v.replace('\\"', '"').replace("\\\\", "\\")
        return (
            12 <= len(u) <= 64
            and not _SPACE.search(u)
            and _has_digit_and_letter(u)
            and _upper_and_lower(u)
            and entropy(u) >= 3.5
            and not _wordy(u)
        )
    if kind == "api-key" and strict and 12 <= len(v) < 20:
        # a short key under a name that says key (kuaidi100.key=rUeUOZLl1130): mixed case
        # and digits through it, no word in it, as a generated key is
        return (
            v.isalnum()
            and _has_digit_and_letter(v)
            and _upper_and_lower(v)
            and not _wordy(v)
            and entropy(v) >= 3.2
        )
    if kind == "session-id":  # not a Twilio resource's SID (AC…, SM…): a public name
        return looks_random(v, strict=True) and not _TWILIO_SID.fullmatch(v)
    if kind == "app-key":  # a long random app id is a key; WeChat's wx… (18) is public
        return len(v) >= 32 and looks_random(v, strict=True)
    if kind == "secret" and 8 <= len(v) < 12 and not strict:
        # client_secret: J2qvun0ccw -- a short secret under a name that says it is one:
        # letters and digits mixed through it, no word, no path, no version
        return (
            v.isalnum()
            and _has_digit_and_letter(v)
            and not _wordy(v)
            and not _placeholder(v)
            and not _VERSION.fullmatch(v)
            and entropy(v) >= 2.8
            and sum(c.isdigit() for c in v) < len(v) - 2
        )
    if kind == "password":
        if len(_CJK_PROSE.findall(v)) >= 4:
            return False  # "パスワードを忘れた場合は…": a sentence of an app's text, not a password
        random_letters = v.isalpha() and len(v) >= 12 and _upper_and_lower(v) and entropy(v) >= 3.5
        if not (quoted or env or random_letters) and (
            _IDENT.fullmatch(v) or v.isalpha() or _CMDLET.fullmatch(v)
        ):
            # a word, or code: password=password, password=self.password,
            # $pass = ConvertTo-SecureString … (a PowerShell command, whose argument is)
            return False
        if _NUMBER.fullmatch(v):
            return v.isdigit() and len(v) >= 6
        return len(v) >= 3
    return looks_random(v, strict=strict)


#: A literal given as the default of a lookup: the value used when the environment or a
#: configuration lacks the name -- ``System.getenv("KEY_PW") ?: "…"`` (Gradle, Kotlin),
#: ``os.getenv("DB_PASSWORD", "…")``, ``process.env.JWT_SECRET || "…"``,
#: ``ENV.fetch("GH_TOKEN", "…")``, ``env("DB_PASSWORD", "…")`` (Laravel), ``?? "…"``.
_DEFAULT_ARG = re.compile(
    r"(?i:getenv|environ\.get|getproperty|findproperty|fetch|env|get|getordefault|getstring"
    r"|lookupenv|config)[ \t]{0,2}\([ \t]{0,2}[\"']([\w.-]{2,64})[\"'][ \t]{0,2},[ \t]{0,2}"
    r"[\"']([^\"'\n]{3,256})[\"']"
)
_FALLBACK = re.compile(
    r"(?:\?:|\|\||\?\?|(?<![\w-])or(?![\w-]))[ \t]{0,4}[\"']([^\"'\n]{3,256})[\"']"
)
_LINE_NAME = re.compile(r"[A-Za-z_][\w.-]{1,63}")


def _defaults(text: str) -> Iterator[tuple[int, int, str]]:
    """The literal a secret's lookup falls back on: the lookup's default argument when the
    name looked up is a secret's, and a literal after ``?:``, ``||``, ``??`` or ``or``
    when a name on its line before it is (the key assigned, or the one looked up)."""
    if "(" in text:
        for m in _DEFAULT_ARG.finditer(text):
            named = _name_kind(m.group(1))
            if named and _value_counts(named[0], m.group(2), True, named[1], env=True):
                yield m.start(2), m.end(2), named[0]
    if not ("?" in text or "||" in text or " or " in text):
        return
    for m in _FALLBACK.finditer(text):
        line = text.rfind("\n", 0, m.start()) + 1
        for n in _LINE_NAME.finditer(text, max(line, m.start() - 160), m.start()):
            named = _name_kind(n.group())
            if named and _value_counts(named[0], m.group(1), True, named[1], env=True):
                yield m.start(1), m.end(1), named[0]
                break


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
        if (
            a > 0
            and text[a - 1] == "^"
            or (
                text[b : b + 1] == "="
                and text[b + 1 : b + 2] in (" ", "\t")
                and _ENV_NAME.fullmatch(text[a:b])
            )
        ):
            continue  # grep ^DB_PASSWORD= .env, a shell's NAME= cmd: a pattern, an empty value
        got = _value_after(text, a, b)
        if got is None:
            continue
        start, end, quoted = got
        done = max(done, end)
        while end - start > 2 and text[end - 2 : end] in ("\\n", "\\r", "\\t"):
            end -= 2  # 'af16…\n' as a repr prints a value read with its newline
        named = _name_kind(text[a:b].strip(".-"))
        if (
            named is None
            and text[a:b].lower() == "key"
            and _KEY_CONTEXT.search(text, max(0, a - 240), min(n, b + 240))
        ):
            # a bare "key" beside a user name or a login (kaggle.json, a login's locals):
            # the account's key, when its value looks generated
            named = ("api-key", True)
        elif named is None and text[a:b].lower() == "key":
            named = ("device-key", True)  # a device's local key (Tuya), when random
        if named is None:
            continue
        kind, strict = named
        # an environment variable's value: NAME=value, and NAME: value as manifests,
        # compose files and `kubectl describe` list them
        env = _ENV_NAME.fullmatch(text[a:b]) is not None and text[b : b + 1] in ("=", ":")
        if _said_public_above(text, a):
            continue  # "# Web端(JS API)：前端公开，…不是秘密" over amap.js.key=…: public
        if _value_counts(kind, text[start:end], quoted, strict, env):
            out.append((start, end, kind))
    return out


_COMMENT_MARK = re.compile(r"#|//|--|;|<!--")


def _said_public_above(text: str, at: int) -> bool:
    """Whether the comment line right above the line of *at* says its value is public
    ("# browser key, public by design", 前端公开，不是秘密)."""
    line = text.rfind("\n", 0, at) + 1
    if line == 0:
        return False
    above = text[text.rfind("\n", 0, line - 1) + 1 : line - 1]
    mark = _COMMENT_MARK.search(above)
    return mark is not None and _PUBLIC_NOTE.search(above, mark.end()) is not None


#: What a comment says to call the value under it public (never "don't make it public"):
#: not a secret, public by design, publishable, 不是秘密, 前端公开, 秘密ではない.
_PUBLIC_NOTE = re.compile(
    r"(?i:\bnot[ \t]+(?:a[ \t]+)?secret\b|\bpublic[ \t]+by[ \t]+design\b|\bpublishable\b"
    r"|\bsafe[ \t]+to[ \t]+(?:share|publish|expose)\b)"
    r"|不是秘密|不是机密|不是機密|可以公开|前端公开|前端公開|秘密ではない|秘密じゃない|公開して(?:よい|いい)"
)


#: A setting made by a call, its name and value both quoted: PHP's define('DB_PASSWORD',
#: '…') and define('AUTH_KEY', '…') in wp-config.php, putenv("API_TOKEN=…")'s sibling
#: setenv('API_TOKEN', '…').
_CALL_SETTING = re.compile(
    r"(?<![\w$>])(?:define|putenv|setenv|set_env|env_set|Sys\.setenv)[ \t]{0,4}\([ \t]{0,4}"
    r"['\"]([A-Za-z_][A-Za-z0-9_.-]{0,63})['\"][ \t]{0,4},[ \t]{0,32}"
    r"(?:'((?:[^'\\\n]|\\.){1,512})'|\"((?:[^\"\\\n]|\\.){1,512})\")"
)
#: A map of accounts to passwords: "RegisteredUsers": {"pacsadmin": "…"}, users: {…}: the
#: word that names it, then the rest of its key and the map's opening.
_USER_MAP = re.compile(r"(?i:users|accounts|logins|credentials|passwords|basic_?auth)")
_USER_MAP_OPEN = re.compile(r"[\w-]{0,8}[\"']?[ \t]{0,4}[:=][ \t]{0,4}\{")
_USER_ENTRY = re.compile(
    r"[ \t\r\n]*[\"']([\w.@-]{1,64})[\"'][ \t]{0,4}:[ \t]{0,4}[\"']([^\"'\n]{1,256})[\"'][ \t]*,?"
)


def _call_settings(text: str) -> Iterator[tuple[int, int, str]]:
    """The values of settings made by a call whose name says secret (define('DB_PASSWORD',
    '…'); WordPress's AUTH_KEY and NONCE_SALT are its salts)."""
    if "(" not in text:
        return
    for m in _CALL_SETTING.finditer(text):
        name = m.group(1)
        g = 2 if m.start(2) >= 0 else 3
        value = m.group(g)
        named = _name_kind(name)
        if name.upper().endswith(("_SALT", "_KEY")) and len(value) >= 32 and entropy(value) >= 4:
            # WordPress's keys and salts: long, random, of any printable characters
            yield m.start(g), m.end(g), named[0] if named else "secret"
        elif named and _value_counts(named[0], value, True, named[1]):
            yield m.start(g), m.end(g), named[0]


#: The password's word of a message forwarded from another language (German, Spanish,
#: Portuguese, French, Dutch, Russian, Polish, Swedish, Finnish), for the sentence rules.
_FOREIGN_PASSWORD = (
    r"passwort|kennwort|contrase(?:ñ|n)a|senha|mot[ \t]de[ \t]passe|wachtwoord|пароль"
    r"|has(?:ł|l)o|l(?:ö|o)senord|salasana"
)
#: A sentence that speaks of a secret (a key, a token, a password) in any of the three.
_SECRET_SENTENCE_WORD = re.compile(
    r"(?i:password|passphrase|secret|token|api[ _-]?key|private[ _-]key|access[ _-]key|bearer"
    r"|pre-?shared[ _-]?key|\bpsk\b|(?<![a-z0-9+/])pw(?![a-z0-9+/])"
    r"|" + _FOREIGN_PASSWORD + r"|api[ \t]?キー)"
    r"|" + "(?i:" + "|".join(_SECRET_WORDS_CJK) + ")"
)
#: Where a sentence ends: a stop, or a line's end (a JSON string's escaped \n too: a
#: transcript line read raw holds a whole file's lines in one string).
_SENTENCE_END = re.compile(r"[。！？\n]|[.!?](?=\s|$)|\\n")
_RANDOM_TOKEN = re.compile(
    r"(?<![A-Za-z0-9_+/=.-])[A-Za-z0-9+/-]{20,256}+={0,2}+(?![A-Za-z0-9_+/=-])(?!\.[\w/-])"
)
#: A sentence that says its value is no secret: "the site key is not a secret", 公开的.
_SAID_PUBLIC = re.compile(
    r"(?i:not[ \t]+(?:a[ \t]+)?secret|\bpublic\b|publishable)|公开|公開|不是秘密|秘密ではない|秘密じゃない"
)


def _hex_key(v: str, text: str, named: bool) -> bool:
    """Whether *v*, in a sentence about a secret, is a key written in hex: thirty-two digits
    and more, not a commit's or a file's hash (40 or 64) on the line after a key, nor git
    log's %H beside a commit message that says "token"."""
    if len(v) < 32 or not _HEX_KEY.fullmatch(v):
        return False
    if len(v) in (40, 64) and not named:
        return False
    if _SUM_LINE.search(text):
        # a checksum tool's line: the digest, two spaces (or " *") and the file it is of
        at = text.find(v)
        if at >= 0 and (at == 0 or text[at - 1] == "\n") and _SUM_LINE.match(text, at):
            return False
    if len(v) in (40, 64):
        at = text.find(v)
        if at >= 0 and (at == 0 or text[at - 1] == "\n") and _COMMIT_REST.match(text, at + len(v)):
            return False  # "1920f2cb… B2: read password from env": git log's hash and subject
    return not (len(v) == 40 and _GIT_WORD.search(text))


#: What follows a commit's hash at a line's start in a log: a space and its subject.
_COMMIT_REST = re.compile(r"[ \t]+(?:\([^)\n]{0,80}\)[ \t]+)?[^\s=:][^\n]{2,}")
#: md5sum's, sha256sum's line: a hex digest, two spaces or a space and a star, a file name.
_SUM_LINE = re.compile(r"(?m)^[0-9a-fA-F]{32,128}(?:  | \*)[^\s]{0,255}[./][^\s]{0,255}$")


_GIT_WORD = re.compile(r"\bgit[ \t]+(?:log|commit|show|rev-parse)\b")
#: Pieces in quotes joined by "+" ("vD1Xi6M54h8a" + "l5zt6L7e6VJP"): a secret a chat tool
#: cut, given again in parts.
_QUOTED_CHAIN = re.compile(
    r"[\"'“][A-Za-z0-9_+/=.-]{4,64}[\"'”](?:[ \t]*\+[ \t]*[\"'“][A-Za-z0-9_+/=.-]{4,64}[\"'”]){1,7}"
)
_QUOTED_PIECE = re.compile(r"[\"'“]([A-Za-z0-9_+/=.-]{4,64})[\"'”]")


def _quoted_pieces(text: str) -> Iterator[tuple[int, int]]:
    """Each piece of a secret given in quoted parts joined by "+", after a sentence that
    names the secret ("the client secret comes in two pieces: "vD1X…" + "l5zt…"")."""
    if "+" not in text:
        return
    for m in _QUOTED_CHAIN.finditer(text):
        if not _SECRET_SENTENCE_WORD.search(text, max(0, m.start() - 160), m.start()):
            continue
        pieces = list(_QUOTED_PIECE.finditer(text, m.start(), m.end()))
        whole = "".join(p.group(1) for p in pieces)
        if len(whole) >= 16 and _has_digit_and_letter(whole) and _upper_and_lower(whole):
            yield from ((p.start(1), p.end(1)) for p in pieces)


def _strong_values(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    """In the sentence right after one that names a password: a value with every kind of
    character in it ("記憶で打つと tanaka.Af4950 だと思う")."""
    for t in _PASSWORD_LIKE.finditer(text, start, end):
        v = t.group(1).rstrip(_TRAILING)
        back = max(start, t.start(1) - 24)
        if _NAMED_THING.search(text, back, t.start(1)) or _OTHER_LABEL.search(
            text, back, t.start(1)
        ):
            continue  # "Hyper Backup task B2-offsite last ran": a thing's name
        if _strong(v) and _password_like(v):
            yield t.start(1), t.start(1) + len(v)


#: A letter past f: a token that holds one early is no hex (hex keys are read by their own
#: rule; a digest joined to the next line's word holds one only at its end).
_PAST_F = re.compile(r"[g-zG-Z]")


def _token_given(text: str, t: re.Match[str], named: bool, digest: bool) -> bool:
    """Whether the random token *t* of a sentence about a secret is the secret given: not
    a public key's opening, a field that names something else, an encoded address or a
    digest printed; mixed case and digits, a hex key, or one case and digits long in the
    very sentence that names the secret ("the appSecret … is 9ggyoqsbpb…", with a letter
    past f), and random."""
    v = t.group(0)
    if v.startswith(_PUBLIC_OPENING):
        return False
    if _keyed_by_other(text, t.start()):
        return False  # {"to":"U5de3…"}: the value of a field that names no secret
    if _encoded_place(v):
        return False  # GRAFANA_URL: aHR0cHM6Ly9…, under a token's line: an address
    if not named and _after_digest(text, t.start()):
        return False  # what `… | openssl dgst -sha256 | base64` printed: a digest
    mixed = _upper_and_lower(v) and any(c.isdigit() for c in v)
    hex_key = not digest and _hex_key(v, text, named)
    one_case = named and len(v) >= 24 and _has_digit_and_letter(v) and bool(_PAST_F.search(v[:20]))
    return (mixed or hex_key or one_case) and looks_random(v)


#: A line that sets a value under a key: ``LINE_DRIVER_GROUP: …``, ``"region": …``, ``x = …``.
_KEYED_LINE = re.compile(
    r"[ \t]*+(?:-[ \t]+)?[\"']?"
    # a key that names nothing (value:, under "- name: VOLC_SECRETKEY") takes the name above
    r"(?!(?i:value|val|data|content|text|default|string|body|payload|secret)[\"']?[ \t]*[:=])"
    r"[A-Za-z_][\w.-]{0,63}[\"']?[ \t]*[:=](?![:=/])"
)


def _named_in_sentence(text: str) -> Iterator[tuple[int, int, str]]:
    """A value a sentence gives as a secret, the secret named in it or in the sentence
    before: a random token of twenty characters or more, upper and lower case and digits
    ("另外还有一个 JJoE…，这个是测试用的，沙箱环境的APIv3密钥", "here's the other one, Xk29…,
    the staging key"), or hex of thirty-two and more where nothing says digest or id
    ("SmartHRのアクセストークンを発行しました。Bearerで使うやつです：9eb0…"); and a password-like
    value given as the new one ("パスワード、さっき変えました。新しいのは Vt7-sakuranbo-5126 です",
    "changed the wifi password. The new one is Blue-Heron-42")."""
    if not _SECRET_SENTENCE_WORD.search(text) or not (
        _RANDOM_TOKEN.search(text)
        or _NEW_VALUE.search(text)
        or _OLD_VALUE.search(text)
        or _PART_GIVEN.search(text)
        or (_PASSWORD_WORD.search(text) and _PASSWORD_LIKE.search(text))
    ):
        return
    spans, start = [], 0
    for m in [*_SENTENCE_END.finditer(text), None]:
        end = m.start() if m else len(text)
        spans.append((start, end))
        start = m.end() if m else len(text)
    named_before = False
    pw_chain = False  # the secret the sentences before name is a password
    public = _public_blocks(text)
    for start, end in spans:
        named = _SECRET_SENTENCE_WORD.search(text, start, end) is not None
        if not named and _KEYED_LINE.match(text, start, end):
            # a configuration's line under its own key (LINE_DRIVER_GROUP: U14c…, below
            # LINE_CHANNEL_ACCESS_TOKEN): the key says what the value is, not the line above
            named_before = pw_chain = False
        said_public = _SAID_PUBLIC.search(text, start, end) or _PUBLIC_KEY_NAME.search(
            text, start, end
        )
        gave = False  # a value given here keeps the secret named for the next sentence
        if (named or named_before) and not said_public:
            digest = _DIGEST_WORD.search(text, start, end) is not None
            kind = ""  # read once a sentence, when it gives a value: linear
            for t in _RANDOM_TOKEN.finditer(text, start, end):
                if any(a <= t.start() < b for a, b in public):
                    continue
                if _token_given(text, t, named, digest):
                    gave = True
                    kind = kind or _sentence_kind(text, start, end)
                    yield t.start(), t.end(), kind
            for a, b in _passwords_in(text, start, end, named):
                gave = True
                yield a, b, "password"
            for a, b in _strong_values(text, start, end) if pw_chain and not named else ():
                gave = True
                yield a, b, "password"
            for pattern in (_NEW_VALUE, _OLD_VALUE):
                for t in pattern.finditer(text, start, end):
                    v = t.group(1).rstrip(_TRAILING)
                    if _new_password(v) or (
                        v.isdigit() and len(v) >= 4 and _PIN_WORD.search(text, start, end)
                    ):
                        gave = True
                        # a password's when the sentences naming it say so
                        said_pw = pw_chain or _PASSWORD_WORD.search(text, start, end) is not None
                        yield t.start(1), t.start(1) + len(v), "password" if said_pw else "secret"
        named_before = (named or gave) and not said_public
        pw_chain = named_before and (
            pw_chain or _PASSWORD_WORD.search(text, start, end) is not None
        )


#: A password's word, in the languages a forwarded message may be in, and what says
#: "is": the place a value with spaces in it may stand.
_SPACED_SAID = re.compile(
    r"(?i:password|passphrase|" + _FOREIGN_PASSWORD + r")"
    r"(?:[ \t]{1,3}(?i:ist|is|was|war|era|es|est|é|è)(?![A-Za-z]))?(?:[ \t]{0,2}[:：])?"
    r"|(?:パスワード|パスフレーズ|密码|密碼|口令)(?:は|是|为|為|[:：])"
)
#: A value set off by runs of blanks on both sides (the passphrase is   a b c   ...).
_FRAMED = re.compile(r"[ \t]{2,8}([^\s](?:[^\n]{0,62}?[^\s])?)[ \t]{2,}")
#: A value, then a note in brackets that speaks of its spaces: (con el espacio), (single
#: spaces), （スペースあり）, （中间有空格）.
_SPACE_NOTED = re.compile(
    r"[ \t]{0,3}([^\s(（「『\"']{1,32}(?:[ \t][^\s(（]{1,32}){1,6}?)[ \t]{0,3}[(（][^)）\n]{0,40}?"
    r"(?i:space|espacio|leerzeichen|espace|spazio|spatie|スペース|空格|空白)[^)）\n]{0,30}[)）]"
)


def _spaced_passwords(text: str) -> Iterator[tuple[int, int]]:
    """A password with spaces in it, after its word and "is" (in any of the languages a
    pasted message may be in): one set off by runs of blanks, or one a note in brackets
    says has spaces ("la contraseña es Canela 73!!anf (con el espacio)")."""
    for m in _SPACED_SAID.finditer(text):
        for pattern in (_FRAMED, _SPACE_NOTED):
            v = pattern.match(text, m.end())
            if v is None or " " not in v.group(1).strip() or _placeholder(v.group(1)):
                continue
            if (
                pattern is _FRAMED
                or any(not c.isalpha() and c != " " for c in v.group(1))
                or (v.group(1).lower() != v.group(1))
            ):  # a note on spaces after plain words may say what is done with them
                yield v.start(1), v.end(1)
                break


#: A label that is not a secret's, right before a value: the value is that label's.
_OTHER_LABEL = re.compile(
    r"(?:(?i:ssid|user(?:[ _-]?name)?|login(?:[ _-]?id)?|account|id|host(?:name)?|server"
    r"|name|network|email|e-mail)|ユーザー名?|ユーザーID|ログインID|アカウント|ネットワーク名?|名前"
    r"|用户名?|账号|帳號|账户|帳戶|名称|名稱|网络名?|邮箱"
    # a record's number: 物件番号 R-2025-0417, 订单编号, order no. (暗証番号 is a PIN's)
    r"|(?<!暗証)番号|编号|編號|单号|單號|(?i:no\.|number|order|invoice|ticket|ref))"
    r"[ \t]{0,2}(?:是|は|为|為|:|：|=|(?i:is))?"
    # the value in quotes or in full-width brackets after its label: 实例 ID（r-bp4x…）
    # ("the admin account (…)" may give the password it names: read as before)
    r"[ \t]{0,2}[「『\"'（]?$"
)
_PASSWORD_WORD = re.compile(
    r"(?i:password|passwd|passphrase|pass[ -]?code|(?<![a-z0-9+/])pw(?![a-z0-9+/])"
    # as a message forwarded from another language says it
    r"|" + _FOREIGN_PASSWORD + r")|" + "|".join(_PASSWORD_WORDS_CJK)
)
#: A run of printable ASCII standing alone in a sentence (after a space, a CJK mark or
#: the start; before a space, CJK or the end).
_PASSWORD_LIKE = re.compile(
    r"(?:(?<=[\s、，。：:「『（(])|(?<=[\u3040-\u30ff\u4e00-\u9fff])|^)"
    r"([!-~]{8,64}+)(?=[\s、，。！？」』）)]|[\u3040-\u30ff\u4e00-\u9fff]|$)"
)


def _table(text: str) -> dict[str, str]:
    """``word→character`` pairs split by spaces (a space inside a word written ``_``)."""
    return {k.replace("_", " "): v for k, v in (p.split("→") for p in text.split())}


#: What each spoken word writes: the words :data:`_SPOKEN_CHAR` reads besides letters and digits.
_SPOKEN_WORDS = _table(
    "zero→0 one→1 two→2 three→3 four→4 five→5 six→6 seven→7 eight→8 nine→9 exclamation→! "
    "hash→# pound→# at_sign→@ dollar→$ percent→% ampersand→& asterisk→* star→* underscore→_ "
    "dash→- hyphen→- dot→. period→. plus→+ equals→= slash→/ question_mark→? tilde→~ caret→^ "
    "井号→# 井號→# 井字→# 星号→* 星號→* 感叹号→! 感嘆號→! 下划线→_ 下劃線→_ 艾特→@ 美元符号→$ 点→. "
    "減号→- 减号→- 连字符→- 横杠→- ゼロ→0 イチ→1 ニ→2 サン→3 ヨン→4 ゴ→5 ロク→6 ナナ→7 ハチ→8 "
    "キュウ→9 キュー→9 アットマーク→@ ハイフン→- アンダーバー→_ アンダースコア→_ ドット→. シャープ→# "
    "エクスクラメーション→! ビックリマーク→! スラッシュ→/ プラス→+ exclamation_mark→! exclamation_point→! "
    "pound_sign→# dollar_sign→$ percent_sign→% ぜろ→0 れい→0 いち→1 さん→3 よん→4 ご→5 "
    "ろく→6 なな→7 しち→7 はち→8 きゅう→9 に→2 びっくりマーク→! アスタリスク→* ピリオド→. "
    "イコール→= チルダ→~ クエスチョン→? はてな→? ハテナ→? パーセント→% アンパサンド→& ごー→5 にー→2 "
    "ぜろ→0 てん→. 杠→- 槓→- 横线→- 橫線→- 短横→- 中划线→- ワン→1 ツー→2 スリー→3 フォー→4 "
    "ファイブ→5 シックス→6 セブン→7 エイト→8 ナイン→9"
)
#: The Latin letters as Japanese says their names (エフ F, ダブリュー W).
_KANA_LETTERS = _table(
    "エー→a エイ→a ビー→b シー→c ディー→d デー→d イー→e エフ→f ジー→g エイチ→h エッチ→h アイ→i "
    "ジェー→j ジェイ→j ケー→k ケイ→k エル→l エム→m エヌ→n オー→o ピー→p キュー→q アール→r "
    "エス→s ティー→t ユー→u ブイ→v ヴィ→v ダブリュー→w エックス→x ワイ→y ゼット→z ゼッド→z"
)
#: Digits as Chinese reads them out, the phone and radio way too: 幺 (1), 两 (2), 拐 (7), 洞 (0).
_ZH_DIGITS = dict(zip("零〇一二三四五六七八九幺两兩拐洞", "001234567891227" + "0", strict=True))
#: The Latin letters as a radio alphabet says them (sierra S, X-ray X), read as letters.
_RADIO_LETTERS = {
    w: w[0]
    for w in (
        "alfa",
        "alpha",
        "bravo",
        "charlie",
        "delta",
        "echo",
        "foxtrot",
        "golf",
        "hotel",
        "india",
        "juliett",
        "juliet",
        "kilo",
        "lima",
        "mike",
        "november",
        "oscar",
        "papa",
        "quebec",
        "romeo",
        "sierra",
        "tango",
        "uniform",
        "victor",
        "whiskey",
        "whisky",
        "x-ray",
        "xray",
        "yankee",
        "zulu",
    )
}
#: The same names written in hiragana (わい, だぶりゅー), as a dictation typed fast has them.
_HIRAGANA_LETTERS = {
    "".join(chr(ord(c) - 0x60) if "\u30a1" <= c <= "\u30f6" else c for c in k): v
    for k, v in _KANA_LETTERS.items()
}
#: Every word that names a letter: Japanese's (エフ, える) and the radio alphabet's (foxtrot).
_LETTER_NAMES = {**_KANA_LETTERS, **_HIRAGANA_LETTERS, **_RADIO_LETTERS}
_HIRAGANA_NAME = "|".join(sorted(_HIRAGANA_LETTERS, key=len, reverse=True))


#: The spoken words, longest first (a space inside one is any run of blanks).
_NAMED_CHAR = "|".join(
    re.escape(k).replace(r"\ ", r"[ \t]+")
    for k in sorted({*_SPOKEN_WORDS, *_LETTER_NAMES}, key=len, reverse=True)
)
_RADIO_NAME = "|".join(re.escape(k) for k in sorted(_RADIO_LETTERS, key=len, reverse=True))
_CASE_EN = r"capital|uppercase|upper[ -]case|lowercase|lower[ -]case|small|big"
#: Cantonese says 大楷 and 细楷 (big and small script) for the cases.
_CASE_CJK = (
    r"大写的?|小写的?|大寫的?|小寫的?|大楷|细楷|細楷|大文字[のでは]?|小文字[のでは]?"
    r"|大きい|小さい|おおきい|ちいさい"
)
_DIGIT_WORD = r"(?:数字|數字|すうじ)[のでは]?[ \t]{0,2}"
_AS_IN = r"(?:[ \t]+(?:as[ \t]+in|for)[ \t]+[A-Za-z]+)?"
#: One character of a password read aloud or dictated: "capital V as in Victor",
#: "lowercase k", "seven", "exclamation mark"; 大写L, 小写z, 八八六六, 井号; 大文字のA.
_SPOKEN_CHAR = (
    rf"(?:(?:{_CASE_EN})[ \t]+(?:{_RADIO_NAME}|[A-Za-z](?![A-Za-z])){_AS_IN}"
    rf"|(?:(?:double|triple)[ \t]+)?(?:{_DIGIT_WORD})?(?:{_NAMED_CHAR})"
    rf"|(?:{_CASE_CJK})[ \t]*(?:[A-Za-z](?:-[A-Za-z]){{1,24}}(?![A-Za-z])|[A-Za-z]+|[\u30a1-\u30fc]{{1,5}}"
    rf"|(?:{_HIRAGANA_NAME})(?![\u3041-\u3096]))"
    rf"|(?:{_DIGIT_WORD})?(?:[0-9]|[零〇一二三四五六七八九幺两兩拐洞]+)"
    # a word said in katakana (ブルー, タイガー): a password's word, read as it is spelled
    # (not the words a sentence about it says: パスワード, アカウント)
    r"|(?<![\u30a1-\u30fc])(?!パスワード|アカウント|ユーザー|ログイン|ファイル)[\u30a1-\u30fc]{2,8}"
    r"(?![\u30a1-\u30fc])"
    # letters spelled with hyphens between them, no case said ("o-w-h-a-i"): lower case
    r"|[A-Za-z](?:-[A-Za-z]){2,24}(?![A-Za-z-])"
    r"|(?:(?:double|triple)[ \t]+)?[A-Za-z](?![A-Za-z])"
    # a word with its case said after it ("galah, all lowercase"), the last part said again
    r"|[A-Za-z]{2,12}[ \t]*,?[ \t]+all[ \t]+(?:lower[ -]?case|upper[ -]?case|caps|capitals)"
    r"|[A-Za-z]{2,12}[ \t]*(?:全|都是)?(?:小写|大写|小寫|大寫)(?![的字])"
    # letters with their count and case after them: "nj 两个小写字母"
    r"|[A-Za-z]{1,6}[ \t]*[一两兩二三四五六0-9]?[个個](?:小写|大写|小寫|大寫)?字母"
    r"|same[ \t]+again)"
)
#: One spoken character as :func:`spelled_value` reads it, its case word apart (a word not
#: in the table is read too, and spells nothing).
_SPOKEN_ONE = re.compile(
    rf"(?i)(?=[^\s,，、])(?:({_CASE_EN}|{_CASE_CJK})[ \t]*+)?(?:{_DIGIT_WORD})?"
    rf"({_NAMED_CHAR}|[a-z]{{3,}}|[0-9]|[零〇一二三四五六七八九幺两兩拐洞]+|[\u30a1-\u30fc]{{1,10}}|{_HIRAGANA_NAME}"
    rf"|[\u4e00-\u9fff]{{1,4}}|[A-Za-z]){_AS_IN}"
)
#: What a dictation says between its characters besides a pause: 然后, 最後に, 一个 (杠).
_SPOKEN_FILLER = (
    r"然后|然後|最后|最後に?|さいごに|接着|接著|接下来|接下來|后面|後面|再|次に|つぎに|それから|そのあと|あと|一个|一個"
    # "then the number six", "and a capital H": English's joins, never a letter alone
    rf"|then|(?:the[ \t]+)?number|and(?:[ \t]+an?(?=[ \t]+(?:{_CASE_EN})))?"
)
_SPOKEN_GAP = r"(?:[ \t]*+[,，、・][ \t]*+|[ \t]++)(?:(?:" + _SPOKEN_FILLER + r")[ \t]*+){0,2}"
#: Six spoken characters or more in a row, each pair read once (possessive: no backtracking).
_SPELLED = re.compile(
    rf"(?i)(?<![A-Za-z0-9_'’])(?>{_SPOKEN_CHAR})(?:{_SPOKEN_GAP}(?>{_SPOKEN_CHAR})){{3,41}}+"
)
#: Words that go on an English sentence, not a dictation (none is a pinyin syllable): the
#: tail of "…, w two, so the master password is …" stops at "so".
_SENTENCE_WORDS_EN = (
    r"(?:so|the|and|but|that|which|this|is|it|its|was|were|are|to|of|in|on|for|with|as|or|if"
    r"|because|now|then|please|thanks|at|end|last|finally)(?![A-Za-z])"
)
#: What a dictation goes on with after its spoken characters: pinyin syllables and figures
#: typed as heard ("… 横杠 lan shan 二零二五"), up to the sentence's end.
_SPELLED_TAIL = re.compile(
    r"(?:(?:[ \t]{1,3}|[ \t]{0,2}[,，、][ \t]{0,2})(?:(?!" + _SENTENCE_WORDS_EN + r")[a-z]{1,6}"
    # a whole word after a dictation's pause ("…, hash, echidna"): a passphrase's word
    r"|(?<=[,，、])[ \t]{0,2}(?!" + _SENTENCE_WORDS_EN + r")[a-z]{7,12}(?=[ \t]*(?:[.,;!?，。]|$))"
    r"|[零〇一二三四五六七八九幺两兩拐洞0-9]{1,8}"
    # the words a dictation goes on with: 然后 xi hu 拼音全小写，最后 二零二四
    r"|然后|然後|最后|最後|接着|接著|再|拼音(?:全)?(?:小写|大写|小寫|大寫)?|全小写|全大写|全小寫|全大寫)"
    r"(?![\w]))*+"
)
#: The word a dictation opens with after "it's", "is" or a colon, a pause after it.
_SPELLED_LEAD = re.compile(
    r"(?:(?i:\bit'?s|\bit[ \t]is|\bis|\bwas)|[:：])[ \t]{1,3}(?!"
    + _SENTENCE_WORDS_EN
    + r")([a-z]{2,12})[ \t]*[,，、][ \t]*$"
)
_KANA_LETTER = re.compile(
    "(?i)" + "|".join(re.escape(k) for k in sorted(_LETTER_NAMES, key=len, reverse=True))
)
#: What says a value is about to be spelled out, where no password is named ("I'll spell
#: it", the break-glass one): 读一下, 読み上げ.
_SPELL_CUE = re.compile(
    r"(?i:\bspell(?:s|ed|ing)?[ \t]+(?:it|them|that|out)\b|break[ -]?glass"
    r"|\bread(?:ing)?[ \t]+(?:it|them|that)[ \t]+out\b)|読み上げ|念一下|念给你"
)


def _spelled(text: str) -> Iterator[tuple[int, int]]:
    """A password read aloud or dictated, one character a word ("capital V as in Victor,
    lowercase k, seven, …", 「大写L 小写z 八八六六 井号 …」), in a text that names a password:
    six spoken characters in a row, at least one a letter said with its case."""
    for m in _SPELLED.finditer(text):
        run = m.group(0)
        near = _PASSWORD_WORD.search(text, max(0, m.start() - 80), m.start())
        if not (
            _CASED.search(run)
            or len(_KANA_LETTER.findall(run)) >= 3
            or (near and len(_SPOKEN_ONE.findall(run)) >= 8)
            or (near and _digit_and_mark(run))
        ):
            # a letter said with its case, letters said by their names (エス、ユー), or
            # eight characters read out right after the password is named
            continue
        if (
            not near
            and not _PASSWORD_WORD.search(text, max(0, m.start() - 300), m.start())
            and not _SPELL_CUE.search(text, max(0, m.start() - 300), m.start())
        ):
            continue
        tail = _SPELLED_TAIL.match(text, m.end())
        end = tail.end() if tail else m.end()
        # a word the dictation opens with, a pause after it ("it's fallow, capital D, …")
        lead = _SPELLED_LEAD.search(text, max(0, m.start() - 40), m.start())
        start = lead.start(1) if lead else m.start()
        said = len(_SPOKEN_ONE.findall(run)) + len(text[m.end() : end].split()) + bool(lead)
        if said >= 6:
            yield start, end


_SPOKEN_FILLERS = re.compile(_SPOKEN_FILLER)


def _digit_and_mark(run: str) -> bool:
    """Whether a run of six spoken parts or more says a digit and a mark among its words
    (ブルー、タイガー、ハイフン、フォー、ゼロ: words, a hyphen, digits): a password's makeup."""
    said = [
        _SPOKEN_WORDS.get(" ".join(m.group(2).lower().split()), "")
        for m in _SPOKEN_ONE.finditer(run)
    ]
    if len(said) < 6:
        return False
    return any(c.isdigit() for c in said) and any(c and not c.isalnum() for c in said)


def spelled_value(run: str) -> str:
    """The password a run of spoken characters spells ("capital F, lowercase r, seven" ->
    ``Fr7``; 大文字のエフ、ナナ -> ``F7``; 大写M，数字9，井号 -> ``M9#``), or "" when a word
    of it is not one character."""
    out: list[str] = []
    run = _CASE_AFTER.sub(r"\2\1", run)  # "ebra 全小写", "nj 两个小写字母": the case said after
    run = _SPOKEN_FILLERS.sub(" ", run).replace("・", " ")
    run = _SAID_TWICE.sub(_twice, run)  # "double f" is "f, f"
    run = _LETTERS_HYPHENED.sub(lambda m: m.group().replace("-", ""), run)  # i-n-a-t-o
    for m in _SPOKEN_ONE.finditer(run):
        case, word = m.group(1), m.group(2)
        low = " ".join(word.lower().split())
        if case:
            letter = _LETTER_NAMES.get(word) or _LETTER_NAMES.get(low) or ""
            if not letter and word.isascii() and word.isalpha() and len(word) <= 12:
                letter = word  # "小文字で sakura": each letter of the word in that case
            if not letter:
                return ""
            upper = case.lower().startswith(("capital", "upper", "big", "大"))
            out.append(letter.upper() if upper else letter.lower())
        elif low in _SPOKEN_WORDS:
            out.append(_SPOKEN_WORDS[low])
        elif word in _LETTER_NAMES or low in _LETTER_NAMES:
            # エス, sierra with no case said: as it is typed, small
            out.append(_LETTER_NAMES.get(word) or _LETTER_NAMES[low])
        elif all(c in _ZH_DIGITS for c in word):
            out.append("".join(_ZH_DIGITS[c] for c in word))
        elif len(word) == 1 and word.isascii() and word.isalnum():
            out.append(word)
        else:
            return ""
    return "".join(out)


#: Letters with their case said after them in Chinese: "ebra 全小写", "nj 两个小写字母".
_CASE_AFTER = re.compile(
    r"([A-Za-z]{1,12})[ \t]*(?:全|都是)?(?:[一两兩二三四五六0-9]?[个個])?(小写|大写|小寫|大寫)(?:字母)?(?![的字])"
)
#: Letters spelled one by one with hyphens between them (小文字で i-n-a-t-o): one word.
_LETTERS_HYPHENED = re.compile(r"(?<![A-Za-z-])[A-Za-z](?:-[A-Za-z]){1,24}(?![A-Za-z-])")
#: A character said twice or three times over: "double f", "double five", "triple seven".
_SAID_TWICE = re.compile(r"(?i)\b(double|triple)[ \t]+([A-Za-z]+)")


def _twice(m: re.Match[str]) -> str:
    return ", ".join([m.group(2)] * (2 if m.group(1).lower() == "double" else 3))


_CASED = re.compile(
    r"(?i)capital|uppercase|upper[ -]case|lowercase|lower[ -]case|大写|小写|大寫|小寫|大楷|细楷|細楷"
    r"|大文字|小文字"
)


def _password_like(v: str) -> bool:
    """A value a sentence naming a password may be giving: ten characters or more, letters
    and digits, and a symbol or both cases (not a word run together), and no URL, path,
    address, version, date or marker."""
    v = v.rstrip(_TRAILING)
    if len(v) < 10 and not (len(v) >= 8 and _strong(v)):
        return False  # eight or nine characters only with every kind in them (7Qv#kL2x)
    if not _has_digit_and_letter(v) or _placeholder(v):
        return False
    if any(c in _NOT_IN_PASSWORD_LIKE for c in v) or _FILE_END.search(v):
        return False  # a path, a URL, code, a file name, an address
    if _HOST_NAME.fullmatch(v):
        return False  # db-2.internal, api.shop.local: a host the sentence names
    if _VERSION.fullmatch(v) or _CLOCK.search(v):
        return False
    symbol = any(not c.isalnum() for c in v.strip("-_."))
    return symbol or (_upper_and_lower(v) and not _camel_words(v))


def _strong(v: str) -> bool:
    """Upper and lower case, a digit and a symbol: a password's look whatever its length."""
    return _upper_and_lower(v) and any(c.isdigit() for c in v) and any(not c.isalnum() for c in v)


_NOT_IN_PASSWORD_LIKE = frozenset("/\\[](){}<>\"'`=:,;|")
_HOST_NAME = re.compile(r"(?:[A-Za-z0-9-]{1,63}\.){1,8}[a-z]{2,24}")
_FILE_END = re.compile(r"\.[A-Za-z][A-Za-z0-9]{0,4}$|@[\w-]+\.[\w.-]+$")


def _new_password(v: str) -> bool:
    """A value given as a secret's new one that reads as a password: eight characters or
    more, letters and digits, no version, date or clock time."""
    if len(v) < 8 or not _said_password(v) or not _has_digit_and_letter(v):
        return False
    return not _VERSION.fullmatch(v) and not _CLOCK.search(v)


#: Words that make a hex string a digest or an identifier, not a key.
_DIGEST_WORD = re.compile(
    r"(?i:sha-?\d|md5|hash|checksum|digest|fingerprint|commit|serial|[_ -]id\b|\bid\b|uuid"
    # a request's signature (x-line-signature, X-Hub-Signature): a digest of one body
    r"|signature)"
    r"|校验|哈希|指纹|摘要|序列号|ハッシュ|チェックサム|指紋|フィンガープリント|シリアル|签名|署名"
)
_HEX_KEY = re.compile(r"[0-9a-fA-F]{32,128}")
#: "The new one is X", 今は X です, 新しいのは X, 现在是 X, 改成 X: a value given as a
#: secret's new value, the secret named in this sentence or the one before.
_NEW_VALUE = re.compile(
    r"(?:(?i:(?:the[ \t])?new[ \t]one(?:[ \t]is|'s)|(?:it'?s|it[ \t]is|\bis)[ \t]now|now[ \t]it(?:'s|[ \t]is)"
    # what a forwarded message says: agora é (Portuguese), ahora es, jetzt ist, maintenant c'est
    r"|agora[ \t]é|ahora[ \t]es|jetzt[ \t]ist|maintenant[ \t]c'est"
    r"|changed[ \t](?:it[ \t])?to|new[ \t]one:)"
    r"|今は|今のは|今のが|いまは|いまの(?:は|が)|新しいの(?:は|が)|新しいのが|新しい(?:方|ほう)(?:は|が)"
    r"|新しい(?:番号|コード|暗証番号)(?:は|が)|新(?:的)?(?:号码|密码|密碼|口令)(?:是|为|為)"
    r"|新的(?:是|为|為)|新的那个是|现在(?:是|为|改成了?)"
    r"|现在的是|現在(?:是|為)"
    r"|改成了?|换成了?|換成了?|更新为|更新為|に変えて|に変更)"
    r"[ \t]{0,4}[:：]?[ \t]{0,4}[\"'“`「]?([!-~]{4,128})"
)
#: A figure of characters in words or digits: "the last 8", 下4桁, 后六位.
_FEW = r"(?:[0-9]{1,2}|[一二三四五六七八九十]{1,2}|几|幾)"
#: A part of a secret given: "it ends in …", "starts with …", "the last 8 characters are
#: …", 末尾は …, 末尾が …, 下8桁は …, 最后几位是 …, 后六位 …; shown as a part, after an
#: ellipsis (末尾が …Hq8v…) or not.
_PART_GIVEN = re.compile(
    r"(?:(?i:\b(?:ends?|ending)[ \t]+(?:in|with)|\b(?:starts?|begins?)[ \t]+with"
    r"|\b(?:last|first|final)[ \t]+(?:[0-9]{1,2}|four|five|six|seven|eight|nine|ten|twelve|few)"
    r"[ \t]+(?:char(?:acter)?s|digits|letters)(?:[ \t]+(?:are|were|is|was))?"
    r"|\btail[ \t]+(?:is|was)|\btail[ \t]{0,2}[:：])"
    rf"|(?:末尾|最後|先頭)(?:の{_FEW}(?:文字|桁))?(?:は|が)|下{_FEW}桁(?:は|が)"
    rf"|结尾是|結尾是|最后(?:{_FEW}位)?是|开头是|開頭是|[前后後]{_FEW}位(?:是|为|為)?|尾号是?)"
    r"[ \t]{0,4}[:：]?[ \t]{0,4}[\"'“`「]?(?:…|\.\.\.|⋯)?([!-~]{6,64}+)"
)


_TOKEN_WORD = re.compile(r"(?i:token)|トークン|令牌|ストリームキー|金钥|金鑰|推流码|串流码|直播码")


#: A key typed in groups, the way it is read out or printed: five groups or more of four to
#: six letters and digits parted by single spaces ("84d1 f3e2 784c c3dd 60d0 f0eb").
#: Groups of a key typed apart: five of four to six characters (an app password, a licence
#: key), or four of eight (a 32-hex token copied from paper: 975c6d3c 3a58fda8 …).
_GROUPED = re.compile(
    r"(?<![\w-])(?:[A-Za-z0-9]{4,6}(?: [A-Za-z0-9]{4,6}){4,15}|[A-Za-z0-9]{8}(?: [A-Za-z0-9]{8}){3,7})(?![\w-])"
)
_KEY_NAMED = re.compile(r"(?i:\bkey\b|キー|码|碼|schl(?:ü|ue)ssel|kennwort|passwort)")


_BASE32_GROUP = re.compile(r"[a-z2-7]{4,8}|[A-Z2-7]{4,8}")


def _base32_groups(groups: list[str], label: str) -> bool:
    """Whether *groups* are a base32 key in groups of one case (an authenticator's setup
    key, "2cqo bbb4 pzo7 mjz5 grfl pacy ykny ioyz") after a label that names a key on its
    line: six groups or more, some with a digit."""
    return (
        len(groups) >= 6
        and all(_BASE32_GROUP.fullmatch(g) for g in groups)
        and sum(any(c.isdigit() for c in g) for g in groups) >= 2
        and _KEY_NAMED.search(label) is not None
    )


def _grouped_keys(text: str) -> Iterator[tuple[int, int]]:
    """A key or a token typed in groups after the line names one: most groups hold a
    digit and the whole run is random (not a sentence of words, not a phone number)."""
    for m in _GROUPED.finditer(text):
        groups = m.group(0).split()
        line = text.rfind("\n", 0, m.start()) + 1
        if not all(any(c.isdigit() for c in g) for g in groups[1:]) and not _base32_groups(
            groups, text[line : m.start()]
        ):
            continue  # every group but a leading word (live, test) holds a digit
        if all(g.isdigit() for g in groups):
            # twenty digits in groups on the line under a Wi-Fi key's label (a router's
            # sticker): the key; a phone number or a row of counts names none
            label = text.rfind("\n", 0, max(0, line - 1)) + 1
            if len("".join(groups)) >= 16 and _KEY_NAMED.search(text, label, m.start()):
                yield m.start(), m.end()
            continue
        if sum(not g.isdigit() for g in groups) < 2 or not looks_random("".join(groups)):
            continue  # a phone number, a row of counts
        before = max(line, m.start() - 200)
        if _DIGEST_WORD.search(text, max(before, m.start() - 40), m.start()):
            continue  # a key's fingerprint, a checksum named right before it: public
        if _SECRET_SENTENCE_WORD.search(text, before, m.start()) or _KEY_NAMED.search(
            text, before, m.start()
        ):
            yield m.start(), m.end()


#: A JSON field's name right before its value, escaped or not: "to":", \"callID\": \".
_FIELD_BEFORE = re.compile(r"[\"']([A-Za-z_][\w.-]{0,40})\\?[\"'][ \t]{0,2}:[ \t]{0,2}\\?[\"']$")


def _keyed_by_other(text: str, at: int) -> bool:
    """Whether the value at *at* is a JSON field's whose name says no secret (to, user_id,
    callID): a sentence's secret word elsewhere does not make it one."""
    m = _FIELD_BEFORE.search(text, max(0, at - 48), at)
    return m is not None and _name_kind(m.group(1)) is None


#: A field name that says id: id, callID, sessionId, user_id, run-id (not paid, valid).
_ID_NAME = re.compile(r"(?:^|[a-z0-9](?=I[Dd]$)|[_.-])(?:id|ID|Id)$")


def _id_field(text: str, at: int) -> bool:
    """Whether the value at *at* is a JSON field's named as an id."""
    m = _FIELD_BEFORE.search(text, max(0, at - 48), at)
    return m is not None and _ID_NAME.search(m.group(1)) is not None


#: The words for a code of digits that opens something: a PIN, a door's or a lock's code.
_PIN_WORD = re.compile(
    r"(?i:\bpin\b|door[ _-]?code|lock[ _-]?code|passcode|keypad)"
    r"|暗証番号|暗証コード|ドアコード|暗码|门禁码|門禁碼|密码|密碼|开门密码|開門密碼"
)


_API_KEY_WORD = re.compile(r"(?i:api[ \t_-]?(?:key|キー))")


def _sentence_kind(text: str, start: int, end: int) -> str:
    """The kind a sentence names its secret by: a token (令牌, トークン) or a secret."""
    if _API_KEY_WORD.search(text, start, end):
        return "api-key"
    return "token" if _TOKEN_WORD.search(text, start, end) else "secret"


def _passwords_in(text: str, start: int, end: int, named: bool) -> Iterator[tuple[int, int]]:
    """In a sentence that names a password (*named*): a password-like value anywhere in it
    ("パスワードもメモしといて、Kamera#Tokyo2026 ね"); in it or the sentence after one that
    names a secret, a part of it given ("it ends in kp7Mz4!q", 末尾は …)."""
    words = named and _PASSWORD_WORD.search(text, start, end) is not None
    for t in _PASSWORD_LIKE.finditer(text, start, end) if words else ():
        if _OTHER_LABEL.search(text, max(start, t.start(1) - 16), t.start(1)):
            continue  # SSID 是 Xiaomi_AX3000_3F: the value of another label
        if _NAMED_THING.search(text, max(start, t.start(1) - 24), t.start(1)):
            continue  # "the backup task B2-offsite": the name of a thing
        if _password_like(t.group(1)) or _given_as(text, start, t.start(1), t.end(1)):
            yield t.start(1), t.end(1) - _trailing(t.group(1))
    for t in _PART_GIVEN.finditer(text, start, end):
        v = t.group(1).rstrip(_TRAILING)
        mixed = len(v) >= 8 and v.isalpha() and _upper_and_lower(v) and not _camel_words(v)
        if (len(v) >= 6 and _has_digit_and_letter(v) or mixed) and not _placeholder(v):
            yield t.start(1), t.start(1) + len(v)  # "ended in mLHmPvmn": letters of both cases


#: A noun that names the thing after it: "task B2-offsite", "branch feat-2fa", "host nas-01".
_NAMED_THING = re.compile(
    r"(?i)\b(?:task|job|branch|host|hostname|server|file|folder|bucket|project|repo|tag|named"
    r"|called|device|model|version|release|build|ticket|issue|plan|tier|profile)[ \t]+[\"'`“「]?$"
)


#: A value a sentence gives as what its password is: after 是, "is" or a colon, or before
#: です, だ, ね (パスワードは、全角ですが、aobaguest2603 です).
_IS_BEFORE = re.compile(r"(?:是|为|為|(?i:\bis|\bwas)|[:：])[ \t]{0,2}[「『\"'“]?$")
_IS_AFTER = re.compile(
    r"[ \t]{0,2}[」』\"'”]?[ \t]{0,2}(?:です|でした|だ(?!け)|ね|よ|になります|となります"
    # the copula in the dialects: や, やった (Kansai, 金沢), じゃ, じゃった, だっちゃ
    r"|や(?:った|で|わ|ねん)?(?![\u3040-\u309f])|やった|じゃ(?:った)?|だっちゃ)"
)


def _given_as(text: str, start: int, a: int, b: int) -> bool:
    """Whether the value at *a*..*b*, after the sentence's password word, stands where the
    sentence says what the password is, and reads as one (letters and digits, not a word:
    aobaguest2603, not "password is required")."""
    value = text[a:b].rstrip(_TRAILING)
    if not _has_digit_and_letter(value) or not _said_password(value):
        return False
    if any(c in _NOT_IN_PASSWORD_LIKE for c in value) or _FILE_END.search(value):
        return False
    if _HOST_NAME.fullmatch(value) or _VERSION.fullmatch(value) or _CLOCK.search(value):
        return False
    word = _PASSWORD_WORD.search(text, start, a)
    if word is None:
        return False
    return bool(
        _IS_BEFORE.search(text, max(word.end(), a - 6), a)
        or _IS_AFTER.match(text, b - _trailing(text[a:b]))
    )


#: A key, a secret, a token or a password named in a sentence and given by its copula, a
#: few words between that say whose it is ("the PagerDuty API key for the billing
#: service is …", "your new key is …", "appSecret 是 …"): the name, joined on in camel
#: case (appSecret, accessToken) or after the word that says what it is (API key, new key);
#: what it is for, a preposition and words that are no clause of their own; the copula.
_GIVEN_NAME = re.compile(
    r"(?<![A-Za-z0-9_-])(?:[a-z]{2,12}(?=[A-Z])|(?i:api|app|access|secret|client|auth|signing"
    r"|master|private|consumer|partner)[_-]?)?"
    r"(?P<name>(?i:key|secret|token|password|passphrase))(?![A-Za-z0-9_-])"
    r"(?P<which>[ \t]{1,4}(?i:for|of|on|from|in|at|to)[ \t]{1,4}"
    r"(?:(?!(?i:is|was|are|were|and|but|id|ids|name|url|uri|hash|digest|fingerprint|checksum)"
    r"(?![A-Za-z0-9_-]))[^\s.!?。，,;:=()\[\]{}\"'`<>]{1,40}[ \t]{1,4}){1,6}?"
    r"|[ \t]{1,4}\([^()\n]{1,40}\))?"
    r"(?:[ \t]{0,4}(?i:is[ \t]now|is|was|will[ \t]be)[ \t]{1,4}|[ \t]{0,4}(?:[，、][ \t]{0,2})?(?:是|为|為|は)[ \t]{0,4})"
    r"[\"'“`「]?(?P<value>[A-Za-z0-9_+/=.-]{8,512})"
)
#: The same in Portuguese, Spanish and French ("a chave de aplicação nova do Datadog é …",
#: "la clave de la API es …", "la clé d'API est …"): the name, a few words that say whose it
#: is, the copula. (A password given so, senha or contraseña, is the sentence rule's:
#: _FOREIGN_PASSWORD.)
_GIVEN_NAME_ROMANCE = re.compile(
    r"(?<![A-Za-z0-9_-])(?P<name>(?i:chave|clave|cl[ée]|segredo|secreto|jeton))(?![A-Za-z0-9_-])"
    r"(?P<which>(?:[ \t]{1,4}(?!(?i:hash|id|ids|nome|nombre|nom|url|digest|checksum|sha)\b)"
    r"[^\s.!?。，,;:=()\[\]{}\"`<>]{1,24}){0,6}?)"
    r"[ \t]{1,4}(?i:é|e|es|est|era|será|sera)[ \t]{1,4}"
    r"[\"'“`«]?(?P<value>[A-Za-z0-9_+/=.-]{8,512})"
)
#: What each of those names is, as the English sentence rule names it.
_ROMANCE_NAMES = {
    "chave": "key",
    "clave": "key",
    "cle": "key",
    "segredo": "secret",
    "secreto": "secret",
    "jeton": "token",
}
#: A word before "key" or "token" that makes it data, not a credential: a page's token, a
#: design token.
_NOT_SECRET_TOKEN_BEFORE = frozenset(
    {"page", "next", "continuation", "pagination", "sync", "cancellation", "design", "csrf"}
)
_WORD_BEFORE = re.compile(r"([A-Za-z]{2,24})[ \t]{1,2}$")


_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


def _key_like(v: str) -> bool:
    """Whether *v* reads as a key a sentence gives: a UUID, hex, or a random run of twelve
    letters and digits and more (not words and a figure: ap-northeast-1, createdAt2024)."""
    if _UUID.fullmatch(v) or (len(v) >= 16 and _HEXISH.fullmatch(v) and _has_digit_and_letter(v)):
        return True
    if looks_random(v, strict=True) and not _camel_words(v):
        return True
    run = max(_ALNUM_RUN.findall(v), key=len, default="")
    return (
        len(run) >= 12
        and _has_digit_and_letter(run)
        and entropy(run) >= 3.0
        and not _camel_words(run)
        and not _named_like_code(v)
    )


def _given_names(text: str) -> Iterator[tuple[int, int, str]]:
    """A value a sentence gives as what a key, a secret, a token or a password is, whatever
    its shape (a UUID too): a key's when it reads as random, the others' when it has letters
    and digits (eight or more, not a version); not where the word before the name makes it
    data (a sort key, a page token) or the sentence says the value is public."""
    for m in itertools.chain(_GIVEN_NAME.finditer(text), _GIVEN_NAME_ROMANCE.finditer(text)):
        word = _ROMANCE_NAMES.get(_unaccented(m.group("name").lower()), m.group("name").lower())
        v = m.group("value").rstrip(_TRAILING)
        if _placeholder(v) or "://" in v or _VERSION.fullmatch(v) or v.lower() in _KEEPERS:
            continue
        if _FILE_END.search(v):
            continue  # "the new APNs key is AuthKey_Q7WZ….p8": the file it is kept in
        joined = m.start("name") > m.start()
        before = None if joined else _WORD_BEFORE.search(text, max(0, m.start() - 26), m.start())
        if before is not None and before.group(1).lower() in (
            _NOT_SECRET_KEY_BEFORE | _NOT_SECRET_TOKEN_BEFORE
        ):
            continue
        if word == "key" or m.group("which"):  # what it is for widens the sentence
            if not _key_like(v):
                continue
        elif not ((_has_digit_and_letter(v) and len(v) >= 8) or _random_letters(v)):
            continue
        start, end = _sentence_around(text, m.start(), m.end("value"))
        if _SAID_PUBLIC.search(text, start, end) or _PUBLIC_KEY_NAME.search(
            text, max(start, m.start() - 12), m.end("name")
        ):
            continue
        kind = {"key": "api-key", "secret": "secret", "token": "token"}.get(word, "password")
        yield m.start("value"), m.start("value") + len(v), kind


def _sentence_around(text: str, a: int, b: int) -> tuple[int, int]:
    """The sentence *a*..*b* stands in, read at most 160 characters either side."""
    start = max(0, a - 160)
    for m in _SENTENCE_END.finditer(text, start, a):
        start = m.end()
    end = _SENTENCE_END.search(text, b, min(len(text), b + 160))
    return start, end.start() if end else min(len(text), b + 160)


#: What a secret's rotation says: reset, rotated, changed, 変えた, 再発行, 重置, 改了.
_ROTATED = re.compile(
    r"(?i:\b(?:reset|rotated?|changed?|regenerated?|renewed?|re-?issued?)\b)"
    r"|変えた|変えました|変えておいた|変更した|変更しました|リセット|再発行|再設定|設定し直|重置|重新设置|重设"
    r"|作り直|作成し直|再作成|再生成|重新生成|重新创建|重新建|(?i:regenerated|recreated|made[ \t]a[ \t]new)"
    r"|改了|换了|換了|更新了"
)


def _rotated(text: str) -> Iterator[tuple[int, int]]:
    """A value given as the new one right after a rotation is said ("reset it on the
    server, the new one is Rv7-kelp-Xq22-harbor", 再発行したので今は …): the thing rotated
    need not be named, the rotation says it was a credential."""
    if not _NEW_VALUE.search(text) or not _ROTATED.search(text):
        return
    for t in _NEW_VALUE.finditer(text):
        if _ROTATED.search(text, max(0, t.start() - 80), t.start()) is None:
            continue
        v = t.group(1).rstrip(_TRAILING)
        # a password's look: both cases or a symbol ("release-2026-q3", a branch, is not)
        if _new_password(v) and (_upper_and_lower(v) or any(c in "!@#$%^&*+=?~" for c in v)):
            yield t.start(1), t.start(1) + len(v)
        elif _random_letters(v) and v.islower():
            # an app password made anew (M365, Google: sixteen lower-case letters)
            yield t.start(1), t.start(1) + len(v)


#: What gives a piece of a value: "starts with", "ends in", 开头是, 末尾是, 先頭は, 頭の.
_PIECE_CUE = re.compile(
    r"(?i:\b(?:starts?|started|starting|begins?|began|beginning|ends?|ended|ending)[ \t]+(?:with|in)"
    r"|\b(?:first|last)[ \t]+(?:few[ \t]+)?(?:\d{1,2}[ \t]+)?(?:chars?|characters|digits)[ \t]+(?:are|were|is))"
    r"|开头是|開頭是|开头为|前几位是|前幾位是|结尾是|結尾是|末尾是|后几位是|後幾位是|最后几位是"
    r"|尾号是?|尾號是?|尾数是?|尾數是?"
    r"|先頭[はが]|頭[はが]|末尾[はが]|最後[はが]|お尻[はが]|下\d{1,2}桁[はが]|上\d{1,2}桁[はが]"
    # 末尾 f8f1f3a7f8, 下4桁：…: the piece right after the word, a space or a colon between
    r"|(?:先頭|末尾|下\d{1,2}桁|上\d{1,2}桁)(?=[ \t　]|[:：])"
)
#: A key told apart from another by its piece: the old one, the new one, the one revoked.
_PIECE_WHICH = re.compile(
    r"(?i:\b(?:old|new|revoked|rotated|previous|current|disabled)\b)|旧|新|古い|以前|前の|今の|作り直|再発行|禁用|作废|作廢"
)
_PIECE = re.compile(r"[ \t]{0,3}[:：]?[ \t]{0,3}[\"'“`「]?([A-Za-z0-9_+/=-]{8,64})")
#: The key a sentence names by its short name: SK, AK, SecretKey.
_KEY_SHORT = re.compile(
    r"(?<![A-Za-z])(?:SK|AK|SecretKey|AccessKey|secret_key|[Kk]ey|KEY)(?![A-Za-z])"
    r"|キー(?!ボード)|トークン|密钥|秘钥"
)


def _said_in_sentences(text: str, said: set[str]) -> list[tuple[int, int, int, str]]:
    """``(rank, start, end, kind)`` of the secrets sentences give: named in one, or spelled
    out where a password is named or a spelling announced."""
    out: list[tuple[int, int, int, str]] = []
    if said & _SENTENCE_KEYS:
        out += [(_ASSIGNED + 3, s, e, k) for s, e, k in _named_in_sentence(text)]
    if said & _SENTENCE_KEYS or _SPELL_CUE.search(text):
        out += [(_ASSIGNED + 3, s, e, "password") for s, e in _spelled(text)]
    return out


def _key_pieces(text: str) -> Iterator[tuple[int, int]]:
    """A piece of a key given to tell it apart ("the old SK starts with lxJDbOjdD7oC",
    旧的开头是 …, 先頭は …): random letters and digits after such words, in a sentence that
    names a secret and no digest or id."""
    for m in _PIECE_CUE.finditer(text):
        got = _PIECE.match(text, m.end())
        if got is None:
            continue
        v = got.group(1)
        hexed = all(c in "0123456789abcdefABCDEF" for c in v)
        shaped = (_has_digit_and_letter(v) and (_upper_and_lower(v) or hexed)) or (
            _upper_and_lower(v) and any(c in "_+/=-" for c in v)  # Dvz_JFIrkb
        )
        if not shaped or _wordy(v):
            continue
        before = text[max(0, m.start() - 120) : m.start()]
        cut = max(before.rfind("\n"), before.rfind("。"), before.rfind(". "))
        sentence = before[cut + 1 :]
        # the key named in this sentence, or, when it tells which one (the old one, 新しいの),
        # in the lines just before it
        named = (
            sentence
            if not _PIECE_WHICH.search(sentence)
            else text[max(0, m.start() - 240) : m.start()]
        )
        if not (_SECRET_SENTENCE_WORD.search(named) or _KEY_SHORT.search(named) or _present(named)):
            # nor a provider's key shown in the lines before ("here it is: whsec_…" …
            # "the old one (ends in …)")
            continue
        if _DIGEST_WORD.search(sentence):
            continue
        yield got.start(1), got.end(1)


#: The old value named as "the previous one", its value in brackets: 前のやつ（Sakura2019!）,
#: 旧的（…）, "the old one (…)".
_OLD_VALUE = re.compile(
    r"(?:前の(?:やつ|もの|奴|パスワード|の)|古い(?:やつ|の|方|パスワード)|元の(?:やつ|パスワード)"
    r"|旧的|舊的|原来的|以前的|之前的|老的|(?i:the[ \t](?:old|previous|former)[ \t]one|old[ \t]one))"
    r"[ \t]{0,2}[（(][ \t]{0,2}([!-~]{6,128}?)[ \t]{0,2}[)）]"
)
_CLOCK = re.compile(r"^\d{1,2}:\d{2}|^\d{4}[-/]\d{1,2}[-/]\d{1,2}")


#: A key given as its bytes: network_key: [122, 206, …] (Zigbee2MQTT), aes_key = {0x1f, …}.
_KEY_BYTES = re.compile(
    r"(?i:[\w-]{0,24}key)[\"']?[ \t]{0,4}[:=][ \t]{0,4}"
    # a type before the bytes: Go's []byte{…}, Java's new byte[]{…}, C's (uint8_t[])
    r"(?:\[\]byte|new[ \t]+byte[ \t]*\[\][ \t]*|bytes?|\(u?int8_t\[\]\))?[\[{(][ \t]*"
    # the bytes may run over lines, each numbered by the viewer that printed it ("11|")
    r"(?:\r?\n[ \t]{0,8}(?:\d{1,6}(?:[.|:]|→))?[ \t]*)?"
    r"((?:(?:0x)?[0-9A-Fa-f]{1,3}[ \t]*,(?:[ \t]*\r?\n[ \t]{0,8}(?:\d{1,6}(?:[.|:]|→))?)?[ \t]*){7,63}"
    r"(?:0x)?[0-9A-Fa-f]{1,3})[ \t]*,?[ \t]*"
    r"(?:\r?\n[ \t]{0,8}(?:\d{1,6}(?:[.|:]|→))?[ \t]*)?[\]})]"
)


#: A value in quotation marks right after a secret's name, spaces and all: 'the application
#: password "2wN3 Prl6 PaY9 8O7o Uk5P MCc5"', パスワードは「…」, 密码是“…”.
_QUOTED_SECRET = re.compile(
    r"(?:(?i:pass(?:word|phrase|code)?|secret|token|api[ \t]?key|stream[ \t]?key"
    r"|new[ \t]one(?:[ \t]is|'s|:))"
    r"|(?<![A-Za-z0-9+/])(?i:pwd?)(?![A-Za-z0-9+/])|"
    + "(?i:"
    + "|".join(_SECRET_WORDS_CJK)
    + ")"
    + r")[^\n\"“「『'`]{0,24}?[\"“「『'`]([^\n\"”」』'`]{10,80})[\"”」』'`]"
)


def _quoted_after_name(text: str) -> Iterator[tuple[int, int]]:
    """A secret given in quotation marks after its name: a password's look (密码，师兄说是
    “slurm@GPU-2024”), or groups parted by spaces (an application password, a recovery key
    read off a screen): three groups or more of three to twelve letters and digits, most of
    them with a digit, both cases or digits in all. A phrase in quotes ("Enter your
    password") has no digits and is none."""
    for m in _QUOTED_SECRET.finditer(text):
        if " " not in m.group(1) and m.group(1).isascii() and _password_like(m.group(1)):
            yield m.start(1), m.end(1)  # 密码，师兄说是 “slurm@GPU-2024”
            continue
        parts = m.group(1).split()
        if len(parts) < 3 or not all(
            3 <= len(p) <= 12 and p.isalnum() and p.isascii() for p in parts
        ):
            continue
        digits = sum(any(c.isdigit() for c in p) for p in parts)
        if 2 * digits >= len(parts) and (_upper_and_lower(m.group(1)) or digits == len(parts)):
            yield m.start(1), m.end(1)


#: An account and its password written as a pair: "PMS 管理者 front01 / Mq7v!Lp2zR", a
#: sticky note's "admin / Tr0ub4dor&3"; the password is the part after the slash.
_LOGIN_PAIR = re.compile(
    r"(?<![\w/.@-])[A-Za-z][\w.@+-]{2,39}[ \t]*[/／][ \t]*([!-~]{8,64}?)"
    r"(?=[\s』」”\"'）)、。，,]|$)"
)
#: Words that say a pair before them is a login: an account, an ID, an administrator.
_LOGIN_WORD = re.compile(
    r"(?i:\b(?:id|login|log-in|user(?:name)?|account|admin(?:istrator)?|credentials?|pw|sticky)\b)"
    r"|ログイン|アカウント|ユーザー名|管理者|付箋|パスワード|账号|帳號|帐号|用户名|管理员|密码|便利贴"
)


def _login_pairs(text: str) -> Iterator[tuple[int, int]]:
    """The password of an account written as "name / password" where the words just
    before the pair say it is a login."""
    if "/" not in text and "／" not in text:
        return
    for m in _LOGIN_PAIR.finditer(text):
        v = m.group(1).rstrip(_TRAILING)
        if not _password_like(v):
            continue
        if _LOGIN_WORD.search(text, max(0, m.start() - 40), m.start()) is None:
            continue
        yield m.start(1), m.start(1) + len(v)


#: A line that labels its value as a password or a key, the way a device's sticker, a
#: card or a printed sheet does ("Web PW : 9i6pmg3g", "暗号化キー(AES) : 8308ff1760a71",
#: an OCR's キ一 for キー too): the label's last word, a qualifier in brackets, a colon, and
#: the value alone to the line's end.
_LABEL_LINE = re.compile(
    # at a line's start, or after a slash that parts two fields of one line (ID: … ／ PW: …)
    r"(?im)(?:^|(?<=[／|｜]))[ \t]*[^\n:：=／|｜]{0,30}?"
    r"(?:(?P<pw>(?<![A-Za-z])(?:pw|pwd|passwd|password|passphrase|pin)(?![A-Za-z])"
    r"|" + "|".join(_PASSWORD_WORDS_CJK) + r")"
    r"|(?P<key>\b(?:key|psk|wpa[ -]?key|wep[ -]?key|network[ -]key|secret|token)\b|キ[ー一]|"
    + "(?i:"
    + "|".join(_KEY_WORDS_CJK)
    + ")"
    + r"))"
    # a colon, or a table's gap: a full-width space or two (an OCR of a settings screen,
    # "パスワード　Hq7ー2mKz9ーWp4R")
    r"[ \t]*(?:[(（][^)）\n]{1,12}[)）])?(?:[ \t]*[:：][ \t]*|[ \t]*\u3000[ \t\u3000]*|[ \t]{2,})"
    # the value ends its line, or a screen's buttons follow it in a cell of their own
    # ("Production    secret    676ef0…    Hide    Rotate")
    r"[『「“]?([!-~ー−‐–—]{6,64}?)[』」”]?(?:[ \t]*|[ \t]{2,}[^\n]{1,40}?)$"
)
_LABEL_HEX = re.compile(r"[0-9A-Fa-f]{10,64}")


def _label_lines(text: str) -> Iterator[tuple[int, int]]:
    """The value of a line labelled as a password (letters and digits) or as a key (hex of
    ten digits or more, or a generator's output): "Primary key: id_column2" and "Sort key:
    createdAt2024" stay."""
    if ":" not in text and "：" not in text and "\u3000" not in text and "  " not in text:
        return
    for m in _LABEL_LINE.finditer(text):
        v = m.group(3)
        if not _has_digit_and_letter(v) or _placeholder(v):
            continue
        label = text[m.start() : m.start(3)]
        if _PUBLIC_KEY_NAME.search(label) or _SAID_PUBLIC.search(label):
            continue  # サイトキー: a reCAPTCHA site key ships in every page
        if m.group("key") and not (_LABEL_HEX.fullmatch(v) or _generated(v) or _sticker_key(v)):
            continue
        yield m.start(3), m.end(3)


def _sticker_key(v: str) -> bool:
    """A router's or a device's printed key: letters of one case and digits, random, not a
    word run together (8fkx3tn7b5pmr; not "Sort key: createdAt2024")."""
    return (
        len(v) >= 8
        and v.isascii()
        and v.isalnum()
        and (v.islower() or v.isupper())
        and not _wordy(v)
        and looks_random(v)
    )


#: A password named at a sentence's end and given as the next sentence opens: "管理画面の
#: パスワードも書いておきます。SakuraDc-2064jh です", "the admin password. Kp9v…".
_NAMED_THEN_GIVEN = re.compile(
    r"(?:(?i:password|passcode|passphrase)|" + "|".join(_PASSWORD_WORDS_CJK) + r")"
    r"[^\n。！？!?]{0,80}?(?:[。！？!?]|\.(?=\s)|…)[ \t\u3000]{0,4}"
    r"(?:[^\n。！？!?:：]{0,30}[:：][ \t]{0,4})?([!-~]{8,64}?)"
    r"(?=[ \t\u3000]*(?:です|だよ|だ|ね|よ|。|！|（|\(|\n|$|\.(?:\s|$)))"
)


def _named_then_given(text: str) -> Iterator[tuple[int, int]]:
    """A password-like value that opens the sentence right after one that names a
    password, and is all that sentence gives."""
    for m in _NAMED_THEN_GIVEN.finditer(text):
        v = m.group(1).rstrip(_TRAILING)
        if _password_like(v):
            yield m.start(1), m.start(1) + len(v)


#: A settings screen's label on its own line and the value alone on the next (a copy
#: button's word after it): "Stream key\n78hz-r3uw-1pot-p09q-stii    Copy", 串流金钥 … 复制,
#: an OCR of a console. The label is short and names a secret; a public one is no secret's.
_LABEL_ABOVE = re.compile(
    r"(?im)^[^\n]{0,40}?(?:(?<![\w-])(?:password|passphrase|passcode|secret|token|api[ _-]?key"
    r"|stream[ _-]?key|access[ _-]?key|private[ _-]?key|auth[ _-]?code)|"
    + "(?i:"
    + "|".join(_SECRET_WORDS_CJK)
    + ")"
    + r")[^\n]{0,30}\r?\n(?:[ \t]*\r?\n)?[ \t]{0,8}([!-~]{12,128}+)(?:[ \t]{2,}[^\s]{1,12})?[ \t]*\r?$"
)
_PUBLIC_LABEL = re.compile(
    r"(?i:public|publishable|\bid\b|client[ _-]?id|key[ _-]?id|url|uri|host|server|expire|type"
    # a search-only key (Algolia's "Search API Key"): it only reads an index
    r"|search[ _-](?:only[ _-])?(?:api[ _-])?key)"
    r"|公开|公開|公钥|公鑰|公開鍵|网址|網址|地址|サーバー|有効期限|过期|過期"
)


#: A stream key's label, and a stream key that carries its signed query (a live platform's
#: push code: the stream's name, ?expire=…&sign=…).
_STREAM_LABEL = re.compile(
    r"(?i:stream[ _-]?key)|推流码|推流碼|串流码|串流金钥|串流金鑰|直播码|ストリームキー"
)
_STREAM_WITH_QUERY = re.compile(
    r"[\w.-]{4,128}\?[\w.-]{1,32}=[^\s&]{0,256}(?:&[\w.-]{1,32}=[^\s&]{0,256}){0,8}"
)
#: A line that assigns or lists (12:PASSWORD_MIN_LENGTH=12, a grep's hit): no lone value.
_SETTING_MARK = re.compile(r"[:=,;]")


def _labels_above(text: str) -> Iterator[tuple[int, int]]:
    """The value on the line after a label line that names a secret: letters and digits,
    twelve or more, no URL or path; a label that says public, an id or an address names
    another thing."""
    if "\n" not in text:
        return
    for m in _LABEL_ABOVE.finditer(text):
        v = m.group(1)
        label = text[m.start() : text.find("\n", m.start())]  # the label's own line
        if _PUBLIC_LABEL.search(label) or _SAID_PUBLIC.search(label) or _DIGEST_WORD.search(label):
            continue
        if "://" in v or "/" in v.strip("/") and not _generated(v) or _placeholder(v):
            continue
        if _STREAM_LABEL.search(label) and _STREAM_WITH_QUERY.fullmatch(v):
            yield m.start(1), m.end(1)  # 推流码 then stream-69…?expire=…&sign=…: all of it
            continue
        if _CLOCK.search(v) or _VERSION.fullmatch(v) or _SETTING_MARK.search(v.rstrip("=")):
            continue
        if (
            _has_digit_and_letter(v) and len(v) >= 16 and not _HOST_NAME.fullmatch(v)
        ) or _generated(v):
            yield m.start(1), m.end(1)


#: A value alone on its line (indented or not), a blank line at most before it: what a mail
#: or a console sets apart under the sentence that introduces it.
_LONE_VALUE = re.compile(r"(?m)^[ \t]{0,8}([!-~]{16,128}+)[ \t]*\r?$")
#: What points at the value set apart after it: "the token below", 以下のキー, 如下.
_POINTER = re.compile(
    r"(?i:\bbelow\b|\bfollowing\b|\bbeneath\b|\bhere(?:'s|[ \t]is|[ \t]it[ \t]is)\b|:[ \t]*$)"
    r"|下記|以下|次の|下面|如下|下列|[：:][ \t]*$"
)


def _introduced_below(text: str) -> Iterator[tuple[int, int]]:
    """A value set apart on its own line under a sentence that names a secret and points at
    it ("Use the access token below for the SDK; treat it like a password." then the token
    alone, a blank line between): the sentence is its label, however long. A sentence that
    says digest, id, commit or public names another thing."""
    if "\n" not in text:
        return
    for m in _LONE_VALUE.finditer(text):
        v = m.group(1)
        # the line before it, a blank line at most between: read back a few lines only
        end = m.start()
        while end > 0 and text[end - 1] in " \t\r\n" and m.start() - end < 64:
            end -= 1
        if text.count("\n", end, m.start()) > 2:
            continue
        line = text[text.rfind("\n", 0, end) + 1 : end]
        if not line:
            continue
        if not (_SECRET_SENTENCE_WORD.search(line) and _POINTER.search(line)):
            continue
        if _DIGEST_WORD.search(line) or _PUBLIC_LABEL.search(line) or _SAID_PUBLIC.search(line):
            continue
        if "://" in v or "/" in v.strip("/") and not _generated(v) or _placeholder(v):
            continue
        if _SETTING_MARK.search(v.rstrip("=")) or _VERSION.fullmatch(v):
            continue
        if (_has_digit_and_letter(v) and len(v) >= 20 and not _HOST_NAME.fullmatch(v)) or (
            _generated(v)
        ):
            yield m.start(1), m.end(1)


#: A key in a URL's path, where an API takes its credential: a Hue bridge's
#: /api/<username>/lights, a bot's /bot<token>/, /hooks/<key>.
_PATH_TOKEN = re.compile(
    r"(?i:https?://[^\s/]{1,253})(?:/[^\s/?#]{0,64}){0,6}?"
    r"/(?i:api|apikey|key|token|hooks?|bot)/?([A-Za-z0-9_-]{24,128})(?=[/?#\s\"'`]|$)"
)


def _path_tokens(text: str) -> Iterator[tuple[int, int]]:
    """A generated token that stands as a URL path's segment after an API's word."""
    if "://" not in text:
        return
    for m in _PATH_TOKEN.finditer(text):
        if _generated(m.group(1)):
            yield m.start(1), m.end(1)


#: A row of a drawn key-value table (Proxmox's ``pveum user token add``): its key, its value.
_KV_ROW = re.compile(
    r"(?m)^[ \t]*[│|][ \t]*([A-Za-z][\w-]{0,30})[ \t]*[│|][ \t]*(\S{1,256})[ \t]*[│|][ \t]*$"
)
#: A key of such a table that makes it a token's: full-tokenid, tokenid, token id.
_TOKEN_ID_KEY = re.compile(r"(?i)(?:full-)?token[-_ ]?id")


def _token_tables(text: str) -> Iterator[tuple[int, int]]:
    """The value row of a drawn table that names a token's id (``│ full-tokenid │ …`` then
    ``│ value │ efe5a50a-… │``): the token's secret, whatever its shape, a UUID too."""
    if "tokenid" not in text.lower() and "token id" not in text.lower():
        return
    rows = list(_KV_ROW.finditer(text))
    if not any(_TOKEN_ID_KEY.fullmatch(m.group(1)) for m in rows):
        return
    for m in rows:
        v = m.group(2)
        if (
            m.group(1).lower() in ("value", "secret", "token")
            and len(v) >= 16
            and _has_digit_and_letter(v)
        ):
            yield m.start(2), m.end(2)


#: The rest of a base64 value a paste broke onto the next line: that line alone.
_CONTINUED = re.compile(r"\r?\n[ \t]{0,8}([A-Za-z0-9+/]{2,88}={0,2})[ \t]*(?=\r?\n|$)")
_B64_VALUE = re.compile(r"[A-Za-z0-9+/]{16,4096}")
_HEX_RUN = re.compile(r"[0-9a-f]{1,4096}|[0-9A-F]{1,4096}")
#: The lengths a key written in hex takes (16, 20, 24, 32, 48 and 64 bytes).
_HEX_LENGTHS = frozenset({32, 40, 48, 64, 96, 128})


def _wrapped_on(text: str, found: tuple[int, int, int, str]) -> tuple[int, int, int, str]:
    """*found* taken on over the next line when a chat app or a narrow terminal broke a
    value there ("PrivateKey = yAnz…gB3f\nJsG7wBb2yFP8mA=") -- a value that stops at its
    line's end without its padding, and a next line that is only more of it, ending in
    "=" or making the whole a key's length, in base64 or in hex."""
    rank, start, end, kind = found
    if not _B64_VALUE.fullmatch(text, start, end):
        return found
    nxt = _CONTINUED.match(text, end)
    if nxt is None:
        return found
    whole = (end - start) + len(nxt.group(1))
    if nxt.group(1).endswith("=") or whole % 4 == 0 and whole in (44, 64, 88):
        return rank, start, nxt.end(1), kind
    if (
        whole in _HEX_LENGTHS
        and _HEX_RUN.fullmatch(text, start, end)
        and _HEX_RUN.fullmatch(nxt.group(1))
    ):
        return rank, start, nxt.end(1), kind  # a notebook's token=7f14…\n2e79…: 48 hex
    return found


#: A flag's value on a command line (``-i=HPUA…``, ``--access-key EMT4…``).
_FLAG_VALUE = re.compile(
    r"(?<![\w-])--?([A-Za-z][\w-]{0,30})(?:=|[ \t]{1,4})([A-Z0-9]{16,40})(?![\w/.+=-])"
)
#: Flags whose value names a thing, not a login: a serial, a request, a build, an order.
_THING_FLAG = re.compile(
    r"(?i)serial|request|trace|span|commit|order|device|build|image|tag|ref|session|track"
)


def _paired_ids(text: str, found: list[tuple[int, int, int, str]]) -> Iterator[tuple[int, int]]:
    """An access key's id given beside its secret in one command (``obsutil config
    -i=HPUAZUQINNESRHGFYBL1 -k=…``): a flag's value in capitals and digits, random, on the
    line of a secret found. The id is half of the pair a login sends; a request id
    printed on another line stays. Each line is read once, the findings in order."""
    spans = sorted((s, e) for _, s, e, _ in found)
    starts = [s for s, _ in spans]
    line_end = -1
    for start, _end in spans:
        if start <= line_end:
            continue
        line_start = text.rfind("\n", 0, start) + 1
        line_end = text.find("\n", start)
        line_end = len(text) if line_end < 0 else line_end
        if _TABLE_ROW.match(text, line_start):
            yield from _row_ids(text, line_start, line_end)
            continue  # a table's row: its cells are not one command
        for m in _FLAG_VALUE.finditer(text, line_start, line_end):
            v = m.group(2)
            k = bisect.bisect_right(starts, m.start(2)) - 1
            if k >= 0 and spans[k][0] <= m.start(2) < spans[k][1]:
                continue  # a secret found already
            if (
                any(c.isdigit() for c in v)
                and sum(c.isalpha() for c in v) >= 8
                and not _HEX_RUN.fullmatch(v)
                and not _wordy(v)
                and entropy(v) >= 3.5
                and not _THING_FLAG.search(m.group(1))
            ):
                yield m.start(2), m.end(2)
    yield from _positional_twins(text, spans)


#: A drawn table's row that gives a key's id: | API Key | 2XKOLZPX2QV3G64I |.
_ID_ROW = re.compile(
    r"[ \t]*\|[ \t]*(?i:api[ _-]?key|access[ _-]?key(?:[ _-]?id)?|key[ _-]?id)[ \t]*\|[ \t]*"
    r"([A-Z0-9]{16,40})[ \t]*\|"
)


def _row_ids(text: str, line_start: int, line_end: int) -> Iterator[tuple[int, int]]:
    """The key's id in the row of a drawn table just above or below the row of its secret
    (Confluent's `api-key create` prints | API Key | … | over | API Secret | … |)."""
    for start in (text.rfind("\n", 0, max(0, line_start - 1)) + 1, line_end + 1):
        if start >= len(text) or start == line_start:
            continue
        m = _ID_ROW.match(text, start)
        if m is not None and any(c.isdigit() for c in m.group(1)) and entropy(m.group(1)) >= 3.0:
            yield m.start(1), m.end(1)


#: A command's positional argument: a run of a key's characters between blanks.
_ARGUMENT = re.compile(r"(?<![A-Za-z0-9_+/=-])[A-Za-z0-9_+/=-]{16,128}\Z")


def _positional_twins(text: str, spans: list[tuple[int, int]]) -> Iterator[tuple[int, int]]:
    """The argument right before a secret found on a command line, given as its pair
    (``qshell account <AK> <SK> name``): as long as the secret give or take a quarter,
    random, of letters and digits. A name or a path beside it stays."""
    for start, end in spans:
        line_start = text.rfind("\n", 0, start) + 1
        if _TABLE_ROW.match(text, line_start):
            continue
        before = text[max(line_start, start - 140) : start]
        gap = len(before) - len(before.rstrip(" \t"))
        if not 1 <= gap <= 4:
            continue
        m = _ARGUMENT.search(before, 0, len(before) - gap)
        if m is None:
            continue
        at = start - gap - (m.end() - m.start())
        if at > line_start and not text[at - 1].isspace():
            continue
        v = m.group(0)
        if (
            abs(len(v) - (end - start)) * 4 <= end - start
            and any(c.isdigit() for c in v)
            and _upper_and_lower(v)
            and not _wordy(v)
            and entropy(v) >= 3.5
        ):
            yield at, at + len(v)


#: A credential made by a call from literals: Credential('AK…', 'SK…'), oss2.Auth("…", "…"),
#: new BceCredentials("…", "…"): the call's name says credential or auth.
_CREDENTIAL_CALL = re.compile(
    r"(?<![\w.])(?:new[ \t]+)?[\w.]{0,40}(?:Credentials?|Auth|credentials?)[\w]{0,20}[ \t]{0,4}\("
    r"[ \t]{0,4}(['\"])([A-Za-z0-9_+/=-]{12,128})\1[ \t]{0,4},[ \t]{0,4}(['\"])([A-Za-z0-9_+/=-]{12,128})\3"
)


def _credential_calls(text: str) -> Iterator[tuple[int, int]]:
    """The two literals a credential is made of by a call (an access key's id and its
    secret), each when it reads as generated, not a name or a path."""
    if "(" not in text:
        return
    for m in _CREDENTIAL_CALL.finditer(text):
        for g in (2, 4):
            v = m.group(g)
            if _has_digit_and_letter(v) and not _wordy(v) and entropy(v) >= 3.0:
                yield m.start(g), m.end(g)


#: A one-time code named: 验证码, 認証コード, verification code, OTP.
_CODE_WORD = re.compile(
    r"验证码|驗證碼|校验码|动态码|動態碼|認証コード|確認コード|ワンタイムパスワード"
    r"|(?i:verification[ \t]+code|one[ -]time[ \t]+(?:code|password)|\botp\b|2fa[ \t]+code)"
)
#: A code read out: four to eight digits, as figures or in words, said in groups.
_READ_CODE = re.compile(
    r"(?<![\w零〇一二三四五六七八九幺两兩拐洞])(?:[0-9零〇一二三四五六七八九幺两兩拐洞]{1,8}(?:[ \t]*[，、,][ \t]*|[ \t]+))*"
    r"[0-9零〇一二三四五六七八九幺两兩拐洞]{1,8}(?![\w零〇一二三四五六七八九幺两兩拐洞])"
)


def _read_codes(text: str) -> Iterator[tuple[int, int]]:
    """A one-time code read out on one of the two lines after the line that names it
    (客服：验证码已经发到您的手机了，麻烦您读一下。/ 陈宇：好的，一一三，二一一): four to eight
    digits in all, the reader's whole line but its label and its yes."""
    for m in _CODE_WORD.finditer(text):
        told = _CODE_TOLD.match(text, m.end())  # 验证码，我手机刚收到：九七三，七七九。
        code = _READ_CODE.match(text, told.end()) if told else None
        if code and 4 <= _digits_said(code.group(0)) <= 8:
            yield code.start(), code.end()
        pos = text.find("\n", m.end())
        for _ in range(2):
            if pos < 0:
                break
            end = text.find("\n", pos + 1)
            end = len(text) if end < 0 else end
            line = text[pos + 1 : end]
            if len(line) > 120:
                pos = end if end < len(text) else -1
                continue  # a line that reads a code out is short: a longer one says more
            for code in _READ_CODE.finditer(line):
                if 4 <= _digits_said(code.group(0)) <= 8 and _only_code(line, code):
                    yield pos + 1 + code.start(), pos + 1 + code.end()
            pos = end if end < len(text) else -1


#: The rest of the sentence that names a code, up to the colon the code is given after.
_CODE_TOLD = re.compile(r"[^\n。！？!?：:]{0,40}[：:][ \t]*")
#: What a line that reads a code out may say besides it: its time, its speaker, a yes.
_CODE_LINE_REST = re.compile(
    r"^\s*(?:\[[\d:]{4,8}\]\s*)?(?:[^\s：:]{1,12}[：:]\s*)?(?:好的|好|嗯|是的|はい|ok(?:ay)?|sure)?[，、,。.\s]*$",
    re.IGNORECASE,
)


#: A password written part by part, each part with a hint in brackets after it (how it is
#: said, which character it stands for): He（河流的河，大写H）yue（月）lin（林）@（艾特）.
_HINTED = re.compile(r"(?:[!-~]{1,16}[（(][^（）()\n]{1,20}[）)]){3,16}")
_HINT = re.compile(r"[（(][^（）()\n]{1,20}[）)]")


def _hinted(text: str) -> Iterator[tuple[int, int]]:
    """A password written with a hint after each of its parts, right after the password is
    named: the parts together (the hints dropped) look like a password."""
    if "（" not in text and "(" not in text:
        return
    for m in _HINTED.finditer(text):
        if not _PASSWORD_WORD.search(text, max(0, m.start() - 60), m.start()):
            continue
        if _password_like(hinted_value(m.group(0))):
            yield m.start(), m.end()


def hinted_value(run: str) -> str:
    """A hinted password's parts without their hints: He（河，大写H）yue（月） -> Heyue."""
    return _HINT.sub("", run)


#: A half of a value given on its own: "前半 5p5TVKT", "後半 p9DA+pm", "first half: …".
_HALF_GIVEN = re.compile(
    r"(?:前半|後半|后半|上半部分|下半部分|(?i:(?:first|second|1st|2nd|other)[ \t]+half))"
    r"[ \t]*[はがの:：]?[ \t]*[\"'“`「]?([!-~]{4,64}?)[\"'”`」]?(?=[ \t]*(?:$|\n|[。、，,.]))",
    re.MULTILINE,
)


def _halves(text: str) -> Iterator[tuple[int, int]]:
    """A password or key given in two halves, each after its word (前半 …, 後半 …, "first
    half: …"), in a text that names a password or a key: letters with digits or marks."""
    for m in _HALF_GIVEN.finditer(text):
        v = m.group(1).rstrip(".,。、")
        if not (_has_digit_and_letter(v) or (_upper_and_lower(v) and not v.isalpha())):
            continue
        if _wordy(v) or _placeholder(v):
            continue
        near = text[max(0, m.start() - 300) : m.start()]
        if _PASSWORD_WORD.search(near) or _KEY_SENTENCE.search(near) or "パス" in near:
            yield m.start(1), m.start(1) + len(v)


#: A key written in hyphened groups under a name that only says "key" or "license"
#: (``key: 2LA13-AFQ77-V6E01-VVXD2-W7I39-2HMR5``, a product key): four groups and more.
_GROUPED_KEY = re.compile(
    r"(?i)(?<![\w-])(?:key|api[ _-]?key|license|licence|product[ _-]?key|cd[ _-]?key)[\"']?"
    r"[ \t]*[:=][ \t]*[\"']?([A-Z0-9]{4,6}(?:-[A-Z0-9]{4,6}){3,7})(?![\w-])"
)


def _grouped_named(text: str) -> Iterator[tuple[int, int]]:
    """:data:`_GROUPED_KEY` values whose groups mix letters and digits."""
    for m in _GROUPED_KEY.finditer(text):
        v = m.group(1)
        mixed = sum(_has_digit_and_letter(g) for g in v.split("-"))
        if mixed * 2 >= v.count("-") + 1 and not _placeholder(v):
            yield m.start(1), m.end(1)


def _digits_said(run: str) -> int:
    """How many digits a code read out says, as figures or as Chinese numerals."""
    return sum(c.isdigit() or c in _ZH_DIGITS for c in run)


def _code_digits(run: str) -> str:
    """The digits a code read out spells (九七三，七七九 -> 973779), "" when it says more."""
    out = []
    for c in run:
        if c.isdigit():
            out.append(c)
        elif c in _ZH_DIGITS:
            out.append(_ZH_DIGITS[c])
        elif c not in " \t，、,":
            return ""
    return "".join(out)


def _only_code(line: str, code: re.Match[str]) -> bool:
    """Whether *line* says nothing but the code (a label, a yes, and marks around it)."""
    rest = line[: code.start()] + line[code.end() :].strip(" \t。.！!")
    return _CODE_LINE_REST.match(rest) is not None


def _key_bytes(text: str) -> Iterator[tuple[int, int]]:
    """The bytes of a key written as a list of eight numbers or more."""
    if "key" not in text.lower():
        return
    for m in _KEY_BYTES.finditer(text):
        yield m.start(1), m.end(1)


def _user_maps(text: str) -> Iterator[tuple[int, int, str]]:
    """The passwords of an accounts map (Orthanc's RegisteredUsers, a basic-auth users
    object): each entry's value that mixes letters and digits and is no placeholder."""
    if "{" not in text:
        return
    for m in _USER_MAP.finditer(text):
        opened = _USER_MAP_OPEN.match(text, m.end())
        if opened is None:
            continue
        at = opened.end()
        for _ in range(64):  # a map of accounts is short
            e = _USER_ENTRY.match(text, at)
            if e is None:
                break
            v = e.group(2)
            if _not_placeholder(v) and _has_digit_and_letter(v) and len(v) >= 6:
                yield e.start(2), e.end(2), "password"
            at = e.end()


#: What, near a bare "key", says it is an account's: a user name, a login, an API host.
_KEY_CONTEXT = re.compile(
    r"(?i)\b(?:username|user_?name|login|_login|api_key|apikey|api\.[a-z0-9-]+\.[a-z]{2,}|"
    r"auth|credentials?|account)\b|kaggle|wandb"
)


def _value_after(text: str, a: int, b: int) -> tuple[int, int, bool] | None:
    """Where the value assigned after a key at ``text[a:b]`` is, and whether quoted."""
    sep = _SEPARATOR.match(text, b)
    if sep is None and "--" in (text[max(0, a - 2) : a], text[a : a + 2]):
        nxt = _NEXT_ARGUMENT.match(text, b)
        if nxt is not None:  # ["redis-server", "--requirepass", "…"]: the next element
            return nxt.start(1), nxt.end(1), True
        sep = _FLAG_SEPARATOR.match(text, b)
    if sep is None:
        return None
    anchor = _YAML_ANCHOR.match(text, sep.end())
    if anchor is not None:  # x-pgpw: &pgpw "…": the anchored value, which *pgpw repeats
        sep = anchor
    if a and text[a - 1] == '"' and text[b : sep.end()].strip() == "=":
        # "NAME=value" as a JSON string (docker inspect's Env, a task's environment): the
        # value is the rest of the string, its escaped quotes (\") part of it
        rest = _STRING_REST.match(text, sep.end())
        if rest is not None and rest.group(1):
            return rest.start(1), rest.end(1), True
    val = _VALUE.match(text, sep.end())
    if val is None:
        return None
    for group in (1, 2, 3, 4, 5):
        if val.group(group) is not None:
            return val.start(group), val.end(group), group != 5
    return None


# --------------------------------------------------------------------------- private keys

_PEM_BEGIN = re.compile(r"-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----")
_PEM_END = re.compile(r"-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----")
#: A PuTTY .ppk file's private part: the lines after "Private-Lines: N" to its MAC.
_PUTTY_PRIVATE = re.compile(
    r"Private-Lines:[ \t]{0,4}[0-9]{1,3}[ \t]{0,4}\r?\n"
    r"(?P<v>[A-Za-z0-9+/=\r\n]{1,4096}?Private-MAC:[ \t]{0,4}[0-9a-fA-F]{40,64})"
)
_PEM_BODY = re.compile(r"[A-Za-z0-9+/=\\\r\n\t :,-]*")


def _private_keys(text: str) -> list[tuple[int, int]]:
    """Spans of PEM/OpenSSH private key blocks, BEGIN to END; a block cut off before its
    END line runs over the key material that follows it. A PuTTY key file's private lines
    and their MAC are one too."""
    out = [m.span("v") for m in _PUTTY_PRIVATE.finditer(text)] if "Private-Lines" in text else []
    if "PRIVATE KEY" not in text:
        return out
    ends = [m.end() for m in _PEM_END.finditer(text)]
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


# --------------------------------------------------------------------------- encoded

#: A base64 value long enough to hold a credential, standing as a whole value.
#: A run of base64, alone or as a value (NAME_B64=…: the "=" of an assignment before it).
_BASE64 = re.compile(r"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/]{20,65536}={0,2}(?![A-Za-z0-9+/=_-])")
_NO_DECODE: ContextVar[bool] = ContextVar("kura_secret_no_decode", default=False)


def _b64_text(value: str) -> str | None:
    """*value* base64-decoded when that gives printable UTF-8 text, else None."""
    if _NO_DECODE.get() or len(value) % 4 or not (_UPPER.search(value) and _LOWER.search(value)):
        return None
    try:
        data = base64.b64decode(value, validate=True)
        decoded = data.decode("utf-8")
    except (binascii.Error, ValueError):
        return None
    if not decoded or sum(c.isprintable() or c in "\n\r\t" for c in decoded) < len(decoded):
        return None
    return decoded


#: A Kubernetes Secret's ``data:`` (YAML) block: each ``key: base64`` line under it.
_K8S_KIND = re.compile(r"(?m)^[ \t]{0,16}[\"']?kind[\"']?[ \t]{0,4}:[ \t]{0,4}[\"']?Secret\b")
_DATA_BLOCK = re.compile(r"(?m)^([ \t]{0,16})[\"']?data[\"']?[ \t]{0,4}:[ \t]{0,4}\{?[ \t]{0,4}$")
_DATA_LINE = re.compile(
    r"[ \t]{1,32}[\"']?(?P<name>[A-Za-z0-9._-]{1,253})[\"']?[ \t]{0,4}:[ \t]{0,4}[\"']?"
    r"(?P<value>[A-Za-z0-9+/]{1,65536}={0,2})[\"']?,?[ \t]{0,4}\r?(?:\n|\Z)"
)
#: A place written down: a URL with no account, query or fragment, a host name, an
#: absolute path.
_PLAIN_URL = re.compile(
    r"[a-z][a-z0-9+.-]{1,15}://[A-Za-z0-9.-]{1,253}(?::[0-9]{1,5})?(?P<path>/[A-Za-z0-9._~%/-]{0,512})?"
)
_PLAIN_HOST = re.compile(r"(?:[a-z0-9-]{1,63}\.){1,8}[a-z]{2,24}(?::[0-9]{1,5})?")
_PLAIN_PATH = re.compile(r"(?P<path>/[A-Za-z0-9._~-]{1,128}(?:/[A-Za-z0-9._~-]{1,128}){0,32}/?)")


_PLAIN_MAILBOX = re.compile(
    r"[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){1,8}"
)


def _plain_place(decoded: str) -> bool:
    """Whether *decoded* is only where something is (https://grafana.example.io, a host name,
    /etc/app/config.yaml): no account or password, no query, no piece of its path that reads
    as a token (a capability URL's key)."""
    if _PLAIN_MAILBOX.fullmatch(decoded):
        return True  # a sender's address (SENDGRID_FROM): where mail comes from
    m = _PLAIN_URL.fullmatch(decoded) or _PLAIN_HOST.fullmatch(decoded)
    m = m or _PLAIN_PATH.fullmatch(decoded)
    if m is None:
        return False
    path = m.groupdict().get("path") or ""
    return not any(looks_random(p) or _HEX_IN.search(p.lower()) for p in path.split("/") if p)


def _encoded_place(value: str) -> bool:
    """Whether *value* is base64 of a plain place (:func:`_plain_place`)."""
    decoded = _b64_text(value) if len(value) % 4 == 0 else None
    return decoded is not None and _plain_place(decoded)


#: A plain name: lower-case words and numbers joined by hyphens, dots or underscores
#: (docqa-prod, us-east-1, orders_v2), no piece mixing letters and digits (hunter2 does).
_PLAIN_NAME = re.compile(r"(?:[a-z]{2,24}|[0-9]{1,6})(?:[-_.](?:[a-z]{1,24}|[0-9]{1,6})){0,6}")


def _anon_jwt(token: str) -> bool:
    """Whether *token* is a JWT whose claims give it the anonymous role (Supabase's anon
    key, made to be shipped in a web page: it opens only what row security lets anyone
    read). A service role's token, or any other, stays a secret."""
    parts = token.split(".")
    if len(parts) != 3 or len(parts[1]) > 2048:
        return False
    try:
        raw = base64.urlsafe_b64decode(parts[1] + "=" * (-len(parts[1]) % 4))
        claims = json.loads(raw.decode("utf-8"))
    except (ValueError, binascii.Error, UnicodeDecodeError):
        return False
    return isinstance(claims, dict) and claims.get("role") == "anon"


def _encoded_name(value: str) -> bool:
    """Whether *value* is base64 of a plain name (an index's, a region's, a bucket's)."""
    decoded = _b64_text(value) if len(value) % 4 == 0 else None
    return (
        decoded is not None
        and len(decoded) <= 48
        and _PLAIN_NAME.fullmatch(decoded) is not None
        and any(c.isalpha() for c in decoded)
    )


#: The line that parts the documents of one YAML stream.
_YAML_DOC_BREAK = re.compile(r"(?m)^---[ \t]*$")


def _containers(text: str) -> Iterator[tuple[int, int, str]]:
    """Values of a Kubernetes Secret's ``data`` (base64 of anything, a short password
    too): every one is a secret, whatever it decodes to, except a plain place (a URL, a
    host, a path) under a name that names no secret (``GRAFANA_URL``)."""
    if "Secret" not in text or _K8S_KIND.search(text) is None:
        return
    breaks = [m.start() for m in _YAML_DOC_BREAK.finditer(text)]
    for block in _DATA_BLOCK.finditer(text):
        # the block's own document (a ConfigMap before "---" keeps its data in the clear)
        at = bisect.bisect_right(breaks, block.start())
        doc_start = breaks[at - 1] if at else 0
        doc_end = breaks[at] if at < len(breaks) else len(text)
        if _K8S_KIND.search(text, doc_start, doc_end) is None:
            continue
        pos = block.end() + 1
        indent = len(block.group(1))
        while pos < len(text):
            m = _DATA_LINE.match(text, pos)
            if m is None or len(m.group()) - len(m.group().lstrip(" \t")) <= indent:
                break
            pos = m.end()
            value = m.group("value")
            if (_encoded_place(value) or _encoded_name(value)) and _name_kind(
                m.group("name")
            ) is None:
                continue  # GRAFANA_URL: aHR0cHM6Ly9…: an address, base64 only by the format
            if len(value) >= 8 or _b64_text(value) is not None:
                yield m.start("value"), m.end("value"), "secret"


#: Output a password generator prints alone on its lines (``openssl rand -base64``,
#: ``pwgen -s``, ``head -c 32 /dev/urandom | base64``): every token on the line random.
_BARE_LINE = re.compile(
    r"(?m)^[ \t]{0,8}([A-Za-z0-9+/_-]{16,512}={0,2}(?:[ \t]{1,8}[A-Za-z0-9+/_-]{16,512}={0,2}){0,15})"
    r"[ \t]{0,8}$"
)
_BARE_TOKEN = re.compile(r"[A-Za-z0-9+/_-]{16,512}={0,2}")
#: Base64 openings of files and armour (PNG, gzip, JPEG, PDF, PEM, ELF, zip): data.
_MAGIC = ("iVBORw0KGgo", "H4sI", "/9j/", "JVBER", "LS0tLS1", "f0VMR", "UEsDB", "R0lGOD")
_HEXISH = re.compile(r"[0-9a-fA-F-]{16,512}")
#: A digest written with its algorithm (``sha512-…`` integrity, ``h1:…`` go.sum, ``md5-…``).
_DIGEST_PREFIX = re.compile(
    r"(?i)(?:sha(?:1|224|256|384|512)|sha3-[0-9]{3}|md5|h1|blake2[bs]?)[-:_]"
)


#: Keys that are public by design, meant to be shipped in a web page: Stripe's publishable
#: keys (pk_live_, pk_test_), Mapbox's public tokens (pk.eyJ…) and Datadog's browser
#: client tokens (pub…), RevenueCat's SDK keys (appl_…), PostHog's project keys (phc_…).
#: Never redacted.
_PUBLIC = re.compile(
    r"pk_(?:live|test)_[A-Za-z0-9]{16,247}|pk\.eyJ[A-Za-z0-9_-]{10,400}\.[A-Za-z0-9_-]{10,200}"
    # a Datadog browser client token: made to be shipped in a web page's JavaScript
    r"|pub[0-9a-f]{32}"
    # RevenueCat's public SDK keys, one per store: compiled into every copy of the app
    r"|(?:appl|goog|amzn|strp|rcb)_[A-Za-z0-9]{20,40}"
    # PostHog's project keys: written into the app or the page to send events
    r"|phc_[A-Za-z0-9]{32,48}"
    # Supabase's publishable keys: the browser's, as its name says (the secret is sb_secret_)
    r"|sb_publishable_[A-Za-z0-9_-]{20,64}"
    # Stripe's object ids (an invoice, a charge, a customer, an event …): references to
    # records, printed on receipts and in dashboards; the keys are sk_/rk_/whsec_
    r"|(?<![A-Za-z0-9_])(?:in|ch|cus|pi|sub|price|prod|evt|txn|re|po|acct|cs|seti|pm|ii|il|si|py)"
    r"_[A-Za-z0-9]{14,32}(?![A-Za-z0-9_])"
)


#: Keys printed in providers' own documentation for everyone to copy (Stripe's sample test
#: keys): public, and nothing to protect.
_DOCUMENTED = frozenset(
    {
        "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
        "sk_test_BQokikJOvBiI2HlWgH4olfQ2",
        "pk_test_TYooMQauvdEDq54NiTphI7jx",
        "sk_test_26PHem9AhJZvU623DfE1x4sd",
        # jwt.io's sample token (John Doe, signed with "your-256-bit-secret")
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwi"
        "aWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSFfT4fwpMeJf36POk6yJV_adQssw5c",
    }
)


def _generated(token: str) -> bool:
    """A token that reads as generator output: upper, lower and digits, high entropy, not
    hex (a digest), not a known file's base64 opening, not a word-like identifier, and not
    base64 of plain text (``bG9nX2xldmVs…`` is "log_level=info": data, not a key; a
    secret inside it is found in the decoded view)."""
    if _HEXISH.fullmatch(token) or token.startswith(_MAGIC) or not _mixed(token):
        return False
    alnum = [c for c in token if c.isalnum()]
    if sum(c in _HEX_DIGIT for c in alnum) >= 0.85 * len(alnum):
        return False  # hex behind a prefix: an id (T-0199c1a2-…, SK…), a digest
    decoded = _b64_text(token)
    if decoded is not None and _plain_text(decoded):
        return False
    if _DIGEST_PREFIX.match(token):
        return False
    core = token.rstrip("=")
    counted = sum(c.isdigit() for c in core) >= 2 or _scrambled(core)
    return len(core) >= 16 and entropy(core) >= 3.7 and counted


#: Hex longer than any hex id or the SHA-256 a tool prints bare (an image id, a checksum
#: cut to its value): a token (SwitchBot's 96, a signing secret's 128) unless a digest is
#: named or made in the lines before it (:func:`_after_digest`).
_LONG_HEX = re.compile(r"[0-9a-fA-F]{65,512}")


def _long_hex(token: str) -> bool:
    return _LONG_HEX.fullmatch(token) is not None and _has_digit_and_letter(token)


def _plain_text(decoded: str) -> bool:
    """Whether decoded bytes read as text a person or a config file writes: mostly letters,
    spaces and the punctuation of key=value lines and of JSON, in words of two letters and
    more."""
    letters = sum(c.isalpha() or c in ' \n\t=_-.:,/"{}[]' for c in decoded)
    return letters >= 0.85 * len(decoded) and len(_WORDS.findall(decoded)) >= 2


_WORDS = re.compile(r"[A-Za-z]{2,}")


#: A recovery or backup code's name, on the line before the codes it lists.
_CODES_LABEL = re.compile(
    r"リカバリー?コード|バックアップコード|復旧コード|恢复码|备用码|备份码|復原碼"
    r"|(?i:recovery[ \t]codes?|backup[ \t]codes?)"
)
#: A line that is only codes: groups of letters and digits parted by hyphens or spaces.
_CODE_LINE = re.compile(
    r"[ \t]{0,8}+(?:[-*•][ \t]{0,4}+)?+"
    r"([A-Za-z0-9]{3,10}+(?:[- ][A-Za-z0-9]{3,10}+){0,5}+)[ \t]{0,8}+"
)


_COLON_AFTER = re.compile(r"[:：][ \t]{0,4}")
#: A code of letters and digits in hyphened groups (0222a-aa413, 7h2k-9qwm-x4pd).
_HYPHENED_CODE = re.compile(
    r"(?<![\w./-])[A-Za-z0-9]{4,10}(?:-[A-Za-z0-9]{4,10}){1,5}(?![\w/-]|\.\w)"
)


def _code_lines(text: str) -> Iterator[tuple[int, int]]:
    """Recovery codes listed one a line after the line that names them ("リカバリーコード、
    ここに貼っとく" then 7h2k-9qwm-x4pd, …): each line that is only a code, up to sixteen."""
    for m in _CODES_LABEL.finditer(text):
        pos = text.find("\n", m.end())
        line_end = pos if pos >= 0 else len(text)
        # "the recovery codes I haven't used yet are 0222a-aa413 and 12cad-4bd38": codes of
        # hyphened groups in the sentence that names them
        for code in _HYPHENED_CODE.finditer(text, m.end(), min(line_end, m.end() + 240)):
            if any(c.isdigit() for c in code.group(0)):
                yield code.start(), code.end()
        colon = _COLON_AFTER.search(text, m.end(), line_end)
        if colon is not None:  # バックアップコード…ここに貼っておきます：8102 8761
            rest = _CODE_LINE.match(text, colon.end())
            if rest and any(c.isdigit() for c in rest.group(1)) and len(rest.group(1)) >= 6:
                yield rest.start(1), rest.end(1)
        for _ in range(16):
            if pos < 0:
                break
            end = text.find("\n", pos + 1)
            end = len(text) if end < 0 else end
            line = _CODE_LINE.fullmatch(text, pos + 1, end)
            if not line or not any(c.isdigit() for c in line.group(1)):
                break
            yield line.start(1), line.end(1)
            pos = end if end < len(text) else -1


#: A table's header cell that names a credential column (a CSV of staff logins, a
#: Markdown table of accounts): password, pwd, secret, token, api_key, PIN, パスワード, 密码 …
_SECRET_COLUMN = re.compile(
    r"(?i)[ \t\"']*(?:[^,\t|;:：\n]{1,20}[:：])?(?:(?:[a-z]+[ _-])?(?:password|passwd|passphrase|pwd|secret|token"
    r"|api[ _-]?key|pin|access[ _-]?key(?:[ _-]?id)?|secret[ _-]?(?:access[ _-]?)?key)"
    r"|パスワード|暗証番号|密码|密碼|口令|支付密码)[ \t\"']*"
)
_CELL_SEPARATORS = (",", "\t", "|", ";")


def _split_cells(line: str, sep: str) -> list[tuple[int, int]]:
    """The cells of a table *line* as spans (a Markdown row's outer pipes dropped)."""
    spans, at = [], 0
    for part in line.split(sep):
        spans.append((at, at + len(part)))
        at += len(part) + 1
    if sep == "|" and line.strip().startswith("|"):
        spans = spans[1:-1] if line.strip().endswith("|") else spans[1:]
    return spans


#: A column header that names an identifier: "App ID", "id", "Request Id", "run_id", 编号,
#: 番号 -- not a key's or a secret's (Key ID, Secret ID say which secret).
_ID_HEADER = re.compile(r"(?i)(?:[a-z][a-z ]{0,24}[ _-])?id|編號|编号|番号|ＩＤ")
_NOT_ID_HEADER = re.compile(r"(?i)key|secret|token|pass|auth|cred|鍵|密")
#: The rules a drawn table's rows are cut by: pipes and the box-drawing bars.
_ROW_BARS = ("|", "│", "┃")


def _id_cells(text: str) -> Iterator[tuple[int, int]]:
    """The cells under an identifier's header in a drawn table (Modal's `app list`: ┃ App
    ID ┃ … over │ ap-1fARTcxlWtRA6BReszZSLt │ …): random-looking, named as an id, public."""
    pos, header = 0, None
    for line in text.split("\n"):
        start = pos
        pos += len(line) + 1
        bar = next((b for b in _ROW_BARS if line.count(b) >= 2), None)
        if bar is None:
            if line.strip() and not set(line.strip()) <= set("━─═┏┓┗┛┡┩└┘┌┐├┤╇┼┳┻╋+-=:| "):
                header = None
            continue
        cells = _split_cells(line.strip().strip(bar), bar)
        offset = line.index(bar) + 1 if line.strip().startswith(bar) else line.index(line.strip())
        if header is not None and len(cells) == header[0]:
            for c in header[1]:
                a, b = cells[c]
                yield start + offset + a, start + offset + b
            continue
        names = [line.strip().strip(bar)[a:b].strip() for a, b in cells]
        cols = [
            i
            for i, n in enumerate(names)
            if _ID_HEADER.fullmatch(n) and not _NOT_ID_HEADER.search(n)
        ]
        header = (len(cells), cols) if cols else None


def _column_cells(text: str) -> Iterator[tuple[int, int]]:
    """The cells under a credential column's header in a CSV, TSV or Markdown table, row
    by row until the table ends (a line of another width, a blank line): each cell that is
    not empty, masked or a placeholder is a secret, whatever it looks like."""
    if not any(k in text.lower() for k in ("pass", "pwd", "secret", "token", "key", "pin")) and (
        not _CJK_SECRET_WORD.search(text)
    ):
        return
    pos, header = 0, None
    for line in text.split("\n"):
        start = pos
        pos += len(line) + 1
        if header is not None:
            sep, width, cols, strict = header
            if line.strip() and set(line.strip()) <= set("-+=:|"):
                continue  # a rule drawn under the header (psql's ----+-----)
            cells = _split_cells(line, sep)
            if len(cells) != width:
                header = None
            else:
                for c in cols:
                    a, b = cells[c]
                    value = line[a:b].strip(" \t\"'")
                    if set(line[a:b].strip()) <= set("-: "):
                        continue  # a Markdown rule line
                    if (
                        (strict and not looks_random(value))
                        or len(value) < 4
                        or (value.lower() in _CELL_WORDS)
                    ):
                        continue
                    if value and _not_placeholder(value) and not _dummy(value):
                        off = line.index(value, a)
                        yield start + off, start + off + len(value)
                continue
        for sep in _CELL_SEPARATORS:
            if line.count(sep) < (3 if sep == "|" else 1):
                continue
            cells = _split_cells(line, sep)
            cols = [i for i, (a, b) in enumerate(cells) if _SECRET_COLUMN.fullmatch(line[a:b])]
            if cols and len(cells) >= 2:
                # a password column holds passwords whatever they look like; a token or
                # key column (an NLP token count, a sort key) only values that look random
                strict = not any(
                    _PASSWORD_COLUMN.search(line[a:b]) for a, b in (cells[c] for c in cols)
                )
                header = (sep, len(cells), cols, strict)
                break


#: Cells a credential column holds that say something about it, not what it is.
_CELL_WORDS = frozenset(
    {"true", "false", "none", "null", "n/a", "unset", "same", "changed", "expired", "reset"}
)
_PASSWORD_COLUMN = re.compile(r"(?i)pass|pwd|pin|パスワード|暗証|密|口令")
_CJK_SECRET_WORD = re.compile(r"パスワード|暗証番号|密码|密碼|口令")


def _bare_random(text: str) -> Iterator[tuple[int, int]]:
    """Spans of random tokens standing alone on their lines, every token on the line
    random (a generator's output, never labelled). Not inside a certificate or public key
    block: its lines look the same and are public."""
    if "-----BEGIN" in text and "PRIVATE KEY" not in text:
        return
    public = _public_blocks(text)
    for m in _BARE_LINE.finditer(text):
        if public and any(a <= m.start() < b for a, b in public):
            continue  # a certificate's lines beside a private key in the same text
        tokens = list(_BARE_TOKEN.finditer(m.group(1)))
        if tokens and all(_generated(t.group()) or _long_hex(t.group()) for t in tokens):
            if _after_digest(text, m.start()):
                continue  # what `openssl dgst … | base64` or a fingerprint line printed
            for t in tokens:
                yield m.start(1) + t.start(), m.start(1) + t.end()


#: A token standing in prose or a config line on its own (not part of a path or a URL).
_INLINE_TOKEN = re.compile(
    r"(?<![A-Za-z0-9+/_.:%-])(?<!==)[A-Za-z0-9+/_-]{24,512}+={0,2}+(?![A-Za-z0-9+/_=%-])"
)
#: Base64 openings of what is public by its format: an SSH public key's wire form (AAAA…),
#: a DER public key (SubjectPublicKeyInfo for RSA, EC, Ed25519).
_PUBLIC_OPENING = ("AAAA", "MIIBIjAN", "MIICIjAN", "MFkwEwYH", "MCowBQYDK2Vw", "MHYwEAYH")
_PUBLIC_KEY_NAME = re.compile(
    r"(?i)public[ _-]?key|pub[ _-]?key|site[ _-]?key|publishable[ _-]?key"
    r"|search[ _-](?:only[ _-])?(?:api[ _-])?key|サイト[ \u3000]?キー|公開鍵|公開キー|"
    r"公钥|公鑰|站点密钥|站點密鑰|网站密钥|網站密鑰"
)
_HEX_DIGIT = frozenset("0123456789abcdef")


def _inline_random(text: str) -> Iterator[tuple[int, int]]:
    """Random tokens wherever they stand, labelled or not: a run of twenty characters and
    more of upper and lower case and digits at four bits a character and more (a
    generator's output), unless its form or its line says it is public (an SSH or DER
    public key, a digest with its algorithm, a "public key" or "not a secret" line),
    it is mostly hex (an id with a prefix: Twilio's SK…), base64 of plain text, or
    words run together."""
    public = _public_blocks(text)
    line_end, line_quiet = -1, True
    for m in _INLINE_TOKEN.finditer(text):
        tok = m.group()
        if public and any(a <= m.start() < b for a, b in public):
            continue
        run = max(_ALNUM_RUN.findall(tok), key=len, default="")
        if len(run) < 20 or tok.startswith(_PUBLIC_OPENING) or _DIGEST_PREFIX.match(tok):
            continue
        if text.endswith("base64,", 0, m.start()):
            continue  # a data: URI's content
        if _placeholder(tok):
            continue  # get_your_own_OpIi…: the docs' stand-in, named so
        if _id_field(text, m.start()):
            continue  # "callID": "toolu_01AOT…": a record's id, whatever it looks like
        if not _generated(tok) or entropy(run) < 4.0 or _camel_words(run) or _decodes(tok):
            continue
        if m.start() > line_end:  # each command of a line is read once
            done = line_end
            line_start = text.rfind("\n", 0, m.start()) + 1
            line_end = text.find("\n", m.end())
            line_end = len(text) if line_end < 0 else line_end
            # the line's next command starts where its last one ended: linear in the line
            line_start, line_end = _command_around(text, max(line_start, done), line_end, m)
            # the command's words, its tokens left out ("md5" inside a random token is no
            # digest named)
            line = _INLINE_TOKEN.sub(" ", text[line_start:line_end])
            # a public key, a payload, a digest, an encrypted blob: labelled as such
            line_quiet = not any(
                p.search(line) for p in (_SAID_PUBLIC, _PUBLIC_KEY_NAME, _DATA_WORD, _DIGEST_WORD)
            )
        if line_quiet and not _after_digest(text, m.start()):
            yield m.start(), m.end()


#: Where one shell command of a line ends and the next begins: ``&&``, ``||``, ``;`` and a
#: pipe with a space each side (a table's row, which opens with its bar, is not split).
_TABLE_ROW = re.compile(r"[ \t]*+\|")
_COMMAND_BREAK = re.compile(r"&&|\|\||;(?=[ \t])|(?<=[ \t])\|(?=[ \t])")


def _command_around(text: str, start: int, end: int, token: re.Match[str]) -> tuple[int, int]:
    """The span of the one command of the line ``text[start:end]`` that holds *token*: a
    digest named by the next command of a chain (``… -k=… && sha256sum gw.bin``) says
    nothing of it. A line that is a table's row is read whole."""
    if _TABLE_ROW.match(text, start):
        return start, end
    a, b = start, end
    for brk in _COMMAND_BREAK.finditer(text, start, end):
        if brk.end() <= token.start():
            a = brk.end()
        elif brk.start() >= token.end():
            b = brk.start()
            break
    return a, b


#: Words that name what a line holds as data: bytes carried, not a credential.
_DATA_WORD = re.compile(
    r"(?i)\b(?:blob|payload|body|image|thumbnail|icon|avatar|cursor|page_?token|etag|nonce|iv"
    r"|salt|ciphertext|encrypted|integrity|data)\b"
)


#: A sentence's word for what a base64 key is: a key, a share of one, a secret, a seed.
_KEY_SENTENCE = re.compile(
    r"(?i)(?<![a-z])(?:keys?|shares?|secrets?|tokens?|passwords?|unseal|seeds?|psk)(?![a-z])"
    r"|鍵|キー|密钥|秘钥|口令"
)


def _base64_keys(text: str) -> Iterator[tuple[int, int]]:
    """A key written as padded standard base64 of 16 to 64 random bytes (Vault's unseal
    shares, a 32-byte key: 44 characters ending in =), on a line that names a key, a share
    or a secret before it and does not call it public. Its runs of letters are cut short by
    + and /, so the random-token rule does not see it whole."""
    if "=" not in text:
        return
    for m in _B64_KEY.finditer(text):
        tok = m.group()
        if not ("+" in tok or "/" in tok) or _decodes(tok):
            continue
        try:
            raw = base64.b64decode(tok, validate=True)
        except (binascii.Error, ValueError):
            continue
        if not 16 <= len(raw) <= 64 or len(set(raw)) < len(raw) // 2:
            continue
        near = text[max(text.rfind("\n", 0, m.start()), m.start() - 160, 0) : m.start()]
        if _KEY_SENTENCE.search(near) and not (
            _SAID_PUBLIC.search(near) or _PUBLIC_KEY_NAME.search(near) or _DIGEST_WORD.search(near)
        ):
            yield m.start(), m.end()


_B64_KEY = re.compile(r"(?<![A-Za-z0-9+/=])[A-Za-z0-9+/]{22,86}={1,2}(?![A-Za-z0-9+/=])")


def _decodes(token: str) -> bool:
    """Whether *token* is base64 (either alphabet, padding optional) of printable UTF-8
    text: data written down (a JSON payload, an address), which random bytes never are.
    A secret inside it is found in the decoded view."""
    if _NO_DECODE.get():
        return False
    core = token.rstrip("=").replace("-", "+").replace("_", "/")
    try:
        decoded = base64.b64decode(core + "=" * (-len(core) % 4), validate=True).decode("utf-8")
    except (binascii.Error, ValueError):
        return False
    return bool(decoded) and all(c.isprintable() or c in "\n\r\t" for c in decoded)


_CAMEL_PIECE = re.compile(r"[A-Z]?[a-z]{3,}")


def _camel_words(run: str) -> bool:
    """Words run together (``FixtureTokenOfTheTestSuite``): mostly pieces that read as
    words (a vowel in every four letters, no four consonants in a row), which the pieces
    of a random token seldom do (one token in ten thousand)."""
    return sum(len(p) for p in _CAMEL_PIECE.findall(run) if _wordy(p)) >= 0.6 * len(run)


_CONSONANTS = re.compile(r"[^aeiouy]{4}")


def _named_like_code(v: str) -> bool:
    """An identifier made of words (user_profile_v2, cache-key-2024): its parts are words,
    figures or a version, no random run."""
    parts = [p for p in _CODE_PARTS.split(v) if p]
    return len(parts) >= 2 and all(
        (p.isalpha() and len(p) >= 3) or p.isdigit() or _VERSION_PART.fullmatch(p) for p in parts
    )


_VERSION_PART = re.compile(r"[vV]\d{1,4}")
_CODE_PARTS = re.compile(r"[_.-]")


def _wordy(piece: str) -> bool:
    low = piece.lower()
    return sum(c in "aeiouy" for c in low) * 4 >= len(low) and not _CONSONANTS.search(low)


#: A command that makes a secret: its output is one, whatever it looks like.
_GENERATOR = re.compile(
    r"(?<![\w-])(?:pwgen|apg|makepasswd|xkcdpass|openssl[ \t]{1,4}rand|gpg[ \t]{1,4}--gen-random"
    r"|/dev/u?random|secrets\.token_\w{1,12}|token_(?:hex|urlsafe|bytes)|randomBytes"
    r"|GeneratePassword|Get-Random|SecureRandom|(?:bw|op|pass|keepassxc-cli)[ \t]{1,4}generate"
    r"|generate-password|gen-secret|genpasswd)(?![\w-])"
)
#: An output line that is one token, or one token after a label ("Output: …", "> …").
_OUTPUT_LINE = re.compile(
    r"[ \t]{0,8}(?:[A-Za-z][\w -]{0,15}:[ \t]{0,4}|>[ \t]{0,4})?"
    r"([A-Za-z0-9+/_-]{12,512}={0,2})[ \t]*\r?"
)


def shapes_output(command: str) -> bool:
    """Whether what *command* prints is read differently for it: it generates a secret
    (``openssl rand``, ``pwgen``), makes a digest (``openssl dgst``, ``sha256sum``), or
    names a secret (``gh auth token``, ``cat .pgpass``)."""
    return bool(
        _GENERATOR.search(command)
        or _DIGEST_LINE.search(command)
        or _SECRET_SENTENCE_WORD.search(command)
    )


def _generator_output(text: str) -> Iterator[tuple[int, int]]:
    """What a generator printed (``pwgen -s 16 1`` then ``Output: qjWEV2ljw5m2j6RI``,
    ``openssl rand -hex 32`` then a line of hex): each line of one random-looking token in
    the twenty lines after the command, until a line that is not one."""
    for m in _GENERATOR.finditer(text):
        pos = text.find("\n", m.end())
        taken = 0
        for _ in range(20):
            if pos < 0 or taken >= 8:
                break
            end = text.find("\n", pos + 1)
            end = len(text) if end < 0 else end
            line = _OUTPUT_LINE.fullmatch(text, pos + 1, end)
            pos = end if end < len(text) else -1
            if line is None:
                if taken:
                    break
                continue
            v = line.group(1)
            if _has_digit_and_letter(v) and entropy(v.rstrip("=")) >= 3.0 and not _decodes(v):
                taken += 1
                yield line.start(1), line.end(1)


#: A line that makes or names a digest, just before a bare value: the value is its digest.
_DIGEST_LINE = re.compile(
    r"(?i)\bdgst\b|sha(?:1|224|256|384|512)sum|\bshasum\b|\bmd5sum\b|\bb2sum\b|\bdigest\b"
    r"|\bfingerprint\b|\bchecksum\b|-fingerprint|ssh-keygen[ \t]{1,4}-l"
    r"|\bsha-?(?:1|224|256|384|512)\b|\bhash\b|ハッシュ|チェックサム|哈希|校验|校驗|摘要"
)


def _after_digest(text: str, at: int) -> bool:
    """Whether the three lines before *at* (within 600 characters) make or name a digest:
    the value at *at* is what the digest command printed ("Command executed.", "Output:"
    may stand between)."""
    start = at
    for _ in range(4):
        start = text.rfind("\n", max(0, at - 600), max(0, start - 1))
        if start < 0:
            start = max(0, at - 600)
            break
    return _DIGEST_LINE.search(text, start, at) is not None


#: The armour of what is public: a certificate, a public key, a signing request.
_PUBLIC_BEGIN = re.compile(
    r"-----BEGIN (?:[A-Z0-9]+ ){0,3}(?:CERTIFICATE|PUBLIC KEY)[A-Z ]{0,20}-----"
)


def _public_blocks(text: str) -> list[tuple[int, int]]:
    """Where the certificates and public keys of *text* lie, armour to armour."""
    out = []
    for m in _PUBLIC_BEGIN.finditer(text):
        end = text.find("-----END", m.end())
        out.append((m.start(), len(text) if end < 0 else end))
    return out


_REPEATED = re.compile(r"([0xX*#._-])\1{9}")
_EXAMPLE = re.compile(r"(?i)example")


#: A name that ships its value to every browser (Next.js, Vite, Expo, CRA), or a Firebase
#: web app's config: a Google API key there is public by design, restricted by referrer.
_WEB_PUBLIC_NAME = re.compile(
    r"(?i:NEXT_PUBLIC_|EXPO_PUBLIC_|NUXT_PUBLIC_|VITE_|REACT_APP_|GATSBY_|(?<![A-Z0-9_])PUBLIC_)"
    r"[A-Z0-9_]*[ \t]*[=:][ \t]*[\"']?$"
)
_FIREBASE_CONFIG = re.compile(r"(?i)authDomain|AUTH_DOMAIN|firebaseapp\.com")


#: A script tag's URL up to the query key that gives a map or a JavaScript SDK its key:
#: the page loads it in every visitor's browser (``<script src="https://api.map.baidu.com/
#: api?v=3.0&ak=…">``, Google Maps' ``js?key=…``); a secret's or a token's name is not one.
_SCRIPT_SRC_KEY = re.compile(
    r"<script\b[^<>]{0,200}?\bsrc[ \t]{0,2}=[ \t]{0,2}\\?[\"']?(?:https?:)?//[^\s\"'<>\\]{1,300}?"
    r"[?&](?i:key|ak|api_?key|app_?key|client_?id)=$"
)


def _script_src_key(text: str, start: int) -> bool:
    """Whether the value at *start* is the key a ``<script src>`` URL hands a map or SDK."""
    tag = text.rfind("<script", max(0, start - 520), start)
    return tag >= 0 and _SCRIPT_SRC_KEY.match(text, tag, start) is not None


#: A search-only key's name (Algolia's, Typesense's, Meilisearch's): it only reads an index.
_SEARCH_KEY_NAME = re.compile(r"(?i)search[_-]?(?:only[_-]?)?(?:api[_-]?)?key[\"']?[ \t]*[:=]")


#: A label that names what follows as a device's or an app's id, not its secret: a serial
#: number, a MAC, an IMEI; an app key given beside its app secret (融云's App Key, which the
#: client ships).
_ID_LABEL_BEFORE = re.compile(
    r"(?i)(?:シリアル(?:番号|No\.?)?|製造番号|(?<![\w])(?:serial(?:[ _-]?(?:no\.?|number))?|s/n"
    r"|mac(?:[ _-]?address)?|imei)|序列号|序號|序列號)[ \t]*[:：]?[ \t]*[\"'“「]?$"
)
_APP_KEY_BEFORE = re.compile(r"(?i)app[ _-]?key[\"']?[ \t]*(?:[:：=]|是|は|为|為)[ \t]*[\"'“「]?$")
_APP_SECRET = re.compile(r"(?i)app[ _-]?secret")


def _named_as_id(text: str, start: int) -> bool:
    """Whether the words right before a value found by its sentence or its name say it is
    an id (シリアル 7H3V-…, MAC …), or an app key given beside its app secret."""
    before = text[max(0, start - 24) : start]
    if _ID_LABEL_BEFORE.search(before):
        return True
    return bool(
        _APP_KEY_BEFORE.search(before)
        and _APP_SECRET.search(text, max(0, start - 200), min(len(text), start + 200))
    )


def _web_config_key(text: str, found: tuple[int, int, int, str], scripts: bool = True) -> bool:
    """A key a web page gives the browser: any key a ``<script src>`` URL hands a map or
    an SDK (:func:`_script_src_key`), and a Google API key (AIza…) of a web app's config,
    under a public bundle's name (NEXT_PUBLIC_FIREBASE_API_KEY=…) or beside a Firebase
    config's authDomain. Any other secret under such a name stays a secret. *scripts*:
    whether the text holds a script tag at all (looked up once a text, not once a finding)."""
    _rank, start, end, _kind = found
    if scripts and _script_src_key(text, start):
        return True
    line = max(text.rfind("\n", max(0, start - 200), start) + 1, start - 200, 0)
    if _SEARCH_KEY_NAME.search(text, line, start) and _WEB_PUBLIC_NAME.search(text, line, start):
        return True  # PUBLIC_ALGOLIA_SEARCH_KEY=…: a search-only key, made for the browser
    if not text.startswith("AIza", start):
        return False
    if _WEB_PUBLIC_NAME.search(text, line, start):
        return True
    return _FIREBASE_CONFIG.search(text, max(0, start - 400), min(len(text), end + 400)) is not None


def _dummy(value: str) -> bool:
    """A value written to stand for a credential in documentation or a test: it says
    EXAMPLE (``AKIAIOSFODNN7EXAMPLE``, ``npm_EXAMPLE000…``) or repeats one character ten
    times (``sk-000000000000…``)."""
    return _EXAMPLE.search(value) is not None or _REPEATED.search(value) is not None


def _trailing(value: str) -> int:
    """How many closing characters end *value* that belong to the sentence (a full stop,
    a closing quote), not to the value."""
    return len(value) - len(value.rstrip(_TRAILING))


# --------------------------------------------------------------------------- known values

_PRIVATE_KIND = "private-text"
#: What stands where a known private text was repeated.
PRIVATE_MARK = "[private]"
_SEEN: ContextVar[dict[str, str] | None] = ContextVar("kura_secrets_seen", default=None)
_SENTENCE = re.compile(r"[^\n.!?。！？]{8,}")


def _remember(
    seen: dict[str, str], text: str, found: Sequence[Finding], dropped: list[str]
) -> None:
    """Keep the raw values *found* in *text* (and their decoded forms) and the private
    parts *dropped*, so a later text that repeats one can be redacted."""
    for f in found:
        raw = text[f.start : f.end]
        short = len(raw) >= _SHORT_KNOWN and (raw.isdigit() or _has_digit_and_letter(raw))
        if _a_word(raw) and _wordy(raw):
            continue  # a word a rule took for a value ("Snowflake"): prose says it too
        if len(raw) >= 6 or short:
            # a PIN (1937) and a share link's code (k7xq) too: found again as a whole token
            seen.setdefault(raw, f.kind)
            bare = raw.strip("\"'`")
            if bare != raw and len(bare) >= 6:
                seen.setdefault(bare, f.kind)  # a quoted value: without its quotes too
            if _SPELLED.fullmatch(raw) and len(said := spelled_value(raw)) >= 6:
                seen.setdefault(said, f.kind)  # read aloud, then written out (`Fr7@nQ3…`)
            elif f.kind == "password" and len(said := read_out_value(raw)) >= 6:
                seen.setdefault(said, f.kind)  # "maple, all caps, then …": MAPLE489!harbour
            elif f.kind == "password" and _HINT.search(raw) and len(said := hinted_value(raw)) >= 6:
                seen.setdefault(said, f.kind)  # He（河）yue（月）… typed later as Heyue…
            elif f.kind == "otp" and len(said := _code_digits(raw)) >= 4:
                seen.setdefault(said, f.kind)  # 九七三，七七九 typed later as 973779
            for view in views(raw):
                if len(view.text.strip()) >= 6:
                    seen.setdefault(view.text.strip(), f.kind)
            _remember_inner(seen, raw, f.kind)
    for part in dropped:
        for piece in (part.strip(), *(m.group().strip() for m in _SENTENCE.finditer(part))):
            if len(piece) >= 8:
                seen.setdefault(piece, _PRIVATE_KIND)


#: The parts of a password read out word by word: "maple, all caps, then the number four
#: eight nine, then an exclamation mark, then harbour, all lower case".
_READ_PART = re.compile(r"(?:\s*+(?:,|\bthen\b|\band\b))++\s*+", re.IGNORECASE)
_READ_LEAD = re.compile(r"^(?:(?:the|a|an)\s+)?(?:numbers?\s+|digits?\s+)?", re.IGNORECASE)
_READ_UPPER = re.compile(r"^(?:all\s+)?(?:caps|capitals|upper\s*case|uppercase)$", re.IGNORECASE)
_READ_LOWER = re.compile(r"^(?:all\s+)?(?:lower\s*case|lowercase|small)$", re.IGNORECASE)


_READ_FILLERS = frozenset(
    {"okay", "ok", "right", "yeah", "yes", "alright", "all right", "so", "um", "uh", "got it"}
)


def read_out_value(run: str) -> str:
    """The password a read-out run spells, its words and their case notes, its digits said
    as numbers and its marks by name ("maple, all caps, then the number four eight nine,
    then an exclamation mark" -> ``MAPLE489!``); "" when a part is none of these."""
    out: list[str] = []
    for part in _READ_PART.split(run.strip().rstrip(".?!")):
        part = part.strip()
        if not part:
            continue
        if _READ_UPPER.match(part) or _READ_LOWER.match(part):
            if not out or not out[-1].isalpha():
                return ""
            out[-1] = out[-1].upper() if _READ_UPPER.match(part) else out[-1].lower()
            continue
        part = _READ_LEAD.sub("", part)
        low = " ".join(part.lower().split())
        if low in _READ_FILLERS:
            continue  # "…, all lower case, okay?": the speaker's, not the password's
        words = low.split()
        if low in _SPOKEN_WORDS:
            out.append(_SPOKEN_WORDS[low])
        elif words and all(w in _SPOKEN_WORDS and _SPOKEN_WORDS[w].isdigit() for w in words):
            out.append("".join(_SPOKEN_WORDS[w] for w in words))
        elif len(words) == 1 and part.isascii() and part.isalpha():
            out.append(part)
        else:
            return ""
    return "".join(out)


def _remember_inner(seen: dict[str, str], raw: str, kind: str) -> None:
    """The secret inside a value taken out whole: a URL's password (mongodb:\\/\\/admin:
    Mg7k…@host), a placeholder's default (${DB_PASSWORD:Acct@Fw2023!rw}); each is a secret
    wherever it stands again, bare."""
    for whole in (raw, *(view.text for view in views(raw))):
        for m in _URL_USERINFO.finditer(whole):
            if len(m.group(1)) >= 6:
                seen.setdefault(m.group(1), "password")
    for m in _PLACEHOLDER_DEFAULT.finditer(raw):
        if len(m.group(1)) >= 6:
            seen.setdefault(m.group(1), kind)


#: A placeholder's default: ${NAME:default} (Spring), ${NAME:-default} (shell, compose).
_PLACEHOLDER_DEFAULT = re.compile(r"\$\{[A-Za-z_][\w.-]{0,63}:-?([^{}\s]{1,256})\}")
#: The password of a URL's user part: scheme://user:PASSWORD@host.
_URL_USERINFO = re.compile(r"://[^\s:/@\"'<>]{0,128}:([^\s@/\"'<>]{1,256})@")
_RUN = re.compile(r"[A-Za-z0-9+/=_.~-]{8,4096}")
_ALNUM_RUN = re.compile(r"[A-Za-z0-9]{8,4096}")


def _known_spans(text: str, known: Mapping[str, str]) -> Iterator[tuple[int, int, str]]:
    """Every occurrence of a known value in *text* (one pass of the text per value), and
    every run of eight or more token characters that is a piece of a known secret (a
    quote cut through one)."""
    for value, kind in known.items():
        pos = text.find(value)
        while pos >= 0:
            end = pos + len(value)
            if len(value) >= 8 or not (_token_char(text, pos - 1) or _token_char(text, end)):
                yield pos, end, kind  # a short value (a PIN) only as a whole token
            pos = text.find(value, end)
        if len(value) >= 10 and kind != _PRIVATE_KIND:
            yield from _cut_ends(text, value, kind)  # eight characters of a key are most of it
        elif len(value) >= 10:
            # a private sentence's opening words ("the Northwind …") are everyone's: a piece
            # of it counts once it carries a clause of it
            for a, b, k in _cut_ends(text, value, kind):
                if b - a >= (_PRIVATE_PIECE_CJK if not value.isascii() else _PRIVATE_PIECE):
                    yield a, b, k
    for run_re in (_RUN, _ALNUM_RUN):
        for m in run_re.finditer(text):
            run = m.group()
            if _a_word(run) or _a_word(run.strip("._~-=+/")):
                continue  # a word ("discord." ending a sentence is the word discord)
            # a piece of a secret a cut kept; never a word of a private text ("Northwind"
            # in "<private>the Northwind droplet …</private>" is no secret of its own)
            piece_of = next(
                (
                    k
                    for v, k in known.items()
                    if k != _PRIVATE_KIND
                    # a private key's file holds its public key (an OpenSSH ed25519 key ends
                    # with it): a run of the public key ssh-keygen -y prints is no piece
                    and (k != "private-key" or not _public_key_at(text, m.start()))
                    and (_a_piece(run, v) or _corrected(run, v))
                ),
                "",
            )
            if piece_of:
                yield m.start(), m.end(), piece_of


#: An OpenSSH public key's line up to its base64: "ssh-ed25519 AAAA…", "ecdsa-sha2-nistp256 …".
_PUBLIC_KEY_LEAD = re.compile(
    r"(?:ssh-(?:ed25519|rsa|dss)|ecdsa-sha2-[a-z0-9]{1,16}|sk-(?:ssh-ed25519|ecdsa-sha2-[a-z0-9]{1,16})"
    r"(?:@openssh\.com)?)[ \t]+[A-Za-z0-9+/]{0,1024}$"
)


def _public_key_at(text: str, at: int) -> bool:
    """Whether the run at *at* is inside an OpenSSH public key's base64 on its line."""
    line_start = text.rfind("\n", max(0, at - 1200), at) + 1
    return _PUBLIC_KEY_LEAD.search(text, max(line_start, at - 1100), at) is not None


#: How much of a private sentence a text must repeat to repeat it: a clause's worth.
_PRIVATE_PIECE = 24
_PRIVATE_PIECE_CJK = 12
#: How short a found value may be and still be remembered: a PIN of four digits.
_SHORT_KNOWN = 4


def _token_char(text: str, i: int) -> bool:
    return 0 <= i < len(text) and (text[i].isalnum() or text[i] in "_-")


def _cut_ends(text: str, value: str, kind: str) -> Iterator[tuple[int, int, str]]:
    """Where a quote cut through a known secret at its start or its end ("…TS_AUTHKEY=
    tskey-auth-k8Sx" ends in the first characters of the key): the part of the secret it
    kept, found from the secret's first and last eight characters, when that part holds
    more than the provider's prefix (:func:`_prefix_length`)."""
    head, tail = value[:8], value[-8:]
    pos = text.find(head)
    while pos >= 0:
        n = 8
        while n < len(value) and pos + n < len(text) and text[pos + n] == value[n]:
            n += 1
        if n > _prefix_length(value) and not _a_word(text[pos : pos + n]):
            yield pos, pos + n, kind
        pos = text.find(head, pos + n)
    pos = text.find(tail)
    while pos >= 0:
        end, n = pos + 8, 8
        while (
            n < len(value)
            and pos - (n - 8) - 1 >= 0
            and (text[pos - (n - 8) - 1] == value[len(value) - n - 1])
        ):
            n += 1
        if not _a_word(text[end - n : end]):
            yield end - n, end, kind
        pos = text.find(tail, end)


#: A provider's prefix: lower-case words joined by "-" or "_", ending in one
#: (rubygems_, tskey-auth-, ghp_, sk-proj-).
_PREFIX = re.compile(r"[a-z]+(?:[-_][a-z]+)*[-_]")


def _corrected(run: str, value: str) -> bool:
    """Whether *run* is a known secret of 10+ characters with one or two characters
    changed (a misread digit put right: "正しくは 90f7…cbd1…" after "90f7…c6d1…", "3318!"
    for "3381!"): the same secret, corrected, and as secret as before."""
    if len(value) < 10 or abs(len(run) - len(value)) > 2 or value in run or run in value:
        return False  # the value with a mark around it (":glpat_…") is the value, found so
    if run[:4] != value[:4] and run[-4:] != value[-4:]:
        return False
    if len(run) == len(value):
        return sum(a != b for a, b in zip(run, value, strict=True)) <= 2
    # a character or two added or dropped too ("是 Zx9#mK2v!Lq4T" after "Zx9#mK2v!Lq7")
    return _within_two_edits(run, value)


def _inside(at: int, found: Sequence[Finding], starts: Sequence[int]) -> bool:
    """Whether *at* falls in one of *found* (in order, none overlapping; *starts* their
    starts)."""
    k = bisect.bisect_right(starts, at) - 1
    return k >= 0 and at < found[k].end


def _within_two_edits(a: str, b: str) -> bool:
    """Whether two edits or fewer (a character changed, added or dropped) turn *a* into
    *b*: a banded edit distance, linear in their length."""
    if abs(len(a) - len(b)) > 2:
        return False
    inf = 3
    prev = {j: j for j in range(0, min(len(b), 2) + 1)}
    for i in range(1, len(a) + 1):
        cur: dict[int, int] = {}
        for j in range(max(0, i - 2), min(len(b), i + 2) + 1):
            best = inf
            if j == 0:
                best = i
            else:
                best = min(best, prev.get(j - 1, inf) + (a[i - 1] != b[j - 1]))
                best = min(best, cur.get(j - 1, inf) + 1)
            best = min(best, prev.get(j, inf) + 1)
            cur[j] = min(best, inf)
        prev = cur
    return prev.get(len(b), inf) <= 2


def _a_word(run: str) -> bool:
    """Whether a piece of a known secret is a plain word (bracknell, Bracknell): the part of
    a password a person made of a name, which the session says as that name elsewhere."""
    return run.isalpha() and (run.islower() or (run[:1].isupper() and run[1:].islower()))


def _a_piece(run: str, value: str) -> bool:
    """Whether *run* is a piece of the known secret *value* that holds some of its secret
    part (not only the provider's prefix, nor only a URL's scheme and host: discord.com of
    a webhook is everyone's)."""
    if run not in value or (value.startswith(run) and len(run) <= _prefix_length(value)):
        return False
    if _only_names(run, value):
        # .*/CF_DNS_API_TOKEN=…/ taken whole, a webhook's ?access_token=…: the name a value
        # is given under is no secret
        return False
    url = _URL_HOST.match(value)
    if url is not None:
        public = url.group(1) + url.group(3)  # the scheme and the host, not the userinfo
        secret = (url.group(2) or "") + " " + value[url.end() :]
        if run in public and run not in secret:
            return False
    return True


def _only_names(run: str, value: str) -> bool:
    """Whether every occurrence of *run* in *value* is a whole name given a value
    (``access_token=``, ``CF_DNS_API_TOKEN=``)."""
    pos = value.find(run)
    while pos >= 0:
        end = pos + len(run)
        if value[end : end + 1] != "=" or (pos and value[pos - 1].isalnum()):
            return False
        pos = value.find(run, end)
    return True


_URL_HOST = re.compile(r"([a-z][a-z0-9+.-]{1,15}://)(?:([^/?#\s@]*)@)?([^/?#\s@]*)")


def _prefix_length(value: str) -> int:
    """How long the provider's prefix of a known secret is: a cut that keeps no more than
    it ("rubygems", "tskey-au") keeps nothing secret, and names the registry in prose."""
    if value.startswith("eyJ") and "." in value[:400]:
        return value.index(".") + 1  # a JWT's header: its algorithm and type, every JWT's
    m = _PREFIX.match(value)
    return m.end() if m else 0


#: How many values of a read are looked for again in its later texts (one ``find`` each).
_REPEAT_LIMIT = 256


def _repeated(text: str, seen: Mapping[str, str]) -> Iterator[tuple[int, int, int, str]]:
    """Every whole occurrence in *text* of a value taken out earlier in the same read (the
    first :data:`_REPEAT_LIMIT` of them, six characters or more; a short one, a PIN, only
    as a whole token), ranked after a shape's own finding."""
    for n, (value, kind) in enumerate(seen.items()):
        if n >= _REPEAT_LIMIT:
            break
        if len(value) < _SHORT_KNOWN or kind == _PRIVATE_KIND and len(value) < 8:
            continue
        for form in _written_forms(value):
            pos = text.find(form)
            while pos >= 0:
                end = pos + len(form)
                if len(value) >= 8 or not (_token_char(text, pos - 1) or _token_char(text, end)):
                    yield (_VALUED_RANK, pos, end, kind)
                pos = text.find(form, end)
    yield from _corrections(text, seen)
    yield from _pieces_again(text, seen)


def _pieces_again(text: str, seen: Mapping[str, str]) -> Iterator[tuple[int, int, int, str]]:
    """A piece of eight characters or more of a secret taken out earlier in the read, given
    again on its own ("the old one ended in AE451CF2"): found by its first eight
    characters, looked up once per run of the text."""
    grams: dict[str, list[tuple[str, str]]] = {}
    for n, (value, kind) in enumerate(seen.items()):
        if n >= _REPEAT_LIMIT:
            break
        if kind == _PRIVATE_KIND or len(value) < 12:
            continue
        for i in range(len(value) - 7):
            grams.setdefault(value[i : i + 8], []).append((value, kind))
    if not grams:
        return
    for m in _ALNUM_RUN.finditer(text):
        run = m.group()
        if len(run) > 256 or _a_word(run):
            continue
        hit = next(
            (
                k
                for v, k in grams.get(run[:8], ())
                # a private key's block holds its public half (ssh-keygen -y prints it)
                if (k != "private-key" or not _public_key_at(text, m.start())) and _a_piece(run, v)
            ),
            "",
        )
        if hit:
            yield (_VALUED_RANK, m.start(), m.end(), hit)


def _marked(text: str, found: Sequence[Finding]) -> str:
    """*text* with each finding replaced by its marker."""
    out: list[str] = []
    pos = 0
    for f in found:
        out.append(text[pos : f.start])
        out.append(PRIVATE_MARK if f.kind == _PRIVATE_KIND else marker(f.kind))
        pos = f.end
    out.append(text[pos:])
    return "".join(out)


_NOT_TOLD_BEFORE = frozenset({_PRIVATE_KIND, "generated-secret", "private-key"})


def told_before(texts: Sequence[str], seen: Mapping[str, str]) -> list[str | None]:
    """The texts of one read (each already redacted) again, where one holds a value the
    read took out in a later text, or a piece of one: a key the person gave in two bits
    (`hf_JhEw…` and `ZHJE…`) that the agent then wrote out whole, a password said in
    words before a config file showed it. None where a text stays as it is. One pass of
    each text (the values' pieces of eight found together), so a long read costs little."""
    values = {v: k for n, (v, k) in enumerate(seen.items()) if n < _REPEAT_LIMIT and len(v) >= 10}
    # a run found only by looking random, and a private key's block (which holds its public
    # half), are not carried back: a guess is not spread over the whole read
    values = {v: k for v, k in values.items() if k not in _NOT_TOLD_BEFORE}
    out: list[str | None] = [None] * len(texts)
    if not values:
        return out
    auto = ahocorasick.Automaton()
    added: set[str] = set()
    for v in values:
        for i in range(0, len(v) - 7, 4):
            if v[i : i + 8] not in added:
                added.add(v[i : i + 8])
                auto.add_word(v[i : i + 8], v)
    auto.make_automaton()
    for n, text in enumerate(texts):
        hit = {v: values[v] for _end, v in auto.iter(text)}
        if not hit:
            continue
        found = _settle(list(_repeated(text, hit)))
        if found:
            out[n] = _marked(text, found)
    return out


def _written_forms(value: str) -> tuple[str, ...]:
    """A value as a text may repeat it: as it is, and escaped for a pattern (sed's
    ``s/tundra\\.Mosaic\\.3381!/…/`` holds the password with its dots escaped)."""
    escaped = re.escape(value)
    return (value, escaped) if escaped != value and len(value) >= 8 else (value,)


def _corrections(text: str, seen: Mapping[str, str]) -> Iterator[tuple[int, int, int, str]]:
    """A value taken out earlier in the read, given again with a character or two put right
    (:func:`_corrected`)."""
    by_length: dict[int, list[tuple[str, str]]] = {}
    for n, (value, kind) in enumerate(seen.items()):
        if n >= _REPEAT_LIMIT:
            break
        if kind != _PRIVATE_KIND and len(value) >= 10:
            by_length.setdefault(len(value), []).append((value, kind))
    if not by_length:
        return
    for m in _PRINTABLE_RUN.finditer(text):
        whole = m.group().rstrip(_TRAILING)
        for run in dict.fromkeys((whole, whole.rstrip("!?.,;:)]}'\""))):
            near = (
                pair for n in range(len(run) - 2, len(run) + 3) for pair in by_length.get(n, ())
            )
            hit = next((k for v, k in near if _corrected(run, v)), "")
            if hit:
                yield (_VALUED_RANK, m.start(), m.start() + len(run), hit)
                break


#: A run of printable ASCII, as a password may be written (Hx#2026tuohai-ops).
_PRINTABLE_RUN = re.compile(r"[!-~]{10,256}")


@contextmanager
def remembering() -> Iterator[dict[str, str]]:
    """:func:`collecting`, or the collection already open: a journal read remembers the
    values it takes out so that a later text of the same read that repeats one is redacted
    too, and a caller that collects them (the gate) still receives every one."""
    seen = _SEEN.get()
    if seen is not None:
        yield seen
        return
    with collecting() as fresh:
        yield fresh


@contextmanager
def collecting() -> Iterator[dict[str, str]]:
    """Gather, while the block runs, every raw secret value and private text that
    redaction took out (value -> kind): kura can then redact a text that repeats one --
    a candidate a model copied it into -- even where the value has no shape of its own."""
    seen: dict[str, str] = {}
    token = _SEEN.set(seen)
    try:
        yield seen
    finally:
        _SEEN.reset(token)


def _settle(ranked: list[tuple[int, int, int, str]]) -> tuple[Finding, ...]:
    """Findings merged where they overlap (one marker over the union of their spans,
    named by the best-ranked of them), in order."""
    out: list[list[Any]] = []
    for rank, s, e, kind in sorted(ranked, key=lambda r: (r[1], r[0], -r[2])):
        if e <= s:
            continue
        if out and s < out[-1][1]:
            last = out[-1]
            last[1] = max(last[1], e)
            if rank < last[3]:
                last[2], last[3] = kind, rank
            continue
        out.append([s, e, kind, rank])
    return tuple(Finding(kind, s, e) for s, e, kind, _ in out)


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
    #: values a journal's redaction took out (raw value, kind), found wherever they stand
    #: again: a candidate written from the raw journal copies them (:meth:`knowing`)
    known: tuple[tuple[str, str], ...] = ()

    def knowing(self, known: Mapping[str, str]) -> SecretRules:
        """These rules, and every value in *known* (as :func:`collecting` gathers them)."""
        return replace(self, known=tuple({**dict(self.known), **known}.items()))

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

    def find(self, text: str, known: Mapping[str, str] | None = None) -> tuple[Finding, ...]:
        """Every secret in *text*, in order, none overlapping: found in the raw text and in
        each decoded view of it (JSON escapes, percent-encoding, wrapped lines joined), a
        finding in a view covering every raw character its value came from; with known
        values (these rules' own and *known*), every occurrence of one too."""
        if not text:
            return ()
        ranked = [r for r in self._ranked(text) if not self._allowed(text[r[1] : r[2]])]
        for view in views(text):
            for rank, s, e, kind in self._ranked(view.text):
                if not self._allowed(view.text[s:e]):
                    rs, re_ = view.raw_span(s, e)
                    ranked.append((rank, rs, re_, kind))
        found = _settle(ranked)
        values = {**dict(self.known), **known} if known else dict(self.known)
        if not values:
            return found
        spans = list(_known_spans(text, values))
        for view in views(text):
            spans += [(*view.raw_span(s, e), k) for s, e, k in _known_spans(view.text, values)]
        return _settle(
            [(_OWN, f.start, f.end, f.kind) for f in found] + [(_OWN, s, e, k) for s, e, k in spans]
        )

    def _allowed(self, value: str) -> bool:
        bare = value.strip("\"'`")
        return (
            (bool(self.allow) and bare in self.allow)
            or _PUBLIC.fullmatch(bare) is not None
            or bare in _DOCUMENTED
            or (bare.startswith("eyJ") and _anon_jwt(bare))
        )

    def _ranked(self, text: str) -> list[tuple[int, int, int, str]]:
        """``(rank, start, end, kind)`` of every rule's match in *text*, overlaps and all."""
        ranked: list[tuple[int, int, int, str]] = []
        for kind, pattern in self.patterns:
            for m in pattern.finditer(text):
                g = "secret" if "secret" in pattern.groupindex else 0
                if m.end(g) > m.start(g):
                    ranked.append((_OWN, m.start(g), m.end(g), kind))
        always, by_keyword = _shapes_by_keyword()
        wanted = set(always)
        for k in _present(text):
            wanted.update(by_keyword.get(k, ()))
        shapes = _scanned_shapes()
        for n in sorted(wanted):
            shape = shapes[n]
            ranked += [(_SHAPED, s, e, shape.kind) for s, e in _shape_spans(shape, text)]
        for s, e in _private_keys(text):
            ranked.append((_SHAPED, s, e, "private-key"))
        lowered = text.lower()
        said = _present_lowered(lowered)
        for i, valued in enumerate(_VALUED):
            if valued.keywords and said.isdisjoint(valued.keywords):
                continue
            for m in valued.pattern.finditer(text):
                g = _group(m)
                if g and valued.check(m.group(g)) and not _bracketed(text, m.start(g)):
                    end = m.end(g) - _trailing(m.group(g))
                    ranked.append((_VALUED_RANK + i, m.start(g), end, valued.kind))
        ranked += [(_ASSIGNED, s, e, k) for s, e, k in _assignments(text)]
        ranked += [(_ASSIGNED, s, e, k) for s, e, k in _defaults(text)]
        ranked += [(_ASSIGNED + 1, s, e, k) for s, e, k in _containers(text)]
        ranked += [(_ASSIGNED + 2, s, e, k) for s, e, k in self._encoded(text)]
        ranked += [(_ASSIGNED + 2, s, e, "password") for s, e in _code_lines(text)]
        ranked += [(_ASSIGNED + 2, s, e, "password") for s, e in _column_cells(text)]
        ranked += [(_ASSIGNED + 2, s, e, k) for s, e, k in _call_settings(text)]
        ranked += [(_ASSIGNED + 2, s, e, k) for s, e, k in _user_maps(text)]
        ranked += _said_in_sentences(text, said)
        ranked += [(_ASSIGNED + 3, s, e, "password") for s, e in _rotated(text)]
        ranked += [(_ASSIGNED + 3, s, e, "secret") for s, e in _key_pieces(text)]
        ranked += [(_ASSIGNED + 3, s, e, "api-key") for s, e in _key_bytes(text)]
        ranked += [(_ASSIGNED + 3, s, e, "access-key") for s, e in _credential_calls(text)]
        ranked += [(_ASSIGNED + 3, s, e, "otp") for s, e in _read_codes(text)]
        ranked += [(_ASSIGNED + 3, s, e, "password") for s, e in _hinted(text)]
        ranked += [(_ASSIGNED + 3, s, e, "secret") for s, e in _base64_keys(text)]
        ranked += [(_ASSIGNED + 3, s, e, "password") for s, e in _halves(text)]
        ranked += [(_ASSIGNED + 3, s, e, "api-key") for s, e in _grouped_named(text)]
        ranked += [(_ASSIGNED + 3, s, e, "api-key") for s, e in _grouped_keys(text)]
        ranked += [(_ASSIGNED + 3, s, e, "password") for s, e in _login_pairs(text)]
        ranked += [(_ASSIGNED + 3, s, e, "password") for s, e in _label_lines(text)]
        ranked += [(_ASSIGNED + 3, s, e, "password") for s, e in _spaced_passwords(text)]
        ranked += [(_ASSIGNED + 3, s, e, "secret") for s, e in _labels_above(text)]
        ranked += [(_ASSIGNED + 3, s, e, "secret") for s, e in _introduced_below(text)]
        if said & _SENTENCE_KEYS:  # pw `…` too: "pw" is one of the keys
            ranked += [(_ASSIGNED + 3, s, e, "password") for s, e in _quoted_after_name(text)]
            ranked += [(_ASSIGNED + 3, s, e, "password") for s, e in _named_then_given(text)]
            ranked += [(_ASSIGNED + 3, s, e, k) for s, e, k in _given_names(text)]
        if not _NO_DECODE.get():
            ranked += [(_ASSIGNED + 3, s, e, "generated-secret") for s, e in _bare_random(text)]
            ranked += [(_ASSIGNED + 3, s, e, "generated-secret") for s, e in _inline_random(text)]
            if said & _GENERATOR_KEYS:
                ranked += [
                    (_ASSIGNED + 3, s, e, "generated-secret") for s, e in _generator_output(text)
                ]
        ranked += [(_ASSIGNED + 3, s, e, "api-key") for s, e in _path_tokens(text)]
        ranked += [(_ASSIGNED + 3, s, e, "token") for s, e in _token_tables(text)]
        ranked += [(_ASSIGNED + 3, s, e, "secret") for s, e in _quoted_pieces(text)]
        ranked = [_wrapped_on(text, r) for r in ranked]
        ranked += [(_ASSIGNED + 3, s, e, "access-key") for s, e in _paired_ids(text, ranked)]
        hashes = [m.span() for m in _HASH_SPAN.finditer(text)] if "$" in text else []
        scripts = "<script" in text
        ids = list(_id_cells(text)) if any(r[3] == "generated-secret" for r in ranked) else []
        return [
            r
            for r in ranked
            if not _dummy(text[r[1] : r[2]])
            and not _web_config_key(text, r, scripts)
            and not any(a <= r[1] and r[2] <= b for a, b in hashes)
            and not (r[3] == "generated-secret" and any(a <= r[1] and r[2] <= b for a, b in ids))
            and not (r[0] > _SHAPED and _named_as_id(text, r[1]))
        ]

    def _encoded(self, text: str) -> Iterator[tuple[int, int, str]]:
        """Base64 values whose decoded text holds a secret (a docker ``auth`` of
        ``user:ghp_…``, a kubeconfig ``client-key-data`` holding a PEM key, a
        ``.dockerconfigjson``): the whole encoded value, named by what it holds. The
        decoded text is scanned once, without decoding further, so the cost stays linear."""
        if len(text) < 24:
            return
        for m in _BASE64.finditer(text):
            decoded = _b64_text(m.group())
            if decoded is None:
                continue
            inner = [
                r for r in self._ranked_plain(decoded) if not self._allowed(decoded[r[1] : r[2]])
            ]
            if inner:
                yield m.start(), m.end(), min(inner)[3]

    def _ranked_plain(self, text: str) -> list[tuple[int, int, int, str]]:
        """:meth:`_ranked` without the base64 step (a decoded value is not decoded again)."""
        saved = _NO_DECODE.set(True)
        try:
            return self._ranked(text)
        finally:
            _NO_DECODE.reset(saved)

    def redact(self, text: str, known: Mapping[str, str] | None = None) -> Redaction:
        """*text* with ``<private>`` parts removed and every secret replaced by its
        marker; with *known* (raw value -> kind, as :func:`collecting` gathers them from a
        journal) every occurrence of a known value too, wherever it stands."""
        if not text:
            return Redaction(text or "")
        seen = _SEEN.get()
        dropped: list[str] | None = [] if seen is not None else None
        text, private = drop_private(text, dropped)
        found = self.find(text, known)
        if found:
            # a secret given again in the same text with a character or two put right
            # ("刚才那个发错了，是 Zx9#mK2v!Lq4T" under "密码：Zx9#mK2v!Lq7")
            here = {text[f.start : f.end]: f.kind for f in found if f.end - f.start >= 10}
            starts = [f.start for f in found]
            fixed = [r for r in _corrections(text, here) if not _inside(r[1], found, starts)]
            if fixed:
                found = _settle([(0, f.start, f.end, f.kind) for f in found] + fixed)
        if seen and known is None:
            # a value taken out earlier in the same read, repeated here where it has no
            # shape or label of its own (the agent's summary: "事務所 Wi-Fi: Kz8-umeboshi-9870")
            again = list(_repeated(text, seen))
            if again:
                found = _settle([(0, f.start, f.end, f.kind) for f in found] + again)
        if seen is not None:
            _remember(seen, text, found, dropped or [])
        if not found:
            return Redaction(text, (), private)
        return Redaction(_marked(text, found), found, private)

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


def redact_value(
    value: Any, rules: SecretRules | None = None, known: Mapping[str, str] | None = None
) -> Any:
    """*value* (a string, or lists and mappings of them, as JSON holds) with every string
    redacted by *rules* (the active ones by default) and *known* values; other values as
    they are."""
    rules = rules or active_rules()
    if isinstance(value, str):
        return rules.redact(value, known).text if value else value
    if isinstance(value, list):
        return [redact_value(v, rules, known) for v in value]
    if isinstance(value, tuple):
        return tuple(redact_value(v, rules, known) for v in value)
    if isinstance(value, Mapping):
        return {k: redact_value(v, rules, known) for k, v in value.items()}
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
            optional = c == ")" and pattern[i + 1 : i + 2] == "?"  # at most once: not nested
            if rep and inner and not optional:
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
