"""kura's domain words, each defined once.

Every module, face and the app spells these through the names here, so grep finds each use
and a misspelling fails at import instead of comparing unequal at run time. Each is a
``StrEnum``: a member *is* its string (``WritePolicy.FROZEN == "frozen"``), so what is
stored — YAML frontmatter, JSON, the workshop's tables, kura.toml — keeps the same text.
The tuples (``MEMORY_TYPES``...) hold the plain texts, for keys and choices; the store's
YAML writer writes a member as its text (the safe dumper knows no subclass of ``str``).
"""

from __future__ import annotations

from enum import StrEnum


class ProvenanceClass(StrEnum):
    """Who wrote a text a quote comes from, as the journal readers class it."""

    USER = "USER"  # the person, in their own words
    TOOL = "TOOL"  # what a tool returned
    ACT = "ACT"  # what the agent did (a command it ran, a file it wrote)
    SELF = "SELF"  # the agent's own words


#: every provenance class, strongest evidence first
PROVENANCE_CLASSES: tuple[str, ...] = tuple(m.value for m in ProvenanceClass)


class WritePolicy(StrEnum):
    """Who may write a store (``write_policy`` in kura.toml)."""

    DISTILLER_ONLY = "distiller-only"
    DIRECT_ALLOWED = "direct-allowed"
    FROZEN = "frozen"


WRITE_POLICIES: tuple[str, ...] = tuple(m.value for m in WritePolicy)


class MemoryType(StrEnum):
    """A memory's ``type`` in its frontmatter."""

    USER = "user"
    FEEDBACK = "feedback"
    PROJECT = "project"
    REFERENCE = "reference"


MEMORY_TYPES: tuple[str, ...] = tuple(m.value for m in MemoryType)


class GateVerdict(StrEnum):
    """What the evidence gate decides about one candidate."""

    KEPT = "kept"
    DROPPED = "dropped"
    SEED = "seed"


class ClaimKind(StrEnum):
    """What a candidate claims to be: the gate keeps facts and judgements, seeds ideas."""

    FACT = "fact"
    JUDGEMENT = "judgement"  # only the agent's own words vouch for it: labelled so
    IDEA = "idea"


class DraftDecision(StrEnum):
    """What a draft does to the store: a new memory, or a rewrite of one it extends
    (``covered``: the store already says it, no draft is made)."""

    NEW = "new"
    EXTENDS = "extends"
    COVERED = "covered"


class GateLogKind(StrEnum):
    """The ``kind`` of a line in a store's gate log (the workshop's ``gate_log`` table), in
    the order the app's filter offers them."""

    DROPPED = "dropped"
    TOSSED = "tossed"
    REFUSED = "refused"
    POURED = "poured"
    FIXED = "fixed"
    EDITED = "edited"
    RETIRED = "retired"
    TIDIED = "tidied"
    COVERED = "covered"
    RECURRED = "recurred"
    GRADUATED = "graduated"
    KEPT = "kept"
    PROFILE_REFUSED = "profile-refused"
    SEED_DISMISSED = "seed-dismissed"
    SEED_UNCONFIRMED = "seed-unconfirmed"
    SEED_WITHERED = "seed-withered"  # waited too long, or checked too often, unconfirmed
    SEED_REVIVED = "seed-revived"  # a withered seed put back among the waiting
    SHELVED = "shelved"  # a stretch of journal set aside over the time budget
    TIDY_REJECTED = "tidy-rejected"
    TRIGGER_REFUSED = "trigger-refused"
    SCRUBBED = "scrubbed"


class SealState(StrEnum):
    """Where a stored memory's words come from, as its evidence seal says."""

    GATED = "gated"  # matches the seal its pour recorded, no hand edit since
    HAND_EDITED = "hand-edited"  # a person changed it after the gate
    UNSEALED = "unsealed"  # changed since its pour, by no recorded hand
    DIRECT = "direct"  # written through a direct door (no gate, no manifest)


class SeedState(StrEnum):
    """Where an idea kept as a seed stands."""

    WAITING = "waiting"
    GRADUATED = "graduated"
    DISMISSED = "dismissed"
    WITHERED = "withered"


class StretchState(StrEnum):
    """A stretch of journal the distiller has not finished with."""

    HELD = "held"  # waiting for its batch to be distilled again
    SHELVED = "shelved"  # set aside after repeated failures


class TenderState(StrEnum):
    """The tender's heartbeat, as the doctor reads it."""

    ALIVE = "alive"
    STALE = "stale"
    DEAD = "dead"
    STOPPED = "stopped"
    NEVER_STARTED = "never started"


class FloorKind(StrEnum):
    """Which floor refused a text (a :class:`kura_core.floors.Violation`'s ``kind``)."""

    SHAPE = "shape"  # a field of the wrong type, an empty or overlong one, a raw secret
    DISGUISE = "disguise"  # a character that reads differently to a person and to the gate
    NUMBER = "number"  # a figure no evidence vouches for
    ATTRIBUTION = "attribution"  # a credit to a person their own words do not carry
    LINK = "link"  # a [[slug]] naming no memory
    MARKUP = "markup"  # a link or map markup the text may not carry
    TAG = "tag"  # a tag that is not a word, or lacks its kind of evidence
    NEGATION = "negation"  # a rewrite that drops or adds a negation
    MARK = "mark"  # a rewrite that drops or adds the landmine mark
    ORDER = "order"  # figures re-bound to other things
    BUDGET = "budget"  # over a token budget
    ACT = "act"  # a call that failed or was refused, written as done
    SCOPE = "scope"  # what a quote says of itself (a plan) written as more (a deed)
    CONTENT = "content"  # a comparison or superlative no quote or figure vouches
    NAME = "name"  # a name of a person, product, place or organisation no evidence gives


class FloorRule(StrEnum):
    """Which rule of its floor refused a text (a violation's ``rule``); the floors' table
    (:data:`kura_core.floors.rules.RULES`) names each rule by one of these."""

    NOT_A_STRING = "not_a_string"
    NOT_A_LIST = "not_a_list"
    EMPTY = "empty"
    ONE_LINE = "one_line"
    TOO_LONG = "too_long"
    RAW_SECRET = "raw_secret"
    INVISIBLE = "invisible"
    UNVOUCHED = "unvouched"
    SELF_ONLY = "self_only"
    OTHER_ROW = "other_row"
    NOT_IN_SOURCE = "not_in_source"
    PARTIAL = "partial"
    SWAPPED = "swapped"
    NO_USER_QUOTE = "no_user_quote"
    NOT_CARRIED = "not_carried"
    NOT_ONE_SEGMENT = "not_one_segment"
    THIRD_PARTY = "third_party"
    NO_MEMORY = "no_memory"
    INDEX_LINK = "index_link"
    ADDED_LINK = "link"
    ADDED_MARKUP = "markup"
    NOT_A_WORD = "not_a_word"
    DISTILLER_ONLY = "distiller_only"
    NEEDS_EVIDENCE = "needs_evidence"
    DROPPED = "dropped"
    ADDED = "added"
    OVER = "over"
    NOT_DONE = "not_done"
    PLAN_AS_DONE = "plan_as_done"
    AS_SETTLED = "as_settled"
    CORRECTED = "corrected"
    LEGACY = "legacy"


class QuoteRule(StrEnum):
    """Why a quote found in the evidence does not stand for what its segment says (a
    ``cut`` quote's ``rule``): it starts or ends inside a word, or leaves out what governs
    it."""

    WORD = "word"
    NEGATION = "negation"
    CONDITION = "condition"
    REPORT = "report"
    QUESTION = "question"
    HEDGE = "hedge"
    EXCEPTION = "exception"
    EXAMPLE = "example"
    TENTATIVE = "tentative"
    RETRACTED = "retracted"
    SCOPE = "scope"  # left-out words not known to be harmless


class CurationField(StrEnum):
    """The three curation sentences a memory carries (the triple)."""

    BELONGS_BECAUSE = "belongs_because"  # why it belongs in this store
    KEEP = "keep"  # what meaning must outlive any shortening
    MAY_FADE = "may_fade"  # what detail may fade


CURATION_FIELDS: tuple[str, ...] = tuple(m.value for m in CurationField)

#: what the gate records for a tag that passed its check (any other text is the reason
#: the tag was taken off)
TAG_OK = "ok"


def tag_passed(result: object) -> bool:
    """Whether a gate's tag check (``tag_checks[tag]``) let the tag through."""
    return result == TAG_OK


__all__ = [
    "CURATION_FIELDS",
    "MEMORY_TYPES",
    "PROVENANCE_CLASSES",
    "TAG_OK",
    "WRITE_POLICIES",
    "ClaimKind",
    "CurationField",
    "DraftDecision",
    "FloorKind",
    "FloorRule",
    "GateLogKind",
    "GateVerdict",
    "MemoryType",
    "ProvenanceClass",
    "QuoteRule",
    "SealState",
    "SeedState",
    "StretchState",
    "TenderState",
    "WritePolicy",
    "tag_passed",
]


#: a draft's ``source`` when a sync offered it: the other machine's text of a memory changed
#: on both (kura_core.sync)
SYNC_SOURCE = "sync"
