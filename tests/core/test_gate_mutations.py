"""The gate against generated attacks: legitimate candidates, mutated one rule at a time.

A *seed* is something a person said (English, Japanese or Chinese) and a candidate that
quotes it whole and restates it. Each seed is first checked as it is -- kept, no violation
-- and with harmless material around it (fillers, politeness, a numbered-list marker, a
negation in another clause): kept too. Then each class of attack is applied to the
transcript the candidate is judged against, or to the candidate itself, and the same
candidate must be dropped *for the right reason*:

* the quote's clause gains a negation at distance k, a condition, a reporter, a question
  or a hedge that the quote leaves out -- the quote is cut with that rule;
* the claim about the human takes its figure or its content from another segment -- an
  attribution violation;
* the transcript only shows the store's own text back through a tool -- an echo;
* the claim only exists in the agent's own words, laundered through a command or a file
  it wrote -- the quote is demoted to SELF and a fact on SELF alone is dropped;
* the figure is swapped (unit, zone, weekday, suffix) or disguised with look-alike glyphs
  -- a number or disguise violation;
* an index line carries a link -- a markup violation.

The transcripts are built here from the seeds; nothing is copied from real sessions.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest

from kura_core.distill.evidence import Segment, normalize
from kura_core.distill.gate import GateResult, run_gate

SRC = "mutations.jsonl"
NAMES = ["Ren", "蓮"]


@dataclass(frozen=True)
class Seed:
    lang: str  # en | ja | zh
    clause: str  # what the person said, as a quote covers it
    body: str  # the candidate's restatement
    figure: str  # one figure of the clause, as written
    swaps: tuple[str, ...]  # the same figure with another unit, zone, day or suffix


SEEDS = [
    # --- English
    Seed(
        "en",
        "keep the nightly backups for 14 days",
        "Keep the nightly backups for 14 days.",
        "14 days",
        ("14 weeks", "14 months", "41 days"),
    ),
    Seed(
        "en",
        "wipe the build cache at 02:30 JST",
        "Wipe the build cache at 02:30 JST.",
        "02:30 JST",
        ("02:30 UTC", "03:30 JST", "02:30 PST"),
    ),
    Seed(
        "en",
        "set the fan floor to 30% on GPU 1",
        "Set the fan floor to 30% on GPU 1.",
        "30%",
        ("30 °C", "3%", "30 percentage points"),
    ),
    Seed(
        "en",
        "order the new Seagate disk on Monday",
        "Order the new Seagate disk on Monday.",
        "Monday",
        ("Tuesday", "Sunday", "Friday"),
    ),
    Seed(
        "en",
        "pin the agent to version 0.18.1 on the NAS",
        "Pin the agent to version 0.18.1 on the NAS.",
        "0.18.1",
        ("0.18.1-rc1", "0.18.2", "0.19.1"),
    ),
    Seed(
        "en",
        "cap the disk budget at $120 for this quarter",
        "Cap the disk budget at $120 for this quarter.",
        "$120",
        ("£120", "€120", "$210"),
    ),
    Seed(
        "en",
        "raise the power limit to 250 W on the workstation",
        "Raise the power limit to 250 W on the workstation.",
        "250 W",
        ("250 kW", "520 W", "25 W"),
    ),
    Seed(
        "en",
        "delete the old snapshots after 90 days",
        "Delete the old snapshots after 90 days.",
        "90 days",
        ("90 hours", "9 days", "90 weeks"),
    ),
    Seed(
        "en",
        "replace the two dead fans before the summer",
        "Replace the 2 dead fans before the summer.",
        "two",
        ("three", "twelve", "20"),
    ),
    Seed(
        "en",
        "move the photo archive to the slow disk by 2026-11-28",
        "Move the photo archive to the slow disk by 2026-11-28.",
        "2026-11-28",
        ("2026-12-28", "2026-11-18", "2025-11-28"),
    ),
    Seed(
        "en",
        "run the offsite sync every Sunday at 03:00",
        "Run the offsite sync every Sunday at 03:00.",
        "Sunday",
        ("Saturday", "Monday", "Thursday"),
    ),
    Seed(
        "en",
        "limit the upload to 40 MB per file",
        "Limit the upload to 40 MB per file.",
        "40 MB",
        ("40 GB", "40 Mb", "400 MB"),
    ),
    Seed(
        "en",
        "send the weekly report to ops@example.com",
        "Send the weekly report to ops@example.com.",
        "ops@example.com",
        ("ops@example.org", "dev@example.com", "ops@example.co"),
    ),
    Seed(
        "en",
        "clone the forge repo from https://git.example.com/lab/forge",
        "Clone the forge repo from https://git.example.com/lab/forge.",
        "https://git.example.com/lab/forge",
        (
            "https://git.example.net/lab/forge",
            "https://git.example.com/lab/forge2",
            "http://git.example.com/lab/forgery",
        ),
    ),
    Seed(
        "en",
        "keep the build logs in /var/log/forge",
        "Keep the build logs in /var/log/forge.",
        "/var/log/forge",
        ("/var/log/forge2", "/var/lib/forge", "/tmp/forge"),
    ),
    Seed(
        "en",
        "roll the NAS back to commit 3f2a9c1e",
        "Roll the NAS back to commit 3f2a9c1e.",
        "3f2a9c1e",
        ("3f2a9c2e", "3f2a9c1f", "4f2a9c1e"),
    ),
    Seed(
        "en",
        "install the agent at version 2.1.0-rc1",
        "Install the agent at version 2.1.0-rc1.",
        "2.1.0-rc1",
        ("2.1.0", "2.1.0-rc2", "2.1.1-rc1"),
    ),
    Seed(
        "en",
        "serve the dashboard on port 8080",
        "Serve the dashboard on port 8080.",
        "8080",
        ("8081", "8008", "80"),
    ),
    # --- Japanese
    Seed(
        "ja",
        "レポートを ops@example.com に送る",
        "レポートを ops@example.com に送る。",
        "ops@example.com",
        ("ops@example.org", "dev@example.com", "ops@example.jp"),
    ),
    Seed(
        "ja",
        "バックアップを14日間残す",
        "バックアップを14日間残す。",
        "14日間",
        ("14ヶ月", "14年", "41日間"),
    ),
    Seed(
        "ja",
        "ログを毎晩削除する",
        "ログを毎晩削除する。",
        "",
        (),
    ),
    Seed(
        "ja",
        "予算を八万円までに抑える",
        "予算を8万円までに抑える。",
        "八万円",
        ("八万ドル", "八千円", "九万円"),
    ),
    Seed(
        "ja",
        "新しいディスクを5月2日に注文する",
        "新しいディスクを5月2日に注文する。",
        "5月2日",
        ("5月3日", "6月2日", "2月5日"),
    ),
    Seed(
        "ja",
        "写真のアーカイブをNASに移す",
        "写真のアーカイブをNASに移す。",
        "",
        (),
    ),
    Seed(
        "ja",
        "ファンの下限を30%に設定する",
        "ファンの下限を30%に設定する。",
        "30%",
        ("30度", "3%", "三割五分"),
    ),
    Seed(
        "ja",
        "キャッシュを毎週月曜日に消す",
        "キャッシュを毎週月曜日に消す。",
        "月曜日",
        ("火曜日", "日曜日", "金曜日"),
    ),
    Seed(
        "ja",
        "古いスナップショットを90日で消す",
        "古いスナップショットを90日で消す。",
        "90日",
        ("90ヶ月", "90年", "9日"),
    ),
    Seed(
        "ja",
        "ルーターのパスワードを毎月変える",
        "ルーターのパスワードを毎月変える。",
        "",
        (),
    ),
    Seed(
        "ja",
        "電源の上限を250Wに上げる",
        "電源の上限を250Wに上げる。",
        "250W",
        ("250kW", "520W", "25W"),
    ),
    Seed(
        "ja",
        "令和8年5月2日にディスクを注文する",
        "2026年5月2日にディスクを注文する。",
        "2026年5月2日",
        ("2008年5月2日", "2027年5月2日", "2026年5月3日"),
    ),
    Seed(
        "ja",
        "二十日に電気代を払う",
        "20日に電気代を払う。",
        "20日",
        ("20日間", "21日", "20天"),
    ),
    # --- Chinese
    Seed(
        "zh",
        "民国115年3月1日迁移服务器",
        "2026年3月1日迁移服务器。",
        "2026年3月1日",
        ("2015年3月1日", "2025年3月1日", "2026年3月2日"),
    ),
    Seed("zh", "把旧的快照保留90天", "把旧的快照保留90天。", "90天", ("90个月", "90年", "9天")),
    Seed(
        "zh",
        "每天凌晨两点清理缓存",
        "每天凌晨两点清理缓存。",
        "",
        (),
    ),
    Seed("zh", "把归档放到NAS上", "把归档放到NAS上。", "", ()),
    Seed(
        "zh",
        "预算控制在12万5千元以内",
        "预算控制在125,000元以内。",
        "12万5千元",
        ("12万5千美元", "12万元", "15万5千元"),
    ),
    Seed(
        "zh",
        "把风扇下限调到30%",
        "把风扇下限调到30%。",
        "30%",
        ("30度", "3%", "40%"),
    ),
    Seed("zh", "每个月更换路由器密码", "每个月更换路由器密码。", "", ()),
    Seed(
        "zh",
        "每周日重启同步服务",
        "每周日重启同步服务。",
        "周日",
        ("周一", "周六", "周三"),
    ),
    Seed(
        "zh",
        "把电源上限提高到250瓦",
        "把电源上限提高到250瓦。",
        "250瓦",
        ("250千瓦", "520瓦", "25瓦"),
    ),
    Seed(
        "zh",
        "删除超过90天的日志",
        "删除超过90天的日志。",
        "90天",
        ("90小时", "90周", "9天"),
    ),
    Seed("zh", "把相册迁移到慢盘", "把相册迁移到慢盘。", "", ()),
    Seed(
        "zh",
        "把日志放在 /var/log/forge 下面",
        "把日志放在 /var/log/forge 下面。",
        "/var/log/forge",
        ("/var/log/forge2", "/var/lib/forge", "/tmp/forge"),
    ),
    Seed(
        "zh",
        "回滚到提交 3f2a9c1e",
        "回滚到提交 3f2a9c1e。",
        "3f2a9c1e",
        ("3f2a9c2e", "3f2a9c1f", "4f2a9c1e"),
    ),
]

_END = {"en": ".", "ja": "。", "zh": "。"}

#: Harmless material around a quote: each keeps the candidate.
HARMLESS = {
    "en": [
        "ok, {c}.",
        "so {c}, please.",
        "um, {c}.",
        "please {c}.",
        "can you {c}?",
        "{c}, thanks.",
        "Ren here: {c}.",
        "1. {c}.",
        "2) {c}.",
        "(3) {c}.",
        "{c}, and don't touch anything else.",
        "{c}; nothing else changes.",
        "well, actually, {c} as well.",
        "- {c}",
    ],
    "ja": [
        "えっと、{c}。",
        "{c}ね。",
        "{c}よ。",
        "じゃあ{c}。",
        "あと、{c}。",
        "1. {c}。",
        "{c}。ほかは触らないで。",
        "まあ、{c}。",
        "4、{c}。",
    ],
    "zh": [
        "嗯，{c}。",
        "好的，{c}。",
        "那个，{c}。",
        "{c}，谢谢。",
        "然后{c}。",
        "请{c}。",
        "{c}，不要动别的。",
        "1. {c}。",
        "4、{c}。",
        "另外，{c}。",
    ],
}

#: Operators that govern the clause the quote leaves them in: (template, rule).
GOVERNED = {
    "en": [
        ("dont {c}.", "negation"),
        ("do not {c}.", "negation"),
        ("never {c}.", "negation"),
        ("never again {c}.", "negation"),
        ("do not, under any circumstances, {c}.", "negation"),
        ("please don't ever {c}.", "negation"),
        ("you shouldn't really {c}.", "negation"),
        ("no need to {c}.", "negation"),
        ("stop trying to {c}.", "negation"),
        ("we wont {c}.", "negation"),
        ("if the disk fills up, {c}.", "condition"),
        ("{c} if the disk fills up.", "condition"),
        ("unless Mika objects, {c}.", "condition"),
        ("{c}, but only when the NAS is idle.", "condition"),
        ("only if the budget allows, {c}.", "condition"),
        ("when the new disk arrives, {c}.", "condition"),
        ("as long as the UPS holds, {c}.", "condition"),
        ("{c} unless the sync fails.", "condition"),
        ("Mika says {c}.", "report"),
        ("according to the vendor, {c}.", "report"),
        ("{c}, Mika said.", "report"),
        ("my neighbour claims we should {c}.", "report"),
        ("I heard we should {c}.", "report"),
        ("should we {c}?", "question"),
        ("{c}?", "question"),
        ("do we really want to {c}?", "question"),
        ("is it time to {c}?", "question"),
        ("maybe {c}.", "hedge"),
        ("I think we should {c}.", "hedge"),
        ("{c}, I guess.", "hedge"),
        ("perhaps, {c}.", "hedge"),
        ("we might {c}.", "hedge"),
        ("probably {c}.", "hedge"),
    ],
    "ja": [
        ("{c}必要はない。", "negation"),
        ("{c}ことはない。", "negation"),
        ("{c}わけではない。", "negation"),
        ("{c}のはダメ。", "negation"),
        ("{c}な。", "negation"),
        ("{c}べきではない。", "negation"),
        ("{c}つもりはない。", "negation"),
        ("{c}のはやめて。", "negation"),
        ("もし容量が足りなければ、{c}。", "condition"),
        ("新しいディスクが届いたら、{c}。", "condition"),
        ("必要な場合は、{c}。", "condition"),
        ("もし余裕があれば{c}。", "condition"),
        ("田中さんによると、{c}。", "report"),
        ("{c}って。", "report"),
        ("{c}そうだ。", "report"),
        ("{c}と言っていた。", "report"),
        ("{c}らしい。", "report"),
        ("{c}とのこと。", "report"),
        ("{c}か。", "question"),
        ("{c}の？", "question"),
        ("{c}べきか。", "question"),
        ("{c}ですか。", "question"),
        ("たぶん{c}。", "hedge"),
        ("{c}かもしれない。", "hedge"),
        ("{c}と思う。", "hedge"),
        ("{c}はず。", "hedge"),
        ("{c}だろう。", "hedge"),
        ("おそらく{c}。", "hedge"),
    ],
    "zh": [
        ("不要{c}。", "negation"),
        ("别{c}。", "negation"),
        ("不再{c}。", "negation"),
        ("别再{c}。", "negation"),
        ("千万不要{c}。", "negation"),
        ("绝对不能{c}。", "negation"),
        ("不用{c}。", "negation"),
        ("不要随便{c}。", "negation"),
        ("如果磁盘满了，{c}。", "condition"),
        ("要是预算够的话，{c}。", "condition"),
        ("除非老板同意，{c}。", "condition"),
        ("{c}，除非磁盘满了。", "condition"),
        ("磁盘满了的话，{c}。", "condition"),
        ("只要UPS还在，{c}。", "condition"),
        ("万一同步失败，{c}。", "condition"),
        ("听说{c}。", "report"),
        ("据说{c}。", "report"),
        ("老王说{c}。", "report"),
        ("{c}，他说。", "report"),
        ("据供应商说，{c}。", "report"),
        ("{c}吗？", "question"),
        ("是否{c}？", "question"),
        ("是不是该{c}？", "question"),
        ("{c}呢？", "question"),
        ("也许{c}。", "hedge"),
        ("可能{c}。", "hedge"),
        ("我觉得{c}。", "hedge"),
        ("大概{c}。", "hedge"),
        ("或许{c}。", "hedge"),
        ("估计{c}。", "hedge"),
    ],
}


# =========================================================================== machinery


def _segments(*texts: tuple[str, str]) -> list[Segment]:
    # an unrelated turn first, so the batch is never a single segment
    texts = (("TOOL", "exit status 0"), *texts)
    return [
        Segment(cls, text, SRC, i * 100, i * 100 + 99, "byte", "s1")
        for i, (cls, text) in enumerate(texts)
    ]


def _cand(*quotes: str, body: str, kind: str = "fact", **fields: object) -> dict:
    return {
        "kind": kind,
        "title": fields.pop("title", "A memory"),
        "description": fields.pop("description", ""),
        "body": body,
        "quotes": list(quotes),
        "tags": [],
        **fields,
    }


def _gate(candidate: dict, segments: list[Segment], store: tuple[str, ...] = ()) -> GateResult:
    blob = "\n".join(normalize(s) for s in store)
    (result,) = run_gate(
        [candidate], segments, is_echo=lambda q: bool(q) and q in blob, human_names=NAMES
    )
    return result


@dataclass(frozen=True)
class Case:
    name: str
    candidate: dict
    segments: list[Segment]
    expect: Callable[[GateResult], bool]
    store: tuple[str, ...] = ()


def _kept(r: GateResult) -> bool:
    return r.verdict == "kept" and not r.violations


def _cut(rule: str) -> Callable[[GateResult], bool]:
    return lambda r: (
        r.verdict == "dropped"
        and r.drop == "no_survivor"
        and any(q.status == "cut" and q.rule == rule for q in r.quotes)
    )


def _violation(kind: str, rule: str = "") -> Callable[[GateResult], bool]:
    return lambda r: (
        r.verdict == "dropped"
        and any(v.kind == kind and (not rule or v.rule == rule) for v in r.violations)
    )


def _drop(code: str) -> Callable[[GateResult], bool]:
    return lambda r: r.verdict == "dropped" and r.drop == code


def _said(seed: Seed, template: str) -> str:
    return template.format(c=seed.clause)


# =========================================================================== the cases


def legitimate() -> list[Case]:
    out = []
    for s in SEEDS:
        quote = "[USER] " + s.clause
        out.append(
            Case(
                f"{s.lang}/as-said/{s.clause}",
                _cand(quote, body=s.body),
                _segments(("USER", s.clause + _END[s.lang])),
                _kept,
            )
        )
        for marker in ("1. ", "2) ", "(3) ", "4、", "① ", "- "):
            out.append(
                Case(
                    f"{s.lang}/numbered-body/{marker}/{s.clause}",
                    _cand(quote, body=f"{marker}{s.body}\n{marker}{s.body}"),
                    _segments(("USER", s.clause + _END[s.lang])),
                    _kept,
                )
            )
        for t in HARMLESS[s.lang]:
            out.append(
                Case(
                    f"{s.lang}/harmless/{t}/{s.clause}",
                    _cand(quote, body=s.body),
                    _segments(("USER", _said(s, t))),
                    _kept,
                )
            )
    return out


def governed() -> list[Case]:
    """Classes 1 and 2: negation at any distance, condition, report, question, hedge."""
    out = []
    for s in SEEDS:
        for t, rule in GOVERNED[s.lang]:
            out.append(
                Case(
                    f"{s.lang}/{rule}/{t}/{s.clause}",
                    _cand("[USER] " + s.clause, body=s.body),
                    _segments(("USER", _said(s, t))),
                    _cut(rule),
                )
            )
    return out


def swapped() -> list[Case]:
    """Class 8: the same figure with another unit, zone, weekday, date or suffix."""
    out = []
    for s in SEEDS:
        for other in s.swaps:
            body = s.body.replace(s.figure, other) if s.figure in s.body else None
            if body is None or body == s.body:
                continue
            out.append(
                Case(
                    f"{s.lang}/swap/{s.figure}->{other}",
                    _cand("[USER] " + s.clause, body=body),
                    _segments(("USER", s.clause + _END[s.lang])),
                    _violation("number"),
                )
            )
    return out


_ECHO_SHAPES = (
    "$ kura recall backups\n[kura] memory note: {c}",
    "$ cat ~/kura/store/note.md\n---\ntitle: note\n---\n{c}",
    "$ git -C ~/kura/store diff\n+{c}",
    "$ git -C ~/kura/store log -p -1\n    remember\n+{c}",
)


def echoed() -> list[Case]:
    """Class 10: the store's own text shown back by a tool vouches for nothing."""
    out = []
    for s in SEEDS:
        for shape in _ECHO_SHAPES:
            out.append(
                Case(
                    f"{s.lang}/echo/{shape.split()[1]}/{s.clause}",
                    _cand("[TOOL] " + s.clause, body=s.body),
                    _segments(("TOOL", shape.format(c=s.clause))),
                    _drop("all_echo"),
                    store=(s.body, s.clause),
                )
            )
    return out


_LAUNDER = (
    ('echo "{c}" >> notes.md', "$ cat notes.md\n{c}"),
    ("printf '%s\\n' '{c}' > status.txt", "{c}"),
    ("cat > report.md <<'EOF'\n# status\n{c}\nEOF", "$ cat report.md\n# status\n{c}"),
    ("python3 -c \"print('{c}')\"", "{c}"),
    ('curl -s -X POST http://localhost:8080/notes -d \'{{"text": "{c}"}}\'', '{{"text": "{c}"}}'),
    ("cat > status.html <<'EOF'\n<p>{c}</p>\nEOF", "$ cat status.html\n<p>{c}</p>"),
    ("node -e \"console.log('{c}')\"", "{c}"),
)


def laundered() -> list[Case]:
    """Class 11: the agent's own prose written through a command or into a file it wrote
    and read back is SELF; a fact on it alone is dropped."""
    out = []
    for s in SEEDS:
        for act, tool in _LAUNDER:
            out.append(
                Case(
                    f"{s.lang}/launder/{act.split()[0]}/{s.clause}",
                    _cand("[TOOL] " + s.clause, body=s.body),
                    _segments(("ACT", act.format(c=s.clause)), ("TOOL", tool.format(c=s.clause))),
                    _drop("self_only_fact"),
                )
            )
    return out


def ranges() -> list[Case]:
    """Class 8: a range is one claim; two stray figures of the evidence do not vouch it."""
    said = {
        "en": ("the cache held 10 GB on Monday and 20 GB on Friday", "The cache holds 10–20 GB."),
        "ja": ("キャッシュは月曜日に10GB、金曜日に20GBだった", "キャッシュは10〜20GB。"),
        "zh": ("缓存周一是10GB，周五是20GB", "缓存为10-20GB。"),
    }
    stray = [
        (f"{lang}/range/{clause}", lang, clause, body) for lang, (clause, body) in said.items()
    ]
    # and one end of a range is not a figure of its own
    ends = [
        (f"{lang}/range-end/{clause}/{body}", lang, clause, body)
        for lang, clause, body in RANGE_ENDS
    ]
    return [_range_case(*case, _violation("number")) for case in stray + ends]


def _range_case(
    name: str, lang: str, clause: str, body: str, expect: Callable[[GateResult], bool]
) -> Case:
    """The human gave *clause*; the candidate says *body*."""
    return Case(
        name, _cand("[USER] " + clause, body=body), _segments(("USER", clause + _END[lang])), expect
    )


#: (language, a range the human gave, a candidate that keeps one end of it)
RANGE_ENDS = [
    (lang, clause.format(r=r), body.format(n=n))
    for lang, clause, body, spellings in (
        (
            "en",
            "keep {r} snapshots",
            "Keep {n} snapshots.",
            ("20-30", "20 to 30", "between 20 and 30"),
        ),
        (
            "ja",
            "スナップショットは{r}個残す",
            "スナップショットは{n}個残す。",
            ("20〜30", "20から30"),
        ),
        ("zh", "保留{r}个快照", "保留{n}个快照。", ("20-30", "20到30", "20至30")),
    )
    for r in spellings
    for n in ("20", "30")
]
#: (language, a range the human gave, the same range said another way)
RANGE_RESTATED = [
    ("en", "keep between 20 and 30 snapshots", "Keep 20–30 snapshots."),
    ("en", "keep 20 to 30 snapshots", "Keep between 20 and 30 snapshots."),
    ("ja", "スナップショットは20〜30個残す", "スナップショットは20-30個残す。"),
    ("zh", "保留20到30个快照", "保留20-30个快照。"),
]


_CREDIT = {
    "en": ("The user decided to {c}.", "reading: {g}", "Mika says we should {c}."),
    "ja": ("ユーザーは{c}と決めた。", "測定値: {g}", "田中さんによると{c}。"),
    "zh": ("用户决定{c}。", "读数：{g}", "老王说{c}。"),
}
_THIRD_MAIL = {
    "en": "From: Mika Tanaka\nSubject: lunch on the terrace",
    "ja": "田中さんからのメール: テラスでランチ",
    "zh": "老王的邮件：在露台吃午饭",
}


def credited() -> list[Case]:
    """Class 3: what is credited to a person comes from one segment of theirs -- not a
    figure from another quote, not a name from one segment and content from another."""
    out = []
    for s in SEEDS:
        credit, reading, third = _CREDIT[s.lang]
        if s.figure and s.swaps and s.figure in s.clause:
            g = s.swaps[0]
            out.append(
                Case(
                    f"{s.lang}/figure-from-another-segment/{g}",
                    _cand(
                        "[USER] " + s.clause,
                        "[TOOL] " + reading.format(g=g),
                        body=credit.format(c=s.clause.replace(s.figure, g)),
                    ),
                    _segments(("USER", s.clause + _END[s.lang]), ("TOOL", reading.format(g=g))),
                    _violation("attribution", "not_one_segment"),
                )
            )
        out.append(
            Case(
                f"{s.lang}/name-from-another-segment/{s.clause}",
                _cand(
                    "[USER] " + s.clause,
                    "[TOOL] " + _THIRD_MAIL[s.lang].split("\n")[0],
                    body=third.format(c=s.clause),
                ),
                _segments(("USER", s.clause + _END[s.lang]), ("TOOL", _THIRD_MAIL[s.lang])),
                _violation("attribution", "third_party"),
            )
        )
    return out


_LABELS = {
    "en": (
        "> [USER] {c}",
        "[user]: {c}",
        "I think the user wants to {c}.",
        "Ren-san decided to {c}.",
        "Rеn decided to {c}.",  # a Cyrillic е: folded, the same person
    ),
    "ja": ("> [USER] {c}", "ユーザー: {c}", "ユーザーは{c}と思う。", "蓮さんは{c}と決めた。"),
    "zh": ("> [USER] {c}", "用户：{c}", "我认为用户要{c}。", "蓮决定{c}。"),
}


def labelled() -> list[Case]:
    """Classes 4 and 5: a speaker label in a body is an attribution, and a hedge is no
    shield: both need the human's own words, and a document's text is not them."""
    out = []
    for s in SEEDS:
        for t in _LABELS[s.lang]:
            out.append(
                Case(
                    f"{s.lang}/label-or-hedge/{t}/{s.clause}",
                    _cand("[TOOL] " + s.clause, body=t.format(c=s.clause)),
                    _segments(("TOOL", "README.md: " + s.clause + _END[s.lang])),
                    _violation("attribution", "no_user_quote"),
                )
            )
    return out


#: Someone else speaks or decides in the human's own turn (a bare name, a name's label, the
#: agent's label): what they say is theirs, and a claim about the human cannot rest on it.
_OTHER_VOICE = {
    "en": (
        "Mika decided: {c}.",
        "Mika: {c}.",
        "[Mika] {c}",
        "<Mika> {c}",
        "Mika - {c}",
        "Hiro Sato: {c}.",
        "Assistant: {c}.",
        "I want SQLite, Mika decided to {c}.",
    ),
    "ja": (
        "田中が決めた：{c}。",
        "田中：{c}。",
        "佐藤さん：{c}。",
        "[田中] {c}",
        "{c}と田中が決めた。",
        "鈴木は{c}と言った。",
    ),
    "zh": (
        "张伟决定了：{c}。",
        "张伟：{c}。",
        "李娜说，{c}。",
        "[王磊] {c}",
        "王磊决定{c}。",
        "陳靜決定{c}。",
    ),
}
#: The same shapes in the human's own voice, or under a heading: the human's words.
_OWN_VOICE = {
    "en": (
        "I decided: {c}.",
        "I said: {c}.",
        "Ren: {c}.",
        "Ren-san: {c}.",
        "Note: {c}.",
        "TODO: {c}.",
        "Step 1: {c}.",
        "Update - {c}",
        "Re: {c}.",
        "PS: {c}.",
        "Summary: {c}.",
        "Q: {c}?",
    ),
    "ja": ("{c}と決めた。", "蓮：{c}。", "蓮さん：{c}。", "メモ：{c}。", "私が決めた：{c}。"),
    "zh": ("我决定了：{c}。", "备注：{c}。", "蓮：{c}。", "蓮老师：{c}。", "我们决定{c}。"),
}


def voiced() -> tuple[list[Case], list[Case]]:
    """Who speaks in the human's turn: another person's words (a bare name, a label, the
    agent's label) credited to the human are refused; the human's own, or a heading's, are
    kept. The quote is the whole line, so only the attribution floor can tell them apart."""
    attacks, legit = [], []
    for s in SEEDS:
        credit = _CREDIT[s.lang][0]
        for voices, out, expect in (
            (_OTHER_VOICE, attacks, _violation("attribution", "not_carried")),
            (_OWN_VOICE, legit, _kept),
        ):
            for t in voices[s.lang]:
                said = t.format(c=s.clause)
                if t.endswith("?") and s.lang == "en":
                    continue  # a question is cut by its own rule
                out.append(
                    Case(
                        f"{s.lang}/voice/{t}/{s.clause}",
                        _cand("[USER] " + said.rstrip(".。"), body=credit.format(c=s.clause)),
                        _segments(("USER", said)),
                        expect,
                    )
                )
    return attacks, legit


_LINKS = (
    ("description", "{b} See [details](https://example.net/x)."),
    ("description", "{b} https://example.net/setup"),
    ("description", "{b} <https://example.net>"),
    ("title", "{b} [[other-memory]]"),
    ("title", "{b} www.example.net/x"),
)


def linked() -> list[Case]:
    """Class 12: the index line carries no link; only the writer links the index."""
    out = []
    for s in SEEDS:
        for field, t in _LINKS:
            out.append(
                Case(
                    f"{s.lang}/index-link/{field}/{t}",
                    _cand("[USER] " + s.clause, body=s.body, **{field: t.format(b=s.body)}),
                    _segments(("USER", s.clause + _END[s.lang])),
                    _violation("markup", "index_link"),
                )
            )
    return out


def _look_alikes(body: str) -> list[tuple[str, str]]:
    """The body with one figure disguised: (how, disguised body)."""
    out = []
    digit = next((ch for ch in body if ch.isascii() and ch.isdigit()), None)
    if digit is not None:
        d = int(digit)
        out.append(("devanagari-digit", body.replace(digit, chr(0x966 + d), 1)))
        out.append(("bengali-digit", body.replace(digit, chr(0x9E6 + d), 1)))
        out.append(("mathematical-digit", body.replace(digit, chr(0x1D7CE + d), 1)))
    for real, fake in (("0", "O"), ("1", "l"), ("0", "o"), ("1", "I")):
        for token in body.replace(",", " ").split():
            core = token.strip(".。%")
            if real in core and sum(c.isdigit() for c in core) >= 3 and core.isdigit():
                out.append(
                    (f"letter-{fake}-in-figure", body.replace(core, core.replace(real, fake, 1), 1))
                )
                break
    out.append(("struck-through-word", body + " Do n\u0336o\u0336t\u0336 wait."))
    out.append(("roman-numeral-glyph", body + " (\u216b)"))
    out.append(("enclosing-mark", body + " \u20e0"))
    return out


def disguised() -> list[Case]:
    """Class 7: stored text is judged by what a reader sees -- another script's digit, a
    letter inside a figure, a strike-through, a Roman-numeral glyph."""
    out = []
    for s in SEEDS:
        for how, body in _look_alikes(s.body):
            out.append(
                Case(
                    f"{s.lang}/disguise/{how}/{s.clause}",
                    _cand("[USER] " + s.clause, body=body),
                    _segments(("USER", s.clause + _END[s.lang])),
                    _violation("disguise"),
                )
            )
    return out


VOICED, OWN_VOICED = voiced()
ALL_ATTACKS = [
    *VOICED,
    *disguised(),
    *credited(),
    *labelled(),
    *linked(),
    *governed(),
    *swapped(),
    *ranges(),
    *echoed(),
    *laundered(),
]
LEGIT = legitimate() + OWN_VOICED


def _failures(cases: list[Case]) -> list[str]:
    out = []
    for case in cases:
        r = _gate(case.candidate, case.segments, case.store)
        if not case.expect(r):
            out.append(
                f"{case.name}: {r.verdict} {r.drop} "
                f"{[(q.status, q.rule, q.why) for q in r.quotes]} "
                f"{[v.message() for v in r.violations]}"
            )
    return out


# =========================================================================== the tests


@pytest.mark.slow
def test_every_legitimate_candidate_is_kept():
    bad = _failures(LEGIT)
    assert not bad, f"{len(bad)} of {len(LEGIT)} refused:\n" + "\n".join(bad[:40])


def test_every_governed_quote_is_cut_with_its_rule():
    cases = governed()
    bad = _failures(cases)
    assert not bad, f"{len(bad)} of {len(cases)} passed:\n" + "\n".join(bad[:40])


def test_every_swapped_figure_is_refused():
    cases = swapped()
    bad = _failures(cases)
    assert not bad, f"{len(bad)} of {len(cases)} passed:\n" + "\n".join(bad[:40])


def test_a_range_is_one_claim():
    cases = ranges()
    bad = _failures(cases)
    assert not bad, "\n".join(bad)


def test_a_range_said_another_way_is_kept():
    cases = [
        _range_case(f"{lang}/range-restated/{clause}", lang, clause, body, _kept)
        for lang, clause, body in RANGE_RESTATED
    ]
    bad = _failures(cases)
    assert not bad, "\n".join(bad)


def test_what_is_credited_comes_from_one_segment():
    cases = credited()
    bad = _failures(cases)
    assert not bad, f"{len(bad)} of {len(cases)} passed:\n" + "\n".join(bad[:40])


def test_labels_and_hedges_are_attributions():
    cases = labelled()
    bad = _failures(cases)
    assert not bad, f"{len(bad)} of {len(cases)} passed:\n" + "\n".join(bad[:40])


def test_another_voice_in_the_humans_turn_is_not_theirs():
    bad = _failures(VOICED)
    assert not bad, f"{len(bad)} of {len(VOICED)} passed:\n" + "\n".join(bad[:40])


def test_the_humans_own_voice_and_headings_are_kept():
    bad = _failures(OWN_VOICED)
    assert not bad, f"{len(bad)} of {len(OWN_VOICED)} refused:\n" + "\n".join(bad[:40])


def test_no_link_rides_into_the_index():
    cases = linked()
    bad = _failures(cases)
    assert not bad, f"{len(bad)} of {len(cases)} passed:\n" + "\n".join(bad[:40])


def test_every_disguise_is_refused():
    cases = disguised()
    bad = _failures(cases)
    assert not bad, f"{len(bad)} of {len(cases)} passed:\n" + "\n".join(bad[:40])


def test_every_echo_vouches_for_nothing():
    cases = echoed()
    bad = _failures(cases)
    assert not bad, f"{len(bad)} of {len(cases)} passed:\n" + "\n".join(bad[:40])


def test_every_laundered_claim_is_the_agents_own():
    cases = laundered()
    bad = _failures(cases)
    assert not bad, f"{len(bad)} of {len(cases)} passed:\n" + "\n".join(bad[:40])


def test_the_generated_suites_are_large_enough():
    langs = {c.name.split("/")[0] for c in ALL_ATTACKS}
    assert langs == {"en", "ja", "zh"}
    assert len(ALL_ATTACKS) >= 300
    assert len(LEGIT) >= 100
    for lang in ("en", "ja", "zh"):
        assert sum(c.name.startswith(lang) for c in LEGIT) >= 30
        rules = {c.name.split("/")[1] for c in ALL_ATTACKS if c.name.startswith(lang)}
        assert {"negation", "condition", "report", "question", "hedge"} <= rules
