"""Catalogs: namespaces, and the tables in them (as pyiceberg's ``pyiceberg.catalog``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import pyarrow as pa

from . import _errors, _floe
from ._args import Identifier, NamespaceName, namespace_levels, split_identifier, string_options
from ._arrow import schema_capsule
from .table import Table

__all__ = ["Catalog", "load_catalog"]


class Catalog:
    """A catalog, resolved exactly as the ``floe`` command resolves ``--catalog``,
    ``--warehouse`` and ``--catalog-name``.

    - ``uri``: ``sqlite:////abs/path/catalog.db``, ``postgresql://...``, ``http(s)://...``
      (REST), ``memory``, a ``file:`` warehouse for the filesystem catalog, ... Default:
      ``$FLOE_CATALOG``, else the SQLite catalog ``<warehouse>/catalog.db``.
    - ``warehouse``: where new tables go. Default: ``$FLOE_WAREHOUSE``, else
      ``./warehouse`` (created when needed).
    - ``name``: the catalog's name (rows of a shared SQL catalog are keyed by it).
      Default: ``$FLOE_CATALOG_NAME``, else ``"floe"``.
    - ``properties``: catalog properties (``--catalog-property``), e.g. a REST catalog's
      ``token`` or ``credential``. Values are never printed.

    The catalog is thread-safe: Python threads may share one.
    """

    def __init__(
        self,
        uri: str | None = None,
        warehouse: str | None = None,
        name: str | None = None,
        **properties: str,
    ) -> None:
        for what, value in (("uri", uri), ("warehouse", warehouse), ("name", name)):
            if value is not None and not isinstance(value, str):
                raise TypeError(f"{what} must be a str, not {type(value).__name__}")
        self._catalog = _floe.Catalog(
            uri or "", warehouse or "", name or "", string_options(properties, "properties")
        )

    @property
    def name(self) -> str:
        """The catalog's name (its rows in a shared SQL catalog are keyed by it)."""
        return str(self._catalog.name)

    def __repr__(self) -> str:
        return f"floe.Catalog(name={self.name!r})"

    # Namespaces.

    def create_namespace(
        self, namespace: NamespaceName, properties: Mapping[str, str] | None = None
    ) -> None:
        """Creates a namespace (NamespaceAlreadyExistsError when it exists)."""
        self._catalog.create_namespace(
            namespace_levels(namespace), string_options(properties, "properties")
        )

    def create_namespace_if_not_exists(
        self, namespace: NamespaceName, properties: Mapping[str, str] | None = None
    ) -> None:
        """Creates a namespace unless it exists."""
        if not self.namespace_exists(namespace):
            try:
                self.create_namespace(namespace, properties)
            except _errors.NamespaceAlreadyExistsError:
                pass

    def namespace_exists(self, namespace: NamespaceName) -> bool:
        """True when the namespace exists."""
        return bool(self._catalog.namespace_exists(namespace_levels(namespace)))

    def list_namespaces(self, namespace: NamespaceName = ()) -> list[tuple[str, ...]]:
        """The namespaces one level below `namespace` (top-level ones by default), sorted,
        each as a tuple of its levels."""
        return [tuple(ns) for ns in self._catalog.list_namespaces(namespace_levels(namespace))]

    def load_namespace_properties(self, namespace: NamespaceName) -> dict[str, str]:
        """The namespace's properties (NoSuchNamespaceError when it does not exist)."""
        return dict(self._catalog.namespace_properties(namespace_levels(namespace)))

    def update_namespace_properties(
        self,
        namespace: NamespaceName,
        removals: Iterable[str] | None = None,
        updates: Mapping[str, str] | None = None,
    ) -> None:
        """Removes the keys `removals` and sets `updates`."""
        self._catalog.update_namespace_properties(
            namespace_levels(namespace), list(removals or []), string_options(updates, "updates")
        )

    def drop_namespace(self, namespace: NamespaceName) -> None:
        """Drops an empty namespace (NamespaceNotEmptyError when it holds tables)."""
        self._catalog.drop_namespace(namespace_levels(namespace))

    # Tables.

    def list_tables(self, namespace: NamespaceName) -> list[tuple[str, ...]]:
        """The tables directly in `namespace` as (namespace levels..., name): its Iceberg
        tables, sorted, then its catalog-managed Delta tables, sorted (as ``floe tables``
        lists them; :meth:`resolve_table` tells one's format)."""
        return [(*ns, name) for ns, name in self._catalog.list_tables(namespace_levels(namespace))]

    def table_exists(self, identifier: Identifier) -> bool:
        """True when the name holds a table: an Iceberg table, or a catalog-managed Delta
        table."""
        ns, name = split_identifier(identifier)
        return bool(self._catalog.table_exists(ns, name))

    def resolve_table(self, identifier: Identifier) -> str:
        """The format of the table the name holds, as every floe entry point resolves a
        name: ``"delta"`` for a catalog-managed Delta table, else ``"iceberg"`` (whether or
        not that Iceberg table exists; :meth:`load_table` says)."""
        ns, name = split_identifier(identifier)
        return self._catalog.resolve_table(ns, name)

    def load_table(self, identifier: Identifier) -> Table:
        """Loads an Iceberg table (NoSuchTableError when it does not exist;
        InvalidInputError when the name holds a catalog-managed Delta table, which
        :func:`floe.open_table` and :class:`floe.delta.DeltaTable` open)."""
        ns, name = split_identifier(identifier)
        return Table(self, self._catalog.load_table(ns, name))

    def create_table(
        self,
        identifier: Identifier,
        schema: pa.Schema | str,
        *,
        partition_by: str | None = None,
        sort_by: str | None = None,
        properties: Mapping[str, str] | None = None,
        location: str | None = None,
    ) -> Table:
        """Creates a table.

        ``schema`` is a ``pyarrow.Schema`` or floe's schema text (``"id long not null,
        name string, tags list<string>"``, or Iceberg schema JSON); field ids are assigned
        as for any new table. ``partition_by`` and ``sort_by`` take the CLI's syntax:
        ``"region, day(ts), bucket(16, id)"`` and ``"ts desc, id asc nulls last"``.
        ``properties`` are table properties (``"format-version"``: 1, 2 (default) or 3).
        The namespace must exist (NoSuchNamespaceError); TableAlreadyExistsError when the
        table does.
        """
        ns, name = split_identifier(identifier)
        if isinstance(schema, str):
            text, arrow_schema = schema, None
        else:
            text, arrow_schema = "", schema_capsule(schema)
        for what, value in (("partition_by", partition_by), ("sort_by", sort_by),
                            ("location", location)):
            if value is not None and not isinstance(value, str):
                raise TypeError(f"{what} must be a str, not {type(value).__name__}")
        return Table(
            self,
            self._catalog.create_table(
                ns,
                name,
                text,
                arrow_schema,
                partition_by or "",
                sort_by or "",
                string_options(properties, "properties"),
                location or "",
            ),
        )

    def drop_table(self, identifier: Identifier) -> None:
        """Removes the table from the catalog, whichever its format; its files stay (a
        catalog-managed Delta table's ratified commits are published first)."""
        ns, name = split_identifier(identifier)
        self._catalog.drop_table(ns, name)

    def rename_table(self, from_identifier: Identifier, to_identifier: Identifier) -> None:
        """Renames a table of either format (its files stay where they are);
        TableAlreadyExistsError when the new name is taken by a table of either format."""
        from_ns, from_name = split_identifier(from_identifier)
        to_ns, to_name = split_identifier(to_identifier)
        self._catalog.rename_table(from_ns, from_name, to_ns, to_name)


def load_catalog(name: str | None = None, **properties: str) -> Catalog:
    """pyiceberg's ``load_catalog(name, uri=..., warehouse=..., **properties)``, for floe:
    ``floe.load_catalog("default", uri="sqlite:////tmp/catalog.db", warehouse="file:///tmp/wh")``.
    """
    uri = properties.pop("uri", None)
    warehouse = properties.pop("warehouse", None)
    return Catalog(uri=uri, warehouse=warehouse, name=name, **properties)
