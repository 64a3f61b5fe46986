// The metadata columns a scan can return beside a table's own columns, with the names,
// field ids and types iceberg-java's MetadataColumns gives them (reserved ids above
// Integer.MAX_VALUE - 200, which no table column may use).
#pragma once

#include <string_view>

#include "arrow/result.h"
#include "floe/iceberg/spec/table_metadata.h"
#include "floe/types/schema.h"
#include "floe/types/type.h"

namespace floe::iceberg {

inline constexpr int kFileColumnId = 2147483646;  ///< _file: the data file's path
inline constexpr int kPosColumnId = 2147483645;   ///< _pos: the row's position in it
/// _deleted: whether a delete file deletes the row. A scan that returns it keeps the
/// deleted rows, marked, instead of dropping them (iceberg-java's DeleteFilter).
inline constexpr int kIsDeletedColumnId = 2147483644;
inline constexpr int kSpecIdColumnId = 2147483643;  ///< _spec_id: the file's spec id
/// _partition: the file's partition tuple in the table's partition type (see
/// TablePartitionType). Its type depends on the table; FindMetadataColumn gives it as
/// an empty struct, and a scan gives it the table's type.
inline constexpr int kPartitionColumnId = 2147483642;
inline constexpr int kRowIdColumnId = 2147483540;  ///< _row_id (format v3 lineage)
/// _last_updated_sequence_number (format v3 lineage)
inline constexpr int kLastUpdatedColumnId = 2147483539;
/// The columns of a Parquet position delete file.
inline constexpr int kDeleteFilePathColumnId = 2147483546;  ///< file_path
inline constexpr int kDeletePosColumnId = 2147483545;       ///< pos

/// The metadata column of this name (`_file`, `_pos`, `_deleted`, `_spec_id`,
/// `_partition`, `_row_id`, `_last_updated_sequence_number`), or nullptr. A table column
/// of the same name comes first: a scan looks here only for names the table schema does
/// not have.
const NestedField* FindMetadataColumn(std::string_view name);
/// The metadata column with this id, or nullptr.
const NestedField* FindMetadataColumn(int field_id);

/// The type of a table's `_partition` column, as iceberg-java's
/// Partitioning.partitionType(table) builds it: one optional field per partition field
/// id of any of the table's specs whose source column the current schema still has,
/// sorted by id, named as the newest spec names it, typed by its transform (a void
/// transform takes the type of a spec where the field is not void). Empty when the table
/// is unpartitioned. Two specs giving one field id different sources or transforms (a
/// format-v1 table can) are InvalidMetadata, as are unknown transforms.
arrow::Result<std::shared_ptr<const StructType>> TablePartitionType(
    const TableMetadata& metadata);

/// `schema` followed by `_row_id` and `_last_updated_sequence_number`: what the files of
/// a rewrite that keeps row lineage hold (iceberg-java's
/// MetadataColumns.schemaWithRowLineage).
arrow::Result<SchemaPtr> WithRowLineage(const Schema& schema);

}  // namespace floe::iceberg
