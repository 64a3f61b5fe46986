// FileIO: how floe reads, writes, lists and deletes files, whatever the storage.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "arrow/io/interfaces.h"
#include "arrow/result.h"
#include "floe/util/location.h"

namespace floe {

/// A file found by FileIO::List.
struct FileInfo {
  std::string location;
  int64_t size = 0;
  int64_t modified_ms = 0;  ///< Last modification, milliseconds since the epoch.
  /// A symbolic link (to anything): listed, never followed; `size` is the link's own.
  bool symbolic_link = false;
};

/// Storage access by location (a local path, a file:// URI, or another scheme the
/// implementation supports). Implementations are thread-safe: tasks on a thread pool
/// share one. Copying is disabled; share through std::shared_ptr<FileIO>.
class FileIO {
 public:
  virtual ~FileIO() = default;
  FileIO(const FileIO&) = delete;
  FileIO& operator=(const FileIO&) = delete;

  /// Opens a file for reading. A missing file gives NotFound naming the location.
  virtual arrow::Result<std::shared_ptr<arrow::io::RandomAccessFile>> OpenInput(
      const std::string& location) = 0;
  /// OpenInput of a file whose size the caller has from metadata (a manifest's
  /// file_size_in_bytes, a Delta add's size): storage that would ask for the size first
  /// (an S3 HEAD request) takes `size` instead, so a wrong size fails the read (the
  /// Parquet footer is not where it says). The default opens the file and asks it.
  virtual arrow::Result<std::shared_ptr<arrow::io::RandomAccessFile>> OpenInputOfSize(
      const std::string& location, int64_t size);
  /// Creates a file for writing, replacing any file at the location; parent directories
  /// are created as needed. A successful Close of the stream means its bytes are durable
  /// (on local disk, the file was fsynced before it was closed; see docs/storage.md,
  /// "Durability"); the file's name and any directory created for it are not, until
  /// SyncFolder of each folder that gained an entry (SyncNewFiles).
  virtual arrow::Result<std::shared_ptr<arrow::io::OutputStream>> OpenOutput(
      const std::string& location) = 0;
  /// Deletes a file. Deleting a missing file gives NotFound.
  virtual arrow::Status Delete(const std::string& location) = 0;
  virtual arrow::Result<bool> Exists(const std::string& location) = 0;
  /// Every file (not directory) under `prefix`, recursively, in location order. A missing
  /// prefix gives an empty list. Symbolic links below `prefix` are listed as links
  /// (FileInfo::symbolic_link) and never followed, so a listing never leaves `prefix`;
  /// other special files (FIFOs, sockets, devices) are left out.
  virtual arrow::Result<std::vector<FileInfo>> List(const std::string& prefix) = 0;
  /// The names of the files (and symbolic links, never followed) directly in `folder`,
  /// sorted, without their sizes or times: a listing for callers that need names only (a
  /// Delta log, thousands of files, of which a snapshot reads a few). A missing folder
  /// gives an empty list. The default filters List(folder).
  virtual arrow::Result<std::vector<std::string>> ListNames(const std::string& folder);
  /// The file at `location`, as List describes it; NotFound when there is none. The
  /// default lists the file's folder.
  virtual arrow::Result<FileInfo> Stat(const std::string& location);
  /// Deletes the regular file `location`, which must lie below `root`, without following
  /// a symbolic link at `root` or anywhere between it and the file: what cleanup uses
  /// for files it found by listing, so that a link planted after the listing cannot
  /// redirect the delete. A link or a non-regular file on the way gives InvalidInput and
  /// deletes nothing; a missing file gives NotFound.
  virtual arrow::Status DeleteWithin(const std::string& root,
                                     const std::string& location) = 0;
  /// Renames `from` to `to`, failing with AlreadyExists if `to` exists. Atomic where the
  /// storage allows it; NotSupported where it cannot be made atomic (object stores).
  virtual arrow::Status RenameNoReplace(const std::string& from,
                                        const std::string& to) = 0;
  /// Makes the names in the directory `folder` durable: files and directories created
  /// in it, renamed into or out of it, or deleted from it since it was last synced
  /// survive a power cut (fsync of the directory on local disk). A missing folder holds
  /// nothing to make durable: OK. The default does
  /// nothing: storage where a completed write or rename is durable (object stores,
  /// memory) needs nothing more.
  virtual arrow::Status SyncFolder(const std::string& folder);

  /// Creates `location` holding `bytes` only if no file is there: of writers racing for
  /// one name exactly one succeeds, and every other gets AlreadyExists. What a commit
  /// that claims a name uses (a Delta log version). Readers never see part of the file.
  /// The name is not yet durable (SyncNewFiles). The default writes a temporary file
  /// beside `location` through OpenOutput and renames it without replacing
  /// (RenameNoReplace), deleting the temporary file on every failure; object storage
  /// sends a conditional PUT instead (If-None-Match: *). CommitStateUnknown when the file
  /// may or may not have been created by this call.
  virtual arrow::Status WriteIfAbsent(const std::string& location,
                                      std::string_view bytes);
  /// OK when WriteIfAbsent can work at `location` as far as the FileIO can tell without
  /// trying; otherwise why not (on S3: no static credentials to sign it with). What a
  /// writer asks before any file exists. The default: OK.
  virtual arrow::Status CheckWriteIfAbsent(const std::string& location);
  /// True when a file written through OpenOutput appears at its location only whole,
  /// when its stream closes, and replaces what was there at once (object storage): a
  /// writer that must never let a reader see part of a file then needs no temporary
  /// file and rename. False (the default) for file systems.
  virtual bool WritesAppearWhole(const std::string& location) const;
  /// True where every request waits on a network round trip (object storage): readers
  /// keep more requests in flight there. False (the default) for file systems.
  virtual bool HighLatency(const std::string& location) const;
  /// Deletes each of `locations` as DeleteWithin(`root`, location) does: one status per
  /// location, in order. The default calls DeleteWithin for each; object storage deletes
  /// up to 1000 in one request, and reports a file already gone as deleted (OK) rather
  /// than NotFound. What maintenance uses to delete many files.
  virtual std::vector<arrow::Status> DeleteAllWithin(
      const std::string& root, const std::vector<std::string>& locations);

  /// The most ReadAll reads by default: metadata files, manifests and manifest lists are
  /// read whole, and one claiming more than this is refused before any of it is read (a
  /// hostile or broken file must not exhaust memory).
  static constexpr int64_t kMaxReadAllBytes = int64_t{256} << 20;

  /// Reads a whole file of at most `max_bytes`; a larger one fails with Invalid naming
  /// the location, its size and the limit, having read nothing.
  arrow::Result<std::string> ReadAll(const std::string& location,
                                     int64_t max_bytes = kMaxReadAllBytes);
  /// Writes a whole file (replacing any file at the location).
  arrow::Status WriteAll(const std::string& location, std::string_view bytes);

 protected:
  FileIO() = default;
};

/// How MakeArrowFileIO's FileIO treats local disk.
struct ArrowFileIOOptions {
  /// Fsync every file before its stream closes, and directories in SyncFolder. Off only
  /// for benchmarks and scratch tables (catalog property `floe.io.fsync=false`): a power
  /// cut can then lose committed snapshots.
  bool fsync = true;
};

/// FileIO over Arrow's file systems: local paths and file:// URIs today (the scheme
/// decides). `memory://` locations go to one in-memory file system shared by the FileIO
/// (for tests).
arrow::Result<std::shared_ptr<FileIO>> MakeArrowFileIO(ArrowFileIOOptions options = {});

/// The catalog property that turns fsync off (ArrowFileIOOptions::fsync): "true" (the
/// default) or "false"; any other value is InvalidInput naming the property.
inline constexpr std::string_view kFsyncProperty = "floe.io.fsync";

/// Makes durable the names of the files just written at `locations` (each file's bytes
/// are durable once its stream closed): SyncFolder of each file's folder and of every
/// folder above it, each once, so a directory created for a file survives too. What a
/// commit calls for every file its new snapshot or log entry names for the first time,
/// before the pointer swap that publishes them.
arrow::Status SyncNewFiles(FileIO& io, const std::vector<std::string>& locations);

/// OK when a file exists at every one of `locations`; otherwise ValidationFailed naming
/// the first one missing (and how many are), or the error a check gave. What a commit
/// asks right before its pointer swap about the files it adds, so that it never
/// publishes a file that is gone (deleted by a remove-orphans or vacuum given too short
/// an age while the write ran). Many files are checked by a few threads at once.
arrow::Status CheckFilesExist(FileIO& io, const std::vector<std::string>& locations);

/// Cleanup that must not fail the operation it follows: deletes `location`. A file
/// already gone is fine; any other failure is logged as a warning, "could not delete
/// <what> <location> <when>: <why>", and gives false.
bool DeleteBestEffort(FileIO& io, const std::string& location, std::string_view what,
                      std::string_view when);
/// DeleteBestEffort through FileIO::DeleteWithin(`root`, `location`): never through a
/// link, never outside `root` (an empty root holds nothing: the delete is refused and
/// logged).
bool DeleteWithinBestEffort(FileIO& io, const std::string& root,
                            const std::string& location, std::string_view what);
/// DeleteWithinBestEffort for many files below one `root`, through
/// FileIO::DeleteAllWithin (in batches on object storage); gives how many could not be
/// deleted (each logged).
size_t DeleteAllWithinBestEffort(FileIO& io, const std::string& root,
                                 const std::vector<std::string>& locations,
                                 std::string_view what);

/// Makes the FileIO for the files under `location`, configured by `properties` (a
/// catalog's, or a table's when its catalog vends them). Catalogs take one through
/// CatalogOptions::io_factory; MakeFileIO is the default.
using FileIOFactory = std::function<arrow::Result<std::shared_ptr<FileIO>>(
    std::string_view location, const std::map<std::string, std::string>& properties)>;

/// The default FileIOFactory: the factory registered for `location`'s scheme
/// (LocationScheme; an empty location counts as a local path). "file" and "memory" are
/// built in (MakeArrowFileIO: each call makes a FileIO with its own in-memory file
/// system), and so are "s3" and "s3a" (MakeS3FileIO); another scheme gives NotSupported
/// naming it, unless registered.
arrow::Result<std::shared_ptr<FileIO>> MakeFileIO(
    std::string_view location, const std::map<std::string, std::string>& properties);

/// True when MakeFileIO has a factory for `location`'s scheme.
bool HasFileIOFor(std::string_view location);

/// Makes MakeFileIO use `factory` for locations with `scheme` (lower case), replacing
/// any factory registered before. Thread-safe.
void RegisterFileIO(std::string scheme, FileIOFactory factory);

/// OK when floe's FileIO reads and writes `location`: an absolute path, a file: URI, a
/// memory:// location, or an s3:// or s3a:// location naming a bucket (when this build
/// has the S3 FileIO, s3_file_io.h). Otherwise NotSupported (another scheme) or
/// InvalidInput (a relative path). The eligibility gate and the FileIO both ask this one
/// function.
arrow::Status CheckSupportedLocation(std::string_view location);

}  // namespace floe
