"""How a face started from a shell ends: what goes wrong becomes one plain line on stderr
and an exit code, the same for ``kura COMMAND`` and ``python -m kura_core.mcp``."""

from __future__ import annotations

import os
from collections.abc import Callable

from .. import KuraError, storage_error

OK, FAIL, INTERRUPTED = 0, 1, 130


def guarded(run: Callable[[], int], warn: Callable[[str], None]) -> int:
    """Run one command; a refusal, a disk error, an interrupt or a bug is one line through
    *warn* and an exit code (``KURA_DEBUG=1`` lets a bug's traceback through)."""
    try:
        return run()
    except KuraError as exc:
        warn(f"kura: {exc}")
        return FAIL
    except BrokenPipeError:
        return OK
    except OSError as exc:
        warn(f"kura: {storage_error(exc, 'finish the command', exc.filename or os.getcwd())}")
        return FAIL
    except KeyboardInterrupt:
        warn("kura: interrupted")
        return INTERRUPTED
    except Exception as exc:  # a bug: say so plainly, without a wall of traceback
        if os.environ.get("KURA_DEBUG"):
            raise
        warn(f"kura: internal error: {type(exc).__name__}: {exc} (set KURA_DEBUG=1 for details)")
        return FAIL
