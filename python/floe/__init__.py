"""floe: write, commit and read Apache Iceberg tables with a native C++ engine.

floe's data files, manifests and snapshots are what iceberg-java would write for the same
rows and settings; where floe cannot show that for a table's settings, it declines the
write (``WriteDeclinedError``) before any file exists.

    import floe
    catalog = floe.Catalog()                         # ./warehouse, SQLite catalog
    catalog.create_namespace("db")
    table = catalog.create_table("db.events", arrow_table.schema, partition_by="day(ts)")
    table.append(arrow_table)                        # any Arrow data: pyarrow, polars, DuckDB
    rows = table.scan(where="ts >= '2024-01-01T00:00:00Z'").to_arrow()

``floe.open_table(name_or_path)`` opens any table floe keeps, as the ``floe`` command
does: a path is a Delta table (``floe.delta.DeltaTable``), ``NAMESPACE.TABLE`` the
catalog's catalog-managed Delta table of that name or else its Iceberg table
(``floe.Table``).

The split write (``Table.plan_write``, ``WriteTask``, ``Table.new_committer``) lets another
engine's executors run floe's write tasks while one driver commits.
"""

from __future__ import annotations

# pyarrow first: its libarrow and libparquet are the ones floe._floe links (one Arrow per
# process, whatever is imported next).
import pyarrow as _pyarrow  # noqa: F401
# pyarrow.fs registers pyarrow's exit hook that ends Arrow's S3 support, which floe's S3
# FileIO starts on first use (the AWS SDK must be shut down before the process exits).
import pyarrow.fs as _pyarrow_fs  # noqa: F401

from . import _floe
from ._errors import (
    AlreadyExistsError,
    CancelledError,
    CommitFailedException,
    CommitStateUnknownException,
    FloeError,
    FloeIOError,
    InternalError,
    InvalidInputError,
    InvalidMetadataError,
    NamespaceAlreadyExistsError,
    NamespaceNotEmptyError,
    NoSuchNamespaceError,
    NoSuchTableError,
    NotFoundError,
    NotSupportedError,
    TableAlreadyExistsError,
    ValidationException,
    WriteDeclinedError,
    error_for,
)
from ._results import (
    CommitReport,
    ExpireResult,
    ExplainResult,
    OrphanResult,
    RowLevelResult,
    Snapshot,
    WriteProgress,
    WriteResult,
)
from ._write import Committer, WritePlan, WriteTask
from ._open import open_table
from .catalog import Catalog, load_catalog
from .scan import Scan
from .table import Table, apply_transform

_floe.set_error_factory(error_for)

__version__: str = _floe.version()

__all__ = [
    "AlreadyExistsError",
    "CancelledError",
    "Catalog",
    "CommitFailedException",
    "CommitReport",
    "CommitStateUnknownException",
    "Committer",
    "ExpireResult",
    "ExplainResult",
    "FloeError",
    "FloeIOError",
    "InternalError",
    "InvalidInputError",
    "InvalidMetadataError",
    "NamespaceAlreadyExistsError",
    "NamespaceNotEmptyError",
    "NoSuchNamespaceError",
    "NoSuchTableError",
    "NotFoundError",
    "NotSupportedError",
    "OrphanResult",
    "RowLevelResult",
    "Scan",
    "Snapshot",
    "Table",
    "TableAlreadyExistsError",
    "ValidationException",
    "WriteDeclinedError",
    "WritePlan",
    "WriteProgress",
    "WriteResult",
    "WriteTask",
    "apply_transform",
    "load_catalog",
    "open_table",
]
