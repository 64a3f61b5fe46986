#include "floe/iceberg/spec/table_properties.h"

#include <charconv>
#include <limits>

#include "floe/util/error.h"
#include "floe/util/text.h"

namespace floe::iceberg {

arrow::Result<int64_t> IntProperty::Parse(const PropertyMap& properties) const {
  auto found = properties.find(std::string(key));
  if (found == properties.end()) return default_value;
  std::optional<int64_t> value;
  if (is_32_bit) {
    if (auto parsed = ParseJavaInt(found->second)) value = *parsed;
  } else {
    value = ParseJavaLong(found->second);
  }
  if (!value) {
    return MakeError(ErrorKind::kInvalidInput,
                     "property " + std::string(key) + " is not a valid " +
                         (is_32_bit ? "32-bit" : "64-bit") + " integer");
  }
  return *value;
}

int64_t IntProperty::Get(const PropertyMap& properties) const {
  auto value = Parse(properties);
  return value.ok() ? *value : default_value;
}

bool BoolProperty::Get(const PropertyMap& properties) const {
  auto found = properties.find(std::string(key));
  return found == properties.end() ? default_value : ParseJavaBoolean(found->second);
}

std::string StringProperty::Get(const PropertyMap& properties) const {
  auto found = properties.find(std::string(key));
  return found == properties.end() ? std::string(default_value) : found->second;
}

namespace properties {

arrow::Result<bool> MetadataFilesGzipped(const PropertyMap& properties) {
  std::string codec = AsciiLower(kMetadataCompressionCodec.Get(properties));
  if (codec == "none" || codec == "gzip") return codec == "gzip";
  return MakeError(ErrorKind::kInvalidInput,
                   "property write.metadata.compression-codec must be none or gzip");
}

}  // namespace properties

}  // namespace floe::iceberg
