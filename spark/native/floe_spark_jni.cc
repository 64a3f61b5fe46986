// The JNI entry points of floe's Spark plugin (the Scala object
// org.apache.spark.sql.execution.datasources.v2.floe.FloeNative, whose methods are
// instance methods of its module class FloeNative$, hence `_00024` and a jobject): the
// driver's gate and
// plan, and an executor's write task over an Arrow C stream the JVM exported. Every
// error becomes a Java exception carrying floe's message; nothing is printed.
#include <jni.h>

#include <arrow/c/abi.h>
#include <arrow/c/bridge.h>
#include <arrow/record_batch.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "floe/iceberg/gate/gate.h"
#include "floe/iceberg/spec/table_metadata.h"
#include "floe/iceberg/write/batch_conformer.h"
#include "floe/iceberg/write/iceberg_task.h"
#include "floe/iceberg/write/write_plan.h"
#include "floe/io/file_io.h"

namespace {

namespace iceberg = floe::iceberg;

struct JavaException {
  const char* java_class;
  std::string message;
};

std::string ToString(JNIEnv* env, jstring text) {
  if (text == nullptr) return {};
  const char* chars = env->GetStringUTFChars(text, nullptr);
  std::string out(chars);
  env->ReleaseStringUTFChars(text, chars);
  return out;
}

std::map<std::string, std::string> ToMap(JNIEnv* env, jobjectArray keys,
                                         jobjectArray values) {
  std::map<std::string, std::string> out;
  const jsize n = keys == nullptr ? 0 : env->GetArrayLength(keys);
  for (jsize i = 0; i < n; ++i) {
    auto key = static_cast<jstring>(env->GetObjectArrayElement(keys, i));
    auto value = static_cast<jstring>(env->GetObjectArrayElement(values, i));
    out[ToString(env, key)] = ToString(env, value);
    env->DeleteLocalRef(key);
    env->DeleteLocalRef(value);
  }
  return out;
}

template <typename T>
T Unwrap(arrow::Result<T> result) {
  if (!result.ok())
    throw JavaException{"java/lang/RuntimeException", result.status().ToString()};
  return std::move(result).ValueUnsafe();
}

void Check(const arrow::Status& status) {
  if (!status.ok()) throw JavaException{"java/lang/RuntimeException", status.ToString()};
}

template <typename F>
auto Guarded(JNIEnv* env, F&& body) -> decltype(body()) {
  try {
    return body();
  } catch (const JavaException& e) {
    if (!env->ExceptionCheck())
      env->ThrowNew(env->FindClass(e.java_class), e.message.c_str());
  } catch (const std::exception& e) {
    if (!env->ExceptionCheck()) {
      env->ThrowNew(env->FindClass("java/lang/RuntimeException"),
                    (std::string("floe: ") + e.what()).c_str());
    }
  }
  return {};
}

jstring NewString(JNIEnv* env, const std::string& text) {
  return env->NewStringUTF(text.c_str());
}

}  // namespace

extern "C" {

// The gate and the plan for a write to the table whose current metadata is
// `metadata_json` (iceberg-java's TableMetadataParser.toJson), with the write's effective
// options: the plan's text (WritePlan::Serialize) with `operation_id`, or
// IllegalArgumentException "unsupported: reason; reason" when floe's gate declines.
JNIEXPORT jstring JNICALL
Java_org_apache_spark_sql_execution_datasources_v2_floe_FloeNative_00024_planWrite(
    JNIEnv* env, jobject, jstring metadata_json, jobjectArray option_keys,
    jobjectArray option_values, jstring operation_id, jboolean input_clustered,
    jint tasks) {
  return Guarded(env, [&]() -> jstring {
    auto metadata = Unwrap(iceberg::TableMetadataFromJson(ToString(env, metadata_json)));
    const auto options = ToMap(env, option_keys, option_values);
    iceberg::PropertyMap properties(options.begin(), options.end());
    auto gate = iceberg::CheckWrite(*metadata, properties);
    if (!gate.supported()) {
      throw JavaException{"java/lang/IllegalArgumentException", gate.ToString()};
    }
    iceberg::WritePlanOptions plan_options;
    plan_options.input_clustered = input_clustered;
    plan_options.tasks = tasks < 1 ? 1 : tasks;
    auto made = Unwrap(iceberg::WritePlan::Make(*metadata, properties, plan_options));
    auto plan = std::make_shared<iceberg::WritePlan>(*made);
    plan->operation_id = ToString(env, operation_id);
    return NewString(env, plan->Serialize());
  });
}

// One write task of `plan_text`: writes every batch of the Arrow C stream at
// `stream_address` (released here) and returns the TaskCommit message. From then on the
// caller owns the files; on any failure the task has deleted every file it wrote.
JNIEXPORT jbyteArray JNICALL
Java_org_apache_spark_sql_execution_datasources_v2_floe_FloeNative_00024_writeTask(
    JNIEnv* env, jobject, jstring plan_text, jlong stream_address, jint partition_id,
    jlong attempt_id) {
  return Guarded(env, [&]() -> jbyteArray {
    if (partition_id < 0 || attempt_id < 0) {
      throw JavaException{
          "java/lang/IllegalArgumentException",
          "floe: a write task needs its partition id and task attempt id"};
    }
    // The JVM hands the C stream over as its address (Arrow Java's memoryAddress()).
    // NOLINTNEXTLINE(performance-no-int-to-ptr)
    auto* stream = reinterpret_cast<ArrowArrayStream*>(stream_address);
    auto input = Unwrap(arrow::ImportRecordBatchReader(stream));
    auto plan = Unwrap(iceberg::WritePlan::Deserialize(ToString(env, plan_text)));
    auto io = Unwrap(floe::MakeFileIO(plan->table_location, plan->properties));
    auto task = Unwrap(iceberg::MakeWriteTask(plan, io, partition_id, attempt_id));
    auto conformer = Unwrap(iceberg::MakeBatchConformer(*input->schema(), *plan->schema,
                                                        "at " + plan->table_location));
    while (true) {
      std::shared_ptr<arrow::RecordBatch> batch;
      Check(input->ReadNext(&batch));
      if (!batch) break;
      if (batch->num_rows() == 0) continue;
      Check(task->Write(Unwrap(conformer->Conform(*batch))));
    }
    std::string message = Unwrap(task->Finish());
    jbyteArray out = env->NewByteArray(static_cast<jsize>(message.size()));
    if (out == nullptr)
      return nullptr;  // OutOfMemoryError pending; the task deletes its files
    env->SetByteArrayRegion(out, 0, static_cast<jsize>(message.size()),
                            reinterpret_cast<const jbyte*>(message.data()));
    task->Acknowledge();
    return out;
  });
}

// Deletes `locations` through the FileIO of `plan_text`'s table (best effort): the JVM
// task's cleanup of a message it took but could not hand on. Returns the failures.
JNIEXPORT jint JNICALL
Java_org_apache_spark_sql_execution_datasources_v2_floe_FloeNative_00024_deleteFiles(
    JNIEnv* env, jobject, jstring plan_text, jobjectArray locations) {
  return Guarded(env, [&]() -> jint {
    auto plan = Unwrap(iceberg::WritePlan::Deserialize(ToString(env, plan_text)));
    auto io = Unwrap(floe::MakeFileIO(plan->table_location, plan->properties));
    jint failures = 0;
    const jsize n = env->GetArrayLength(locations);
    for (jsize i = 0; i < n; ++i) {
      auto location = static_cast<jstring>(env->GetObjectArrayElement(locations, i));
      // Only below the table's location, never through a symbolic link.
      if (!io->DeleteWithin(plan->table_location, ToString(env, location)).ok())
        ++failures;
      env->DeleteLocalRef(location);
    }
    return failures;
  });
}

}  // extern "C"
