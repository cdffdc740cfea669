"""The ``kura`` script: an agent's hook goes straight to its runner, which loads almost
nothing (a hook answers within its deadline, start-up included); every other command loads
the command line."""

from __future__ import annotations

import sys


def main() -> int:
    argv = sys.argv[1:]
    if argv[:1] == ["hook"]:
        from kura_core import run_hook

        return run_hook(argv[1:])
    from .cli import main as cli_main

    return cli_main(argv)
