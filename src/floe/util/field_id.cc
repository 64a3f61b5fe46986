#include "floe/util/field_id.h"
#include "floe/util/number_text.h"

#include <charconv>
#include <string>

#include "arrow/type.h"
#include "arrow/util/key_value_metadata.h"

namespace floe {

int ArrowFieldId(const arrow::Field& field) {
  const auto& metadata = field.metadata();
  if (metadata == nullptr) return -1;
  int index = metadata->FindKey(kParquetFieldIdKey);
  if (index < 0) return -1;
  const std::string& text = metadata->value(index);
  const std::optional<int32_t> id = ParseJavaInt(text);
  return id && *id >= 0 ? *id : -1;
}

}  // namespace floe
