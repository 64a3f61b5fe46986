#include "floe/testing/crash_simulating_file_io.h"

#include <algorithm>
#include <functional>

#include "arrow/buffer.h"
#include "arrow/io/memory.h"
#include "floe/util/error.h"
#include "floe/util/location.h"

namespace floe::testing {

struct CrashSimulatingFileIO::Node {
  bool directory = false;
  std::string data;          // what reads see
  std::string durable_data;  // what a power cut keeps
  std::map<std::string, std::shared_ptr<Node>> entries;
  std::map<std::string, std::shared_ptr<Node>> durable_entries;
};

namespace {

using Node = CrashSimulatingFileIO::Node;

// The path of a location, without a trailing slash ("/" for the root).
std::string PathOf(const std::string& location) {
  std::string path = StripTrailingSlash(LocalPath(location));
  return path.empty() ? "/" : path;
}

std::vector<std::string> Parts(const std::string& path) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= path.size()) {
    size_t slash = path.find('/', start);
    if (slash == std::string::npos) slash = path.size();
    if (slash > start) parts.push_back(path.substr(start, slash - start));
    start = slash + 1;
  }
  return parts;
}

std::pair<std::string, std::string> Split(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return {"/", path};
  return {slash == 0 ? "/" : path.substr(0, slash), path.substr(slash + 1)};
}

void Restore(const std::shared_ptr<Node>& node) {
  if (!node->directory) {
    node->data = node->durable_data;
    return;
  }
  node->entries = node->durable_entries;
  for (const auto& [name, child] : node->entries) Restore(child);
}

}  // namespace

class CrashSimulatingFileIO::Stream final : public arrow::io::OutputStream {
 public:
  Stream(CrashSimulatingFileIO* io, std::shared_ptr<Node> file, std::string location)
      : io_(io), file_(std::move(file)), location_(std::move(location)) {}

  arrow::Status Close() override {
    MutexLock lock(&io_->mutex_);
    if (closed_) return arrow::Status::OK();
    ARROW_RETURN_NOT_OK(io_->Count(location_));
    closed_ = true;
    // The fsync ArrowFileIO runs before closing.
    if (file_->durable_data != file_->data && io_->Effective(PathOf(location_)))
      file_->durable_data = file_->data;
    return arrow::Status::OK();
  }
  bool closed() const override { return closed_; }
  arrow::Result<int64_t> Tell() const override { return position_; }
  arrow::Status Write(const void* data, int64_t nbytes) override {
    MutexLock lock(&io_->mutex_);
    if (closed_) return arrow::Status::Invalid("writing ", location_, ": stream closed");
    ARROW_RETURN_NOT_OK(io_->Alive(location_));
    file_->data.append(static_cast<const char*>(data), static_cast<size_t>(nbytes));
    position_ += nbytes;
    return arrow::Status::OK();
  }

 private:
  CrashSimulatingFileIO* io_;
  std::shared_ptr<Node> file_;
  std::string location_;
  int64_t position_ = 0;
  bool closed_ = false;
};

CrashSimulatingFileIO::CrashSimulatingFileIO() : root_(std::make_shared<Node>()) {
  root_->directory = true;
}

CrashSimulatingFileIO::~CrashSimulatingFileIO() = default;

void CrashSimulatingFileIO::CutPowerAt(int64_t nth) {
  MutexLock lock(&mutex_);
  cut_at_ = nth > 0 ? operations_ + nth : 0;
}

void CrashSimulatingFileIO::PowerCut() {
  MutexLock lock(&mutex_);
  Restore(root_);
  operations_ = 0;
  cut_at_ = 0;
  stopped_ = false;
}

std::shared_ptr<CrashSimulatingFileIO> CrashSimulatingFileIO::CloneDurable() const {
  MutexLock lock(&mutex_);
  // A node reachable by two names (renamed, with the old folder not synced) stays one.
  std::map<const Node*, std::shared_ptr<Node>> copies;
  std::function<std::shared_ptr<Node>(const std::shared_ptr<Node>&)> copy =
      [&](const std::shared_ptr<Node>& node) {
        auto& made = copies[node.get()];
        if (made) return made;
        made = std::make_shared<Node>();
        made->directory = node->directory;
        made->data = made->durable_data = node->durable_data;
        for (const auto& [name, child] : node->durable_entries) {
          auto child_copy = copy(child);
          made->entries[name] = child_copy;
          made->durable_entries[name] = child_copy;
        }
        return made;
      };
  auto clone = std::make_shared<CrashSimulatingFileIO>();
  MutexLock clone_lock(&clone->mutex_);
  clone->root_ = copy(root_);
  return clone;
}

int64_t CrashSimulatingFileIO::operations() const {
  MutexLock lock(&mutex_);
  return operations_;
}

bool CrashSimulatingFileIO::stopped() const {
  MutexLock lock(&mutex_);
  return stopped_;
}

void CrashSimulatingFileIO::SkipSyncsOf(int64_t ordinal) {
  MutexLock lock(&mutex_);
  skip_ordinal_ = ordinal > 0 ? static_cast<int64_t>(effective_.size()) + ordinal : 0;
  skipped_.clear();
}

std::vector<std::string> CrashSimulatingFileIO::TakeEffectiveSyncs() {
  MutexLock lock(&mutex_);
  effective_seen_.clear();
  return std::exchange(effective_, {});
}

bool CrashSimulatingFileIO::Effective(const std::string& location) {
  if (effective_seen_.insert(location).second) {
    effective_.push_back(location);
    if (static_cast<int64_t>(effective_.size()) == skip_ordinal_) skipped_ = location;
  }
  return location != skipped_;
}

arrow::Status CrashSimulatingFileIO::Alive(const std::string& location) const {
  if (stopped_) return arrow::Status::IOError("power cut (", location, ")");
  return arrow::Status::OK();
}

arrow::Status CrashSimulatingFileIO::Count(const std::string& location) {
  ARROW_RETURN_NOT_OK(Alive(location));
  ++operations_;
  if (cut_at_ > 0 && operations_ >= cut_at_) {
    stopped_ = true;
    return Alive(location);
  }
  return arrow::Status::OK();
}

std::shared_ptr<Node> CrashSimulatingFileIO::Find(const std::string& path) const {
  std::shared_ptr<Node> node = root_;
  for (const auto& part : Parts(path)) {
    if (!node->directory) return nullptr;
    auto found = node->entries.find(part);
    if (found == node->entries.end()) return nullptr;
    node = found->second;
  }
  return node;
}

arrow::Result<std::shared_ptr<Node>> CrashSimulatingFileIO::Folder(
    const std::string& path, bool create) {
  std::shared_ptr<Node> node = root_;
  for (const auto& part : Parts(path)) {
    auto found = node->entries.find(part);
    if (found == node->entries.end()) {
      if (!create) return MakeError(ErrorKind::kNotFound, "folder not found: " + path);
      auto made = std::make_shared<Node>();
      made->directory = true;
      found = node->entries.emplace(part, made).first;
    }
    if (!found->second->directory)
      return arrow::Status::IOError(path, ": ", part, " is not a directory");
    node = found->second;
  }
  return node;
}

arrow::Result<std::shared_ptr<arrow::io::RandomAccessFile>>
CrashSimulatingFileIO::OpenInput(const std::string& location) {
  MutexLock lock(&mutex_);
  ARROW_RETURN_NOT_OK(Alive(location));
  auto node = Find(PathOf(location));
  if (!node || node->directory)
    return MakeError(ErrorKind::kNotFound, "file not found: " + location);
  return std::make_shared<arrow::io::BufferReader>(arrow::Buffer::FromString(node->data));
}

arrow::Result<std::shared_ptr<arrow::io::OutputStream>> CrashSimulatingFileIO::OpenOutput(
    const std::string& location) {
  MutexLock lock(&mutex_);
  ARROW_RETURN_NOT_OK(Count(location));
  auto [parent, name] = Split(PathOf(location));
  ARROW_ASSIGN_OR_RAISE(auto folder, Folder(parent, /*create=*/true));
  auto existing = folder->entries.find(name);
  if (existing != folder->entries.end() && existing->second->directory)
    return arrow::Status::IOError("creating ", location, ": it is a directory");
  auto file = std::make_shared<Node>();
  folder->entries[name] = file;
  return std::make_shared<Stream>(this, std::move(file), location);
}

arrow::Status CrashSimulatingFileIO::Delete(const std::string& location) {
  MutexLock lock(&mutex_);
  ARROW_RETURN_NOT_OK(Count(location));
  auto [parent, name] = Split(PathOf(location));
  auto folder = Find(parent);
  if (!folder || !folder->directory || !folder->entries.count(name) ||
      folder->entries[name]->directory) {
    return MakeError(ErrorKind::kNotFound, "file not found: " + location);
  }
  folder->entries.erase(name);
  return arrow::Status::OK();
}

arrow::Result<bool> CrashSimulatingFileIO::Exists(const std::string& location) {
  MutexLock lock(&mutex_);
  ARROW_RETURN_NOT_OK(Alive(location));
  return Find(PathOf(location)) != nullptr;
}

arrow::Result<std::vector<FileInfo>> CrashSimulatingFileIO::List(
    const std::string& prefix) {
  MutexLock lock(&mutex_);
  ARROW_RETURN_NOT_OK(Alive(prefix));
  std::vector<FileInfo> files;
  auto start = Find(PathOf(prefix));
  if (!start) return files;
  if (!start->directory) {
    return MakeError(ErrorKind::kInvalidInput,
                     "cannot list " + prefix + ": it is not a directory");
  }
  std::function<void(const Node&, const std::string&)> walk =
      [&](const Node& node, const std::string& base) {
        for (const auto& [name, child] : node.entries) {
          if (child->directory) {
            walk(*child, base + "/" + name);
          } else {
            FileInfo file;
            file.location = base + "/" + name;
            file.size = static_cast<int64_t>(child->data.size());
            files.push_back(std::move(file));
          }
        }
      };
  walk(*start, StripTrailingSlash(prefix));
  std::sort(files.begin(), files.end(),
            [](const auto& a, const auto& b) { return a.location < b.location; });
  return files;
}

arrow::Status CrashSimulatingFileIO::DeleteWithin(const std::string& root,
                                                  const std::string& location) {
  if (!IsLocationUnder(location, root) ||
      CanonicalLocation(location) == CanonicalLocation(root)) {
    return MakeError(ErrorKind::kInvalidInput,
                     "not deleting " + location + ": it is not below " + root);
  }
  return Delete(location);
}

arrow::Status CrashSimulatingFileIO::RenameNoReplace(const std::string& from,
                                                     const std::string& to) {
  MutexLock lock(&mutex_);
  ARROW_RETURN_NOT_OK(Count(to));
  auto [from_parent, from_name] = Split(PathOf(from));
  auto [to_parent, to_name] = Split(PathOf(to));
  auto source = Find(from_parent);
  if (!source || !source->directory || !source->entries.count(from_name))
    return MakeError(ErrorKind::kNotFound, "file not found: " + from);
  auto target = Find(to_parent);
  if (!target || !target->directory)
    return arrow::Status::IOError("renaming ", from, " to ", to, ": no such folder");
  if (target->entries.count(to_name))
    return MakeError(ErrorKind::kAlreadyExists, to + " already exists");
  target->entries[to_name] = source->entries[from_name];
  source->entries.erase(from_name);
  return arrow::Status::OK();
}

arrow::Status CrashSimulatingFileIO::SyncFolder(const std::string& folder) {
  MutexLock lock(&mutex_);
  ARROW_RETURN_NOT_OK(Count(folder));
  const std::string path = PathOf(folder);
  auto node = Find(path);
  if (!node) return arrow::Status::OK();  // as ArrowFileIO: nothing to make durable
  if (!node->directory) return arrow::Status::IOError(folder, " is not a folder");
  if (node->durable_entries != node->entries && Effective(path))
    node->durable_entries = node->entries;
  return arrow::Status::OK();
}

}  // namespace floe::testing
