"""Voices inside the person's turn, and ACT only for what happened.

A USER segment holds what the person pasted (a mail, minutes, a chat log, a hand-off) as
well as their own words: a quote from pasted material is filed as TOOL (it vouches figures
and what its own speaker said), never as the person's. A call that failed or that the
person refused vouches "it was tried", never "it was done"."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from kura_core.distill.evidence import Segment
from kura_core.distill.gate import call_outcome, run_gate
from kura_core.floors.voices import addressed, introduced, voices


def seg(cls: str, text: str, i: int, kind: str = "") -> Segment:
    return Segment(cls, text, "t.jsonl", i, i + 1, "seq", kind=kind or f"{cls.lower()} text")


def segs(*parts: tuple) -> list[Segment]:
    return [seg(*p, i) if len(p) == 2 else seg(p[0], p[1], i, p[2]) for i, p in enumerate(parts)]


def cand(body: str, *quotes: str, kind: str = "fact") -> dict:
    return {
        "kind": kind,
        "title": body[:40],
        "description": body[:60],
        "body": body,
        "quotes": list(quotes),
    }


def spoken(text: str) -> list[tuple[str, str]]:
    return [(v.speaker, text[v.start : v.end]) for v in voices(text)]


# --------------------------------------------------------------------------- voices

MINUTES_EN = (
    "Here's the hand-off from the other agent:\n\n## Hand-off\n- Migrated orders to dbt 1.9\n"
    "- Recommend raising the warehouse to MEDIUM\n\nAnd the minutes from standup:\n"
    "Tom: we should drop the legacy table by Friday\nAisha: the dashboards still read it\n\n"
    "Run the tests first. Don't raise the warehouse size."
)
LINE_JA = (
    "健太とのLINEを貼ります。\n健太：棚卸しは12月28日にやろう\n健太：レジ袋は来年から有料で\n\n"
    "棚卸しの日はそれで決まり。レジ袋の件はまだ決めてない。"
)
CHAT_ZH = (
    "这是家里群里的聊天：\n老公：保险续费我来交，大概4,500\n婆婆：机票要早点买\n\n保险让他交。"
)
MAIL_JA = (
    "税理士の先生からのメール：\n---\n差出人: 佐藤 恵子 <sato@example.jp>\n"
    "源泉徴収票は1月20日までにお送りください。\n---\n代行は佐藤先生にお願いする。"
)


def test_pasted_material_and_labelled_lines_are_not_the_persons_words():
    en = spoken(MINUTES_EN)
    assert ("", "- Recommend raising the warehouse to MEDIUM") in en
    assert ("Tom", "Tom: we should drop the legacy table by Friday") in en
    assert all("Don't raise" not in t and "And the minutes" not in t for _, t in en)
    ja = spoken(LINE_JA)
    assert [w for w, _ in ja] == ["健太", "健太"]
    assert all("まだ決めてない" not in t for _, t in ja)
    zh = spoken(CHAT_ZH)
    assert [w for w, _ in zh] == ["老公", "婆婆"]
    mail = spoken(MAIL_JA)
    assert {w for w, _ in mail} == {
        "佐藤 恵子 (example.jp)"
    }  # the sender, and the domain they write from
    assert any("1月20日" in t for _, t in mail) and all("お願いする" not in t for _, t in mail)


CHAT_EN_TIMED = (
    "greenleaf stuff, from our whatsapp group:\n\n"
    "[09:12] Tomasz (Greenleaf): can we move tuesday sourdough to wednesday?\n"
    "[09:15] Priya (driver): wed is ok for me if its before 7\n\n"
    "move the tuesday sourdough to wednesday pls"
)
MINUTES_JA_ROLES = (
    "昨日の家族会議メモ貼る:\n\n妻(由美): 初期費用は150万円まで。ローンは組みたくない。\n"
    "父: 20年保証のほうが安心だと思う\n\nって感じ。補助金の締切は12月15日。"
)


def test_a_label_may_give_a_role_or_a_firm_beside_the_name():
    """ "Tomasz (Greenleaf):", "妻(由美):": the line is the named speaker's, and the name in
    the parentheses finds them too."""
    en = spoken(CHAT_EN_TIMED)
    assert [w for w, _ in en] == ["Tomasz (Greenleaf)", "Priya (driver)"]
    assert all("pls" not in t for _, t in en)
    ja = spoken(MINUTES_JA_ROLES)
    assert [w for w, _ in ja] == ["妻 (由美)", "父"]
    assert all("補助金" not in t for _, t in ja)
    # the person's own words after the minutes stay theirs, and a pasted line credits no one
    evidence = segs(("USER", MINUTES_JA_ROLES))
    kept = run_gate(
        [cand("ユーザーはローンは組みたくないと言っている。", "[USER] ローンは組みたくない。")],
        evidence,
    )
    assert kept[0].verdict == "dropped"


def test_a_pasted_block_ends_where_the_person_writes_on():
    """A delimiter never closed keeps its first paragraph only; codes pasted after an
    introduction end where the person's prose starts, with or without a blank line."""
    creds = (
        "runner の credentials:\n~/.gem/credentials\n---\n:rubygems_api_key: [secret:api-key]\n\n"
        "这次先只发 PyPI 和 npm，rubygems 跟 crates 下周再说"
    )
    got = spoken(creds)
    assert any("rubygems_api_key" in t for _, t in got)
    assert all("下周再说" not in t for _, t in got)
    codes = (
        "リカバリーコードここに貼っとく\n7h2k-9qwm-x4pd\n3nfz-8ave-q1rc\n"
        "リリースは v2.14.4 で切ってください"
    )
    assert [t for _, t in spoken(codes)] == ["7h2k-9qwm-x4pd", "3nfz-8ave-q1rc"]
    # a heading opens a hand-off: its lines of prose stay pasted
    assert any("Recommend" in t for _, t in spoken(MINUTES_EN))


_KAREN = (
    "League fine, finally sorted. Thread below.\n\n"
    "---------- Forwarded message ---------\n"
    "From: Karen Whitlow <fixtures@league.example.org>\nSubject: Re: Fine notice\n\n"
    "Dave,\n\nAs it's a first offence the £15 admin charge is waived.\n\n"
    "Karen Whitlow\nFixtures Secretary, East Mids Sunday League\n\n"
    "Fair enough. We're paying the £40. We are not appealing."
)


@pytest.mark.parametrize(
    ("mail", "pasted", "own"),
    [
        # a forwarded mail never closed by a delimiter ends with its signature: a name and
        # the sender's title or firm
        (_KAREN, "admin charge is waived", "We're paying"),
        # a name over sentences is the mail going on, not its signature
        (
            _KAREN.replace("Fixtures Secretary, East Mids Sunday League", "We will review it."),
            "review it",
            "",
        ),
        # a mail's header after "fwd from …:" opens its body, which ends with the paragraph
        # its "Regards, …" line closes
        (
            "fwd from the water company:\n\nFrom: billing@water.example\nSubject: Spring rate\n"
            "Dear garden,\nstarting April 1 the rate rises to $3.10.\nRegards, Teresa Ng, "
            "Accounts\n\nso yeah water's going up. I'm not raising the fee this year.",
            "rate rises",
            "not raising",
        ),
    ],
)
def test_a_mail_ends_where_it_is_signed_and_the_persons_words_after_it_are_theirs(
    mail, pasted, own
):
    got = spoken(mail)
    assert any(pasted in t for _, t in got)
    assert not own or all(own not in t for _, t in got)


def test_a_rule_of_full_width_bars_closes_a_paste():
    """A block drawn between lines of ―, ─ or ー closes where the second line stands; the
    person's words after it are theirs."""
    minutes = (
        "議事録を貼ります。\n――――\n出席: 森下、西川\n 西川: 現行リースは月額12,800円で満了。\n――――\n"
        "休暇は1月16日までに直しておいてください。"
    )
    got = spoken(minutes)
    assert any(w == "西川" for w, _ in got)
    assert all("直しておいて" not in t for _, t in got)


def test_a_chinese_dash_under_copied_chat_messages_closes_them():
    """Chat messages copied under their heads (a familiar name, a firm in brackets, the
    time) are the sender's; a line of —— under them closes the paste, and what follows is
    the person's. A —— under the person's own line opens nothing."""
    chat = (
        "华芯小陈刚发的微信，我直接复制过来：\n小陈（华芯科技）  14:32\n"
        "林工，JL7018F 现货价 6.5 元/个含税，MOQ 3000\n小陈（华芯科技）  14:33\n"
        "如果你们能下 1 万的 PO，可以做到 5.9 元含税\n——\n1 万的量现在不敢下，老板还没定。"
    )
    got = spoken(chat)
    assert ("小陈", "如果你们能下 1 万的 PO，可以做到 5.9 元含税") in got
    assert all("不敢下" not in t for _, t in got)
    assert spoken("先这样定了\n——\n下周再看报价，别急着下单。") == []


def test_a_persons_name_as_a_label_before_what_they_said_is_theirs():
    """A label that reads as a person's name, then a sentence no field is ("老黄：阿强啊 …"),
    is that person's speech though the label comes once; a field or an assignment after a
    name, or a list item's title, stays the person's own."""
    text = (
        "老黄回了，语音转文字：\n\n老黄：阿强啊 D2317那个面料今天到咗 最快下礼拜三出货 "
        "黑色杏色各做六百件 拿货价还是三十八 你考虑下啦\n\n一千二百件我吃不下，先要黑色三百。"
    )
    got = spoken(text)
    assert [w for w, _ in got] == ["老黄"]
    assert all("吃不下" not in t for _, t in got)
    assert spoken("安排一下：\n小王：负责采购\n今天就发") == []
    item = "5. The Cintiq: please claim its full cost. Actually no, I use it for my own drawing."
    assert spoken(f"my corrections:\n{item}\nthanks") == []


def test_a_chat_history_saved_with_tabs_is_its_senders():
    """A talk history saved by a chat app, each line the time, the sender and the message
    between tabs, is the senders'; the person's words after it are theirs."""
    text = (
        "健太からLINE来た。そのまま貼る\n\n2025/10/19(日)\n"
        "20:14\t健太\t来年は新之助もっと増やしたほうがいいって\n"
        "20:15\t健太\t寺前の田んぼ、誰かに貸したらどう？\n\n"
        "増やすかどうかはまだ様子見らろ。"
    )
    got = spoken(text)
    assert [w for w, t in got if "新之助" in t or "寺前" in t] == ["健太", "健太"]
    assert all("様子見" not in t for _, t in got)


def test_closing_a_paste_and_asking_for_a_summary_are_the_persons_own():
    """ "以上です。" closes pasted minutes and the person writes on in the same line; a line
    that asks for a summary to be written introduces no paste."""
    minutes = (
        "議事録を貼ります。\n\n【議事録 11/17】\n校長（山口）：受講料は検討したい。\n"
        "佐藤：定員は8名まで。\n\n以上です。受講料の件はまだ決まっていないので、入れないでね。"
    )
    got = spoken(minutes)
    assert [w for w, _ in got][-2:] == ["校長 (山口)", "佐藤"]
    assert all("入れないで" not in t for _, t in got)
    asks = (
        "想把成绩整理进 results.csv，再写一份俱乐部内部的总结。几点说明：\n\n"
        "1. 成绩一律以官方计时为准，不要用 Strava 上的时间。\n2. 王芳 DNF 了。"
    )
    assert spoken(asks) == []


def test_the_persons_own_fields_and_notes_stay_theirs():
    for text in (
        "Budget: 3,000 a month\nDeadline: Friday",  # fields, no label recurs, no paste
        "> Note: keep the nightly backups for 14 days",  # the person's own emphasis
        "Please do the following:\n- back up the database\n- delete the old logs",
        "预算：每月3,000元\n时间：周五",
        "补贴是每瓦0.1元\n\n上传间隔改成15分钟",  # 补贴 (a subsidy) introduces nothing
    ):
        assert voices(text) == (), text


@settings(max_examples=80, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "Tom: ok",
                "> quoted",
                "---",
                "",
                "plain words",
                "转发：",
                "健太：はい",
                "1. 阿杰：好",
                "Note: x",
            ]
        ),
        max_size=12,
    )
)
def test_voices_are_ordered_whole_lines_of_the_text(lines):
    text = "\n".join(lines)
    found = voices(text)
    ends = [0]
    for v in found:
        assert 0 <= v.start < v.end <= len(text) and v.start >= ends[-1]
        assert text[v.start : v.end] in lines
        ends.append(v.end)


def test_a_quote_from_pasted_material_is_filed_as_tool_and_credits_no_one_else():
    journal = segs(("USER", MINUTES_EN))
    leak = cand(
        "The user wants the warehouse raised to MEDIUM.",
        "[USER] Recommend raising the warehouse to MEDIUM",
    )
    honest = cand(
        "Tom wants to drop the legacy table by Friday.",
        "[USER] Tom: we should drop the legacy table by Friday",
    )
    own = cand("The user asked to run the tests first.", "[USER] Run the tests first.")
    got = run_gate([leak, honest, own], journal)
    assert got[0].verdict == "dropped" and got[0].quotes[0].cls == "TOOL"
    assert [v.rule for v in got[0].violations] == ["no_user_quote"]
    assert got[1].verdict == "kept" and got[1].quotes[0].cls == "TOOL"
    assert got[2].verdict == "kept" and got[2].quotes[0].cls == "USER"


def test_a_labelled_line_is_its_speakers_and_the_person_keeps_their_own_clause():
    journal = segs(("USER", LINE_JA))
    leak = cand(
        "ユーザーはレジ袋を来年から有料にすると決めた。", "[USER] 健太：レジ袋は来年から有料で"
    )
    honest = cand(
        "健太が棚卸しは12月28日にやろうと提案し、ユーザーは「棚卸しの日はそれで決まり」と答えた。",
        "[USER] 健太：棚卸しは12月28日にやろう",
        "[USER] 棚卸しの日はそれで決まり。",
    )
    got = run_gate([leak, honest], journal)
    assert got[0].verdict == "dropped"
    assert got[1].verdict == "kept", [v.message() for v in got[1].violations]


def test_the_agents_words_quoted_back_stay_self():
    journal = segs(
        ("SELF", "I think the cache should move to the scratch disk tonight."),
        ("USER", "You wrote:\n> the cache should move to the scratch disk tonight\nok, later."),
    )
    got = run_gate(
        [
            cand(
                "The user wants the cache moved tonight.",
                "[USER] the cache should move to the scratch disk tonight",
            )
        ],
        journal,
    )[0]
    assert got.quotes[0].cls == "SELF" and got.verdict == "dropped"


# --------------------------------------------------------------------------- ACT


def test_a_call_with_empty_output_that_the_agent_speaks_after_was_answered():
    journal = segs(
        ("ACT", "Bash: ls /srv", "tool_use Bash"),
        ("TOOL", "exports", "tool_result Bash"),
        ("ACT", "shell: printf 'x' >> todo.jsonl", "tool_use shell"),
        ("SELF", "I've added the question to todo.jsonl.", "assistant message"),
        ("USER", "thanks", "user message"),
        ("ACT", "Bash: mail -s hi okafor@example.org < a.pdf", "tool_use Bash"),
        ("SELF", "Send the form", "description (the agent's words)"),
        ("USER", "don't email him yet", "user message"),
    )
    # an empty output leaves no record, but the agent only speaks once the call is back;
    # a piece of the call itself (its description) is no such word
    assert [call_outcome(journal, i) for i in (2, 5)] == ["", "unanswered"]


def test_calls_the_journal_says_completed_without_output_await_no_result(tmp_path):
    """opencode keeps a call and its outcome in one part: an edit that completed and
    printed nothing has no result after it, and the calls after it keep their own."""
    import json

    from kura_core.distill.journals import read_journal

    def tool(n: int, name: str, args: dict, output: str) -> dict:
        state = {"status": "completed", "input": args, "output": output}
        return {"id": f"p{n}", "type": "tool", "tool": name, "callID": f"c{n}", "state": state}

    edit = {
        "filePath": "/w/plans.yaml",
        "oldString": "a: 1",
        "newString": "grandfather: 2026-07-01",
    }
    export = {
        "info": {"id": "ses_1", "directory": "/w"},
        "messages": [
            {
                "info": {"id": "m1", "sessionID": "ses_1", "role": "user", "time": {"created": 1}},
                "parts": [{"id": "p0", "type": "text", "text": "set the grandfather date"}],
            },
            {
                "info": {
                    "id": "m2",
                    "sessionID": "ses_1",
                    "role": "assistant",
                    "time": {"created": 2},
                },
                "parts": [
                    tool(1, "edit", edit, ""),
                    tool(2, "bash", {"command": "yq .grandfather plans.yaml"}, "2026-07-01"),
                ],
            },
            {
                "info": {"id": "m3", "sessionID": "ses_1", "role": "user", "time": {"created": 3}},
                "parts": [{"id": "p9", "type": "text", "text": "thanks"}],
            },
        ],
    }
    path = tmp_path / "export-ses_1.json"
    path.write_text(json.dumps(export), encoding="utf-8")
    _, read = read_journal(path, None)
    journal = list(read.segments)
    acts = [i for i, s in enumerate(journal) if s.cls == "ACT"]
    assert len(acts) == 2 and [call_outcome(journal, i) for i in acts] == ["", ""]
    kept = run_gate(
        [cand("plans.yaml now sets grandfather to 2026-07-01.", "[ACT] grandfather: 2026-07-01")],
        journal,
    )[0]
    assert kept.verdict == "kept", kept.violations


def test_a_refused_or_failed_call_vouches_tried_not_done():
    journal = segs(
        ("ACT", "Bash: rm -rf /srv/exports/2025", "tool_use Bash"),
        ("SELF", "Clear last year's exports", "description (the agent's words)"),
        ("USER", "not yet, keep them", "the person's reason for refusing a tool call"),
        ("ACT", "Bash: systemctl enable backup.timer", "tool_use Bash"),
        (
            "TOOL",
            "Failed to enable unit: Unit file backup.timer does not exist.",
            "tool_result Bash (error)",
        ),
        ("ACT", "shell: rm -rf presets/web", "tool_use shell"),
        ("TOOL", "rm: cannot remove 'presets/web': Permission denied", "tool_result shell"),
        ("ACT", "Bash: ls /srv", "tool_use Bash"),
        ("TOOL", "exports\nmedia", "tool_result Bash"),
    )
    assert [call_outcome(journal, i) for i in (0, 3, 5, 7)] == ["refused", "failed", "failed", ""]
    done = cand(
        "Last year's exports in /srv/exports/2025 were cleared out.",
        "[ACT] rm -rf /srv/exports/2025",
    )
    tried = cand(
        "Clearing /srv/exports/2025 was tried and refused.", "[ACT] rm -rf /srv/exports/2025"
    )
    enabled = cand("The backup.timer unit is enabled.", "[ACT] systemctl enable backup.timer")
    removed = cand("presets/web was removed.", "[ACT] rm -rf presets/web")
    removed_zh = cand("presets/web 删除失败。", "[ACT] rm -rf presets/web")
    got = run_gate([done, tried, enabled, removed, removed_zh], journal)
    assert [r.verdict for r in got] == ["dropped", "kept", "dropped", "dropped", "kept"]
    assert {(v.kind, v.rule, v.note) for v in got[0].violations} == {("act", "not_done", "refused")}


def test_a_retry_that_succeeded_vouches_done():
    journal = segs(
        ("ACT", "Bash: dbt run --select orders", "tool_use Bash"),
        ("TOOL", "Database Error in model orders", "tool_result Bash (error)"),
        ("ACT", "Bash: dbt run --select orders", "tool_use Bash"),
        ("TOOL", "Completed successfully", "tool_result Bash"),
    )
    got = run_gate(
        [cand("The orders model was rebuilt.", "[ACT] dbt run --select orders")], journal
    )[0]
    assert got.verdict == "kept" and got.quotes[0].segment.start == 2


# --------------------------------------------------------------------------- numbers


def test_a_column_header_gives_its_column_a_unit_and_no_other():
    table = "区分         件数     金額(円)\n店頭売上      412    1,284,600\n返品            8      ▲42,300"
    journal = segs(("TOOL", table))
    ok = cand("店頭売上は412件、1,284,600円。", "[TOOL] 店頭売上 412 1,284,600")
    swapped = cand("店頭売上は412円。", "[TOOL] 店頭売上 412 1,284,600")
    got = run_gate([ok, swapped], journal)
    assert [r.verdict for r in got] == ["kept", "dropped"]


def test_a_space_between_a_figure_and_its_counter_is_no_difference():
    journal = segs(("USER", "支払いは 9 月 1 日 までに 3 件 まとめて払う"))
    got = run_gate(
        [cand("9月1日までに3件払う。", "[USER] 支払いは 9 月 1 日 までに 3 件 まとめて払う")],
        journal,
    )[0]
    assert got.verdict == "kept", [v.message() for v in got.violations]


def test_a_figure_after_a_labels_colon_keeps_its_spaced_counter():
    """开机费：800 元/次 is 800 元 a time, as 开机费 800 元/次 is; a clock (13：10) and a
    port (host:8080) keep their colon's figure whole."""
    from kura_core.floors.quantities import scan

    for text in ("开机费：800 元/次", "开机费: 800 元/次", "开机费 800 元/次"):
        got = [(q.value, q.unit, q.per) for q in scan(text)]
        assert got == [(800, "CNY", "次")], (text, got)
    assert [q.text for q in scan("时间：13：10 分")] == ["13:10"]
    assert [q.unit for q in scan("port:8080 端口")] == [""]


def test_tool_output_past_the_label_the_agent_typed_is_the_tools():
    """``grep -o 'Firmware Version[^<]*'`` typed the label; the router printed the version
    after it. A quote of the line is the tool's, and vouches the version; output that only
    repeats what the agent typed vouches nothing."""
    journal = segs(
        (
            "ACT",
            "run_shell_command: curl -s http://192.168.1.1/status | grep -o 'Firmware Version[^<]*'",
        ),
        ("TOOL", "Firmware Version: OpenWrt 23.05.3"),
        ("SELF", "旧路由固件是 OpenWrt 23.05.3。"),
        ("ACT", "run_shell_command: echo 'RAM: 64GB, Disk: 2TB' > notes.txt && cat notes.txt"),
        ("TOOL", "RAM: 64GB, Disk: 2TB"),
    )
    kept, echoed = run_gate(
        [
            cand("旧路由固件是 OpenWrt 23.05.3。", "[TOOL] Firmware Version: OpenWrt 23.05.3"),
            cand("The box has 64GB of RAM.", "[TOOL] RAM: 64GB, Disk: 2TB"),
        ],
        journal,
    )
    assert kept.verdict == "kept", [v.message() for v in kept.violations]
    assert echoed.verdict == "dropped"


def test_a_pasted_quotation_ends_where_its_mark_closes():
    text = (
        "朋友转了一段别的 AI 的总结，贴一下你参考：\n「建议关闭 IPv6，否则会断流。」\n"
        "我不打算关 IPv6。预算 899 元。"
    )
    assert [t for _, t in spoken(text)] == ["「建议关闭 IPv6，否则会断流。」"]


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("你好 我是溪畔小院的老杨 在沙溪 我想把房价定一下", ("老杨",)),  # their place first
        ("我是杭州青禾的王总，想问个事", ("王总",)),
        ("我是说的是这个文件", ()),  # 我是说: "I mean", no name
        ("こんにちは、カフェ・ルポの田中です。", ("田中",)),  # after a greeting
        ("ええと、カフェ・ルポの田中です。", ()),  # no greeting: 田中 may be someone asked for
        ("担当は、田中です。", ()),  # who is in charge, not who speaks
    ],
)
def test_a_person_names_themself_after_a_greeting_or_their_place(text, names):
    assert introduced(text) == names


@pytest.mark.parametrize(
    ("text", "speaker"),
    [
        ("Slack:\n\n田中 遼  [10:42]\n単価は１０円まで下げたらしいよ。\n\nうーん。", "田中 遼"),
        ("this came in\nDana Reyes  10:42 AM\nkegs are ordered\n\nok?", "Dana Reyes"),
        ("from discord\nPriya — Today at 9:15 PM\nthe venue is booked\n\nnice", "Priya"),
    ],
)
def test_a_message_copied_out_of_a_chat_app_is_its_senders(text, speaker):
    found = voices(text)
    lines = {text[v.start : v.end]: v.speaker for v in found}
    message = text.split("\n")[3 if text.startswith("Slack") else 2]
    assert lines.get(message) == speaker
    assert not any(v.start >= text.rindex("\n\n") for v in found)  # the person's reply


def test_a_word_and_a_time_of_the_persons_own_notes_is_no_chat_head():
    assert voices("notes for today\nDelivery 10:42 AM\nkegs are ordered\n\nok?") == ()


@pytest.mark.parametrize(
    ("text", "writer", "theirs", "own"),
    [
        (
            "中原さんの作業日誌、今朝の分を貼っとく。\n【作業日誌 12/8(火) 杜氏 中原】\n"
            "・瓶詰め：四合瓶は12/11(金)の午後なら180本まで\n以上\nてことで、10日には無理じゃっど。",
            "中原",
            "・瓶詰め：四合瓶は12/11(金)の午後なら180本まで",
            "てことで、10日には無理じゃっど。",
        ),
        (
            "Here's Pieter's handover:\nFed the ewes at 7.\nGate on the top field is broken.\n\n"
            "Ok so what now?",
            "Pieter",
            "Fed the ewes at 7.",
            "Ok so what now?",
        ),
        (
            "小李的交班记录贴一下：\n今天卖了30杯\n押金收了200\n\n明天我来",
            "小李",
            "今天卖了30杯",
            "明天我来",
        ),
    ],
)
def test_a_document_an_introduction_gives_to_its_writer_is_theirs_to_its_closing_word(
    text, writer, theirs, own
):
    found = spoken(text)
    assert (writer, theirs) in found, found
    assert all(own not in span for _w, span in found), found


def test_the_persons_own_document_has_no_other_writer():
    text = "我的日报贴一下：\n今天卖了30杯\n\n好"
    assert [w for w, _ in spoken(text)] == [""]


@pytest.mark.parametrize(
    ("text", "name"),
    [
        (
            "Sponsor mail came in:\nFrom: Ads <ads@crisp.example>\nTo: Sharlene Morrison <m@radio.example>\n",
            "Sharlene",
        ),
        ("来てたFAX貼っとくちゃ\n宛先：沢井配置薬品 沢井 勝彦 様\n送信元：越中健明堂", "沢井"),
        ("the bait agent sent me this:\n---\nSummary for Bernie: the co-op owes $1,240.", "Bernie"),
        (
            "Got the plant's mail:\n> From: Ellery Bay <x@ellery.example>\n> Hi Bernie,\n> The final price",
            "Bernie",
        ),
    ],
)
def test_a_pasted_header_salutation_or_hand_off_names_the_person(text, name):
    assert name in addressed(text)


@pytest.mark.parametrize(
    "text",
    [
        # a mail the person sent: no word says they got it
        "Here's what I sent them:\nTo: Marcia Grant <marcia@crisp.example>\n",
        # a hand-off to the whole team names no one
        "the agent left this:\nSummary for Team: backups ran.",
    ],
)
def test_a_mail_sent_or_a_team_hand_off_names_no_one(text):
    assert addressed(text) == ()
