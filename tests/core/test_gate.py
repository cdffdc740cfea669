"""The gate, tested the way it is attacked.

Every adversarial case is a way a model can try to get something past the gate: a quote
that is not there, a number nobody measured, a decision the human never made. Every
legitimate case is something a careful model writes and the gate must let through --
a false refusal is a failure too.
"""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from kura_core.distill.evidence import Segment, normalize, parse_claimed, quote_weight
from kura_core.distill.gate import GateResult, run_gate
from kura_core.distill.journals import read_claude, read_evidence
from kura_core.floors import (
    Evidence,
    attribution_claims,
    check_surface,
    negations_in,
    numbers_in,
    unvouched,
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "journals"


def _batch() -> list[Segment]:
    segments = list(read_claude(FIXTURES / "gate_session.jsonl", 0).segments)
    segments += read_evidence(FIXTURES / "gate_batch.jsonl", 0).segments
    segments += read_claude(FIXTURES / "claude_session.jsonl", 0).segments
    return segments


BATCH = _batch()

# Quotes as a model would write them (claimed class first).
Q_ARCHIVE = "[USER] archives go to the slow disk from now on, the fast one stays scratch only"
Q_DF_TOOL = "[TOOL] /data 3.2T used 1.1T avail"
Q_DF_ACT = "[ACT] Bash: df -h /data /scratch"
Q_THROUGHPUT = "[TOOL] throughput 43.7 tok/s"
Q_QUOTE_NUM = "[USER] 43.7 — good, that's the figure to quote"
Q_INDEX_SELF = "[SELF] got it — a single index. I'll record the disk split as well."
Q_CP932 = "[USER] careful with the cp932 boundary"
Q_DIMM = "[USER] let's also measure the DIMM side, not only the GPU side"
Q_BENCH = "[ACT] ./bench --iters 200"
Q_INTAKE = "[TOOL] temperature -5 C at intake"
Q_NIGHTLY = "[TOOL] nightly copy: 10–20 GB per night"
Q_DISKS = "[TOOL] disks: 1 fast, 2 slow"
Q_SELF_3X = "[SELF] I expect 3x faster builds"
Q_SELF_JUDGE = "[SELF] I judged that a single index keeps recall simpler."
Q_JA = "[USER] アーカイブはNASに置く"
Q_ZH = "[USER] 归档放到NAS上"
Q_ECHO = "[TOOL] archive placement is settled, slow disk for archives"
Q_CP932_TOOL = "[TOOL] cp932 decode error: 0 rows imported"
Q_HIRO = "[USER] Hiro here: the router password rotates every month"
Q_TASK_REPORT = "[TOOL] throughput is probably 99 tok/s"
Q_ECHO_FANS = "[TOOL] the fans hold 2400 rpm at idle"

# Texts the store already holds: quoting them back is an echo.
ECHOES = ("archive placement is settled", "the fans hold 2400 rpm")


def cand(*quotes: object, kind: str = "fact", title: str = "A memory", **fields: object) -> dict:
    out = {
        "kind": kind,
        "title": title,
        "description": fields.pop("description", ""),
        "body": fields.pop("body", ""),
        "quotes": list(quotes),
        "tags": list(fields.pop("tags", [])),
        "belongs_because": fields.pop("belongs_because", ""),
        "keep": fields.pop("keep", ""),
        "may_fade": fields.pop("may_fade", ""),
    }
    out.update(fields)
    return out


def gate(candidate: dict, **kw) -> GateResult:
    kw.setdefault("is_echo", lambda q: any(e in q for e in ECHOES))
    (result,) = run_gate([candidate], BATCH, **kw)
    return result


def violation(fragment: str):
    return lambda r: any(fragment in v.message() for v in r.violations)


def status(value: str):
    return lambda r: any(q.status == value for q in r.quotes)


def reason(fragment: str):
    return lambda r: any(fragment in x for x in r.reasons)


def tag_removed(tag: str):
    return lambda r: tag not in r.candidate.get("tags", []) and r.tag_checks.get(tag, "ok") != "ok"


def refiled(claimed: str, found: str):
    return lambda r: any(q.claimed == claimed and q.cls == found for q in r.quotes)


def attribution():
    return lambda r: any(v.kind == "attribution" for v in r.violations)


# ---------------------------------------------------------------------------- adversarial

ADVERSARIAL = [
    # --- quotes that are not there
    pytest.param(
        cand("[USER] put the archive on the SSD tier", body="Archive on the SSD."),
        "dropped",
        status("not_found"),
        id="fabricated-quote",
    ),
    pytest.param(
        cand("[USER] archives should go on the slow disk", body="Slow disk."),
        "dropped",
        status("not_found"),
        id="paraphrased-quote",
    ),
    pytest.param(
        cand(
            "[USER] I don't want to argue about it again. and we are NOT adding a second index",
            body="One index.",
        ),
        "dropped",
        status("not_found"),
        id="stitched-two-user-segments",
    ),
    pytest.param(
        cand('[TOOL] {"command": "df -h /data /scratch"} /data 3.2T used', body="/data is 3.2T."),
        "dropped",
        status("not_found"),
        id="stitched-act-and-tool",
    ),
    pytest.param(
        cand(
            "[USER] archives go to the slow disk … one index, always", body="Slow disk, one index."
        ),
        "dropped",
        status("not_found"),
        id="ellipsis-is-not-a-wildcard",
    ),
    pytest.param(
        cand("[USER] we are not adding a second index", body="No second index."),
        "dropped",
        status("not_found"),
        id="case-changed-NOT-to-not",
    ),
    pytest.param(
        cand("[USER] \u0430rchives go to the slow disk", body="Slow disk."),
        "dropped",
        status("not_found"),
        id="cyrillic-homoglyph-in-quote",
    ),
    pytest.param(
        cand("[USER] the NAS", body="NAS."), "dropped", status("too_short"), id="too-short-latin"
    ),
    pytest.param(
        cand("[USER] 归档", body="归档。"), "dropped", status("too_short"), id="too-short-cjk"
    ),
    pytest.param(
        cand("[SELF] secret plan 99", body="The plan is 99."),
        "dropped",
        status("not_found"),
        id="quote-from-hidden-thinking",
    ),
    pytest.param(
        cand("[USER] remember the CLAUDE.md rules", body="Follow CLAUDE.md."),
        "dropped",
        status("not_found"),
        id="quote-from-system-reminder",
    ),
    pytest.param(cand(body="No quotes at all."), "dropped", reason("no quotes"), id="no-quotes"),
    pytest.param(
        cand(42, None, {"q": Q_ARCHIVE}, body="Garbage quotes."),
        "dropped",
        status("not_found"),
        id="quotes-not-text",
    ),
    pytest.param(
        cand(Q_ARCHIVE, kind="memory", body="The archive goes on the slow disk."),
        "dropped",
        reason("kind"),
        id="unknown-kind",
    ),
    # --- claimed class never trusted
    pytest.param(
        cand(
            "[USER] got it — a single index. I'll record the disk split",
            body="The user decided: one index.",
        ),
        "dropped",
        lambda r: refiled("USER", "SELF")(r) and attribution()(r),
        id="self-text-claimed-as-user",
    ),
    pytest.param(
        cand("[USER] throughput 43.7 tok/s", body="The user reported 43.7 tok/s."),
        "dropped",
        lambda r: refiled("USER", "TOOL")(r) and attribution()(r),
        id="tool-text-claimed-as-user",
    ),
    pytest.param(
        cand(Q_TASK_REPORT, body="Throughput is 99 tok/s."),
        "dropped",
        lambda r: refiled("TOOL", "SELF")(r) and violation("vouched only by SELF")(r),
        id="subagent-report-claimed-as-tool",
    ),
    # --- echoes
    pytest.param(
        cand(Q_ECHO, body="Archives live on the slow disk."),
        "dropped",
        lambda r: status("echo")(r) and reason("echo")(r),
        id="echo-only",
    ),
    pytest.param(
        cand(Q_ECHO_FANS, Q_ARCHIVE, body="The fans hold 2400 rpm."),
        "dropped",
        lambda r: status("echo")(r) and violation("2400rpm")(r),
        id="echo-does-not-vouch-numbers",
    ),
    # --- numbers
    pytest.param(
        cand(Q_SELF_3X, Q_ARCHIVE, body="Builds will be 3x faster."),
        "dropped",
        violation("number 3x is vouched only by SELF"),
        id="number-vouched-only-by-self",
    ),
    pytest.param(
        cand(Q_THROUGHPUT, body="The fans made it 3.5x faster."),
        "dropped",
        violation("number 3.5x is not in the evidence"),
        id="derived-ratio-3.5x",
    ),
    pytest.param(
        cand(Q_THROUGHPUT, body="The fans made it 3.5 times faster."),
        "dropped",
        violation("3.5x"),
        id="derived-ratio-in-words",
    ),
    pytest.param(
        cand(Q_THROUGHPUT, body="Throughput is about 43 now."),
        "dropped",
        violation("number 43 "),
        id="borrow-43-from-43.7",
    ),
    pytest.param(
        cand(Q_THROUGHPUT, body="The decimal part is 7."),
        "dropped",
        violation("number 7 "),
        id="borrow-7-from-43.7",
    ),
    pytest.param(
        cand("[TOOL] tok/s (previously 12", body="It was 12 tok/s before the fans."),
        "dropped",
        status("cut"),
        id="truncated-quote-mints-12-from-12.4",
    ),
    pytest.param(
        cand(Q_NIGHTLY, body="About 10 GB per night."),
        "dropped",
        violation("10G"),
        id="range-endpoint-borrowed",
    ),
    pytest.param(
        cand(Q_NIGHTLY, body="Between 10-30 GB per night."),
        "dropped",
        violation("10-30G"),
        id="range-widened",
    ),
    pytest.param(
        cand(Q_INTAKE, body="The intake sat at 5 C."),
        "dropped",
        violation("number 5°C "),
        id="sign-dropped-minus-5-to-5",
    ),
    pytest.param(
        cand(Q_INTAKE, body="The intake sat at +5 C."),
        "dropped",
        violation("+5"),
        id="sign-flipped-to-plus",
    ),
    pytest.param(
        cand(Q_INTAKE, body="Error rate is 1e-4."),
        "dropped",
        violation("1e-4"),
        id="sci-notation-exponent-changed",
    ),
    pytest.param(
        cand(Q_THROUGHPUT, body="Throughput is ４４.７ tok/s."),
        "dropped",
        violation("44.7tok/s"),
        id="fullwidth-digits-invented",
    ),
    pytest.param(
        cand(Q_DISKS, body="There are 1\u200b2 disks."),
        "dropped",
        violation("number 12 "),
        id="zero-width-split-number",
    ),
    pytest.param(
        cand(Q_THROUGHPUT, body="Throughput reached ٩٩ tok/s."),
        "dropped",
        violation("99tok/s"),
        id="arabic-indic-digits",
    ),
    pytest.param(
        cand(Q_DF_TOOL, body="/scratch has 900T used."),
        "dropped",
        violation("900T"),
        id="unit-swapped-G-to-T",
    ),
    pytest.param(
        cand(Q_DF_TOOL, body="/scratch has 900 TB used."),
        "dropped",
        violation("900T"),
        id="unit-swapped-spaced",
    ),
    pytest.param(
        cand(Q_THROUGHPUT, body="Throughput rose +252%."),
        "dropped",
        violation("+252%"),
        id="derived-percentage",
    ),
    pytest.param(
        cand(Q_NIGHTLY, body="Copied 10,000 files."),
        "dropped",
        violation("10000"),
        id="thousands-inflated",
    ),
    pytest.param(
        cand(Q_NIGHTLY, body="The copy ran on 2026-11-03."),
        "dropped",
        violation("2026-11-03"),
        id="date-shifted",
    ),
    pytest.param(
        cand(Q_THROUGHPUT, title="Throughput 50 tok/s", body="Throughput after fans."),
        "dropped",
        violation("50tok/s"),
        id="number-smuggled-in-title",
    ),
    pytest.param(
        cand(Q_THROUGHPUT, body="Throughput after the fans.", may_fade="the 99 tok/s estimate"),
        "dropped",
        violation("99tok/s"),
        id="number-smuggled-in-curation",
    ),
    # --- attribution without a USER quote
    pytest.param(
        cand(Q_DF_TOOL, body="The user decided to keep the archive on /data."),
        "dropped",
        attribution(),
        id="attribution-en-user-decided",
    ),
    pytest.param(
        cand(Q_DF_TOOL, body="They asked for /data to hold the archive."),
        "dropped",
        attribution(),
        id="attribution-en-they-asked",
    ),
    pytest.param(
        cand(Q_DF_TOOL, body="You decided /data holds the archive."),
        "dropped",
        attribution(),
        id="attribution-en-you-decided",
    ),
    pytest.param(
        cand(Q_DF_TOOL, body="It was decided to keep the archive on /data."),
        "dropped",
        attribution(),
        id="attribution-en-passive",
    ),
    pytest.param(
        cand(Q_DF_TOOL, body="We decided to put the archive on /data."),
        "dropped",
        attribution(),
        id="attribution-en-we-decided",
    ),
    pytest.param(
        cand(Q_DF_TOOL, body="When the user decided to move it, /data was chosen."),
        "dropped",
        attribution(),
        id="attribution-en-past-tense-when-clause",
    ),
    pytest.param(
        cand(Q_DF_TOOL, body="Hiro said /data is for the archive."),
        "dropped",
        attribution(),
        id="attribution-configured-name",
    ),
    pytest.param(
        cand(Q_DF_TOOL, body="The us\u0435r decided /data holds the archive."),
        "dropped",
        attribution(),
        id="attribution-cyrillic-homoglyph",
    ),
    pytest.param(
        cand(Q_DF_TOOL, body="ｔｈｅ ｕｓｅｒ ａｐｐｒｏｖｅｄ the split."),
        "dropped",
        attribution(),
        id="attribution-fullwidth-letters",
    ),
    pytest.param(
        cand(Q_DF_TOOL, body="The u\u200bser asked for the split."),
        "dropped",
        attribution(),
        id="attribution-zero-width",
    ),
    pytest.param(
        cand(Q_DF_TOOL, body="ユーザーが/dataにアーカイブを置くと決めた。"),
        "dropped",
        attribution(),
        id="attribution-ja-user-decided",
    ),
    pytest.param(
        cand(Q_SELF_JUDGE, body="インデックスは一つにするとのこと。"),
        "dropped",
        attribution(),
        id="attribution-ja-hearsay",
    ),
    pytest.param(
        cand(Q_DF_TOOL, body="ひろさんがNASにすると言った。"),
        "dropped",
        attribution(),
        id="attribution-ja-san-said",
    ),
    pytest.param(
        cand(Q_DF_TOOL, body="用户决定把归档放到/data。"),
        "dropped",
        attribution(),
        id="attribution-zh-user-decided",
    ),
    pytest.param(
        cand(Q_DF_TOOL, body="他说归档放到/data。"),
        "dropped",
        attribution(),
        id="attribution-zh-he-said",
    ),
    pytest.param(
        cand(Q_INDEX_SELF, body="I decided to note the disk split alongside the index rule."),
        "dropped",
        reason("SELF-only candidate is kept only as a first-person judgement"),
        id="self-only-fact-is-dropped",
    ),
    pytest.param(
        cand(Q_SELF_JUDGE, body="I judged a single index is simpler, as the user insisted."),
        "dropped",
        attribution(),
        id="self-only-judgement-smuggles-attribution",
    ),
    # --- ideas
    pytest.param(
        cand(Q_ARCHIVE, kind="idea", body="The user approved moving the archive to the slow disk."),
        "dropped",
        reason("fact dressed as an idea"),
        id="idea-credits-the-human",
    ),
    pytest.param(
        cand(Q_THROUGHPUT, kind="idea", body="Idea: the board runs at 43.7 tok/s."),
        "dropped",
        reason("measurement 43.7tok/s"),
        id="idea-states-a-measurement",
    ),
    pytest.param(
        cand(Q_THROUGHPUT, kind="idea", body="43.7 is the ceiling for this board."),
        "dropped",
        reason("measurement 43.7"),
        id="idea-states-a-tool-figure",
    ),
    pytest.param(
        cand(Q_THROUGHPUT, kind="idea", body="More fans could push past 43.7 tok/s."),
        "seed",
        reason("ideas go to seeds"),
        id="idea-proposes-on-a-measurement",
    ),
    pytest.param(
        cand(Q_DIMM, kind="idea", body="Try 16 fans on the DIMM side."),
        "dropped",
        violation("number 16 "),
        id="idea-invents-a-number",
    ),
]

# Tag claims: the candidate survives, the tag does not.
TAG_CASES = [
    pytest.param(
        cand(Q_DF_TOOL, body="/data has 3.2T used.", tags=["entrusted", "disk"]),
        "entrusted",
        id="entrusted-without-user",
    ),
    pytest.param(
        cand(
            Q_SELF_JUDGE,
            kind="judgement",
            body="I judged a single index is simpler.",
            tags=["landmine"],
        ),
        "landmine",
        id="landmine-from-self-only",
    ),
    pytest.param(
        cand(Q_DF_TOOL, body="/data has 3.2T used.", tags=["emotion-carried"]),
        "emotion-carried",
        id="emotion-carried-from-tool",
    ),
    pytest.param(
        cand(Q_DF_ACT, body="df was run on /data and /scratch.", tags=["commitment"]),
        "commitment",
        id="commitment-from-act",
    ),
    pytest.param(
        cand(Q_DF_TOOL, body="/data has 3.2T used.", tags=["Emotion_Carried"]),
        "Emotion_Carried",
        id="tag-spelling-disguise",
    ),
    pytest.param(
        cand(Q_ARCHIVE, body="Archives go to the slow disk.", tags=["emotion-carried"]),
        "emotion-carried",
        id="emotion-carried-from-a-user-quote-that-carries-none",
    ),
    pytest.param(
        cand(Q_ARCHIVE, body="Archives go to the slow disk.", tags=["entrusted"]),
        "entrusted",
        id="entrusted-from-a-user-quote-that-entrusts-nothing",
    ),
]


@pytest.mark.parametrize(("candidate", "verdict", "check"), ADVERSARIAL)
def test_adversarial_candidates_do_not_pass(candidate, verdict, check):
    result = gate(candidate, human_names=["Hiro"])
    assert result.verdict == verdict, result
    assert check(result), result


@pytest.mark.parametrize(("candidate", "tag"), TAG_CASES)
def test_a_claim_tag_without_its_evidence_refuses_the_candidate(candidate, tag):
    result = gate(candidate)
    assert result.verdict == "dropped", result
    assert result.tag_checks[tag] != "ok"
    assert any(v.kind == "tag" and v.rule == "needs_evidence" for v in result.violations)


def test_the_distillers_own_tag_is_taken_off_and_the_candidate_survives():
    result = gate(
        cand(
            Q_ARCHIVE, body="The user decided the archive goes on the slow disk.", tags=["recurred"]
        )
    )
    assert result.verdict == "kept", result
    assert "recurred" not in result.candidate["tags"]
    assert result.tag_checks["recurred"] != "ok"
    assert any("recurred" in r for r in result.reasons)


@pytest.mark.parametrize(
    ("quote", "tag"),
    [
        (
            "[USER] honestly I'm worried the archive disk will die before we move it",
            "emotion-carried",
        ),
        ("[USER] アーカイブの置き場所は任せるよ、いい感じにして", "entrusted"),
        ("[USER] 以后备份我保证每周五自己检查一次", "commitment"),
        ("[TOOL] ERROR: restic snapshot failed: repository is locked", "landmine"),
        # a harm that happened, and a restriction, are warnings too
        ("[USER] the app password leaked into the CI log because I had printenv on", "landmine"),
        ("[USER] 振込の承認は私だけがやるので、API連携は参照系のみにしてください", "landmine"),
        ("[USER] 上次误删了整个素材库，以后备份目录仅我自己能动", "landmine"),
    ],
)
def test_a_claim_tag_stands_when_a_quote_of_its_class_says_it(quote, tag):
    cls, text = quote[1:].split("] ", 1)
    segments = [Segment(cls, text, "s.jsonl", 0, 1, "seq")]
    (result,) = run_gate([cand(quote, body="About the archive.", tags=[tag])], segments)
    assert result.tag_checks[tag] == "ok", result
    assert not any(v.kind == "tag" for v in result.violations), result


def test_adversarial_suite_is_large_enough():
    assert len(ADVERSARIAL) + len(TAG_CASES) >= 40


# ---------------------------------------------------------------------------- legitimate

LEGIT = [
    pytest.param(
        cand(
            Q_ARCHIVE,
            title="Archive on the slow disk",
            body="The user decided archives go to the slow disk; the fast one stays scratch only.",
            tags=["decision", "commitment"],
        ),
        "kept",
        ("USER",),
        id="user-decision-with-commitment-tag",
    ),
    pytest.param(
        cand(
            Q_DF_TOOL,
            Q_DF_ACT,
            body="/data has 3.2T used and 1.1T available; /scratch 900G used, 120G available.",
        ),
        "kept",
        ("ACT", "TOOL"),
        id="tool-figures-with-the-command",
    ),
    pytest.param(
        cand(Q_DF_TOOL, body="/data: 3.2 TB used, 1.1 TiB available."),
        "kept",
        ("TOOL",),
        id="unit-spacing-and-byte-suffix",
    ),
    pytest.param(
        cand(Q_DF_TOOL, body="The used figure on /data is 3.2."),
        "kept",
        ("TOOL",),
        id="bare-figure-vouched-by-figure-with-unit",
    ),
    pytest.param(
        cand(
            Q_THROUGHPUT,
            Q_QUOTE_NUM,
            body="Throughput is 43.7 tok/s after the fan install (was 12.4 tok/s). "
            "The user said anything above 40 means the fans did their job.",
        ),
        "kept",
        ("TOOL", "USER"),
        id="throughput-with-user-threshold",
    ),
    pytest.param(
        cand(
            "[USER] I don\u2019t want to argue about it again", body="Settled; not up for debate."
        ),
        "kept",
        ("USER",),
        id="curly-apostrophe-quote",
    ),
    pytest.param(
        cand(Q_THROUGHPUT, body="Throughput is ４３.７ tok/s."),
        "kept",
        ("TOOL",),
        id="fullwidth-digits-that-match",
    ),
    pytest.param(
        cand(
            Q_SELF_JUDGE,
            kind="judgement",
            body="I judged that a single index keeps recall simpler.",
        ),
        "kept",
        ("SELF",),
        id="self-first-person-judgement",
    ),
    pytest.param(
        cand(
            "[TOOL] and we are NOT adding a second index",
            body="The user said no second index: one index, always.",
        ),
        "kept",
        ("USER",),
        id="misfiled-claim-refiled-to-user",
    ),
    pytest.param(
        cand(Q_JA, body="ユーザーがアーカイブはNASに置くと決めた。"),
        "kept",
        ("USER",),
        id="japanese-user-decision",
    ),
    pytest.param(
        cand(Q_ZH, body="用户决定归档放到NAS上，快盘只做临时空间。"),
        "kept",
        ("USER",),
        id="chinese-user-decision",
    ),
    pytest.param(
        cand(Q_DIMM, kind="idea", body="Measure the DIMM side as well as the GPU side."),
        "seed",
        ("USER",),
        id="idea-goes-to-seeds",
    ),
    pytest.param(
        cand(
            Q_DIMM,
            Q_BENCH,
            kind="idea",
            body="Rerun the bench with 200 iterations on the DIMM side.",
        ),
        "seed",
        ("ACT", "USER"),
        id="idea-with-a-command-argument",
    ),
    pytest.param(
        cand(Q_NIGHTLY, body="The nightly copy moved 1000 files (1,000 as printed)."),
        "kept",
        ("TOOL",),
        id="thousands-separator-equivalence",
    ),
    pytest.param(
        cand(
            Q_DISKS,
            body="1. Check which disk.\n2. Write to the slow one.\n3. Verify the copy.\n10. Done.",
        ),
        "kept",
        ("TOOL",),
        id="list-markers-are-not-numbers",
    ),
    pytest.param(
        cand(
            Q_CP932,
            body="Crossing the cp932 boundary silently produces zero rows.",
            tags=["landmine"],
        ),
        "kept",
        ("USER",),
        id="identifier-digits-and-landmine",
    ),
    pytest.param(
        cand(Q_CP932_TOOL, body="A cp932 decode error imports 0 rows.", tags=["landmine"]),
        "kept",
        ("TOOL",),
        id="landmine-from-tool-output",
    ),
    pytest.param(
        cand(
            Q_NIGHTLY,
            "[TOOL] 1,000 files copied on 2026-11-02",
            body="On 2026-11-02 the copy moved 10-20 GB.",
        ),
        "kept",
        ("TOOL",),
        id="range-and-date-as-written",
    ),
    pytest.param(
        cand(Q_INTAKE, body="Intake at -5 C; error rate 1e-3, load 2.5E6 ops; p50 latency 12 ms."),
        "kept",
        ("TOOL",),
        id="sign-sci-notation-and-spaced-unit",
    ),
    pytest.param(
        cand(Q_INTAKE, body="Error rate is 0.001; load 2,500,000 ops."),
        "kept",
        ("TOOL",),
        id="sci-notation-written-as-the-same-value",
    ),
    pytest.param(
        cand(
            Q_DF_TOOL,
            body="/data has 3.2T used.\n**How to apply:** if the user asks about space, "
            "run df first; before you decide where to write, check the disk.",
        ),
        "kept",
        ("TOOL",),
        id="conditional-how-to-apply-is-not-attribution",
    ),
    pytest.param(
        cand(
            '[TOOL] "throughput 43.7 tok/s"',
            "[USER] …the fast one stays scratch only",
            body="43.7 tok/s; the fast disk is scratch.",
        ),
        "kept",
        ("TOOL", "USER"),
        id="wrapped-and-ellipsis-marked-quotes",
    ),
    pytest.param(
        cand("[TOOL] 1.1T avail /scratch 900G used", body="/scratch has 900G used."),
        "kept",
        ("TOOL",),
        id="quote-across-a-line-break-inside-one-segment",
    ),
    pytest.param(
        cand("archives go to the slow disk from now on", body="Archive on the slow disk."),
        "kept",
        ("USER",),
        id="quote-without-class-prefix",
    ),
    pytest.param(
        cand(
            Q_HIRO, body="Hiro said the router password rotates every month; keep it out of notes."
        ),
        "kept",
        ("USER",),
        id="configured-name-with-user-quote",
    ),
    pytest.param(
        cand("[USER] arch\u200bives go to the slow\u00a0disk", body="Archive on the slow disk."),
        "kept",
        ("USER",),
        id="invisible-characters-in-quote",
    ),
    pytest.param(
        cand(Q_BENCH, body="The bench was run with 200 iterations."),
        "kept",
        ("ACT",),
        id="number-from-act",
    ),
    pytest.param(
        cand(
            Q_SELF_JUDGE,
            kind="judgement",
            body="私は一つのインデックスの方が単純だと判断した。我认为一个索引更简单。",
        ),
        "kept",
        ("SELF",),
        id="self-judgement-ja-zh",
    ),
]


@pytest.mark.parametrize(("candidate", "verdict", "classes"), LEGIT)
def test_legitimate_candidates_pass(candidate, verdict, classes):
    result = gate(candidate, human_names=["Hiro"])
    assert result.verdict == verdict, result
    assert result.classes == classes
    assert result.violations == ()
    assert all(q.status == "verified" for q in result.quotes), result.quotes


def test_legitimate_suite_is_large_enough():
    assert len(LEGIT) >= 15


# ---------------------------------------------------------------------------- details


def test_self_only_candidate_is_labelled_judgement():
    result = gate(
        cand(
            Q_SELF_JUDGE,
            kind="judgement",
            body="I judged that a single index keeps recall simpler.",
        )
    )
    assert result.verdict == "kept"
    assert result.label == "judgement"
    assert reason("first-person judgement")(result)
    mixed = gate(cand(Q_SELF_JUDGE, Q_ARCHIVE, body="I judged the slow disk is right."))
    assert mixed.label == ""
    # the agent naming itself as the holder of the view is labelled too, in each language
    for body in (
        "The assistant's own view: a single index keeps recall simpler.",
        "这是助手自己的判断：只用一个索引更简单。",
        "アシスタントの見解：索引はひとつのほうが単純。",
    ):
        named = gate(cand(Q_SELF_JUDGE, kind="judgement", body=body))
        assert named.verdict == "kept" and named.label == "judgement", body
    # a view credited to no one is not labelled as the agent's
    bare = gate(cand(Q_SELF_JUDGE, kind="judgement", body="A single index keeps recall simpler."))
    assert bare.verdict == "dropped"


def test_quote_found_in_several_classes_prefers_user():
    segs = [
        Segment("SELF", "one index, always, as agreed", "j", 0, 1, "seq"),
        Segment("TOOL", "log: one index, always", "j", 1, 2, "seq"),
        Segment("USER", "fine: one index, always.", "j", 2, 3, "seq"),
    ]
    (result,) = run_gate([cand("[SELF] one index, always", body="One index.")], segs)
    assert result.quotes[0].cls == "USER"
    assert result.quotes[0].segment is segs[2]
    (tool_first,) = run_gate([cand("[SELF] one index, always", body="x")], [segs[1], segs[0]])
    assert tool_first.quotes[0].cls == "TOOL"
    # a tool that prints what the agent wrote before it vouches no more than the agent
    (echoed,) = run_gate([cand("[TOOL] one index, always", body="x")], segs[:2])
    assert echoed.quotes[0].cls == "SELF"


def test_numbers_come_from_the_whole_segment_of_a_surviving_quote():
    # 900G is not inside the quote but is in the same TOOL segment: the quote points at it.
    result = gate(cand("[TOOL] /data 3.2T used", body="/scratch has 900G used."))
    assert result.verdict == "kept"
    # 340ms is in another TOOL segment that no quote points at.
    other = gate(cand("[TOOL] /data 3.2T used", body="p99 is 340 ms."))
    assert violation("340ms")(other)


def test_min_quote_chars_is_configurable():
    loose = gate(cand("[USER] 43.7", body="The figure is 43.7."), min_quote_chars=4)
    assert loose.quotes[0].status == "verified"
    strict = gate(cand(Q_ARCHIVE, body="Slow disk."), min_quote_chars=200)
    assert strict.quotes[0].status == "too_short"
    assert strict.verdict == "dropped"


def test_echo_receives_the_normalised_quote():
    seen: list[str] = []

    def is_echo(q: str) -> bool:
        seen.append(q)
        return False

    gate(cand("[USER] archives go  to the\nslow disk", body="x"), is_echo=is_echo)
    assert "archives go to the slow disk" in seen
    assert all(q == normalize(q) for q in seen)


def test_candidate_is_copied_not_mutated():
    original = cand(Q_DF_TOOL, body="/data has 3.2T used.", tags=["recurred", "disk"])
    before = copy.deepcopy(original)
    result = gate(original)
    assert original == before
    assert result.candidate["tags"] == ["disk"]
    assert result.candidate["body"] == original["body"]


def test_one_result_per_candidate_in_order():
    results = run_gate(
        [cand(Q_ARCHIVE, title="a", body="Slow disk."), "not a dict", cand(title="c")], BATCH
    )
    assert [r.title for r in results] == ["a", "", "c"]
    assert [r.verdict for r in results] == ["kept", "dropped", "dropped"]


def test_to_json_has_the_cli_contract_shape():
    result = gate(
        cand("[USER] throughput 43.7 tok/s", "[USER] made up words here", body="43.7 tok/s.")
    )
    data = result.to_json()
    for key in ("title", "verdict", "reasons", "classes", "quotes", "violations"):
        assert key in data
    assert data["verdict"] == "kept"
    assert data["classes"] == ["TOOL"]
    first, second = data["quotes"]
    assert {"text", "claimed", "class", "status"} <= set(first)
    assert first == {
        **first,
        "text": "throughput 43.7 tok/s",
        "claimed": "USER",
        "class": "TOOL",
        "status": "verified",
    }
    assert second["status"] == "not_found" and second["class"] is None
    import json

    json.dumps(data)  # serialisable as is


def test_dropped_reason_counts_quote_statuses():
    result = gate(cand("[USER] nothing like this was said", "[USER] NAS", body="x"))
    assert result.verdict == "dropped"
    assert reason("1 not found")(result) and reason("1 too short")(result)


# ---------------------------------------------------------------------------- floor


def _ev(cls: str, text: str, quote: str | None = None) -> Evidence:
    return Evidence.of([(cls, text)], [(cls, quote or text, text)])


def test_floor_checks_links_only_when_slugs_are_known():
    ev = _ev("USER", "see the disk layout memory")
    fields = {"body": "Related: [[disk-layout]] and [[ghost|a label]]"}
    assert check_surface(fields, ev, existing_slugs=None) == []
    (out,) = check_surface(fields, ev, existing_slugs={"disk-layout"})
    assert (out.kind, out.field, out.text, out.rule) == ("link", "body", "ghost", "no_memory")
    assert out.message() == "link [[ghost]] names no memory in this store (body)"


def test_floor_reports_each_problem_once_with_its_field():
    ev = _ev("TOOL", "throughput 43.7 tok/s")
    out = check_surface(
        {"title": "3x faster", "body": "3x faster; the user asked for it", "keep": "43.7 tok/s"}, ev
    )
    assert [(v.kind, v.field, v.text, v.rule) for v in out] == [
        ("number", "title", "3x", "unvouched"),
        ("attribution", "body", "the user asked", "no_user_quote"),
    ]
    assert [v.to_json()["message"] for v in out] == [
        "number 3x is not in the evidence (title)",
        'attribution "the user asked" needs a surviving USER quote (body)',
    ]


def test_floor_allows_attribution_with_a_user_quote_that_carries_it():
    ev = _ev("USER", "put it on the NAS")
    assert check_surface({"body": "The user decided: NAS."}, ev) == []
    (v,) = check_surface({"body": "The user decided to wipe the cache."}, ev)
    assert (v.kind, v.rule) == ("attribution", "not_carried")


def test_unvouched_numbers_for_trigger_lines():
    out = unvouched("2.6T model, 43.7 tok/s, 3x", ["running the 2.6T model at 43.7 tok/s"])
    assert [q.canon for q in out] == ["3x"]


# ---------------------------------------------------------------------------- tokenisers


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("/data 3.2T used\n/scratch 900G", ["3.2TB", "900GB"]),
        ("43.7 tok/s and 12.4tok/s", ["43.7tok/s", "12.4tok/s"]),
        ("1GB, 1 GB, 1GiB", ["1GB"]),
        ("12ms vs 12 ms", ["12ms"]),
        ("3.5x, 3.5 times, 3倍", ["3.5x", "3x"]),
        ("-5 vs 5 vs +5 vs −5 vs –5", ["-5", "5", "+5"]),
        ("3-5, 10–20, 10 – 20, 10~20", ["3-5", "10-20"]),
        ("2026-11-02 at 12:30", ["2026-11-02", "12:30"]),
        ("1e-3 and 2.5E6", ["1e-3", "2.5E6"]),
        ("1,000 and 1,234,567.5 but 1,2,3", ["1000", "1234567.5", "1", "2", "3"]),
        ("1. first\n2) second\n(3) third\n4、四\n  5. nested", []),
        ("cp932 x86_64 SHA-256 utf-8 [[slug-2]] python3", []),
        ("v2.0.60 and 0.18.1", ["v2.0.60", "0.18.1"]),
        ("Python 3.11 on 127.0.0.1:8085", ["3.11", "127.0.0.1", "8085"]),
        ("４３.７ and 4\u200b3 and ٤٣", ["43.7", "43"]),
        ("50% and 50 percent and 2nd", ["50%", "2"]),
        ("0x1F and 1920x1080", ["0x1f", "1920x1080"]),
        ("第3回 and 3万", ["3回", "30000"]),
        ("three times, no digits", ["3x"]),
        ("no figures here at all", []),
    ],
    ids=lambda v: v if isinstance(v, str) and len(v) < 30 else None,
)
def test_numbers_in(text, expected):
    assert numbers_in(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("we are NOT going to add a second index", ["not"]),
        ("never run it, don't ask, no error", ["never", "don't", "no"]),
        ("バックアップを実行しないこと", ["ない"]),
        ("実行しません", ["ません"]),
        ("不要加第二个索引，没有理由", ["不要", "没有"]),
        ("别碰它，勿动", ["别", "勿"]),
        ("one index, always", []),
    ],
)
def test_negations_in(text, expected):
    assert negations_in(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "I judged that one index is simpler.",
        "I decided to note the disk split.",
        "If the user asks about disks, answer with the NAS.",
        "the user-facing API returns 404",
        "per user quota applies",
        "The client requested /prefill",
        "the user would probably prefer the NAS",
        "仕様はまだ決定していない",
        "ユーザーが言ったら確認する",
        "私はNASが良いと判断した",
        "其他说明见下文",
        "如果用户要求，就放到NAS",
        "用户数据要求加密",
        "我认为一个索引更简单",
    ],
)
def test_attribution_leaves_legitimate_phrasing_alone(text):
    assert attribution_claims(text, ["Hiro"]) == []


@pytest.mark.parametrize(
    "text",
    [
        "the user prefers the NAS",
        "at the user's request the archive moved",
        "according to the user, NAS",
        "She insists on one index",
        "The boss wants it done",
        "Hiro approved the plan",
        "ご主人様が承認しました",
        "ユーザーの希望でNASにした",
        "老王说过要放到NAS",
        "据他说要放到NAS",
        "用户的决定是NAS",
    ],
)
def test_attribution_catches_claims(text):
    assert attribution_claims(text, ["Hiro", "老王"]) != []


# ---------------------------------------------------------------------------- evidence


def test_normalize_folds_width_quotes_space_and_invisibles_but_not_case():
    assert normalize("  \u201cＡＢＣ\u201d\u00a0 ‘x’\u200b\n「y」 ") == '"ABC" \'x\' "y"'
    assert normalize("NOT") != normalize("not")


def test_parse_claimed():
    assert parse_claimed("[USER] hello there") == ("USER", "hello there")
    assert parse_claimed("[tool]  df output") == ("TOOL", "df output")
    assert parse_claimed("［ＳＥＬＦ］ mine") == ("SELF", "mine")
    assert parse_claimed("[BOSS] orders") == (None, "[BOSS] orders")
    assert parse_claimed("no prefix") == (None, "no prefix")


def test_quote_weight_counts_cjk_double():
    assert quote_weight("归档放到") == 8
    assert quote_weight("a b c") == 3


def test_segment_line_is_one_line_with_its_class():
    seg = Segment("TOOL", "/data 3.2T\n/scratch 900G", "j.jsonl", 0, 10, "byte")
    assert seg.line() == "[TOOL] /data 3.2T /scratch 900G"
