"""Secrets in the forms tools and people really write them: an argument a command takes
after the account, a Wi-Fi QR payload, a Go DSN, a cloud Redis's instance:password, an app
password in groups, a key named in a JSON key escaped as \\u, a credentials CSV, the old
password told in brackets, and a call's result read under its command (what ``openssl rand``
printed is a key, what ``openssl dgst | base64`` printed is a digest). Each beside what stays."""

from __future__ import annotations

import json

import pytest

from kura_core.secrets import BUILTIN


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("steamcmd +login builder Bz7!kQ2x9Lmw +run_app_build app.vdf +quit", "Bz7!kQ2x9Lmw"),
        (" pp auth myname user@isp.ne.jp Kp7wR2mZ", "Kp7wR2mZ"),
        ("htpasswd -b /etc/nginx/.htpasswd admin S3cret-99", "S3cret-99"),
        ("rabbitmqctl add_user deploy Rb-77xq-Lm", "Rb-77xq-Lm"),
        ("lftp -u bob,Pa55word-1 ftp.example.com", "Pa55word-1"),
        ("smbclient //nas/share -U admin%Hu8-kk2 -c ls", "Hu8-kk2"),
        ("WIFI:T:WPA;S:Sakura-Staff;P:Hx3m-Rq8v-Tz2k-Wp6n;;", "Hx3m-Rq8v-Tz2k-Wp6n"),
        ('dsn: "game_admin:Qz8#vLp@Tn42@tcp(cdb.example.com:3306)/pixel"', "Qz8#vLp@Tn42"),
        ('auth: "crs-k3v8p2qd:5XYeJ9Bylh0pqj02"', "5XYeJ9Bylh0pqj02"),
        ("SMTP_USER=a@gmail.com\nSMTP_PASS=xwgy fhju kdeq ovij\n", "fhju kdeq"),
        ("那台 ECS 的 root 口令原来是 Hw@2025pixel，上周刚改了。", "Hw@2025pixel"),
        (
            "NASのパスワード、変えました。新しいのは Tsubaki-8823-hoshi です。前のやつ（Sakura2019!）は"
            "もう使えません。",
            "Sakura2019!",
        ),
        ('{"\\u30d1\\u30b9\\u30ef\\u30fc\\u30c9": "Mk4-fuji-7731", "v": 2}', "Mk4-fuji-7731"),
        (
            "User Name,Access Key Id,Secret Access Key\n"
            "deploy,7J2GPGEO31JZF0MVIA3L,mNHFFLlpmL0e3U9Xj46ZV1VuYrxJKrvfFjeHzYGd\n",
            "7J2GPGEO31JZF0MVIA3L",
        ),
        ('"body": "{\\"routing_key\\": \\"1217a709d77ab9af125eb18fd36820e6\\"}"', "1217a709d77ab9"),
    ],
)
def test_a_secret_in_the_form_its_tool_writes_it(text, value):
    assert value not in BUILTIN.redact(text).text


@pytest.mark.parametrize(
    "text",
    [
        "steamcmd +login anonymous +app_update 90 +quit",
        "WIFI:T:nopass;S:Cafe-Guest;;",
        "routing_key: orders.created.eu",
        "git log --format=%H -n 1 && echo done",
        "I changed the password policy. The old one (8 characters) was too short.",
        "redis:\n  addr: crs-k3v8p2qd.sql.tencentcdb.com:6379",
    ],
)
def test_what_only_looks_like_those_forms_stays(text):
    assert BUILTIN.redact(text).text == text


def _claude(tmp_path, command: str, output: str):
    from kura_core.distill.journals.inspect import inspect as inspect_journal

    def entry(kind, content, uuid):
        return {
            "type": kind,
            "message": {"role": kind, "content": content},
            "sessionId": "s",
            "uuid": uuid,
        }

    records = [
        entry("user", "make me a key", "u1"),
        entry(
            "assistant",
            [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": command}}],
            "a1",
        ),
        entry("user", [{"type": "tool_result", "tool_use_id": "t1", "content": output}], "u2"),
    ]
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return "\n".join(s.text for s in inspect_journal(path).segments)


def test_a_result_is_read_under_the_command_that_printed_it(tmp_path):
    key = "60aa0d2c35501bf76bf2bfc8acaffcff"
    assert key not in _claude(tmp_path, "openssl rand -hex 16", key + "\n")
    digest = "AnNYGeM8RYT0CVbcXRpnzo+1Gnw9KTGNe2ruuezsbDc="
    shown = _claude(
        tmp_path, "openssl pkey -pubout -in k.pem | openssl dgst -sha256 -binary | base64", digest
    )
    assert digest in shown
