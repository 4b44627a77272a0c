// One output file that no reader ever sees half-written: the bytes go to a
// hidden temporary file in the same folder (".<name>.xstack-<token>.tmp",
// created with O_EXCL; <token> is 64 random bits drawn once per process, so
// two runs never share a temporary file even with the same pid on another
// host or pid namespace), and commit() renames it over the final path only
// after everything was written (and, if asked, synced). Until then an older
// file at the final path stays untouched; abandon() (or the destructor)
// removes the temporary file. A run's set of files is committed by
// OutputCommit (io/OutputCommit.h), not one by one.
#pragma once

#include <fcntl.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "xstack/core/Status.h"

namespace xstack {

// The folder files are created, renamed and removed in. `fd` is a folder held
// open by its owner (OutputCommit::folder()) for longer than any file made in
// it: every operation is relative to it (openat, renameat, unlinkat), so the
// files stay in that one folder whatever happens to its path meanwhile
// (renamed, replaced). fd AT_FDCWD: `path` is looked up at each
// operation. `path` also names the folder in messages.
struct Folder {
  int fd = AT_FDCWD;
  std::string path;
};

class AtomicFile {
 public:
  AtomicFile() = default;
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  AtomicFile(AtomicFile&& o) noexcept;
  AtomicFile& operator=(AtomicFile&& o) noexcept;

  // Creates the temporary file of `name` (a plain file name) in `dir`.
  Status open(const Folder& dir, const std::string& name);
  // The same in the folder of `finalPath`, looked up by path.
  Status open(const std::string& finalPath);
  // Appends bytes (retries short writes and EINTR).
  Status write(std::string_view bytes);
  // Syncs the file when `fsync` (a file system without fsync is not an
  // error), then closes it: ready for commit().
  Status finish(bool fsync);
  // Renames the finished temporary file to the final name, in its folder.
  Status commit();
  void abandon();

  uint64_t bytesWritten() const { return bytes_; }
  // For messages: the folder's path joined with the names.
  const std::string& finalPath() const { return final_; }
  const std::string& tempPath() const { return temp_; }
  // The names in the folder (empty temporary name: none, or committed).
  const std::string& name() const { return name_; }
  const std::string& tempName() const { return tempName_; }
  int folderFd() const { return dirFd_; }
  bool finished() const { return finished_; }

 private:
  // A name in the folder as the *at() calls take it.
  std::string at(const std::string& name) const;
  std::string final_, temp_, name_, tempName_, dirPath_;
  int dirFd_ = AT_FDCWD;
  int fd_ = -1;
  bool finished_ = false;
  uint64_t bytes_ = 0;
};

// The 16 hex digits of this process's random token (getrandom), as used in
// temporary names.
const std::string& processToken();
// True for a name this tool creates as a temporary in an output folder:
// ".<anything>.xstack-<16 hex>.tmp", and the older releases'
// ".<output>.tmp.<pid>" where `isOutputName(<output>)` (the caller's
// predicate of its outputs' names: this layer names none; none when empty).
bool isXstackTempName(const std::string& name,
                      const std::function<bool(std::string_view)>& isOutputName = {});

// A small file dir/name written whole to "<name>.xstack-<token>.tmp", synced,
// then renamed into place, all in `dir`.
Status writeFileAtomically(const Folder& dir, const std::string& name, const std::string& text);
// The same in the folder `dir` names, looked up by path.
Status writeFileAtomically(const std::string& dir, const std::string& name,
                           const std::string& text);

}  // namespace xstack
