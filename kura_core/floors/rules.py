"""The floors as one ordered table of named rules.

Every reason the gate or a later surface refuses a text is a row here: its floor (a
:class:`~kura_core.vocabulary.FloorKind`, or ``quote`` for why a quote does not stand),
its name (a :class:`~kura_core.vocabulary.FloorRule` or
:class:`~kura_core.vocabulary.QuoteRule`), where it runs, and what it refuses. The rows
are in the order a candidate meets them: its quotes first (each found verbatim in one
segment, re-filed to the voice that really speaks it, and kept inside the clause that
governs it), then the candidate's shape, its text (figures, credits, calls, plans,
comparisons, links), its tags; the rows after those run on the other surfaces that store
a model's words (a trigger line, a rewrite, the curation sentences).

Each row has a fixture file of cases, ``tests/fixtures/floors/<kind>.<name>.jsonl``
(evidence, candidate, the verdict and the rule expected), read by one parametrised test
(tests/core/test_floor_rules.py): a rule is added with its row, its code and its cases.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..vocabulary import FloorKind as K, FloorRule as R, QuoteRule as Q

__all__ = ["QUOTE", "RULES", "Rule", "rule"]

#: The ``kind`` of the rows that say why a quote does not stand.
QUOTE = "quote"

#: Where a rule runs: the gate on a candidate, or a later surface.
GATE, REWRITE, TRIGGER, CURATION = "gate", "rewrite", "trigger", "curation"


@dataclass(frozen=True)
class Rule:
    kind: str
    name: str
    where: tuple[str, ...]
    what: str

    @property
    def key(self) -> str:
        return f"{self.kind}.{self.name}"


RULES: tuple[Rule, ...] = (
    # ---- the quotes: found, re-filed, inside their clause
    Rule(QUOTE, Q.WORD, (GATE,), "a quote that starts or ends inside a word"),
    Rule(QUOTE, Q.NEGATION, (GATE,), "a quote that leaves out the negation governing it"),
    Rule(QUOTE, Q.CONDITION, (GATE,), "a quote that leaves out its condition (if, もし, 如果)"),
    Rule(QUOTE, Q.EXCEPTION, (GATE,), "a quote that leaves out its exception (except, 除了)"),
    Rule(QUOTE, Q.EXAMPLE, (GATE,), "a quote that leaves out that it is an example (比如)"),
    Rule(QUOTE, Q.REPORT, (GATE,), "hearsay used as a bare fact (X says, によると, 听说)"),
    Rule(QUOTE, Q.QUESTION, (GATE,), "a question used as a statement (?, か, 吗)"),
    Rule(QUOTE, Q.HEDGE, (GATE,), "a hedged statement used as a firm one (maybe, かも, 也许)"),
    Rule(QUOTE, Q.TENTATIVE, (GATE,), "a statement marked tentative used as settled （仮）"),
    Rule(QUOTE, Q.RETRACTED, (GATE,), "a statement taken back later in the turn (算了)"),
    Rule(QUOTE, Q.SCOPE, (GATE,), "left-out words of the clause not known to be harmless"),
    # ---- the candidate's shape
    Rule(K.SHAPE, R.NOT_A_STRING, (GATE, CURATION), "a stored field that is not text"),
    Rule(K.SHAPE, R.NOT_A_LIST, (GATE, CURATION), "tags that are not a list"),
    Rule(K.SHAPE, R.RAW_SECRET, (GATE, CURATION), "a raw secret in a stored field"),
    Rule(K.SHAPE, R.EMPTY, (REWRITE, TRIGGER), "an empty rewrite"),
    Rule(K.SHAPE, R.ONE_LINE, (CURATION,), "a curation sentence on more than one line"),
    Rule(K.SHAPE, R.TOO_LONG, (CURATION,), "a curation sentence over its length"),
    Rule(K.DISGUISE, R.INVISIBLE, (GATE, REWRITE, CURATION), "bidi or invisible characters"),
    # ---- the candidate's text
    Rule(K.NUMBER, R.UNVOUCHED, (GATE, CURATION), "a figure no evidence vouches for"),
    Rule(K.NUMBER, R.SELF_ONLY, (GATE, CURATION), "a figure only the agent's words give"),
    Rule(K.NUMBER, R.OTHER_ROW, (GATE, CURATION), "a figure from a table row not named"),
    Rule(K.NUMBER, R.CORRECTED, (GATE,), "a figure the person corrected later, as first said"),
    Rule(K.ATTRIBUTION, R.NO_USER_QUOTE, (GATE, CURATION), "a credit to the person, no quote"),
    Rule(K.ATTRIBUTION, R.NOT_CARRIED, (GATE, CURATION), "a credit their words do not carry"),
    Rule(
        K.ATTRIBUTION,
        R.NOT_ONE_SEGMENT,
        (GATE, CURATION),
        "a credit whose words and figures no one segment of theirs holds",
    ),
    Rule(K.ATTRIBUTION, R.THIRD_PARTY, (GATE, CURATION), "a credit to someone evidence omits"),
    Rule(K.ACT, R.NOT_DONE, (GATE,), "a failed or refused call written as done"),
    Rule(K.SCOPE, R.PLAN_AS_DONE, (GATE,), "a plan written as a deed"),
    Rule(K.SCOPE, R.AS_SETTLED, (GATE,), "a figure quoted with its hedge, stated as settled"),
    Rule(K.CONTENT, R.UNVOUCHED, (GATE,), "a comparison no quote makes and no figure shows"),
    Rule(K.NAME, R.UNVOUCHED, (GATE, CURATION), "a name no evidence gives"),
    Rule(K.MARKUP, R.INDEX_LINK, (GATE, CURATION), "a link in the index line"),
    Rule(K.LINK, R.NO_MEMORY, (CURATION,), "a [[slug]] naming no memory"),
    # ---- tags
    Rule(K.TAG, R.NOT_A_WORD, (GATE, CURATION), "a tag that is not one word"),
    Rule(K.TAG, R.DISTILLER_ONLY, (CURATION,), "a tag only the distiller writes"),
    Rule(K.TAG, R.NEEDS_EVIDENCE, (CURATION,), "a claim tag without its kind of evidence"),
    # ---- rewrites of stored text (tidy's index lines, weave's trigger lines)
    Rule(K.NUMBER, R.NOT_IN_SOURCE, (REWRITE, TRIGGER), "a figure the source does not have"),
    Rule(K.NUMBER, R.PARTIAL, (TRIGGER,), "a figure that is part of a larger one"),
    Rule(K.ATTRIBUTION, R.NOT_IN_SOURCE, (REWRITE, TRIGGER), "a credit the source lacks"),
    Rule(
        K.NEGATION,
        R.DROPPED,
        (GATE, REWRITE, TRIGGER),
        "a negation dropped: the source's, or the one a quote was cut from",
    ),
    Rule(K.NEGATION, R.ADDED, (REWRITE, TRIGGER), "a negation the source does not have"),
    Rule(K.MARK, R.DROPPED, (REWRITE, TRIGGER), "the landmine mark dropped"),
    Rule(K.MARK, R.ADDED, (REWRITE, TRIGGER), "a landmine mark added"),
    Rule(
        K.ORDER,
        R.SWAPPED,
        (TRIGGER, GATE),
        "figures re-bound to other things, a change told backwards",
    ),
    Rule(K.MARKUP, R.ADDED_LINK, (TRIGGER,), "a link the source does not have"),
    Rule(K.MARKUP, R.ADDED_MARKUP, (TRIGGER,), "map markup the source does not have"),
    Rule(K.BUDGET, R.OVER, (TRIGGER,), "over the token budget"),
)

_BY_KEY = {r.key: r for r in RULES}


def rule(kind: str, name: str) -> Rule:
    """The row of rule *name* of floor *kind*; a rule not in the table is a defect."""
    try:
        return _BY_KEY[f"{kind}.{name}"]
    except KeyError:
        raise KeyError(
            f"{kind}.{name} is not in the floors' table (kura_core.floors.rules)"
        ) from None
