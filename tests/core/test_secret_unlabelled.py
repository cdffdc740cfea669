"""Secrets that carry no label of their own: a random token wherever it stands, what a
generator printed, a key named in the sentence before, a new password given after its
change, a device's configuration line, a webhook's ``key=``. Each beside the look-alikes
of its class, which stay whole."""

from __future__ import annotations

import base64
import math
import random
import string
from collections import Counter

import pytest
from hypothesis import given, settings, strategies as st

from kura_core.secrets import BUILTIN

#: Letters and digits, but no lower-case vowels: a run of pieces that read as words is kept
#: by design (``FixtureTokenOfTheTestSuite``), and one random token in ten thousand reads so.
_ALNUM = string.ascii_uppercase + "bcdfghjklmnpqrstvwxz" + string.digits


def _entropy(v: str) -> float:
    n = len(v)
    return -sum(c / n * math.log2(c / n) for c in Counter(v).values())


def _random_token(rng: random.Random, n: int) -> str:
    while True:
        v = "".join(rng.choice(_ALNUM) for _ in range(n))
        if (
            any(c.isupper() for c in v)
            and any(c.islower() for c in v)
            and sum(c.isdigit() for c in v) >= 2
            and _entropy(v) >= 4.2
        ):
            return v


_PROSE = [
    "use {t} for the staging box, it expires on Friday",
    "okay here it is {t} — don't lose it",
    "ステージングはこれで {t} 来週まで使えます",
    "测试环境用这个 {t} ，下周五过期",
    "curl -H 'X-Client: {t}' https://api.internal/v2/ping",
]


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(24, 64), where=st.sampled_from(_PROSE))
def test_a_random_token_is_redacted_wherever_it_stands(seed, n, where):
    token = _random_token(random.Random(seed), n)
    text = where.format(t=token)
    assert token not in BUILTIN.redact(text).text


@pytest.mark.parametrize(
    "text",
    [
        # base64 of data: a JSON payload, an address, words
        "push data: "
        + base64.b64encode(b'{"screen":"orders","orderId":"PB-2026-004188"}').decode(),
        "addr " + base64.b64encode("深圳市南山区科技园".encode()).decode(),
        # public by their form or by their line
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGqMmqSTLVtZ2qvJ9v38eZVTPy4rlqCKNLeokSQRNkWA ci@a",
        "PublicKey = I/BRBfalTFAGtlSxU3dIeyR3JpuYriSynGFsvBm4B2E=",
        "this one is public, Xk9pL2mQ7vR4sT8wY3zAb1Cd, put it in the page",
        "integrity sha512-YPWsReDRkt+SyNfWGrr4dHXZQoJjPRV7KpLtrr6VD/vEwtVp2IJt7jBo/E6O69VYI==",
        # ids: mostly hex behind a prefix, words run together, paths and URLs
        "request T-0c8b9384f6982af1f6e6f2285c6137166 failed",
        "ghp_FixtureTokenOfTheTestSuiteForKura",
        "see https://drive.google.com/file/d/1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms/view",
        "T-0199c1a2-5e6f-7a8b-9c0d-1e2f3a4b5c6d",
        # RevenueCat's SDK keys ship inside every copy of the app
        "<key>RevenueCatAPIKey</key><string>appl_PBG4Yf7mXIlyDpvD09i4xq8Qkaw</string>",
        # data labelled as data
        "nonce: q8Ld3kPz9XvB7mN2sR5tY1wE4",
        "next cursor Zk3P9qLm7Xv2Bn8Rt5Yw1Ea6",
    ],
)
def test_look_alikes_of_a_random_token_stay_whole(text):
    assert BUILTIN.redact(text).text == text


@pytest.mark.parametrize(
    ("command", "output"),
    [
        ("pwgen -s 16 1", "Output: qjWEV2ljw5m2j6RI"),
        (
            "$ openssl rand -hex 32",
            "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
        ),
        (
            "python -c 'import secrets; print(secrets.token_urlsafe(24))'",
            "> kJ3_x9QmZ2vLp8Rt-5Yw1EaB",
        ),
        ("head -c 24 /dev/urandom | base64", "mZ3kP9qLx7Vb2Nn8Rt5Yw1Ea6Cd4"),
    ],
)
def test_what_a_generator_printed_is_a_secret(command, output):
    value = output.split()[-1]
    text = f"{command}\n{output}\nExit Code: 0"
    got = BUILTIN.redact(text).text
    assert value not in got and command in got


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (
            "SmartHRのアクセストークンを発行しました。Bearerで使うやつです：9eb0c60b6bbcf709534619b7a"
            "eeb40532944a5e6951fcbfa08f217958b91f086\n.envに入れてください。",
            "9eb0c60b6bbcf709534619b7aeeb40532944a5e6951fcbfa08f217958b91f086",
        ),
        (
            "设备三元组：ProductKey a1Xk9dQ2wPz，DeviceSecret 23b8c8d8669433c72b052c7c9c73401c。",
            "23b8c8d8669433c72b052c7c9c73401c",
        ),
        (
            "NASのadminパスワード、さっき変えました。新しいのは Vt7-sakuranbo-5126 です。",
            "Vt7-sakuranbo-5126",
        ),
        ("路由器的密码上周换了。现在是 hb2026-Ql9x-88，别外传。", "hb2026-Ql9x-88"),
        ("I rotated the wifi password. The new one is Blue-Heron-42 btw.", "Blue-Heron-42"),
        ("保険のマイページのパスワードもメモしといて、Kamera#Tokyo2026 ね。", "Kamera#Tokyo2026"),
        ("密码我发你了 Xq7#pLm2-Zk 记一下", "Xq7#pLm2-Zk"),
        (
            "事前共有キーは古いです。先週変えて、今はｍｉｋａｎ－７７３１－ｓｏｒａ－Ｑｚです",
            "ｍｉｋａｎ－７７３１",
        ),
    ],
)
def test_a_secret_named_in_its_sentence_or_the_one_before(text, value):
    assert value not in BUILTIN.redact(text).text


@pytest.mark.parametrize(
    "text",
    [
        # a digest or an id beside a secret word stays
        "the token's sha256 checksum is 5190ca4d0d012e0059bde910ea6b048b90daefb1f1e1d04a23839767f10aad8c",
        "OAuth client_id 4ba944df14bb5ab090a03811bbeab24a, the secret is in the vault",
        # "now" and "new" that give no password
        "I changed the password policy. Now it's 12 characters minimum.",
        "パスワードを変えました。今は 2026-12-05 の夜です。",
        "密码改了。现在是 v2.4.1 版本的规则。",
        "passwords must be at least 12 characters, see docs/security-policy-v2.md",
        "reset the password for user admin2024 please",
    ],
)
def test_what_only_stands_beside_a_secret_word_stays(text):
    assert BUILTIN.redact(text).text == text


@pytest.mark.parametrize(
    ("line", "value"),
    [
        ("  ipsec ike pre-shared-key 1 text Kaikei#Rtx2024-sh", "Kaikei#Rtx2024-sh"),
        ("username admin privilege 15 secret 0 Xy7pq-Lm2", "Xy7pq-Lm2"),
        ("requirepass s3cret-Redis-9", "s3cret-Redis-9"),
    ],
)
def test_a_device_configuration_line_gives_its_secret(line, value):
    assert value not in BUILTIN.redact(line).text


@pytest.mark.parametrize(
    "line", ["password required", "  password: ${DB_PASS}", "requirepass foobared", "secret file"]
)
def test_a_configuration_line_without_a_value_stays(line):
    assert BUILTIN.redact(line).text == line


def test_a_webhook_key_in_a_query_is_its_credential_whatever_it_looks_like():
    url = (
        "https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=8f2ce14b-f64f-4045-8e4e-af48a5316b2c"
    )
    assert "8f2ce14b-f64f" not in BUILTIN.redact(url).text
    plain = "https://example.com/list?key=created_at&order=desc"
    assert BUILTIN.redact(plain).text == plain
