#include "floe/transform/transform_kernels.h"

#include "arrow/array.h"
#include "arrow/array/util.h"
#include "arrow/compute/api.h"
#include "floe/spec/arrow_schema.h"
#include "floe/util/error.h"

namespace floe {

arrow::Result<std::shared_ptr<arrow::Array>> ApplyTransform(
    const Transform& transform, const Type& source_type,
    const std::shared_ptr<arrow::Array>& input) {
  if (!transform.CanTransform(source_type)) {
    return MakeError(ErrorKind::kInvalidInput, "transform " + transform.ToString() +
                                                   " cannot apply to " + source_type.ToString());
  }
  switch (transform.kind()) {
    case TransformKind::kIdentity: {
      if (input->type_id() == arrow::Type::DICTIONARY) {
        ARROW_ASSIGN_OR_RAISE(auto decoded,
                              arrow::compute::Cast(*input, static_cast<const arrow::DictionaryType&>(
                                                               *input->type())
                                                               .value_type()));
        return decoded;
      }
      return input;
    }
    case TransformKind::kVoid: {
      ARROW_ASSIGN_OR_RAISE(auto type, ToArrowType(source_type));
      return arrow::MakeArrayOfNull(type, input->length());
    }
    default:
      break;
  }
  return MakeError(ErrorKind::kNotSupported,
                   "transform " + transform.ToString() + " is not implemented yet");
}

}  // namespace floe
