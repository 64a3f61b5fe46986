"""Tables: their metadata, writes, row-level operations, maintenance and scans (as
pyiceberg's ``pyiceberg.table``)."""

from __future__ import annotations

import datetime as _dt
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from . import _errors, _floe
from ._args import (
    Duration,
    Progress,
    assignments_text,
    byte_size,
    duration_ms,
    string_options,
    thread_count,
    where_text,
    write_args,
)
from ._arrow import reader_from_capsule, schema_from_capsule, stream_capsule
from ._progress import progress_callback
from ._results import (
    ExpireResult,
    ExplainResult,
    OrphanResult,
    RowLevelResult,
    Snapshot,
    WriteResult,
)
from ._write import OPERATIONS, Committer, WritePlan
from .scan import Scan

if TYPE_CHECKING:
    from .catalog import Catalog

__all__ = ["Table", "apply_transform"]


def apply_transform(schema_json: str, transform: str, values: Any) -> pa.Array:
    """The partition transform `transform` of each of `values`, read as the type of the
    one field of `schema_json` (``Table.column_schema_json``): floe's own kernels, as its
    partitioning applies them. Needs no catalog (an engine's executors call it)."""
    array = values if isinstance(values, (pa.Array, pa.ChunkedArray)) else pa.array(values)
    field_type = schema_from_capsule(
        _floe.arrow_schema_of(schema_json)
    ).field(0).type
    table = pa.table({"value": array.cast(field_type)})
    reader = reader_from_capsule(
        _floe.apply_transform(schema_json, transform, stream_capsule(table))
    )
    result = reader.read_all().column("value")
    return result.chunk(0) if result.num_chunks == 1 else result.combine_chunks()


class Table:
    """A table of a floe catalog. Operations commit at once and return what they did.

    A Table may be shared by Python threads: its operations take turns (each releases
    the GIL while it runs). To write in parallel, use ``threads=`` or one Table per
    thread; concurrent commits refresh and retry as iceberg-java's do.
    """

    def __init__(self, catalog: Catalog, table: Any) -> None:
        self._catalog = catalog
        self._table = table

    def __repr__(self) -> str:
        return f"floe.Table({self.name!r})"

    @property
    def catalog(self) -> Catalog:
        """The catalog the table was loaded from."""
        return self._catalog

    @property
    def name(self) -> str:
        """The table's name, "ns.table"."""
        return str(self._table.identifier)

    @property
    def identifier(self) -> tuple[str, ...]:
        """(namespace levels..., table name), as pyiceberg's ``Table.name()``."""
        return (*self._table.namespace, self._table.name)

    @property
    def metadata(self) -> dict[str, Any]:
        """The table's current metadata JSON, as a dict."""
        return dict(json.loads(self._table.metadata_json()))

    @property
    def metadata_location(self) -> str:
        """The current metadata file (the catalog's pointer)."""
        return str(self._table.metadata_location())

    @property
    def location(self) -> str:
        """The table's base location."""
        return str(self.metadata["location"])

    @property
    def properties(self) -> dict[str, str]:
        """The table properties."""
        return dict(self.metadata.get("properties", {}))

    @property
    def format_version(self) -> int:
        """The Iceberg format version: 1, 2 or 3."""
        return int(self.metadata["format-version"])

    def schema(self) -> pa.Schema:
        """The current schema as a ``pyarrow.Schema`` (field ids in each field's
        ``PARQUET:field_id`` metadata)."""
        return schema_from_capsule(self._table.schema())

    def spec(self) -> dict[str, Any]:
        """The default partition spec (its metadata JSON: ``spec-id`` and ``fields``)."""
        metadata = self.metadata
        for spec in metadata.get("partition-specs", []):
            if spec.get("spec-id") == metadata.get("default-spec-id"):
                return dict(spec)
        return {"spec-id": 0, "fields": []}

    def sort_order(self) -> dict[str, Any]:
        """The default sort order (its metadata JSON: ``order-id`` and ``fields``)."""
        metadata = self.metadata
        for order in metadata.get("sort-orders", []):
            if order.get("order-id") == metadata.get("default-sort-order-id"):
                return dict(order)
        return {"order-id": 0, "fields": []}

    def snapshots(self) -> list[Snapshot]:
        """Every snapshot of the metadata, oldest first."""
        return [Snapshot._of(raw) for raw in self.metadata.get("snapshots", [])]

    def current_snapshot(self) -> Snapshot | None:
        """The current snapshot (None for a table without snapshots)."""
        metadata = self.metadata
        current = metadata.get("current-snapshot-id")
        for raw in metadata.get("snapshots", []):
            if raw.get("snapshot-id") == current:
                return Snapshot._of(raw)
        return None

    def refresh(self) -> Table:
        """Reloads the current metadata from the catalog; returns the table."""
        self._table.refresh()
        return self

    # Writes.

    def explain_write(self, options: Mapping[str, str] | None = None) -> ExplainResult:
        """Would floe write this table (with per-write `options` overlaid on its
        properties) exactly as iceberg-java would? If not, why; if so, how."""
        reasons, plan = self._table.explain_write(string_options(options))
        return ExplainResult(supported=not reasons, reasons=list(reasons), plan=dict(plan))

    def append(
        self,
        data: Any,
        *,
        threads: int | None = None,
        options: Mapping[str, str] | None = None,
        memory_limit: int | str | None = None,
        progress: Progress = None,
        input_clustered: bool = False,
    ) -> WriteResult:
        """Appends the rows of `data` as one snapshot.

        `data` is any Arrow data: a ``pyarrow.Table``, ``RecordBatchReader`` or
        ``RecordBatch``, a polars DataFrame, a DuckDB relation, a pandas DataFrame, or
        anything exporting ``__arrow_c_stream__``. A stream is read once, batch by batch,
        never held whole. Columns are matched by name and cast safely (a missing required
        column, an unknown column or an unsafe cast raises InvalidInputError before any
        file exists).

        - ``threads``: parallel write tasks (1 to 256); on a partitioned table each
          partition is written by one task (Spark's default hash distribution). By default
          (None) one per core, the tasks after the first joining in as the input passes
          128 Ki rows a task, so a small input still makes one task's files.
        - ``options``: per-write options overlaid on the table properties, as
          iceberg-java's write options (``write.parquet.compression-codec``, ...).
        - ``memory_limit``: bytes the tasks may use together (``2**30`` or ``"1G"``); a
          write that needs more fails with advice instead of being killed.
        - ``progress``: a callable given a :class:`floe.WriteProgress` now and then, or
          ``True`` for a progress line on a terminal.
        - ``input_clustered``: the rows arrive grouped by partition (the clustered writer
          is used).

        The eligibility gate runs first: a write floe cannot make exactly as iceberg-java
        would raises WriteDeclinedError (with ``.reasons``) and writes nothing. On any
        failure, or Ctrl-C, every file written is deleted and nothing is committed (except
        after CommitStateUnknownException). An append of no rows commits an empty snapshot,
        as iceberg-java's Spark writer and pyiceberg do.
        """
        return self._write(data, threads, options, memory_limit, progress, input_clustered,
                           dynamic=False)

    def overwrite(
        self,
        data: Any,
        where: str | None = None,
        *,
        threads: int | None = None,
        options: Mapping[str, str] | None = None,
        memory_limit: int | str | None = None,
        progress: Progress = None,
    ) -> WriteResult | RowLevelResult:
        """Replaces rows with the rows of `data` (any Arrow data, as for ``append``).

        - With ``where`` (a filter such as ``"region = 'eu'"``): the rows matching it are
          replaced, as iceberg-java's ``overwriteByRowFilter``. Every data file holding a
          matching row must match wholly (ValidationException naming the file otherwise)
          and every new row must match the filter (InvalidInputError otherwise); either
          fails before anything is committed, and its files are deleted. Returns a
          :class:`RowLevelResult`.
        - Without ``where`` on a **partitioned** table: a dynamic partition overwrite,
          as Spark's Iceberg writer does under ``partitionOverwriteMode=dynamic``: the
          partitions the new rows fall in are replaced, the others kept; no rows replace
          nothing and commit nothing. Returns a :class:`WriteResult`.
        - Without ``where`` on an **unpartitioned** table: every row is replaced (as
          pyiceberg's ``overwrite`` without a filter). Returns a :class:`RowLevelResult`.

        Validated under the ``isolation-level`` option (``serializable`` by default:
        a concurrent commit adding rows that might match fails the overwrite).
        """
        if where is None and self.spec().get("fields"):
            return self._write(data, threads, options, memory_limit, progress, False,
                               dynamic=True)
        filter_text = "true" if where is None else where_text(where, True)
        args = write_args(options, threads, memory_limit)
        return RowLevelResult._of(self._table.overwrite(stream_capsule(data), filter_text, args))

    def _write(
        self,
        data: Any,
        threads: int | None,
        options: Mapping[str, str] | None,
        memory_limit: int | str | None,
        progress: Progress,
        input_clustered: bool,
        dynamic: bool,
    ) -> WriteResult:
        args = write_args(options, threads, memory_limit)
        capsule = stream_capsule(data)
        verb = "overwriting partitions of" if dynamic else "appending to"
        callback, done = progress_callback(progress, f"{verb} {self.name}")
        try:
            raw = self._table.append(capsule, args, bool(input_clustered), dynamic, callback)
        finally:
            done()
        return WriteResult._of(raw)

    def delete(
        self, where: str, *, threads: int | None = None, options: Mapping[str, str] | None = None
    ) -> RowLevelResult:
        """Deletes the rows matching `where`. By copy-on-write (the default): files whose
        rows all match are removed, files with some matching rows are rewritten without
        them. Under ``write.delete.mode=merge-on-read`` (a table property, or in
        `options`): a delete file per file holding a matching row (a deletion vector on
        format v3, a Parquet position delete file on v2), merged with the file's earlier
        deletes, as Spark's merge-on-read DELETE writes them
        (``RowLevelResult.delete_files``). Validated under
        ``write.delete.isolation-level``. No match commits nothing."""
        args = write_args(options, threads, None)
        return RowLevelResult._of(self._table.delete(where_text(where, True), args))

    def update(
        self,
        set: str | Mapping[str, Any],
        where: str,
        *,
        threads: int | None = None,
        options: Mapping[str, str] | None = None,
    ) -> RowLevelResult:
        """Sets columns of the rows matching `where`, as Spark's UPDATE does. `set` is
        ``"col = value, ..."`` where a value is a literal (as in filters; ``NULL`` for
        optional columns) or, for a numeric column, arithmetic of the row's numeric columns
        and numbers (``"price = price * 1.1 + 2, qty = qty - 1"``: ``+ - * /`` and
        parentheses, integer overflow an error, every value computed from the row as it
        was), or a mapping of top-level column names to Python values (str, int, float, bool, None,
        or anything whose ``str()`` is a literal of the filter syntax, such as a
        ``datetime.date``'s ISO text; quoted for you). A value that does not convert to
        its column's type raises ``ValueError`` before anything is written. By
        copy-on-write (``write.update.mode``, the default) each file holding a matching
        row is rewritten whole; by merge-on-read the matching rows' positions go into
        delete files and only the updated rows are written anew. On format v3 an updated
        row keeps its ``_row_id`` and gets the new sequence number. Validated under
        ``write.update.isolation-level``. No match commits nothing;
        ``RowLevelResult.rows_updated`` counts the rows changed."""
        args = write_args(options, threads, None)
        updated = self._table.update(assignments_text(set), where_text(where, True), args)
        return RowLevelResult._of(updated)

    def upsert(
        self,
        data: Any,
        join_cols: str | Sequence[str] | None = None,
        when_matched_update_all: bool = True,
        when_not_matched_insert_all: bool = True,
        *,
        threads: int | None = None,
        options: Mapping[str, str] | None = None,
    ) -> RowLevelResult:
        """Replaces the rows whose key `data` has and inserts its other rows, as Spark's
        ``MERGE INTO t USING data ON <keys equal> WHEN MATCHED THEN UPDATE SET * WHEN NOT
        MATCHED THEN INSERT *`` (pyiceberg's ``upsert`` with its defaults, except that a
        matched row is replaced even when its values are unchanged, as MERGE does).

        `data` is any Arrow data (as for ``append``), loaded whole. `join_cols` names the
        key columns (default: the table's identifier fields): top-level, primitive, not
        floating-point. A key with a NULL part matches nothing (the row is inserted). Two
        rows of `data` with one key raise ``InvalidInputError`` naming it, before
        anything is written. By copy-on-write (``write.merge.mode``, the default) the
        files holding replaced rows are rewritten; by merge-on-read the replaced rows'
        positions go into delete files. On format v3 a replaced row's successor keeps its
        ``_row_id``. Validated under ``write.merge.isolation-level``. Returns a
        :class:`RowLevelResult` whose ``rows_updated`` and ``rows_inserted`` count the
        rows replaced and inserted. As pyiceberg's, ``when_matched_update_all=False``
        keeps the matched rows as they are and ``when_not_matched_insert_all=False``
        leaves the other input rows out (not both: ``InvalidInputError``). Nothing to
        write (empty `data`, say) commits nothing."""
        if join_cols is None:
            keys = []
        elif isinstance(join_cols, str):
            keys = [join_cols]
        elif isinstance(join_cols, Iterable) and all(isinstance(c, str) for c in join_cols):
            keys = list(join_cols)
        else:
            raise TypeError(
                "join_cols must be a column name or a sequence of column names, not "
                f"{type(join_cols).__name__}"
            )
        args = write_args(options, threads, None)
        return RowLevelResult._of(self._table.upsert(
            stream_capsule(data), keys, bool(when_matched_update_all),
            bool(when_not_matched_insert_all), args))

    def rewrite(
        self,
        where: str | None = None,
        *,
        min_input_files: int = 5,
        options: Mapping[str, str] | None = None,
        remove_dangling_deletes: bool = False,
    ) -> RowLevelResult:
        """Compacts small (or oversized) data files as Spark's ``rewrite_data_files``
        does by default (bin-pack) in the partitions of the files matching `where` (all
        when None). Rows never change; a "replace" snapshot. Nothing to do commits
        nothing. The new files take the starting snapshot's data sequence number, and
        only a delete committed meanwhile for a file being replaced fails the rewrite.

        ``remove_dangling_deletes``, after a rewrite that committed (as Spark's
        ``remove-dangling-deletes`` option), removes in a second "replace" snapshot the
        delete files that can delete nothing any more: those of partitions without live
        data files, position deletes older than every live data file of their
        partition, equality deletes not newer, and deletion vectors of data files no
        longer live. ``delete_files_removed`` counts them with the deletion vectors of
        the replaced files, as Spark's ``removed_delete_files_count``; ``commit`` is the
        last snapshot made."""
        if isinstance(min_input_files, bool) or not isinstance(min_input_files, int):
            raise TypeError("min_input_files must be an int")
        if not isinstance(remove_dangling_deletes, bool):
            raise TypeError("remove_dangling_deletes must be a bool")
        args = write_args(options, 1, None)
        return RowLevelResult._of(
            self._table.rewrite(
                where_text(where, False), min_input_files, args, remove_dangling_deletes
            )
        )

    def rewrite_position_deletes(
        self,
        where: str | None = None,
        *,
        min_input_files: int = 5,
        rewrite_all: bool = False,
        options: Mapping[str, str] | None = None,
    ) -> RowLevelResult:
        """Rewrites position delete files as Spark's ``rewrite_position_delete_files``
        does (bin-pack), in the partitions `where` might select (all when None; only its
        partition part applies). Per partition, the delete files under 75% or over 180%
        of ``write.delete.target-file-size-bytes`` (64 MiB unless set, here or in
        `options`) are rewritten together once there are ``min_input_files`` of them or
        they hold more than the target; ``rewrite_all`` takes every one. Deletes of data
        files no longer live are dropped; the rest are written one delete file per data
        file: Parquet position delete files on format v2, deletion vectors on v3 (where
        nothing is done once every position delete file is a vector). The new files take
        the newest data sequence number of those they replace, in one "replace"
        snapshot that fails if a concurrent commit removed one of them. Rows never
        change; nothing to do commits nothing. ``delete_files_removed`` counts the files
        rewritten (Spark's ``rewritten_delete_files_count``), ``delete_files`` those
        written (``added_delete_files_count``)."""
        if isinstance(min_input_files, bool) or not isinstance(min_input_files, int):
            raise TypeError("min_input_files must be an int")
        if not isinstance(rewrite_all, bool):
            raise TypeError("rewrite_all must be a bool")
        args = write_args(options, 1, None)
        return RowLevelResult._of(
            self._table.rewrite_position_deletes(
                where_text(where, False), min_input_files, rewrite_all, args
            )
        )

    # Maintenance.

    def expire_snapshots(
        self,
        *,
        older_than: Duration | None = None,
        retain_last: int | None = None,
        snapshot_ids: Iterable[int] = (),
        clean_files: bool = True,
        dry_run: bool = False,
    ) -> ExpireResult:
        """Expires snapshots as iceberg-java's ExpireSnapshots does: older than
        `older_than` (default: history.expire.max-snapshot-age-ms, 5 days) while each
        branch keeps `retain_last` (default: history.expire.min-snapshots-to-keep, 1), plus
        the `snapshot_ids` named; then deletes the files only they reached, and only the
        table's own."""
        older_ms = None if older_than is None else duration_ms(older_than, "older_than")
        raw = self._table.expire_snapshots(
            older_ms, retain_last, [int(i) for i in snapshot_ids], bool(clean_files),
            bool(dry_run)
        )
        return ExpireResult(**raw)

    def remove_orphans(
        self,
        *,
        older_than: Duration = "3d",
        dry_run: bool = False,
        any_name: bool = False,
        no_concurrent_writes: bool = False,
    ) -> OrphanResult:
        """Deletes the files in the table's data and metadata folders that nothing
        references and that are older than `older_than` (default 3 days, protecting
        commits in flight); never a file that is not the table's own. ``any_name`` also
        takes files whose names Iceberg writers never give.

        An `older_than` under 24 hours is refused (:class:`InvalidInputError`), as
        iceberg-java's ``remove_orphan_files`` refuses it: a running write's files are
        unreferenced until it commits. Pass ``no_concurrent_writes=True`` to vouch that no
        write to the table is running."""
        raw = self._table.remove_orphans(
            duration_ms(older_than, "older_than"),
            bool(dry_run),
            bool(any_name),
            bool(no_concurrent_writes),
        )
        return OrphanResult(**raw)

    # Reads.

    def scan(
        self,
        columns: Sequence[str] | None = None,
        where: str | None = None,
        snapshot_id: int | None = None,
        limit: int | None = None,
        *,
        as_of: int | _dt.datetime | None = None,
        files: Sequence[str] | None = None,
        splits: Sequence[tuple[str, int, int]] | None = None,
    ) -> Scan:
        """A scan of the current snapshot (or `snapshot_id`, or the one current at
        `as_of`: ms since the epoch or a datetime).

        ``columns`` are full dotted names (``items.price`` reads only that leaf), or
        Iceberg's metadata columns: ``_file`` (the row's data file), ``_pos`` (its
        position in that file), ``_spec_id``, ``_partition`` (the file's partition tuple
        in the table's partition type, a struct; null on an unpartitioned table),
        ``_deleted`` (asking for it returns the rows delete files delete too, marked
        true), and on format-v3 tables ``_row_id`` and
        ``_last_updated_sequence_number`` (row lineage, as iceberg-java reads it); ``where``
        is a filter (``"region IN ('eu', 'us') AND ts >= '2024-01-01T00:00:00Z'"``) that
        prunes manifests, files and row groups and is applied to the rows; it may name the
        metadata columns too (``"_row_id = 42"``, ``"_partition.region = 'eu'"``,
        ``"_deleted = true"`` for the deleted rows), as Spark's filters do, which prune
        nothing (``delete``, ``overwrite`` and ``rewrite`` take table columns only); ``limit`` caps
        the rows returned. ``files`` reads only those data files of the snapshot (paths
        as ``plan_files()`` gives them): how an engine's task reads its share of a scan
        planned elsewhere. ``splits`` reads byte ranges of data files instead, each a
        ``(path, start, length)``: the row groups whose midpoint lies in the range (as
        iceberg-java's readers read a split of a file; ``plan_files()`` gives each file's
        ``split_offsets``, the row groups' starts).
        """
        if files is not None and (
            isinstance(files, str) or not all(isinstance(f, str) for f in files)
        ):
            raise TypeError("files must be a sequence of data file paths")
        if splits is not None and not all(
            isinstance(s, tuple) and len(s) == 3 and isinstance(s[0], str)
            and all(isinstance(n, int) and not isinstance(n, bool) for n in s[1:])
            for s in splits
        ):
            raise TypeError("splits must be a sequence of (path, start, length) tuples")
        if columns is not None and (
            isinstance(columns, str) or not all(isinstance(c, str) for c in columns)
        ):
            raise TypeError("columns must be a sequence of column names")
        if columns is not None and len(list(columns)) == 0:
            raise _errors.InvalidInputError(
                "columns=[] selects no column; pass None (the default) for every column"
            )
        if isinstance(as_of, _dt.datetime):
            as_of = int(as_of.timestamp() * 1000)
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int)):
            raise TypeError("limit must be an int")
        if limit is not None and limit < 0:
            raise ValueError("limit must be non-negative")
        return Scan(
            self,
            self._table.scan(list(columns or []), where_text(where, False), snapshot_id, as_of,
                             limit, list(files or []), list(splits or [])),
        )

    def apply_transform(self, column: str, transform: str, values: Any) -> pa.Array:
        """The partition transform `transform` (``"bucket[16]"``, ``"day"``,
        ``"truncate[4]"``, ...) of each of `values` (a ``pyarrow.Array`` or anything
        ``pyarrow.array`` takes), read as the type of the table's `column` (a full
        dotted name): exactly what floe's partitioning computes, so equal results mean
        one partition. Nulls stay null."""
        return apply_transform(self.column_schema_json(column), transform, values)

    def column_schema_json(self, column: str) -> str:
        """An Iceberg schema (JSON) of the one field `column` (a full dotted name) of the
        current schema: what :func:`floe.apply_transform` takes."""
        schemas = {s["schema-id"]: s for s in self.metadata["schemas"]}
        node: dict[str, Any] = schemas[self.metadata["current-schema-id"]]
        field: dict[str, Any] | None = None
        for part in column.split("."):
            fields = node.get("fields") if isinstance(node, dict) else None
            match = [f for f in fields or [] if f["name"] == part]
            if not match:
                raise _errors.InvalidInputError(
                    f"no column '{column}' in the schema of table {self.name}"
                )
            field = match[0]
            node = field["type"] if isinstance(field["type"], dict) else {}
        assert field is not None
        one = {"type": "struct", "schema-id": 0,
               "fields": [{**field, "id": 1, "name": "value", "required": False}]}
        return json.dumps(one)

    def to_arrow(self) -> pa.Table:
        """Every row of the current snapshot as a ``pyarrow.Table``."""
        return self.scan().to_arrow()

    # The split write.

    def plan_write(
        self,
        options: Mapping[str, str] | None = None,
        operation: str = "append",
        *,
        tasks: int = 1,
        memory_limit: int | str | None = None,
        input_clustered: bool = False,
        where: str | None = None,
    ) -> WritePlan:
        """Plans a split write: refreshes the table, runs the eligibility gate
        (WriteDeclinedError with ``.reasons`` when it declines, nothing written) and
        returns the :class:`WritePlan` the tasks run (``floe.WriteTask``).

        ``operation`` is ``"append"``, ``"dynamic-overwrite"`` (the partitions the new
        rows fall in are replaced) or ``"overwrite"`` with ``where``: the rows matching
        the filter are replaced, every task checks that each row it writes matches it
        (InvalidInputError otherwise), and a data file holding both matching and other
        rows fails the plan (ValidationException) before anything is written.
        ``tasks`` and ``memory_limit`` size the tasks' memory budgets: the number that
        will run at once, and the bytes they may use together.
        """
        if operation not in OPERATIONS:
            raise ValueError(f"operation must be one of {OPERATIONS}, not {operation!r}")
        if (operation == "overwrite") != (where is not None):
            raise ValueError("where= goes with operation='overwrite', and only with it")
        data = self._table.plan_write(
            string_options(options), thread_count(tasks), byte_size(memory_limit, "memory_limit"),
            bool(input_clustered), where_text(where, True) if where is not None else ""
        )
        return WritePlan(bytes(data), operation)

    def new_committer(self, plan: WritePlan, *, abort_only: bool = False) -> Committer:
        """The one committer of `plan`'s write, on the driver (see ``floe.Committer``).

        With ``abort_only`` it can only ``abort()`` (``commit()`` raises): what a job
        that failed needs, made without checking anything the commit would (an overwrite
        by filter re-checks the files its filter matches when its committer is made, and
        that check may be why the job failed)."""
        if not isinstance(plan, WritePlan):
            raise TypeError(f"plan must be a floe.WritePlan, not {type(plan).__name__}")
        operation = "abort-only" if abort_only else plan.operation
        return Committer(
            self, self._table.new_committer(plan.to_bytes(), operation), plan.operation
        )
