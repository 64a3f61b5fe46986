// The metadata columns a scan can return beside a table's own columns, with the names,
// field ids and types iceberg-java's MetadataColumns gives them (reserved ids above
// Integer.MAX_VALUE - 200, which no table column may use).
#pragma once

#include <string_view>

#include "arrow/result.h"
#include "floe/spec/schema.h"
#include "floe/spec/type.h"

namespace floe {

inline constexpr int kFileColumnId = 2147483646;    ///< _file: the data file's path
inline constexpr int kPosColumnId = 2147483645;     ///< _pos: the row's position in it
inline constexpr int kSpecIdColumnId = 2147483643;  ///< _spec_id: the file's spec id
inline constexpr int kRowIdColumnId = 2147483540;   ///< _row_id (format v3 lineage)
/// _last_updated_sequence_number (format v3 lineage)
inline constexpr int kLastUpdatedColumnId = 2147483539;
/// The columns of a Parquet position delete file.
inline constexpr int kDeleteFilePathColumnId = 2147483546;  ///< file_path
inline constexpr int kDeletePosColumnId = 2147483545;       ///< pos

/// The metadata column of this name (`_file`, `_pos`, `_spec_id`, `_row_id`,
/// `_last_updated_sequence_number`), or nullptr. A table column of the same name comes
/// first: a scan looks here only for names the table schema does not have.
const NestedField* FindMetadataColumn(std::string_view name);
/// The metadata column with this id, or nullptr.
const NestedField* FindMetadataColumn(int field_id);

/// `schema` followed by `_row_id` and `_last_updated_sequence_number`: what the files of
/// a rewrite that keeps row lineage hold (iceberg-java's
/// MetadataColumns.schemaWithRowLineage).
arrow::Result<SchemaPtr> WithRowLineage(const Schema& schema);

}  // namespace floe
