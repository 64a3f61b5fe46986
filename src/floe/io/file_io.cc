#include "floe/io/file_io.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <functional>
#include <set>
#include <thread>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cstdio>

#include "arrow/buffer.h"
#include "arrow/filesystem/localfs.h"
#include "arrow/filesystem/mockfs.h"
#include "arrow/io/file.h"
#include "arrow/io/memory.h"
#include "floe/io/s3_file_io.h"
#include "floe/util/error.h"
#include "floe/util/first_error_internal.h"
#include "floe/util/log.h"
#include "floe/util/mutex.h"
#include "floe/util/secrets.h"
#include "floe/util/uuid.h"

namespace floe {
namespace {

constexpr std::string_view kMemoryPrefix = "memory://";

// Closes a file descriptor when it goes out of scope.
class Descriptor {
 public:
  explicit Descriptor(int fd) : fd_(fd) {}
  ~Descriptor() { Reset(-1); }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  int get() const { return fd_; }
  /// Closes the descriptor held and holds `fd`; errno is kept for the caller.
  void Reset(int fd) {
    const int saved = errno;
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
    errno = saved;
  }

 private:
  int fd_;
};

int64_t ModifiedMillis(const struct stat& info) {
  return static_cast<int64_t>(info.st_mtim.tv_sec) * 1000 +
         info.st_mtim.tv_nsec / 1000000;
}

// Lists regular files and symbolic links below `path` (the local path of `prefix`) with
// lstat, descending into real directories only: a link to a directory is listed as a
// link and never entered.
arrow::Status ListLocal(const std::string& prefix, const std::string& path,
                        std::vector<FileInfo>* files) {
  namespace fs = std::filesystem;
  std::error_code error;
  auto status = fs::status(path, error);
  if (status.type() == fs::file_type::not_found) return arrow::Status::OK();
  if (error) return arrow::Status::IOError("cannot list ", prefix, ": ", error.message());
  if (status.type() != fs::file_type::directory) {
    return MakeError(ErrorKind::kInvalidInput,
                     "cannot list " + prefix + ": it is not a directory");
  }
  // Listed paths keep the spelling of the prefix the caller used (path or file: URI).
  const std::string base = StripTrailingSlash(prefix);
  const std::string base_path = StripTrailingSlash(path);
  fs::recursive_directory_iterator it(path, fs::directory_options::none, error);
  if (error) return arrow::Status::IOError("cannot list ", prefix, ": ", error.message());
  for (; it != fs::recursive_directory_iterator(); it.increment(error)) {
    if (error) break;
    const std::string entry = it->path().string();
    struct stat info;
    if (::lstat(entry.c_str(), &info) != 0) {
      if (errno == ENOENT) continue;  // removed while we listed
      return arrow::Status::IOError("cannot list ", entry, ": ", std::strerror(errno));
    }
    if (!S_ISREG(info.st_mode) && !S_ISLNK(info.st_mode)) continue;
    FileInfo file;
    file.location = base + entry.substr(base_path.size());
    file.size = static_cast<int64_t>(info.st_size);
    file.modified_ms = ModifiedMillis(info);
    file.symbolic_link = S_ISLNK(info.st_mode);
    files->push_back(std::move(file));
  }
  if (error) {
    return arrow::Status::IOError("cannot list ", prefix, ": ", error.message());
  }
  return arrow::Status::OK();
}

// Deletes the local file `path` below the directory `root` by walking from `root` with
// O_NOFOLLOW, so no symbolic link at or below `root` is followed.
arrow::Status DeleteLocalWithin(const std::string& root, const std::string& path) {
  auto failed = [&](const std::string& what, int error) {
    if (error == ENOENT)
      return MakeError(ErrorKind::kNotFound, "file not found: " + path);
    if (error == ELOOP || error == ENOTDIR) {
      return MakeError(ErrorKind::kInvalidInput,
                       "not deleting " + path + ": " + what +
                           " is a symbolic link or not a directory");
    }
    return arrow::Status::IOError("deleting ", path, ": ", what, ": ",
                                  std::strerror(error));
  };
  std::vector<std::string> parts;
  for (const auto& part : std::filesystem::path(path).lexically_relative(root)) {
    parts.push_back(part.string());
  }
  if (parts.empty() || parts.front() == "..") {
    return MakeError(ErrorKind::kInvalidInput,
                     "not deleting " + path + ": it is not a file below " + root);
  }
  constexpr int kFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
  Descriptor directory(::open(root.c_str(), kFlags));
  std::string walked = root;
  for (size_t i = 0; i + 1 < parts.size() && directory.get() >= 0; ++i) {
    directory.Reset(::openat(directory.get(), parts[i].c_str(), kFlags));
    walked += "/" + parts[i];
  }
  if (directory.get() < 0) return failed(walked, errno);
  struct stat info;
  if (::fstatat(directory.get(), parts.back().c_str(), &info, AT_SYMLINK_NOFOLLOW) != 0)
    return failed("stat", errno);
  if (!S_ISREG(info.st_mode)) {
    return MakeError(
        ErrorKind::kInvalidInput,
        "not deleting " + path + ": it is " +
            (S_ISLNK(info.st_mode) ? "a symbolic link" : "not a regular file"));
  }
  if (::unlinkat(directory.get(), parts.back().c_str(), 0) != 0)
    return failed("unlink", errno);
  return arrow::Status::OK();
}

// An output stream whose failures name the file and keep the cause's errno: Arrow's own
// say only "Error writing bytes to file".
// With `sync_fd` (the stream's descriptor, or -1), Close fsyncs the file first, so a
// closed stream's bytes are durable.
class LocatedOutputStream final : public arrow::io::OutputStream {
 public:
  LocatedOutputStream(std::shared_ptr<arrow::io::OutputStream> inner,
                      std::string location, int sync_fd = -1)
      : inner_(std::move(inner)), location_(std::move(location)), sync_fd_(sync_fd) {}

  arrow::Status Close() override {
    if (sync_fd_ >= 0 && !inner_->closed()) {
      ARROW_RETURN_NOT_OK(Located(inner_->Flush(), "writing "));
      if (::fsync(sync_fd_) != 0) {
        const int error = errno;
        (void)inner_->Close();
        return arrow::Status::IOError("syncing ", location_, ": ", std::strerror(error));
      }
    }
    return Located(inner_->Close(), "closing ");
  }
  /// An abandoned file is closed without its fsync: its owner deletes it.
  arrow::Status Abort() override { return Located(inner_->Abort(), "abandoning "); }
  bool closed() const override { return inner_->closed(); }
  arrow::Result<int64_t> Tell() const override { return inner_->Tell(); }
  arrow::Status Write(const void* data, int64_t nbytes) override {
    return Located(inner_->Write(data, nbytes), "writing ");
  }
  arrow::Status Write(const std::shared_ptr<arrow::Buffer>& data) override {
    return Located(inner_->Write(data), "writing ");
  }
  arrow::Status Flush() override { return Located(inner_->Flush(), "writing "); }

 private:
  arrow::Status Located(const arrow::Status& status, const char* verb) const {
    if (status.ok()) return status;
    std::string message = verb + location_ + ": " + status.message();
    if (status.detail()) message += " (" + status.detail()->ToString() + ")";
    return arrow::Status(status.code(), message);
  }

  std::shared_ptr<arrow::io::OutputStream> inner_;
  std::string location_;
  int sync_fd_;
};

class ArrowFileIO final : public FileIO {
 public:
  explicit ArrowFileIO(ArrowFileIOOptions options)
      : options_(options),
        local_(std::make_shared<arrow::fs::LocalFileSystem>()),
        memory_(std::make_shared<arrow::fs::internal::MockFileSystem>(
            std::chrono::system_clock::now())) {}

  arrow::Result<std::shared_ptr<arrow::io::RandomAccessFile>> OpenInput(
      const std::string& location) override {
    ARROW_ASSIGN_OR_RAISE(auto target, Resolve(location));
    auto file = target.fs->OpenInputFile(target.path);
    if (!file.ok()) return NotFoundOr(target, file.status(), location);
    return file;
  }

  arrow::Result<std::shared_ptr<arrow::io::OutputStream>> OpenOutput(
      const std::string& location) override {
    ARROW_ASSIGN_OR_RAISE(auto target, Resolve(location));
    auto parent = std::filesystem::path(target.path).parent_path().string();
    if (!parent.empty()) {
      FLOE_RETURN_NOT_OK_CONTEXT(target.fs->CreateDir(parent, /*recursive=*/true),
                                 "creating directory for " + location);
    }
    if (!target.memory) {
      // Arrow's own local file stream, whose descriptor Close fsyncs.
      auto file = arrow::io::FileOutputStream::Open(target.path);
      if (!file.ok()) return WithContext(file.status(), "creating " + location);
      const int fd = options_.fsync ? (*file)->file_descriptor() : -1;
      return std::shared_ptr<arrow::io::OutputStream>(
          std::make_shared<LocatedOutputStream>(std::move(*file), location, fd));
    }
    auto stream = target.fs->OpenOutputStream(target.path);
    if (!stream.ok()) return WithContext(stream.status(), "creating " + location);
    return std::shared_ptr<arrow::io::OutputStream>(
        std::make_shared<LocatedOutputStream>(std::move(*stream), location));
  }

  arrow::Status SyncFolder(const std::string& folder) override {
    ARROW_ASSIGN_OR_RAISE(auto target, Resolve(folder));
    if (target.memory || !options_.fsync) return arrow::Status::OK();
    const std::string path = target.path.empty() ? "/" : target.path;
    Descriptor directory(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (directory.get() < 0) {
      // A folder that is not there holds nothing to make durable (a commit of files
      // written elsewhere, or by hand, names them without floe having made them).
      if (errno == ENOENT) return arrow::Status::OK();
      // A folder above the table this user may pass through but not open (a home
      // directory of mode 711): floe created nothing there.
      if (errno == EACCES || errno == EPERM) return arrow::Status::OK();
      return arrow::Status::IOError("syncing folder ", folder, ": ",
                                    std::strerror(errno));
    }
    // A file system that cannot sync directories (EINVAL) makes renames durable its own
    // way, or not at all; either way there is nothing more to ask of it.
    if (::fsync(directory.get()) != 0 && errno != EINVAL) {
      return arrow::Status::IOError("syncing folder ", folder, ": ",
                                    std::strerror(errno));
    }
    return arrow::Status::OK();
  }

  arrow::Status Delete(const std::string& location) override {
    ARROW_ASSIGN_OR_RAISE(auto target, Resolve(location));
    auto status = target.fs->DeleteFile(target.path);
    if (!status.ok()) return NotFoundOr(target, status, location);
    return status;
  }

  arrow::Result<bool> Exists(const std::string& location) override {
    ARROW_ASSIGN_OR_RAISE(auto target, Resolve(location));
    ARROW_ASSIGN_OR_RAISE(auto info, target.fs->GetFileInfo(target.path));
    return info.type() != arrow::fs::FileType::NotFound;
  }

  arrow::Result<std::vector<FileInfo>> List(const std::string& prefix) override {
    ARROW_ASSIGN_OR_RAISE(auto target, Resolve(prefix));
    std::vector<FileInfo> files;
    if (target.memory) {
      arrow::fs::FileSelector selector;
      selector.base_dir = target.path;
      selector.recursive = true;
      selector.allow_not_found = true;
      ARROW_ASSIGN_OR_RAISE(auto infos, target.fs->GetFileInfo(selector));
      for (const auto& info : infos) {
        if (info.type() != arrow::fs::FileType::File) continue;
        FileInfo file;
        file.location = std::string(kMemoryPrefix) + info.path();
        file.size = info.size();
        file.modified_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                               info.mtime().time_since_epoch())
                               .count();
        files.push_back(std::move(file));
      }
    } else {
      ARROW_RETURN_NOT_OK(ListLocal(prefix, target.path, &files));
    }
    std::sort(files.begin(), files.end(), [](const FileInfo& a, const FileInfo& b) {
      return a.location < b.location;
    });
    return files;
  }

  arrow::Result<std::vector<std::string>> ListNames(const std::string& folder) override {
    ARROW_ASSIGN_OR_RAISE(auto target, Resolve(folder));
    if (target.memory) return FileIO::ListNames(folder);
    std::vector<std::string> names;
    DIR* directory = ::opendir(target.path.c_str());
    if (directory == nullptr) {
      if (errno == ENOENT) return names;
      return arrow::Status::IOError("cannot list ", folder, ": ", std::strerror(errno));
    }
    // readdir's entry type spares a stat per file; an unknown type is looked up.
    while (struct dirent* entry = ::readdir(directory)) {
      const std::string name = entry->d_name;
      if (name == "." || name == "..") continue;
      unsigned char type = entry->d_type;
      if (type == DT_UNKNOWN) {
        struct stat info;
        if (::fstatat(::dirfd(directory), entry->d_name, &info, AT_SYMLINK_NOFOLLOW) != 0)
          continue;  // removed while we listed
        type = S_ISREG(info.st_mode) ? DT_REG : S_ISLNK(info.st_mode) ? DT_LNK : DT_DIR;
      }
      if (type == DT_REG || type == DT_LNK) names.push_back(name);
    }
    ::closedir(directory);
    std::sort(names.begin(), names.end());
    return names;
  }

  arrow::Result<FileInfo> Stat(const std::string& location) override {
    ARROW_ASSIGN_OR_RAISE(auto target, Resolve(location));
    if (target.memory) return FileIO::Stat(location);
    struct stat info;
    if (::lstat(target.path.c_str(), &info) != 0) {
      if (errno == ENOENT)
        return MakeError(ErrorKind::kNotFound, "file not found: " + location);
      return arrow::Status::IOError("cannot describe ", location, ": ",
                                    std::strerror(errno));
    }
    FileInfo file;
    file.location = location;
    file.size = static_cast<int64_t>(info.st_size);
    file.modified_ms = ModifiedMillis(info);
    file.symbolic_link = S_ISLNK(info.st_mode);
    return file;
  }

  arrow::Status DeleteWithin(const std::string& root,
                             const std::string& location) override {
    if (!IsLocationUnder(location, root) ||
        CanonicalLocation(location) == CanonicalLocation(root)) {
      return MakeError(ErrorKind::kInvalidInput,
                       "not deleting " + location + ": it is not below " + root);
    }
    ARROW_ASSIGN_OR_RAISE(auto target, Resolve(location));
    if (target.memory) return Delete(location);  // the memory file system has no links
    return DeleteLocalWithin(CanonicalLocation(root), CanonicalLocation(location));
  }

  arrow::Status RenameNoReplace(const std::string& from, const std::string& to) override {
    ARROW_ASSIGN_OR_RAISE(auto source, Resolve(from));
    ARROW_ASSIGN_OR_RAISE(auto target, Resolve(to));
    if (source.memory || target.memory) {
      ARROW_ASSIGN_OR_RAISE(bool exists, Exists(to));
      if (exists) return MakeError(ErrorKind::kAlreadyExists, to + " already exists");
      return memory_->Move(source.path, target.path);
    }
    // renameat2(RENAME_NOREPLACE) is atomic on local file systems: exactly one of several
    // concurrent renames to the same target wins.
    if (::renameat2(AT_FDCWD, source.path.c_str(), AT_FDCWD, target.path.c_str(),
                    RENAME_NOREPLACE) != 0) {
      int error = errno;
      if (error == EEXIST)
        return MakeError(ErrorKind::kAlreadyExists, to + " already exists");
      return arrow::Status::IOError("renaming ", from, " to ", to, ": ",
                                    std::strerror(error));
    }
    return arrow::Status::OK();
  }

 private:
  struct Target {
    arrow::fs::FileSystem* fs;
    std::string path;
    bool memory;
  };

  arrow::Result<Target> Resolve(const std::string& location) {
    ARROW_RETURN_NOT_OK(CheckSupportedLocation(location));
    if (IsS3Scheme(LocationScheme(location))) {
      return MakeError(ErrorKind::kNotSupported,
                       "this FileIO reads local and memory:// locations, not " +
                           location +
                           " (catalog FileIOs for s3:// come from MakeFileIO)");
    }
    if (LocationScheme(location) == "memory") {
      return Target{memory_.get(), location.substr(kMemoryPrefix.size()), true};
    }
    return Target{local_.get(), LocalPath(location), false};
  }

  // A missing file is NotFound; anything else keeps Arrow's error with the location.
  static arrow::Status NotFoundOr(const Target& target, const arrow::Status& status,
                                  const std::string& location) {
    auto info = target.fs->GetFileInfo(target.path);
    if (info.ok() && info->type() == arrow::fs::FileType::NotFound) {
      return MakeError(ErrorKind::kNotFound, "file not found: " + location);
    }
    return WithContext(status, location);
  }

  ArrowFileIOOptions options_;
  std::shared_ptr<arrow::fs::LocalFileSystem> local_;
  std::shared_ptr<arrow::fs::internal::MockFileSystem> memory_;
};

}  // namespace

arrow::Result<std::vector<std::string>> FileIO::ListNames(const std::string& folder) {
  ARROW_ASSIGN_OR_RAISE(auto files, List(folder));
  const std::string base = StripTrailingSlash(folder) + "/";
  std::vector<std::string> names;
  for (const auto& file : files) {
    if (file.location.compare(0, base.size(), base) != 0) continue;
    std::string name = file.location.substr(base.size());
    if (!name.empty() && name.find('/') == std::string::npos) names.push_back(name);
  }
  return names;
}

arrow::Result<FileInfo> FileIO::Stat(const std::string& location) {
  const size_t slash = location.rfind('/');
  if (slash == std::string::npos || slash == 0) {
    return MakeError(ErrorKind::kInvalidInput, "cannot describe " + location);
  }
  ARROW_ASSIGN_OR_RAISE(auto files, List(location.substr(0, slash)));
  for (auto& file : files) {
    if (file.location == location) return std::move(file);
  }
  return MakeError(ErrorKind::kNotFound, "file not found: " + location);
}

arrow::Result<std::string> FileIO::ReadAll(const std::string& location,
                                           int64_t max_bytes) {
  ARROW_ASSIGN_OR_RAISE(auto file, OpenInput(location));
  ARROW_ASSIGN_OR_RAISE(int64_t size, file->GetSize());
  if (size > max_bytes) {
    return arrow::Status::Invalid(location, " is ", size, " bytes, more than the ",
                                  max_bytes, " bytes floe reads whole");
  }
  ARROW_ASSIGN_OR_RAISE(auto buffer, file->ReadAt(0, size));
  return buffer->ToString();
}

arrow::Status FileIO::WriteAll(const std::string& location, std::string_view bytes) {
  ARROW_ASSIGN_OR_RAISE(auto stream, OpenOutput(location));
  ARROW_RETURN_NOT_OK(stream->Write(bytes.data(), static_cast<int64_t>(bytes.size())));
  return stream->Close();
}

arrow::Result<std::shared_ptr<FileIO>> MakeArrowFileIO(ArrowFileIOOptions options) {
  return std::shared_ptr<FileIO>(std::make_shared<ArrowFileIO>(options));
}

arrow::Status FileIO::SyncFolder(const std::string&) { return arrow::Status::OK(); }

arrow::Result<std::shared_ptr<arrow::io::RandomAccessFile>> FileIO::OpenInputOfSize(
    const std::string& location, int64_t) {
  return OpenInput(location);
}

arrow::Status FileIO::WriteIfAbsent(const std::string& location, std::string_view bytes) {
  const size_t slash = location.rfind('/');
  if (slash == std::string::npos || slash + 1 == location.size()) {
    return MakeError(ErrorKind::kInvalidInput, "cannot create " + location);
  }
  // A hidden name in the same folder, so the rename stays within one directory.
  const std::string temporary = location.substr(0, slash + 1) + "." +
                                location.substr(slash + 1) + "." +
                                Uuid::Random().ToString() + ".tmp";
  arrow::Status written = WriteAll(temporary, bytes);
  if (written.ok()) written = RenameNoReplace(temporary, location);
  if (!written.ok()) DeleteBestEffort(*this, temporary, "temporary file", "");
  return written;
}

arrow::Status FileIO::CheckWriteIfAbsent(const std::string&) {
  return arrow::Status::OK();
}

bool FileIO::WritesAppearWhole(const std::string&) const { return false; }

bool FileIO::HighLatency(const std::string&) const { return false; }

std::vector<arrow::Status> FileIO::DeleteAllWithin(
    const std::string& root, const std::vector<std::string>& locations) {
  std::vector<arrow::Status> statuses;
  statuses.reserve(locations.size());
  for (const auto& location : locations) statuses.push_back(DeleteWithin(root, location));
  return statuses;
}

namespace {

// Where the path of `location` starts: after `scheme://authority`, after `scheme:`, or
// at 0 for a plain path.
size_t PathStart(const std::string& location) {
  const size_t colon = location.find(':');
  const size_t slash = location.find('/');
  if (colon == std::string::npos || slash < colon) return 0;
  if (location.compare(colon, 3, "://") == 0) {
    const size_t path = location.find('/', colon + 3);
    return path == std::string::npos ? location.size() : path;
  }
  return colon + 1;
}

// Runs `work(0)` ... `work(count - 1)` on up to eight threads (one per 64 items): each
// waits on storage, not on the CPU. Returns the first error; after one, the items not
// yet begun are skipped.
arrow::Status ForEachWaitingOnStorage(size_t count,
                                      const std::function<arrow::Status(size_t)>& work) {
  constexpr size_t kItemsPerThread = 64;
  constexpr size_t kMaxThreads = 8;
  const size_t threads = std::min(kMaxThreads, count / kItemsPerThread);
  std::atomic<size_t> next{0};
  FirstError first_error;
  auto run = [&] {
    for (size_t i = next++; i < count; i = next++) {
      arrow::Status status = work(i);
      if (status.ok()) continue;
      first_error.Record(status);
      next = count;
    }
  };
  std::vector<std::thread> workers;
  for (size_t t = 1; t < threads; ++t) workers.emplace_back(run);
  run();
  for (auto& worker : workers) worker.join();
  return first_error.status();
}

}  // namespace

arrow::Status SyncNewFiles(FileIO& io, const std::vector<std::string>& locations) {
  // Deepest folders first, each once: a folder's entry in its parent is made durable
  // after the folder's own entries, and a folder above several files is synced once.
  std::set<std::string, std::greater<>> folders;
  for (const auto& location : locations) {
    const size_t start = PathStart(location);
    size_t slash = location.rfind('/');
    while (slash != std::string::npos && slash >= start && start < location.size()) {
      const std::string folder =
          slash == start ? location.substr(0, start + 1) : location.substr(0, slash);
      if (!folders.insert(folder).second && slash != start) {
        // Its ancestors are in already.
        break;
      }
      if (slash == start) break;
      slash = location.rfind('/', slash - 1);
    }
  }
  std::vector<std::string> ordered(folders.begin(), folders.end());
  std::stable_sort(
      ordered.begin(), ordered.end(), [](const std::string& a, const std::string& b) {
        auto depth = [](const std::string& folder) {
          return std::count(folder.begin() + PathStart(folder), folder.end(), '/') +
                 (folder.back() == '/' ? 0 : 1);
        };
        return depth(a) > depth(b);
      });
  // Many folders (a fanout write's partitions) are synced by a few threads at once: each
  // sync waits on the disk, not the CPU, and every one completes before the caller swaps
  // its pointer, so their order does not matter.
  return WithContext(
      ForEachWaitingOnStorage(ordered.size(),
                              [&](size_t i) { return io.SyncFolder(ordered[i]); }),
      "making new files durable");
}

arrow::Status CheckFilesExist(FileIO& io, const std::vector<std::string>& locations) {
  Mutex mutex;
  std::vector<std::string> missing;
  arrow::Status status = ForEachWaitingOnStorage(locations.size(), [&](size_t i) {
    auto found = io.Exists(locations[i]);
    if (!found.ok()) return found.status();
    if (!*found) {
      MutexLock lock(&mutex);
      missing.push_back(locations[i]);
    }
    return arrow::Status::OK();
  });
  ARROW_RETURN_NOT_OK(status);
  if (missing.empty()) return arrow::Status::OK();
  std::sort(missing.begin(), missing.end());
  return MakeError(
      ErrorKind::kValidationFailed,
      "file " + missing.front() + " is gone" +
          (missing.size() > 1 ? " (and " + std::to_string(missing.size() - 1) + " more)"
                              : std::string()) +
          " since the write made it: nothing was committed (a remove-orphans "
          "or vacuum given a shorter age than the write took may delete a "
          "running write's files)");
}

namespace {

bool Deleted(const arrow::Status& status, const std::string& location,
             std::string_view what, std::string_view when) {
  if (status.ok() || KindOf(status) == ErrorKind::kNotFound) return true;
  std::string line = "could not delete ";
  if (!what.empty()) line += std::string(what) + " ";
  line += location;
  if (!when.empty()) line += " " + std::string(when);
  Log(LogLevel::kWarning, line + ": " + status.message());
  return false;
}

}  // namespace

bool DeleteBestEffort(FileIO& io, const std::string& location, std::string_view what,
                      std::string_view when) {
  return Deleted(io.Delete(location), location, what, when);
}

bool DeleteWithinBestEffort(FileIO& io, const std::string& root,
                            const std::string& location, std::string_view what) {
  if (root.empty()) {
    return Deleted(MakeError(ErrorKind::kInvalidInput,
                             "it is in none of the folders floe may clean"),
                   location, what, "");
  }
  return Deleted(io.DeleteWithin(root, location), location, what, "");
}

size_t DeleteAllWithinBestEffort(FileIO& io, const std::string& root,
                                 const std::vector<std::string>& locations,
                                 std::string_view what) {
  if (locations.empty()) return 0;
  size_t failures = 0;
  if (root.empty()) {
    for (const auto& location : locations)
      failures += DeleteWithinBestEffort(io, root, location, what) ? 0 : 1;
    return failures;
  }
  const std::vector<arrow::Status> statuses = io.DeleteAllWithin(root, locations);
  for (size_t i = 0; i < locations.size(); ++i) {
    const arrow::Status status = i < statuses.size()
                                     ? statuses[i]
                                     : arrow::Status::IOError("no answer for this file");
    failures += Deleted(status, locations[i], what, "") ? 0 : 1;
  }
  return failures;
}

namespace {

struct FileIORegistry {
  Mutex mutex;
  std::map<std::string, FileIOFactory, std::less<>> factories FLOE_GUARDED_BY(mutex);
};

FileIORegistry& Registry() {
  static auto* registry = [] {
    auto* made = new FileIORegistry();  // never destroyed: used until the process ends
    MutexLock lock(&made->mutex);
    FileIOFactory arrow = [](std::string_view,
                             const std::map<std::string, std::string>& properties)
        -> arrow::Result<std::shared_ptr<FileIO>> {
      ArrowFileIOOptions options;
      auto fsync = properties.find(std::string(kFsyncProperty));
      if (fsync != properties.end()) {
        if (fsync->second != "true" && fsync->second != "false") {
          return MakeError(ErrorKind::kInvalidInput,
                           std::string(kFsyncProperty) + " must be true or false");
        }
        options.fsync = fsync->second == "true";
      }
      return MakeArrowFileIO(options);
    };
    made->factories["file"] = arrow;
    made->factories["memory"] = arrow;
    FileIOFactory s3 = [](std::string_view,
                          const std::map<std::string, std::string>& properties) {
      return MakeS3FileIO(properties);
    };
    made->factories["s3"] = s3;
    made->factories["s3a"] = s3;
    return made;
  }();
  return *registry;
}

}  // namespace

arrow::Result<std::shared_ptr<FileIO>> MakeFileIO(
    std::string_view location, const std::map<std::string, std::string>& properties) {
  const std::string scheme = location.empty() ? "file" : LocationScheme(location);
  FileIOFactory factory;
  {
    auto& registry = Registry();
    MutexLock lock(&registry.mutex);
    auto found = registry.factories.find(scheme);
    if (found != registry.factories.end()) factory = found->second;
  }
  if (!factory) {
    return MakeError(ErrorKind::kNotSupported, "floe has no FileIO for " + scheme +
                                                   ":// locations (" +
                                                   RedactUri(location) + ")");
  }
  return factory(location, properties);
}

bool HasFileIOFor(std::string_view location) {
  const std::string scheme = location.empty() ? "file" : LocationScheme(location);
  auto& registry = Registry();
  MutexLock lock(&registry.mutex);
  return registry.factories.count(scheme) > 0;
}

void RegisterFileIO(std::string scheme, FileIOFactory factory) {
  auto& registry = Registry();
  MutexLock lock(&registry.mutex);
  registry.factories[std::move(scheme)] = std::move(factory);
}

arrow::Status CheckSupportedLocation(std::string_view location) {
  std::string scheme = LocationScheme(location);
  if (scheme == "memory") {
    if (location.substr(scheme.size(), 3) != "://") {
      return MakeError(ErrorKind::kInvalidInput,
                       "a memory location must start memory://");
    }
    return arrow::Status::OK();
  }
  if (IsS3Scheme(scheme)) {
    if (!HasS3FileIO()) {
      return MakeError(ErrorKind::kNotSupported,
                       "storage scheme '" + scheme +
                           "' needs the S3 FileIO, which this build of floe lacks");
    }
    const std::string_view rest = location.substr(scheme.size());
    if (rest.substr(0, 3) != "://" || rest.size() == 3 || rest[3] == '/') {
      return MakeError(
          ErrorKind::kInvalidInput,
          "location '" + RedactUri(location) + "' must be " + scheme + "://bucket/key");
    }
    // Credentials go in storage properties, never in a location (which is stored in
    // metadata files and printed): a user-info part is refused.
    const std::string_view bucket = rest.substr(3, rest.find('/', 3) - 3);
    if (bucket.find('@') != std::string_view::npos ||
        bucket.find(':') != std::string_view::npos) {
      return MakeError(ErrorKind::kInvalidInput,
                       "location '" + RedactUri(location) +
                           "' carries credentials or a port in its bucket; give them as "
                           "storage properties (s3.access-key-id, s3.endpoint)");
    }
    return arrow::Status::OK();
  }
  if (scheme != "file") {
    return MakeError(
        ErrorKind::kNotSupported,
        "storage scheme '" + scheme + "' is not supported by floe's FileIO yet");
  }
  std::string path = LocalPath(location);
  if (path.empty() || path[0] != '/') {
    return MakeError(ErrorKind::kInvalidInput,
                     "location '" + std::string(location) + "' is not absolute");
  }
  return arrow::Status::OK();
}

}  // namespace floe
