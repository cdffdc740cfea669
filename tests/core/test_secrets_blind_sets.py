"""Blind secrets corpora: fake secrets, look-alikes and private spans written from the SPEC
alone by someone who had not read ``kura_core/secrets.py``
(``tests/fixtures/blind/<corpus>/ORIGIN.md``), run through the doors a person and a model
see -- ``kura journal inspect`` and ``kura gate --json`` -- by
``scripts/measure_secrets.py``, the script that measured them."""

from __future__ import annotations

import contextlib
import io
import subprocess
from pathlib import Path

import pytest

from tests.scripts import script

ROOT = Path(__file__).resolve().parents[2]
CORPORA = ROOT / "tests" / "fixtures" / "blind"

measure_secrets = script("measure_secrets")

#: Look-alikes kura redacts although the corpus counts them harmless, with why.
STILL_REDACTED: dict[str, dict[str, str]] = {
    "secrets-BB": {},
    "secrets-BA": {
        "sk_test_c62fade9d045b54cd76d7036": "a test-mode secret key in the shape every live "
        "one has (sk_test_ + 24 hex); that the provider's docs print it is a fact kura cannot "
        "see (the allow-list is how a user says so)",
    },
    "secrets-AZ": {},
    "secrets-AY": {},
    "secrets-AX": {
        "a84041000181c2f7": "measured blind, not yet analysed",
        "awq7k2m9x4c8v1b3": "measured blind, not yet analysed",
    },
    "secrets-AW": {},
    "secrets-C": {},
    "secrets-D": {
        "482913": "a one-time code kura redacts whether or not it was used: the corpus "
        "decided an SMS code is no secret once spent, and the sentence does not tell",
    },
    "secrets-F": {
        "405096": "a one-time code kura redacts whether or not it was used (see secrets-D)",
    },
    "secrets-G": {
        "短信验证码 482913 已经用过了": "a one-time code kura redacts whether or not it was "
        "used (see secrets-D)",
    },
    "secrets-H": {},
    "secrets-I": {
        "AIzay30W9_7Qj6HjXupmAEdspFFcxt4fVJ8SKKq": "a Google API key (AIza…) is redacted even "
        "where the person calls it a public Firebase web key: the form bills whoever holds it",
    },
    "secrets-J": {
        "AIzaqsxxEpT_cGWc1GhgXHFJJpCZT5D5vpsLCBF": "a Google API key the person calls public "
        "(see secrets-I)",
    },
    "secrets-K": {},
    "secrets-L": {
        "AIzaSyj5sCNoQIlxyTyd_zkU7fznR6lCOclGy69": "a Google API key the person calls public "
        "(see secrets-I)",
    },
    "secrets-M": {
        "AIzaexlpE5vG0Nl39_-_HM-upDJX0pVZEDUEmVX": "a Google API key the person calls public "
        "(see secrets-I)",
    },
    "secrets-N": {
        "AIzaSylxz8ha2P1MSrIQkM5olbFEGtT7jLxFw4V": "a Google API key the person calls public "
        "(see secrets-I)",
    },
    "secrets-O": {},
    "secrets-P": {},
    "secrets-Q": {},
    "secrets-R": {},
    "secrets-U": {},
    "secrets-AA": {
        "-----BEGIN PUBLIC KEY-----\\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAua/XCXX3dWwYw0G9zxlG\\n"
        "IeUIRuWq65THQ9kc/tpTWA32Vc99zNRw69fhoecj8fWF5NbwgCpeTbvGM0Z8R0uf\\n"
        "46KPKKrWz0T+4n1v45YlxXIUXXapYLlHDHHXRVAqUyRCnS/drs5/8IYNR5zRY7lr\\n"
        "RnDIlxBjnMi47CiH7FwGeJ9aGvpaNQU9M932sSKBoHYANmeOIetO9CkL6Q6YxFKV\\n"
        "imR1D37VzsvZlyviFS1p4AlLkwSW698Yf/SHXhUWZ3TkojAO2uT/ewLApduBWl/n\\n"
        "KddUN++7W0WdmqoVriWNy9jtghMWrRycyAm/Cm83F5L/820RC726+YnRaXZ1b/zs\\n"
        "swIDAQAB\\n-----END PUBLIC KEY-----\\n": "measured blind, not yet analysed: a public "
        "key printed after a private one in the same tool output, taken out with it",
    },
    "secrets-AB": {
        "eyJldmVudCI6ImRlbGl2ZXJlZCIsImVtYWlsIjoic3R1ZGVudEBleGFtcGxlLmNvbSIsInRlbXBsYXRlIjoiY291"
        "cnNlX3JlbWluZGVyIiwidHMiOjE3NjM0NTYwMDB9": "measured blind, not yet analysed: base64 of "
        "an ordinary JSON callback payload, redacted",
    },
    "secrets-E": {
        "SKc8b9384f6982af1f6e6f2285c6137166": "a Twilio API key's SID (SK and 32 hex digits) "
        "is redacted: the public rule sets of the field treat the form as a key",
    },
    "secrets-AC": {},
    "secrets-AH": {},
    "secrets-AI": {
        "f8af78aab2ddb6b19dbd968c735fb5ab": "a value a later text of the read took out is taken out wherever the read gives it, before too (a key given in two bits, then written whole); a later sentence that rotates the SecretKey takes the BusinessId beside it for one",
        "https://xxxxx.webhook.office.com/webhookb2/xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx@xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx/IncomingWebhook/xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx/xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx": "a value a later text of the read took out is taken out wherever the read gives it, before too (a key given in two bits, then written whole); the placeholder shares the real webhook's path words (IncomingWebhook), taken as a piece of it",
    },
    "secrets-AJ": {},
    "secrets-AG": {
        "Am-VrVPBGnQhPmyMWiFx8nMYkr4NJSDrssD8CcGNpTW8q7nLv4mhHiDJ7bP1esCnApq1G0KmhDhed5r_": "measured "
        "blind, not yet analysed: a PayPal client id on the line under its OCR'd label, redacted",
    },
    "secrets-AF": {},
    "secrets-AE": {
        "ccaec814df266be40a8ec1e9b44d04ed348765eb871943a1c3febcb24f6d3804": "Gemini CLI's "
        "projectHash stands only in the session file's header, which no record shows",
        "6LehtPi3EPcGU-2id30Xbx5WnRkGWkKU3Gua5JGw": "a value a later text of the read took out "
        "is taken out wherever the read gives it, before too; a later define() of the site key "
        "beside its secret key takes the public one too",
    },
    "secrets-AD": {
        "b2c150cf945fea4bb5e56e9fe07a6cff160787ca": "measured blind, not yet analysed: a commit hash in the "
        "session's header, redacted",
        "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAw+HhU9P97mMcd6FT9qI+q+VKpyTR0AjMVF1DKcJ2HyRRcXdOIo9aAdlHYdz1UlhL3mrzx0mvep4TnkIBXgD33pL1w7CHUDAm+ihlE8kSuYgH96HFsKOG59cJIJWXqshl70kiRmYVvdha3LY5uPExs6Yw7Ac5Gb3O/EMmi1+MvLnNkDobndl3dQ+v86EjU5iDOwVRP8GzgsMA3Rxl28gH+7bhbt6UtV1TJ6JLJ45RbXzl325X7i4Fym95Z6W8bwuVuCgrneO/2evEA3No92NkHpBMuHF0B8fcal5teKYvk03FiYIUWju7rye9avxIQYIuIvbtyWgNG3SiQksOF98rzgIDAQAB": "measured blind, not yet analysed: a public key printed beside a "
        "private one, redacted",
    },
    "secrets-AK": {},
    "secrets-AL": {
        "6ad1f03385b5324ced5ca33d": "measured blind, not yet analysed",
    },
    "secrets-AM": {
        "arn:aws:secretsmanager:ap-northeast-1:381492270615:secret:prod/line/token-0sJNQ5": "measured blind, not yet analysed",
        "iVBORw0KGgoAAAANSUhEUgAAABgAAAAYCAIAAABvFaqvAAAG40lEQVR42gHYBif5AAOT76XXEHF/kCUMjs0km3NPGDxBahMh+Gsh1xpjegBmHM5ybAAFoFyHJLAkhk5x556ai5YvPz6GzbY/jeBnwRk0HC9uosAcLABJbtThPMwLgXLL3g4vO0/1bejVGCnfQLsyNa/vCOEN00IWc8q+v+60gRkR0b61PAaJ/V4VoK15IG4Tak7NKgV8V6vXnC5SfvoAYtVNREcLzgitQyKocjDJBfG8OtFMMkN7wTmKNTPOPdF81gZ+DE1G/jJNssKXYa3rDn3GItMzlwqzRKf73tiM7vhU3ET02dS2ABQBJ5bN3IHpTx/xrBom8Kd8KdYeT75QZF7/IGjwQWougIw4xEt4Byn/VUhv88KrKIHihIv07uZF8w/n6Z1zr2PInLHpEyQB3AA8Y7hxBt/t3r4ZNyA+FYzIN4aMmwadwOs/8oRTZiH7tyHgkwfONSO+Z6C7Kf8V1ANNXVCWUFsm5SL9xPLMXAIH7b3WtfVk2a0Aj4wUak40FMciATTfVTRxPIrc49SfUWP/RY55au3pH7RXjTsOgYsQKxoMxygk4C1pj6hvXEqZd71wpcY4W9kezC2uVPS+TZ73AIzkUTtvB+M/Qd1e/zObSrTRmB0YMSiDtlSHJN87xMAusxfaFjZXOifURTWLLqrHke3ycKLRPd/shBirdgqQNJ8DdKTHrs/dCACHKQTgyJ/lFvOMrZDierNxkNgy81KwyKZq/cmt7Q1dsfIE/G/DiNKVrjTlMQufTDtLKcUDhSGQc6cTeuJkZxVovvtHNbB13UEA2rgd40udz/+f0xQAqrY9SvAo417R78LUi7eZBJqR8hw9utMiTKIx6XBSFBz0m5X0fOnw814IRs/E3bvDv1UNHluLpNCFGb3cAMADl15qalMiOjJS1VbsODsiZvLTPzUaPHwm2Wrjsf2hqr6kQdjOyn0/ukEc4FWk8nYKEQvybLKC6rI7pLkTSDvC09xcNw5uZQA/sqS/PfZ2mNcHtchOh3PyFNszWm/UV9MxUCglFKDqvh2Njp8OjGoamhe2V/IhJd4SlyWeB2rK6V6ymHG+LFzhweBZaPNe9ogA1dx0GdT1fc221vwqVS5tU2tRpO81etg2GVkLn2OwchC0IHinkCYvqEZ6vNsD9H6brgfmRF3GtQthgXinOEMAlF12o5TJL0DgAE/8scC1Q8bLsGY4vJTN28aKo1O0ujkbqV7qYp8UBh7sd4PSakFPzD0o4Ldbw+K5L4pizTSM+pGEWcIXeVTtEs1FZo9egNrOZgBLJU3Fw84Uz3+IfEI0PiFaX2T+NPkPgUAEicCsxhxM2MxgHaFbr+1oKi6eElA/ecqVe2ZsHTn75H7fFUYgEc6o3QKUT09tD+UAaXA+Tpq+DsMJuDzPXwhUv0Xv7eyYnrEbdGSeaOKY+QNszSNtaLv9MiqoUHcIiAPqMngEkGJ0/PWKUUQm6aoBSXyrxOqYKBqVAKa2qU0GxP1PebzYb58BwYYFh4nW3AdrAlUHMG+2l7txwKOVUGSwdP4037f3mNN9lG1rNeFRXjzHJP3gpCRheiatjBm73DHCuABlapckVismZkNZGEDGZO4Svz4sn136L8CfcEGY2XZ2jL2y3KWsvSFc4eWccoU7qwZ1N7hiHcCzHlVghL3dM6FxLGl+pPZ/uZcA7rLJtZ9ISmPcZvnOTwe9NqG6LoJk/R8xE8dKutcU0AWD6JFcJLhQnsk2Efwd/aGNPiWx+GmrhdSCHB7vMPJCRHsAZRxx4uu/AFbzk64bvwbALw4J9bAfVQpqCGMoDqpPVNClO2sE0tF6R1d6e66aDsQVAHJdRGJx6/o6swkuSSnJTrOTU9KPO6S0b/pqTdn2OAADCXYqhVrN7jq2DSGyo0tWJG6MLJuLr8ApojCyamFEXhEf4oInxhjMwh99/y3t/QUvAbLs8N20WFOnjVLNGnuX7bHvdVMsrBYAZ784EYfo6DawKIYZloRa8rdFnemkqSOqOTeHVQgEkTz67o58Tk3LglfmWlk9IEUJPsQ9PojjGDhd3hVQH8tiiGUH3QaCp43pAHdqap5TncXzMSS4k5OunTBgH9Gm197/VgylCeP/aDRogmm4t/PWhhUQIO39xT987ECI9R7ORFlC77DyP4SKYs+70CdBAL6kWQBVk5EFCGWyf2KARDDjwhyaUuZUFv1VSvLbYhq3Vvi5+U71ZwN42Mj5YouNVRONPmJT0UiuKr/WxyOHVV/y2CllLb3/LSUpeOEAsxzPz42wHeEXGKTBFqQeCpsOH5jSLD5EMmfqfn43fq0UscTE8s3uDC4yFno2kDQ3tux9AVARrStpW5RVrJQJClF7DC/TVzokGb5MPl4XXVQAAAAASUVORK5CYII=": "measured blind, not yet analysed",
    },
    "secrets-AN": {},
    "secrets-AO": {},
    "secrets-AP": {
        "f8b018cecd0bc481e003bdf56a76210b2b24ae2d8b9f106f3bd57703ba4b3e3e": "a value a later text of the read took out is taken out wherever the read gives it, before too (a key given in two bits, then written whole); a later text takes the token id for the token",
    },
    "secrets-AQ": {},
    "secrets-AR": {},
    "secrets-AS": {
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIfozDk3zx+FMw9Gb+qsGubCGWtUhRfguniGD0b90Mgue niamh@lirafin-lt-0412": "a value a later text of the read took out is taken out wherever the read gives it, before too (a key given in two bits, then written whole); the agent's later sentence on the break-glass key takes the key's comment (niamh@lirafin-lt-0412) for a password",
    },
    "secrets-AT": {},
    "secrets-AU": {},
    "secrets-AV": {},
}


#: Secrets that still reach a door, by the corpus's note on them (a known limit, listed so
#: the test fails when one is fixed or another starts to leak).
STILL_LEAKED: dict[str, dict[str, str]] = {
    "secrets-BB": {
        "Cloudflare API token given in two halves in one message": "measured blind, not yet analysed",
        "VPN password dictated in the NATO alphabet in prose": "measured blind, not yet analysed",
        "MySQL password as a PDO->__construct() argument in a PHP stack trace (Laravel log)": "measured blind, not yet analysed",
        "admin password typed in full-width characters (IME) in prose": "measured blind, not yet analysed",
        "access-control admin password sent in two halves (前半截／后半截) in one message": "measured blind, not yet analysed",
        "SF Express (丰桥) checkWord in a pasted log line hard-wrapped at 100 columns": "measured blind, not yet analysed",
    },
    "secrets-BA": {},
    "secrets-AZ": {},
    "secrets-AY": {},
    "secrets-AX": {
        "snowflake-password read out in NATO words, case told in words (phone call)": "measured blind, not yet analysed",
        "gateway admin password dictated by phone (katakana letter names, kana digits, case in words)": "measured blind, not yet analysed",
        "CDN auth key dictated in a voice-to-text transcript (汉字 digits, 大写/小写 words, 杭州话)": "measured blind, not yet analysed",
        "origin signing key hidden as \\x-escaped bytes in a Go []byte literal": "measured blind, not yet analysed",
        "live-stream push code with expire/sign under its OCR'd label (推流码)": "measured blind, not yet analysed",
    },
    "secrets-AW": {
        "SMPP bind password inside a bind_transceiver PDU in `tcpdump -X` hex (ASCII column shows it too)": "measured blind, not yet analysed",
    },
    "secrets-AI": {
        "teams workflow (Power Automate) webhook URL with sig=, new": "the URL's sig= is taken "
        "out; its host and workflow id, which the corpus counts as part of the secret, stay",
        "teams workflow webhook URL in .env": "the same URL in .env: its sig= is taken out",
    },
    "secrets-AG": {
        "e-Tax 利用者識別番号 (16 digits, spaced, prose)": "measured blind, not yet analysed",
        "one-time password (6 digits, spaced)": "measured blind, not yet analysed",
        "マイナンバーカード 利用者証明用 PIN (4 full-width digits)": "measured blind, not yet analysed",
    },
    "secrets-AC": {
        "SSH ed25519 private key (OpenSSH PEM) base64-encoded and wrapped at 76 columns by GNU base64": "measured blind, not yet analysed",
    },
    "secrets-AD": {
        "VPN password, second half in the next message": "measured blind, not yet analysed",
        "企业微信 group-bot webhook key (UUID) in the old webhook URL": "measured blind, not yet analysed",
    },
    "secrets-AK": {},
    "secrets-AL": {
        "Salesforce access token (session id, 00D…!…) in token response JSON": "measured blind, not yet analysed",
        "SFTP password dictated in kana (電話で聞いた)": "measured blind, not yet analysed",
    },
    "secrets-AM": {
        "colleague's VPN (GlobalProtect) password read out on a call, typed by the human in lower case with spaces": "measured blind, not yet analysed",
        "涂鸦 (Tuya) IoT access secret (old) as the third positional argument of TuyaOpenAPI(…)": "measured blind, not yet analysed",
        "Redis password dictated on the phone in Chinese (English words, Chinese numerals, 'at 符号', case words)": "measured blind, not yet analysed",
    },
    "secrets-AN": {
        "postmark-server-token (a bare UUID passed to ServerClient)": "measured blind, not yet analysed",
        "postmark-server-token (new), split by the human: first half": "measured blind, not yet analysed",
        "postmark-server-token (new), split by the human: second half": "measured blind, not yet analysed",
        "agora-app-certificate (32 hex) in an English support e-mail pasted in a Chinese turn": "measured blind, not yet analysed",
        "harbor-robot-secret base64 in docker config.json auths.auth": "measured blind, not yet analysed",
    },
    "secrets-AP": {},
    "secrets-AQ": {},
    "secrets-AR": {
        "Atlassian API token (new), split by the human: second half": "measured blind, not yet analysed",
        "partner password read out on the phone, in ローマ字 and カタカナ": "measured blind, not yet analysed",
        "password told in 拼音 with tone marks in 会议纪要": "measured blind, not yet analysed",
        "VPN 动态口令 in 全角 digits (SMS)": "measured blind, not yet analysed",
    },
    "secrets-AT": {
        "2FA backup code list (ten 8-digit codes in two columns)": "measured blind, not yet analysed",
        "美团开放平台 appSecret concatenated, with no separator, onto the end of a logged string-to-sign (签名原串)": "measured blind, not yet analysed",
        "password given as a 注音 (Dachen keyboard) hint in Traditional Chinese": "measured blind, not yet analysed",
    },
    "secrets-AU": {},
    "secrets-AV": {
        "环信 client_id (YXA6…) in a JSON body on a curl command line": "an OAuth client's id "
        "is kept: the corpus counts Easemob's with its secret, as one credential",
        "password given as 部首/字形 hints (口天吴, 立早章) plus pinyin rules and digits": "a "
        "riddle of characters and rules, no value written: only its digits stand",
    },
}


#: Honest candidates the gate refuses, by title, with why.
STILL_DROPPED: dict[str, dict[str, str]] = {
    "secrets-BB": {
        "钉钉告警发不出是因为机器人开了加签而代码没签名": "measured blind, not yet analysed: as_settled; floor",
        "tms.temperature 积压是因为 RabbitMQ tms 用户密码被改": "measured blind, not yet analysed: unvouched; floor",
        "booking-search 502s came from a revoked Duffel token": "measured blind, not yet analysed: raw_secret; raw_secret; raw_secret; malformed",
        "booking-api Postgres pool raised to 25 per replica": "measured blind, not yet analysed: unvouched; floor",
        "Slack #予約アラート の通知チャネルが無効になっていた": "measured blind, not yet analysed: as_settled; floor",
    },
    "secrets-BA": {
        "出库异常钉钉告警只推 P1": "measured blind, not yet analysed: credited as 用户定的 beside a config line",
        "OSS 报 InvalidAccessKeyId 是运维轮换了 AK": "a date (11月26日) no quote gives",
        "Nacos 上 wave-size 保持 80": "a figure (200, the local file's) no quote gives",
        "REDCap sync cron stays at 02:30": "a status code (403) no quote gives",
        "weather_watch.py は batch01 の cron で30分おき": "a crontab's */30 read as every 30 minutes: no rule reads cron steps",
        "batch01 の netplan は鈴木さんが直す": "measured blind, not yet analysed: 鈴木さん's report in the person's 言うとる not read as theirs",
        "Chatwork のトークンは .env の CHATWORK_API_TOKEN": "a room id (318824731) no quote gives",
    },
    "secrets-AZ": {
        "楽天 RMS の同期は licenseKey 期限切れで 401": "measured blind, not yet analysed: a quote cut from the request line of its log record (POST https…)",
        "Portal AUTH0_DOMAIN still pointed at the old tenant": "measured blind, not yet analysed: the body is read as carrying a password the journal gave",
    },
    "secrets-AY": {},
    "secrets-AX": {
        "Secrets for the claims and referrals pipelines live in Key Vault kv-corrib-data-ne": "measured blind, not yet analysed",
        "CDN 从七牛迁到阿里云": "measured blind, not yet analysed",
        "倉庫ゲートウェイの MQTT ブリッジはパスワード認証でさくら側のブローカーにつながっている": "measured blind, not yet analysed",
    },
    "secrets-AW": {
        "Break-glass console password was set by hand, not through the agent": "measured blind, not yet analysed",
        "HTTP v1 移行後のテスト通知の結果": "measured blind, not yet analysed",
    },
    "secrets-AJ": {
        "小程序 AppSecret 已在公众平台重置，旧的已失效": "measured blind, not yet analysed",
        "后台 admin 密码由王磊管理，不要转发": "measured blind, not yet analysed",
    },
    "secrets-AI": {
        "旧的 Steam Web API key 已于 Dec 5 被发行商吊销，新 key 在 game-secrets": "measured blind, not yet analysed",
        "阿里云短信 AccessKey 只放在 k8s Secret sms-aliyun，不进 git": "measured blind, not yet analysed",
        "Signing out all Plex devices broke the Home Assistant Plex integration": "measured blind, not yet analysed",
        "Jess changes the DSM admin password and sends the new one by text": "measured blind, not yet analysed",
        "れんらく帳プラスの API キーは .env の RENRAKU_API_KEY（前のキーは無効化済み）": "measured blind, not yet analysed",
    },
    "secrets-AH": {
        "Inspect key files with openssl, never print them": "measured blind, not yet analysed",
        "ドメイン管理者のパスワードはスクリプトやメモに残さない": "measured blind, not yet analysed",
        "LINE のチャネルアクセストークンは再発行済み、旧トークンは無効": "measured blind, not yet analysed",
        "Shopify custom app 被 Mike 重装，旧 Admin API token 已吊销": "measured blind, not yet analysed",
        "docs/ops-notes.md 不写任何密码和密钥": "measured blind, not yet analysed",
    },
    "secrets-C": {},
    "secrets-D": {},
    "secrets-E": {},
    "secrets-F": {
        "Crate publishing waits until 1.0": "'The Rust crate': Rust is a name the evidence never "
        "writes (the turn says crate)",
    },
    "secrets-H": {
        "Office VPN is split-tunnel to the Mac mini only": "'WireGuard' names the tool from "
        "another turn of the session, not the quoted one",
    },
    "secrets-I": {},
    "secrets-J": {
        "Amounts are stored as integer fen": "'(1/100 RMB)' explains a fen with figures no "
        "evidence gives",
        "Month-end close by the third working day": "第三个工作日 is read as a count of three "
        "(个), not the ordinal 'third': the two do not compare",
    },
    "secrets-K": {
        "New students join the lab on December 1": "'Li Wei' is in no segment of the "
        "journal, in letters or characters: the candidate names someone the evidence does "
        "not",
    },
    "secrets-L": {
        "Kita hospital AD password policy": "'Active Directory' written out for the person's "
        "'AD': a name no evidence gives",
    },
    "secrets-M": {
        "SEA orders sync daily at 09:00 Beijing time": "'Beijing time' for 北京时间: a zone "
        "written in another language is not compared",
        "Refunds over 500 yuan need the owner's approval": "'the owner's approval' for the "
        "person's 要我批: the credit's words are not the person's",
        "Jenkins signs iOS, GitLab signs Android": "a tool named in the candidate that no "
        "quoted segment of the session gives",
        "PDF passwords go by phone, not by e-mail": "鈴木先生 credited with the rule the "
        "person wrote for the manual",
    },
    "secrets-N": {
        "WireGuard on the VPS listens on 51820 only": "a figure or name the candidate gives "
        "that no quoted segment holds",
    },
    "secrets-O": {},
    "secrets-P": {},
    "secrets-Q": {
        "Fernhill's old db-1 database server is switched off on Friday": "'db-1.internal' is "
        "in tool output the quotes do not hold (the person's turn says 'db-1 box')",
        "马来站和菲律宾站的 Shopee 订单都要同步到 ERP": "'两个站点' counts the stations the "
        "quote names: a derived figure",
        "ERP 管理员账号 tuohai_admin 只给用户本人和阿梅两个人用": "查旺店 reads as a swapped "
        "name; why it belongs credits the person with updating the account",
    },
    "secrets-R": {},
    "secrets-U": {
        "Bookings for 2026 open on the first of September": "measured blind, not yet "
        "analysed: refused by the floor (unvouched)",
        "給与の締めは毎月20日、それまでに勤怠を確定": "measured blind, not yet analysed: "
        "refused by the floor (unvouched)",
    },
    "secrets-G": {
        "tsubame publishes wheels for Python 3.10+ only": "'From the 1.4 line on': the version "
        "is in another turn of the session, not in the quoted one",
    },
    "secrets-AA": {
        "W&B runs go to the priya-consulting entity": "measured blind, not yet analysed: "
        "refused by number/unvouched",
    },
    "secrets-AB": {
        "Android releases are signed with the upload key only": "measured blind, not yet "
        "analysed: refused by number/unvouched",
        "云手机只用于抖店和小红书后台": "measured blind, not yet analysed: refused by "
        "attribution/not_carried",
    },
    "secrets-AC": {
        "Tailscale auth key lives in .env beside docker-compose.yml": "the corpus gives keep as true: a curation field is a sentence, and the gate refuses a candidate whose field is malformed",
        "The FritzBox sticker no longer gives the admin password": "the corpus gives keep as true: a curation field is a sentence, and the gate refuses a candidate whose field is malformed",
        "WireGuard died after the router swap: port forward pointed at 192.168.178.20": "the corpus gives keep as true: a curation field is a sentence, and the gate refuses a candidate whose field is malformed",
        "Rule: no keys in commit messages or the README; .env stays on the NUC": "the corpus gives keep as true: a curation field is a sentence, and the gate refuses a candidate whose field is malformed",
        "引き継ぎメモには鍵を書かず 1Password の項目名だけを書く": "the corpus gives keep as true: a curation field is a sentence, and the gate refuses a candidate whose field is malformed",
        "freee API の client_secret は再発行済み、token.json は削除して再認可待ち": "the corpus gives keep as true: a curation field is a sentence, and the gate refuses a candidate whose field is malformed",
        "複合機のスキャン to メールが届かない原因は SMTP ポート 25・SSL false": "the corpus gives keep as true: a curation field is a sentence, and the gate refuses a candidate whose field is malformed",
        "以后所有 AK 都走 RAM 角色，不再给业务发静态 AK": "the corpus gives keep as true: a curation field is a sentence, and the gate refuses a candidate whose field is malformed",
        "Harbor robot 密钥重新生成后 harbor-pull 已重建": "the corpus gives keep as true: a curation field is a sentence, and the gate refuses a candidate whose field is malformed",
        "告警要发到钉钉、飞书、企业微信三个群": "the corpus gives keep as true: a curation field is a sentence, and the gate refuses a candidate whose field is malformed",
    },
    "secrets-AG": {
        "e-Taxの暗証番号はファイルではなくキーチェーンに保存する": "measured blind, not yet analysed",
        "freeeのアクセストークンは21600秒で切れ、export_deals.py が401になる": "measured blind, not yet analysed",
        "NASのHyper Backup（顧問先データ→USB）はUSBディスク満杯で失敗": "measured blind, not yet analysed",
        "失效的 HF_TOKEN 环境变量会覆盖 Hugging Face 的 token 文件": "measured blind, not yet analysed",
    },
    "secrets-AF": {
        "楽天RMSのライセンスキーは3ヶ月ごとに更新が必要": "measured blind, not yet analysed: "
        "its description names a 401 no quote gives",
        "出荷はヤマトのB2クラウド、送り状はCSV取込で作る": "measured blind, not yet analysed: "
        "Shopifyの注文 read as a credit to Shopify",
        "新批次设备的 DeviceSecret 不写进头文件，走 factory NVS": "measured blind, not yet "
        "analysed: its description counts a 4 no quote gives",
    },
    "secrets-AE": {
        "slg-server 的密钥统一放 Nacos，不再放 .env": "measured blind, not yet analysed: 准备 "
        "(a plan) in the quote, the switch written as done",
        "堡垒机密码在群里泄露，周五前让王磊改掉": "measured blind, not yet analysed: 两条 "
        "counts what no quote counts; 周五前 kept as a deed",
    },
    "secrets-AD": {
        "名簿同期アプリのシークレットは2027年3月31日に期限切れ": "the corpus gives keep as true: a curation field is a sentence, and the gate refuses a candidate whose field is malformed",
        "共有ドライブのパスワードを個人LINEで送ってしまった": "the corpus gives keep as true: a curation field is a sentence, and the gate refuses a candidate whose field is malformed",
        "複合機のスキャンtoメールはM365のアプリパスワードで送る": "the corpus gives keep as true: a curation field is a sentence, and the gate refuses a candidate whose field is malformed",
        "新机器连阿里云 Redis 需要走 VPN": "the corpus gives keep as true: a curation field is a sentence, and the gate refuses a candidate whose field is malformed",
        "微信支付 APIv3 密钥已重置，证书序列号没变": "the corpus gives keep as true: a curation field is a sentence, and the gate refuses a candidate whose field is malformed",
        "盘后报告的企业微信机器人 key 已重置": "the corpus gives keep as true: a curation field is a sentence, and the gate refuses a candidate whose field is malformed",
        "Mapbox secret downloads token stays out of app.json": "the corpus gives keep as true: a curation field is a sentence, and the gate refuses a candidate whose field is malformed",
        "Stripe restricted key was rolled after a Slack screenshot": "the corpus gives keep as true: a curation field is a sentence, and the gate refuses a candidate whose field is malformed",
        "RevenueCat appl_ key is public and stays in the app": "the corpus gives keep as true: a curation field is a sentence, and the gate refuses a candidate whose field is malformed",
        "The relay function logged request headers, leaking the service-role key": "the corpus gives keep as true: a curation field is a sentence, and the gate refuses a candidate whose field is malformed",
    },
    "secrets-AK": {
        "vault-01 unseal shares are held by three keyholders, never written down in the repo": "measured blind, not yet analysed",
        "百度地图浏览器端 AK 是公开的（Referer 白名单），后端地理编码用服务端 AK": "measured blind, not yet analysed",
        "阿里云 Redis 用 default 账号连接报 WRONGPASS，REDIS_URL 改为以实例 ID 作用户名": "measured blind, not yet analysed",
        "予約確認メールの不達は SendGrid の IP アクセス管理に新サーバー未登録だったため（キーは同じ）": "measured blind, not yet analysed",
        "総務課の共有フォルダは systemd の mount で、パスワードは credentials ファイルに置く": "measured blind, not yet analysed",
    },
    "secrets-AL": {
        "Android release signing passwords come from the environment": "measured blind, not yet analysed",
        "App Store Connect API key file was committed to the repo": "measured blind, not yet analysed",
        "高德 Web 服务 key 日配额超限": "measured blind, not yet analysed",
    },
    "secrets-AM": {
        "LINE のチャネルアクセストークンは Secrets Manager に置く": "measured blind, not yet analysed",
    },
    "secrets-AN": {
        "PAY.JP の本番シークレットキーはローテーション済み、古いキーの残骸は環境変数参照に置換": "measured blind, not yet analysed",
        "本机阿里云 AK 属于 RAM 子账号 oss-uploader，不是主账号": "measured blind, not yet analysed",
        "企业微信告警 corpsecret 上月已重置，alert.yaml 改为读 WECOM_CORPSECRET": "measured blind, not yet analysed",
    },
    "secrets-AO": {
        "Twilio の認証トークンは Mike が交換済み、旧トークンは金曜まで": "its description gives 401, which no quote gives",
        "Dmitri will change the build box Perforce password after the milestone": "its title names Perforce, which only the agent's words give",
    },
    "secrets-AP": {
        "Current OpenRouter key lives only in the shell environment": "measured blind, not yet analysed",
        "Hugging Face remote uses the credential helper, no token in the URL": "measured blind, not yet analysed",
    },
    "secrets-AQ": {
        "顧客から口頭で受け取ったパスワードは Secrets Manager へ、チケットには書かない": "measured blind, not yet analysed",
        "Cloudflare DNS token for northbeam.ca is scoped to DNS edit and stays out of wrangler.toml": "measured blind, not yet analysed",
    },
    "secrets-AR": {
        "各云平台的密钥统一迁入 Vault，不再放在机器上": "measured blind, not yet analysed",
        "COS 和 OSS 的明文配置写入 Vault 后已删除": "measured blind, not yet analysed",
    },
    "secrets-AS": {
        "Azure DevOps PAT stays out of git remote URLs": "a product's name (DevOps) the quoted "
        "segments never write",
        "push-svc 的 JPush appKey 配成了测试应用": "error codes (401, 1004) from the session's "
        "tool output, not from the quotes",
        "~/.my.cnf が他ユーザーから読める権限になっている": "a product's name (MySQL) the quoted "
        "segments never write",
    },
    "secrets-AT": {
        "美团签名失败是因为原串里参数被 URL 编码": "measured blind, not yet analysed",
        "京东云上传脚本改读环境变量，旧 key 已禁用": "measured blind, not yet analysed",
        "配送管理アプリには在庫アプリのトークンも必要（ルックアップ）": "measured blind, not yet analysed",
        "Airflow runs with two Fernet keys until the rotation finishes": "measured blind, not yet analysed",
        "mch-adf-ingest has two client secrets until Friday": "measured blind, not yet analysed",
    },
    "secrets-AU": {
        "docqa inference secrets live in the Modal secret docqa-secrets": "measured blind, not "
        "yet analysed: refused by number/unvouched",
        "SmartHR のトークンは compose に直書きせず env_file で渡す": "measured blind, not yet "
        "analysed: refused by attribution/not_carried",
        "freee の client_secret は再発行済みで、本番は Parameter Store の FREEE_CLIENT_SECRET を読む": "measured "
        "blind, not yet analysed: refused by number/unvouched",
    },
    "secrets-AV": {},
}


def _in_process(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``kura ARGS`` run by the command line's own entry in this process (what the script
    runs as a child process), its output captured: the same text, without an interpreter
    started per journal."""
    from kura_core.faces.cli import main as cli_main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli_main(list(args))
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
    return subprocess.CompletedProcess(list(args), code or 0, out.getvalue(), err.getvalue())


#: Files a corpus places secrets in that kura reads as no journal, with why: what is in
#: them reaches no door (aider's typed-input history repeats the chat history's own turns).
UNREAD: dict[str, set[str]] = {"secrets-AK": {".aider.input.history"}}


#: This round's corpora run in every suite run; the older ones run in the slow tier
#: (``-m slow``, run by .ci/run).
NEWEST = frozenset({"secrets-BB"})


@pytest.mark.parametrize(
    "corpus",
    [c if c in NEWEST else pytest.param(c, marks=pytest.mark.slow) for c in sorted(STILL_REDACTED)],
)
def test_no_secret_leaks_and_every_look_alike_and_honest_memory_stays(
    corpus, tmp_path, monkeypatch
):
    monkeypatch.setattr(measure_secrets, "_kura", _in_process)
    root = CORPORA / corpus
    journals, items, honest = measure_secrets.load_corpus(root)
    assert len([i for i in items if i.kind == "secret"]) >= 30 and len(honest) >= 10
    doors = {"inspect": measure_secrets.door_inspect(journals)}
    # every journal a secret is placed in is read (opencode's storage also holds project
    # and message files that are no session of their own)
    named = {Path(i.file).name for i in items if i.file} - UNREAD.get(corpus, set())
    read = {k: out for k, out in doors["inspect"].items() if k in named}
    assert read and all('"segments"' in out for out in read.values()), doors["inspect"]
    doors["gate"], honest_report = measure_secrets.door_gate(journals, items, honest, tmp_path)
    report = measure_secrets.score(items, doors)
    leaked = {x["note"] for x in report["leaked"]}
    assert leaked == set(STILL_LEAKED.get(corpus, {})), report["leaked"]
    lost = {x["value"] for x in report["look-alikes lost"]}
    assert lost == set(STILL_REDACTED[corpus]), lost
    assert honest_report["total"] == len(honest)
    dropped = {x["title"] for x in honest_report["dropped"]}
    assert dropped == set(STILL_DROPPED[corpus]), honest_report["dropped"]
