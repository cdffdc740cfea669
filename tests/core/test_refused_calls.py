"""A call the person refused is tried, not done, whatever the host writes in its place: a
bare refusal (no reason typed) still answers the call, and a host's own words for a
refusal ("exec command rejected by user") say who refused."""

from __future__ import annotations

from kura_core.distill.evidence import Segment
from kura_core.distill.gate import call_outcome, run_gate
from kura_core.distill.journals.provenance import rejection

BARE = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if "
    "it was a file edit, the new_string was NOT written to the file). STOP what you are "
    "doing and wait for the user to tell you how to proceed."
)


def _segs(*pairs: tuple[str, str, str]) -> list[Segment]:
    return [Segment(c, t, "j.jsonl", i, i + 1, "seq", kind=k) for i, (c, t, k) in enumerate(pairs)]


def test_a_bare_refusal_answers_its_call():
    pieces = rejection(BARE)
    assert pieces and pieces[0].cls == "TOOL" and "refus" in pieces[0].kind
    assert pieces[0].text == "The user doesn't want to proceed with this tool use."


def test_a_refused_call_written_as_done_is_dropped_and_as_tried_kept():
    segs = _segs(
        ("USER", "把通知发到家庭群里", "user text"),
        ("ACT", "Bash: python3 notify.py --group 家庭群 --msg '小程序先不做'", "tool_use Bash"),
        ("TOOL", "The user doesn't want to proceed with this tool use.", "tool_result (refused)"),
    )
    assert call_outcome(segs, 1) == "refused"
    done = {
        "kind": "fact",
        "title": "群通知",
        "description": "群通知",
        "body": "已经在家庭群里通知：小程序先不做。",
        "quotes": ["[ACT] Bash: python3 notify.py --group 家庭群 --msg '小程序先不做'"],
    }
    assert run_gate([done], segs)[0].verdict == "dropped"
    tried = {**done, "body": "助手尝试在家庭群里发通知，被用户拒绝了，没有发出去。"}
    assert run_gate([tried], segs)[0].verdict == "kept"


def test_the_host_saying_the_user_rejected_a_call_credits_the_refusal():
    segs = _segs(
        ("ACT", "kubectl -n shop rollout restart deploy/checkout-api", "function_call shell"),
        ("TOOL", "exec command rejected by user", "function_call_output"),
        ("USER", "No, don't restart checkout-api now.", "user text"),
    )
    assert call_outcome(segs, 0) == "refused"
    cand = {
        "kind": "fact",
        "title": "checkout-api restart refused",
        "description": "checkout-api restart refused",
        "body": "The agent tried to restart deploy/checkout-api and the user rejected it.",
        "quotes": [
            "[ACT] kubectl -n shop rollout restart deploy/checkout-api",
            "[TOOL] exec command rejected by user",
        ],
    }
    assert run_gate([cand], segs)[0].verdict == "kept"
