// Where a table's data and metadata files go (iceberg-java's DefaultLocationProvider).
#pragma once

#include <string>

#include "floe/iceberg/spec/table_properties.h"

namespace floe::iceberg {

/// Immutable; thread-safe.
class LocationProvider {
 public:
  /// `table_location` and the effective properties (write.data.path,
  /// write.metadata.path).
  LocationProvider(const std::string& table_location, const PropertyMap& properties);

  /// `<data location>/<partition path>/<file name>`, or `<data location>/<file name>`
  /// when the partition path is empty (unpartitioned).
  std::string NewDataLocation(const std::string& partition_path,
                              const std::string& file_name) const;
  /// `<metadata location>/<file name>`.
  std::string NewMetadataLocation(const std::string& file_name) const;

  const std::string& data_location() const { return data_location_; }
  const std::string& metadata_location() const { return metadata_location_; }

 private:
  std::string data_location_;
  std::string metadata_location_;
};

}  // namespace floe::iceberg
