"""floe's exceptions, named as a pyiceberg (or iceberg-java) user knows them.

Every error floe raises is a :class:`FloeError`. Bad arguments are also ``ValueError``
(:class:`InvalidInputError`) or ``TypeError``; a missing file is also
``FileNotFoundError``; other storage failures are also ``OSError``. Messages are the
engine's, with credentials masked.
"""

from __future__ import annotations

from collections.abc import Sequence


class FloeError(Exception):
    """The base of every error floe raises."""


class NoSuchTableError(FloeError):
    """The table does not exist (pyiceberg's NoSuchTableError)."""


class NoSuchNamespaceError(FloeError):
    """The namespace does not exist (pyiceberg's NoSuchNamespaceError)."""


class AlreadyExistsError(FloeError):
    """A table or namespace of that name exists."""


class TableAlreadyExistsError(AlreadyExistsError):
    """A table of that name exists (pyiceberg's TableAlreadyExistsError)."""


class NamespaceAlreadyExistsError(AlreadyExistsError):
    """A namespace of that name exists (pyiceberg's NamespaceAlreadyExistsError)."""


class NamespaceNotEmptyError(FloeError):
    """The namespace still holds tables (pyiceberg's NamespaceNotEmptyError)."""


class CommitFailedException(FloeError):
    """The commit lost its race more often than commit.retry.num-retries allows."""


class CommitStateUnknownException(FloeError):
    """The catalog may or may not have taken the commit: check the table before retrying.

    No file of the write is deleted after this error (they may be the table's now).
    """


class ValidationException(FloeError):
    """A logical conflict with a concurrent commit, or a requirement the data breaks."""


class NotSupportedError(FloeError):
    """Something floe does not do (a storage scheme, a catalog type, a feature)."""


class WriteDeclinedError(NotSupportedError):
    """floe's eligibility gate declined the write before any file was written.

    ``reasons`` lists why, naming properties and columns, never their values.
    """

    def __init__(self, message: str, reasons: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.reasons: list[str] = list(reasons)


class InvalidInputError(FloeError, ValueError):
    """An argument, schema, filter or row that does not fit."""


class InvalidMetadataError(FloeError):
    """Table metadata, a manifest or a task message that cannot be read."""


class NotFoundError(FloeError, FileNotFoundError):
    """A file that should exist does not."""


class CancelledError(FloeError):
    """The work was stopped on request; what it wrote was deleted, nothing committed."""


class FloeIOError(FloeError, OSError):
    """Storage or catalog I/O failed."""


class InternalError(FloeError):
    """A bug in floe or a library it uses: an exception escaped the engine (its message
    says which). What the operation wrote was deleted as it unwound; please report it."""


_BY_KIND: dict[str, type[FloeError]] = {
    "NoSuchTable": NoSuchTableError,
    "NoSuchNamespace": NoSuchNamespaceError,
    "AlreadyExists": AlreadyExistsError,
    "TableAlreadyExists": TableAlreadyExistsError,
    "NamespaceAlreadyExists": NamespaceAlreadyExistsError,
    "NamespaceNotEmpty": NamespaceNotEmptyError,
    "CommitFailed": CommitFailedException,
    "CommitStateUnknown": CommitStateUnknownException,
    "ValidationFailed": ValidationException,
    "NotSupported": NotSupportedError,
    "InvalidInput": InvalidInputError,
    "InvalidMetadata": InvalidMetadataError,
    "NotFound": NotFoundError,
    "Cancelled": CancelledError,
    "IOError": FloeIOError,
    "Internal": InternalError,
}


def error_for(kind: str, message: str, reasons: Sequence[str]) -> FloeError:
    """The exception for an engine error of `kind` (called by floe._floe)."""
    if reasons:
        return WriteDeclinedError(message, reasons)
    return _BY_KIND.get(kind, FloeError)(message)
