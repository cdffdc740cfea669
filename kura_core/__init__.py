"""kura: long-term memory for AI agents that is distilled, not accumulated."""

from .errors import KuraError
from .kura import Kura

__version__ = "0.1.0"
__all__ = ["Kura", "KuraError", "__version__"]
