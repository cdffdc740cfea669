"""One error family. Every message says what went wrong and what to do next."""

from __future__ import annotations

from typing import Literal, get_args


class KuraError(Exception):
    """Base of every error kura raises on purpose. The message is for a person."""

    #: HTTP status a face should use when this error reaches it.
    status = 400


class ConfigError(KuraError):
    """kura.toml could not be loaded or is inconsistent."""


class SelectorError(KuraError):
    """A store or mode selector named nothing this server holds."""

    status = 404


class ContainmentError(KuraError):
    """A name tried to reach outside its store, or named a reserved file."""


class NotFound(KuraError):
    """A memory, draft or file that was asked for does not exist."""

    status = 404


class PolicyError(KuraError):
    """The store's write policy forbids this write."""

    status = 403


class MemoryFormatError(KuraError):
    """A memory file or index could not be parsed."""

    status = 422


class ConflictError(KuraError):
    """Someone else changed the thing being written; nothing was written."""

    status = 409


class BusyError(KuraError):
    """Another process holds what this one needs (a lock, a tender)."""

    status = 409


#: Why a model call failed, as a closed set (``ModelUnavailable.kind``):
#:
#: ``unconfigured``    no model for the role, or its API key variable is unset; nothing was sent
#: ``connect``         the endpoint could not be reached (connection refused, no route, DNS, TLS)
#: ``dropped``         the connection closed before a reply came
#: ``timeout``         no reply within the role's timeout
#: ``http_status``     the endpoint answered with a status other than 2xx
#: ``unparseable``     the reply holds no JSON object (not JSON, no message, empty content)
#: ``reasoning_only``  the reply has reasoning but empty content
#: ``schema``          the JSON object does not fit the task's schema
#: ``cut_off``         the reply stopped at its ``max_tokens`` before the answer was whole
#: ``refused``         the reply was read and fits, but kura's floors refused what it says
#: ``other``           raised without a kind (the model client always names one)
ModelFailureKind = Literal[
    "unconfigured",
    "connect",
    "dropped",
    "timeout",
    "http_status",
    "unparseable",
    "reasoning_only",
    "schema",
    "cut_off",
    "refused",
    "other",
]
MODEL_FAILURE_KINDS: tuple[str, ...] = get_args(ModelFailureKind)

#: The kinds that say asking again at once would fail the same way: the model cannot be
#: reached at all, as opposed to one reply that could not be used.
UNREACHABLE_KINDS = frozenset({"unconfigured", "connect", "dropped", "timeout"})


class ModelUnavailable(KuraError):
    """A model role is unconfigured, unreachable, or answered nonsense.

    ``kind`` (one of :data:`MODEL_FAILURE_KINDS`) is what code branches on; the message is
    for a person and may change wording freely.
    """

    status = 503

    def __init__(self, message: str = "", *, kind: ModelFailureKind = "other") -> None:
        if kind not in MODEL_FAILURE_KINDS:
            raise ValueError(
                f"ModelUnavailable kind must be one of {', '.join(MODEL_FAILURE_KINDS)}, "
                f"not {kind!r}"
            )
        super().__init__(message)
        self.kind = kind

    @property
    def unreachable(self) -> bool:
        """Whether the model cannot be reached at all (see :data:`UNREACHABLE_KINDS`)."""
        return self.kind in UNREACHABLE_KINDS


class StorageError(KuraError):
    """The disk refused a write (full, read-only, failing); nothing was changed."""

    status = 507


class StorageFull(StorageError):
    """No space left on the device (or the quota is used up)."""

    status = 507


class ReadOnlyStore(StorageError):
    """The store's directory cannot be written: a read-only filesystem or no permission."""

    status = 403


class WorkshopDamaged(KuraError):
    """The workshop database is not a database any more (corrupt); memories are untouched."""

    status = 503
