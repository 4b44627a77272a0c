#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "xstack/cmd/report/stages/ReportStages.h"

namespace fs = std::filesystem;

namespace xstack {
namespace {

// Rank 0: --out is a folder (created with its parents when missing) this user
// can write and search. Never throws: a path the file system refuses (no search
// permission on a parent, a symlink loop, over PATH_MAX, through a file) is an
// Error naming the path and the reason. `made`: the folders it created, --out
// first (by the path's lexical ancestors that were missing and exist after).
Status prepareOutDir(const std::string& out, std::vector<CreatedFolder>& made) {
  std::vector<std::string> missing;
  struct stat st {};
  for (fs::path p = fs::path(out).lexically_normal(); !p.empty() && p != p.parent_path();
       p = p.parent_path()) {
    if (p.filename() == "." || p.filename() == "..") break;
    if (::lstat(p.c_str(), &st) == 0 || errno != ENOENT) break;
    missing.push_back(p.string());
  }
  std::error_code created, probed;
  fs::create_directories(out, created);
  for (const std::string& p : missing)
    if (::lstat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
      made.push_back({p, static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino)});
  if (!fs::is_directory(out, probed)) {
    const std::error_code& why = created ? created : probed;
    return Error{"--out " + out + ": not a folder and cannot be created" +
                 (why ? ": " + why.message() : std::string())};
  }
  if (::access(out.c_str(), W_OK | X_OK) != 0)
    return Error{"--out " + out + ": folder not writable"};
  return {};
}

}  // namespace

void ReportRun::removeCreatedOutDirs() {
  for (const CreatedFolder& f : createdOut) {
    struct stat st {};
    if (::lstat(f.path.c_str(), &st) != 0 || static_cast<uint64_t>(st.st_dev) != f.device ||
        static_cast<uint64_t>(st.st_ino) != f.inode || ::rmdir(f.path.c_str()) != 0)
      break;  // not ours any more, or not empty: it stays, and so do its parents
  }
  createdOut.clear();
}

// collective: rank 0 checks and locks the output folder before any rank lists
// or reads an input; every rank learns the outcome (allTrue) and stops with it.
Status lockOutputStage(ReportRun& run) {
  Status outOk = run.root() ? prepareOutDir(run.options.outDir, run.createdOut) : Status{};
  std::vector<std::string> cleanNotes;
  if (run.root() && outOk.ok()) outOk = run.outCommit.lock(run.options.outDir, cleanNotes);
  for (const auto& n : cleanNotes) run.log("note: " + n);
  if (run.comm.allTrue(outOk.ok())) return {};
  const std::string why = outOk.ok() ? "output folder check failed" : outOk.error().message;
  return Failure::outputDir(run.options.outDir, why).onRank(0, {});
}

}  // namespace xstack
