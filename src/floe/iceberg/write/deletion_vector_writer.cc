#include "floe/iceberg/write/deletion_vector_writer.h"

#include <nlohmann/json.hpp>

#include "floe/iceberg/spec/metadata_columns.h"
#include "floe/util/deletion_vector_bitmap.h"
#include "floe/util/error.h"

namespace floe::iceberg {
namespace {

// "PFA1": Puffin, Fratercula arctica, version 1.
constexpr std::string_view kPuffinMagic = "PFA1";

// Puffin's FileMetadata as iceberg-java's FileMetadataParser writes it.
std::string FooterPayload(const std::vector<WrittenDeletionVector>& vectors,
                          const std::string& created_by) {
  nlohmann::ordered_json blobs = nlohmann::ordered_json::array();
  for (const auto& vector : vectors) {
    nlohmann::ordered_json blob;
    blob["type"] = "deletion-vector-v1";
    blob["fields"] = {kPosColumnId};
    blob["snapshot-id"] = -1;
    blob["sequence-number"] = -1;
    blob["offset"] = vector.offset;
    blob["length"] = vector.length;
    blob["properties"] = {{"referenced-data-file", vector.data_file},
                          {"cardinality", std::to_string(vector.cardinality)}};
    blobs.push_back(std::move(blob));
  }
  nlohmann::ordered_json footer;
  footer["blobs"] = std::move(blobs);
  footer["properties"] = {{"created-by", created_by}};
  return footer.dump();
}

void PutLe32(std::string* out, uint32_t v) {
  for (int shift = 0; shift < 32; shift += 8)
    out->push_back(static_cast<char>((v >> shift) & 0xFF));
}

}  // namespace

arrow::Result<WrittenPuffinFile> WriteDeletionVectors(
    FileIO& io, const std::string& location,
    const std::vector<DeletionVectorInput>& vectors, const std::string& created_by) {
  WrittenPuffinFile written;
  written.location = location;
  std::string bytes(kPuffinMagic);
  for (const auto& input : vectors) {
    if (input.positions.empty() || input.positions.front() < 0) {
      return MakeError(ErrorKind::kInvalidInput,
                       "a deletion vector for " + input.data_file +
                           " needs one or more non-negative positions");
    }
    WrittenDeletionVector vector;
    vector.data_file = input.data_file;
    vector.offset = static_cast<int64_t>(bytes.size());
    bytes += EncodeFramedDeletionVector(input.positions);
    vector.length = static_cast<int64_t>(bytes.size()) - vector.offset;
    vector.cardinality = static_cast<int64_t>(input.positions.size());
    written.vectors.push_back(std::move(vector));
  }
  const std::string payload = FooterPayload(written.vectors, created_by);
  bytes += kPuffinMagic;
  bytes += payload;
  PutLe32(&bytes, static_cast<uint32_t>(payload.size()));
  PutLe32(&bytes, 0);  // flags: the footer is not compressed
  bytes += kPuffinMagic;
  written.size = static_cast<int64_t>(bytes.size());

  auto write = [&]() -> arrow::Status {
    ARROW_ASSIGN_OR_RAISE(auto stream, io.OpenOutput(location));
    ARROW_RETURN_NOT_OK(stream->Write(bytes.data(), static_cast<int64_t>(bytes.size())));
    return stream->Close();
  };
  auto status = write();
  if (!status.ok()) {
    (void)io.Delete(location);  // best effort: the caller never reports this file
    return WithContext(status, "writing deletion vectors to " + location);
  }
  return written;
}

}  // namespace floe::iceberg
