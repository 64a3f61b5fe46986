#include "floe/io/fault_injecting_file_io.h"

namespace floe {
namespace {

// An output stream whose writes and close go through the fault check.
class FaultInjectingStream final : public arrow::io::OutputStream {
 public:
  FaultInjectingStream(std::shared_ptr<arrow::io::OutputStream> inner,
                       FaultInjectingFileIO* io, std::string location)
      : inner_(std::move(inner)), io_(io), location_(std::move(location)) {}

  arrow::Status Close() override {
    if (inner_->closed()) return arrow::Status::OK();
    auto injected = io_->Check(FileOperation::kClose, location_);
    if (!injected.ok()) {
      (void)inner_->Close();  // the bytes may be on disk; the caller sees a failed close
      return injected;
    }
    return inner_->Close();
  }
  arrow::Status Abort() override { return inner_->Abort(); }
  bool closed() const override { return inner_->closed(); }
  arrow::Result<int64_t> Tell() const override { return inner_->Tell(); }
  arrow::Status Write(const void* data, int64_t nbytes) override {
    ARROW_RETURN_NOT_OK(io_->Check(FileOperation::kWrite, location_));
    return inner_->Write(data, nbytes);
  }
  arrow::Status Write(const std::shared_ptr<arrow::Buffer>& data) override {
    ARROW_RETURN_NOT_OK(io_->Check(FileOperation::kWrite, location_));
    return inner_->Write(data);
  }
  arrow::Status Flush() override { return inner_->Flush(); }

 private:
  std::shared_ptr<arrow::io::OutputStream> inner_;
  FaultInjectingFileIO* io_;
  std::string location_;
};

}  // namespace

std::string_view FileOperationName(FileOperation operation) {
  switch (operation) {
    case FileOperation::kCreate:
      return "create";
    case FileOperation::kWrite:
      return "write";
    case FileOperation::kClose:
      return "close";
    case FileOperation::kRename:
      return "rename";
    case FileOperation::kDelete:
      return "delete";
    case FileOperation::kSync:
      return "sync";
  }
  return "?";
}

FaultInjectingFileIO::FaultInjectingFileIO(std::shared_ptr<FileIO> inner)
    : inner_(std::move(inner)) {}

void FaultInjectingFileIO::FailNth(FileOperation kind, int64_t nth) {
  fail_kind_ = static_cast<int>(kind);
  fail_nth_ = nth;
  MutexLock lock(&mutex_);
  fired_at_.clear();
}

void FaultInjectingFileIO::Reset() {
  for (auto& count : counts_) count = 0;
}

std::string FaultInjectingFileIO::fired_at() const {
  MutexLock lock(&mutex_);
  return fired_at_;
}

arrow::Status FaultInjectingFileIO::Check(FileOperation kind,
                                          const std::string& location) {
  int64_t count = ++counts_[static_cast<size_t>(kind)];
  if (fail_kind_.load() == static_cast<int>(kind) && fail_nth_.load() == count) {
    {
      MutexLock lock(&mutex_);
      fired_at_ = location;
    }
    return arrow::Status::IOError("injected fault: ", FileOperationName(kind), " #",
                                  count, " of ", location);
  }
  return arrow::Status::OK();
}

arrow::Result<std::shared_ptr<arrow::io::RandomAccessFile>>
FaultInjectingFileIO::OpenInput(const std::string& location) {
  return inner_->OpenInput(location);
}

arrow::Result<std::shared_ptr<arrow::io::OutputStream>> FaultInjectingFileIO::OpenOutput(
    const std::string& location) {
  ARROW_RETURN_NOT_OK(Check(FileOperation::kCreate, location));
  ARROW_ASSIGN_OR_RAISE(auto stream, inner_->OpenOutput(location));
  return std::shared_ptr<arrow::io::OutputStream>(
      std::make_shared<FaultInjectingStream>(std::move(stream), this, location));
}

arrow::Status FaultInjectingFileIO::Delete(const std::string& location) {
  ARROW_RETURN_NOT_OK(Check(FileOperation::kDelete, location));
  return inner_->Delete(location);
}

arrow::Status FaultInjectingFileIO::DeleteWithin(const std::string& root,
                                                 const std::string& location) {
  ARROW_RETURN_NOT_OK(Check(FileOperation::kDelete, location));
  return inner_->DeleteWithin(root, location);
}

arrow::Result<bool> FaultInjectingFileIO::Exists(const std::string& location) {
  return inner_->Exists(location);
}

arrow::Result<std::vector<FileInfo>> FaultInjectingFileIO::List(
    const std::string& prefix) {
  return inner_->List(prefix);
}

arrow::Status FaultInjectingFileIO::RenameNoReplace(const std::string& from,
                                                    const std::string& to) {
  ARROW_RETURN_NOT_OK(Check(FileOperation::kRename, from));
  return inner_->RenameNoReplace(from, to);
}

arrow::Status FaultInjectingFileIO::SyncFolder(const std::string& folder) {
  ARROW_RETURN_NOT_OK(Check(FileOperation::kSync, folder));
  return inner_->SyncFolder(folder);
}

}  // namespace floe
