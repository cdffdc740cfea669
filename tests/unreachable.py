"""The one way a test may end without a verdict: something it needs from a package registry
(the real agent CLIs, installed with npm) cannot be had on this machine.

Such a test is skipped, never passed, and the reason is printed in a banner at the end of
the run (``tests/conftest.py``), so a run that could not test the real clients says so in
its last lines. Every other skip is refused by ``tests/test_checks.py``."""

from __future__ import annotations

from typing import NoReturn

import pytest

#: the prefix of every such skip's reason; the end-of-run banner looks for it
MARK = "NOT RUN"


def registry_unreachable(why: str) -> NoReturn:
    """Skip the calling test, loudly, because *why* (a registry or a package cannot be had)."""
    pytest.skip(f"{MARK}: {why}")
