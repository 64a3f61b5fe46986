#include "floe/util/field_id.h"

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
  int id = -1;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (error != std::errc() || end != text.data() + text.size() || id < 0) return -1;
  return id;
}

}  // namespace floe
