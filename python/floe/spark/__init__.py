"""floe as a Spark data source: Spark's executors write with floe's tasks, the driver
commits once.

Spark 4's Python Data Source API has the split write's shape: ``writer()`` runs once on
the driver, ``write()`` once per Spark task on the executors (each returning a commit
message), ``commit(messages)`` or ``abort(messages)`` once on the driver. floe's data
source maps it one to one (docs/spark.md)::

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

from collections.abc import Mapping

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql.datasource import DataSource
from pyspark.sql.types import StructType

from .._errors import InvalidInputError
from ._options import parse_options
from .reader import FloeFilteringReader, FloeReader, read_schema, spark_schema
from .writer import APP_ID_PROPERTY as APP_ID_PROPERTY
from .writer import EPOCH_ID_PROPERTY as EPOCH_ID_PROPERTY
from .writer import QUERY_ID_PROPERTY as QUERY_ID_PROPERTY
from .writer import FloeBatchWriter as FloeBatchWriter
from .writer import FloeCommitMessage
from .writer import FloeStreamWriter as FloeStreamWriter
from .writer import distribute

__all__ = ["FloeDataSource", "FloeCommitMessage", "FloeReader", "FloeFilteringReader",
           "register", "write", "distribute"]

#: pyspark 4.1's setting that hands a Python data source reader Spark's filters.
_PUSHDOWN_CONF = "spark.sql.python.filterPushdown.enabled"


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
        self._parsed = parse_options(options)

    def schema(self) -> StructType:
        table = self._parsed.target.load()
        return spark_schema(read_schema(table, self._parsed.read))

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
    parsed = parse_options({**all_options, "table": table})
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
