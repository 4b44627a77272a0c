#include "xstack/io/OutputCommit.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <set>
#include <sstream>

#include "xstack/core/FaultInjection.h"

namespace xstack {
namespace {

namespace fs = std::filesystem;

constexpr const char* kJournal = ".xstack-commit";

// State for the signal handler (async-signal-safe access only): the locked
// output folder and this process's token (copied by lock()). -1: no folder locked.
std::atomic<int> gOutDirFd{-1};
std::atomic<bool> gInCommit{false};
char gToken[17];

bool endsWith(const char* s, size_t n, const char* suffix, size_t m) {
  if (n < m) return false;
  for (size_t i = 0; i < m; ++i)
    if (s[n - m + i] != suffix[i]) return false;
  return true;
}

// Unlinks every entry of the folder whose name ends in "xstack-<token>.tmp"
// (raw getdents64 and unlinkat: async-signal-safe). A few passes, since
// unlinking while listing may skip entries.
void unlinkOwnTemps(int dirFd) {
  char suffix[40] = "xstack-";
  for (int i = 0; i < 16; ++i) suffix[7 + i] = gToken[i];
  const char tail[] = ".tmp";
  for (int i = 0; i < 5; ++i) suffix[23 + i] = tail[i];
  const size_t m = 27;
  alignas(8) static char buf[1 << 15];
  for (int pass = 0; pass < 4; ++pass) {
    bool removed = false;
    ::lseek(dirFd, 0, SEEK_SET);
    for (;;) {
      long n = ::syscall(SYS_getdents64, dirFd, buf, sizeof buf);
      if (n <= 0) break;
      for (long off = 0; off < n;) {
        auto* d = reinterpret_cast<struct dirent64*>(buf + off);
        const size_t len = std::strlen(d->d_name);
        if (endsWith(d->d_name, len, suffix, m) && ::unlinkat(dirFd, d->d_name, 0) == 0)
          removed = true;
        off += d->d_reclen;
      }
    }
    if (!removed) break;
  }
}

// mpirun sends SIGTERM to the survivors when a rank dies: remove this run's
// temporaries, unless a commit is being applied (its journal needs them).
void onTerminate(int sig) {
  const int fd = gOutDirFd.load();
  if (fd >= 0 && !gInCommit.load()) unlinkOwnTemps(fd);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

void installHandlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (int sig : {SIGTERM, SIGINT, SIGHUP}) std::signal(sig, onTerminate);
  });
}

std::string errnoText() { return std::strerror(errno); }

void syncFolder(int dirFd) {
  if (dirFd >= 0) ::fsync(dirFd);
}

// The entries of the folder `dirFd` (not "." and ".."), sorted; none if it
// cannot be listed.
std::vector<std::string> namesIn(int dirFd) {
  std::vector<std::string> names;
  const int fd = ::openat(dirFd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR* d = fd < 0 ? nullptr : ::fdopendir(fd);
  if (!d) {
    if (fd >= 0) ::close(fd);
    return names;
  }
  while (const dirent* e = ::readdir(d))
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0)
      names.emplace_back(e->d_name);
  ::closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

// "<device>\t<inode>" of the folder `dirFd`, empty if it cannot be stat'ed:
// the identity a journal records.
std::string folderIdentity(int dirFd) {
  struct stat st {};
  if (::fstat(dirFd, &st) != 0) return {};
  return std::to_string(st.st_dev) + "\t" + std::to_string(st.st_ino);
}

// The whole small file `name` in `dirFd` (not through a symlink); false if
// it cannot be read.
bool readSmallFile(int dirFd, const char* name, std::string& text) {
  const int fd = ::openat(dirFd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return false;
  char buf[1 << 16];
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof buf)) > 0) text.append(buf, static_cast<size_t>(n));
  ::close(fd);
  return n == 0;
}

// The current path of the open folder `dirFd` (from /proc), or why not.
std::string currentPathOf(int dirFd) {
  char link[64], buf[4096];
  std::snprintf(link, sizeof link, "/proc/self/fd/%d", dirFd);
  const ssize_t n = ::readlink(link, buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : "unknown (" + errnoText() + ")";
}

std::string joinNames(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s.empty() ? "none" : s;
}

}  // namespace

namespace {

bool plainName(const std::string& n) {
  return !n.empty() && n != "." && n != ".." && n.find('/') == std::string::npos;
}

// Applies one line of a journal in the folder `dirFd`: renames a listed
// temporary into place, removes a listed stale file. Anything else (a path,
// a name this tool never writes) is ignored.
void applyJournalLine(int dirFd, const std::string& line, const OutputNamePredicate& isOutputName,
                      size_t& renamed, size_t& removed) {
  std::istringstream ls(line);
  std::string word, a, b;
  if (!std::getline(ls, word, '\t')) return;
  if (word == "new" && std::getline(ls, a, '\t') && std::getline(ls, b, '\t') && plainName(a) &&
      plainName(b) && isXstackTempName(b, isOutputName)) {
    if (::renameat(dirFd, b.c_str(), dirFd, a.c_str()) == 0) ++renamed;
  } else if (word == "stale" && std::getline(ls, a, '\t') && plainName(a) && isOutputName &&
             isOutputName(a)) {
    if (::unlinkat(dirFd, a.c_str(), 0) == 0) ++removed;
  }
}

}  // namespace

std::string rollForwardJournal(const Folder& dir, const OutputNamePredicate& isOutputName) {
  std::string text, line;
  if (!readSmallFile(dir.fd, kJournal, text)) return {};
  const std::string path = (fs::path(dir.path) / kJournal).string();
  std::istringstream in(text);
  std::getline(in, line);
  if (line == "xstack-commit 2") {  // names its folder: applied only there
    std::string id;
    std::getline(in, id);
    if (id != "folder\t" + folderIdentity(dir.fd)) {
      ::unlinkat(dir.fd, kJournal, 0);
      return "removed the commit journal " + path +
             " of another folder (copied here with its files, not applied): an interrupted "
             "commit's files stay as they were copied";
    }
  } else if (line != "xstack-commit 1") {  // version 1 (older releases) names no folder
    return {};                             // not ours: left alone
  }
  size_t renamed = 0, removed = 0;
  while (std::getline(in, line)) applyJournalLine(dir.fd, line, isOutputName, renamed, removed);
  ::unlinkat(dir.fd, kJournal, 0);
  return "completed the interrupted commit of an earlier run (journal " + path +
         "): " + std::to_string(renamed) + " files renamed into place, " + std::to_string(removed) +
         " stale files removed";
}

OutputCommit::OutputCommit(OutputNamePredicate isOutputName)
    : isOutputName_(std::move(isOutputName)) {}

OutputCommit::~OutputCommit() {
  if (dirFd_ < 0) return;
  int expected = dirFd_;
  gOutDirFd.compare_exchange_strong(expected, -1);
  ::close(dirFd_);  // releases the lock
}

Status OutputCommit::lock(const std::string& outDir, std::vector<std::string>& notes) {
  dir_ = outDir;
  // The handler's copy of the token is set before the handler can run.
  std::memcpy(gToken, processToken().c_str(), sizeof gToken);
  dirFd_ = ::open(outDir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dirFd_ < 0) return Error{"--out " + outDir + ": cannot open: " + errnoText()};
  if (::flock(dirFd_, LOCK_EX | LOCK_NB) != 0) {
    if (errno == EWOULDBLOCK) {
      ::close(dirFd_);
      dirFd_ = -1;
      return Error{"--out " + outDir +
                   ": another xstack run is writing into this folder (it holds its lock); "
                   "nothing written by this run"};
    }
    notes.push_back("--out " + outDir + ": the file system does not support locks (" + errnoText() +
                    "); concurrent runs into it are not detected");
  }
  installHandlers();
  gOutDirFd.store(dirFd_);
  // Leftovers of dead runs (the lock says no live run uses the folder).
  if (std::string done = rollForwardJournal(folder(), isOutputName_); !done.empty())
    notes.push_back(done);
  size_t temps = 0;
  for (const std::string& n : namesIn(dirFd_))
    if (isXstackTempName(n, isOutputName_) && ::unlinkat(dirFd_, n.c_str(), 0) == 0) ++temps;
  if (temps)
    notes.push_back("removed " + std::to_string(temps) +
                    " temporary files left in --out by an interrupted run");
  return {};
}

Status OutputCommit::checkTargets(const std::vector<AtomicFile*>& files) const {
  std::vector<std::string> problems;
  if (::faccessat(dirFd_, ".", W_OK | X_OK, 0) != 0)
    problems.push_back(dir_ + ": cannot replace files in this folder: " + errnoText());
  struct stat dirSt {};
  const bool sticky = ::fstat(dirFd_, &dirSt) == 0 && (dirSt.st_mode & S_ISVTX);
  const uid_t me = ::geteuid();
  for (const AtomicFile* f : files) {
    const AtomicFile& w = *f;
    struct stat st {};
    if (w.folderFd() != dirFd_) {
      problems.push_back(w.finalPath() + ": not written in the locked --out folder");
      continue;
    }
    if (!w.finished() || ::fstatat(dirFd_, w.tempName().c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 ||
        !S_ISREG(st.st_mode)) {
      problems.push_back(w.tempPath() + ": the finished temporary file is gone");
      continue;
    }
    if (::fstatat(dirFd_, w.name().c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;  // new
    if (S_ISDIR(st.st_mode))
      problems.push_back(w.finalPath() + ": is a folder");
    else if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
      problems.push_back(w.finalPath() + ": is not a regular file");
    else if (sticky && me != 0 && st.st_uid != me && dirSt.st_uid != me)
      problems.push_back(w.finalPath() + ": owned by another user in a sticky folder");
  }
  if (problems.empty()) return {};
  std::string msg = "cannot replace every trace file, so none was replaced: ";
  for (size_t i = 0; i < problems.size(); ++i) msg += (i ? "; " : "") + problems[i];
  return Error{msg};
}

void OutputCommit::removeStale(const std::vector<std::string>& stale, Result& result) const {
  for (const std::string& n : stale) {
    if (::unlinkat(dirFd_, n.c_str(), 0) == 0)
      ++result.staleRemoved;
    else if (errno != ENOENT)  // gone already: nothing of another run stays
      result.staleKept.push_back((fs::path(dir_) / n).string() + ": " + errnoText());
  }
}

Status OutputCommit::commit(const std::vector<AtomicFile*>& files, Result& result) {
  if (Status s = checkTargets(files); !s) return s;
  std::set<std::string> newNames;
  for (const AtomicFile* w : files) newNames.insert(w->name());
  std::vector<std::string> stale;
  for (const std::string& n : namesIn(dirFd_))
    if (isOutputName(n) && !newNames.count(n)) stale.push_back(n);
  std::string journal = "xstack-commit 2\nfolder\t" + folderIdentity(dirFd_) + "\n";
  for (const AtomicFile* w : files) journal += "new\t" + w->name() + "\t" + w->tempName() + "\n";
  for (const std::string& n : stale) journal += "stale\t" + n + "\n";
  gInCommit.store(true);
  if (Status s = writeFileAtomically(folder(), kJournal, journal); !s) {
    gInCommit.store(false);
    return Error{"cannot write the commit journal, nothing replaced: " + s.error().message};
  }
  syncFolder(dirFd_);
  std::vector<std::string> renamed;
  for (size_t i = 0; i < files.size(); ++i) {
    if (i == 1 && faultInjected("kill-commit", 0)) std::raise(SIGKILL);
    const std::string name = files[i]->name();
    // Test hook: "commit-rename:0" fails the second rename as a real one would.
    Status s = i == 1 && faultInjected("commit-rename", 0)
                   ? Status{Error{files[i]->finalPath() + ": injected rename failure"}}
                   : files[i]->commit();
    if (!s) {
      std::vector<std::string> old;
      for (size_t j = i; j < files.size(); ++j) {
        old.push_back(files[j]->name());
        files[j]->abandon();
      }
      ::unlinkat(dirFd_, kJournal, 0);
      gInCommit.store(false);
      return Error{s.error().message + "; new (this run): " + joinNames(renamed) +
                   "; old or absent (not replaced): " + joinNames(old) +
                   "; earlier trace files kept"};
    }
    renamed.push_back(name);
  }
  syncFolder(dirFd_);
  removeStale(stale, result);
  ::unlinkat(dirFd_, kJournal, 0);
  syncFolder(dirFd_);
  gInCommit.store(false);
  result.committed = renamed.size();
  result.folderMoved = movedAway();
  result.folderPath = result.folderMoved.empty() ? dir_ : currentPathOf(dirFd_);
  return {};
}

std::string OutputCommit::movedAway() const {
  struct stat now {
  }, locked{};
  if (::stat(dir_.c_str(), &now) == 0 && ::fstat(dirFd_, &locked) == 0 &&
      now.st_dev == locked.st_dev && now.st_ino == locked.st_ino)
    return {};
  return "--out " + dir_ +
         " was renamed or replaced during the run: this run's files are in the folder it named "
         "when the run started, now at " +
         currentPathOf(dirFd_) + "; the folder now at " + dir_ + ", if any, was not touched";
}

}  // namespace xstack
