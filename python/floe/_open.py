"""floe.open_table: any table floe keeps, by name or by path, with its format decided by
the library (lakehouse's ResolveTable), as the ``floe`` command opens one."""

from __future__ import annotations

from collections.abc import Mapping

from .catalog import Catalog
from .delta import DeltaTable
from .table import Table

__all__ = ["open_table"]


def open_table(
    table: str,
    *,
    catalog: Catalog | None = None,
    storage: Mapping[str, str] | None = None,
) -> Table | DeltaTable:
    """Opens the table `table` names, whichever its format, as the ``floe`` command does:
    a path (it holds a ``/``: ``"/data/events"``, ``"./events"``, ``"s3://bucket/events"``)
    is a Delta table, configured by `storage`; ``NAMESPACE.TABLE`` is looked up in
    `catalog` (the default catalog, ``./warehouse``, when None): its catalog-managed
    Delta table of that name, else its Iceberg table. Returns a :class:`floe.Table` for
    an Iceberg table and a :class:`floe.delta.DeltaTable` for a Delta table (check with
    ``isinstance``). Raises :class:`floe.NoSuchTableError` for an unknown name or a path
    with no Delta table."""
    if not isinstance(table, str):
        raise TypeError(f"table must be a str, not {type(table).__name__}")
    if "/" in table:
        if catalog is not None:
            raise TypeError(
                f"{table} is a path (a Delta table by path): no catalog applies; "
                "name a catalog's table as NAMESPACE.TABLE"
            )
        return DeltaTable(table, storage=storage)
    if storage is not None:
        raise TypeError(
            f"storage applies to a Delta table given by path, not to {table}: a catalog's "
            "table uses its catalog's properties"
        )
    if catalog is None:
        catalog = Catalog()
    if catalog.resolve_table(table) == "delta":
        return DeltaTable(table, catalog=catalog)
    return catalog.load_table(table)
