"""floe as a Spark data source: Spark's executors write with floe's tasks, the driver
commits once.

Spark 4's Python Data Source API has the split write's shape: ``writer()`` runs once on
the driver, ``write()`` once per Spark task on the executors (each returning a commit
message), ``commit(messages)`` or ``abort(messages)`` once on the driver. floe's data
source maps it one to one (DESIGN.md, "Spark")::

    import floe.spark
    floe.spark.register(spark)
    df.write.format("floe").mode("append").save("db.events")
    floe.spark.write(df, "db.events")   # the same, with the table's distribution
    spark.read.format("floe").load("db.events")

Options (all strings, as ``.option(key, value)``):

- the table: ``.save("db.t")`` / ``.load("db.t")``, or ``table``;
- the catalog, as the ``floe`` command takes it: ``catalog`` (a URI), ``warehouse``,
  ``catalog-name`` and ``catalog.<property>`` (a catalog property such as a REST
  catalog's ``token``; values are never printed). Without them: ``$FLOE_CATALOG``,
  ``$FLOE_WAREHOUSE``, else ``./warehouse`` on the driver;
- writes: ``write.*`` table properties and ``isolation-level``, overlaid on the table's
  properties for this write as iceberg-java's write options are;
  ``snapshot-property.<key>`` adds ``<key>`` to the snapshot summary;
- reads: ``snapshot-id``, ``as-of-timestamp`` (ms since the epoch) and ``where`` (a floe
  filter, applied by floe's scan). On pyspark 4.1 and later, with
  ``spark.sql.python.filterPushdown.enabled`` and the read option ``push-filters=true``,
  the filters Spark pushes are turned into floe's filter too
  (``FloeReader.take_filters``: load a DataFrame for each query then, as it says why);
  pyspark 4.0 pushes none. Files are split at their row groups and packed into Spark
  partitions as iceberg-java's Spark reader does (``split-size``, ``lookback``,
  ``file-open-cost``, the table's ``read.split.*``, and its adaptive split size);
- ``where`` with ``mode("overwrite")``: the rows matching the filter are replaced
  (iceberg-java's overwriteByRowFilter); every new row must match it, and a data file
  holding both matching and other rows fails the write on the driver.

``mode("append")`` appends; ``mode("overwrite")`` replaces the partitions the new rows
fall in (Spark's Iceberg writer under ``partitionOverwriteMode=dynamic``; on an
unpartitioned table that is every row, and a DataFrame of no rows commits nothing, as
there). A write the eligibility gate declines raises on the driver before any task
runs, with the gate's reasons; nothing is written.
"""

from __future__ import annotations

import datetime
import decimal
import itertools
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
from pyspark import TaskContext
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.datasource import (
    DataSource,
    DataSourceArrowWriter,
    DataSourceReader,
    DataSourceStreamWriter,
    InputPartition,
    WriterCommitMessage,
)
from pyspark.sql.pandas.types import from_arrow_schema, to_arrow_schema
from pyspark.sql.types import (
    BooleanType,
    ByteType,
    DataType,
    DateType,
    DecimalType,
    IntegerType,
    LongType,
    ShortType,
    StringType,
    StructType,
    TimestampNTZType,
    TimestampType,
)

from ._catalog import Catalog, Table
from ._errors import FloeError, InvalidInputError
from ._write import WritePlan, WriteTask

__all__ = ["FloeDataSource", "FloeCommitMessage", "FloeReader", "FloeFilteringReader",
           "register", "write", "distribute"]

#: The summary keys iceberg-java's Spark writer records (SparkWrite): the application,
#: and for a streaming write the query and its epoch (batch id).
APP_ID_PROPERTY = "spark.app.id"
QUERY_ID_PROPERTY = "spark.sql.streaming.queryId"
EPOCH_ID_PROPERTY = "spark.sql.streaming.epochId"

_CATALOG_KEYS = ("catalog", "warehouse", "catalog-name")
_READ_KEYS = ("snapshot-id", "as-of-timestamp", "where", "split-size", "lookback",
              "file-open-cost", "push-filters")
#: How iceberg-java's Spark reader packs files into tasks: (read option, table property,
#: default).
_SPLIT_SIZE = ("split-size", "read.split.target-size", 134217728)
_LOOKBACK = ("lookback", "read.split.planning-lookback", 10)
_FILE_OPEN_COST = ("file-open-cost", "read.split.open-file-cost", 4194304)
_WRITE_KEYS = ("isolation-level",)
#: Spark's own options, which reach the data source too (lowercased).
_SPARK_KEYS = ("checkpointlocation",)
#: pyspark 4.1's setting that hands a Python data source reader Spark's filters.
_PUSHDOWN_CONF = "spark.sql.python.filterPushdown.enabled"
#: The local property Spark's micro-batch execution gives every task of a batch.
_BATCH_ID_KEY = "streaming.sql.batchId"


def register(spark: SparkSession) -> None:
    """Registers floe's data source with `spark` as format ``"floe"``.

    Prefer this to ``spark.dataSource.register(FloeDataSource)``: the class registered
    here knows the application's id, which every snapshot it commits records
    (``spark.app.id``, as Spark's Iceberg writer records it); Spark tells a Python data
    source's driver-side worker nothing of the kind. It also knows whether the session
    pushes filters to Python data sources (pyspark 4.1's
    ``spark.sql.python.filterPushdown.enabled``, as it is now: set it before
    registering), and only then reads with a reader that takes them (pyspark 4.1 refuses
    a reader that implements ``pushFilters`` while the setting is off)."""
    bound = type(
        "FloeDataSource",
        (FloeDataSource,),
        {
            "_app_id": str(spark.sparkContext.applicationId),
            "_parallelism": max(
                int(spark.sparkContext.defaultParallelism),
                int(spark.conf.get("spark.sql.shuffle.partitions") or "200"),
            ),
            "_pushdown": (spark.conf.get(_PUSHDOWN_CONF, "false") or "").lower() == "true",
            "__module__": __name__,
        },
    )
    spark.dataSource.register(bound)


@dataclass(frozen=True)
class _Target:
    """The table a data source instance reads or writes, and how to reach its catalog.
    Picklable; its repr never shows catalog property values."""

    identifier: str
    uri: str | None
    warehouse: str | None
    catalog_name: str | None
    properties: tuple[tuple[str, str], ...]

    def catalog(self) -> Catalog:
        return Catalog(self.uri, self.warehouse, self.catalog_name, **dict(self.properties))

    def load(self) -> Table:
        return self.catalog().load_table(self.identifier)

    def __repr__(self) -> str:
        keys = ", ".join(key for key, _ in self.properties)
        return f"_Target({self.identifier!r}, catalog properties: [{keys}])"


@dataclass(frozen=True)
class _Options:
    target: _Target
    write: dict[str, str]
    summary: dict[str, str]
    read: dict[str, str]


def _parse_options(options: Mapping[str, str]) -> _Options:
    identifier = options.get("table") or options.get("path")
    if not identifier:
        raise InvalidInputError(
            "floe's data source needs a table: .save('db.table'), .load('db.table') or "
            ".option('table', 'db.table')"
        )
    write: dict[str, str] = {}
    summary: dict[str, str] = {}
    read: dict[str, str] = {}
    properties: list[tuple[str, str]] = []
    for key, value in options.items():
        if key in ("table", "path") or key in _CATALOG_KEYS or key in _SPARK_KEYS:
            continue
        if key.startswith("catalog."):
            properties.append((key[len("catalog."):], value))
        elif key.startswith("write.") or key in _WRITE_KEYS:
            write[key] = value
        elif key.startswith("snapshot-property."):
            summary[key[len("snapshot-property."):]] = value
        elif key in _READ_KEYS:
            read[key] = value
        else:
            raise InvalidInputError(
                f"floe's data source has no option '{key}' (it takes table, catalog, "
                "warehouse, catalog-name, catalog.<property>, write.<property>, "
                "isolation-level, snapshot-property.<key>, snapshot-id, as-of-timestamp, "
                "where, split-size, lookback, file-open-cost and push-filters)"
            )
    warehouse = options.get("warehouse")
    if warehouse and "://" not in warehouse and not warehouse.startswith("file:"):
        warehouse = os.path.abspath(warehouse)  # the driver's, as the tasks never need it
    target = _Target(
        identifier=str(identifier),
        uri=options.get("catalog"),
        warehouse=warehouse,
        catalog_name=options.get("catalog-name"),
        properties=tuple(sorted(properties)),
    )
    return _Options(target, write, summary, read)


@dataclass(frozen=True)
class FloeCommitMessage(WriterCommitMessage):
    """What one Spark task hands the driver: floe's TaskCommit bytes (the files written
    and every location opened) and who wrote them."""

    task_commit: bytes
    partition_id: int
    attempt_id: int
    rows: int
    #: The streaming query's id (Spark's local property), for a streaming write.
    query_id: str | None = None
    #: The micro-batch (Spark's batch id) whose plan the task wrote with, for a stream.
    epoch: int | None = None


class FloeDataSource(DataSource):
    """The data source ``"floe"`` (register it with :func:`register`)."""

    #: The Spark application's id, set by :func:`register` (None when registered directly).
    _app_id: str | None = None
    #: The read parallelism iceberg-java's Spark reader adapts its split size to (the
    #: larger of the default parallelism and spark.sql.shuffle.partitions), as it was
    #: when :func:`register` ran (None when registered directly: no adaptation).
    _parallelism: int | None = None
    #: Whether the session pushes filters to Python data sources (pyspark 4.1+), as it
    #: did when :func:`register` ran: reads then take them (FloeFilteringReader).
    _pushdown: bool = False

    @classmethod
    def name(cls) -> str:
        return "floe"

    def __init__(self, options: dict[str, str]) -> None:
        super().__init__(options)
        self._parsed = _parse_options(options)

    def schema(self) -> StructType:
        table = self._parsed.target.load()
        return _spark_schema(_read_schema(table, self._parsed.read))

    def writer(self, schema: StructType, overwrite: bool) -> FloeBatchWriter:
        return FloeBatchWriter(self._parsed, schema, overwrite, self._app_id)

    def streamWriter(self, schema: StructType, overwrite: bool) -> FloeStreamWriter:
        if overwrite:
            raise InvalidInputError(
                "floe's stream writer appends (outputMode 'append'); it cannot overwrite"
            )
        return FloeStreamWriter(self._parsed, schema, False, self._app_id)

    def reader(self, schema: StructType) -> FloeReader:
        reader = FloeFilteringReader if self._pushdown else FloeReader
        return reader(self._parsed, schema, self._parallelism)


def _plan(parsed: _Options, schema: StructType, overwrite: bool) -> WritePlan:
    """Plans the write on the driver: the gate runs here (a decline raises with its
    reasons before any task runs), and the Spark schema is conformed to the table's the
    way each task will conform its rows, so that a missing required column or an unsafe
    cast fails here too, with nothing written."""
    table = parsed.target.load()
    where = parsed.read.get("where")
    if where is not None and not overwrite:
        raise InvalidInputError(
            "option 'where' replaces the rows matching it: write with mode('overwrite')"
        )
    if where is not None:
        plan = table.plan_write(parsed.write, "overwrite", where=where)
    else:
        plan = table.plan_write(parsed.write, "dynamic-overwrite" if overwrite else "append")
    empty = to_arrow_schema(schema).empty_table()
    probe = WriteTask(plan, 0, 0)
    try:
        probe.write(empty)  # no rows: no file is opened
    finally:
        probe.abort()
    return plan


def _task_ids() -> tuple[int, int]:
    """Spark's partition id, and its task attempt id, unique across the application: a
    retried or speculative attempt, or a later micro-batch, never reuses a file name."""
    context = TaskContext.get()
    if context is None:
        raise RuntimeError("floe's Spark writer runs inside a Spark task")
    return context.partitionId(), context.taskAttemptId()


def _epoch_plan(plan: WritePlan, epoch: int) -> WritePlan:
    """The plan of one micro-batch: the query's plan with an operation id of the batch's
    own (WritePlan.derive), so that each batch's commit finds exactly its own tasks' files
    and never needs to read what earlier batches committed."""
    return plan.derive(f"epoch-{epoch}")


def _write_task(
    plan: WritePlan, batches: Iterator[pa.RecordBatch], streaming: bool = False
) -> FloeCommitMessage:
    partition_id, attempt_id = _task_ids()
    context = TaskContext.get()
    query_id = context.getLocalProperty("sql.streaming.queryId") if context else None
    epoch = None
    if streaming:
        batch = context.getLocalProperty(_BATCH_ID_KEY) if context else None
        if batch is None:
            raise RuntimeError(
                f"floe's stream writer runs in a micro-batch, but Spark set no {_BATCH_ID_KEY}"
            )
        epoch = int(batch)
        plan = _epoch_plan(plan, epoch)
    rows = 0
    # A task owns its files until finish(): an exception, or the Python worker being
    # stopped, deletes them (a SIGKILL leaves them to the driver's sweep by operation id).
    batches = iter(batches)
    with WriteTask(plan, partition_id, attempt_id) as task:
        first = next(batches, None)
        if first is not None:
            reader = pa.RecordBatchReader.from_batches(
                first.schema, itertools.chain([first], batches)
            )
            rows = task.write(reader)
        message = task.finish()
    return FloeCommitMessage(message, partition_id, attempt_id, rows, query_id, epoch)


class FloeBatchWriter(DataSourceArrowWriter):
    """A batch write: planned once on the driver, one floe WriteTask per Spark task,
    one commit on the driver. Pickled to the executors with the plan inside."""

    def __init__(
        self, parsed: _Options, schema: StructType, overwrite: bool, app_id: str | None
    ) -> None:
        self._parsed = parsed
        self._plan = _plan(parsed, schema, overwrite)
        self._app_id = app_id

    @property
    def plan(self) -> WritePlan:
        return self._plan

    def write(self, iterator: Iterator[pa.RecordBatch]) -> FloeCommitMessage:
        return _write_task(self._plan, iterator)

    def _committer(
        self,
        messages: Sequence[WriterCommitMessage | None],
        abort_only: bool = False,
        plan: WritePlan | None = None,
    ) -> Any:
        table = self._parsed.target.load()
        committer = table.new_committer(plan or self._plan, abort_only=abort_only)
        for message in messages:
            if isinstance(message, FloeCommitMessage):
                committer.add(message.task_commit)
        return committer

    def commit(self, messages: list[WriterCommitMessage | None]) -> None:
        committer = self._committer(messages)
        try:
            _summarize(committer, self._parsed.summary, self._app_id)
        except BaseException:
            committer.abort()
            raise
        committer.commit()

    def abort(self, messages: list[WriterCommitMessage | None]) -> None:
        self._committer(messages, abort_only=True).abort()


class FloeStreamWriter(FloeBatchWriter, DataSourceStreamWriter):
    """A streaming write: one snapshot per micro-batch, exactly once across restarts.

    Each commit records the query id and the epoch (batch id) in the snapshot summary,
    as Iceberg's own Spark streaming sink does; a replayed epoch that the table already
    holds commits nothing and deletes the replay's files. One plan serves the query;
    task attempt ids are unique across the application, so batches never share a file
    name; each batch's tasks write with a plan of the batch's own operation id
    (WritePlan.derive), which its commit or abort looks for.
    """

    def write(self, iterator: Iterator[pa.RecordBatch]) -> FloeCommitMessage:
        return _write_task(self._plan, iterator, streaming=True)

    def commit(  # type: ignore[override]
        self, messages: list[WriterCommitMessage | None], batchId: int
    ) -> None:
        ours = [m for m in messages if isinstance(m, FloeCommitMessage)]
        query_ids = {m.query_id for m in ours if m.query_id}
        if len(query_ids) > 1:
            raise InvalidInputError(f"micro-batch {batchId} has tasks of several queries")
        strays = sorted({m.epoch for m in ours if m.epoch != batchId}, key=str)
        if strays:
            raise InvalidInputError(
                f"micro-batch {batchId} was handed task messages of micro-batch {strays[0]}"
            )
        query_id = query_ids.pop() if query_ids else None
        committer = self._committer(messages, plan=_epoch_plan(self._plan, batchId))
        try:
            table = self._parsed.target.load()
            if query_id is not None and _epoch_committed(table, query_id, batchId):
                committer.abort()  # a replay of a committed epoch: its rows are there
                return
            summary = dict(self._parsed.summary)
            if query_id is not None:
                summary[QUERY_ID_PROPERTY] = query_id
                summary[EPOCH_ID_PROPERTY] = str(batchId)
            _summarize(committer, summary, self._app_id)
        except BaseException:
            committer.abort()
            raise
        committer.commit()

    def abort(  # type: ignore[override]
        self, messages: list[WriterCommitMessage | None], batchId: int
    ) -> None:
        self._committer(messages, abort_only=True, plan=_epoch_plan(self._plan, batchId)).abort()


def _epoch_committed(table: Table, query_id: str, epoch: int) -> bool:
    """True when a snapshot of the table's current history records this query's epoch
    (iceberg-java's streaming sink looks the same way, newest first)."""
    by_id = {s.snapshot_id: s for s in table.snapshots()}
    snapshot = table.current_snapshot()
    while snapshot is not None:
        summary = snapshot.summary
        if summary.get(QUERY_ID_PROPERTY) == query_id:
            return int(summary.get(EPOCH_ID_PROPERTY, "-1")) >= epoch
        parent = snapshot.parent_snapshot_id
        snapshot = by_id.get(parent) if parent is not None else None
    return False


def _summarize(committer: Any, summary: Mapping[str, str], app_id: str | None) -> None:
    for key, value in summary.items():
        committer.set_summary_property(key, value)
    if app_id:
        committer.set_summary_property(APP_ID_PROPERTY, app_id)


# ---- Reading --------------------------------------------------------------------------


def _read_schema(table: Table, read: Mapping[str, str]) -> pa.Schema:
    scan = _scan(table, read, files=None, snapshot_id=None)
    return scan.schema()


def _spark_schema(schema: pa.Schema) -> StructType:
    return from_arrow_schema(schema, prefer_timestamp_ntz=True)


def _scan(
    table: Table, read: Mapping[str, str], files: list[str] | None, snapshot_id: int | None,
    splits: list[tuple[str, int, int]] | None = None,
) -> Any:
    def number(key: str) -> int | None:
        text = read.get(key)
        if text is None:
            return None
        try:
            return int(text)
        except ValueError:
            raise InvalidInputError(f"option '{key}' must be an integer, not {text!r}")

    if snapshot_id is None:
        snapshot_id = number("snapshot-id")
    return table.scan(
        where=read.get("where"), snapshot_id=snapshot_id, as_of=number("as-of-timestamp")
        if snapshot_id is None else None, files=files, splits=splits,
    )


@dataclass(frozen=True)
class _FilesPartition(InputPartition):
    """One Spark input partition: data files of the snapshot, or byte ranges of them
    (path, start, length), read in order (none: an empty table)."""

    splits: tuple[tuple[str, int, int], ...]


def _split_setting(table: Table, read: Mapping[str, str], setting: tuple[str, str, int]) -> int:
    option, prop, default = setting
    text = read.get(option, table.properties.get(prop))
    if text is None:
        return default
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value <= 0:
        source = f"option '{option}'" if option in read else f"table property '{prop}'"
        raise InvalidInputError(f"{source} must be a positive integer")
    return value


def _split_size(table: Table, read: Mapping[str, str], files: Sequence[Mapping[str, Any]],
                parallelism: int | None) -> int:
    """The split size, adapted as iceberg-java's Spark reader adapts it (SparkScan's
    adjustSplitSize, with TableScanUtil.adjustSplitSize) unless the read names one or the
    table turns it off: when the files would make fewer splits than the read's
    parallelism, the split size shrinks to the scan's size over the parallelism, but not
    below 16 MiB (or the configured size if that is smaller)."""
    size = _split_setting(table, read, _SPLIT_SIZE)
    adaptive = table.properties.get("read.split.adaptive-size.enabled", "true").lower()
    if _SPLIT_SIZE[0] in read or adaptive != "true" or not parallelism:
        return size
    scan_size = sum(int(f["file_size_in_bytes"]) for f in files)
    split_count = -(-scan_size // size)
    if split_count >= parallelism:
        return size
    return max(scan_size // parallelism, min(16 * 1024 * 1024, size))


# One item a Spark partition reads: a data file's path and a byte range of it.
_Split = tuple[str, int, int]


def _splits(file: Mapping[str, Any], target: int) -> list[tuple[_Split, int, int]]:
    """A planned file as iceberg-java's split planning cuts it (BaseContentScanTask.split):
    at each of its split offsets (one split per row group) when they are strictly
    ascending and below the file's size, else into ranges of `target` bytes. Each split
    with its weight in bytes (its length plus the bytes of its delete files) and the files
    it opens."""
    path = str(file["file_path"])
    size = int(file["file_size_in_bytes"])
    deletes = int(file.get("delete_files_size", 0))
    opened = 1 + len(file.get("delete_files", ()))
    offsets = [int(o) for o in file.get("split_offsets") or ()]
    valid = bool(offsets) and offsets[-1] < size and all(
        a < b for a, b in zip(offsets, offsets[1:]))
    if size <= 0:
        # A size the manifest does not give: one split over the whole file, so that no row
        # group is left unread, weighing what its open costs.
        return [((path, 0, 1 << 62), deletes, opened)]
    if valid:
        ends = offsets[1:] + [size]
        ranges = [(start, end - start) for start, end in zip(offsets, ends)]
    else:
        ranges = [(start, min(target, size - start)) for start in range(0, size, target)]
    return [((path, start, length), length + deletes, opened) for start, length in ranges]


def _pack(files: Sequence[Mapping[str, Any]], target: int, lookback: int,
          open_cost: int) -> list[tuple[_Split, ...]]:
    """Files split and packed into tasks as iceberg-java's Spark reader does
    (TableScanUtil.planTaskGroups with BinPacking's PackingIterable, largest bin first):
    each file is cut into splits (`_splits`); a split weighs its bytes or its open cost per
    file opened, whichever is more; it joins the first open bin it fits in; when none
    has room a new bin opens, and past `lookback` open bins the heaviest is closed (the
    first of equals). Adjacent splits of one file in a bin merge into one range."""
    bins: list[tuple[int, list[_Split]]] = []
    closed: list[list[_Split]] = []
    for file in files:
        for split, size, opened in _splits(file, target):
            weight = max(size, opened * open_cost)
            for k, (total, items) in enumerate(bins):
                if total + weight <= target:
                    bins[k] = (total + weight, items + [split])
                    break
            else:
                bins.append((weight, [split]))
                if len(bins) > lookback:
                    heaviest = max(range(len(bins)), key=lambda k: (bins[k][0], -k))
                    closed.append(bins.pop(heaviest)[1])
    closed.extend(items for _, items in bins)
    return [tuple(_merge(items)) for items in closed]


def _merge(items: list[_Split]) -> list[_Split]:
    """Adjacent splits of one file merged (iceberg-java's TableScanUtil.mergeTasks)."""
    merged: list[_Split] = []
    for path, start, length in items:
        if merged:
            last_path, last_start, last_length = merged[-1]
            if last_path == path and last_start + last_length == start:
                merged[-1] = (path, last_start, last_length + length)
                continue
        merged.append((path, start, length))
    return merged


# Spark's pushed filters (pyspark 4.1's pyspark.sql.datasource.Filter classes, named here
# by class name so that this module imports on pyspark 4.0 too), as floe filter text.
_COMPARISONS = {"EqualTo": "=", "GreaterThan": ">", "GreaterThanOrEqual": ">=",
                "LessThan": "<", "LessThanOrEqual": "<="}
_INTEGERS = (ByteType, ShortType, IntegerType, LongType)


def _column_type(schema: StructType, path: Sequence[str]) -> DataType | None:
    """The type of the (nested) column `path` of `schema`, or None."""
    current: DataType = schema
    for part in path:
        if not isinstance(current, StructType) or part not in current.names:
            return None
        current = current[part].dataType
    return current


def _filter_literal(value: Any, column: DataType) -> str | None:
    """`value` as a floe literal of a `column` column, or None where floe's comparison
    could differ from Spark's. Floating point is left to Spark: Spark orders NaN above
    every number and equals NaN to itself, where floe's filters (Iceberg's) match no NaN.
    So are binary, nested and any other type."""
    if isinstance(column, BooleanType) and isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(column, _INTEGERS) and type(value) is int:
        return str(value)
    if isinstance(column, DecimalType) and isinstance(value, decimal.Decimal):
        return format(value, "f") if value.is_finite() else None
    if isinstance(column, StringType) and isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    if isinstance(column, DateType) and type(value) is datetime.date:
        return f"DATE '{value.isoformat()}'"
    if isinstance(value, datetime.datetime):
        if isinstance(column, TimestampType) and value.tzinfo is not None:
            utc = value.astimezone(datetime.timezone.utc).replace(tzinfo=None)
            return f"TIMESTAMP '{utc.isoformat(sep=' ', timespec='microseconds')}+00:00'"
        if isinstance(column, TimestampNTZType) and value.tzinfo is None:
            return f"TIMESTAMP '{value.isoformat(sep=' ', timespec='microseconds')}'"
    return None


def _floe_filter(pushed: Any, schema: StructType) -> str | None:
    """One filter Spark pushes, as floe filter text that selects exactly the rows Spark's
    would (nulls selected by neither), or None when there is none."""
    name = type(pushed).__name__
    if name == "Not":
        inner = _floe_filter(pushed.child, schema)
        return None if inner is None else f"NOT ({inner})"
    path = tuple(getattr(pushed, "attribute", ()))
    if not path or any(not part or "." in part for part in path):
        return None  # floe joins a column path's parts with dots
    column = _column_type(schema, path)
    if column is None:
        return None
    ref = ".".join("`" + part.replace("`", "``") + "`" for part in path)
    if name == "IsNull":
        return f"{ref} IS NULL"
    if name == "IsNotNull":
        return f"{ref} IS NOT NULL"
    if name in _COMPARISONS:
        literal = _filter_literal(pushed.value, column)
        return None if literal is None else f"{ref} {_COMPARISONS[name]} {literal}"
    if name == "In":
        literals = [_filter_literal(value, column) for value in pushed.value]
        if not literals or any(literal is None for literal in literals):
            return None  # a NULL in the list too: Spark's IN is then never false
        return f"{ref} IN ({', '.join(literals)})"  # type: ignore[arg-type]
    if name == "StringStartsWith" and isinstance(column, StringType):
        literal = _filter_literal(pushed.value, column)
        return None if literal is None else f"STARTS_WITH({ref}, {literal})"
    return None  # EqualNullSafe, StringEndsWith, StringContains: left to Spark


class FloeReader(DataSourceReader):
    """A batch read: the driver plans floe's file tasks (pruned by floe's filter), splits
    them at their row groups and packs the splits into Spark partitions as iceberg-java's
    Spark reader does (``split-size``, ``lookback``, ``file-open-cost`` options, or the
    table's ``read.split.*``); each executor reads its splits with floe's scan and yields
    Arrow batches. Every task reads the snapshot the driver planned. On pyspark 4.1+,
    Spark's pushed filters join the ``where`` option (:class:`FloeFilteringReader`)."""

    def __init__(
        self, parsed: _Options, schema: StructType, parallelism: int | None = None
    ) -> None:
        self._parsed = parsed
        self._schema = schema
        self._parallelism = parallelism
        #: The floe filters made of the filters Spark pushed, in the order pushed.
        self.pushed_filters: list[str] = []
        self._plan(parsed.target.load(), snapshot_id=None)

    def _read_options(self) -> Mapping[str, str]:
        parts = [self._parsed.read["where"]] if "where" in self._parsed.read else []
        parts += self.pushed_filters
        if not self.pushed_filters:
            return self._parsed.read
        return {**self._parsed.read, "where": " AND ".join(f"({p})" for p in parts)}

    def _plan(self, table: Table, snapshot_id: int | None) -> None:
        read = self._read_options()
        scan = _scan(table, read, files=None, snapshot_id=snapshot_id)
        self._snapshot_id = scan.snapshot_id
        files = scan.plan_files()
        self._groups = _pack(
            files,
            _split_size(table, read, files, self._parallelism),
            _split_setting(table, read, _LOOKBACK),
            _split_setting(table, read, _FILE_OPEN_COST),
        )

    def take_filters(self, filters: Sequence[Any]) -> list[Any]:
        """The filters Spark pushes (pyspark 4.1+, with
        ``spark.sql.python.filterPushdown.enabled``; their AND), taken into floe's
        filter where floe selects exactly the rows Spark would: comparisons, IN, IS
        [NOT] NULL, starts-with and their negations, over boolean, integer, decimal,
        string, date and timestamp columns, top-level or nested. floe then prunes
        manifests, files and row groups by them and applies them to the rows, and the
        read is planned again (same snapshot). Returns the filters left to Spark (those
        over floating-point or binary columns, and the kinds floe has no filter for).

        Only with the read option ``push-filters=true``; otherwise every filter is left to
        Spark. Spark (4.1 to 4.3 at least) keeps the read a reader planned after taking
        filters with the DataFrame, and reuses it for the DataFrame's later queries that
        push nothing (``df.count()`` after ``df.where(...)``), which then miss rows: with
        ``push-filters``, load a DataFrame for each query (DESIGN.md, "Spark")."""
        setting = self._parsed.read.get("push-filters", "false").lower()
        if setting not in ("true", "false"):
            raise InvalidInputError(
                f"option 'push-filters' must be true or false, not {setting!r}")
        if setting != "true":
            return list(filters)
        table = self._parsed.target.load()
        left: list[Any] = []
        taken: list[str] = []
        for pushed in filters:
            text = _floe_filter(pushed, self._schema)
            if text is not None:
                try:
                    # Binds it to the columns and types of the snapshot read.
                    table.scan(where=text, snapshot_id=self._snapshot_id)
                except (FloeError, ValueError, TypeError):
                    text = None
            if text is None:
                left.append(pushed)
            else:
                taken.append(text)
        if taken:
            self.pushed_filters += taken
            self._plan(table, self._snapshot_id)
        return left

    def partitions(self) -> Sequence[InputPartition]:
        return [_FilesPartition(group) for group in self._groups] or [_FilesPartition(())]

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        splits = list(getattr(partition, "splits", ()))
        if not splits or self._snapshot_id is None:
            return
        table = self._parsed.target.load()
        scan = _scan(table, self._read_options(), files=None,
                     snapshot_id=self._snapshot_id, splits=splits)
        yield from scan.to_reader()


class FloeFilteringReader(FloeReader):
    """The reader of a session that pushes filters to Python data sources (pyspark 4.1+,
    ``spark.sql.python.filterPushdown.enabled``): Spark hands it the query's filters
    (:meth:`FloeReader.take_filters`)."""

    def pushFilters(self, filters: list[Any]) -> list[Any]:
        return self.take_filters(filters)


# ---- Distribution ---------------------------------------------------------------------


def distribute(df: DataFrame, table: Table, options: Mapping[str, str] | None = None) -> DataFrame:
    """`df` repartitioned as Spark's Iceberg writer requests for `table`: with a hash
    distribution (the default on a partitioned table) each table partition's rows go to
    one Spark task, so floe writes as many files per partition as Spark's writer would.
    ``write.distribution-mode=none`` (in `options` or the table's properties), or an
    unpartitioned table, keeps `df` as it is."""
    properties = {**table.properties, **(options or {})}
    mode = properties.get("write.distribution-mode", "hash")
    fields = table.spec().get("fields", [])
    if mode == "none" or not fields:
        return df
    names = _column_names(table.schema())
    keys = []
    for field in fields:
        source = names[int(field["source-id"])]
        transform = str(field["transform"])
        if transform == "void":
            continue
        keys.append(_partition_key(table, source, transform))
    return df.repartition(*keys) if keys else df


def _column_names(schema: pa.Schema) -> dict[int, str]:
    """Field id -> full dotted name, through structs."""
    out: dict[int, str] = {}

    def visit(field: pa.Field, prefix: str) -> None:
        name = prefix + field.name
        metadata = field.metadata or {}
        if b"PARQUET:field_id" in metadata:
            out[int(metadata[b"PARQUET:field_id"])] = name
        if pa.types.is_struct(field.type):
            for child in field.type:
                visit(child, name + ".")

    for field in schema:
        visit(field, "")
    return out


def _partition_key(table: Table, source: str, transform: str) -> Any:
    """A Spark column equal for two rows exactly when the partition field is."""
    column = F.col(source)
    if transform == "identity":
        return column
    if transform in ("year", "month", "day", "hour"):
        return F.date_trunc(transform, column)
    # bucket[N] and truncate[W]: floe's own kernels, so the grouping is the partitioning.
    from pyspark.sql.pandas.functions import pandas_udf

    import pandas as pd  # type: ignore[import-untyped]

    transformer = _Transformer(table.column_schema_json(source), transform)

    def partition_value(values: Any) -> Any:
        return transformer(values)

    # Series to Series: a scalar pandas UDF (the annotations say so to Spark).
    partition_value.__annotations__ = {"values": pd.Series, "return": pd.Series}
    result_type = "int" if transform.startswith("bucket") else "string"
    return pandas_udf(partition_value, result_type)(column)  # type: ignore[call-overload]


class _Transformer:
    """Picklable: applies one partition transform on an executor with floe's kernel (no
    catalog needed there). A truncated value is returned as text (equal exactly when the
    values are): only equality matters for the grouping."""

    def __init__(self, schema_json: str, transform: str) -> None:
        self._schema_json = schema_json
        self._transform = transform

    def __call__(self, values: Any) -> Any:
        import pandas as pd

        from ._catalog import apply_transform

        result = apply_transform(self._schema_json, self._transform, pa.array(values))
        if self._transform.startswith("bucket"):
            return pd.Series(result.to_pylist(), dtype="Int32")
        return pd.Series([None if v is None else str(v) for v in result.to_pylist()],
                         dtype="object")


def write(
    df: DataFrame,
    table: str,
    *,
    mode: str = "append",
    options: Mapping[str, str] | None = None,
    catalog: str | None = None,
    warehouse: str | None = None,
    catalog_name: str | None = None,
    catalog_properties: Mapping[str, str] | None = None,
) -> None:
    """Writes `df` into `table` with floe's data source after distributing it as Spark's
    Iceberg writer would (:func:`distribute`). `mode` is ``"append"`` or
    ``"overwrite"`` (see the module's docs)."""
    if mode not in ("append", "overwrite"):
        raise InvalidInputError(f"mode must be 'append' or 'overwrite', not {mode!r}")
    all_options: dict[str, str] = dict(options or {})
    if catalog is not None:
        all_options["catalog"] = catalog
    if warehouse is not None:
        all_options["warehouse"] = warehouse
    if catalog_name is not None:
        all_options["catalog-name"] = catalog_name
    for key, value in (catalog_properties or {}).items():
        all_options["catalog." + key] = value
    parsed = _parse_options({**all_options, "table": table})
    floe_table = parsed.target.load()
    spark = df.sparkSession
    register(spark)
    (
        distribute(df, floe_table, parsed.write)
        .write.format("floe")
        .options(**all_options)
        .mode(mode)
        .save(table)
    )
