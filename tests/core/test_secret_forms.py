"""Secrets in the forms tools and people really write them: an argument a command takes
after the account, a Wi-Fi QR payload, a Go DSN, a cloud Redis's instance:password, an app
password in groups, a key named in a JSON key escaped as \\u, a credentials CSV, the old
password told in brackets, and a call's result read under its command (what ``openssl rand``
printed is a key, what ``openssl dgst | base64`` printed is a digest). Each beside what stays."""

from __future__ import annotations

import base64
import json

import pytest

from kura_core.secrets import BUILTIN, remembering


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


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (
            "Marta read me the cPanel password over the phone: capital V as in Victor, "
            "lowercase k, seven, exclamation mark, lowercase q, three, capital Z. Done.",
            "lowercase k, seven",
        ),
        (
            "这是新密码，语音转文字：「大写L 小写z 八八六六 井号 小写k a i 大写D」，帮我记一下",
            "小写z 八八六六",
        ),
        (
            "Environment:\n   QINIU_AK=vB7N2GiPylV5gk6A6JK9CSEvYzqTjdO1RDVyeW7X\n",
            "vB7N2GiPylV5gk6A",
        ),
        ("   QINIU_SK=uCfL2Zgykrvmhs76A5AXa2eKjXH6YRHrZoHmUfOY\n   TASK=build", "uCfL2Zgykrvmhs76"),
        (
            "フォルダ:ユーザー名,フォルダ:パスワード\nscanuser,Minato_scan2024\n",
            "Minato_scan2024",
        ),
        (
            "NASのパスワードポリシーを変えたとき scanuser も変えたんだった。今のは ｓｃａｎ－Ｍｉｎａｔｏ－５８２０ 。",
            "ｓｃａｎ－Ｍｉｎａｔｏ",
        ),
        (
            "NASの管理者パスワード、院長が電話で読み上げたのをメモしました。\n"
            "大文字のエフ、小文字のアール、ナナ、アットマーク、小文字のエヌ、大文字のキュー、サン、ハイフン\n",
            "小文字のアール、ナナ",
        ),
        (
            "密码老师电话里念给我的：大写M，小写k，数字9，井号，小写r，大写T，数字4。",
            "小写k，数字9",
        ),
        (
            "reset it on the server, the new one is Rv7-kelp-Xq22-harbor\nalso",
            "Rv7-kelp-Xq22-harbor",
        ),
    ],
)
def test_spoken_short_named_and_headed_forms_are_taken_out(text, value):
    # read aloud in English, Japanese kana and Chinese; a new value right after a reset
    assert value not in BUILTIN.redact(text).text


def test_a_known_secret_corrected_or_escaped_for_a_pattern_is_the_same_secret():
    from kura_core.secrets import remembering

    with remembering():
        first = BUILTIN.redact(
            "in the password box (they'd clicked the eye icon) tundra.Mosaic.3381!"
        )
        fixed = BUILTIN.redact("ugh, I swapped the last two digits: tundra.Mosaic.3318! Fix that.")
        sed = BUILTIN.redact("sed -i 's/tundra\\.Mosaic\\.3381!/x/' wp-config.php")
        other = BUILTIN.redact("the build id is tundra.Harbor.9920 today")
    assert "3381" not in first.text and "3318" not in fixed.text and "3381" not in sed.text
    assert "tundra.Harbor.9920" in other.text  # more than two characters apart: another value


def test_a_site_key_is_public_and_a_secret_key_beside_it_is_not():
    text = (
        "RECAPTCHA_SITE_KEY=6LczQfwHlGgEkQXfBmoMUaaSpvExtgDNPZS4M3FF\n"
        "RECAPTCHA_SECRET_KEY=6LczQfwHlGgEkQXfBmoMUaaSpvExtgDNPZS4M3GG\n"
    )
    out = BUILTIN.redact(text).text
    assert "6LczQfwHlGgEkQXfBmoMUaaSpvExtgDNPZS4M3FF" in out and "M3GG" not in out


@pytest.mark.parametrize(
    "text",
    [
        "I changed the branch; the new one is release-2026-q3",
        "密码规则：至少8位，包含大写字母、小写字母、数字1到9，不要用生日。",
        "The password policy: one capital letter, two digits, and a symbol.",
    ],
)
def test_a_renamed_branch_and_a_password_policy_stay(text):
    assert BUILTIN.redact(text).text == text


@pytest.mark.parametrize(
    ("text", "gone"),
    [
        (
            "SLACK_OPS_WEBHOOK=https://hooks.slack.com/services/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",
            "hooks.slack.com",
        ),
        (
            "DISCORD=https://discord.com/api/webhooks/126409043538926133/8LU06TzT_ZYdUpdkSBmURP-HX-zYrI4RAGcWHF6rmcVHSUGdeRLLlkOU-qW7ccH",
            "discord.com/api",
        ),
        ("https://oapi.dingtalk.com/robot/send?access_token=" + "3f" * 32, "oapi.dingtalk.com"),
    ],
)
def test_a_webhook_url_goes_whole(text, gone):
    # the URL is the credential: what is left says which kind it was, not where it posts
    out = BUILTIN.redact(text).text
    assert gone not in out and "[secret:" in out


def test_long_hex_alone_on_a_line_is_a_token_unless_a_digest_is_named():
    token = "471f282bb54c6458b9611317d7eb0a60172a0add94382277d42d2fc0c956e94b37c81b7548e21561832b211a7f9e2ec6"
    said = f"アプリの開発者向けオプションに出ていたのを写した：\n{token}\nこれで叩けますか"
    assert token[:16] not in BUILTIN.redact(said).text
    for digest in (
        f"sha384 of the tarball:\n{token}\n",
        f"$ sha384sum dist.tgz | cut -c1-96\n{token}\n",
    ):
        assert token in BUILTIN.redact(digest).text
    sha256 = token[:64]  # an image id or a checksum printed bare: the length tools print
    assert sha256 in BUILTIN.redact(f"image:\n{sha256}\n").text


def test_a_spelled_password_written_out_later_is_the_same_secret():
    from kura_core.secrets import remembering, spelled_value

    assert spelled_value("capital V as in Victor, lowercase k, seven, exclamation mark") == "Vk7!"
    assert spelled_value("大写M，数字9，井号，小写z，八八") == "M9#z88"
    with remembering():
        BUILTIN.redact(
            "NASの管理者パスワード、読み上げたのをメモしました。\n大文字のエフ、小文字のアール、ナナ、"
            "アットマーク、小文字のエヌ、大文字のキュー、サン、ハイフン、小文字のピー、ゼロ"
        )
        later = BUILTIN.redact("読み上げの通りだと `Fr7@nQ3-p0` になります。")
    assert "Fr7@nQ3-p0" not in later.text


def test_a_json_string_assignment_keeps_its_escaped_quote_inside_the_value():
    env = '["PATH=/usr/bin","MYSQL_PASSWORD=pW9\\"xL2#vQ7k","MYSQL_HOST=db"]'
    out = BUILTIN.redact(env).text
    assert "xL2#vQ7k" not in out and '"MYSQL_HOST=db"' in out and "PATH=/usr/bin" in out


def test_a_host_in_a_sentence_about_a_password_stays():
    text = "I updated `DB_PASSWORD` but `wp db check` is refused with 1045 from db-2.internal."
    assert "db-2.internal" in BUILTIN.redact(text).text


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('x-pgpw: &pgpw "HiNkE/vFJa@mu7g#eoeR"\n  POSTGRES_PASSWORD: *pgpw', "HiNkE/vFJa@mu7g"),
        ('command: ["redis-server", "--requirepass", "kestrel-Oat-7194-drizzle"]', "kestrel-Oat"),
        ("[sakura]\ntype = s3\naccess_key_id = K5ONRZEGN5IQXJKQ61RV\n", "K5ONRZEGN5IQXJKQ61RV"),
        ("初期化されてたので再設定しました、いまは ukimi-Tz84Rq3 です。", "ukimi-Tz84Rq3"),
        (
            "旧的私人令牌过期了，新令牌我生成好了：ea21f1c2646e91967fde001672141688。",
            "ea21f1c2646e",
        ),
        (
            "バックアップコード、最後の1つを控えとしてここに貼っておきます：8102 8761",
            "8102 8761",
        ),
        (
            "the password in there is already dead, I changed it. the new one is the usual "
            "pattern with the year, it ends in kp7Mz4!q. thanks",
            "kp7Mz4!q",
        ),
    ],
)
def test_anchored_argument_list_joined_name_and_partial_forms_are_taken_out(text, value):
    # a YAML anchor, a flag's next argument, rootpw-style names, an access key id, いまは
    # after 再設定, 令牌, a backup code on its label's line, the ending of a new password
    assert value not in BUILTIN.redact(text).text


def test_stripe_object_ids_are_references_and_a_secret_key_beside_them_is_not():
    text = (
        "invoice in_1QJ7sNuPvI557CTC4SjWPQxC paid; key sk_live_51revATWbjSOT2WWOvi7gZWv4sOvnY27kAB"
    )
    out = BUILTIN.redact(text).text
    assert "in_1QJ7sNuPvI557CTC4SjWPQxC" in out and "OvnY27kAB" not in out


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (
            'The REST API uses the application password "2wN3 Prl6 PaY9 8O7o Uk5P MCc5".',
            "PaY9 8O7o",
        ),
        ("アプリパスワードは「kq7T mW2p Zr8x Lb4n」です。", "mW2p Zr8x"),
        ("应用专用密码是“hx7k p2Qm r9Vt w3Lz”，别外传。", "p2Qm r9Vt"),
        (
            "モニターに『PMS 管理者 front01 / Mq7v!Lp2zR』と書いた付箋が貼ってありました",
            "Mq7v!Lp2zR",
        ),
        ("sticky note on the router: admin / Tr0ub4dor&3x", "Tr0ub4dor&3x"),
        ("前台电脑上贴着：账号 reception2 / Kp9#vWz2qL", "Kp9#vWz2qL"),
        (
            "ssm://UI?t=sk&sk=rffDR9aV8lPDEfncU+tUiWw+JdXQ+t4tBv+3pZ0cmLLIaBIsKnaR&l=0",
            "rffDR9aV8lPDEfncU",
        ),
    ],
)
def test_spaced_quoted_login_pair_and_query_key_forms_are_taken_out(text, value):
    # a password given in quotes as groups, an account and its password written as a
    # pair, a URL query whose key says secret key (sk=)
    assert value not in BUILTIN.redact(text).text


@pytest.mark.parametrize(
    "text",
    [
        'The password field says "Enter your password here" in the form.',
        'Set the token label to "Build Bot for CI" in the settings.',
        "login page is src/Login/LoginView2.tsx / see docs",
        "the ID / name columns: user_id / DisplayName2024",
        "the admin guide covers v2.4.1 / v2.5.0 upgrades",
        "order ?id=12345678&sku=AB12-CD34 shipped",
    ],
)
def test_quoted_phrases_paths_columns_and_versions_stay(text):
    assert BUILTIN.redact(text).text == text


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (
            "ネットワーク名(SSID) : aterm-7c1f2e-g\n暗号化キ一(AES) : 8308ff1760a71\n",
            "8308ff1760a71",
        ),
        ("AtermWX3600HP\nWeb PW : 9i6pmg3g\nNEC Platforms", "9i6pmg3g"),
        ("路由器背面：\n管理密码 : k7Hq2mZp\n", "k7Hq2mZp"),
        (" pp auth username incho tdWYVG-OEdf1o\n ppp ipcp ipaddress on", "tdWYVG-OEdf1o"),
        (
            "管理画面のパスワードも書いておきます。ＳａｋｕｒａＤｃ－２０６４ｊｈ です（全角かも）",
            "ＳａｋｕｒａＤｃ",
        ),
        (
            "Generated access token\nsl.u.AFTsOaj1uVJCsvfcULHS0-mmLxH_yFe9wFXp4gdw1ecjnHO\n"
            "rt0_qzJH5rsV8R7s5rqzZAjx-pUvpSOgEwfyYtMhK_lj-uO7xHsd\nACBPus4EXimx\n",
            "sl.u.AFTsOaj1",
        ),
    ],
)
def test_sticker_labels_router_users_a_value_after_its_naming_and_wrapped_sl_u_tokens_go(
    text, value
):
    # a sticker's "Web PW :" or OCR'd 暗号化キ一 line, a Yamaha remote user's password,
    # a password given as the sentence after the one naming it (full-width too), a
    # Dropbox sl.u. token wrapped over three lines
    assert value not in BUILTIN.redact(text).text


@pytest.mark.parametrize(
    "text",
    [
        "Primary key: id_column2",
        "Sort key: createdAt2024",
        "Foreign key : customer_id",
        "MACアドレス : AD-BB-0E-28-EF-15\n製造番号 : 46668142GE",
        "I reset the password. Then I rebooted the server.",
        "パスワードを変えました。v2.4.1 にアップデートも済み。",
    ],
)
def test_schema_keys_device_ids_and_sentences_after_a_password_stay(text):
    assert BUILTIN.redact(text).text == text


@pytest.mark.parametrize(
    ("text", "gone"),
    [
        (
            "02:14:11Z DEPLOY_ENV_B64=U1RSSVBFX1NFQ1JFVF9LRVk9c2tfbGl2ZV9mRkFwWmFEdmIzdFI2QkNCNmh"
            "wMGdOZGgKU1RSSVBFX1dFQkhPT0tfVE9MRVJBTkNFPTMwMAo=",
            "U1RSSVBFX1NFQ1JFVF9L",
        ),
        (
            "VPNの事前共有鍵は今朝変えました。新しい方は Kz7Bdktd-umi-336 で、前のはもう無効です。",
            "Kz7Bdktd",
        ),
        (
            "SENTRY_DSN=https://4299107b1c5e6f9bd5f12b9307d4385c@o7309984.ingest.us.sentry.io/46801",
            "o7309984.ingest",
        ),
        (
            "notify: POST https://hooks.slack.com/services/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",
            "https://",
        ),
        (
            'curl -s "https://api.cloudsign.jp/token?client_id=87b07ab2-d3fc-400f-a921-90d7a25376bd"',
            "87b07ab2-d3fc",
        ),
    ],
)
def test_assigned_base64_a_new_one_after_a_change_whole_dsns_and_token_client_ids_go(text, gone):
    # base64 after a NAME_B64= assignment is decoded; 新しい方は after 変えました gives the new
    # value; a Sentry DSN and a webhook go whole, scheme included; a token endpoint asked
    # with client_id alone
    assert gone not in BUILTIN.redact(text).text


def test_an_oauth_authorize_client_id_and_sentry_docs_stay():
    for text in (
        "https://github.com/login/oauth/authorize?client_id=Iv1.8a61f9b3a7aba766&scope=repo",
        "see https://docs.sentry.io/platforms/python/ for the DSN format",
    ):
        assert BUILTIN.redact(text).text == text


@pytest.mark.parametrize(
    ("text", "gone"),
    [
        ("集群 Slurm 的数据库密码，师兄说是 “slurm@GPU-2024”，不过现在起不来。", "slurm@GPU"),
        (
            "ipmitool -I lanplus -H 10.0.8.21 -U ADMIN -P Bmc#8kq2Lw chassis power status",
            "Bmc#8kq2",
        ),
        ("链接: https://pan.baidu.com/s/1qTz 提取码: k7xq \n--来自百度网盘", "k7xq"),
        ("事務所PC 共用\nAirペイ PW : Kr8ーmZ4q−Tb2w\n", "Kr8ーmZ4q"),
        (
            "The password is my dog's name plus the year we moved plus !nas... ok just take it: "
            "Biscuit2019!nas . ssh is on port 2222.",
            "Biscuit2019",
        ),
        (
            "管理者パスワード、電話で読み上げてくれたのをそのまま書きます。\n"
            "『大文字のピー、小文字のエル、なな、よん、大文字のキュー、ハイフン、さん、ゼロ』",
            "なな、よん",
        ),
    ],
)
def test_quoted_hearsay_bmc_flags_share_codes_ocr_dashes_and_a_value_after_a_hint_go(text, gone):
    # a quoted value in a sentence naming 密码, ipmitool -P, a share link's 提取码, an OCR'd
    # sticker value with ー and −, a value given after a hint and a colon, kana digits
    assert gone not in BUILTIN.redact(text).text


def test_a_quoted_rule_about_passwords_in_japanese_stays():
    text = (
        "パスワードは手順書に記載せず、「来客用Wi-Fiは毎月1日に変更」というルールのみ追記します。"
    )
    assert BUILTIN.redact(text).text == text


def test_a_digest_word_inside_a_random_token_names_no_digest():
    # "Md5" inside the token is part of it, not a word of its line
    text = "use DlEU43Md5HgjpBAznXFBLAgm for the staging box, it expires on Friday"
    assert "DlEU43Md5" not in BUILTIN.redact(text).text
    named = "the md5 is Qm8vX2kL9pR4sT7wY3zAb1CdEf5Gh"
    assert BUILTIN.redact(named).text == named


@pytest.mark.parametrize(
    ("text", "gone"),
    [
        # a lookup's default: Gradle's Elvis, Python's getenv, Node's ||, Laravel's env()
        ('storePassword System.getenv("UPLOAD_STORE_PW") ?: "habit7132ZSotteb"', "habit7132ZS"),
        ('DB_PASSWORD = os.getenv("DB_PASSWORD", "nT4kq9Lmz2Rp")', "nT4kq9Lmz2Rp"),
        ('const secret = process.env.JWT_SECRET || "s3cr3tK9mQ2vLp";', "s3cr3tK9mQ2vLp"),
        ('"password" => env("DB_PASSWORD", "Lz8qR2mT9kpW"),', "Lz8qR2mT9kpW"),
        ('token = ENV.fetch("GH_TOKEN", "x9Kp2mQ7vL4nR8")', "x9Kp2mQ7vL4nR8"),
        # a settings screen read by OCR: the label on one line, the value and a copy button
        (
            "串流金钥（粘贴到编码器中）\n默认串流金钥 (RTMP, 可变)\n78hz-r3uw-1pot-p09q-stii    复制\n",
            "p09q-stii",
        ),
        ("Stream key\nlive_123456789_AbCdEfGhIjKlMnOpQrStUv\n", "AbCdEfGhIj"),
        # the sentence rule knows 暗証番号 as a password word: the old one in brackets goes
        (
            "e-Taxの暗証番号も変えました。新しいのは Nozomi-0511-zei です。前のやつ（Tax3214yamada!）は"
            "もう使えません。",
            "Tax3214yamada",
        ),
        # an app password of random letters, given as a password is: 授权码 is a password word
        ("QQ邮箱的授权码是 qwhdkzmxptbvlcie，填到SMTP里", "qwhdkzmxptbvlcie"),
        ("the smtp password is qwhdkzmxptbvlcie, use it", "qwhdkzmxptbvlcie"),
        # a header's scheme and its parameter, quotes escaped in a JSON log
        (
            "'Authorization': 'Snowflake Token=\\\"ver:1-hint:1096819-ETMsDgAAAZp95zNibG2GEMYPms\\\"'",
            "ETMsDgAAAZp95zN",
        ),
        # an account and its password before a host, no scheme
        ("proxy = deploy:Hk29-xQpl7v@proxy.corp.example.com:3128", "Hk29-xQpl7v"),
        ("sed -i 's#lab-ci:[^@]*@#lab-ci:Nx4-wq8Tz\\!mirror@#' ~/.config/pip/pip.conf", "wq8Tz"),
        # a grep's line number before a config directive
        ("1036:requirepass r3dis-Vlab-88Kq", "r3dis-Vlab"),
        # letters said by their names in katakana, a dictation that goes on in pinyin
        (
            "管理者パスワードを聞いたので打ちます：エス、ユー、ケー、アイ、ハイフン、なな、さん、きゅう、ゼロ。",
            "エス、ユー、ケー、アイ",
        ),
        (
            "集群登录节点的密码改了，我按他念的打：大写Q 小写w 三 七 横杠 lan shan 二零二五。",
            "lan shan 二零二五",
        ),
        # OneSignal's v2 REST key (a catalogue entry)
        (
            "the REST API key is os_v2_app_j4lxdoq5msphpqao7mf264ihfpgbreey4herdntqcobezkpyhxr6q7jbfm"
            "np7xp44gaqnfo2e3qsrwlyr3lrjfd6brhz6f5ztt2aptbpdmmy5e75o. send",
            "j4lxdoq5msph",
        ),
    ],
)
def test_defaults_screens_named_codes_header_parameters_userinfo_and_named_letters_go(text, gone):
    assert gone not in BUILTIN.redact(text).text


@pytest.mark.parametrize(
    "text",
    [
        'host = os.getenv("DB_HOST", "localhost")',
        'token_path = os.getenv("TOKEN_FILE", "/etc/token")',
        'mode = settings.token_mode or "strict"',
        "Token\n2026-12-01T10:00:00Z\n",
        "Password\nrequired\n",
        "grep -n PASSWORD_MIN_LENGTH config/app.env\n12:PASSWORD_MIN_LENGTH=12\n",
        "・メゾン桜丘 302号室（物件番号 R-2025-0417、〒150-0031）：キーボックスの暗証番号は後で送ります",
        "パスワードは1Passwordの release-signing に入れておくことになってる",
        "image: python:3.11-slim@sha256:abcdef",
        "git@github.com:org/repo.git",
        "the token is required",
        "POSTHOG_PROJECT_KEY = phc_ewD8lOl8jCCUl3HLuGBQSND63mdrixKd4xRNaMTxDXf",
        "DEBUG x-line-signature: Kdy2nYLfsyQ+HTbHcp25rinfDvCW6GIj/8YI/7w1ISE=",
        "eyJhcHMiOnsiYWxlcnQiOnsidGl0bGUiOiJTdHJlYWsgc2F2ZWQiLCJib2R5IjoiRGF5IDEyIGRvbmUifSwic291bmQiOiJkZWZhdWx0In19",
    ],
)
def test_plain_defaults_timestamps_settings_records_public_keys_and_signatures_stay(text):
    assert BUILTIN.redact(text).text == text


@pytest.mark.parametrize(
    ("text", "gone"),
    [
        # a subscript names the key: PHP's config arrays, Ruby's ENV[…]
        ("$_config['db']['1']['dbpw'] = 'mh_F0rum#x92LqT';", "mh_F0rum"),
        ("$_config['security']['authkey'] = 'xbktkizkzg7n1bh89kgs68e65q0m8d7r';", "xbktkizkzg7n"),
        ("ENV['API_TOKEN'] = 'ab12Cd34Ef56Gh78Ij90';", "ab12Cd34Ef56"),
        # OpenWrt's uci: a wireless section's key is the Wi-Fi passphrase
        ("wireless.default_radio0.key='h7Rk-2mQp-Lw9x-Fz4c'", "h7Rk-2mQp"),
        # a key in a URL's path after an API's word (a Hue bridge's username)
        (
            "curl -s http://192.168.1.20/api/UVyC5o8cXROS8kyCW4ssiGhcZ4YuP4ueKtciwb1C/lights/3",
            "UVyC5o8cXROS8ky",
        ),
        # "new one is" with no article, after a rotation
        (
            "the router pw I gave you is the old one, I changed it last week. new one is "
            "Quiet-Harbor-Fig-1907. ok",
            "Quiet-Harbor",
        ),
        # eight characters of every kind in a sentence naming a password
        (
            "The master password is my first boat plus the suffix I use everywhere, 7Qv#kL2x - "
            "actually forget it",
            "7Qv#kL2x",
        ),
        # a base64 key a chat app broke onto the next line
        (
            "PrivateKey = yAnz5TF+lXXJte14tji3zlMNq+hd2rYUIgJBgB3f\nJsG7wBb2yFP8mA=\nAddress = 10.8.0.1/24",
            "JsG7wBb2yFP8mA",
        ),
    ],
)
def test_subscripts_uci_keys_url_path_keys_new_ones_short_strong_passwords_and_broken_keys_go(
    text, gone
):
    assert gone not in BUILTIN.redact(text).text


@pytest.mark.parametrize(
    "text",
    [
        "x = settings['keymap'] = 'vim'",
        "wireless.default_radio0.ssid='HomeNet'",
        "see https://docs.example.com/api/getting-started-with-the-rest-interface/",
        "the password rule: use 8+ chars like Ab1#",
        "the new one is ready",
    ],
)
def test_settings_ssids_doc_links_and_rules_stay(text):
    assert BUILTIN.redact(text).text == text


def test_a_broken_key_takes_only_its_own_rest_not_the_next_line():
    out = BUILTIN.redact("token: abcdefghij1234567890ABCDEFGH\nnext\n").text
    assert out == "token: [secret:token]\nnext\n"


def test_a_known_webhook_leaves_its_host_and_a_sentence_ending_word_alone():
    from kura_core.secrets import collecting

    hook = (
        "https://discord.com/api/webhooks/1575262237122587896/"
        "BFYCmnxuGpkoAySTDvJvkpWML-VLj9fLX3n0O_KdxggAWKEDz9yI1A0VP0DQy46HFp8f"
    )
    with collecting() as known:
        BUILTIN.redact(f"DISCORD_WEBHOOK={hook}")
    rules = BUILTIN.knowing(known)
    assert rules.redact("tags: discord. 公告").text == "tags: discord. 公告"
    assert "BFYCmnxuGpko" not in rules.redact("…/BFYCmnxuGpkoAySTD").text


@pytest.mark.parametrize(
    ("text", "gone"),
    [
        # a random value after an unknown flag's = sign, as after a space
        (
            "obsutil config -i=EMT4Q6Z8KLTFX9ZPVBFZ -k=hrMNoYf2rD0RSG7cJpluHleNYnUawzGAHgJNd11L "
            "-e=obs.cn-east-3.myhuaweicloud.com",
            "hrMNoYf2rD0R",
        ),
        # Vault's AppRole secret_id and a cloud's SecretId, UUID-shaped or random
        ("SECRET_ID=a54e8485-8ee9-4e33-bb12-cd407dbd424d", "a54e8485-8ee9"),
        ("TENCENTCLOUD_SECRET_ID=AKIDz8krbsJ5yKBZQpn74WFkmLPx3gnPhESA", "AKIDz8krbsJ5"),
        # a login's password to a short flag after the user's, whatever the tool
        (
            "mosquitto_sub -h mqtt.example.cn -p 8883 -u gw_0001 -P 'Gw1#Wo4ODFKjY!04' -t x",
            "Wo4ODFKj",
        ),
        ('sqlcmd -S db -U sa -P Yq7!kd92Lm -Q "select 1"', "Yq7!kd92"),
        # a screen's row: the label, the value, then the screen's buttons
        (
            "Production    secret    676ef0e8d2ba63a20d1081d2d355bc    Hide    Rotate",
            "676ef0e8d2ba",
        ),
    ],
)
def test_flag_values_secret_ids_login_flags_and_screen_rows_go(text, gone):
    assert gone not in BUILTIN.redact(text).text


@pytest.mark.parametrize(
    "text",
    [
        "mosquitto_sub -u gw -p 8883 -t 'gw/+/status'",  # a port, not a password
        "rsync -u -p src/ dst/",
        "mongosh -u admin -p --authenticationDatabase admin",  # asked for, not given
        "Sort key    createdAt2024    Index",
        "secret_id: ${SECRET_ID}",
    ],
)
def test_ports_prompts_sort_keys_and_references_stay(text):
    assert BUILTIN.redact(text).text == text


@pytest.mark.parametrize(
    ("text", "gone"),
    [
        ("url=jdbc:oracle:thin:MGW_APP/GCt_A18dVUhu@//db-ora01.int.example:1521/PDB", "GCt_A18d"),
        ("sqlplus scott/Tiger9xq@orcl", "Tiger9xq"),
    ],
)
def test_an_oracle_connect_string_loses_its_password(text, gone):
    assert gone not in BUILTIN.redact(text).text


@pytest.mark.parametrize(
    "text",
    [
        "SUPABASE_PUBLISHABLE_KEY=sb_publishable_Sl7jZQKilCfwAnxqlyuJCa_Wzbm8Sio",
        "npm i @scope/pkg@1.2.3",
    ],
)
def test_a_publishable_key_and_a_scoped_package_stay(text):
    assert BUILTIN.redact(text).text == text


@pytest.mark.parametrize(
    ("text", "gone"),
    [
        (
            "Rafael: Dana, a chave de aplicação nova do Datadog é "
            "b7a0f27ca4b71e7de1107cef8cda1db7b236a8f2, a antiga já foi revogada.",
            "b7a0f27ca4b7",
        ),
        ("la clave nueva de la API es b7a0f27ca4b71e7de1107cef8cda1db7b236a8f2", "b7a0f27ca4b7"),
        ("la nouvelle clé d'API est b7a0f27ca4b71e7de1107cef8cda1db7b236a8f2", "b7a0f27ca4b7"),
    ],
)
def test_a_key_given_in_portuguese_spanish_or_french_goes(text, gone):
    assert gone not in BUILTIN.redact(text).text


def test_a_commit_hash_named_in_portuguese_stays():
    text = "o hash do commit é 2cc64d76792362f76422bac7cf63b3dfcf4b8d94"
    assert BUILTIN.redact(text).text == text


@pytest.mark.parametrize(
    "text",
    [
        # where a password is kept is no password (a path, and a note in brackets after it)
        "パスワードは ~/.pgpass（コンテナでは PGPASSFILE）から読むようにしました。",
        "パスワードは ./secrets/db.txt（権限600）",
        "密码是 /etc/app/pw",
        # a checksum tool's line: the digest and the file it is of
        "a32eadb026c802e4363909673f1b42ff  exports/freee_journal_202611.csv",
        # CamelCase identifiers have no digit and read as words, not as generated text
        "use SetMaxConnectionPoolSize and XMLHttpRequestUploadHandler and kSecAttrAccessibleWhenUnlocked",
    ],
)
def test_a_path_a_checksum_line_and_camel_case_stay(text):
    assert BUILTIN.redact(text).text == text


@pytest.mark.parametrize(
    ("text", "gone"),
    [
        ("パスワードは /Xk9mQ2/vT7pL4wZ です", "Xk9mQ2"),
        ("password: ~/x8Kq2ZpL9vRt", "x8Kq2ZpL9vRt"),
        # generated output with one digit or none: its case changes as no word's do
        (
            "qshell account aoLvsPYHOz3t6j2hWX7moXPFlhX6YLLlgoDwNTMd "
            "EFoY1WZoZehgwcrgaoXepBArGDNnvkU-jVnZjiAe chaxiaoman -w",
            "EFoY1WZoZehgwcrg",
        ),
        (
            "SK 太长我分两段发：前半段 EFoY1WZoZehgwcrgaoXe 后半段 pBArGDNnvkU-jVnZjiAe。",
            "pBArGDNnvkU",
        ),
        ("旧アクセストークン、末尾が fJRvPkXDZzx= のものはもう失効させました", "fJRvPkXDZzx"),
        # a password read out letter by letter by the letters' katakana names
        (
            "・app ユーザーのパスワード：田中さんが電話で読み上げ → 小文字で ピー、エフ、エフ、ケー、"
            "数字で きゅう、ご、さん、ろく、最後にびっくりマーク\n・シリアル番号: C02XQKBXXJ0Y",
            "ピー、エフ、エフ",
        ),
    ],
)
def test_a_secret_with_a_path_shape_few_digits_or_spoken_letters_goes(text, gone):
    assert gone not in BUILTIN.redact(text).text


def test_a_webhook_parameter_name_is_no_piece_of_the_webhook():
    raw = (
        "webhook 是 https://oapi.dingtalk.com/robot/send?access_token="
        "02dae13a6da8ef907bcf5a70c601937be9ef3b592e65fffd6e06a579294e8f30 。"
    )
    with remembering():
        assert "02dae13a6da8" not in BUILTIN.redact(raw).text
        after = BUILTIN.redact("// 钉钉群机器人：secret 和 access_token 都从环境变量读")
    assert after.text == "// 钉钉群机器人：secret 和 access_token 都从环境变量读"


def test_a_piece_of_a_url_password_given_again_still_goes():
    raw = (
        "jdbc:postgresql://db.int:5432/shop?user=shop_app&password=WDdUNJ!FKQ0YW2v&sslmode=require"
    )
    with remembering():
        BUILTIN.redact(raw)
        assert "WDdUNJ" not in BUILTIN.redact("the key is WDdUNJ!FKQ0YW2v").text


def test_a_placeholders_default_taken_out_is_known_again_bare():
    raw = "spring:\n  datasource:\n    password: ${DB_PASSWORD:Acct@Fw2023!rw}\n"
    with remembering():
        assert "Acct@Fw2023" not in BUILTIN.redact(raw).text
        assert "Acct@Fw2023" not in BUILTIN.redact("the key is Acct@Fw2023!rw").text
    assert BUILTIN.redact("timeout: ${HTTP_TIMEOUT:30s}").text == "timeout: ${HTTP_TIMEOUT:30s}"


@pytest.mark.parametrize(
    ("text", "gone"),
    [
        # a digest named by the next command of a chain says nothing of this one's key
        (
            "obsutil config -i=EMT4Q6Z8KLTFX9ZPVBFZ -k=hrMNoYf2rD0RSG7cJpluHleNYnUawzGAHgJNd11L"
            " -e=obs.cn-east-3.myhuaweicloud.com && sha256sum build/gw.bin",
            "hrMNoYf2rD0",
        ),
        # the access key's id beside its secret on one command line
        (
            "obsutil config -i=EMT4Q6Z8KLTFX9ZPVBFZ -k=hrMNoYf2rD0RSG7cJpluHleNYnUawzGAHgJNd11L",
            "EMT4Q6Z8KLTF",
        ),
        (
            "  512  obsutil config -i=HPUAZUQINNESRHGFYBL1 -k=itQvAjUxZvE7nVOhgw040rlTFA7Q7fQ\n"
            "sCFfEntnM -e=obs.cn-south-1.myhuaweicloud.com",
            "HPUAZUQINNES",
        ),
        # a map SDK's security code, the secret its public key is paired with
        (
            "window._AMapSecurityConfig = {\n  securityJsCode: 'de42dfab7e7e5c92af949c9c852f7863',\n};",
            "de42dfab7e7e",
        ),
        ("SECURITY_JS_CODE=de42dfab7e7e5c92af949c9c852f7863", "de42dfab7e7e"),
    ],
)
def test_a_key_in_a_chained_command_its_pairs_id_and_a_security_code_go(text, gone):
    assert gone not in BUILTIN.redact(text).text


@pytest.mark.parametrize(
    "text",
    [
        # a digest the same command prints, and a request id on another line, stay
        "sha256sum gw.bin\n3f786850e387550fdab836ed7e6dc881de23001b  gw.bin",
        "Upload successfully, status [200], request id [B6388408C9844279F39835D25F39AB3A]",
        # a serial or a request flag beside a secret names a thing, not a login
        "curl --serial ABCD1234EFGH5678 -H 'Authorization: Bearer x'",
        "obsutil cp x obs://b --request-id=B6388408C9844279F39835D25F39AB3A",
        # a card's security code is three digits, not a key
        "security_code: 123",
        # a table's row is not one command
        "| -i=HPUAZUQINNESRHGFYBL1 | -k=itQvAjUxZvE7nVOhgw040rlTFA7Q7fQsCFfEntnM |",
    ],
)
def test_a_digest_a_request_id_a_serial_and_a_card_code_stay(text):
    out = BUILTIN.redact(text).text
    for piece in (
        "3f786850e387",
        "B6388408C984",
        "ABCD1234EFGH",
        "security_code: 123",
        "HPUAZUQINNES",
    ):
        if piece in text:
            assert piece in out, out


@pytest.mark.parametrize(
    ("text", "gone"),
    [
        # a Doppler token whole, its environment part too, inside JSON inside JSON
        (
            '{\\"name\\":\\"DOPPLER_TOKEN\\",\\"value\\":\\"dp.st.prd.T9FFbWF0FlYfbAiVjEK1EeF2BK'
            'Qm2XlUfZ9esbcnTLx\\"}',
            "dp.st.prd",
        ),
        # a Klaviyo private key passed to its client
        (
            'klaviyo = KlaviyoAPI("pk_18f8827e437e2086bafd38443d66cbe9b6", max_delay=60)',
            "18f8827e437e",
        ),
        # a password read out over the phone, letters by their names, after an arrow
        (
            "\u3000パスワード → エム、ケー、ハイフン、はるか、なな、に、ご、いち、びっくりマーク\n"
            "これは Secrets Manager に登録して",
            "はるか、なな",
        ),
        # a password read out in a meeting, with a filler and how its letters are written
        (
            "the admin user is nb-admin and the password is, um, harbour front all one word "
            "with a capital H, then twenty-two ninety-one, then an exclamation mark. Thanks.",
            "harbour front",
        ),
    ],
)
def test_a_whole_doppler_token_a_klaviyo_key_and_passwords_read_out_go(text, gone):
    assert gone not in BUILTIN.redact(text).text


@pytest.mark.parametrize(
    "text",
    [
        "stripe pk_test_51HhXyZAbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
        "The password is one of the things we need to change, all in one word.",
        "パスワード → 変更しました、ご確認ください",
        # a sender's address in a Kubernetes Secret's data, base64 only by the format
        "apiVersion: v1\ndata:\n  SENDGRID_FROM: aGVsbG9Abm9ydGhiZWFtLmNh\nkind: Secret",
    ],
)
def test_a_publishable_key_sentences_about_a_password_and_an_encoded_sender_stay(text):
    assert BUILTIN.redact(text).text == text


def _jwt(claims: dict) -> str:
    body = base64.urlsafe_b64encode(json.dumps(claims).encode()).decode().rstrip("=")
    return f"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.{body}.3G62aTaXbQyZ0123456789abcdefABCDEF"


def test_a_supabase_anon_key_stays_and_its_service_role_key_goes():
    anon = _jwt({"iss": "supabase", "ref": "csfcyiokklib", "role": "anon"})
    service = _jwt({"iss": "supabase", "ref": "csfcyiokklib", "role": "service_role"})
    shipped = f"createClient(url, '{anon}')"
    assert BUILTIN.redact(shipped).text == shipped
    assert service not in BUILTIN.redact(f"createClient(url, '{service}')").text


@pytest.mark.parametrize(
    ("text", "gone"),
    [
        # a password spelled in the radio alphabet on a call, no password word: "spell it"
        (
            "Right, break-glass for jump-01, I'll spell it, ready?\n[10:42] C: lowercase sierra, "
            "two, capital X-ray, lowercase lima, dash, lowercase juliett, zero, capital Hotel, "
            "lowercase tango. That's the lot.",
            "sierra, two",
        ),
        # dictated in hiragana digit words and full-width letters, 数字で said in kana
        (
            "パスワードを電話で教えてもらった：小文字で\u3000ｓａｋｕｒａ、ハイフン、すうじで\u3000"
            "きゅう・に・さん・よん、さいごに大文字で\u3000ＢＢ。",
            "ｓａｋｕｒａ",
        ),
        # 幺 for one in a Chinese dictation
        ("临时口令：二四七九 四幺二五，然后一个杠，大写的 R、P，今晚有效", "四幺二五"),
        # OCR of a login screen: the label's characters set apart
        ("用户名   ops_liyang\n\n密 码 ：  KOI@rbCXrQ4L\n\nMFA 验证码", "KOI@rbCXrQ4L"),
        # a key's id given as the positional argument before its secret
        (
            "qshell account lCx3rhkJcJJMyexhuC_eJB2kEO10r_BgtE9XGuNJ "
            "LLQ3QP4G9jNSb-0tTqkwAL5sfQZiZLFHopeqgMXJ cdn-account -w",
            "lCx3rhkJcJJMyexhuC",
        ),
        # the beginning of a rotated key, given to tell it apart
        ("七牛的 SK 上周已经轮换过，旧的开头是 lxJDbOjdD7oC，已经禁用了", "lxJDbOjdD7oC"),
        ("the old token starts with Xy7Kq2Lm9PzR, revoke it", "Xy7Kq2Lm9PzR"),
        # Agora's App Certificate: a secret, whatever its name says
        (
            "> App ID: 1a6de49642325c8882f9f3d5ed7ec4f3\n> Primary App Certificate: "
            "c52502d0d68816d25501b11219729a6a",
            "c52502d0d688",
        ),
    ],
)
def test_spelled_passwords_an_ocr_label_a_positional_pair_and_a_keys_piece_go(text, gone):
    assert gone not in BUILTIN.redact(text).text


@pytest.mark.parametrize(
    "text",
    [
        "Delta, Hotel, Mike, Victor, Echo and Golf are the team names for the offsite.",
        "The commit starts with 3f9a2b1c4d5e, the release begins with v2Beta3Release.",
        "> App ID: 1a6de49642325c8882f9f3d5ed7ec4f3",
        "rsync -av build/ deploy@web-01:/srv/app/releases/2026-12-07T0930Z",
        "店 铺 名 称 ：  SakuraMart Tokyo 2号店",
        "cp report-2026-11-final.csv backup-2026-11-final-v2.csv",
    ],
)
def test_team_names_a_commits_start_an_app_id_and_argument_pairs_stay(text):
    assert BUILTIN.redact(text).text == text


@pytest.mark.parametrize(
    ("text", "gone"),
    [
        # a piece told after a line that names the key, "the one I revoked" saying which
        (
            "DBT_CLOUD_SERVICE_TOKEN=dbtc_nU3gsYCX54QwF6XvKWf_baXPr9ajdVH0kv76yr01jP8\n\n"
            "(this is the new one — the one I revoked in October ended in pxIwD8LIWW)",
            "pxIwD8LIWW",
        ),
        (
            "Backlogのキーは作り直しました。古いやつは消して、新しいのは末尾が iSGsaBa2vSv2 のやつ。",
            "iSGsaBa2vSv2",
        ),
        # katakana words, a hyphen, digits and a mark said one by one after a password word
        (
            "管理者パスワード、電話で聞いたので書いておきます。ブルー、タイガー、ハイフン、フォー、ゼロ、ゼロ、"
            "エクスクラメーション。",
            "タイガー、ハイフン",
        ),
        # a secret in one case and digits, in the sentence that names it
        (
            "the Meituan appSecret for the sandbox app (app_id 108527) is "
            "9ggyoqsbpblnmmhp1614jeozo7dos8uy. Production secret is unchanged.",
            "9ggyoqsbpbln",
        ),
        # a 32-hex token copied from paper in four groups of eight
        (
            "Chatworkのトークンは紙の資料にあったのを打ちます：975c6d3c 3a58fda8 95d919ce 6f1068b1",
            "95d919ce",
        ),
        # a credential made by a call from two literals
        (
            "credential = Credential('JDC_4A5FF782D7A6C0CF67F11FCAF9EB', "
            "'C7868B156740DE59884D514566EC8A9D')",
            "C7868B156740",
        ),
        # a one-time code read out on the line after the one that names it
        (
            "客服：验证码已经发到您的手机了，麻烦您读一下。\n陈宇：好的，一一三，二一一。",
            "一一三，二一一",
        ),
    ],
)
def test_pieces_katakana_words_one_case_keys_groups_calls_and_read_codes_go(text, gone):
    assert gone not in BUILTIN.redact(text).text


@pytest.mark.parametrize(
    "text",
    [
        "The build number is new and the release ended in v2Beta3Release",
        "パスワードの件、ブルー、レッド、グリーン、イエロー、ホワイトの5色で分けます。",
        "commits 975c6d3c 3a58fda8 95d919ce 6f1068b1 were reverted",
        "auth = oss2.Auth('my_access_key_id', 'my_access_key_secret')",
        "验证码的事明天再说。\n订单号 2026 1105 发货了。",
        "# Web端(JS API)：前端公开，不是秘密\namap.js.key=808580d86b095010cdd79c26b91d10c9",
        "Graph app: tenant cb21d30b-8679-44bd-93db-0ce35859c89c, the client secret is in Key Vault.",
    ],
)
def test_a_release_name_colours_commits_placeholders_a_public_key_and_a_tenant_stay(text):
    assert BUILTIN.redact(text).text == text


def test_a_key_a_comment_says_never_to_make_public_still_goes():
    out = BUILTIN.redact("# never make this public\nAPI_KEY=808580d86b095010cdd79c26b91d10c9").text
    assert "808580d86b09" not in out


def test_a_password_read_out_then_typed_by_the_agent_is_known_again():
    from kura_core.secrets import read_out_value

    said = "maple, all caps, then the number four eight nine, then an exclamation mark, then harbour, all lower case, okay"
    assert read_out_value(said) == "MAPLE489!harbour"
    with remembering():
        BUILTIN.redact(f"Priya: the password is {said}?")
        typed = BUILTIN.redact("az keyvault secret set -n gw --value 'MAPLE489!harbour'").text
    assert "MAPLE489" not in typed and "harbour" not in typed


def test_a_keys_id_in_the_row_above_its_secret_and_an_ocr_dashed_key_go():
    table = (
        "| API Key    | 2XKOLZPX2QV3G64I |\n"
        "| API Secret | TETBl1rX+mku7EmArBaFgzY5N2BnXdtu1Ovm5sZWKdL9EF0hyQMrDd2mYxQ3xZ8p |"
    )
    assert "2XKOLZPX2QV3G64I" not in BUILTIN.redact(table).text
    ocr = "Public Key\nhmrkdwqe\n\nPrivate Key\n5d0214c6–2e8b -4118-a8da-628230869bb0  Copy"
    out = BUILTIN.redact(ocr).text
    assert "628230869bb0" not in out and "5d0214c6" not in out


@pytest.mark.parametrize(
    "text",
    [
        "| API Key | ABCDEF1234567890XY |\n| Owner | sa-ingest |",
        "The 2019–2024 plan, pages 12–14 — see the well-known doc.",
    ],
)
def test_an_id_row_with_no_secret_beside_it_and_dashes_in_prose_stay(text):
    assert BUILTIN.redact(text).text == text


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (  # a password read out with "as in" words, "double" and English joins
            "Label Studio admin password, I'll just read it out. It's capital B as in bravo, "
            "lower-case s, a, double f, then the number six, exclamation mark, capital K as in "
            "kilo, lower-case a, c, then double five, and a capital H as in hotel at the end.",
            "bravo, lower-case s",
        ),
        (  # ローマ字 letters with hyphens between them, kana digits
            "管理画面のパスワード、電話で聞いたのを書きます。大文字のエム、小文字で i-n-a-t-o、"
            "アンダーバー、大文字のエイチ、小文字で i-k-a、数字で さん・ろく・に、最後にびっくりマーク。",
            "i-n-a-t-o",
        ),
        (  # a code read in Chinese numerals after its sentence's colon
            "后台登录要短信验证码，我手机刚收到：九七三，七七九。五分钟内有效",
            "九七三，七七九",
        ),
        (  # a password written part by part, a hint in brackets after each
            "新的运维后台密码我定好了，按拼音写给你：He（河流的河，大写H）yue（月）lin（林）"
            "@（艾特）8463（八四六三）shan（山水的山，全小写）。",
            "yue（月）",
        ),
        ("sentinel monitor m1 10.0.0.2 6379 2\nsentinel auth-pass m1 oCl0k#73PZ7GJm\n", "oCl0k#73"),
        ('"SecretString": "{\\"client_secret\\":\\"J2qvun0ccw\\",\\"x\\":1}"', "J2qvun0ccw"),
        (  # a Vault unseal share: padded base64 of random bytes, cut short by + and /
            "Unseal needs 2 of the 3 shares. Mine is `bzrhPa5JUOgVyc1+EvsHhKSoT/CeShfdh/0zqsMl0Ys=`.",
            "bzrhPa5JUOgVyc1",
        ),
        ("the old token (the one ending in `Dvz_JFIrkb`) is revoked.", "Dvz_JFIrkb"),
        (
            "高德的 Web 服务 key 也换了。旧 key 已经在控制台禁用（尾号 d94e855a02），新 key 已配好",
            "d94e855a02",
        ),
        (
            "the staging DB password came up in the Meet: it's capital U, lowercase g, hash, "
            "seven five, at sign, galah, all lowercase, then seven five same again.",
            "galah",
        ),
        (
            "管理アプリのパスワード、読み上げてくれたのをメモしました。\n"
            "大きいエイチ、小さいエヌ、ハイフン、ロク、サン、ロク、小さいケー、大きいエイチ、小さいシー、ビックリマーク\n",
            "大きいエイチ、小さいエヌ",
        ),
        (
            "検証DBのパスワード、2回に分けて送ります。\n佐藤 11:42\n前半 5p5TVKT\n佐藤 11:42\n後半 p9DA+pm\n",
            "p9DA+pm",
        ),
        ("tencent:\n  key: 2LA13-AFQ77-V6E01-VVXD2-W7I39-2HMR5\n", "2LA13-AFQ77"),
    ],
)
def test_dictated_hinted_and_short_named_secrets_are_taken_out(text, value):
    assert value not in BUILTIN.redact(text).text


def test_what_a_dictation_or_a_code_spells_is_remembered_for_its_typed_form():
    from kura_core.secrets import spelled_value

    assert spelled_value(
        "capital B as in bravo, lower-case s, a, double f, then the number six"
    ) == ("Bsaff6")
    with remembering():
        BUILTIN.redact("短信验证码，我手机刚收到：九七三，七七九。")
        typed = BUILTIN.redact('curl -d \'{"smsCode":"973779"}\'').text
    assert "973779" not in typed


def test_a_key_given_in_two_bits_before_it_is_written_whole_goes_everywhere_in_the_read():
    from kura_core.secrets import told_before

    texts = [
        "New write token, in two bits because Teams chopped it: `hf_JhEwAKzRYXwHXUqj` and "
        "`ZHJELmORgxMyhkuZGT`.",
        "modal secret create s HF_TOKEN=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",
    ]
    with remembering() as seen:
        shown = [BUILTIN.redact(t).text for t in texts]
    assert "JhEwAKzRYXwHXUqj" in shown[0]  # the read had not seen the whole key yet
    again = told_before(shown, seen)
    assert again[0] is not None and "JhEwAKzRYXwHXUqj" not in again[0]
    assert "ZHJELmORgxMyhkuZGT" not in again[0]
    assert again[1] is None  # already redacted


@pytest.mark.parametrize(
    "text",
    [
        # an id column of a drawn table, a plain name in a Secret's data, an anon JWT
        "┃ App ID                    ┃ State    ┃\n│ ap-1fARTcxlWtRA6BReszZSLt │ deployed │",
        "apiVersion: v1\ndata:\n  PINECONE_INDEX: ZG9jcWEtcHJvZA==\nkind: Secret",
        "NEXT_PUBLIC_SUPABASE_ANON_KEY=eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFz"
        "ZSIsInJlZiI6Imh1Y3lrbW5yaHR2ZWptcnp3ZG9tIiwicm9sZSI6ImFub24iLCJpYXQiOjE3NjcxMDQ1MjIs"
        "ImV4cCI6MjA4MjY4MDUyMn0.VzwKzUraoCOfeICzTH-Q17LyNWDOp0Qo4wEqX8aS0UQ",
        # a label line under a 64-character id is no wrapped token's tail
        "Client ID\n1154a4e01620040c3a25e5c756dc4026fb4e5c0acd8ea61d3130134dcc524dc4\nClient Name\nfoo",
        "验证码格式：6位数字",
        "The password policy: f(x) (see a) b(c) d(e)",
        "secret_name: prodkey123",
    ],
)
def test_ids_names_and_public_tokens_near_secrets_stay(text):
    assert BUILTIN.redact(text).text == text


def test_a_secret_s_neighbours_still_go_beside_an_anon_token_and_a_name():
    service = (
        "SUPABASE_SERVICE_ROLE_KEY=eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZSIs"
        "InJvbGUiOiJzZXJ2aWNlX3JvbGUifQ.abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG"
    )
    assert "abcdefghijklmnop" not in BUILTIN.redact(service).text
    k8s = "apiVersion: v1\ndata:\n  ADMIN: aHVudGVyMg==\nkind: Secret"
    assert "aHVudGVyMg==" not in BUILTIN.redact(k8s).text


@pytest.mark.parametrize(
    "text",
    [
        # a ConfigMap before a Secret in one YAML stream keeps its data in the clear
        'kind: ConfigMap\ndata:\n  WXPAY_MCHID: "1607088959"\n---\nkind: Secret\ndata:\n  K: Zm9vYmFy\n',
        "PUBLIC_ALGOLIA_SEARCH_KEY=9bf4e0387684edb28d3bf69e7c8fec76",
        "Search API Key\n9bf4e0387684edb28d3bf69e7c8fec76             Copy",
        "内見用スマートロック（シリアル 7H3V-XL3R-2414）の管理アプリのパスワードを聞きました。",
        "The key fingerprint is SHA256:bzrhPa5JUOgVyc1+EvsHhKSoT/CeShfdh/0zqsMl0Ys=",
        "the commit ending in a3f9c21b is deployed",
        "試合の前半 2-1 で後半 3-1。",
        "serial: 7H3V-XL3R-2414",
    ],
)
def test_ids_search_keys_and_a_config_map_beside_secrets_stay(text):
    kept = BUILTIN.redact(text).text
    assert "1607088959" in kept if "MCHID" in text else kept == text


def test_an_app_key_given_beside_its_app_secret_is_the_public_half():
    said = "融云的 App Key 是 dqlqsmf67pjxeu（客户端里本来就有）；App Secret：“73kE dMe3 3zWx”，别外传。"
    out = BUILTIN.redact(said).text
    assert "dqlqsmf67pjxeu" in out and "73kE dMe3 3zWx" not in out
    admin = "ALGOLIA_ADMIN_KEY=1bf4e0387684edb28d3bf69e7c8fec76"
    assert "1bf4e0387684" not in BUILTIN.redact(admin).text


@pytest.mark.parametrize(
    ("text", "value"),
    [
        # a piece of a rotated key told with 末尾 and a blank, and "ends in" under a thread
        # that showed the new key
        ("Web ショップの PAY.JP、旧キー、末尾 f8f1f3a7f8 のやつは昨日ロールした", "f8f1f3a7f8"),
        (
            "here it is:\nwhsec_Q9x7LmT2vR4pK8nZ3cY6bW1dF5gH0jA\nDev  9:16 AM\n"
            "the old one (ends in itNS22HgED) stays valid for 24h",
            "itNS22HgED",
        ),
        # an authenticator's setup key in base32 groups of one case under キー:
        ("手動で入力してください。\nキー: 2cqo bbb4 pzo7 mjz5 grfl pacy ykny ioyz\n", "2cqo bbb4"),
        # a key's bytes in a Go byte slice, over lines a viewer numbered
        (
            "     9|var drawSignKey = []byte{\n    10|\t0x6e, 0x50, 0x37, 0x78, 0x2d, 0x44,"
            " 0x6f, 0x74,\n    11|\t0x6f, 0x6e, 0x62, 0x6f, 0x72, 0x69, 0x2d, 0x6b,\n    13|}\n",
            "0x6f, 0x6e, 0x62",
        ),
        # a note in brackets between a key's name and its value
        (
            'API key (send it as "Authorization: App <key>"): '
            "9070f9fb63f2f65e41f494e02d2202f5-a7fbfc32-7533-4dad-ad1f-1714388dc741\n",
            "9070f9fb63f2f65e41f494e02d2202f5",
        ),
        # Cantonese dictation: 大楷/细楷 for the case, 井字 for #
        (
            "个新密码係，大楷 H，细楷 k，三，七，井字，大楷 W，细楷 q，零，二，细楷 z，感叹号。",
            "细楷 k，三，七",
        ),
        # a key folded over numbered lines of a properties file with backslashes
        (
            "7. antom.merchant-private-key=MIIEvAIBADANBgkqhkiG9w0BAQEFAASCBKYwggSiAgEAAoIBAQ\\\n"
            "8.     nSYTf4zGp/cV3llPzrjkToNtRFterir9TK/GuS5JSgcirADPlsVz+7g2tLSHYbST\\\n"
            "9.     5oVmCLzFVPISt0jLsFvkhMjZl9m91AQGU7E5AHgBn/Apfvs28v7JBfEO3/TpedWv\n",
            "5oVmCLzFVPISt0jLsFvkhMjZl9m91AQGU7E5",
        ),
    ],
)
def test_pieces_setup_keys_byte_slices_noted_labels_and_folded_keys_go(text, value):
    assert value not in BUILTIN.redact(text).text


@pytest.mark.parametrize(
    "text",
    [
        # a path to a key file is no key, from a variable's folder too
        "kubectl create secret generic app --from-file=github_app_private_key="
        "$HOME/Downloads/ledgerline-arc.2026-11-17.private-key.pem --dry-run=client",
        # 末尾 before a word, groups of words, a byte slice of a checksum table
        "ファイルの末尾 に改行を入れて",
        "キー: this that what when then into over some",
        "var crcTable = []byte{\n\t0x00, 0x07, 0x0e, 0x09, 0x1c, 0x1b, 0x12, 0x15,\n}",
    ],
)
def test_paths_words_and_tables_beside_those_forms_stay(text):
    assert BUILTIN.redact(text).text == text


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('douyin_pay:\n  salt: "q8Zr2LxP7mW4nV9tK3bY6cH1"\n', "q8Zr2LxP7mW4nV9tK3bY6cH1"),
        (
            'pepper_hex = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"\n',
            "9f86d081884c7d659a2feaa0c55ad015",
        ),
    ],
)
def test_a_signing_salt_and_a_hash_pepper_go(text, value):
    assert value not in BUILTIN.redact(text).text


@pytest.mark.parametrize(
    "text",
    [
        "salt_rounds: 10\nsalt: 12\npepper: spicy\n",
        # jwt.io's sample token, which every tutorial prints
        "Authorization: Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwib"
        "mFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSFfT4fwpMeJf36POk6yJV_adQssw5c",
    ],
)
def test_a_bcrypt_cost_a_spice_and_the_documented_sample_token_stay(text):
    assert BUILTIN.redact(text).text == text


@pytest.mark.parametrize(
    ("text", "gone"),
    [
        # a passphrase dictated with whole words between its spoken characters
        (
            "the portal password: she read it over the phone, it's wattle, capital Q, four one six, hash, "
            "bandicoot. Shared login.",
            ["wattle", "bandicoot", "capital Q"],
        ),
        # hiragana letter names: わい・ゆー, あと between the parts
        (
            "ルーターのパスワード、小文字で えむ・おー・えぬ・けー、ハイフン、にー、ご、"
            "いち、大文字のジー。",
            ["えむ・おー", "大文字のジー"],
        ),
        # a token set apart under the mail's sentence that introduces it
        (
            "Your workspace is ready. Use the API token below with the SDK; keep it private.\n"
            "\n    3f9c2e7a1b8d4f6e0a5c9b2d7e1f4a8c6b3d9e2f\n\nThanks,",
            ["3f9c2e7a1b8d4f6e0a5c9b2d"],
        ),
        # the second half of a key named in an earlier message
        ("後半は Qm7RtZ2vXk9LpW4sNa8Y 。これで全部。", ["Qm7RtZ2vXk9LpW4sNa8Y"]),
    ],
)
def test_dictated_words_hiragana_names_an_introduced_token_and_a_second_half_go(text, gone):
    shown = BUILTIN.redact(text).text
    for piece in gone:
        assert piece not in shown, shown


@pytest.mark.parametrize(
    "text",
    [
        # a configuration's line under its own key, below a token's line
        "LINE_CHANNEL_ACCESS_TOKEN: abc\nLINE_DRIVER_GROUP: U14c434df91ca462a074c84dbc1fd7214",
        # the commit a sentence about a token points at
        "See the commit below that fixed the token refresh:\n\n    8cc9af0d162180efb518b48d7bf64f2b17091484",
        # a word with a digit after 後半は
        "試合の後半は Kubernetes2 の話",
        # a test name set apart under a sentence about a token
        "The token refresh bug is described below.\n\n   test_refresh_token_expired_2",
    ],
)
def test_a_keyed_line_a_commit_a_word_and_a_test_name_stay(text):
    assert BUILTIN.redact(text).text == text


@pytest.mark.parametrize(
    ("text", "gone"),
    [
        # a key as a URL path's parameter
        (
            "Error transferring https://data.example.govt.nz/services;key=4f2a9c81d7e05b36a1c4e8f2"
            "9b7d3a60/wmts/1.0.0/WMTSCapabilities.xml",
            "4f2a9c81d7e05b36a1c4e8f29b7d3a60",
        ),
        # an SDK set up with its token as the first argument
        (
            "    rollbar.init('7c1e9a40b2d85f36e0a4c9b17d2f8e53', environment='production')",
            "7c1e9a40b2d85f36e0a4c9b17d2f8e53",
        ),
        # a password typed into a login form by a browser script
        ("  await page.fill('#login-password', 'Tq8$mvZ2rKw');", "Tq8$mvZ2rKw"),
        # a password given before a dialect's copula (やった)
        ("サイトのパスワードは管理画面で確認したら h7tq2wxz やったわ。", "h7tq2wxz"),
        # letters spelled with hyphens, no case said, in a dictation
        (
            "the SFTP password, she read it out: capital K, o-w-h-a-i, dash, capital R, "
            "a-n-g-i, dash, six one four seven, exclamation mark.",
            "o-w-h-a-i",
        ),
        # the second bit of a secret sent in bits, no digit in it
        (
            "Hemi sent the API secret in two bits. First bit is `Kc7ukjo8KyA4P` and the second bit is `FRwEbndTDMEd`.",
            "FRwEbndTDMEd",
        ),
    ],
)
def test_path_parameters_sdk_setup_form_fills_dialect_copulas_and_spelled_letters_go(text, gone):
    assert gone not in BUILTIN.redact(text).text


@pytest.mark.parametrize(
    "text",
    [
        # the docs' stand-in key, named so
        "  # the docs use this sample key: get_your_own_OpIi9ZULNHzrESv6T2vL",
        # git log's hash and subject after a line that names a password
        "1920f2cb38d1aadc9407b9d9dd619e563b651781 B2: read password from env",
        # where a service is: a domain under an auth key name
        "portal/.env still had AUTH0_DOMAIN=gwrc.au.auth0.com.",
        # where a value is read from, and a variable's name in prose
        "page.fill('#password', process.env.B2_PASSWORD)",
        "B2クラウドのログインは環境変数 B2_PASSWORD から",
        # an SDK set up with an app's name, no token
        "app.init('my-application-name-here-long')",
    ],
)
def test_doc_stand_ins_commit_subjects_domains_and_variable_names_stay(text):
    assert BUILTIN.redact(text).text == text


@pytest.mark.parametrize(
    ("text", "gone"),
    [
        # a credential field of a PHP-serialized job inside a JSON string (a failed_jobs row)
        (
            '"command":"O:28:\\"App\\\\Jobs\\\\SendSms\\":2:{s:10:\\"accountSid\\";s:5:\\"AC123\\";'
            's:9:\\"authToken\\";s:32:\\"f029089cd7dc6a4c4fdb4d8e9c59b030\\";}"',
            "f029089cd7dc6a4c4fdb4d8e9c59b030",
        ),
        # a psql table's token column, under the rule psql draws below its header
        (
            " id | provider  |      api_token                   | updated_at\n"
            "----+-----------+----------------------------------+-----------\n"
            "  2 | basespace | 1a0a12dfdc3d4d3908f95f6f4d8c1d29 | 2025-09-02\n(1 row)",
            "1a0a12dfdc3d4d3908f95f6f4d8c1d29",
        ),
        # a short key under a name that says key, in a .properties file
        ("kuaidi100.customer=BCB2026\nkuaidi100.key=rUeUOZLl1130", "rUeUOZLl1130"),
        # a password dictated in Chinese with the phone digits (拐 7, 幺 1) and the case after
        (
            "打印机的网页管理密码换掉了，我念给你：大写的 Z，后面 ebra 全小写，然后 拐幺九拐，"
            "再一个下划线，最后 nj 两个小写字母。",
            "ebra",
        ),
        # a dictation that opens right after a kana particle (ローマ字の小文字で …)
        (
            "券売機のパスワードが変わったんよ。ローマ字の小文字で iyonada、アンダーバー、"
            "数字で ろく・に・きゅう・いち、最後に大文字のケー。",
            "iyonada",
        ),
    ],
)
def test_serialized_fields_psql_columns_short_named_keys_and_dictations_go(text, gone):
    assert gone not in BUILTIN.redact(text).text


@pytest.mark.parametrize(
    "text",
    [
        # names that say key over values that are words, not keys
        "cache.key=MyCacheKey2024",
        "i18n.key=HomePageTitle",
        # a PHP-serialized field that is no credential
        's:7:"subject";s:12:"Cancellation"',
        # 两个 and 拐弯 in prose beside a password word
        "密码那边两个人都知道，拐弯就到机房。",
    ],
)
def test_word_values_under_key_names_and_prose_digits_stay(text):
    assert BUILTIN.redact(text).text == text


def test_a_public_key_printed_after_its_private_key_stays():
    """An OpenSSH ed25519 private key's file holds its public key: the public line that
    ssh-keygen -y prints after it shares runs with the private block and stays whole."""
    from kura_core.secrets import collecting, using_rules

    private = (
        "-----BEGIN OPENSSH PRIVATE KEY-----\n"
        "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
        "QyNTUxOQAAACCMhN1O2RAwm05kzmU10JJh6B+yZbX8HYflTLLqpkfeJQAAAKAPQdt9D0Hb\n"
        "AAAEDA1RhTj9gzOSEaLun2k4YQ0K837oRGhg+W+ZtwqDwW8oyE3U7ZEDCbTmTOZTXQkmHo\n"
        "H7Jltfwdh+VMsuqmR94lAAAAGHJvYm90QGxpbmRxdmlzdC10cmFuc2ZlcgECAwQF\n"
        "-----END OPENSSH PRIVATE KEY-----"
    )
    public = (
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIIyE3U7ZEDCbTmTOZTXQkmHoH7Jltfwdh+VMsuqmR94l "
        "robot@transfer"
    )
    with using_rules(BUILTIN), collecting():
        assert "b3BlbnNzaC1rZXktdjEAAAAABG5v" not in BUILTIN.redact(private).text
        assert BUILTIN.redact(public).text == public
