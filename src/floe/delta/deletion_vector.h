// Delta deletion vectors, read: the descriptor's bytes found (inline in the log, or in a
// `deletion_vector_<uuid>.bin` file beside the data, or at an absolute path), checked
// (the magic number, the stored CRC-32, the cardinality the log gives), and decoded
// into the sorted row positions the DV deletes, by the decoder Iceberg's deletion
// vectors use too (util/deletion_vector_bitmap.h: the two formats serialise alike).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "arrow/result.h"
#include "floe/delta/log.h"
#include "floe/io/file_io.h"

namespace floe::delta {

/// Z85 (ZeroMQ's Base85, the alphabet Delta uses for DV ids and inline DVs) decoded;
/// InvalidMetadata when `text` is not a multiple of 5 characters of the alphabet.
arrow::Result<std::string> DecodeZ85(std::string_view text);

/// Where an on-disk deletion vector is: storage type "u" (`<table>/<prefix>/
/// deletion_vector_<uuid>.bin`, the UUID Z85-encoded in the last 20 characters) or "p"
/// (an absolute path). InvalidMetadata for an inline one or a malformed id.
arrow::Result<std::string> DeletionVectorLocation(const std::string& table_root,
                                                  const DeletionVector& dv);

/// The row positions `dv` deletes, ascending. Errors name the file (or "inline") and
/// what is wrong: a size, magic number, checksum or cardinality that does not match.
arrow::Result<std::vector<int64_t>> ReadDeletionVector(FileIO& io,
                                                       const std::string& table_root,
                                                       const DeletionVector& dv);

}  // namespace floe::delta
