// A FileIO that forwards every call to another, for tests that change one operation
// (refuse it, run a concurrent writer before it, count it) and keep the rest.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "floe/io/file_io.h"

namespace floe::testing {

class ForwardingFileIO : public FileIO {
 public:
  explicit ForwardingFileIO(std::shared_ptr<FileIO> inner) : inner_(std::move(inner)) {}

  arrow::Result<std::shared_ptr<arrow::io::RandomAccessFile>> OpenInput(
      const std::string& location) override {
    return inner_->OpenInput(location);
  }
  arrow::Result<std::shared_ptr<arrow::io::OutputStream>> OpenOutput(
      const std::string& location) override {
    return inner_->OpenOutput(location);
  }
  arrow::Status Delete(const std::string& location) override {
    return inner_->Delete(location);
  }
  arrow::Result<bool> Exists(const std::string& location) override {
    return inner_->Exists(location);
  }
  arrow::Result<std::vector<FileInfo>> List(const std::string& prefix) override {
    return inner_->List(prefix);
  }
  arrow::Result<std::vector<std::string>> ListNames(const std::string& folder) override {
    return inner_->ListNames(folder);
  }
  arrow::Result<FileInfo> Stat(const std::string& location) override {
    return inner_->Stat(location);
  }
  arrow::Status DeleteWithin(const std::string& root,
                             const std::string& location) override {
    return inner_->DeleteWithin(root, location);
  }
  arrow::Status RenameNoReplace(const std::string& from, const std::string& to) override {
    return inner_->RenameNoReplace(from, to);
  }
  arrow::Status SyncFolder(const std::string& folder) override {
    return inner_->SyncFolder(folder);
  }

 protected:
  FileIO& inner() { return *inner_; }

 private:
  std::shared_ptr<FileIO> inner_;
};

}  // namespace floe::testing
