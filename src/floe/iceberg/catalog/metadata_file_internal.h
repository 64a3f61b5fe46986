// Reading and writing table metadata files (plain or gzip-compressed JSON).
#pragma once

#include <string>

#include "arrow/result.h"
#include "floe/iceberg/spec/table_metadata.h"
#include "floe/iceberg/spec/table_properties.h"
#include "floe/io/file_io.h"
#include "floe/util/env.h"

namespace floe::iceberg {

/// Reads and parses a metadata file; gunzips names ending in `.gz.metadata.json` or
/// `.metadata.json.gz`. Errors name the file.
arrow::Result<TableMetadataPtr> ReadMetadataFile(FileIO& io, const std::string& location);

/// Writes a metadata file, gzip-compressed when the name ends in `.gz.metadata.json`.
arrow::Status WriteMetadataFile(FileIO& io, const std::string& location,
                                const TableMetadata& metadata);

/// True when write.metadata.compression-codec is gzip, in any case (iceberg-java's
/// TableMetadataParser.Codec.fromName); the gate declines values other than none and
/// gzip.
bool GzipsMetadataFiles(const PropertyMap& properties);

/// The metadata file location for the version after `base_location` in `metadata`'s
/// metadata directory (honouring write.metadata.path and
/// write.metadata.compression-codec), its UUID drawn from `env`.
std::string NewMetadataFileLocation(const TableMetadata& metadata,
                                    const std::string& base_location, Env* env);

}  // namespace floe::iceberg
