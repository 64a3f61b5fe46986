#include "floe/iceberg/spec/location_provider.h"

#include "floe/util/location.h"

namespace floe::iceberg {

LocationProvider::LocationProvider(const std::string& table_location,
                                   const PropertyMap& properties) {
  std::string table = StripTrailingSlash(table_location);
  std::string data = properties::kDataPath.Get(properties);
  data_location_ = data.empty() ? table + "/data" : StripTrailingSlash(data);
  std::string metadata = properties::kMetadataPath.Get(properties);
  metadata_location_ =
      metadata.empty() ? table + "/metadata" : StripTrailingSlash(metadata);
}

std::string LocationProvider::NewDataLocation(const std::string& partition_path,
                                              const std::string& file_name) const {
  if (partition_path.empty()) return data_location_ + "/" + file_name;
  return data_location_ + "/" + partition_path + "/" + file_name;
}

std::string LocationProvider::NewMetadataLocation(const std::string& file_name) const {
  return metadata_location_ + "/" + file_name;
}

}  // namespace floe::iceberg
