"""Delta Lake tables, by path or in floe's SQL catalog, with floe's engine: create, append,
overwrite, read.

::

    import floe.delta
    floe.delta.create_table("/data/events", schema, partition_by=["region"])
    floe.delta.write("/data/events", table)                    # one commit: version 1
    floe.delta.write("/data/events", table, mode="overwrite")  # replaces every file
    floe.delta.write("/data/events", day, mode="overwrite",
                     predicate="day = '2024-06-01'")            # replaceWhere
    floe.delta.delete("/data/events", "region = 'eu' AND id < 100")
    floe.delta.compact("/data/events")                          # OPTIMIZE
    floe.delta.vacuum("/data/events", retention="7d", dry_run=True)  # VACUUM
    [v.version for v in floe.delta.versions("/data/events")]    # the log's commits
    rows = floe.delta.read("/data/events", columns=["id"], version=1)
    rows = floe.delta.read("/data/events", where="region = 'eu'")  # skips files

    # Catalog-managed: the catalog's coordinator ratifies every commit.
    catalog = floe.Catalog()
    floe.delta.create_table("lake.events", schema, catalog=catalog)
    floe.delta.write("lake.events", table, catalog=catalog)
    rows = floe.delta.read("lake.events", catalog=catalog)

    # A handle: the same operations, the table named once (floe.open_table returns one
    # for a Delta table's path or a catalog-managed table's name).
    events = floe.delta.DeltaTable("/data/events")
    events.write(table)
    rows = events.read(where="region = 'eu'")

A path may be relative (to the current folder, as the ``floe`` command takes it) or a URI
(``s3://...``, with ``storage=``). By path, every write is one commit: the next
``_delta_log/<version>.json``, created only if absent (a lost race re-reads the winners
and retries, or fails on a real conflict).
With ``catalog=`` (floe's SQL catalog, SQLite or PostgreSQL), the first argument is the
table's ``NAMESPACE.TABLE`` there: a catalog-managed table, whose commits are staged in
``_delta_log/_staged_commits/``, ratified by the catalog (each version once, in order) and
then published as ``<version>.json``; its reads combine the published log with the
versions the catalog ratified. Files carry the statistics delta-spark writes. A table whose
protocol or properties floe does not write exactly is declined
(:class:`floe.WriteDeclinedError`, naming the feature or property) before any file exists.
A catalog-managed table is refused by path, as the protocol says.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from . import _floe
from ._args import Duration, byte_size, duration_ms, string_options, thread_count
from ._arrow import reader_from_capsule, schema_capsule, schema_from_capsule, stream_capsule
from ._errors import InvalidInputError
from .catalog import Catalog

__all__ = [
    "DeltaFile",
    "DeltaTable",
    "DeltaSnapshot",
    "DeltaVacuumResult",
    "DeltaVersion",
    "DeltaWriteResult",
    "compact",
    "create_table",
    "delete",
    "read",
    "scan",
    "snapshot",
    "vacuum",
    "versions",
    "write",
]


@dataclass(frozen=True)
class DeltaWriteResult:
    """The version a write committed, and what it wrote."""

    version: int
    #: 1 when the first attempt took the version; more after lost races (the data files
    #: were written once).
    attempts: int
    files_added: int
    files_removed: int
    rows: int
    bytes: int
    #: True when the table already had ``txn`` (its application at that version or later):
    #: nothing was written and `version` is the table's current version.
    skipped: bool = False
    #: The version a checkpoint was written at after the commit (every
    #: ``delta.checkpointInterval`` versions, 10 by default); -1 when none was.
    checkpoint_version: int = -1
    #: A predicate's rows deleted (a delete, or a replaceWhere), and the other rows of the
    #: files holding them, written anew (copy-on-write).
    rows_deleted: int = 0
    rows_copied: int = 0


@dataclass(frozen=True)
class DeltaFile:
    """A live data file of a snapshot."""

    path: str
    size: int
    #: As the log spells them (strings; None for null).
    partition_values: Mapping[str, str | None]
    #: The add action's statistics (JSON text), when it has them.
    stats: str | None


@dataclass(frozen=True)
class DeltaSnapshot:
    """A Delta table at one version."""

    version: int
    timestamp_ms: int
    table_id: str
    min_reader_version: int
    min_writer_version: int
    reader_features: Sequence[str]
    writer_features: Sequence[str]
    partition_columns: Sequence[str]
    properties: Mapping[str, str]
    schema: pa.Schema
    #: The live files, one row per add action in path order, as deltalake's
    #: ``get_add_actions(flatten=False)``: ``path`` (as the log spells it), ``location``
    #: (the file), ``size_bytes``, ``modification_time``, ``data_change``,
    #: ``partition_values`` (a map; a null partition's value is null), ``stats`` (the
    #: add's JSON statistics, null when it has none) and ``has_deletion_vector``.
    add_actions: pa.Table
    #: None when floe reads this version exactly; otherwise why not (a reader feature
    #: floe does not apply yet, named).
    unreadable_reason: str | None

    @functools.cached_property
    def files(self) -> Sequence[DeltaFile]:
        """The live files as objects, made from :attr:`add_actions` when first asked for
        (a table of many files is cheaper to take as :attr:`add_actions`)."""
        columns = self.add_actions.select(["location", "size_bytes", "partition_values",
                                           "stats"]).to_pydict()
        return tuple(
            DeltaFile(path=location, size=size, partition_values=dict(values), stats=stats)
            for location, size, values, stats in zip(
                columns["location"], columns["size_bytes"], columns["partition_values"],
                columns["stats"])
        )


@dataclass(frozen=True)
class DeltaVersion:
    """One commit of a Delta table's log."""

    version: int
    #: When it was committed (the commit file's modification time, or for a
    #: catalog-managed table's ratified commit, when its coordinator ratified it), in
    #: milliseconds since the epoch.
    modified_ms: int
    #: The commit file (a staged file for a ratified commit not yet published).
    location: str


@dataclass(frozen=True)
class DeltaVacuumResult:
    """What :func:`vacuum` deleted (or, as a dry run, would delete)."""

    #: The version whose snapshot the files were compared with.
    version: int
    retention_ms: int
    #: The data files deleted (or to delete), by location.
    deleted: Sequence[str]
    bytes: int
    #: Unreferenced files left in place and why (not the table's own, or too young).
    kept: Sequence[tuple[str, str]]
    #: Deletes that failed (the file stays) and why.
    failed: Sequence[tuple[str, str]]


def _native(catalog: Catalog | None) -> Any:
    if catalog is None:
        return None
    if not isinstance(catalog, Catalog):
        raise TypeError(f"catalog must be a floe.Catalog, not {type(catalog).__name__}")
    return catalog._catalog


def _storage(storage: Mapping[str, str] | None) -> dict[str, str]:
    if storage is None:
        return {}
    if not isinstance(storage, Mapping):
        raise TypeError(f"storage must be a mapping, not {type(storage).__name__}")
    return {str(key): str(value) for key, value in storage.items()}


def create_table(
    path: str,
    schema: pa.Schema,
    *,
    partition_by: Sequence[str] | str = (),
    properties: Mapping[str, str] | None = None,
    catalog: Catalog | None = None,
    location: str | None = None,
    storage: Mapping[str, str] | None = None,
) -> int:
    """Creates the Delta table at `path` (version 0) and returns its version.

    `schema` is a ``pyarrow.Schema`` (byte, short, int, long, float, double, decimal128,
    boolean, string, binary, date32, timestamp in microseconds with a zone (Delta's
    ``timestamp``) or without (``timestamp_ntz``), struct, list, map). `partition_by`
    names columns (one str is one column); `properties` become the table's configuration
    (``delta.feature.<name>=supported`` requests a table feature). Raises
    :class:`floe.AlreadyExistsError` when `path` holds a Delta table already.

    With `catalog`, `path` is ``NAMESPACE.TABLE`` and the table is catalog-managed (table
    features catalogManaged, vacuumProtocolCheck and inCommitTimestamp), at `location` or
    the catalog's default location for the name; the name must not be taken by an Iceberg
    or a Delta table, and its namespace is created when missing.

    `storage` configures the storage of a table given by path, by iceberg-java's keys
    (for ``s3://`` paths: ``s3.endpoint``, ``s3.access-key-id``,
    ``s3.secret-access-key``, ``s3.session-token``, ``client.region``,
    ``s3.path-style-access``); without them the standard AWS environment variables
    apply. A catalog-managed table uses its catalog's properties.
    """
    return int(
        _floe.delta_create(
            str(path),
            schema_capsule(schema),
            _column_names(partition_by, "partition_by"),
            dict(properties or {}),
            _native(catalog),
            "" if location is None else str(location),
            _storage(storage),
        )
    )


def _column_names(names: Sequence[str] | str | None, what: str) -> list[str]:
    """Column names given as a sequence of str (or one str, as deltalake takes it)."""
    if names is None:
        return []
    if isinstance(names, str):
        return [names]
    if not all(isinstance(name, str) for name in names):
        raise TypeError(f"{what} takes column names (str), not {names!r}")
    return list(names)


def _txn(txn: tuple[str, int] | str | None) -> tuple[str, int | None]:
    """``txn`` as (application id, version): a tuple, or the command's "APP_ID:VERSION"."""
    if txn is None:
        return "", None
    if isinstance(txn, str):
        app_id, colon, version_text = txn.rpartition(":")
        if not colon or not version_text.isdigit() or not version_text.isascii():
            raise InvalidInputError(
                f"txn takes (app_id, version) or 'APP_ID:VERSION', not {txn!r}"
            )
        version: Any = int(version_text)
    elif isinstance(txn, tuple) and len(txn) == 2:
        app_id, version = txn
    else:
        raise TypeError(f"txn must be (app_id, version), not {type(txn).__name__}")
    if not isinstance(app_id, str) or not app_id:
        raise InvalidInputError("txn needs a non-empty application id (a str)")
    if isinstance(version, bool) or not isinstance(version, int) or version < 0:
        raise InvalidInputError(f"txn's version must be an int of 0 or more, not {version!r}")
    if version > 2**63 - 1:
        raise InvalidInputError(f"txn's version {version} does not fit a long")
    return app_id, version


def write(
    path: str,
    data: Any,
    *,
    mode: str = "append",
    predicate: str | None = None,
    txn: tuple[str, int] | str | None = None,
    threads: int | None = None,
    memory_limit: int | str | None = None,
    catalog: Catalog | None = None,
    storage: Mapping[str, str] | None = None,
    partition_by: Sequence[str] | str | None = None,
    properties: Mapping[str, str] | None = None,
) -> DeltaWriteResult:
    """Writes the rows of `data` into the Delta table at `path` as one new version.

    When there is no Delta table at `path` yet, the write creates it, as deltalake's
    ``write_deltalake`` does: with `data`'s columns, partitioned by `partition_by` and with
    the table `properties` (as for :func:`create_table`), in one version 0 holding the
    rows. When the table is there, `partition_by`, if given, must be its partition columns
    (:class:`floe.InvalidInputError` otherwise) and `properties` are refused. A writer that
    creates the table first fails this write with :class:`floe.AlreadyExistsError`,
    nothing committed. A catalog-managed table is created with :func:`create_table`.

    `data` is any Arrow data (a pyarrow Table, RecordBatchReader or RecordBatch, a polars
    DataFrame, a DuckDB relation, a pandas DataFrame). Columns are matched by name and cast
    safely to the table's types. ``mode="overwrite"`` replaces every file of the table (it
    fails, committing nothing, if another writer changed the table's files meanwhile).
    With a `predicate` (floe's filter syntax, as ``floe scan --where``), an overwrite
    replaces only the rows it selects, as delta-spark's ``replaceWhere``: files holding such
    rows are removed and their other rows written anew, and every row of `data` must match
    the predicate (:class:`ValueError` otherwise, nothing committed); an empty predicate is
    refused, never read as "every row". It fails, committing
    nothing, if a concurrent writer removed a file it read or added files the predicate may
    select (delta-spark's rules). A failed write leaves no file it wrote.

    ``txn=(app_id, version)`` (or ``"APP_ID:VERSION"``, as the command takes it; `version`
    an int of 0 or more) makes the write idempotent, as Delta's ``txn`` action does
    for streaming writers: when the table already holds `app_id` at `version` or later,
    nothing is written (``skipped`` is true); otherwise the marker is committed with the
    rows, in the same version.

    `threads` (1 to 256; by default one per core, as for Iceberg tables) write tasks run in
    parallel; with more than one, each partition's rows are written by one task.
    `memory_limit` (bytes, or text such as ``"1G"``) bounds what their Parquet writers hold
    together, as for Iceberg tables:
    open files write their row groups early to stay within half of it, and a write that
    needs more fails with a :class:`floe.FloeError` saying so, nothing committed.

    With `catalog`, `path` is the ``NAMESPACE.TABLE`` of a catalog-managed table there;
    `storage` configures a table by path's storage, as for :func:`create_table`.
    """
    app_id, app_version = _txn(txn)
    if mode not in ("append", "overwrite"):
        raise InvalidInputError(f"mode must be 'append' or 'overwrite', not {mode!r}")
    if predicate is not None and not isinstance(predicate, str):
        raise TypeError(f"predicate must be a str, not {type(predicate).__name__}")
    create_by = None
    if catalog is None:
        create_by = _column_names(partition_by, "partition_by")
    elif partition_by is not None or properties is not None:
        raise InvalidInputError(
            f"partition_by and properties create a Delta table by path; catalog-managed "
            f"{path} is created with floe.delta.create_table")
    raw = _floe.delta_write(
        str(path),
        stream_capsule(data),
        mode,
        app_id,
        app_version,
        thread_count(threads),
        _native(catalog),
        _storage(storage),
        predicate,  # "" is refused by the write, never read as "every row"
        memory_limit=byte_size(memory_limit, "memory_limit"),
        create_partition_by=create_by,
        create_properties=string_options(properties, "properties"),
    )
    return _write_result(raw)


def delete(
    path: str,
    predicate: str,
    *,
    threads: int | None = None,
    catalog: Catalog | None = None,
    storage: Mapping[str, str] | None = None,
) -> DeltaWriteResult:
    """Deletes the rows of the Delta table at `path` for which `predicate` is true (floe's
    filter syntax, as ``floe scan --where``; rows where it is null stay), as one new version.

    Copy-on-write, as delta-spark's DELETE on a table without deletion vectors: files that
    data skipping (partition values, statistics) rules out are not read; a file whose rows
    all match is removed; a file holding some is removed and its other rows are written
    anew (``rows_copied``). When no row matches, nothing is committed and ``skipped`` is
    true. It fails, committing nothing, if a concurrent writer added files the predicate
    may select (not a blind append's, when the table's ``delta.isolationLevel`` is
    WriteSerializable) or removed a file it read (delta-spark's ConcurrentAppendException
    and ConcurrentDeleteReadException).
    """
    if not isinstance(predicate, str):
        raise TypeError(f"predicate must be a str, not {type(predicate).__name__}")
    if not predicate.strip():
        raise InvalidInputError("delete needs a predicate (the rows to delete)")
    raw = _floe.delta_write(
        str(path),
        None,
        "delete",
        "",
        None,
        thread_count(threads),
        _native(catalog),
        _storage(storage),
        predicate,
    )
    return _write_result(raw)


def compact(
    path: str,
    *,
    where: str | None = None,
    min_file_size: int = 1 << 30,
    max_file_size: int = 1 << 30,
    threads: int | None = None,
    catalog: Catalog | None = None,
    storage: Mapping[str, str] | None = None,
) -> DeltaWriteResult:
    """Compacts the small files of the Delta table at `path`, as delta-spark's ``OPTIMIZE``
    (without ``ZORDER BY``) does, as one new version whose rows are unchanged.

    In each partition (only those `where` selects: a filter naming partition columns only,
    as ``OPTIMIZE ... WHERE``), the files smaller than `min_file_size` bytes are sorted by
    size and packed into bins of at most `max_file_size` bytes (both 1 GiB by default, as
    delta-spark's); each bin of two or more files is rewritten into one file by one write
    task, `threads` bins at a time (by default one per core). Adds and removes carry
    ``dataChange`` false, and the commit is ``OPTIMIZE`` at ``SnapshotIsolation``: a
    concurrent append never conflicts with it; a concurrent remove of a file it compacts
    fails it, committing nothing and leaving no file it wrote. When no bin needs rewriting
    nothing is committed (``skipped``). The old files stay on storage (older versions read
    them) until ``floe vacuum PATH`` deletes them after the table's retention period.
    """
    if where is not None and not isinstance(where, str):
        raise TypeError(f"where must be a str, not {type(where).__name__}")
    for name, value in (("min_file_size", min_file_size), ("max_file_size", max_file_size)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"{name} must be an int, not {type(value).__name__}")
    raw = _floe.delta_write(
        str(path),
        None,
        "compact",
        "",
        None,
        thread_count(threads),
        _native(catalog),
        _storage(storage),
        where or "",
        min_file_size,
        max_file_size,
    )
    return _write_result(raw)


def _write_result(raw: Mapping[str, Any]) -> DeltaWriteResult:
    return DeltaWriteResult(
        version=int(raw["version"]),
        attempts=int(raw["attempts"]),
        files_added=int(raw["files_added"]),
        files_removed=int(raw["files_removed"]),
        rows=int(raw["rows"]),
        bytes=int(raw["bytes"]),
        skipped=bool(raw["skipped"]),
        checkpoint_version=int(raw["checkpoint_version"]),
        rows_deleted=int(raw["rows_deleted"]),
        rows_copied=int(raw["rows_copied"]),
    )


def scan(
    path: str,
    *,
    columns: Sequence[str] | None = None,
    where: str | None = None,
    version: int | None = None,
    as_of: int | None = None,
    catalog: Catalog | None = None,
    storage: Mapping[str, str] | None = None,
) -> pa.RecordBatchReader:
    """The rows of the Delta table at `path`, streamed file by file.

    `columns` picks top-level columns (default: all); `where` keeps the rows a filter
    selects (floe's filter syntax, as ``floe scan --where``), not opening the files whose
    partition values or statistics rule them out; `version` reads that version;
    `as_of` (milliseconds since the epoch) the newest version committed at or before it.
    With `catalog`, `path` is the ``NAMESPACE.TABLE`` of a catalog-managed table there;
    `storage` configures a table by path's storage, as for :func:`create_table`.
    """
    capsule = _floe.delta_scan(
        str(path),
        list(columns or []),
        version,
        as_of,
        _native(catalog),
        _storage(storage),
        where or "",
    )
    return reader_from_capsule(capsule)


def read(
    path: str,
    *,
    columns: Sequence[str] | None = None,
    where: str | None = None,
    version: int | None = None,
    as_of: int | None = None,
    catalog: Catalog | None = None,
    storage: Mapping[str, str] | None = None,
) -> pa.Table:
    """:func:`scan`, read whole into a ``pyarrow.Table``."""
    return scan(
        path,
        columns=columns,
        where=where,
        version=version,
        as_of=as_of,
        catalog=catalog,
        storage=storage,
    ).read_all()


def snapshot(
    path: str,
    *,
    version: int | None = None,
    catalog: Catalog | None = None,
    storage: Mapping[str, str] | None = None,
) -> DeltaSnapshot:
    """The Delta table at `path` (its latest version, or `version`): protocol, schema,
    partition columns, properties and live files. With `catalog`, `path` is the
    ``NAMESPACE.TABLE`` of a catalog-managed table there; `storage` configures a table
    by path's storage, as for :func:`create_table`."""
    raw = _floe.delta_snapshot(
        str(path), version, _native(catalog), _storage(storage)
    )
    return DeltaSnapshot(
        version=int(raw["version"]),
        timestamp_ms=int(raw["timestamp_ms"]),
        table_id=str(raw["table_id"]),
        min_reader_version=int(raw["min_reader_version"]),
        min_writer_version=int(raw["min_writer_version"]),
        reader_features=tuple(raw["reader_features"]),
        writer_features=tuple(raw["writer_features"]),
        partition_columns=tuple(raw["partition_columns"]),
        properties=dict(raw["properties"]),
        schema=schema_from_capsule(raw["schema"]),
        add_actions=reader_from_capsule(raw["add_actions"]).read_all(),
        unreadable_reason=raw["readable"],
    )


def versions(
    path: str,
    *,
    catalog: Catalog | None = None,
    storage: Mapping[str, str] | None = None,
) -> list[DeltaVersion]:
    """The commits the Delta table's log still has, oldest first (versions a checkpoint
    made redundant and log cleanup removed are not listed). With `catalog`, `path` is the
    ``NAMESPACE.TABLE`` of a catalog-managed table there and its catalog's word counts:
    published versions up to its latest ratified one, then its ratified commits."""
    raw = _floe.delta_versions(str(path), _native(catalog), _storage(storage))
    return [DeltaVersion(version=int(v["version"]), modified_ms=int(v["modified_ms"]),
                         location=str(v["location"])) for v in raw]


def vacuum(
    path: str,
    *,
    retention: Duration | None = None,
    dry_run: bool = False,
    any_name: bool = False,
    check_retention: bool = True,
    storage: Mapping[str, str] | None = None,
) -> DeltaVacuumResult:
    """VACUUM of the Delta table at `path`, as delta-spark chooses the files: the data
    files in the table's folder that the latest snapshot does not reference, that no
    remove within the retention (`retention`, e.g. ``"7d"``, an int of milliseconds or a
    ``timedelta``; the table's ``delta.deletedFileRetentionDuration``, a week, by default)
    still keeps, and that were last modified before it. Only the table's own files go:
    never a symbolic link, a file of a table nested in its folder, or a hidden path, and
    only ``*.parquet`` names unless `any_name`. A retention shorter than the table's is
    refused unless `check_retention` is False (delta-spark's
    ``retentionDurationCheck.enabled``). A catalog-managed table is refused (only its
    catalog may allow maintenance)."""
    retention_ms = None if retention is None else duration_ms(retention, "retention")
    raw = _floe.delta_vacuum(str(path), retention_ms, bool(dry_run), bool(any_name),
                             bool(check_retention), _storage(storage))
    return DeltaVacuumResult(
        version=int(raw["version"]),
        retention_ms=int(raw["retention_ms"]),
        deleted=tuple(raw["deleted"]),
        bytes=int(raw["bytes"]),
        kept=tuple((str(p), str(r)) for p, r in raw["kept"]),
        failed=tuple((str(p), str(r)) for p, r in raw["failed"]),
    )


class DeltaTable:
    """A Delta table named once: by its path (with `storage` for an object store), or by
    ``NAMESPACE.TABLE`` with `catalog` (a catalog-managed table). Its methods are this
    module's functions for that table; nothing is cached, so each reads the table's
    latest version (or the one it is given). The table must exist
    (:class:`floe.NoSuchTableError`): create one with :func:`create_table`.
    :func:`floe.open_table` returns one for a Delta table.
    """

    def __init__(
        self,
        table: str,
        *,
        catalog: Catalog | None = None,
        storage: Mapping[str, str] | None = None,
    ) -> None:
        self._table = str(table)
        self._catalog = catalog
        self._storage = _storage(storage)
        # Checks that it exists (and, by name, that it is a Delta table the catalog keeps):
        # its log is listed, no version read.
        _floe.delta_check(self._table, _native(catalog), self._storage)

    @property
    def table(self) -> str:
        """The table as given: its path, or its ``NAMESPACE.TABLE`` in :attr:`catalog`."""
        return self._table

    @property
    def catalog(self) -> Catalog | None:
        """The catalog that keeps it (a catalog-managed table), else None."""
        return self._catalog

    def __repr__(self) -> str:
        where = f", catalog={self._catalog.name!r}" if self._catalog is not None else ""
        return f"DeltaTable({self._table!r}{where})"

    def _where(self) -> dict[str, Any]:
        if self._catalog is not None:
            return {"catalog": self._catalog}
        return {"storage": self._storage}

    def version(self) -> int:
        """The latest version."""
        return self.snapshot().version

    def schema(self) -> pa.Schema:
        """The latest version's schema, in Arrow's types."""
        return self.snapshot().schema

    def snapshot(self, version: int | None = None) -> DeltaSnapshot:
        """As :func:`snapshot`."""
        return snapshot(self._table, version=version, **self._where())

    def versions(self) -> list[DeltaVersion]:
        """As :func:`versions`."""
        return versions(self._table, **self._where())

    def write(self, data: Any, **options: Any) -> DeltaWriteResult:
        """As :func:`write` (`mode`, `predicate`, `txn`, `threads`, `memory_limit`)."""
        return write(self._table, data, **options, **self._where())

    def delete(self, predicate: str, **options: Any) -> DeltaWriteResult:
        """As :func:`delete` (`threads`)."""
        return delete(self._table, predicate, **options, **self._where())

    def compact(self, **options: Any) -> DeltaWriteResult:
        """As :func:`compact` (`where`, `min_file_size`, `max_file_size`, `threads`)."""
        return compact(self._table, **options, **self._where())

    def scan(self, **options: Any) -> pa.RecordBatchReader:
        """As :func:`scan` (`columns`, `where`, `version`, `as_of`)."""
        return scan(self._table, **options, **self._where())

    def read(self, **options: Any) -> pa.Table:
        """As :func:`read` (`columns`, `where`, `version`, `as_of`)."""
        return read(self._table, **options, **self._where())

    def vacuum(self, **options: Any) -> DeltaVacuumResult:
        """As :func:`vacuum` (`retention`, `dry_run`, `any_name`, `check_retention`); a
        catalog-managed table is refused, as there."""
        if self._catalog is not None:
            raise InvalidInputError(
                f"Delta table {self._table} is catalog-managed: only its catalog may "
                "allow maintenance such as VACUUM"
            )
        return vacuum(self._table, **options, storage=self._storage)
