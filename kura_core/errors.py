"""One error family. Every message says what went wrong and what to do next."""

from __future__ import annotations


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


class ModelUnavailable(KuraError):
    """A model role is unconfigured, unreachable, or answered nonsense."""

    status = 503


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
