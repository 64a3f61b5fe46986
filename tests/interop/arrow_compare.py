"""Comparing Arrow tables produced by different engines, exactly.

Floating-point columns are compared by their bit patterns, so NaN equals NaN and -0.0 differs
from 0.0 (Arrow's equals() treats every NaN as unequal). Field metadata (field ids) is ignored;
types and values are not, except that 64-bit-offset variants (large_string, large_list, ...)
count as their plain form: engines choose those for memory layout, not meaning.
"""

import pyarrow as pa


def canonical_type(type_: pa.DataType) -> pa.DataType:
    if pa.types.is_large_string(type_) or pa.types.is_string_view(type_):
        return pa.string()
    if pa.types.is_large_binary(type_) or pa.types.is_binary_view(type_):
        return pa.binary()
    if pa.types.is_large_list(type_) or pa.types.is_list_view(type_):
        return pa.list_(canonical_field(type_.value_field))
    if pa.types.is_list(type_):
        return pa.list_(canonical_field(type_.value_field))
    if pa.types.is_struct(type_):
        return pa.struct([canonical_field(type_.field(i)) for i in range(type_.num_fields)])
    if pa.types.is_map(type_):
        return pa.map_(canonical_field(type_.key_field), canonical_field(type_.item_field))
    return type_


def canonical_field(field: pa.Field) -> pa.Field:
    return pa.field(field.name, canonical_type(field.type), field.nullable)


def _normalise(array: pa.Array) -> pa.Array:
    if pa.types.is_float64(array.type):
        return array.view(pa.int64())
    if pa.types.is_float32(array.type):
        return array.view(pa.int32())
    if pa.types.is_struct(array.type):
        fields = [array.type.field(i) for i in range(array.type.num_fields)]
        children = [_normalise(array.field(i)) for i in range(len(fields))]
        return pa.StructArray.from_arrays(
            children,
            names=[f.name for f in fields],
            mask=array.is_null() if array.null_count else None,
        )
    if pa.types.is_map(array.type):
        return pa.MapArray.from_arrays(
            array.offsets, _normalise(array.keys), _normalise(array.items),
            mask=array.is_null() if array.null_count else None,
        )
    if pa.types.is_list(array.type):
        return pa.ListArray.from_arrays(
            array.offsets, _normalise(array.flatten()), mask=array.is_null() if array.null_count else None
        )
    return array


def strip_metadata(schema: pa.Schema) -> pa.Schema:
    def strip_type(type_: pa.DataType) -> pa.DataType:
        if pa.types.is_struct(type_):
            return pa.struct([strip_field(type_.field(i)) for i in range(type_.num_fields)])
        if pa.types.is_list(type_):
            return pa.list_(strip_field(type_.value_field))
        if pa.types.is_map(type_):
            return pa.map_(strip_field(type_.key_field), strip_field(type_.item_field))
        return type_

    def strip_field(field: pa.Field) -> pa.Field:
        return pa.field(field.name, strip_type(field.type), field.nullable)

    return pa.schema([strip_field(f) for f in schema])


def sorted_by(table: pa.Table, keys) -> pa.Table:
    return table.sort_by([(k, "ascending") for k in keys])


def differences(left: pa.Table, right: pa.Table) -> list:
    """Human-readable differences between two tables (empty when identical)."""
    problems = []
    if left.num_rows != right.num_rows:
        problems.append(f"row counts differ: {left.num_rows} vs {right.num_rows}")
    if left.column_names != right.column_names:
        problems.append(f"columns differ: {left.column_names} vs {right.column_names}")
        return problems
    for name in left.column_names:
        a = left.column(name).combine_chunks()
        b = right.column(name).combine_chunks()
        if not canonical_type(a.type).equals(canonical_type(b.type)):
            problems.append(f"column {name}: types differ: {a.type} vs {b.type}")
            continue
        a = a.cast(canonical_type(a.type))
        b = b.cast(canonical_type(b.type))
        if not _normalise(a).equals(_normalise(b)):
            problems.append(f"column {name}: values differ")
    return problems
