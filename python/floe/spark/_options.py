"""The options of floe's Spark data source, read on the driver: the table, how to reach
its catalog, and the write, snapshot summary and read options (internal to floe.spark)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from .._errors import InvalidInputError
from ..catalog import Catalog
from ..table import Table

_CATALOG_KEYS = ("catalog", "warehouse", "catalog-name")
_READ_KEYS = ("snapshot-id", "as-of-timestamp", "where", "split-size", "lookback",
              "file-open-cost", "push-filters")
_WRITE_KEYS = ("isolation-level",)
#: Spark's own options, which reach the data source too (lowercased).
_SPARK_KEYS = ("checkpointlocation",)


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
class Options:
    """A data source's options, parsed: its table, the write options (overlaid on the
    table's properties), the snapshot summary's extra properties and the read options."""

    target: _Target
    write: dict[str, str]
    summary: dict[str, str]
    read: dict[str, str]


def parse_options(options: Mapping[str, str]) -> Options:
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
    return Options(target, write, summary, read)
