"""`kura bench compress`: how much the distiller shrinks what it drank.

    store_ratio = tokens in attributed memories and their index lines / journal tokens drunk

The journal side always comes from the distiller's own metrics (the estimate it recorded
per batch as it drank). The store side is counted with kura's estimator, or exactly with a
tokenizer the user names (``--tokenizer-command``); the ratio is then labelled ``mixed``,
because its two sides were counted two ways. Without one it is labelled ``estimated``.

The tokenizer command contract: the command line is split like a shell's (quotes work;
no pipes, redirections or variables — wrap those in ``sh -c '…'``) and run directly, once
for the memories and once for their index lines. It gets the text as UTF-8 on standard
input and must print one whole number, the token count, on standard output, and exit 0.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
from collections.abc import Callable
from typing import Any

from ..distill.drafts import read_manifest
from ..errors import KuraError
from ..registry import Registry
from ..shapes import dict_at
from ..tokens import estimate_tokens

#: seconds a tokenizer command may take for one text
TOKENIZER_TIMEOUT_S = 300.0


def tokenizer_counter(
    command: str, *, timeout: float = TOKENIZER_TIMEOUT_S
) -> Callable[[str], int]:
    """A function counting tokens with *command* (see the module's contract)."""
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise KuraError(
            f"--tokenizer-command {command!r} cannot be split into words ({exc}): check its quotes"
        ) from None
    if not argv:
        raise KuraError(
            "--tokenizer-command is empty: name a program that reads text on stdin and prints a count"
        )
    if shutil.which(argv[0]) is None:
        raise KuraError(
            f"--tokenizer-command: {argv[0]!r} was not found or is not executable; give a path to an "
            "executable (it is run directly, not through a shell)"
        )

    def count(text: str) -> int:
        try:
            proc = subprocess.run(
                argv, input=text.encode("utf-8"), capture_output=True, timeout=timeout
            )
        except FileNotFoundError:
            raise KuraError(
                f"--tokenizer-command: {argv[0]!r} was not found; give a path to an executable "
                "(it is run directly, not through a shell)"
            ) from None
        except PermissionError:
            raise KuraError(
                f"--tokenizer-command: {argv[0]!r} is not executable (chmod +x it)"
            ) from None
        except subprocess.TimeoutExpired:
            raise KuraError(
                f"--tokenizer-command took longer than {timeout:g} s for one text"
            ) from None
        if proc.returncode != 0:
            err = proc.stderr.decode("utf-8", "replace").strip()[-300:]
            raise KuraError(
                f"--tokenizer-command exited with {proc.returncode}" + (f": {err}" if err else "")
            )
        out = proc.stdout.decode("utf-8", "replace").strip()
        if not out.isdigit():
            raise KuraError(
                "--tokenizer-command must print one whole number (the token count) on stdout; "
                f"it printed {out[:80]!r}"
            )
        return int(out)

    return count


def compress(
    reg: Registry, selector: str | None, *, tokenizer_command: str | None = None
) -> dict[str, Any]:
    """store_ratio = tokens in attributed memories and their index lines / journal tokens drunk."""

    counter = tokenizer_counter(tokenizer_command) if tokenizer_command else None
    name = reg.resolve(selector)
    store = reg.store(name)
    ws = reg.workshop(name)
    batches = {r["id"]: r for r in ws.batches()}
    raw = sum(r["raw_tokens"] for r in batches.values())
    entries = store.index().by_slug()
    counted = unattributed = 0
    mem_tokens = index_tokens = 0
    memory_texts: list[str] = []
    index_lines: list[str] = []
    for m in store.scan().memories:
        md = dict_at(m.meta, "metadata")
        ref = md.get("evidence_manifest")
        batch = None
        if isinstance(ref, str):
            try:
                batch = read_manifest(store, ref).get("batch")
            except KuraError:
                batch = None
        if batch not in batches:
            unattributed += 1
            continue
        counted += 1
        mem_tokens += estimate_tokens(m.body) + estimate_tokens(m.description)
        memory_texts.append(f"{m.description}\n\n{m.body}")
        e = entries.get(m.slug)
        index_tokens += estimate_tokens(e.raw) if e else 0
        if e:
            index_lines.append(e.raw)
    out: dict[str, Any] = {
        "store": name,
        "batches": len(batches),
        "raw_tokens_drunk": raw,
        "memories_counted": counted,
        "unattributed": unattributed,
    }
    if counter is None:
        out.update(
            {
                "memory_tokens": mem_tokens,
                "index_tokens": index_tokens,
                "ratio_label": "estimated",
                "counted_by": "kura's estimator (both sides)",
            }
        )
    else:
        exact_mem = counter("\n\n".join(memory_texts)) if memory_texts else 0
        exact_idx = counter("\n".join(index_lines)) if index_lines else 0
        out.update(
            {
                "memory_tokens": exact_mem,
                "index_tokens": exact_idx,
                "ratio_label": "mixed",
                "counted_by": f"memories and index lines: {tokenizer_command}; journal side: the "
                "distiller's estimate as it drank",
                "estimated": {"memory_tokens": mem_tokens, "index_tokens": index_tokens},
            }
        )
    ratio = (out["memory_tokens"] + out["index_tokens"]) / raw if raw else None
    out["store_ratio"] = round(ratio, 4) if ratio is not None else None
    return out
