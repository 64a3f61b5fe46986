// The bitmaps of deletion vectors, which Iceberg (Puffin "deletion-vector-v1" blobs) and
// Delta (deletion vector files and inline vectors) serialise alike: a magic number
// (D1 D3 39 64), then a RoaringBitmapArray of 64-bit row positions (a little-endian
// bucket count, then per bucket its high 32 bits and a 32-bit Roaring bitmap in the
// portable format, RoaringFormatSpec). Decoded by hand, bounded by the caller's position
// count before anything is materialised, and fuzzed (fuzz_deletion_vector); encoded by
// hand too, as iceberg-java's RoaringPositionBitmap encodes (run containers where they
// are smaller, as its runLengthEncode chooses). Debian's CRoaring (libroaring-dev) is
// 0.2.66, of 2019.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "arrow/result.h"

namespace floe {

/// The ascending row positions of `magic_and_bitmap` (the magic number, then the
/// bitmap array, nothing after it). More than `max_positions` positions, or malformed
/// input, gives InvalidMetadata naming `where`.
arrow::Result<std::vector<int64_t>> DecodeDeletionVectorBitmap(
    std::string_view magic_and_bitmap, const std::string& where, int64_t max_positions);

/// The same, framed as both formats store it in files: a big-endian length of the magic
/// and bitmap, the magic and bitmap, and their big-endian CRC-32 (checked).
arrow::Result<std::vector<int64_t>> DecodeFramedDeletionVector(std::string_view blob,
                                                               const std::string& where,
                                                               int64_t max_positions);

/// The magic number and the bitmap array of `positions` (sorted, unique, non-negative):
/// every bucket from 0 to the highest one, empty ones too, as iceberg-java writes them;
/// each 65536-value container an array, a bitmap or runs, whichever iceberg-java's
/// Roaring (RoaringBitmap.runOptimize) would keep.
std::string EncodeDeletionVectorBitmap(const std::vector<int64_t>& positions);

/// EncodeDeletionVectorBitmap framed for a file (DecodeFramedDeletionVector's input).
std::string EncodeFramedDeletionVector(const std::vector<int64_t>& positions);

}  // namespace floe
