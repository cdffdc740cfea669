"""Names: one rule wherever a name is compared, and who speaks in the human's turn.

The rule (kura_core/floors/names.py): both sides folded (look-alike letters, width, Latin
case) and an honorific suffix or English title taken off both sides -- the same person; any
other spelling (a nickname, a longer name, the other script's characters) -- another person,
never credited as the human. Generated here: names x variants x the side the variant is on
(the configured name, the candidate's text, the human's segment, a speaker label).
"""

from __future__ import annotations

import hashlib

from hypothesis import given, settings, strategies as st

from kura_core.distill.evidence import Segment
from kura_core.distill.gate import GateResult, run_gate
from kura_core.floors.attribution import _STOP_EN, HUMAN, THIRD, claims, own_words
from kura_core.floors.names import is_configured, name_key, names_in, same_person
from kura_core.floors.units import ENGLISH_FUNCTION_WORDS, FUNCTION_WORDS

# --------------------------------------------------------------------------- the word lists


def _digest(words: frozenset[str]) -> str:
    return hashlib.sha256(" ".join(sorted(words)).encode()).hexdigest()


def test_the_shared_function_words_leave_both_lists_as_they_were():
    # the digests of the two lists before they were built from one shared list
    assert len(FUNCTION_WORDS) == 162
    assert _digest(FUNCTION_WORDS) == (
        "77c02ff20313549c081003a8031e34487e3e7f83440dbf4f3189084e26e29928"
    )
    # the attribution list has since gained the question words (whether, which …), the
    # words about the exchange itself (message, same, option …), the reflexive pronouns and
    # the channels a credit names (WhatsApp, e-mail, SMS …)
    assert len(_STOP_EN) == 223
    assert _digest(_STOP_EN) == "a5e277f048c9c8c3c9359b8c9a71ff5223b3de09b72297b95a085c152610e1c1"
    assert ENGLISH_FUNCTION_WORDS <= FUNCTION_WORDS and ENGLISH_FUNCTION_WORDS <= _STOP_EN
    assert len(ENGLISH_FUNCTION_WORDS) == 125


# --------------------------------------------------------------------------- the one rule

#: (language, a name, spellings of the same person, spellings of another person)
PEOPLE = [
    (
        "en",
        "Ren",
        ["Ren-san", "Ren san", "REN", "ren", "Rеn", "Mr Ren", "Ren-sensei"],
        ["Renny", "Renata", "Rin"],
    ),
    ("en", "Mika", ["Mika-chan", "Dr. Mika", "Мika"], ["Mikael", "Miko", "Mik"]),
    ("ja", "蓮", ["蓮さん", "蓮くん", "蓮先生", "蓮ちゃん", "蓮様"], ["莲", "小蓮", "蓮見"]),
    ("ja", "田中", ["田中さん", "田中氏", "田中部長"], ["田仲", "田中島", "中田"]),
    (
        "zh",
        "张伟",
        ["张伟老师", "张伟先生", "张伟同学"],
        ["張偉", "张伟明", "张玮", "老张", "小张"],
    ),
    ("zh", "陈静", ["陈静女士", "陈静经理"], ["陳靜", "陈晶", "陈静怡"]),
]
_SAME = [(lang, n, v, True) for lang, n, same, _o in PEOPLE for v in [n, *same]]
_OTHER = [(lang, n, v, False) for lang, n, _s, other in PEOPLE for v in other]
VARIANTS = _SAME + _OTHER

_DECIDED = {
    "en": ("{n} decided to keep the nightly backups for 14 days.",),
    "ja": ("{n}がバックアップを14日間残すと決めた。", "{n}はバックアップを14日間残すと言った。"),
    "zh": ("{n}决定把旧的快照保留90天。", "{n}说把旧的快照保留90天。"),
}
_OWN = {
    "en": "I decided to keep the nightly backups for 14 days.",
    "ja": "バックアップを14日間残すと決めた。",
    "zh": "我决定把旧的快照保留90天。",
}


def _segments(*texts: tuple[str, str]) -> list[Segment]:
    texts = (("TOOL", "exit status 0"), *texts)
    return [
        Segment(cls, text, "names.jsonl", i * 100, i * 100 + 99, "byte", "s1")
        for i, (cls, text) in enumerate(texts)
    ]


def _gate(body: str, segments: list[Segment], names: list[str], *quotes: str) -> GateResult:
    cand = {"kind": "fact", "title": "A memory", "description": "", "body": body}
    cand["quotes"] = list(quotes)
    (result,) = run_gate([cand], segments, is_echo=lambda q: False, human_names=names)
    return result


def _attribution(r: GateResult) -> bool:
    return r.verdict == "dropped" and any(v.kind == "attribution" for v in r.violations)


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(VARIANTS), st.booleans())
def test_a_variant_is_the_same_person_on_either_side_or_another_person(case, swap):
    """Whichever side carries the variant -- the configured name or the written one -- the
    answer is the same, and only folding and honorifics make the same person."""
    _lang, name, variant, same = case
    configured, written = (variant, name) if swap else (name, variant)
    assert same_person(configured, written) is same
    assert is_configured(written, [configured]) is same
    assert (name_key(configured) == name_key(written)) is same


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(VARIANTS), st.integers(0, 1))
def test_a_claim_naming_a_variant_credits_the_human_only_when_it_is_the_same_person(case, k):
    """The candidate's side: a clause whose subject is a spelling of the configured name is
    a claim about the human (needs the human's words); any other spelling is a third person
    (needs a segment that names them so)."""
    lang, name, variant, same = case
    templates = _DECIDED[lang]
    text = templates[k % len(templates)].format(n=variant)
    found = [c for c in claims(text, [name]) if c.who in (HUMAN, THIRD)]
    assert found, text
    assert found[0].who == (HUMAN if same else THIRD), (text, found[0])


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(VARIANTS), st.integers(0, 1))
def test_nothing_another_person_decided_is_credited_to_the_human(case, k):
    """The segment's side: the human's turn reports what someone decided. A claim that the
    human decided it is kept only when the someone is the human under the one rule."""
    lang, name, variant, same = case
    said = _DECIDED[lang][k % len(_DECIDED[lang])].format(n=variant)
    body = _DECIDED[lang][0].format(n=name)
    r = _gate(body, _segments(("USER", said)), [name], "[USER] " + said.rstrip(".。"))
    if same:
        assert r.verdict == "kept", (said, body, [v.message() for v in r.violations])
    else:
        assert _attribution(r), (said, body, r.verdict, [q.status for q in r.quotes])


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(VARIANTS))
def test_a_tool_saying_it_of_the_human_never_vouches_for_them(case):
    """A claim about the human -- in any spelling of their name -- needs the human's own
    words; a mail or a log that says it of them is not that."""
    lang, name, variant, same = case
    said = _DECIDED[lang][0].format(n=variant)
    r = _gate(said, _segments(("TOOL", said)), [name], "[TOOL] " + said.rstrip(".。"))
    if same:
        assert _attribution(r), (said, r.verdict)
    else:
        assert r.verdict == "kept", (said, [v.message() for v in r.violations])


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(VARIANTS))
def test_the_humans_own_words_credited_to_another_spelling_are_refused(case):
    """The human said it in the first person; the candidate credits a variant. The same
    person: kept. Another person: refused -- the evidence does not name them."""
    lang, name, variant, same = case
    said = _OWN[lang]
    body = _DECIDED[lang][0].format(n=variant)
    r = _gate(body, _segments(("USER", said)), [name], "[USER] " + said.rstrip(".。"))
    if same:
        assert r.verdict == "kept", (body, [v.message() for v in r.violations])
    else:
        assert _attribution(r), (body, r.verdict)


def test_names_in_reads_a_latin_name_as_a_whole_word():
    assert names_in("Mika", "mail from Mika: lunch")
    assert names_in("Mika-san", "Mika said so")
    assert not names_in("Mika", "Mikael said so")
    assert names_in("张伟老师", "张伟说的")
    assert not names_in("張偉", "张伟说的")


# --------------------------------------------------------------------------- who speaks

SPEAKERS = ["Mika", "Hiro", "Alice", "Tom", "Hiro Sato", "Priya"]
HEADINGS = [
    "Note",
    "TODO",
    "Error",
    "Summary",
    "Q",
    "A",
    "Step 1",
    "Warning",
    "Update",
    "Re",
    "PS",
    "Related",
    "Pending",
    "Resolution",
    "Next steps",
    "Status",
    "Tip",
    "Edit",
    "FYI",
    "Result",
    "Database",
    "Backups",
    "Reminder",
    "Important",
    "Context",
    "Question",
    "Answer",
    "Fix",
]
LABEL_FORMS = ["{n}: {c}", "[{n}] {c}", "<{n}> {c}", "{n} - {c}", "> {n}: {c}", "- {n}: {c}"]
CLAUSES = [
    "keep the nightly backups for 14 days",
    "move the photo archive to the slow disk",
    "pin the agent to version 0.18.1 on the NAS",
]


#: Capitalised words that open a line as a topic: no one's name, and in no word list.
TOPICS = ["Kitchen", "Postgres", "Garden", "Kubernetes", "Laundry", "Taxes", "Frontend", "Car"]
#: Names no list knows: a person only when the text shows one.
UNKNOWN = ["Zorblat", "Quenby", "Taliesin", "Oyelaran"]
#: What shows a bare label is a person: a conversation, the name used as a person, speech.
PERSON_SHOWN = [
    "Ren: ok\n{n}: {c}",
    "{n}: {c}\nUser: fine by me",
    "{n}'s call, as usual.\n{n}: {c}",
    "{n} said so yesterday.\n{n}: {c}",
    "cc @{n}\n{n}: {c}",
    "{n}: I think we should {c}",
    "{n}: let's {c}",
    "[{n}] {c}",
    "> {n}: {c}",
]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(TOPICS + UNKNOWN), st.sampled_from(CLAUSES), st.sampled_from([":", " -"]))
def test_a_bare_word_before_a_colon_is_a_topic_unless_the_text_shows_a_person(word, clause, sep):
    """ "Kitchen: …" is the human's own note; so is "Zorblat: …" when nothing says Zorblat is
    a person. Every shape below says so, and then the line is someone else's."""
    said = f"{word}{sep} {clause}"
    assert clause in own_words(said, ("Ren",)), said
    kept = _gate(
        f"The user wants to {clause}.", _segments(("USER", said)), ["Ren"], f"[USER] {clause}"
    )
    assert not _attribution(kept), (said, [v.message() for v in kept.violations])


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(UNKNOWN), st.sampled_from(PERSON_SHOWN), st.sampled_from(CLAUSES))
def test_an_unknown_name_the_text_shows_as_a_person_is_a_speaker(name, shape, clause):
    said = shape.format(n=name, c=clause)
    assert clause not in own_words(said, ("Ren",)), said
    r = _gate(
        f"The user wants to {clause}.", _segments(("USER", said)), ["Ren"], f"[USER] {clause}"
    )
    # dropped by attribution, or earlier by the scope floor ("I think" is a hedge)
    assert r.verdict == "dropped", (said, [q.status for q in r.quotes])


@settings(max_examples=80, deadline=None)
@given(
    st.sampled_from(SPEAKERS),
    st.sampled_from(LABEL_FORMS),
    st.sampled_from(CLAUSES),
    st.integers(0, 2),
)
def test_a_bare_speaker_label_makes_the_line_someone_elses(who, form, clause, line):
    """ "Mika: …" at any line of the human's turn: the words are Mika's, not the human's."""
    lines = ["ok, a few things.", "thanks!"]
    lines.insert(line % 3, form.format(n=who, c=clause))
    said = "\n".join(lines)
    assert own_words(said, ("Ren",)).count(clause) == 0
    r = _gate(
        f"The user wants to {clause}.", _segments(("USER", said)), ["Ren"], f"[USER] {clause}"
    )
    assert _attribution(r), (said, r.verdict, [q.status for q in r.quotes])


@settings(max_examples=80, deadline=None)
@given(
    st.sampled_from([*HEADINGS, "Ren", "Ren-san", "User", "Me"]),
    st.sampled_from(LABEL_FORMS),
    st.sampled_from(CLAUSES),
)
def test_a_heading_or_the_humans_own_label_is_no_other_speaker(head, form, clause):
    said = form.format(n=head, c=clause)
    assert clause in own_words(said, ("Ren",))
    r = _gate(
        f"The user wants to {clause}.", _segments(("USER", said)), ["Ren"], f"[USER] {clause}"
    )
    assert r.verdict == "kept", (said, [v.message() for v in r.violations], r.quotes)


def test_a_candidates_bare_label_is_a_claim_about_that_person():
    said = "move the photo archive to the slow disk."
    r = _gate(f"Mika: {said}", _segments(("USER", said)), ["Ren"], "[USER] " + said)
    assert any(v.rule == "third_party" for v in r.violations)
    r = _gate(f"Note: {said}", _segments(("USER", said)), ["Ren"], "[USER] " + said)
    assert r.verdict == "kept"


# --------------------------------------------------------------------------- bare names

SUBJECTS = {
    "en": (["Mika", "Hiro", "Alice", "Priya Natarajan"], "{s} decided to use Postgres."),
    "ja": (["田中", "佐藤", "鈴木", "長谷川", "Mika"], "{s}がPostgresにすると決めた。"),
    "zh": (["张伟", "李娜", "王磊", "刘洋", "陳靜"], "{s}决定用 Postgres。"),
}
FIRST_PERSON = {
    "en": ["I decided to use Postgres.", "we decided to use Postgres.", "decided to use Postgres."],
    "ja": [
        "Postgresにすると決めた。",
        "私がPostgresにすると決めた。",
        "僕はPostgresにすると決めた。",
    ],
    "zh": ["我决定用 Postgres。", "我们决定用 Postgres。", "决定用 Postgres。"],
}
CREDIT = {
    "en": "The user decided to use Postgres.",
    "ja": "ユーザーはPostgresにすると決めた。",
    "zh": "用户决定用 Postgres。",
}


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["en", "ja", "zh"]), st.data())
def test_a_third_persons_decision_in_the_humans_turn_is_not_the_humans(lang, data):
    names, template = SUBJECTS[lang]
    said = template.format(s=data.draw(st.sampled_from(names)))
    whole = _gate(CREDIT[lang], _segments(("USER", said)), ["Ren"], "[USER] " + said.rstrip("。."))
    assert _attribution(whole), (said, whole.verdict)
    mine = data.draw(st.sampled_from(FIRST_PERSON[lang]))
    kept = _gate(CREDIT[lang], _segments(("USER", mine)), ["Ren"], "[USER] " + mine.rstrip("。."))
    assert kept.verdict == "kept", (mine, [v.message() for v in kept.violations])


#: A thing as the subject of a clause that ends before the verb: the one who decides is
#: whoever the main clause names (寄付先が6自治体になるので、蓮は確定申告にすると決めた).
THINGS = ["寄付先", "天気", "予算", "会議", "在庫", "電車", "サーバー"]
STATES = ["6つになる", "悪い", "足りない", "長引いた", "遅れた"]
JOINTS = ["ので、", "から、", "けど、", "ため、", "ので", "から"]
DECIDERS = ["蓮は", "私は", "ユーザーは", ""]


@settings(max_examples=80, deadline=None)
@given(
    st.sampled_from(THINGS),
    st.sampled_from(STATES),
    st.sampled_from(JOINTS),
    st.sampled_from(DECIDERS),
)
def test_a_subject_of_a_clause_that_ends_before_the_verb_is_not_the_one_who_decides(
    thing, state, joint, decider
):
    said = f"今年は{thing}が{state}{joint}{decider}延期すると決めた。"
    assert not [c for c in claims(said, ("蓮",)) if c.who == THIRD and thing in c.text], said
    body = f"今年は{thing}が{state}{joint}蓮は延期すると決めた。"
    kept = _gate(body, _segments(("USER", said)), ["蓮"], "[USER] " + said.rstrip("。"))
    assert not _attribution(kept), (said, [v.message() for v in kept.violations])
    # the same thing as the subject of the verb itself is someone other than the human
    direct = f"{thing}が延期すると決めた。"
    assert [c for c in claims(direct, ("蓮",)) if c.who == THIRD], direct


#: People named by their role, not their name: a group or a person the human answers to.
ROLES = {
    "en": (
        ["The team", "Our client", "The landlord", "The management", "My manager", "Our lead"],
        "{s} decided to use Postgres.",
        "I told {o} to use Postgres.",
        ["the team", "the client", "my manager"],
    ),
    "zh": (
        ["团队", "经理", "公司", "主管", "他们", "客户"],
        "{s}决定用 Postgres。",
        "我跟{o}说用 Postgres。",
        ["团队", "经理", "主管"],
    ),
}


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["en", "zh"]), st.data())
def test_a_decision_by_a_role_is_not_the_humans_but_telling_a_role_is(lang, data):
    subjects, decided, told, objects = ROLES[lang]
    said = decided.format(s=data.draw(st.sampled_from(subjects)))
    credit = CREDIT[lang]
    theirs = _gate(credit, _segments(("USER", said)), ["Ren"], "[USER] " + said.rstrip("。."))
    assert theirs.verdict == "dropped", said
    mine = told.format(o=data.draw(st.sampled_from(objects)))
    assert "Postgres" in own_words(mine, ("Ren",)), mine


def test_they_that_are_things_leave_the_humans_words_whole():
    said = "they are old, so keep the nightly backups for 14 days."
    assert "keep the nightly backups" in own_words(said)
    said = "they decided to keep the nightly backups for 14 days."
    assert "keep the nightly backups" not in own_words(said)
    for she in ("she wants to keep the nightly backups.", "他决定把旧的快照保留90天。"):
        assert "nightly" not in own_words(she) and "快照" not in own_words(she)


def test_words_that_start_like_a_surname_are_not_people():
    for said in ("马上决定用 Postgres。", "周末决定用 Postgres。", "任何人都说用 Postgres 好。"):
        assert not [c for c in claims(said) if c.who == THIRD], said


# --------------------------------------------------------------------------- shapes of speech

_POSTGRES = {
    "en": "The user wants to use Postgres.",
    "ja": "ユーザーはPostgresにすると決めた。",
    "zh": "用户决定用 Postgres。",
}
#: (language, the human's turn, whether a claim that the human wants it is kept)
TURNS = [
    ("en", "Hiro suggested SQLite, and I said: use Postgres.", True),
    ("en", "I told Mika to use Postgres.", True),
    ("en", "Mika and I decided to use Postgres.", True),
    ("en", "Heads up: use Postgres.", True),
    ("en", "Action items:\n- use Postgres", True),
    ("en", "Mika's call: use Postgres.", False),
    ("en", "My colleague Mika wants to use Postgres.", False),
    ("en", "Mika thinks we should use Postgres.", False),
    ("en", "Mika decided we should\nuse Postgres.", False),
    ("en", "they said to use Postgres.", False),
    ("en", "Ren: use SQLite\nTom: use Postgres", False),
    ("en", "Tom: use SQLite\nRen: no, use Postgres", True),
    ("zh", "我跟张伟说了，用 Postgres。", True),
    ("zh", "我和李娜决定用 Postgres。", True),
    ("zh", "马上决定用 Postgres。", True),
    ("zh", "最后决定用 Postgres。", True),
    ("zh", "张伟 说：用 Postgres。", False),
    ("zh", "张伟的意见是用 Postgres。", False),
    ("zh", "老张决定用 Postgres。", False),
    ("zh", "客户决定用 Postgres。", False),
    ("ja", "今日はPostgresにすると決めた。", True),
    ("ja", "データベースはPostgresにすると決めた。", True),
    ("ja", "田中さんに相談して、Postgresにすると決めた。", True),
    ("ja", "田中の意見でPostgresにすると決めた。", False),
    ("ja", "Postgresにすると田中が決めた。", False),
    ("ja", "チームがPostgresにすると決めた。", False),
    ("ja", "ミカが言った：Postgresにする。", False),
]


def test_whose_words_a_turn_holds():
    bad = []
    for lang, said, kept in TURNS:
        quote = "[USER] " + said.rstrip("。.").replace("\n", " ")
        r = _gate(_POSTGRES[lang], _segments(("USER", said)), ["Ren"], quote)
        if (r.verdict == "kept") != kept or (not kept and not _attribution(r)):
            bad.append((said, r.verdict, [q.status for q in r.quotes], r.violations))
    assert not bad, bad


def test_a_claim_wrapped_over_lines_credits_all_its_lines():
    said = "keep the nightly backups."
    body = "The user decided to\ndelete the old snapshots after 90 days."
    r = _gate(body, _segments(("USER", said)), ["Ren"], "[USER] " + said)
    assert _attribution(r)
