"""History read back, undo, and sync: one store on several machines, through any remote
git speaks. (Recording each write is kura_core.history's, beside the store; what is here
reads the store and the drafts, so it sits above them.)

``kura sync`` records what is on disk, fetches the remote's ``main``, merges it, and pushes.
The merge is kura's own, path by path, never git's text merge:

- a memory changed on one side only takes that side;
- MEMORY.md merges line by line, keyed by slug (every line once; headings, sectors and
  other lines keep their place), see :func:`merge_index`;
- the same memory changed differently on both sides keeps this machine's text in the store
  and offers the other as a draft (``source: sync``) for review: no conflict marker in a
  memory, and no edit lost; a memory removed on one side and changed on the other stays,
  changed;
- any other file changed on both sides keeps this machine's copy (the other is in history).

The merge commit is built in a side index and moved into place like an undo (see
:func:`kura_core.history.apply_commit`), so a crash mid-way is finished by the next writer.
Nothing of ``_still/`` travels: it is ignored by git.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import ConflictError, KuraError, NotFound
from .history import (
    GIT_MISSING,
    INDEX_FILE,
    Change,
    Git,
    HistoryError,
    Note,
    _blob_id,
    _change,
    _git_for,
    _hdir,
    _read,
    apply_commit,
    available,
    build_commit,
    changed_paths,
    hash_blob,
    slug_of,
    who_now,
)
from .store import check_slug, parse_index, split_frontmatter
from .vocabulary import SYNC_SOURCE

EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
REMOTE_REF = "refs/kura-sync/main"


# --------------------------------------------------------------------------- MEMORY.md


def _keys(text: str) -> tuple[list[Any], dict[Any, str]]:
    """Each line of an index with its key: the slug for a memory's line, else the line's
    own text and how many times it came before (headings, blank lines, comments)."""
    from .store import _ENTRY_RE, memory_slug

    order: list[Any] = []
    lines: dict[Any, str] = {}
    seen: dict[str, int] = {}
    for line in text.split("\n"):
        m = _ENTRY_RE.match(line) if line.lstrip()[:1] in ("-", "*") else None
        slug = memory_slug(m.group("file")) if m else None
        if slug and slug not in lines:
            key: Any = slug
        else:
            n = seen.get(line, 0)
            seen[line] = n + 1
            key = ("=", line, n)
        order.append(key)
        lines[key] = line
    return order, lines


def merge_index(
    base: str, ours: str, theirs: str, present: Iterable[str] | None = None
) -> tuple[str, list[str]]:
    """Merge three versions of MEMORY.md line by line, by slug. Returns the text and the
    slugs whose line changed differently on both sides (ours is kept for them). With
    *present* (the slugs whose memory file the merged store holds), a memory's line is
    kept exactly when its file is there."""
    clashes: list[str] = []
    if ours == theirs or theirs == base:
        merged = ours
    elif ours == base:
        merged = theirs
    else:
        merged, clashes = _merge_lines(base, ours, theirs)
    if present is None:
        return merged, clashes
    return _fit(merged, set(present), (ours, theirs, base)), clashes


def _merge_lines(base: str, ours: str, theirs: str) -> tuple[str, list[str]]:
    b_order, b = _keys(base)
    o_order, o = _keys(ours)
    t_order, t = _keys(theirs)
    clashes: list[str] = []
    result: dict[Any, str | None] = {}
    for k in dict.fromkeys([*o_order, *t_order, *b_order]):
        bo, oo, to = b.get(k), o.get(k), t.get(k)
        if oo == to or to == bo:
            result[k] = oo
        elif oo == bo:
            result[k] = to
        elif oo is None or to is None:
            result[k] = oo if oo is not None else to  # a change beats a removal
        else:
            result[k] = oo
            if isinstance(k, str):
                clashes.append(k)
    lines = [result[k] for k in _interleave(o_order, t_order) if result.get(k) is not None]
    return "\n".join(x for x in lines if x is not None), clashes


def _interleave(o_order: Sequence[Any], t_order: Sequence[Any]) -> list[Any]:
    """Our lines in our order, each line only they have placed after the line it follows on
    their side (linear: each of theirs is hung on its anchor once)."""
    ours = set(o_order)
    after: dict[Any, list[Any]] = {}
    anchor: Any = _START
    for k in t_order:
        if k not in ours:
            after.setdefault(anchor, []).append(k)
        anchor = k
    out: list[Any] = []
    stack = [_START, *reversed(o_order)]
    seen: set[Any] = set()
    while stack:
        k = stack.pop()
        if k in seen:
            continue
        seen.add(k)
        if k is not _START:
            out.append(k)
        stack.extend(reversed(after.get(k, ())))
    return out


_START = object()


def _fit(text: str, present: set[str], sources: Sequence[str]) -> str:
    order, lines = _keys(text)
    have = {k for k in order if isinstance(k, str)}
    kept = [lines[k] for k in order if not isinstance(k, str) or k in present]
    missing = sorted(present - have)
    known = [_keys(src)[1] for src in sources] if missing else []
    for slug in missing:
        for src_lines in known:
            line = src_lines.get(slug)
            if line is not None:
                while kept and kept[-1] == "":
                    kept.pop()
                kept += [line, ""]
                break
    return "\n".join(kept)


# --------------------------------------------------------------------------- sync


@dataclass
class SyncReport:
    store: str
    remote: str
    fetched: bool = False
    merged: str = ""  # "", "up to date", "fast-forward", "merge", "pushed only"
    brought: list[str] = field(default_factory=list)  # slugs that came from the remote
    conflicts: list[str] = field(default_factory=list)  # drafts offered for review
    kept_ours: list[str] = field(default_factory=list)
    pushed: bool = False
    push_error: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "store": self.store,
            "remote": self.remote,
            "fetched": self.fetched,
            "merged": self.merged,
            "brought": self.brought,
            "conflicts": self.conflicts,
            "kept_ours": self.kept_ours,
            "pushed": self.pushed,
            "push_error": self.push_error,
        }


def sync(store: Any, remote: str) -> SyncReport:
    """Record, fetch, merge, push. Raises HistoryError when the remote cannot be read."""
    if not remote:
        raise HistoryError(
            f"store {store.name!r} has no remote; add [stores.{store.name}.sync] "
            'remote = "…" to kura.toml (a path, an ssh or https address)'
        )
    rep = SyncReport(store.name, remote)
    with store.locked(f"sync store {store.name!r}"):
        store.recover()
        git = _git_for(store)
        theirs = _fetch(git, remote)
        rep.fetched = theirs is not None
        ours = git.head()
        if theirs is not None and ours is not None and theirs != ours:
            _bring(store, git, ours, theirs, remote, rep)
        elif theirs is None:
            rep.merged = "pushed only"
        else:
            rep.merged = "up to date"
        proc = git.run("push", "-q", remote, "HEAD:refs/heads/main", check=False)
        rep.pushed = proc.returncode == 0
        if not rep.pushed:
            err = proc.stderr.decode("utf-8", "replace").strip().splitlines()
            rep.push_error = (err[-1] if err else "push refused") + " — run kura sync again"
    return rep


def _fetch(git: Git, remote: str) -> str | None:
    proc = git.run(
        "fetch", "-q", "--no-tags", remote, f"+refs/heads/main:{REMOTE_REF}", check=False
    )
    if proc.returncode != 0:
        err = proc.stderr.decode("utf-8", "replace")
        if "couldn't find remote ref" in err or "could not find remote ref" in err.lower():
            return None  # an empty remote: this machine's history is the first
        last = err.strip().splitlines()
        raise HistoryError(
            f"cannot fetch from {remote}: {last[-1] if last else 'git fetch failed'}"
        )
    return git.out("rev-parse", REMOTE_REF)


def _bring(store: Any, git: Git, ours: str, theirs: str, remote: str, rep: SyncReport) -> None:
    proc = git.run("merge-base", ours, theirs, check=False)
    base = proc.stdout.decode().strip() if proc.returncode == 0 else ""
    if base == theirs:
        rep.merged = "up to date"
        return
    changed = _changed(git, base or EMPTY_TREE, theirs)
    rep.brought = sorted({s for s in map(slug_of, changed) if s})
    if base == ours:
        rep.merged = "fast-forward"
        apply_commit(store, git, theirs, changed)
        return
    rep.merged = "merge"
    targets, conflicts, kept = _merge_paths(git, base or EMPTY_TREE, ours, theirs, changed)
    rep.kept_ours = kept
    drafts = [_offer(store, git, theirs, slug, remote) for slug in conflicts]
    rep.conflicts = [d for d in drafts if d]
    note = Note("sync", who_now(), tuple(rep.brought), f"merge {theirs[:12]} from {remote}")
    commit = build_commit(git, ours, targets, note, [ours, theirs])
    apply_commit(store, git, commit, sorted(targets))


def _changed(git: Git, a: str, b: str) -> list[str]:
    out = git.out("diff-tree", "-r", "--no-renames", "--name-only", a, b)
    return [n for n in out.split("\n") if n]


def _merge_paths(
    git: Git, base: str, ours: str, theirs: str, changed: Sequence[str]
) -> tuple[dict[str, str | None], list[str], list[str]]:
    targets: dict[str, str | None] = {}
    conflicts: list[str] = []
    kept: list[str] = []
    for p in changed:
        if p == INDEX_FILE:
            continue
        tb, ob, bb = (_blob_id(git, r, p) for r in (theirs, ours, base))
        if ob == tb or tb == bb:
            continue
        if ob == bb or ob is None:
            targets[p] = tb  # only they changed it, or they changed what we removed
        elif tb is None:
            continue  # we changed what they removed: ours stays
        elif slug_of(p):
            conflicts.append(slug_of(p) or "")
        else:
            kept.append(p)
    if INDEX_FILE in changed:
        names = set(git.out("ls-tree", "--name-only", ours).split("\n"))
        for p, blob in targets.items():
            if blob is None:
                names.discard(p)
            else:
                names.add(p)
        present = {s for s in map(slug_of, names) if s}
        texts = [
            (git.blob(r, INDEX_FILE) or b"").decode("utf-8", "replace")
            for r in (base, ours, theirs)
        ]
        merged, _ = merge_index(texts[0], texts[1], texts[2], present=present)
        if merged != texts[1]:
            targets[INDEX_FILE] = hash_blob(git, merged.encode("utf-8"))
    return targets, conflicts, kept


def _offer(store: Any, git: Git, theirs: str, slug: str, remote: str) -> str:
    """Save the other machine's text of *slug* as a draft for review; its name."""
    from .distill.drafts import Draft, body_digest, list_drafts, save_draft

    text = (git.blob(theirs, f"{slug}.md") or b"").decode("utf-8", "replace")
    try:
        meta, body = split_frontmatter(text)
    except Exception:  # noqa: BLE001 - a damaged text is still offered whole, as the body
        meta, body = {}, text
    body = body.strip("\n") or text
    for d in list_drafts(store):
        if d.source == SYNC_SOURCE and d.target == slug and d.body == body:
            return d.slug  # already offered (a sync finished after a crash)
    line = parse_index((git.blob(theirs, INDEX_FILE) or b"").decode("utf-8", "replace"))
    entry = line.by_slug().get(slug)
    ours_body = store.read(slug).body if store.has(slug) else ""
    md = meta.get("metadata") if isinstance(meta.get("metadata"), Mapping) else {}
    tags = md.get("tags") if isinstance(md, Mapping) else None
    draft = Draft(
        slug=slug,
        title=entry.title if entry else slug.replace("-", " "),
        description=" ".join(str(meta.get("description") or "").split()) or slug,
        body=body,
        type=str((md or {}).get("type") or "project"),
        tags=tuple(str(t) for t in tags) if isinstance(tags, list) else (),
        decision="extends",
        target=slug,
        target_digest=body_digest(ours_body),
        source=SYNC_SOURCE,
        label="",
        gate={
            "verdict": "sync conflict",
            "reasons": [
                f"{slug} was changed differently here and in {remote}; this is the other "
                "machine's text — pour it, edit the memory, or toss it"
            ],
        },
        created=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
    )
    return save_draft(store, draft).slug


def sync_conflicts(store: Any) -> list[str]:
    """Drafts waiting that a sync offered (the other machine's text of a memory)."""
    from .distill.drafts import list_drafts

    try:
        return [d.slug for d in list_drafts(store) if d.source == SYNC_SOURCE]
    except (OSError, HistoryError):
        return []


# --------------------------------------------------------------------------- reading history


def log(store: Any, slug: str = "", limit: int = 200) -> list[Change]:
    """The store's changes, newest first (only those touching *slug* when given)."""
    git = _git_for(store)
    if git.head() is None:
        return []
    args = ["log", f"-n{max(1, limit)}", "--format=%x1e%H%x1f%P%x1f%cI%x1f%an%x1f%B%x1f"]
    args += ["--name-only", "HEAD"]
    if slug:
        args += ["--", f"{check_slug(slug)}.md"]
    raw = git.run(*args).stdout.decode("utf-8", "replace")
    out = []
    for rec in raw.split("\x1e")[1:]:
        parts = rec.split("\x1f")
        if len(parts) < 6:
            continue
        rev, parents, when, author, body, names = parts[:6]
        out.append(_change(rev, parents.split(), when, author, body, names.split()))
    return out


def resolve(git: Git, rev: str) -> str:
    rev = rev.strip()
    if not rev or rev.startswith("-") or any(c.isspace() for c in rev):
        raise NotFound(f"no change {rev!r} in this store's history")
    proc = git.run("rev-parse", "--verify", "-q", f"{rev}^{{commit}}", check=False)
    if proc.returncode != 0:
        raise NotFound(f"no change {rev!r} in this store's history; `kura history` lists them")
    return proc.stdout.decode().strip()


def show(store: Any, rev: str) -> str:
    """One change as text: who, when, what, then its diff."""
    git = _git_for(store)
    full = resolve(git, rev)
    return git.run(
        "show",
        "--no-color",
        "--format=fuller",
        "--patch",
        "--stat",
        "--diff-merges=first-parent",  # a sync's merge: what it brought here
        full,
    ).stdout.decode("utf-8", "replace")


def change(store: Any, rev: str) -> Change:
    git = _git_for(store)
    full = resolve(git, rev)
    raw = git.out("show", "-s", "--format=%H%x1f%P%x1f%cI%x1f%an%x1f%B", full)
    names = git.out(
        "show", "--format=", "--name-only", "--no-renames", "-m", "--first-parent", full
    )
    rev_, parents, when, author, body = (raw.split("\x1f") + [""] * 5)[:5]
    return _change(rev_, parents.split(), when, author, body, names.split())


# --------------------------------------------------------------------------- undo


def undo(store: Any, rev: str) -> Change:
    """Revert one change as a new entry; refuses (changing nothing) when anything it touched
    changed later. Returns the new entry."""
    with store.locked(f"undo a change in store {store.name!r}"):
        store.recover()
        git = _git_for(store)
        full = resolve(git, rev)
        parents = git.out("rev-list", "--parents", "-n1", full).split()[1:]
        if not parents:
            raise ConflictError(
                "that is the first entry of this store's history; nothing before it"
            )
        if len(parents) > 1:
            raise ConflictError(
                "that entry is a sync's merge; undo the changes it brought one by one"
            )
        before = parents[0]
        names = git.out("diff-tree", "-r", "--no-renames", "--name-only", before, full).split("\n")
        names = [n for n in names if n]
        root = Path(store.root)
        conflicts: list[str] = []
        targets: dict[str, str | None] = {}
        later = _later_changes(git, full)
        for p in names:
            if p == INDEX_FILE:
                continue
            if _read(root / p) != git.blob(full, p):
                conflicts.append(f"{p} changed after it{_by(later, p)}")
                continue
            targets[p] = _blob_id(git, before, p)
        if INDEX_FILE in names:
            base = (git.blob(full, INDEX_FILE) or b"").decode("utf-8", "replace")
            theirs = (git.blob(before, INDEX_FILE) or b"").decode("utf-8", "replace")
            ours = (_read(root / INDEX_FILE) or b"").decode("utf-8", "replace")
            merged, clashes = merge_index(base, ours, theirs)
            conflicts += [
                f"the index line of {s!r} changed after it{_by(later, INDEX_FILE)}" for s in clashes
            ]
            if merged != ours:
                targets[INDEX_FILE] = hash_blob(git, merged.encode("utf-8"))
        if conflicts:
            raise ConflictError(
                f"cannot undo {full[:12]}: " + "; ".join(conflicts) + ". Nothing was changed."
            )
        was = change(store, full)
        note = Note("undo", who_now(), was.slugs, f"undoes {full[:12]} ({was.what})")
        head = git.head() or before
        new = build_commit(git, head, targets, note, [head])
        apply_commit(store, git, new, sorted(targets))
    return change(store, new)


def _later_changes(git: Git, rev: str) -> list[tuple[str, str, set[str]]]:
    raw = git.run("log", "--format=%x1e%h%x1f%s", "--name-only", f"{rev}..HEAD").stdout.decode(
        "utf-8", "replace"
    )
    out = []
    for rec in raw.split("\x1e")[1:]:
        head, _, names = rec.partition("\n")
        short, _, subject = head.partition("\x1f")
        out.append((short, subject, set(names.split())))
    return out


def _by(later: Sequence[tuple[str, str, set[str]]], path: str) -> str:
    hits = [f"{s} {subj}" for s, subj, names in later if path in names]
    return f" ({'; '.join(hits[:3])})" if hits else " (by a change not yet recorded)"


# --------------------------------------------------------------------------- doctor


def findings(store: Any) -> tuple[list[str], list[str], list[str]]:
    """(problems, notes, sync conflict drafts) about a store's history, for doctor. What waits
    (an interrupted undo or sync, a parked record, a hand edit) is finished first when the
    store can be written; what cannot be is a problem."""
    problems: list[str] = []
    notes: list[str] = []
    root = Path(store.root)
    if not getattr(store, "history", True):
        return problems, [f"history is off ([stores.{store.name}] history = false)"], []
    if not (root / ".git").is_dir():
        return problems, [f"no history: `kura history --enable -s {store.name}` starts it"], []
    if not available():
        return [GIT_MISSING], notes, []
    try:
        if _waiting(store) or changed_paths(Git(root)):
            store.recover()
        left = changed_paths(Git(root))
    except (KuraError, OSError) as exc:
        problems.append(f"history cannot be brought up to date: {exc}")
        left = []
    if (_hdir(store) / "apply.json").exists():
        problems.append("an interrupted undo or sync waits; the next write finishes it")
    if _waiting(store) and not problems:
        problems.append(
            "changes wait to be recorded in history"
            + (f" ({store.pending_reason})" if store.pending_reason else "")
        )
    if left:
        problems.append(
            f"{len(left)} file(s) differ from the last entry of history ({', '.join(left[:5])})"
        )
    conflicts = sync_conflicts(store)
    if conflicts:
        notes.append(
            f"{len(conflicts)} sync conflict(s): the other machine's text waits as a draft "
            f"({', '.join(conflicts[:5])}); pour it, edit the memory, or toss it"
        )
    return problems, notes, conflicts


def _waiting(store: Any) -> bool:
    hd = _hdir(store)
    try:
        parked = any(n.endswith(".json") for n in os.listdir(hd / "pending"))
    except FileNotFoundError:
        parked = False
    return parked or (hd / "apply.json").exists()
