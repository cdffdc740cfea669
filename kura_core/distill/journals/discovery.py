"""Finding journal files under the configured roots, never inside a store."""

from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass
from pathlib import Path

from . import registry


def default_roots(platform: str | None = None) -> dict[str, tuple[str, ...]]:
    """Where each agent keeps its journals on this OS (or *platform*, a ``sys.platform``
    value), by adapter, as each adapter declares them (aider keeps one history per
    repository, so it has none). ``kura init`` and the journals pane offer these."""
    key = registry.os_key(platform)
    out: dict[str, tuple[str, ...]] = {}
    for name, a in registry.adapters().items():
        roots = tuple(a.roots.get(key, ()))
        if roots:
            out[name] = roots
    return out


@dataclass(frozen=True)
class JournalRoot:
    """Where one adapter finds its journals. An empty ``include_glob`` means the adapter's
    own ``include`` globs. A root that is a file is that one journal."""

    adapter: str
    root: Path
    include_glob: str = ""
    exclude_glob: str = ""

    @property
    def patterns(self) -> tuple[str, ...]:
        if self.include_glob:
            return (self.include_glob,)
        a = registry.get(self.adapter)
        return tuple(a.include) if a is not None else ("**/*",)

    @property
    def pattern(self) -> str:
        return self.patterns[0]


@dataclass(frozen=True)
class JournalFile:
    adapter: str
    path: Path
    size: int
    mtime_ns: int


def _inside(path: Path, dirs: list[Path]) -> bool:
    return any(path == d or d in path.parents for d in dirs)


def _excluded(rel: str, name: str, pattern: str) -> bool:
    if not pattern:
        return False
    candidates = {pattern}
    if pattern.startswith("**/"):
        candidates.add(pattern[3:])
    return any(fnmatch.fnmatchcase(rel, p) or fnmatch.fnmatchcase(name, p) for p in candidates)


def _inodes_under(dirs: list[Path]) -> set[tuple[int, int]]:
    found: set[tuple[int, int]] = set()
    for d in dirs:
        for top, _subdirs, files in os.walk(d):
            for name in files:
                try:
                    st = os.lstat(os.path.join(top, name))
                except OSError:
                    continue
                found.add((st.st_dev, st.st_ino))
    return found


def _candidates(base: Path, patterns: tuple[str, ...]) -> list[Path]:
    if base.is_file():
        return [base]
    seen: dict[Path, None] = {}
    for pattern in patterns:
        for path in sorted(base.glob(pattern)):
            seen.setdefault(path, None)
    return list(seen)


def discover(roots: list[JournalRoot], *, forbidden_dirs: list[Path]) -> list[JournalFile]:
    """Every journal file under *roots*, newest first.

    A file is never a journal when it lies inside a forbidden directory (a store), when it
    is a symlink whose target lies inside one, or when it is a hard link
    (``st_nlink > 1``) to a file inside one. Symlinks are resolved; one file reached by
    several paths is listed once.
    """
    forbidden = []
    for d in forbidden_dirs:
        try:
            forbidden.append(Path(d).expanduser().resolve())
        except OSError:
            continue
    forbidden_inodes: set[tuple[int, int]] | None = None
    found: dict[Path, JournalFile] = {}
    for root in roots:
        base = Path(root.root).expanduser()
        if not (base.is_dir() or base.is_file()):
            continue
        for path in _candidates(base, root.patterns):
            rel = path.relative_to(base).as_posix() if path != base else path.name
            if _excluded(rel, path.name, root.exclude_glob):
                continue
            try:
                real = path.resolve(strict=True)
                st = real.stat()
            except (OSError, RuntimeError):
                continue
            if not real.is_file():
                continue
            if _inside(real, forbidden) or _inside(path.absolute(), forbidden):
                continue
            if st.st_nlink > 1 and forbidden:
                if forbidden_inodes is None:
                    forbidden_inodes = _inodes_under(forbidden)
                if (st.st_dev, st.st_ino) in forbidden_inodes:
                    continue
            known = found.get(real)
            if known is not None and not (known.path.is_symlink() and not path.is_symlink()):
                continue  # one file reached twice: keep its own path over an alias
            found[real] = JournalFile(root.adapter, path, st.st_size, st.st_mtime_ns)
    return sorted(found.values(), key=lambda f: (-f.mtime_ns, str(f.path)))
