"""Spark's pushed filters (pyspark 4.1's pyspark.sql.datasource.Filter classes, named here
by class name so that this module imports on pyspark 4.0 too), as floe filter text."""

from __future__ import annotations

import datetime
import decimal
from collections.abc import Sequence
from typing import Any

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

__all__ = ["floe_filter"]

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


def floe_filter(pushed: Any, schema: StructType) -> str | None:
    """One filter Spark pushes, as floe filter text that selects exactly the rows Spark's
    would (nulls selected by neither), or None when there is none."""
    name = type(pushed).__name__
    if name == "Not":
        inner = floe_filter(pushed.child, schema)
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
