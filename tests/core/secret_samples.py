"""Fake credentials shaped like real ones (never real: every value is drawn from a seeded
random generator), and the places a session really shows them, in English, Japanese and
Chinese. Shared by the secret tests of the core and the faces."""

from __future__ import annotations

import random
import string
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import quote

ALNUM = string.ascii_letters + string.digits
URLSAFE = ALNUM + "-_"
UPPER_NUM = string.ascii_uppercase + string.digits
HEX = "0123456789abcdef"


def draw(rng: random.Random, alphabet: str, n: int) -> str:
    """*n* characters of *alphabet* with at least one upper, one lower and one digit
    where the alphabet has them (a real key nearly always does)."""
    while True:
        s = "".join(rng.choice(alphabet) for _ in range(n))
        need = [
            set(alphabet) & set(string.ascii_uppercase),
            set(alphabet) & set(string.ascii_lowercase),
            set(alphabet) & set(string.digits),
        ]
        if all(not want or set(s) & want for want in need):
            return s


@dataclass(frozen=True)
class Kind:
    """A kind of secret: its marker name, how to make a fake one, and how it is written
    where it is assigned (the key an agent or a person would use)."""

    kind: str
    make: Callable[[random.Random], str]
    env: str  # the variable name in .env / env / export forms


KINDS: tuple[Kind, ...] = (
    Kind("openai-key", lambda r: "sk-proj-" + draw(r, URLSAFE, 120), "OPENAI_API_KEY"),
    Kind("openai-key", lambda r: "sk-" + draw(r, ALNUM, 48), "OPENAI_API_KEY"),
    Kind(
        "anthropic-key",
        lambda r: "sk-ant-api03-" + draw(r, URLSAFE, 93) + "AA",
        "ANTHROPIC_API_KEY",
    ),
    Kind("github-token", lambda r: "ghp_" + draw(r, ALNUM, 36), "GITHUB_TOKEN"),
    Kind("github-token", lambda r: "github_pat_" + draw(r, ALNUM + "_", 82), "GH_TOKEN"),
    Kind("gitlab-token", lambda r: "glpat-" + draw(r, URLSAFE, 20), "GITLAB_TOKEN"),
    Kind(
        "slack-token",
        lambda r: (
            "xoxb-"
            + draw(r, string.digits, 11)
            + "-"
            + draw(r, string.digits, 13)
            + "-"
            + draw(r, ALNUM, 24)
        ),
        "SLACK_BOT_TOKEN",
    ),
    Kind("aws-access-key", lambda r: "AKIA" + draw(r, UPPER_NUM, 16), "AWS_ACCESS_KEY_ID"),
    Kind(
        "aws-secret-key",
        lambda r: r.choice(ALNUM) + draw(r, ALNUM + "/+", 39),
        "AWS_SECRET_ACCESS_KEY",
    ),
    Kind("google-api-key", lambda r: "AIza" + draw(r, URLSAFE, 35), "GOOGLE_API_KEY"),
    Kind("stripe-key", lambda r: "sk_live_" + draw(r, ALNUM, 99), "STRIPE_SECRET_KEY"),
    Kind("twilio-key", lambda r: "SK" + draw(r, HEX, 32), "TWILIO_API_KEY"),
    Kind(
        "sendgrid-key",
        lambda r: "SG." + draw(r, URLSAFE, 22) + "." + draw(r, URLSAFE, 43),
        "SENDGRID_API_KEY",
    ),
    Kind("npm-token", lambda r: "npm_" + draw(r, ALNUM, 36), "NPM_TOKEN"),
    Kind(
        "pypi-token",
        lambda r: "pypi-AgEIcHlwaS5vcmc" + draw(r, URLSAFE, 150),
        "TWINE_PASSWORD",
    ),
    Kind(
        "jwt",
        lambda r: (
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ"
            + draw(r, URLSAFE, 60)
            + "."
            + draw(r, URLSAFE, 43)
        ),
        "SESSION_JWT",
    ),
    Kind("password", lambda r: draw(r, ALNUM + "!#%^*", 14), "DB_PASSWORD"),
    Kind("token", lambda r: draw(r, HEX, 32), "TWILIO_AUTH_TOKEN"),
    Kind("api-key", lambda r: draw(r, ALNUM, 32), "MAILGUN_API_KEY"),
    Kind("secret", lambda r: draw(r, ALNUM, 40), "CLIENT_SECRET"),
)

#: Kinds found by their own shape wherever they appear; the rest are found by the key
#: they are assigned to (and so only in places that name it).
SHAPED = {
    "openai-key",
    "anthropic-key",
    "github-token",
    "gitlab-token",
    "slack-token",
    "aws-access-key",
    "google-api-key",
    "stripe-key",
    "twilio-key",
    "sendgrid-key",
    "npm-token",
    "pypi-token",
    "jwt",
}


def private_key(rng: random.Random, label: str = "OPENSSH PRIVATE KEY") -> str:
    body = "\n".join(draw(rng, ALNUM + "+/", 70) for _ in range(6))
    return f"-----BEGIN {label}-----\n{body}\n-----END {label}-----"


# --------------------------------------------------------------------------- places

LANGS = ("en", "ja", "zh")

_PROMPT = {
    "en": "here is my key {v} — please wire it into the deploy script",
    "ja": "これが私のキーです {v} デプロイスクリプトに設定してください",
    "zh": "这是我的密钥 {v} 请把它配置到部署脚本里",
}
_TRACE = {
    "en": "the worker crashed again:",
    "ja": "ワーカーがまた落ちました：",
    "zh": "worker 又崩溃了：",
}


def placements(kind: Kind, value: str, lang: str) -> dict[str, str]:
    """The places one secret shows up in a session, as the segment text kura reads."""
    env = kind.env
    out = {
        "cat .env": f"# production\nAPP_ENV=production\n{env}={value}\nLOG_LEVEL=info\n",
        "env listing": (
            f"HOME=/home/ren\nLANG=ja_JP.UTF-8\n{env}={value}\n"
            "PATH=/usr/local/bin:/usr/bin:/bin\nSHELL=/bin/bash\n"
        ),
        "config file written": (
            f'[service]\nname = "billing"\n{env.lower()} = "{value}"\nretries = 3\n'
        ),
        "json config": f'{{\n  "region": "eu-west-1",\n  "{env.lower()}": "{value}"\n}}',
        "yaml config": f"service:\n  region: eu-west-1\n  {env.lower()}: {value}\n",
        "curl": (
            f'curl -s -H "Authorization: Bearer {value}" '
            '-H "Content-Type: application/json" https://api.example.com/v1/items'
        ),
        "stack trace": (
            _TRACE[lang] + "\nTraceback (most recent call last):\n"
            '  File "/srv/app/db.py", line 41, in connect\n'
            "    return psycopg2.connect(dsn)\n"
            "psycopg2.OperationalError: could not connect to server: "
            f"postgresql://billing:{quote(value, safe='')}@db.internal:5432/billing"
        ),
    }
    if kind.kind in SHAPED:
        out["prompt paste"] = _PROMPT[lang].format(v=value)
    return out
