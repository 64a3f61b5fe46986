// The metadata columns a scan can return beside a table's own columns, with the names,
// field ids and types iceberg-java's MetadataColumns gives them (reserved ids above
// Integer.MAX_VALUE - 200, which no table column may use).
#pragma once

#include <string_view>

#include "floe/spec/type.h"

namespace floe {

inline constexpr int kFileColumnId = 2147483646;    ///< _file: the data file's path
inline constexpr int kPosColumnId = 2147483645;     ///< _pos: the row's position in it
inline constexpr int kSpecIdColumnId = 2147483643;  ///< _spec_id: the file's spec id
inline constexpr int kRowIdColumnId = 2147483540;   ///< _row_id (format v3 lineage)
inline constexpr int kLastUpdatedColumnId =
    2147483539;  ///< _last_updated_sequence_number

/// The metadata column of this name (`_file`, `_pos`, `_spec_id`, `_row_id`,
/// `_last_updated_sequence_number`), or nullptr. A table column of the same name comes
/// first: a scan looks here only for names the table schema does not have.
const NestedField* FindMetadataColumn(std::string_view name);
/// The metadata column with this id, or nullptr.
const NestedField* FindMetadataColumn(int field_id);

}  // namespace floe
