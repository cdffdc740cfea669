"""The cloth on disk: ``_still/woven.md``, the woven map and the index it was woven from.

    <!-- kura-woven index-sha256=HEX -->
    MEMORY.md with its entry lines woven (pinned and fresh in full, the rest as triggers)

The header carries the sha256 of the ``MEMORY.md`` text the cloth was woven from. The
resident block (:mod:`kura_core.prefill`) wears the cloth only while the index still hashes
to it; the loom (:mod:`kura_core.weave`) writes it compare-and-swap, under the store's write
lock and only if the index is still the one it wove. Both use this module, which imports
neither: the loom depends on the block's framing, the block only on the cloth.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .fsutil import atomic_write_text
from .store import INDEX_FILE

#: The cloth's file inside the workshop.
WOVEN_FILE = "woven.md"

_HEADER = "<!-- kura-woven index-sha256={sha} -->"
_HEADER_RE = re.compile(r"^<!-- kura-woven index-sha256=([0-9a-f]{64})(?: [^>]*)? -->$")


def index_sha(text: str) -> str:
    """The sha256 (hex) a cloth's header names: of the ``MEMORY.md`` text as read."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def cloth_file_text(built_from: str, cloth: str) -> str:
    """The bytes of ``_still/woven.md`` for *cloth* woven from the index hashing to *built_from*."""
    return f"{_HEADER.format(sha=built_from)}\n{cloth}\n"


def read_cloth(still: Path) -> tuple[str | None, str]:
    """(sha256 of the MEMORY.md it was built from, cloth text) of ``_still/woven.md``;
    (None, "") when there is none or it is not a cloth kura wrote."""
    path = Path(still) / WOVEN_FILE
    try:
        if path.is_symlink() or not path.is_file():
            return None, ""
        raw = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None, ""
    head, _, body = raw.partition("\n")
    m = _HEADER_RE.match(head.strip())
    if not m:
        return None, ""
    return m.group(1), body.rstrip("\n")


@dataclass(frozen=True)
class Persisted:
    """How writing a cloth went. ``reason`` says why nothing was written."""

    written: bool
    unchanged: bool  # the file already held exactly this cloth
    reason: str
    path: str


def write_cloth(store: Any, built_from: str, cloth: str) -> Persisted:
    """Write *cloth* to the store's ``_still/woven.md`` compare-and-swap: under the store's
    write lock, only if ``MEMORY.md`` still hashes to *built_from*. A file that already
    holds this cloth is left alone (``unchanged``)."""
    path = store.still / WOVEN_FILE
    content = cloth_file_text(built_from, cloth)
    with store.locked():
        current = index_sha(store.index_text())
        if current != built_from:
            return Persisted(
                False,
                False,
                f"{INDEX_FILE} changed while weaving (it was {built_from[:12]}, now "
                f"{current[:12]}); the map was not written — run kura weave again",
                str(path),
            )
        try:
            unchanged = path.read_text(encoding="utf-8") == content
        except (OSError, UnicodeDecodeError):
            unchanged = False
        if not unchanged:
            store.still.mkdir(parents=True, exist_ok=True)
            atomic_write_text(path, content)
    return Persisted(True, unchanged, "", str(path))
