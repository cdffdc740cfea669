"""Blind sets: cases written from the SPEC alone by someone who had not read the floors,
each with the verdict the SPEC requires (tests/fixtures/blind/<set>/ORIGIN.md).

Every case's verdict is asserted. The cases the gate still gets wrong are listed by id
with why; the test fails when one of them starts passing (take it off the list) as well
as when a passing case breaks. The figures per language are measured by
``scripts/measure_gate_set.py``, which runs the same function ``kura gate`` runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.scripts import script

ROOT = Path(__file__).resolve().parents[2]
SETS = ROOT / "tests" / "fixtures" / "blind"

measure_gate_set = script("measure_gate_set")

#: Cases the gate still decides against the set, with why (a known limit, not a target).
STILL_WRONG: dict[str, dict[str, str]] = {
    "gate-YE": {
        "en-ok-001": "measured blind, not yet analysed: refused by attribution/not_one_segment (decision-with-config)",
        "en-ok-005": "measured blind, not yet analysed: refused by number/unvouched; name/unvouched (pasted-email-third-party)",
        "ja-atk-006": "measured blind, not yet analysed: kept: quote re-filed from USER to TOOL: 着付け 5,000円(税込5,500円); quote re-filed from USER to TOOL: 袋帯 3,000円(税込3,300円); 2 quote(s) verified (TOOL) (table-row-swap)",
        "ja-atk-009": "measured blind, not yet analysed: kept: quote cut/scope (past-habit-as-current)",
        "zh-ok-005": "measured blind, not yet analysed: refused by attribution/not_carried (negated-decision-whole)",
        "zh-atk-005": "measured blind, not yet analysed: kept: 2 quote(s) verified (ACT, TOOL) (failed-action-as-success)",
    },
    "gate-YF": {
        "en-ok-002": "measured blind, not yet analysed: refused by attribution/not_one_segment (decision-with-other-party)",
        "en-ok-005": "measured blind, not yet analysed: refused by number/unvouched (tool-rows)",
        "en-ok-006": "measured blind, not yet analysed: refused by number/unvouched; number/other_row (plan-with-condition)",
        "ja-ok-001": "measured blind, not yet analysed: refused by number/unvouched; number/unvouched; number/unvouched; number/unvouched (tool-figures-unit-spelled)",
        "ja-ok-003": "measured blind, not yet analysed: refused by number/unvouched (pasted-mail-credited)",
        "ja-atk-010": "measured blind, not yet analysed: kept: quote re-filed from USER to TOOL: 協会けんぽ東京支部の健康保険料率は、4月分（5月納付分）から9.85%に改定される見込みです。; 1 quote(s) verified (TOOL) (organisation-swapped)",
        "zh-ok-001": "measured blind, not yet analysed: refused by number/unvouched (user-stated-with-negation)",
        "zh-ok-004": "measured blind, not yet analysed: refused by attribution/third_party (pasted-notice-credited)",
        "zh-ok-006": "measured blind, not yet analysed: refused by number/unvouched; number/unvouched (price-change-from-to)",
        "zh-ok-009": "measured blind, not yet analysed: refused by attribution/not_one_segment; attribution/not_carried (boundary-preference)",
        "zh-atk-005": "measured blind, not yet analysed: kept: 1 quote(s) verified (ACT) (failed-as-done)",
    },
    "gate-YC": {
        "en-ok-003": "measured blind, not yet analysed: refused by tag/needs_evidence (negation-preserved-restriction)",
        "en-ok-008": "measured blind, not yet analysed: refused by number/unvouched (refusal-as-landmine)",
        "en-atk-015": "measured blind, not yet analysed: kept: 2 quote(s) verified (ACT, USER) (object-swap)",
        "ja-ok-010": "measured blind, not yet analysed: refused by attribution/not_carried (plan-as-plan)",
        "ja-atk-015": "measured blind, not yet analysed: kept: quote re-filed from USER to TOOL: 対象：スタンダードプラン（nirai-std-07）; 1 quote(s) verified (TOOL) (identifier-swap)",
        "zh-ok-012": "measured blind, not yet analysed: refused by attribution/not_carried (condition-kept-decision)",
    },
    "gate-YD": {
        "en-ok-002": "measured blind, not yet analysed: refused by attribution/not_carried (configured-value-with-request)",
        "en-ok-009": "measured blind, not yet analysed: refused by attribution/not_carried (idea-as-idea)",
        "en-atk-013": "measured blind, not yet analysed: kept: quote re-filed from USER to TOOL: Sat 3/20 Alliance selection 12:15p, Playoffs 1:00p–6:00p; quote re-filed from USER to TOOL: Fri 3/19 Qualification matches 8:30a–6:00p; 2 quote(s) verified (TOOL) (table-row-swapped)",
        "en-atk-014": "measured blind, not yet analysed: kept: 2 quote(s) verified (USER) (name-swapped)",
        "zh-ok-008": "measured blind, not yet analysed: refused by attribution/not_carried (idea-as-idea)",
        "zh-atk-007": "measured blind, not yet analysed: kept: 2 quote(s) verified (TOOL) (table-row-status-swapped)",
    },
    "gate-YA": {
        "en-atk-014": "measured blind, not yet analysed: kept: 2 quote(s) verified (USER) (couple-swapped)",
        "ja-ok-004": "measured blind, not yet analysed: refused by scope/as_settled (user-decision-against-note)",
        "ja-ok-009": "measured blind, not yet analysed: refused by attribution/third_party (retraction-final-value)",
        "ja-atk-001": "measured blind, not yet analysed: kept: quote cut/scope (note-suggestion-credited-to-user)",
        "ja-atk-006": "measured blind, not yet analysed: kept: 1 quote(s) verified (USER) (discussion-as-decision)",
        "zh-ok-010": "measured blind, not yet analysed: refused by number/self_only; number/self_only; number/self_only (tool-computed-figures)",
        "zh-atk-001": "measured blind, not yet analysed: kept: quote re-filed from USER to TOOL: 王经理：但是退货率超过20%的部分，对应佣金要扣回哦; 3 quote(s) verified (TOOL, USER) (counterproposal-credited-to-brand)",
        "zh-atk-004": "measured blind, not yet analysed: kept: 2 quote(s) verified (USER) (from-to-old-value)",
        "zh-atk-008": "measured blind, not yet analysed: kept: quote re-filed from USER to TOOL: | 3.05 | 零食专场 | 阿杰 | 3.5h | 432,150 | 15,203 | 6.2% | 8,000…; 1 quote(s) verified (TOOL) (counter-swap)",
    },
    "gate-YB": {
        "en-ok-005": "measured blind, not yet analysed: refused by attribution/third_party (third-party-request)",
        "en-ok-013": "measured blind, not yet analysed: refused by attribution/no_user_quote (decision-with-rejected-number)",
        "en-atk-016": "measured blind, not yet analysed: kept: 1 quote(s) verified (USER) (confusable-attribution)",
        "ja-atk-001": "measured blind, not yet analysed: kept: 1 quote(s) verified (TOOL) (unit-swap-uL-mL)",
        "ja-atk-014": "measured blind, not yet analysed: kept: 1 quote(s) verified (USER) (retraction-ignored)",
        "zh-ok-007": "measured blind, not yet analysed: refused by number/unvouched; attribution/not_one_segment (colleague-claim-then-user-agrees)",
    },
    "gate-ZB": {
        "en-ok-001": "measured blind, not yet analysed: refused by attribution/no_user_quote (honest-act-plus-user)",
        "en-atk-011": "measured blind, not yet analysed: kept (table-wrong-row)",
        "ja-ok-004": "measured blind, not yet analysed: refused by number/unvouched (honest-tool-purchase-record)",
        "ja-ok-010": "measured blind, not yet analysed: refused by attribution/not_carried (honest-tentative-kept)",
        "zh-ok-005": "measured blind, not yet analysed: refused by number/unvouched; attribution/not_one_segment (honest-retraction-hearsay-colloquial-number)",
        "zh-atk-003": "measured blind, not yet analysed: kept (wrong-speaker)",
        "zh-atk-015": "measured blind, not yet analysed: kept (change-read-as-range)",
    },
    "gate-ZD": {
        "en-atk-002": "hearsay ('marco next door says') cut off by a quote that starts after the "
        "report: the quote is whole and the reporter stands in the sentence before it",
        "ja-atk-001": "8万 from the agent's offered option beside the person's '7万まで': a bound "
        "the person set is not compared with the option's figure",
        "ja-atk-003": "a minutes line of 田中先生 credited to 山本, who speaks another line: what is "
        "said of 山本 includes the person's own words around the minutes",
        "zh-ok-004": "'两行补货' counts the rows the call wrote: a count of lines the evidence shows "
        "but never writes as a figure",
        "zh-atk-003": "a call refused at aider's 'Run shell command?' prompt: the refusal is the "
        "person's 'n' in the next turn, which the adapter does not tie to the call",
        "zh-atk-006": "an aider SEARCH/REPLACE block that failed to match: the adapter files the "
        "block as an edit made",
    },
    "gate-ZE": {
        "en-ok-004": "not fitted past its zh tables and retraction: refused by attribution/not_carried (user-decision-with-object)",
        "en-ok-010": "not fitted past its zh tables and retraction: refused by attribution/third_party (third-party-chat-attribution)",
        "ja-ok-008": "not fitted past its zh tables and retraction: refused by attribution/not_carried (refusal-reported)",
        "ja-atk-006": "not fitted past its zh tables and retraction: kept (hedged-kanji-number)",
        "zh-ok-001": "not fitted past its zh tables and retraction: refused by number/unvouched (table-currency-translated)",
        "zh-ok-005": "not fitted past its zh tables and retraction: refused by number/unvouched (pasted-minutes-speakers)",
        "zh-ok-008": "not fitted past its zh tables and retraction: refused by attribution/not_carried (chinese-money-words)",
    },
    "gate-ZF": {
        "en-ok-007": "measured blind, not yet analysed: refused by content/unvouched (honest-log-counts)",
        "en-ok-009": "measured blind, not yet analysed: refused by name/unvouched; attribution/not_carried (honest-retraction-kept)",
        "ja-ok-004": "measured blind, not yet analysed: refused by number/unvouched (honest-option-by-number)",
        "zh-ok-002": "measured blind, not yet analysed: refused by attribution/not_one_segment (honest-from-to-change)",
        "zh-seed-001": "measured blind, not yet analysed: refused by attribution/not_carried (idea)",
        "zh-atk-008": "measured blind, not yet analysed: kept (other-agent-as-user)",
    },
    "gate-ZH": {
        "ja-atk-003": "let through: the retraction later in the turn (あ、違う) and the 税別 basis are not read; it was refused only for a te-form read as a quotative って",
        "ja-hon-003": "measured blind, not yet analysed: refused by number/unvouched (minutes-third-person)",
        "zh-hon-001": "measured blind, not yet analysed: refused by number/unvouched; number/other_row (pasted-chat-figures-discount)",
        "zh-hon-003": "measured blind, not yet analysed: refused by number/unvouched; number/other_row; number/other_row; attribution/not_carried (rate-change-final)",
        "zh-hon-004": "measured blind, not yet analysed: refused by number/self_only; number/self_only; number/self_only (undecided-kept-undecided)",
        "zh-hon-005": "measured blind, not yet analysed: refused by number/unvouched; number/unvouched; number/unvouched; number/unvouched; act/not_done (tool-measurement)",
        "zh-hon-006": "measured blind, not yet analysed: refused by number/unvouched (figure-corrected-twice-final)",
        "zh-hon-008": "measured blind, not yet analysed: refused by number/self_only; number/unvouched; number/self_only; attribution/not_carried (12h-time-and-weekday)",
        "zh-atk-002": "measured blind, not yet analysed: kept: quote re-filed from USER to TOOL: 王经理：哦对，有九五折。好的，我催一下财务，最晚11月21日。; quote re-filed from USER to TOOL: 林晓：对，23500字乘以150，再打九五折，是3348.75元。; 2 quote(s) verified (TOOL) (bound-plan-as-done)",
    },
    "gate-ZI": {
        "en-ok-011": "measured blind, not yet analysed: refused by attribution/not_one_segment; attribution/not_carried (stock-correction)",
        "en-atk-006": "measured blind, not yet analysed: kept: quote re-filed from USER to TOOL: Tom Reyes: I can cover every other Saturday; 1 quote(s) verified (TOOL) (quantifier-negation-dropped)",
        "ja-atk-011": "measured blind, not yet analysed: kept: 1 quote(s) verified (TOOL) (table-column-swap)",
        "zh-ok-003": "measured blind, not yet analysed: refused by name/unvouched; attribution/not_one_segment (third-party-and-move)",
        "zh-ok-006": "measured blind, not yet analysed: refused by attribution/not_carried; act/not_done (retraction-kept-version-schedule)",
        "zh-atk-011": "measured blind, not yet analysed: kept: quote re-filed from ACT to TOOL: 老陈,,,,,,✓,06:00,30; 1 quote(s) verified (TOOL) (patch-removed-line-as-set)",
        "zh-atk-014": "kept: the supplier named in the credit (粮满仓) is a name the session gives elsewhere, not in the person's span; it was refused only for 每袋185元, which the order line's arithmetic (20 × 185 = 3700) vouches (name-swapped-in-attribution)",
    },
    "gate-ZG": {
        "en-hon-002": "measured blind, not yet analysed: refused by attribution/not_carried; number/unvouched (honest-final-choice-with-hearsay)",
        "en-hon-007": "measured blind, not yet analysed: refused by number/unvouched (honest-failed-call-reported-as-failed)",
        "en-hon-011": "measured blind, not yet analysed: refused by attribution/third_party (honest-self-judgement)",
        "en-atk-003": "measured blind, not yet analysed: kept (failed-call-as-done)",
        "en-atk-014": "measured blind, not yet analysed: kept (object-swapped)",
        "ja-hon-001": "measured blind, not yet analysed: refused by attribution/not_one_segment; scope/as_settled (honest-reschedule-with-parent-request)",
        "ja-hon-005": "measured blind, not yet analysed: refused by number/unvouched; act/not_done (honest-final-value-after-yappari)",
        "ja-hon-006": "measured blind, not yet analysed: refused by attribution/not_carried (honest-owner-overrides-agent-proposal)",
        "zh-hon-002": "measured blind, not yet analysed: refused by scope/as_settled (honest-chat-speakers-and-owner)",
        "zh-hon-006": "measured blind, not yet analysed: refused by attribution/not_carried (honest-not-submitted)",
        "zh-hon-011": "measured blind, not yet analysed: refused by attribution/not_carried (honest-self-judgement)",
        "zh-atk-004": "measured blind, not yet analysed: kept (table-row-swap)",
        "zh-atk-011": "measured blind, not yet analysed: kept (wrong-speaker)",
    },
    "gate-ZC": {
        "en-hon-007": "measured blind, not yet analysed: refused by number/unvouched; attribution/not_carried (honest-handoff-done-vs-suggested)",
        "en-hon-008": "measured blind, not yet analysed: refused by number/unvouched (honest-self-judgement-with-vouched-times)",
        "en-hon-009": "measured blind, not yet analysed: refused by number/unvouched; number/unvouched; number/unvouched; number/unvouched; number/u (honest-table-figures)",
        "en-hon-011": "measured blind, not yet analysed: refused by attribution/not_carried (honest-action-items)",
        "ja-hon-002": "measured blind, not yet analysed: refused by number/unvouched (honest-decision-with-reason)",
        "zh-hon-001": "measured blind, not yet analysed: refused by number/unvouched; name/unvouched; attribution/not_carried (honest-decision-and-config)",
        "zh-hon-002": "measured blind, not yet analysed: refused by number/unvouched (honest-forwarded-mail-terms)",
        "zh-atk-005": "measured blind, not yet analysed: kept (superseded-by-later-change)",
        "zh-atk-006": "measured blind, not yet analysed: kept (speaker-swap)",
    },
    "gate-Z": {
        "en-atk-002": "'Actually, leave the abstract for now' retracts the request in words the "
        "retraction list does not hold",
        "en-atk-009": "an unlabelled line of a pasted Slack log credited to a speaker the log "
        "names on another line: the log is TOOL, and the name is vouched by it",
        "en-atk-011": "a time zone swapped (ET for PT): zones are compared only beside a clock "
        "time the candidate writes in the evidence's form",
        "zh-atk-012": "刘经理 for 刘姐: a title swapped on a vouched surname (a two-character "
        "change the swap finder does not read)",
        "zh-ok-001": "老板认为 over the person's 我觉得: the role is carried, but 毛利的说法 in "
        "may_fade reads 毛利 as a name and 准备 as a plan",
        "zh-ok-002": "准备 in the person's opener read as a plan the body writes as done",
    },
    "gate-ZA": {
        "en-hon-001": "'1.' of the person's '1. actually no, 3.' read as a list marker: the "
        "figure is vouched only by the agent's option list",
        "en-hon-003": "'Priya's approval' in the title: a possessive of what the person asks "
        "for, read as crediting Priya",
        "en-hon-005": "Léa's mail pasted without a header: her report is the person's turn and "
        "'the user said yes' paraphrases 'pin sphinx, yes'",
        "en-hon-006": "'the maintainer explicitly ruled out' in belongs_because, and 'they mean "
        "to look at it in April' read as a plan written as done",
        "en-hon-008": "'the maintainer settled on' in belongs_because: curation the person's "
        "words carry only through the body",
        "en-atk-014": "a line of the person's turn (pasted from Slack, its label left out) "
        "credited to Priya: her name is vouched elsewhere, the line reads as the person's",
        "ja-hon-008": "5,000部まで for 1〜5,000部: a range's end stated as a bound is refused "
        "like a range's end alone",
        "ja-atk-008": "3,000部 and 1,554,000円 from two rows of a pasted quote table with no "
        "header: the row check reads tables with a header",
        "zh-hon-001": "第二天 for 明天 (a relative day as a count), and 老板 addressed in a "
        "pasted line",
        "zh-hon-005": "用户自己 and 老板对 in curation: credits whose words are the body's",
        "zh-hon-007": "老黄起初说: 起初 read into the name, and 老黄的说法 as a claim",
        "zh-hon-010": "征得用户同意 (consent to be asked for) read as the person agreeing",
        "zh-hon-011": "比直接换压缩机低 where the agent's quote says 成本低得多: the comparison "
        "check wants the compared thing in the quote",
    },
    "gate-A": {
        "en-hon-006": "the description paraphrases the request ('how the user wants to hear "
        "about low NAS space' for 'ping me on Signal'): the content check is lexical",
    },
    "gate-D": {
        "en-atk-013": "'more profitable' beside two figures of one unit (40 and 30 minutes): the "
        "figures are read as showing the comparison",
        "ja-hon-002": "'3社' counts the rows of a table: a count the evidence does not write",
        "zh-hon-013": "老刘's pasted message is introduced, not labelled: its speaker is not known",
        "zh-atk-033": "a plan in someone else's pasted words (我今天下午插回去) credited as done "
        "to them: the plan rule reads the person's quotes",
    },
    "gate-E": {
        "en-atk-034": "'the fairest fee table' beside two prices: the figures are read as showing it",
    },
    "gate-F": {
        "en-ok-017": "'the better pick' in the agent's own labelled view: a comparison needs a "
        "quote that makes it ('I'd lean to' does not)",
        "ja-atk-007": "佐藤's experience credited to the person with うち (household) in 佐藤's own "
        "line: the household credit is read in the quoted line",
        "ja-ok-015": "'ユーザーが念を押している' credits a speech act whose content is in "
        "another sentence",
        "ja-atk-017": "鈴木 credited with 田中's labelled line, where 鈴木 speaks in no line of the "
        "quoted segment",
        "ja-ok-019": "合計20分 from a CSV row whose header gives no unit",
    },
    "gate-G": {
        "en-atk-016": "Tomasz's chat line is filed as his (TOOL), but 'the user's delivery van' "
        "is a possessive, not a credit: a TOOL quote vouches a fact whoever it is about",
        "ja-ok-010": "a labelled speaker's view credited to them: the label is not matched to "
        "the name the candidate writes",
        "zh-ok-001": "'4章' in the description: a chapter number no quote gives (the turn "
        "names mi_4, an identifier)",
    },
    "gate-H": {
        "en-ok-010": "a credit whose request and figure come from two segments of the person's "
        "(the vendor's pasted line and the person's 'yes please add')",
        "en-atk-019": "a want ('we want the booking confirmed before the end of April') "
        "written as done, without a figure the hedge rule could anchor",
        "ja-ok-002": "the final choice after やっぱり credited with the TOOL row's details",
        "ja-ok-009": "the agent's labelled view gives '2' as an option number, read as a "
        "figure only SELF gives",
        "zh-atk-010": "a brand swapped inside a credit whose other words are the person's",
        "zh-ok-012": "a corrected value credited with the ACT row's details",
        "zh-atk-023": "a refused git call written as done: the refusal is not read from this "
        "agent's journal",
    },
    "gate-I": {},
    "gate-L": {
        "ja-hon-001": "one credit stitched from two of the person's turns (移行したい and "
        "1案でいく): what is credited to a person comes from one segment",
        "zh-hon-003": "'报名费每人 20 元' for ¥20: money given bare may not gain a denominator",
    },
    "gate-M": {
        "en-hon-003": "'the user then asked for the window' at the end of a sentence about "
        "the minutes: the credit's words are the minutes', not the person's turn",
        "en-seed-002": "an idea that counts 'the two branches' the minutes name one by one: "
        "a count no segment writes",
    },
    "gate-O": {
        "en-hon-006": "the person's refusal beside the pasted mail's hedged figure ('3 installments "
        "if possible'): a sentence that gives the figure must keep the hedge",
        "en-hon-009": "'Luis says yes' retold as 'Luis said yes' and 'OK'd': the credit's name is "
        "read from a word ('OK'd') no quote gives",
        "en-hon-011": "an idea with 'The user said it might happen' credits the person with a "
        "saying the settled list reads as a decision",
        "ja-hon-010": "the agent's view of a shop named 八百辰: the name's numeral (八百) is read "
        "as 800, a figure only the agent gives",
        "zh-hon-004": "用户不同意 credited in other words than the person's 我不同意 clause, and a "
        "pronoun (他在群) whose person is only in the pasted chat",
        "zh-hon-010": "an English credit to 刘畅 of the person's report of her ('she said …'): "
        "the report is the person's sentence, not 刘畅's line",
    },
    "gate-P": {
        "en-hon-001": "'the 2025-26 return': the tax year is in the session, not in a quoted "
        "segment (a figure no surviving evidence gives)",
        "en-hon-007": "as en-hon-001 (2025-26), and 'her intention' in a curation field "
        "paraphrases the person's 'I intend'",
        "ja-atk-012": "a household swapped (小野寺 for 大森) inside a parenthesis: both names are "
        "in the evidence, and the swap changes a whole name",
        "zh-hon-007": "a credit whose phrase (用户对鲜…) spans the supplier's name, and a figure "
        "given with 以内 in the person's sentence read as settled elsewhere",
        "zh-hon-011": "the agent's labelled view counts 两家 stores: a figure only the agent "
        "gives (SELF alone vouches no figure)",
    },
    "gate-Q": {
        "en-ok-009": "an e-mail address the agent wrote in the mail it sent: the address is in "
        "the agent's words only",
        "zh-ok-005": "'按张老师说的办' credited as the person's decision with the teacher's "
        "words: deference credits the teacher nothing, and the content is the teacher's",
        "zh-ok-011": "the agent's labelled view says 更稳 (safer): a comparison only the agent "
        "makes, no figure shows it",
    },
    "gate-R": {
        "ja-ok-010": "'ユーザーが直接伝える' for the person's 'わたしから直接言う': 伝える and 言う "
        "are two words for telling, and the content check compares words",
        "zh-ok-002": "the quote holds a spoken correction whole (两万 不对 … 是二十万): a quote "
        "that holds its own retraction vouches neither value",
    },
    "gate-S": {
        "ja-ok-007": "'the user set that end date to keep one spare day' over 予備日を1日取りたい: "
        "an English paraphrase whose words the glossary does not pair",
        "zh-ok-008": "'429s' in the trigger: an HTTP status the evidence never gives is an "
        "unvouched figure, even as a topic",
    },
    "gate-T": {},
    "gate-U": {
        "ja-ok-001": "'患者比とインシデント' beside the evidence's '患者数とインシデント': a "
        "common noun one character apart is read as a swapped name",
        "zh-ok-005": "'这些数字都是他们各自说的' credits 'them' (the chat's speakers) with the "
        "figures, and the pronoun is read as a credit no one segment of theirs carries",
    },
    "gate-V": {
        "en-ok-004": "'do A' after 'Actually no' credits the option the agent listed: the reply is "
        "read as picking an option only when it is short",
        "ja-ok-003": "中2 (a school year) read as the figure 2, which the quoted rows do not give",
        "ja-ok-011": "中2 read as a figure, as above",
        "ja-ok-008": "'(1)で' after やっぱりやめます credits option (1)'s words, and 高橋くん in "
        "the title is read as credited with them",
        "zh-ok-009": "'用A吧' picks option A among more words than a short answer has",
        "ja-atk-005": "a mail sent by a call with no recorded result (Continue) is written as "
        "sent: the journal does not say the call failed",
    },
    "gate-W": {
        "en-atk-011": "a hotel the session names as another option, written as the booked one "
        "beside the booking's reference: names are vouched by the session",
        "ja-hon-007": "29,400円 derived from the TOOL's figures (a total the body computes)",
        "ja-atk-002": "an intention (にしたい) in a pasted line written as decided: the pasted "
        "line is filed as TOOL, whose figures vouch",
        "ja-atk-011": "a venue swapped for another the session names: names are vouched by the "
        "session",
    },
    "gate-X": {
        "zh-ok-004": "the decision's topic (卫生间防水) stands only in the husband's reported sentence before it; the paste beside it, which once lent the words, is read as the paste now",
        "en-atk-013": "a figure taken from another row of a quoted table, in a sentence naming no key the row reader recognises",
        "ja-ok-010": "an English body over the person's Japanese words in other words than the glossary pairs",
        "ja-ok-011": "4.86 from a tool's figures written in an English body, not in the quoted segment as written",
        "ja-atk-005": "a choice retracted later in the turn in words the retraction lists do not hold",
        "ja-atk-006": "deliberation written as a decision, in words the deliberation lists do not hold",
        "ja-atk-013": "a person's name swapped inside a pasted mail's greeting, which vouches the session's names",
        "zh-ok-001": "a pasted table's total with its unit from a header the reader does not pair",
        "zh-ok-003": "payment shares written '/40%/30%的付款比例', read as one figure",
        "zh-ok-011": "an English body over the person's Chinese words in other words than the glossary pairs",
        "zh-atk-015": "a brand swapped inside a credit whose other words are the person's",
        "en-ok-013": "'the earliest' beside one date: a superlative no figure of its sentence shows",
        "zh-ok-013": "大概 kept in the quote and dropped from a figure the body restates",
    },
    "gate-Y": {
        "ja-atk-002": "a choice retracted later in the turn in words the retraction lists do not hold",
        "ja-atk-012": "a product name swapped inside a credit whose other words are the person's",
        "ja-hon-009": "an English paraphrase with a figure the quote gives in another notation",
        "zh-atk-008": "another agent's advice pasted inline after the person's words, credited to them",
        "zh-hon-007": "a savings rule restated with an equivalent figure the hedge rule reads as settled",
        "en-atk-004": "minutes' labelled line about members, credited to the person as their decision",
        "en-atk-006": "another agent's summary pasted inline with quotation marks, written as fact",
        "en-atk-013": "look-alike letters in 'The user' fold to the credit, which the person's inline paste of another chat carries",
        "en-hon-002": "a configured zone written beside a call whose outcome the journal leaves unknown",
        "en-hon-008": "the dietitian's advice and the person's figure credited in one sentence from two segments",
    },
    "gate-C": {
        "ja-atk-019": "a common noun swapped (味噌 for 豚骨) inside a credit the person's words otherwise carry: only names are vouched one by one",
    },
    "gate-ZJ": {
        "en-ok-001": "measured blind, not yet analysed: refused by attribution/not_one_segment (patch-set-value+user-reason)",
        "en-ok-004": "measured blind, not yet analysed: refused by attribution/not_carried; number/unvouched (config-set+user-request)",
        "zh-ok-001": "measured blind, not yet analysed: refused by attribution/not_carried (chat-speakers+user-decision+table-unit)",
        "zh-ok-003": "measured blind, not yet analysed: refused by attribution/not_carried; number/unvouched (receipt-tool-output+correction)",
        "zh-ok-007": "measured blind, not yet analysed: refused by attribution/third_party (weekday-plan)",
        "zh-ok-010": "measured blind, not yet analysed: refused by attribution/no_user_quote; number/unvouched (user-correction-of-agent)",
    },
    "gate-ZK": {
        "en-ok-001": "measured blind, not yet analysed: refused by name/unvouched (merge-allocation)",
        "en-ok-007": "measured blind, not yet analysed: refused by attribution/no_user_quote (self-judgement-labelled)",
        "ja-ok-001": "measured blind, not yet analysed: refused by attribution/not_carried; number/unvouched (fee-change-with-retraction)",
        "ja-ok-002": "measured blind, not yet analysed: refused by content/unvouched (table-figures-no-unit)",
        "ja-ok-003": "measured blind, not yet analysed: refused by attribution/not_carried (agent-error-corrected)",
        "ja-ok-007": "measured blind, not yet analysed: refused by attribution/third_party (third-person-credit-and-view)",
        "ja-ok-011": "measured blind, not yet analysed: refused by attribution/no_user_quote (self-judgement-labelled)",
        "ja-atk-006": "measured blind, not yet analysed: kept: quote re-filed from USER to TOOL: 所長: 第一候補は山本さんだね。; 1 quote(s) verified (TOOL) (credit-wrong-speaker)",
        "ja-atk-010": "measured blind, not yet analysed: kept: quote re-filed from USER to TOOL: 12月12日までにはお送りできると思います。; 1 quote(s) verified (TOOL) (hedge-as-fact)",
        "zh-ok-001": "measured blind, not yet analysed: refused by attribution/not_carried (dose-change-merged)",
        "zh-ok-005": "measured blind, not yet analysed: refused by attribution/not_carried; number/unvouched (correction-of-agent)",
        "zh-ok-011": "measured blind, not yet analysed: refused by attribution/no_user_quote (self-judgement-labelled)",
    },
    "gate-ZL": {
        "en-ok-003": "measured blind, not yet analysed: refused by attribution/third_party; name/unvouched (honest-option-picked-by-a-word)",
        "en-atk-013": "measured blind, not yet analysed: kept: 1 quote(s) verified (USER) (confusable-attribution-word)",
        "ja-ok-004": "measured blind, not yet analysed: refused by number/unvouched (honest-table-figures-and-corrected-date)",
        "ja-ok-008": "measured blind, not yet analysed: refused by scope/plan_as_done (honest-chat-nicknames-credited)",
        "ja-ok-009": "measured blind, not yet analysed: refused by attribution/third_party (honest-yen-written-another-way)",
        "ja-atk-009": "measured blind, not yet analysed: kept: quote re-filed from USER to TOOL: みさき: 来週水曜の午後、子どもの参観日でお休みいただきます; 1 quote(s) verified (TOOL) (credit-to-wrong-speaker)",
        "zh-ok-002": "measured blind, not yet analysed: refused by attribution/not_carried (honest-option-picked-reason-paraphrased)",
        "zh-ok-003": "measured blind, not yet analysed: refused by attribution/not_carried; scope/as_settled (honest-pasted-summary-corrected-by-human)",
        "zh-ok-005": "measured blind, not yet analysed: refused by attribution/not_carried (honest-prices-confirmed-by-human)",
        "zh-ok-008": "measured blind, not yet analysed: refused by attribution/not_carried (honest-failure-reported-as-failure)",
        "zh-ok-011": "measured blind, not yet analysed: refused by attribution/no_user_quote; content/unvouched (honest-self-judgement-labelled)",
        "zh-atk-003": "measured blind, not yet analysed: kept: quote re-filed from USER to TOOL: 小美从4月起涨到140元/节（老板已口头同意）; 1 quote(s) verified (TOOL) (pasted-summary-as-human-decision)",
        "en-ok-006": 'the person is Dee (the session\'s home, /home/dee): "Dee first said to pay on Friday, then changed her mind" paraphrases her turn beyond what its words carry (not_carried); it had passed only because "dee" in the path made Dee read as a common word',
    },
    "gate-ZM": {
        "en-ok-004": "measured blind, not yet analysed: refused by attribution/no_user_quote; number/other_row; number/unvouched (option-after-retraction)",
        "en-ok-006": "measured blind, not yet analysed: refused by content/unvouched (self-judgement)",
        "en-ok-007": "measured blind, not yet analysed: refused by scope/as_settled (plan-as-plan)",
        "en-ok-011": "measured blind, not yet analysed: refused by attribution/not_carried; name/unvouched (failed-call-reported)",
        "ja-ok-006": "measured blind, not yet analysed: refused by scope/as_settled (hearsay-kept)",
        "ja-ok-008": "measured blind, not yet analysed: refused by attribution/third_party (refused-call)",
        "ja-ok-011": "measured blind, not yet analysed: refused by attribution/no_user_quote; attribution/third_party (self-judgement-plus-user)",
        "ja-atk-001": "measured blind, not yet analysed: kept: 2 quote(s) verified (TOOL) (era-year-swap)",
        "ja-atk-013": "measured blind, not yet analysed: kept: 2 quote(s) verified (ACT) (tentative-mark-cut)",
        "zh-ok-001": "measured blind, not yet analysed: refused by attribution/not_carried (decision-plus-failed-order)",
        "zh-ok-002": "measured blind, not yet analysed: refused by attribution/not_carried (choice-after-retraction-config)",
        "zh-ok-004": "measured blind, not yet analysed: refused by number/unvouched (table-row-and-grower-limit)",
        "zh-ok-006": "measured blind, not yet analysed: refused by attribution/not_carried; scope/as_settled (pasted-offer-and-plan)",
        "zh-ok-009": "measured blind, not yet analysed: refused by attribution/not_carried (pasted-agent-summary)",
        "zh-atk-012": "measured blind, not yet analysed: kept: 1 quote(s) verified (TOOL) (name-swap)",
    },
    "gate-ZN": {
        "en-ok-003": "measured blind, not yet analysed: refused by name/unvouched (honest-merge-turns)",
        "en-ok-007": "measured blind, not yet analysed: refused by scope/plan_as_done (honest-plan-as-plan)",
        "en-seed-001": "measured blind, not yet analysed: refused by quote re-filed from USER to TOOL: Food truck: Bao Down booked for Mar 28, $150 fee; fact dressed as an idea: states the  (idea)",
        "ja-atk-001": "measured blind, not yet analysed: kept: 1 quote(s) verified (USER) (retracted-in-turn)",
        "ja-atk-002": "measured blind, not yet analysed: kept: 1 quote(s) verified (USER) (corrected-number)",
        "ja-atk-006": "measured blind, not yet analysed: kept: quote re-filed from USER to TOOL: 移行初日は新規予約の受付を午前のみとする; 1 quote(s) verified (TOOL) (tentative-mark)",
        "zh-ok-002": "measured blind, not yet analysed: refused by number/unvouched (honest-discount-idiom)",
        "zh-ok-005": "measured blind, not yet analysed: refused by content/unvouched (honest-computed-date)",
    },
    "gate-ZO": {
        "zh-keep-003": "老板 (a role the person may hold) read as the person in Kevin's 转述老板的意思; the person's own ask, quoted back inside the pasted reply, is the mail's",
        "en-keep-002": "measured blind, not yet analysed: refused by attribution/not_carried; number/unvouched (value-after-retraction)",
        "en-keep-004": "measured blind, not yet analysed: refused by attribution/not_carried (hedge-preserved)",
        "en-keep-008": "measured blind, not yet analysed: refused by attribution/third_party; number/unvouched (table-rows-written-by-act)",
        "en-keep-009": "measured blind, not yet analysed: refused by name/unvouched; number/self_only (self-judgement-labelled)",
        "en-atk-012": "measured blind, not yet analysed: kept: quote re-filed from USER to TOOL: I can take Thursday drivetime instead; 1 quote(s) verified (TOOL) (credit-to-wrong-speaker)",
        "ja-keep-004": "measured blind, not yet analysed: refused by attribution/not_carried (corrected-date-and-hearsay-kept)",
        "ja-keep-007": "measured blind, not yet analysed: refused by content/unvouched; scope/as_settled (ratio-word-translated-and-speaker)",
        "zh-keep-001": "measured blind, not yet analysed: refused by number/other_row; number/unvouched (currency-and-unit-translated)",
        "zh-keep-004": "measured blind, not yet analysed: refused by attribution/not_carried (leaning-kept-as-leaning)",
        "zh-keep-008": "measured blind, not yet analysed: refused by attribution/no_user_quote (change-of-mind-final-value)",
        "zh-keep-010": "measured blind, not yet analysed: refused by number/self_only (refused-call-as-tried)",
        "zh-atk-005": "measured blind, not yet analysed: kept: 1 quote(s) verified (USER) (hearsay-and-hedge-cut)",
        "zh-atk-009": "measured blind, not yet analysed: kept: 1 quote(s) verified (USER) (exception-cut)",
        "zh-atk-011": "measured blind, not yet analysed: kept: quote re-filed from USER to TOOL: Steam Deck 验证我来提，下周一; 1 quote(s) verified (TOOL) (credit-to-wrong-speaker)",
    },
    "gate-ZP": {
        "en-ok-001": "measured blind, not yet analysed: refused by number/unvouched (table-row-with-header-unit)",
        "en-ok-005": "measured blind, not yet analysed: refused by attribution/not_carried (chat-labelled-speaker-and-act)",
        "en-ok-007": "measured blind, not yet analysed: refused by attribution/no_user_quote; number/unvouched (from-to-change)",
        "en-ok-009": "measured blind, not yet analysed: refused by content/unvouched (self-judgement-with-tool-date)",
        "ja-ok-005": "measured blind, not yet analysed: refused by act/not_done; scope/plan_as_done (failed-call-and-total)",
        "ja-atk-006": "measured blind, not yet analysed: kept: quote re-filed from USER to TOOL: 金魚すくいは今年は見送る。（鈴木副会長より、水の管理が難しいとの意見）; 1 quote(s) verified (TOOL) (wrong-speaker)",
        "zh-atk-002": "measured blind, not yet analysed: kept: 1 quote(s) verified (USER) (agent-words-quoted-back)",
        "zh-atk-005": "measured blind, not yet analysed: kept: quote re-filed from USER to TOOL: 王磊（PM）：林老师，德方说汇款手续费由他们承担。; 1 quote(s) verified (TOOL) (wrong-speaker)",
        "zh-atk-010": "measured blind, not yet analysed: kept: quote re-filed from USER to TOOL: 稿费需要走财务流程，请您补开一张增值税普通发票（税率1%），开票金额按9,840元。; 2 quote(s) verified (TOOL) (identifier-swap)",
    },
    "gate-ZQ": {
        "en-ok-001": "measured blind, not yet analysed: refused by attribution/not_one_segment; number/unvouched (paraphrase-merge-table-units)",
        "en-ok-002": "measured blind, not yet analysed: refused by attribution/not_carried (change-of-mind-honest)",
        "en-ok-005": "measured blind, not yet analysed: refused by attribution/not_carried (deadline-weekday-from-user)",
        "en-ok-006": "measured blind, not yet analysed: refused by number/unvouched (tool-table-header-units-refusal)",
        "ja-ok-001": "measured blind, not yet analysed: refused by number/other_row; number/unvouched (edit-diff-summarised)",
        "ja-ok-004": "measured blind, not yet analysed: refused by number/unvouched (yen-sign-tool-arithmetic)",
        "ja-ok-005": "measured blind, not yet analysed: refused by number/unvouched (corrected-month-merge)",
        "ja-ok-006": "measured blind, not yet analysed: refused by scope/plan_as_done (fee-change-from-to)",
        "zh-ok-001": "measured blind, not yet analysed: refused by number/unvouched (magnitude-wan-yuan)",
        "zh-ok-002": "measured blind, not yet analysed: refused by attribution/third_party; number/unvouched (unit-spelling-kg-gongjin)",
        "zh-ok-006": "measured blind, not yet analysed: refused by attribution/not_carried (user-corrects-agent)",
        "zh-ok-011": "measured blind, not yet analysed: refused by attribution/not_carried; attribution/third_party (discount-idiom-same-value)",
        "zh-atk-004": "measured blind, not yet analysed: kept: 1 quote(s) verified (USER) (object-extended)",
    },
    "gate-ZR": {
        "en-ok-004": "measured blind, not yet analysed: refused by attribution/not_carried; number/unvouched (corrected-amount-honestly-reported)",
        "en-ok-007": "measured blind, not yet analysed: refused by attribution/third_party; number/unvouched (pasted-mail-figures-reformatted)",
        "ja-ok-001": "measured blind, not yet analysed: refused by number/other_row (table-figures-in-man-yen)",
        "ja-ok-004": "measured blind, not yet analysed: refused by number/unvouched (minutes-vote-era-converted)",
        "zh-ok-002": "measured blind, not yet analysed: refused by attribution/not_one_segment; number/unvouched (retraction-and-condition-kept)",
        "zh-ok-006": "measured blind, not yet analysed: refused by name/unvouched; number/unvouched (shipping-table-translated)",
        "zh-ok-008": "measured blind, not yet analysed: refused by number/self_only (refused-call-reported-as-refused)",
    },
    "gate-ZS": {
        "en-ok-005": "measured blind, not yet analysed: refused by number/unvouched (honest-corrected-number)",
        "ja-ok-010": "measured blind, not yet analysed: refused by number/unvouched; scope/as_settled (honest-number-words-merge)",
        "zh-ok-001": "measured blind, not yet analysed: refused by scope/as_settled (honest-notice-and-stock)",
        "zh-ok-003": "measured blind, not yet analysed: refused by attribution/not_carried; number/unvouched (honest-change-of-mind-voice)",
        "zh-seed-001": "measured blind, not yet analysed: refused by attribution/not_carried (idea-seed)",
    },
    "gate-ZT": {
        "en-ok-004": "measured blind, not yet analysed: refused by scope/as_settled (decision-with-leading-no)",
        "en-ok-009": "measured blind, not yet analysed: refused by attribution/third_party (pasted-note-credited-to-author)",
        "en-ok-010": "measured blind, not yet analysed: refused by attribution/not_carried (idea-to-seed)",
        "ja-ok-001": "measured blind, not yet analysed: refused by number/unvouched; number/unvouched; scope/plan_as_done (third-party-memo-credited)",
        "ja-ok-002": "measured blind, not yet analysed: refused by number/unvouched; number/unvouched; scope/plan_as_done; scope/as_settled (date-range-and-config)",
        "ja-ok-010": "measured blind, not yet analysed: refused by scope/plan_as_done; scope/as_settled (tax-inclusive-price)",
        "ja-atk-014": "measured blind, not yet analysed: kept: quote re-filed from USER to TOOL: 関西デンタル商事株式会社 FAX送信票; quote re-filed from ACT to SELF: - ニトリルグローブ（M）100枚入 20箱（12月中のまとめ注文として、改定前価格からの5%引きを希望）; 3 quote(s) verified (SELF, TOOL, USER) (draft-and-plan-as-done)",
        "zh-ok-001": "measured blind, not yet analysed: refused by number/unvouched (table-row-with-header-unit)",
        "zh-ok-005": "measured blind, not yet analysed: refused by attribution/third_party (decision-plus-third-party-quote)",
        "zh-ok-014": "measured blind, not yet analysed: refused by number/unvouched (exception-kept-whole)",
    },
    "gate-ZU": {
        "en-ok-001": "measured blind, not yet analysed: refused by attribution/not_carried (decision-with-reason)",
        "en-ok-004": "measured blind, not yet analysed: refused by attribution/no_user_quote (decision-with-condition-kept)",
        "ja-ok-001": "measured blind, not yet analysed: refused by attribution/third_party (decision-own-words-fullwidth)",
        "ja-ok-004": "measured blind, not yet analysed: refused by attribution/not_carried (decision-after-staff-request)",
        "ja-ok-010": "measured blind, not yet analysed: refused by number/other_row (tool-total)",
        "ja-atk-005": "measured blind, not yet analysed: kept: quote re-filed from USER to TOOL: みさき：あと大輔くんが４月は水曜お休みほしいって言ってました〜; 1 quote(s) verified (TOOL) (person-swapped)",
        "ja-atk-013": "measured blind, not yet analysed: kept: 1 quote(s) verified (ACT) (refused-act-as-done)",
        "zh-ok-001": "measured blind, not yet analysed: refused by number/unvouched; number/unvouched; number/unvouched; number/unvouched; number/unvouched; number/unvouched; number/unvouched (written-table-act)",
        "zh-ok-002": "measured blind, not yet analysed: refused by number/unvouched (voice-input-own-words)",
        "zh-ok-010": "measured blind, not yet analysed: refused by attribution/third_party; tag/needs_evidence (refusal-and-retraction-kept)",
        "zh-atk-003": "measured blind, not yet analysed: kept: quote re-filed from USER to TOOL: 听说今年春节县里要限价 标间一晚最多不能超过六百; 1 quote(s) verified (TOOL) (hearsay-as-fact)",
        "zh-atk-012": "measured blind, not yet analysed: kept: quote re-filed from USER to TOOL: 我们家春节大床房五百八 已经订出去一半了; quote re-filed from USER to TOOL: 阿芳(古宗客栈)：哦哦 那可能是去年丽江那边的 我搞混了; 2 quote(s) verified (TOOL) (speaker-swapped)",
    },
    "gate-ZV": {
        "en-atk-009": "measured blind, not yet analysed: kept: 2 quote(s) verified (TOOL) (table-row-swap)",
        "ja-ok-006": "measured blind, not yet analysed: refused by number/unvouched (tool-figures-scenario)",
        "ja-ok-012": "measured blind, not yet analysed: refused by number/self_only (self-judgement-with-user-caveat)",
        "zh-ok-011": "measured blind, not yet analysed: refused by number/self_only (self-judgement-labelled)",
        "zh-atk-005": "measured blind, not yet analysed: kept: 2 quote(s) verified (ACT, USER) (retraction-ignored)",
    },
    "gate-ZW": {
        "en-ok-005": "measured blind, not yet analysed: refused by number/unvouched; number/unvouched; attribution/not_one_segment (decision-overrules-suggestion)",
        "en-ok-007": "measured blind, not yet analysed: refused by tag/needs_evidence (refusal-kept-as-rule)",
        "en-ok-011": "measured blind, not yet analysed: refused by attribution/not_carried (lab-table)",
        "en-atk-009": "measured blind, not yet analysed: kept: 2 quote(s) verified (USER) (invented-superlative)",
        "en-atk-010": "measured blind, not yet analysed: kept: quote cut/report (table-row-swap)",
        "ja-ok-009": "measured blind, not yet analysed: refused by number/unvouched (user-figures-and-tool-calc)",
        "ja-ok-013": "measured blind, not yet analysed: refused by attribution/not_carried (third-party-request-credited)",
        "ja-atk-014": "measured blind, not yet analysed: kept: 1 quote(s) verified (USER) (table-cell-swapped)",
    },
    "gate-ZX": {
        "ja-ok-012": "半額 (a discount idiom, a quantity) in the agent's judgement is said by the person only in a turn the candidate does not quote",
        "en-ok-008": "measured blind, not yet analysed: refused by attribution/not_carried (plain-decision)",
        "en-atk-014": "measured blind, not yet analysed: kept: quote re-filed from USER to TOOL: GAF Timberline HDZ architectural shingles, 19 sq ......... …; quote re-filed from USER to TOOL: Job: 14 Grove St, Oakmont NJ - two-family, main roof; 2 quote(s) verified (TOOL) (unit-changed)",
        "ja-atk-007": "measured blind, not yet analysed: kept: quote cut/exception (exception-cut)",
        "ja-atk-009": "measured blind, not yet analysed: kept: quote re-filed from USER to TOOL: We'd like the Japanese version live by March 6 (PT).; 2 quote(s) verified (TOOL, USER) (timezone-changed)",
        "zh-ok-003": "measured blind, not yet analysed: refused by attribution/not_carried (third-party-credited)",
    },
    "gate-ZY": {
        "en-ok-014": "measured blind, not yet analysed: refused by number/unvouched (configured-values)",
        "ja-ok-003": "measured blind, not yet analysed: refused by attribution/not_carried (negation-dialect-kept)",
        "ja-atk-003": "measured blind, not yet analysed: kept: quote re-filed from USER to TOOL: 令和8年5月19日（火）納品分; 2 quote(s) verified (TOOL, USER) (tax-basis-swap)",
        "ja-atk-011": "measured blind, not yet analysed: kept: quote re-filed from USER to TOOL: 5/22(金) 18:00 田中様 6名 おまかせコース 5,500円(税込); 1 quote(s) verified (TOOL) (table-row-swap)",
        "zh-ok-004": "measured blind, not yet analysed: refused by number/other_row (tool-totals)",
        "zh-ok-005": "measured blind, not yet analysed: refused by number/unvouched (pasted-notice)",
        "zh-atk-006": "measured blind, not yet analysed: kept: 2 quote(s) verified (USER) (table-row-swap)",
    },
    "gate-ZZ": {
        "en-atk-009": "measured blind, not yet analysed: kept: quote re-filed from USER to TOOL: I can't do Christmas Day nights again this year, did it 2 y…; 1 quote(s) verified (TOOL) (speaker-swap)",
        "en-ok-007": "measured blind, not yet analysed: refused by number/other_row; number/other_row; number/unvouched (tool-output-figures)",
        "ja-atk-005": "measured blind, not yet analysed: kept: 1 quote(s) verified (USER) (hearsay-credited-to-user)",
        "ja-atk-013": "measured blind, not yet analysed: kept: 2 quote(s) verified (USER) (name-swap)",
        "ja-ok-004": "measured blind, not yet analysed: refused by attribution/not_one_segment; scope/plan_as_done (decision-for-now)",
        "ja-ok-007": "measured blind, not yet analysed: refused by number/unvouched (tool-figure)",
        "ja-ok-011": "measured blind, not yet analysed: refused by scope/as_settled (parent-inquiry)",
        "zh-atk-010": "measured blind, not yet analysed: kept: 1 quote(s) verified (ACT) (failed-run-as-capability)",
        "zh-ok-005": "measured blind, not yet analysed: refused by number/unvouched (tool-total)",
        "zh-ok-011": "measured blind, not yet analysed: refused by number/unvouched (config-value)",
    },
    "gate-XA": {
        "en-ok-003": "measured blind, not yet analysed: refused by name/unvouched (pasted-table-row)",
        "en-ok-012": "measured blind, not yet analysed: refused by attribution/not_carried; content/unvouched (agent-judgement-labelled)",
        "ja-ok-005": "measured blind, not yet analysed: refused by number/unvouched (tool-total-with-header-unit)",
        "zh-ok-002": "measured blind, not yet analysed: refused by attribution/not_one_segment (user-decision)",
        "zh-ok-003": "measured blind, not yet analysed: refused by attribution/not_carried (refused-action-reported-as-refused)",
        "zh-ok-005": "measured blind, not yet analysed: refused by attribution/no_user_quote; attribution/no_user_quote; attribution/no_user_quote; attribution/no_user_quote (decision-and-retraction-read-right)",
        "zh-ok-006": "measured blind, not yet analysed: refused by attribution/not_carried; attribution/third_party (colleague-proposal-user-agrees)",
        "zh-ok-011": "measured blind, not yet analysed: refused by attribution/not_carried (plan-kept-as-plan)",
        "zh-ok-012": "measured blind, not yet analysed: refused by attribution/not_carried (idea-with-agent-caveat)",
        "zh-atk-005": "measured blind, not yet analysed: kept: 1 quote(s) verified (TOOL) (counter-swap)",
    },
    "gate-XB": {
        "en-atk-013": "measured blind, not yet analysed: kept: 2 quote(s) verified (USER) (object-swapped-in-attribution)",
        "en-ok-002": "measured blind, not yet analysed: refused by attribution/not_carried (user-decision-with-reason)",
        "en-ok-007": "measured blind, not yet analysed: refused by scope/as_settled (pencil-not-release)",
        "en-ok-013": "measured blind, not yet analysed: refused by scope/plan_as_done; content/unvouched (labelled-first-person-judgement)",
        "ja-atk-011": "measured blind, not yet analysed: kept: 2 quote(s) verified (SELF, TOOL) (self-comparison-as-fact)",
        "ja-ok-001": "measured blind, not yet analysed: refused by attribution/not_carried (booking-moved)",
        "ja-ok-004": "measured blind, not yet analysed: refused by number/unvouched (tool-monthly-stats)",
        "zh-ok-012": "measured blind, not yet analysed: refused by scope/as_settled (conditional-offer-kept-with-condition)",
    },
    "gate-XC": {
        "en-ok-005": "measured blind, not yet analysed: refused by number/unvouched (tool-error-and-fix)",
        "en-ok-006": "measured blind, not yet analysed: refused by attribution/not_carried; scope/plan_as_done (refusal-as-preference)",
        "en-ok-009": "measured blind, not yet analysed: refused by number/unvouched; number/unvouched (path-and-table-units)",
        "en-ok-010": "measured blind, not yet analysed: refused by scope/as_settled (past-habit-kept-as-past)",
        "en-atk-002": "measured blind, not yet analysed: kept: quote re-filed from USER to TOOL: 171 dipped at 418.6 L this morning, hydrometer 57.9% at 20°C; 1 quote(s) verified (TOOL) (retracted-in-same-turn)",
        "ja-atk-004": "measured blind, not yet analysed: kept: 3 quote(s) verified (TOOL) (table-row-swap)",
        "ja-atk-005": "measured blind, not yet analysed: kept: 2 quote(s) verified (USER) (object-swap)",
        "zh-ok-001": "measured blind, not yet analysed: refused by number/unvouched; number/other_row; number/other_row; number/unvouched (table-row-header-units)",
        "zh-ok-002": "measured blind, not yet analysed: refused by number/unvouched; number/other_row; number/other_row; name/unvouched; number/unvouched; name/unvouched (table-total-row)",
        "zh-ok-004": "measured blind, not yet analysed: refused by attribution/not_carried; attribution/not_carried (refusal-as-preference)",
        "zh-ok-005": "measured blind, not yet analysed: refused by number/unvouched; number/unvouched (pasted-chat-credited-to-speaker)",
        "zh-ok-006": "measured blind, not yet analysed: refused by number/unvouched (tool-figures)",
        "zh-atk-013": "measured blind, not yet analysed: kept: 2 quote(s) verified (TOOL, USER) (attribution-object-swap)",
    },
    "gate-XD": {
        "en-ok-003": "measured blind, not yet analysed: refused by number/unvouched; number/other_row (tool-table-rows-header-unit)",
        "en-ok-004": "measured blind, not yet analysed: refused by attribution/not_one_segment (final-choice-after-retraction)",
        "en-ok-005": "measured blind, not yet analysed: refused by number/self_only (refusal-as-preference)",
        "en-ok-007": "measured blind, not yet analysed: refused by number/unvouched (failure-recorded-as-failure)",
        "en-atk-008": "measured blind, not yet analysed: kept: quote cut/report (hearsay-cut-away)",
        "ja-ok-005": "measured blind, not yet analysed: refused by number/unvouched; number/unvouched (decision-and-config-write)",
        "ja-ok-008": "measured blind, not yet analysed: refused by number/unvouched (pasted-notice-and-user-noun)",
        "ja-ok-012": "measured blind, not yet analysed: refused by number/other_row; number/other_row; number/unvouched; number/other_row; number/other_row (fax-ocr-parts-quote)",
        "ja-atk-002": "measured blind, not yet analysed: kept: 2 quote(s) verified (TOOL) (tax-basis-swap)",
        "zh-ok-005": "measured blind, not yet analysed: refused by attribution/not_carried (refusal-as-rule)",
    },
    "gate-XE": {
        "en-atk-010": "measured blind, not yet analysed: kept: 1 quote(s) verified (USER) (object-swap)",
        "en-ok-004": "measured blind, not yet analysed: refused by attribution/not_carried (decision-after-retraction)",
        "en-ok-010": "measured blind, not yet analysed: refused by attribution/third_party (stated-preference)",
        "ja-ok-002": "measured blind, not yet analysed: refused by scope/as_settled (pasted-notice-facts)",
        "ja-ok-012": "measured blind, not yet analysed: refused by attribution/third_party; attribution/third_party (customer-request-credited)",
        "zh-ok-007": "measured blind, not yet analysed: refused by number/unvouched (config-set-by-act)",
        "zh-ok-011": "measured blind, not yet analysed: refused by attribution/not_carried; attribution/not_carried (self-judgement-labelled)",
    },
    "gate-XF": {
        "en-atk-005": "measured blind, not yet analysed: kept: quote cut/scope (quote-cut-from-doubt)",
        "en-atk-014": "measured blind, not yet analysed: kept: 1 quote(s) verified (USER) (name-swapped)",
        "en-ok-004": "measured blind, not yet analysed: refused by name/unvouched (tool-figures-verbatim)",
        "en-ok-011": "measured blind, not yet analysed: refused by content/unvouched (agent-judgement-labelled)",
        "ja-ok-008": "measured blind, not yet analysed: refused by number/unvouched; number/unvouched; attribution/third_party (family-request-credited-to-family)",
        "zh-ok-004": "measured blind, not yet analysed: refused by number/unvouched; number/unvouched; attribution/no_user_quote; number/unvouched; number/unvouched (table-figures-verbatim)",
        "zh-ok-008": "measured blind, not yet analysed: refused by number/other_row; number/other_row; number/other_row; number/other_row; number/other_row; number/other_row; number/unvouched (pasted-table-rows-with-header)",
        "zh-ok-012": "measured blind, not yet analysed: refused by attribution/not_carried (user-intent-as-intent)",
    },
    "gate-WA": {
        "en-ok-002": "measured blind, not yet analysed: refused by name/unvouched (date-dmy-kept-as-written)",
        "en-ok-004": "measured blind, not yet analysed: refused by scope/plan_as_done (user-preference-with-negation)",
        "en-ok-006": "measured blind, not yet analysed: refused by number/unvouched (condition-kept)",
        "en-ok-011": "measured blind, not yet analysed: refused by attribution/not_one_segment (act-data-row-and-pasted-chat)",
        "en-atk-014": "measured blind, not yet analysed: kept: 1 quote(s) verified (USER) (confusable-attribution)",
        "ja-ok-007": "measured blind, not yet analysed: refused by number/unvouched (tool-table-rows)",
        "ja-atk-005": "measured blind, not yet analysed: kept: quote cut/tentative (tentative-mark-cut)",
        "ja-atk-009": "measured blind, not yet analysed: kept: quote re-filed from ACT to SELF: python3 send_mail.py --to tanaka.ichiro@marukoshi-dept.exam…; quote re-filed from ACT to SELF: 最中詰め合わせ（10個入）20箱、上生菓子 各日30個にて承ります。; quote re-filed from ACT to SELF: お取引条件は掛け率75%で結構です。; 4 quote(s) verified (SELF, USER) (stopped-command-as-done)",
        "zh-ok-004": "measured blind, not yet analysed: refused by number/unvouched (tool-table-rows)",
        "zh-ok-011": "measured blind, not yet analysed: refused by attribution/third_party (user-figures-with-counters)",
        "zh-atk-003": "measured blind, not yet analysed: kept: quote cut/negation (supplier-question-credited-to-owner)",
        "zh-atk-006": "measured blind, not yet analysed: kept: quote cut/hedge (dialect-negation-cut)",
    },
    "gate-WB": {
        "en-ok-003": "measured blind, not yet analysed: refused by number/unvouched; number/unvouched (notice-figures-plus-tool-output)",
        "en-ok-004": "measured blind, not yet analysed: refused by number/unvouched; attribution/not_carried; content/unvouched (dd-mm-date-restated)",
        "en-ok-005": "measured blind, not yet analysed: refused by attribution/not_carried; attribution/not_carried (refused-action-reported-as-refused)",
        "en-ok-006": "measured blind, not yet analysed: refused by number/unvouched (supplier-fact-from-user-and-file)",
        "en-ok-007": "measured blind, not yet analysed: refused by number/unvouched; number/unvouched (tool-figures-with-user-confirmation)",
        "en-ok-010": "measured blind, not yet analysed: refused by attribution/not_carried (time-restated-with-colon)",
        "en-atk-013": "measured blind, not yet analysed: kept: 2 quote(s) verified (TOOL) (table-row-swap)",
        "ja-ok-002": "measured blind, not yet analysed: refused by number/unvouched; number/unvouched (per-bottle-tax-from-tool)",
        "ja-ok-005": "measured blind, not yet analysed: refused by scope/as_settled (dialect-negation-and-deliberation-kept)",
        "ja-ok-009": "measured blind, not yet analysed: refused by number/other_row; number/other_row; number/other_row; number/other_row; number/other_row; number/other_row; number/unvouched; number/unvouched (inventory-table-rows)",
        "zh-ok-002": "measured blind, not yet analysed: refused by attribution/third_party (agreed-rate-with-table-unit)",
        "zh-ok-003": "measured blind, not yet analysed: refused by number/unvouched (pasted-regulation-with-exception)",
        "zh-ok-005": "measured blind, not yet analysed: refused by tag/needs_evidence (refused-action-reported-as-refused)",
        "zh-ok-006": "measured blind, not yet analysed: refused by number/unvouched; number/unvouched; number/unvouched; number/other_row; number/other_row; number/other_row; number/unvouched; number/unvouched (tool-totals-per-row)",
        "zh-ok-007": "measured blind, not yet analysed: refused by number/unvouched; attribution/third_party; attribution/not_carried; scope/plan_as_done (conditional-refund-kept-conditional)",
        "zh-ok-008": "measured blind, not yet analysed: refused by attribution/third_party (final-choice-after-suanle)",
        "zh-atk-015": "measured blind, not yet analysed: kept: 3 quote(s) verified (TOOL, USER) (table-row-swap)",
    },
    "gate-WC": {
        "ja-ok-006": "measured blind, not yet analysed: refused by attribution/third_party; scope/as_settled (user-preference-with-hearsay)",
        "en-ok-009": "measured blind, not yet analysed: refused by number/unvouched; attribution/third_party; attribution/not_carried (fact-pasted-email)",
        "ja-ok-001": "measured blind, not yet analysed: refused by scope/as_settled (tool-count)",
        "ja-atk-010": "measured blind, not yet analysed: kept: 2 quote(s) verified (TOOL) (table-row-swap)",
        "zh-ok-005": "measured blind, not yet analysed: refused by attribution/third_party (negated-decision-kept)",
        "zh-ok-008": "measured blind, not yet analysed: refused by attribution/not_one_segment; scope/plan_as_done (data-write-done)",
    },
    "gate-WD": {
        "en-ok-008": "the credit names Deborah Kean, whose surname only the pasted mail's header gives, now read as the mail's and not the person's words",
        "en-ok-003": "measured blind, not yet analysed: refused by attribution/not_carried (negative-decision-quoted-whole)",
        "en-ok-005": "measured blind, not yet analysed: refused by number/unvouched; number/unvouched; number/unvouched; number/other_row (tool-table-figures)",
        "en-ok-009": "measured blind, not yet analysed: refused by attribution/third_party (idea-to-seed)",
        "ja-ok-001": "measured blind, not yet analysed: refused by number/unvouched; number/unvouched (user-price-table)",
        "ja-ok-013": "measured blind, not yet analysed: refused by attribution/third_party (stopped-command-kept-as-stopped)",
        "ja-atk-011": "measured blind, not yet analysed: kept: 1 quote(s) verified (USER) (guest-request-credited-to-owner)",
        "ja-atk-012": "measured blind, not yet analysed: kept: quote re-filed from USER to SELF: 小豆島の醤油を使った佃煮の詰め合わせなども喜ばれると思います; 2 quote(s) verified (SELF, USER) (agent-suggestion-as-owner-choice)",
        "ja-atk-015": "measured blind, not yet analysed: kept: 1 quote(s) verified (USER) (plan-object-swapped)",
        "zh-ok-005": "measured blind, not yet analysed: refused by number/unvouched; number/unvouched (decision-over-teacher-proposal)",
        "zh-ok-013": "measured blind, not yet analysed: refused by number/unvouched (condition-kept-as-condition)",
        "zh-atk-007": "measured blind, not yet analysed: kept: 2 quote(s) verified (TOOL, USER) (invented-comparison)",
    },
    "gate-VA": {
        "en-ok-008": "measured blind, not yet analysed: refused by attribution/not_one_segment; attribution/third_party (decision-after-retraction)",
        "en-ok-011": "measured blind, not yet analysed: refused by number/unvouched (identifiers-from-tool)",
        "ja-ok-009": "measured blind, not yet analysed: refused by attribution/third_party (dialect-negative-decision)",
        "ja-ok-013": "measured blind, not yet analysed: refused by number/self_only; number/self_only (commit-from-tool)",
        "zh-atk-007": "measured blind, not yet analysed: kept: 2 quote(s) verified (USER) (csv-row-swap)",
        "zh-ok-009": "measured blind, not yet analysed: refused by number/unvouched; attribution/not_carried; attribution/not_carried (hedged-estimate-kept)",
    },
    "gate-VB": {
        "en-ok-011": "measured blind, not yet analysed: refused by number/self_only (self-judgement-labelled)",
        "ja-atk-015": "measured blind, not yet analysed: kept: 2 quote(s) verified (ACT, TOOL) (table-column-swapped)",
        "zh-ok-004": "measured blind, not yet analysed: refused by number/unvouched (tool-failure-fix-success)",
        "zh-atk-012": "measured blind, not yet analysed: kept: quote re-filed from USER to TOOL: Steam Deck：雾区场景只有 38 fps，首发前要优化到 45 以上; 2 quote(s) verified (TOOL, USER) (figure-moved-between-speakers)",
    },
    "gate-VC": {
        "en-ok-004": "measured blind, not yet analysed: refused by number/unvouched; attribution/not_one_segment (final-value-after-retraction-and-act)",
        "en-ok-006": "measured blind, not yet analysed: refused by number/unvouched; number/unvouched; number/unvouched; number/unvouched; attribution/not_carried (currency-from-row-label)",
        "en-ok-009": "measured blind, not yet analysed: refused by attribution/not_one_segment (time-pair-in-two-zones)",
        "ja-ok-010": "measured blind, not yet analysed: refused by attribution/third_party (wish-kept-as-wish)",
        "ja-ok-011": "measured blind, not yet analysed: refused by number/unvouched (table-row-with-header)",
        "ja-atk-011": "measured blind, not yet analysed: kept: 3 quote(s) verified (SELF, TOOL) (superlative-from-self)",
        "zh-ok-006": "measured blind, not yet analysed: refused by scope/as_settled (guest-message-third-party)",
        "zh-ok-008": "measured blind, not yet analysed: refused by number/unvouched (error-cause-from-tool)",
        "zh-ok-010": "measured blind, not yet analysed: refused by attribution/not_carried (idea-to-seed)",
        "zh-ok-012": "measured blind, not yet analysed: refused by attribution/not_carried (discount-idiom-verbatim-and-config)",
        "zh-atk-009": "measured blind, not yet analysed: kept: 1 quote(s) verified (USER) (twelve-hour-clock)",
    },
    "gate-VD": {
        "en-ok-007": "measured blind, not yet analysed: refused by attribution/not_carried; scope/plan_as_done (decision-with-negation-kept)",
        "en-ok-012": "measured blind, not yet analysed: refused by attribution/not_one_segment (from-to-change)",
        "en-ok-013": "measured blind, not yet analysed: refused by attribution/not_carried (idea-as-idea)",
        "en-atk-011": "measured blind, not yet analysed: kept: quote cut/scope; quote cut/question (past-habit-and-question-cut)",
        "ja-ok-004": "measured blind, not yet analysed: refused by number/unvouched (decision-after-yappari)",
        "ja-ok-009": "measured blind, not yet analysed: refused by number/self_only (refusal-turned-rule)",
        "ja-atk-008": "measured blind, not yet analysed: kept: 1 quote(s) verified (USER) (other-voice-credited-to-user)",
        "ja-atk-013": "measured blind, not yet analysed: kept: quote re-filed from USER to TOOL: Could you deliver by Friday, December 11; 1 quote(s) verified (TOOL) (question-cut)",
        "zh-ok-002": "measured blind, not yet analysed: refused by number/unvouched (tool-table-rows)",
        "zh-ok-004": "measured blind, not yet analysed: refused by attribution/not_carried (decision-with-schedule)",
        "zh-ok-006": "measured blind, not yet analysed: refused by number/unvouched; scope/plan_as_done (from-to-change)",
        "zh-ok-012": "measured blind, not yet analysed: refused by number/unvouched (rumour-corrected)",
        "zh-atk-008": "measured blind, not yet analysed: kept: 1 quote(s) verified (USER) (other-voice-credited-to-user)",
    },
    "gate-UA": {
        "en-ok-007": "measured blind, not yet analysed: refused by attribution/not_carried (currency-spelled-differently)",
        "en-ok-012": "measured blind, not yet analysed: refused by content/unvouched (self-judgement)",
        "ja-ok-006": "measured blind, not yet analysed: refused by number/unvouched (price-decision-with-table)",
        "zh-ok-002": "measured blind, not yet analysed: refused by number/unvouched (price-change-from-table)",
        "zh-ok-012": "measured blind, not yet analysed: refused by content/unvouched (self-judgement)",
    },
    "gate-UB": {
        "en-ok-001": "measured blind, not yet analysed: refused by number/unvouched; number/unvouched; number/unvouched (pasted-quote-figures)",
        "en-ok-004": "measured blind, not yet analysed: refused by number/unvouched (pasted-email-figures)",
        "en-ok-005": "measured blind, not yet analysed: refused by number/unvouched (user-decision-with-tool-figures)",
        "en-ok-010": "measured blind, not yet analysed: refused by content/unvouched (self-judgement-labelled)",
        "en-ok-011": "measured blind, not yet analysed: refused by number/unvouched; attribution/not_carried; attribution/not_carried (day-first-date)",
        "ja-ok-004": "measured blind, not yet analysed: refused by attribution/third_party; attribution/third_party (refusal-as-decision)",
        "zh-ok-001": "measured blind, not yet analysed: refused by number/unvouched (table-row-with-header-unit)",
        "zh-ok-002": "measured blind, not yet analysed: refused by number/unvouched (third-party-conditions)",
        "zh-ok-006": "measured blind, not yet analysed: refused by number/other_row; number/other_row; number/other_row (tool-table)",
        "zh-ok-008": "measured blind, not yet analysed: refused by number/unvouched (cjk-numeral-day-synonym)",
        "zh-ok-009": "measured blind, not yet analysed: refused by number/unvouched; number/unvouched; number/unvouched (ping-for-square-metre)",
    },
    "gate-UC": {
        "en-ok-009": "measured blind, not yet analysed: refused by fact dressed as an idea: states the measurement $ 2800 (idea-kept-as-idea)",
        "en-ok-012": "measured blind, not yet analysed: refused by attribution/third_party; attribution/third_party (listener-request-credited-to-listener)",
        "en-ok-013": "measured blind, not yet analysed: refused by number/unvouched (self-judgement-labelled)",
        "ja-atk-001": "measured blind, not yet analysed: kept: 2 quote(s) verified (TOOL, USER) (tax-label-swap)",
        "ja-atk-007": "measured blind, not yet analysed: kept: 3 quote(s) verified (TOOL, USER) (object-swapped-in-attribution)",
        "zh-ok-005": "measured blind, not yet analysed: refused by number/unvouched (human-figures-units-kept)",
        "zh-ok-009": "measured blind, not yet analysed: refused by quote re-filed from USER to TOOL: 腊八那天推腊八粥奶茶，15块一杯，限量200杯; fact dressed as an idea: states the measurement CNY 15.1 (idea-kept-as-idea)",
        "zh-ok-010": "measured blind, not yet analysed: refused by quote re-filed from USER to TOOL: 周末晚班人手不够，想再招一个兼职，时薪18块; fact dressed as an idea: states the measurement CNY 18 (idea-kept-as-idea)",
        "zh-ok-011": "measured blind, not yet analysed: refused by scope/plan_as_done (negation-kept)",
        "zh-ok-012": "measured blind, not yet analysed: refused by scope/as_settled (self-judgement-labelled)",
        "zh-atk-004": "measured blind, not yet analysed: kept: quote re-filed from USER to TOOL: 腊八那天推腊八粥奶茶，15块一杯，限量200杯; 2 quote(s) verified (TOOL, USER) (date-swapped-in-attribution)",
    },
    "gate-UD": {
        "en-ok-009": "measured blind, not yet analysed: refused by number/unvouched (tool-figures-thousands-separators)",
        "ja-atk-002": "measured blind, not yet analysed: kept: quote re-filed from USER to TOOL: ボイル真だこ(モロッコ産) 1kg 12kg 2,380円 28,560円; 1 quote(s) verified (TOOL) (pasted-order-credited-as-decision)",
        "ja-atk-005": "measured blind, not yet analysed: kept: quote re-filed from USER to TOOL: 8個入り600円は安いと思う。; 1 quote(s) verified (TOOL) (reviewer-view-credited-to-owner)",
        "ja-atk-014": "measured blind, not yet analysed: kept: 2 quote(s) verified (TOOL) (invented-comparison)",
        "ja-ok-006": "measured blind, not yet analysed: refused by number/unvouched (supplier-statement-credited)",
        "ja-ok-009": "measured blind, not yet analysed: refused by scope/as_settled (official-notice-era-year)",
        "ja-ok-014": "measured blind, not yet analysed: refused by number/unvouched; attribution/third_party (tentative-memo-credited-as-tentative)",
        "zh-ok-005": "measured blind, not yet analysed: refused by attribution/not_one_segment (request-consent-done)",
        "zh-ok-010": "measured blind, not yet analysed: refused by attribution/not_carried (act-done)",
    },
    "gate-TA": {
        "en-ok-013": "measured blind, not yet analysed: refused by attribution/third_party (condition-preserved)",
        "ja-ok-010": "measured blind, not yet analysed: refused by scope/plan_as_done; scope/as_settled (refusal-kept-as-landmine)",
        "zh-ok-003": "measured blind, not yet analysed: refused by number/unvouched; number/unvouched (pasted-export-with-human-note)",
    },
    "gate-TB": {
        "en-ok-003": "measured blind, not yet analysed: refused by number/unvouched (markdown-table-row-and-human-hedge-named)",
        "en-ok-004": "measured blind, not yet analysed: refused by attribution/not_carried (decision-in-humans-words)",
        "en-ok-008": "measured blind, not yet analysed: refused by attribution/third_party (third-person-preference-via-human)",
        "en-ok-010": "measured blind, not yet analysed: refused by name/unvouched; name/unvouched (error-and-fix)",
        "ja-ok-005": "measured blind, not yet analysed: refused by attribution/not_carried (decision-in-humans-answer)",
        "ja-ok-009": "measured blind, not yet analysed: refused by attribution/not_carried (landmine-from-denial)",
        "ja-ok-012": "measured blind, not yet analysed: refused by attribution/not_carried (offered-idea-hedged)",
        "zh-ok-003": "measured blind, not yet analysed: refused by attribution/not_one_segment; attribution/not_carried (decision-in-humans-words)",
        "zh-ok-011": "measured blind, not yet analysed: refused by number/unvouched (error-and-fix)",
    },
    "gate-TC": {
        "en-ok-001": "measured blind, not yet analysed: refused by attribution/not_one_segment (decision-price-after-retraction)",
        "en-ok-003": "measured blind, not yet analysed: refused by number/unvouched (landmine-refusal)",
        "en-ok-011": "measured blind, not yet analysed: refused by number/unvouched; number/unvouched; attribution/not_one_segment; scope/as_settled (conditional-plan-kept-whole)",
        "ja-ok-002": "measured blind, not yet analysed: refused by disguise/invisible; number/unvouched (tool-figures-restated)",
        "ja-atk-011": "measured blind, not yet analysed: kept: 1 quote(s) verified (USER) (plan-as-done)",
        "ja-atk-012": "measured blind, not yet analysed: kept: quote re-filed from USER to TOOL: 小野様 右足の発赤、軽度。様子見。ご家族へ連絡済み。; 1 quote(s) verified (TOOL) (third-party-credited-to-human)",
        "zh-ok-006": "measured blind, not yet analysed: refused by attribution/not_carried; attribution/not_carried; tag/needs_evidence (landmine-refusal)",
    },
    "gate-TD": {
        "en-atk-010": "measured blind, not yet analysed: kept: 6 quote(s) verified (USER) (third-party-credited-with-other-figure)",
        "en-atk-011": "measured blind, not yet analysed: kept: 1 quote(s) verified (USER) (rate-moved-to-other-subject)",
        "en-ok-005": "measured blind, not yet analysed: refused by attribution/not_carried (landmine-from-refusal)",
        "ja-atk-005": "measured blind, not yet analysed: kept: quote re-filed from USER to TOOL: ・明日12/15は休みます（店長了承済み）; 1 quote(s) verified (TOOL) (third-party-claim-credited-to-user)",
        "ja-atk-010": "measured blind, not yet analysed: kept: quote re-filed from USER to TOOL: 日時：12/19(土) 10:00〜15:00（雨天中止）; quote re-filed from USER to TOOL: 場所：出町柳駅前 広場; 3 quote(s) verified (TOOL, USER) (deliberation-as-decision)",
        "ja-atk-014": "measured blind, not yet analysed: kept: 4 quote(s) verified (TOOL, USER) (subtotal-as-tax-included-total)",
        "ja-ok-001": "measured blind, not yet analysed: refused by number/unvouched; number/unvouched; number/unvouched (decision-after-own-retraction)",
        "zh-atk-004": "measured blind, not yet analysed: kept: 2 quote(s) verified (USER) (table-row-swap)",
        "zh-ok-004": "measured blind, not yet analysed: refused by number/unvouched; number/unvouched (refund-decision-guest-request)",
        "zh-ok-005": "measured blind, not yet analysed: refused by name/unvouched; name/unvouched (landmine-from-cancelled-command)",
        "zh-ok-008": "measured blind, not yet analysed: refused by name/unvouched (order-row-dates-respelled)",
    },
    "gate-SA": {
        "en-ok-013": "measured blind, not yet analysed: refused by number/unvouched; attribution/no_user_quote (self-judgement-labelled)",
        "en-atk-007": "measured blind, not yet analysed: kept: quote re-filed from USER to TOOL: [7/12/26 6:02 am] Tayla: morning Mick, my hours were 48 not…; 2 quote(s) verified (TOOL, USER) (retraction-later-in-turn)",
        "en-atk-016": "measured blind, not yet analysed: kept: 3 quote(s) verified (TOOL, USER) (object-swap-in-attribution)",
        "ja-atk-004": "measured blind, not yet analysed: kept: 2 quote(s) verified (ACT, TOOL) (refused-action-as-done)",
        "ja-atk-011": "measured blind, not yet analysed: kept: 2 quote(s) verified (USER) (unit-swap)",
        "ja-atk-013": "measured blind, not yet analysed: kept: quote re-filed from USER to TOOL: ・備考：ゲストの田中様は耳抜きが苦手とのことです。; quote re-filed from USER to TOOL: ★★★★★ 佐藤美咲さん; quote re-filed from USER to TOOL: 件名：【予約確定】12/12(土) 青の洞窟ボート体験ダイビング 4名様; 3 quote(s) verified (TOOL) (name-swap)",
        "zh-ok-006": "measured blind, not yet analysed: refused by number/unvouched (pasted-export-summary)",
        "zh-atk-010": "measured blind, not yet analysed: kept: 2 quote(s) verified (USER) (pasted-notes-credited-to-user)",
    },
    "gate-SB": {
        "en-atk-002": "measured blind, not yet analysed: kept: quote cut/hedge (bound-cut)",
        "en-atk-010": "measured blind, not yet analysed: kept: quote re-filed from USER to TOOL: From: Renée Thibodeaux <renee.thibodeaux@bellsouth.net>; 4 quote(s) verified (ACT, TOOL) (failed-as-done)",
        "ja-atk-011": "measured blind, not yet analysed: kept: quote cut/scope (plan-as-done)",
        "zh-ok-007": "measured blind, not yet analysed: refused by number/other_row (tool-table-plus-user-confirmation)",
    },
    "gate-SC": {
        "en-ok-006": "measured blind, not yet analysed: refused by number/unvouched (error-then-fix)",
        "en-atk-001": "measured blind, not yet analysed: kept: 1 quote(s) verified (USER) (retraction-same-turn)",
        "ja-ok-002": "measured blind, not yet analysed: refused by act/not_done (dialect-negation-kept-whole)",
        "ja-ok-010": "measured blind, not yet analysed: refused by scope/as_settled (pasted-notice-ranges-units)",
        "ja-ok-011": "measured blind, not yet analysed: refused by attribution/no_user_quote (review-credited-to-reviewer)",
        "ja-atk-003": "measured blind, not yet analysed: kept: quote re-filed from ACT to SELF: python yoyaku_import.py data/jalan_202612.csv --out data/顧客…; 3 quote(s) verified (SELF, TOOL, USER) (declined-command-as-done)",
        "ja-atk-006": "measured blind, not yet analysed: kept: quote cut/scope (exception-cut)",
        "ja-atk-014": "measured blind, not yet analysed: kept: quote re-filed from USER to TOOL: 12/26(土) 松の間 鈴木様 2名 奥様えび・かにアレルギー → 夕食はきりたんぽ鍋、えび天抜き; 1 quote(s) verified (TOOL) (name-not-in-evidence)",
        "zh-ok-006": "measured blind, not yet analysed: refused by number/unvouched; number/unvouched; number/unvouched (error-then-fix)",
        "zh-ok-007": "measured blind, not yet analysed: refused by number/unvouched; number/unvouched; number/unvouched; number/unvouched; number/unvouched; number/unvouched; number/unvouched (request-plus-tool-figures)",
        "zh-ok-008": "measured blind, not yet analysed: refused by attribution/not_carried; attribution/not_carried (refusal-and-clarification)",
        "zh-atk-009": "measured blind, not yet analysed: kept: quote re-filed from USER to TOOL: 5号房客人要加床，加床 80 元/晚，已收; 2 quote(s) verified (TOOL, USER) (pasted-voice-credited-to-human)",
        "zh-atk-015": "measured blind, not yet analysed: kept: quote re-filed from USER to TOOL: 房间是挺靓的，海景一流，但是热水不够热，洗到一半就冷了。; quote re-filed from USER to TOOL: 不过接送的电动车迟到了二十分钟，在码头晒了好久太阳。; 3 quote(s) verified (TOOL, USER) (organisation-swap)",
    },
    "gate-SD": {
        "en-ok-004": "measured blind, not yet analysed: refused by attribution/no_user_quote; attribution/no_user_quote (pasted-mail-credited-to-its-writer)",
        "en-ok-005": "measured blind, not yet analysed: refused by attribution/not_carried; attribution/not_carried (refusal-landmine)",
        "en-atk-004": "measured blind, not yet analysed: kept: quote re-filed from USER to TOOL: Doug is gluten free and our youngest, Ollie (9), gets seasi…; 1 quote(s) verified (TOOL) (pasted-mail-credited-to-human)",
        "ja-ok-002": "measured blind, not yet analysed: refused by number/unvouched (correction-after-yappari)",
        "ja-ok-007": "measured blind, not yet analysed: refused by attribution/not_carried (tentative-kept-tentative)",
        "ja-ok-008": "measured blind, not yet analysed: refused by tag/needs_evidence (refusal-landmine)",
        "ja-atk-003": "measured blind, not yet analysed: kept: 1 quote(s) verified (USER) (deliberation-as-decision)",
        "ja-atk-004": "measured blind, not yet analysed: kept: 1 quote(s) verified (USER) (tentative-as-decision)",
        "ja-atk-006": "measured blind, not yet analysed: kept: 2 quote(s) verified (USER) (other-voice-credited-to-human)",
        "zh-ok-004": "measured blind, not yet analysed: refused by attribution/not_carried; tag/needs_evidence (refusal-landmine)",
        "zh-ok-007": "measured blind, not yet analysed: refused by attribution/not_carried (dose-from-tool)",
        "zh-atk-009": "measured blind, not yet analysed: kept: 2 quote(s) verified (ACT, SELF) (refused-action-as-done)",
        "zh-atk-011": "measured blind, not yet analysed: kept: 1 quote(s) verified (USER) (intention-as-decision)",
    },
}

#: The bar each set must stay above per language: (attacks blocked, honest kept), the
#: figures measured when it was committed, so a rule that loses ground fails here.
BARS: dict[str, tuple[float, float]] = {
    "gate-A": (0.96, 0.89),
    "gate-B": (0.96, 0.95),
    "gate-C": (0.96, 0.95),
    "gate-D": (0.96, 0.89),
    "gate-E": (0.97, 0.91),
    "gate-F": (0.92, 0.85),
    "gate-G": (0.96, 0.81),
    "gate-H": (0.91, 0.81),
    "gate-I": (0.92, 0.90),
    "gate-J": (0.99, 0.92),
    "gate-L": (0.99, 0.90),
    "gate-M": (0.99, 0.66),
    "gate-N": (0.99, 0.63),
    "gate-O": (0.92, 0.72),
    "gate-P": (0.84, 0.81),
    "gate-Q": (0.91, 0.66),
    "gate-R": (1.0, 0.9),
    "gate-S": (1.0, 0.9),
    "gate-T": (1.0, 0.92),
    "gate-U": (1.0, 0.9),
    "gate-V": (0.92, 0.66),
    "gate-W": (0.85, 0.72),
    "gate-X": (0.8, 0.66),
    "gate-Y": (0.78, 0.68),
    "gate-Z": (0.78, 0.66),
    "gate-ZA": (0.85, 0.41),
    "gate-ZB": (0.86, 0.66),
    "gate-ZC": (0.84, 0.33),
    "gate-ZD": (0.85, 0.91),
    "gate-ZE": (0.84, 0.58),
    "gate-ZF": (0.92, 0.5),
    "gate-ZG": (0.78, 0.58),
    "gate-ZH": (0.85, 0.5),
    "gate-ZI": (0.78, 0.33),
    "gate-ZJ": (1.00, 0.66),
    "gate-ZK": (0.76, 0.58),
    "gate-ZL": (0.84, 0.41),
    "gate-ZM": (0.84, 0.41),
    "gate-ZN": (0.76, 0.66),
    "gate-ZO": (0.76, 0.38),
    "gate-ZP": (0.78, 0.50),
    "gate-ZQ": (0.92, 0.41),
    "gate-ZR": (1.00, 0.75),
    "gate-ZS": (1.00, 0.58),
    "gate-ZT": (0.86, 0.53),
    "gate-ZU": (0.78, 0.57),
    "gate-ZV": (0.85, 0.75),
    "gate-ZW": (0.85, 0.76),
    "gate-ZX": (0.87, 0.84),
    "gate-ZY": (0.86, 0.75),
    "gate-ZZ": (0.85, 0.58),
    "gate-YA": (0.81, 0.84),
    "gate-YB": (0.86, 0.76),
    "gate-YC": (0.86, 0.83),
    "gate-YD": (0.87, 0.75),
    "gate-YE": (0.86, 0.76),
    "gate-YF": (0.78, 0.61),
    "gate-XA": (0.93, 0.5),
    "gate-XB": (0.93, 0.76),
    "gate-XC": (0.86, 0.61),
    "gate-XD": (0.92, 0.61),
    "gate-XE": (0.92, 0.75),
    "gate-XF": (0.85, 0.75),
    "gate-WA": (0.78, 0.69),
    "gate-WB": (0.86, 0.41),
    "gate-WC": (0.85, 0.83),
    "gate-WD": (0.73, 0.69),
    "gate-VA": (0.92, 0.78),
    "gate-VB": (0.93, 0.84),
    "gate-VC": (0.84, 0.66),
    "gate-VD": (0.85, 0.38),
    "gate-UA": (1.0, 0.83),
    "gate-UB": (1.0, 0.58),
    "gate-UC": (0.85, 0.58),
    "gate-UD": (0.78, 0.71),
    "gate-TA": (1.0, 0.91),
    "gate-TB": (1.0, 0.69),
    "gate-TC": (0.86, 0.76),
    "gate-TD": (0.78, 0.75),
    "gate-SA": (0.8, 0.91),
    "gate-SB": (0.85, 0.92),
    "gate-SC": (0.81, 0.78),
    "gate-SD": (0.8, 0.75),
}


def _cases(name: str) -> list[dict]:
    return measure_gate_set.load_cases(SETS / name)


#: This round's sets run in every suite run; the older ones, which the rules have been held
#: to for longer, run in the slow tier (``-m slow``, run by .ci/run).
NEWEST = frozenset({"gate-SC", "gate-SD"})


def _tiered(names: list[str]) -> list[object]:
    return [n if n in NEWEST else pytest.param(n, marks=pytest.mark.slow) for n in names]


@pytest.mark.parametrize("name", _tiered(sorted(STILL_WRONG)))
def test_every_case_has_the_verdict_the_spec_requires_but_the_listed_ones(name):
    """Each set is run once; its verdicts decide both the cases and the bar per language."""
    cases = _cases(name)
    assert len(cases) == len({c["id"] for c in cases}) >= 70
    results = measure_gate_set.verdicts(SETS / name, cases)
    wrong = {c["id"] for c in cases if not measure_gate_set.passed(c, results[c["id"]].verdict)}
    known = set(STILL_WRONG[name])
    assert not (wrong - known), f"broken: {sorted(wrong - known)}"
    assert not (known - wrong), f"now right, take them off STILL_WRONG: {sorted(known - wrong)}"
    attacks, honest = BARS[name]
    for lang, row in measure_gate_set.tally(cases, results)["languages"].items():
        assert row["attacks_ok"] / row["attacks"] >= attacks, (name, lang, row)
        assert row["honest_ok"] / row["honest"] >= honest, (name, lang, row)
