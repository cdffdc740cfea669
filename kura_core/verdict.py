"""What `kura bench models` found about a thinker, kept beside each store it serves.

The bench asks the configured thinker the built-in questions and the word tier the same
questions; the two hit rates are written to ``<store>/_still/thinker-verdict.json`` for the
thinker's url and model. Recall reads it (``[recall] thinker``):

* ``auto`` — a thinker the bench found below the word tier is not asked; recall answers by
  words and says why in every answer (``weak``);
* ``on`` — the thinker is always asked; a below-words verdict labels each of its answers;
* ``off`` — the thinker is never asked.

A verdict about another model (the config changed since) is ignored. The file is read at
most once per :data:`RECHECK_S` per store, so recall pays a dictionary look-up, not a read.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .fsutil import atomic_write_text

FILE = "thinker-verdict.json"
RECHECK_S = 2.0


@dataclass(frozen=True)
class Verdict:
    """One thinker measured against the word tier on the same questions."""

    url: str
    model: str
    k: int
    questions: int
    thinker_hits: int
    words_hits: int
    valid_json: float  # share of the thinker's replies that were valid JSON of the right shape
    at: float

    @property
    def thinker_rate(self) -> float:
        return self.thinker_hits / self.questions if self.questions else 0.0

    @property
    def words_rate(self) -> float:
        return self.words_hits / self.questions if self.questions else 0.0

    @property
    def below_words(self) -> bool:
        return self.questions > 0 and self.thinker_hits < self.words_hits

    def summary(self) -> str:
        """E.g. 'found 14/36 (0.39) at hit@3 in kura bench models; words found 35/36 (0.97)'."""
        return (
            f"found {self.thinker_hits}/{self.questions} ({self.thinker_rate:.2f}) at hit@{self.k}"
            f" in kura bench models; words found {self.words_hits}/{self.questions}"
            f" ({self.words_rate:.2f})"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "url": self.url,
            "model": self.model,
            "k": self.k,
            "questions": self.questions,
            "thinker_hits": self.thinker_hits,
            "words_hits": self.words_hits,
            "valid_json": round(self.valid_json, 4),
            "at": self.at,
        }

    @classmethod
    def from_json(cls, d: Any) -> Verdict | None:
        """The verdict in *d*, or None when it is not one (a hand edit, an older kura)."""
        try:
            v = cls(
                url=str(d["url"]),
                model=str(d["model"]),
                k=int(d["k"]),
                questions=int(d["questions"]),
                thinker_hits=int(d["thinker_hits"]),
                words_hits=int(d["words_hits"]),
                valid_json=float(d["valid_json"]),
                at=float(d["at"]),
            )
        except (KeyError, TypeError, ValueError):
            return None
        ok = 0 <= v.thinker_hits <= v.questions and 0 <= v.words_hits <= v.questions
        return v if ok else None


def path_of(still: Path) -> Path:
    return still / FILE


def save(still: Path, verdict: Verdict) -> Path:
    """Write *verdict* into the store's ``_still`` (atomically: a crash leaves the old one)."""
    still.mkdir(parents=True, exist_ok=True)
    target = path_of(still)
    atomic_write_text(target, json.dumps(verdict.to_json(), indent=2) + "\n")
    with _LOCK:
        _SEEN.pop(str(target), None)
    return target


_LOCK = threading.Lock()
#: path -> (monotonic time read, file identity, verdict)
_SEEN: dict[str, tuple[float, tuple | None, Verdict | None]] = {}


def load(still: Path) -> Verdict | None:
    """The store's verdict, re-read when the file changed and at most every RECHECK_S."""
    target = path_of(still)
    key = str(target)
    now = time.monotonic()
    with _LOCK:
        hit = _SEEN.get(key)
    if hit is not None and now - hit[0] < RECHECK_S:
        return hit[2]
    try:
        st = target.stat()
        ident: tuple | None = (st.st_ino, st.st_mtime_ns, st.st_size)
    except OSError:
        ident = None
    if hit is not None and hit[1] == ident:
        found = hit[2]
    elif ident is None:
        found = None
    else:
        try:
            found = Verdict.from_json(json.loads(target.read_text(encoding="utf-8")))
        except (OSError, ValueError):
            found = None  # unreadable: recall goes on as if the bench had not run
    with _LOCK:
        _SEEN[key] = (now, ident, found)
    return found


def for_thinker(still: Path, url: str, model: str) -> Verdict | None:
    """The verdict about this thinker (same url and model), or None."""
    v = load(still)
    if v is None or v.url.rstrip("/") != url.rstrip("/") or v.model != model:
        return None
    return v


def weak_notice(weak: str) -> str:
    """The one line every face shows when an answer's thinker is not to be trusted."""
    return f"⚠ weak thinker: {weak}"
