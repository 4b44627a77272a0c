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
#include <fstream>
#include <mutex>
#include <regex>
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

std::vector<std::string> namesIn(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    names.push_back(it->path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string joinNames(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s.empty() ? "none" : s;
}

}  // namespace

bool isTraceFileName(const std::string& n) {
  static const std::regex kPattern(R"(traceFile_[0-9]+_[0-9]+\.(json|pftrace)(\.gz)?)");
  return std::regex_match(n, kPattern);
}

bool isAnalysisFileName(const std::string& n) {
  return n == "steps.csv" || n == "ranks.csv" || n == "kernels.csv" || n == "findings.json" ||
         n == "report.html";
}

bool isCommittedOutputName(const std::string& n) {
  return isTraceFileName(n) || isAnalysisFileName(n);
}

std::string rollForwardJournal(const std::string& dir) {
  const std::string path = (fs::path(dir) / kJournal).string();
  std::ifstream in(path);
  if (!in) return {};
  std::string line, word, a, b;
  std::getline(in, line);
  if (line != "xstack-commit 1") return {};  // not ours: left alone
  size_t renamed = 0, removed = 0;
  auto plain = [](const std::string& n) {
    return !n.empty() && n != "." && n != ".." && n.find('/') == std::string::npos;
  };
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    if (!std::getline(ls, word, '\t')) continue;
    if (word == "new" && std::getline(ls, a, '\t') && std::getline(ls, b, '\t') && plain(a) &&
        plain(b) && isXstackTempName(b)) {
      const fs::path target = fs::path(dir) / a, temp = fs::path(dir) / b;
      if (::access(temp.c_str(), F_OK) == 0 && std::rename(temp.c_str(), target.c_str()) == 0)
        ++renamed;
    } else if (word == "stale" && std::getline(ls, a, '\t') && isCommittedOutputName(a)) {
      if (::unlink((fs::path(dir) / a).c_str()) == 0) ++removed;
    }
  }
  ::unlink(path.c_str());
  return "completed the interrupted commit of an earlier run (journal " + path +
         "): " + std::to_string(renamed) + " files renamed into place, " + std::to_string(removed) +
         " stale files removed";
}

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
  if (std::string done = rollForwardJournal(outDir); !done.empty()) notes.push_back(done);
  size_t temps = 0;
  for (const std::string& n : namesIn(outDir))
    if (isXstackTempName(n) && ::unlinkat(dirFd_, n.c_str(), 0) == 0) ++temps;
  if (temps)
    notes.push_back("removed " + std::to_string(temps) +
                    " temporary files left in --out by an interrupted run");
  return {};
}

Status OutputCommit::checkTargets(const std::vector<AtomicFile*>& files) const {
  std::vector<std::string> problems;
  if (::access(dir_.c_str(), W_OK | X_OK) != 0)
    problems.push_back(dir_ + ": cannot replace files in this folder: " + errnoText());
  struct stat dirSt {};
  const bool sticky = ::stat(dir_.c_str(), &dirSt) == 0 && (dirSt.st_mode & S_ISVTX);
  const uid_t me = ::geteuid();
  for (const AtomicFile* f : files) {
    const AtomicFile& w = *f;
    struct stat st {};
    if (!w.finished() || ::lstat(w.tempPath().c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
      problems.push_back(w.tempPath() + ": the finished temporary file is gone");
      continue;
    }
    if (::lstat(w.finalPath().c_str(), &st) != 0) continue;  // a new name
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
  for (const AtomicFile* w : files) newNames.insert(fs::path(w->finalPath()).filename().string());
  std::vector<std::string> stale;
  for (const std::string& n : namesIn(dir_))
    if (isCommittedOutputName(n) && !newNames.count(n)) stale.push_back(n);
  std::string journal = "xstack-commit 1\n";
  for (const AtomicFile* w : files)
    journal += "new\t" + fs::path(w->finalPath()).filename().string() + "\t" +
               fs::path(w->tempPath()).filename().string() + "\n";
  for (const std::string& n : stale) journal += "stale\t" + n + "\n";
  gInCommit.store(true);
  if (Status s = writeFileAtomically(dir_, kJournal, journal); !s) {
    gInCommit.store(false);
    return Error{"cannot write the commit journal, nothing replaced: " + s.error().message};
  }
  syncFolder(dirFd_);
  std::vector<std::string> renamed;
  for (size_t i = 0; i < files.size(); ++i) {
    if (i == 1 && faultInjected("kill-commit", 0)) std::raise(SIGKILL);
    const std::string name = fs::path(files[i]->finalPath()).filename().string();
    // Test hook: "commit-rename:0" fails the second rename as a real one would.
    Status s = i == 1 && faultInjected("commit-rename", 0)
                   ? Status{Error{files[i]->finalPath() + ": injected rename failure"}}
                   : files[i]->commit();
    if (!s) {
      std::vector<std::string> old;
      for (size_t j = i; j < files.size(); ++j) {
        old.push_back(fs::path(files[j]->finalPath()).filename().string());
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
  return {};
}

}  // namespace xstack
