#include "xstack/trace/TraceFileWriter.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
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
// output folder and this process's token. -1: no folder locked.
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

bool isHex16(const std::string& s, size_t pos) {
  if (s.size() < pos + 16) return false;
  for (size_t i = pos; i < pos + 16; ++i)
    if (!std::isxdigit(static_cast<unsigned char>(s[i])) || std::isupper(s[i])) return false;
  return true;
}

std::string errnoText() { return std::strerror(errno); }

// A small file written whole, synced, then renamed into place.
Status writeFileAtomically(const std::string& dir, const std::string& name,
                           const std::string& text) {
  const std::string temp = (fs::path(dir) / (name + ".xstack-" + processToken() + ".tmp")).string();
  const std::string path = (fs::path(dir) / name).string();
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return Error{temp + ": cannot create: " + errnoText()};
  bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ok = ::fsync(fd) == 0 && ok;
  ok = ::close(fd) == 0 && ok;
  if (!ok || std::rename(temp.c_str(), path.c_str()) != 0) {
    std::string msg = path + ": cannot write: " + errnoText();
    ::unlink(temp.c_str());
    return Error{msg};
  }
  return {};
}

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

const std::string& processToken() {
  static const std::string token = [] {
    uint64_t v = 0;
    if (::getrandom(&v, sizeof v, 0) != static_cast<ssize_t>(sizeof v))
      v = static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) ^
          (static_cast<uint64_t>(::getpid()) << 32) ^ reinterpret_cast<uintptr_t>(&v);
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
    std::memcpy(gToken, buf, sizeof buf);
    return std::string(buf);
  }();
  return token;
}

bool isXstackTempName(const std::string& n) {
  static const std::string kMid = ".xstack-", kTail = ".tmp";
  if (n.size() > 1 + kMid.size() + 16 + kTail.size() && n[0] == '.' &&
      n.compare(n.size() - kTail.size(), kTail.size(), kTail) == 0) {
    const size_t mid = n.size() - kTail.size() - 16 - kMid.size();
    if (n.compare(mid, kMid.size(), kMid) == 0 && isHex16(n, mid + kMid.size())) return true;
  }
  // Older releases: ".traceFile_<k>_<g>.json[.gz].tmp.<pid>".
  const size_t t = n.rfind(".tmp.");
  if (n.rfind(".traceFile_", 0) != 0 || t == std::string::npos || t + 5 == n.size()) return false;
  return std::all_of(n.begin() + static_cast<std::ptrdiff_t>(t + 5), n.end(),
                     [](char c) { return c >= '0' && c <= '9'; });
}

bool isTraceFileName(const std::string& n) {
  static const std::regex kPattern(R"(traceFile_[0-9]+_[0-9]+\.(json|pftrace)(\.gz)?)");
  return std::regex_match(n, kPattern);
}

bool isAnalysisFileName(const std::string& n) {
  return n == "steps.csv" || n == "findings.json" || n == "report.html";
}

bool isCommittedOutputName(const std::string& n) {
  return isTraceFileName(n) || isAnalysisFileName(n);
}

struct TraceFileWriter::Gzip {
  z_stream z{};
  std::string out = std::string(1 << 20, '\0');
  ~Gzip() { deflateEnd(&z); }
};

TraceFileWriter::TraceFileWriter() = default;
TraceFileWriter::~TraceFileWriter() { abandon(); }

TraceFileWriter::TraceFileWriter(TraceFileWriter&& o) noexcept { *this = std::move(o); }

TraceFileWriter& TraceFileWriter::operator=(TraceFileWriter&& o) noexcept {
  if (this != &o) {
    abandon();
    final_ = std::move(o.final_);
    temp_ = std::move(o.temp_);
    fd_ = o.fd_;
    first_ = o.first_;
    finished_ = o.finished_;
    bytes_ = o.bytes_;
    options_ = o.options_;
    gz_ = std::move(o.gz_);
    o.fd_ = -1;
    o.temp_.clear();
  }
  return *this;
}

Status TraceFileWriter::open(const std::string& finalPath, const Options& options) {
  options_ = options;
  final_ = finalPath;
  fs::path p(finalPath);
  temp_ = (p.parent_path() / ("." + p.filename().string() + ".xstack-" + processToken() + ".tmp"))
              .string();
  // O_EXCL: never write into a file another writer created (the token makes
  // a clash practically impossible; this makes it an error, not a mix).
  fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    std::string msg = temp_ + ": cannot create: " + std::strerror(errno);
    temp_.clear();
    return Error{msg};
  }
  if (options_.gzip) {
    gz_ = std::make_unique<Gzip>();
    // windowBits 15 + 16: a gzip header, so the file is a plain .gz
    if (deflateInit2(&gz_->z, options_.gzipLevel, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
        Z_OK)
      return Error{temp_ + ": zlib init failed"};
  }
  return options_.raw ? Status{} : writeAll("{\"traceEvents\":[");
}

Status TraceFileWriter::writeAll(std::string_view text) {
  if (gz_) return deflateSome(text, Z_NO_FLUSH);
  return writeRaw(text.data(), text.size());
}

Status TraceFileWriter::deflateSome(std::string_view text, int flush) {
  z_stream& z = gz_->z;
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());  // pieces are far below 4 GiB
  int rc;
  do {
    z.next_out = reinterpret_cast<Bytef*>(gz_->out.data());
    z.avail_out = static_cast<uInt>(gz_->out.size());
    rc = deflate(&z, flush);
    if (rc == Z_STREAM_ERROR) return Error{temp_ + ": zlib error"};
    size_t have = gz_->out.size() - z.avail_out;
    if (Status s = writeRaw(gz_->out.data(), have); !s) return s;
  } while (z.avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
  return {};
}

Status TraceFileWriter::writeRaw(const char* p, size_t left) {
  while (left > 0) {
    ssize_t n = ::write(fd_, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Error{temp_ + ": write failed after " + std::to_string(bytes_) +
                   " bytes: " + std::strerror(errno)};
    }
    p += n;
    left -= static_cast<size_t>(n);
    bytes_ += static_cast<uint64_t>(n);
  }
  return {};
}

Status TraceFileWriter::appendEvents(std::string_view text) {
  if (text.empty()) return {};
  if (first_ && !options_.raw) {
    first_ = false;
    if (text.front() == ',') text.remove_prefix(1);
  }
  return writeAll(text);
}

Status TraceFileWriter::finish(std::string_view otherDataJson) {
  if (options_.raw) {
    if (Status s = writeAll(otherDataJson); !s) return s;
  } else {
    std::string tail = "\n],\"displayTimeUnit\":\"ns\",\"otherData\":";
    tail += otherDataJson;
    tail += "}\n";
    if (Status s = writeAll(tail); !s) return s;
  }
  if (gz_) {
    if (Status s = deflateSome({}, Z_FINISH); !s) return s;
    gz_.reset();
  }
  if (options_.fsync && ::fsync(fd_) != 0 && errno != EINVAL && errno != EROFS)
    return Error{temp_ + ": fsync failed: " + std::strerror(errno)};
  if (::close(fd_) != 0) {
    fd_ = -1;
    return Error{temp_ + ": close failed: " + std::strerror(errno)};
  }
  fd_ = -1;
  finished_ = true;
  return {};
}

Status TraceFileWriter::commit() {
  if (!finished_) return Error{final_ + ": commit before finish"};
  if (std::rename(temp_.c_str(), final_.c_str()) != 0)
    return Error{final_ + ": cannot rename from " + temp_ + ": " + std::strerror(errno)};
  temp_.clear();
  return {};
}

void TraceFileWriter::abandon() {
  if (fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
  }
  if (!temp_.empty()) {
    ::unlink(temp_.c_str());
    temp_.clear();
  }
}

}  // namespace xstack

namespace xstack {

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
  processToken();  // the handler's copy of the token is set before the handler can run
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

Status OutputCommit::checkTargets(const std::vector<TraceFileWriter>& writers) const {
  std::vector<std::string> problems;
  if (::access(dir_.c_str(), W_OK | X_OK) != 0)
    problems.push_back(dir_ + ": cannot replace files in this folder: " + errnoText());
  struct stat dirSt {};
  const bool sticky = ::stat(dir_.c_str(), &dirSt) == 0 && (dirSt.st_mode & S_ISVTX);
  const uid_t me = ::geteuid();
  for (const TraceFileWriter& w : writers) {
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

Status OutputCommit::commit(std::vector<TraceFileWriter>& writers, Result& result) {
  if (Status s = checkTargets(writers); !s) return s;
  std::set<std::string> newNames;
  for (const TraceFileWriter& w : writers)
    newNames.insert(fs::path(w.finalPath()).filename().string());
  std::vector<std::string> stale;
  for (const std::string& n : namesIn(dir_))
    if (isCommittedOutputName(n) && !newNames.count(n)) stale.push_back(n);
  std::string journal = "xstack-commit 1\n";
  for (const TraceFileWriter& w : writers)
    journal += "new\t" + fs::path(w.finalPath()).filename().string() + "\t" +
               fs::path(w.tempPath()).filename().string() + "\n";
  for (const std::string& n : stale) journal += "stale\t" + n + "\n";
  gInCommit.store(true);
  if (Status s = writeFileAtomically(dir_, kJournal, journal); !s) {
    gInCommit.store(false);
    return Error{"cannot write the commit journal, nothing replaced: " + s.error().message};
  }
  syncFolder(dirFd_);
  std::vector<std::string> renamed;
  for (size_t i = 0; i < writers.size(); ++i) {
    if (i == 1 && faultInjected("kill-commit", 0)) std::raise(SIGKILL);
    const std::string name = fs::path(writers[i].finalPath()).filename().string();
    // Test hook: "commit-rename:0" fails the second rename as a real one would.
    Status s = i == 1 && faultInjected("commit-rename", 0)
                   ? Status{Error{writers[i].finalPath() + ": injected rename failure"}}
                   : writers[i].commit();
    if (!s) {
      std::vector<std::string> old;
      for (size_t j = i; j < writers.size(); ++j) {
        old.push_back(fs::path(writers[j].finalPath()).filename().string());
        writers[j].abandon();
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
  for (const std::string& n : stale) {
    if (::unlinkat(dirFd_, n.c_str(), 0) == 0)
      ++result.staleRemoved;
    else
      result.notes.push_back("cannot remove the earlier output file " + n + ": " + errnoText());
  }
  ::unlinkat(dirFd_, kJournal, 0);
  syncFolder(dirFd_);
  gInCommit.store(false);
  result.committed = renamed.size();
  return {};
}

}  // namespace xstack
