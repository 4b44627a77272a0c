#include "xstack/io/AtomicFile.h"

#include <fcntl.h>
#include <sys/random.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace xstack {
namespace {

namespace fs = std::filesystem;

bool isHex16(const std::string& s, size_t pos) {
  if (s.size() < pos + 16) return false;
  for (size_t i = pos; i < pos + 16; ++i)
    if (!std::isxdigit(static_cast<unsigned char>(s[i])) || std::isupper(s[i])) return false;
  return true;
}

std::string errnoText() { return std::strerror(errno); }

// `name` as the *at() calls in `dir` take it.
std::string atName(const Folder& dir, const std::string& name) {
  return dir.fd == AT_FDCWD ? (fs::path(dir.path) / name).string() : name;
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
    return std::string(buf);
  }();
  return token;
}

bool isXstackTempName(const std::string& n,
                      const std::function<bool(std::string_view)>& isOutputName) {
  static const std::string kMid = ".xstack-", kTail = ".tmp";
  if (n.size() > 1 + kMid.size() + 16 + kTail.size() && n[0] == '.' &&
      n.compare(n.size() - kTail.size(), kTail.size(), kTail) == 0) {
    const size_t mid = n.size() - kTail.size() - 16 - kMid.size();
    if (n.compare(mid, kMid.size(), kMid) == 0 && isHex16(n, mid + kMid.size())) return true;
  }
  // Older releases: ".<output>.tmp.<pid>" (they wrote traces only).
  const size_t t = n.rfind(".tmp.");
  if (n.empty() || n[0] != '.' || t == std::string::npos || t < 2 || t + 5 == n.size() ||
      !isOutputName || !isOutputName(std::string_view(n).substr(1, t - 1)))
    return false;
  return std::all_of(n.begin() + static_cast<std::ptrdiff_t>(t + 5), n.end(),
                     [](char c) { return c >= '0' && c <= '9'; });
}

Status writeFileAtomically(const Folder& dir, const std::string& name, const std::string& text) {
  const std::string tempName = name + ".xstack-" + processToken() + ".tmp";
  const std::string temp = atName(dir, tempName), path = (fs::path(dir.path) / name).string();
  int fd = ::openat(dir.fd, temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0)
    return Error{(fs::path(dir.path) / tempName).string() + ": cannot create: " + errnoText()};
  bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ok = ::fsync(fd) == 0 && ok;
  ok = ::close(fd) == 0 && ok;
  if (!ok || ::renameat(dir.fd, temp.c_str(), dir.fd, atName(dir, name).c_str()) != 0) {
    std::string msg = path + ": cannot write: " + errnoText();
    ::unlinkat(dir.fd, temp.c_str(), 0);
    return Error{msg};
  }
  return {};
}

Status writeFileAtomically(const std::string& dir, const std::string& name,
                           const std::string& text) {
  return writeFileAtomically(Folder{AT_FDCWD, dir}, name, text);
}

AtomicFile::~AtomicFile() { abandon(); }

AtomicFile::AtomicFile(AtomicFile&& o) noexcept { *this = std::move(o); }

AtomicFile& AtomicFile::operator=(AtomicFile&& o) noexcept {
  if (this != &o) {
    abandon();
    final_ = std::move(o.final_);
    temp_ = std::move(o.temp_);
    name_ = std::move(o.name_);
    tempName_ = std::move(o.tempName_);
    dirPath_ = std::move(o.dirPath_);
    dirFd_ = o.dirFd_;
    fd_ = o.fd_;
    finished_ = o.finished_;
    bytes_ = o.bytes_;
    o.fd_ = -1;
    o.temp_.clear();
    o.tempName_.clear();
  }
  return *this;
}

std::string AtomicFile::at(const std::string& name) const {
  return atName(Folder{dirFd_, dirPath_}, name);
}

Status AtomicFile::open(const Folder& dir, const std::string& name) {
  dirFd_ = dir.fd;
  dirPath_ = dir.path;
  name_ = name;
  tempName_ = "." + name + ".xstack-" + processToken() + ".tmp";
  final_ = (fs::path(dir.path) / name).string();
  temp_ = (fs::path(dir.path) / tempName_).string();
  // O_EXCL: never write into a file another writer created (the token makes
  // a clash practically impossible; this makes it an error, not a mix).
  fd_ = ::openat(dirFd_, at(tempName_).c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    std::string msg = temp_ + ": cannot create: " + std::strerror(errno);
    temp_.clear();
    tempName_.clear();
    return Error{msg};
  }
  return {};
}

Status AtomicFile::open(const std::string& finalPath) {
  const fs::path p(finalPath);
  return open(Folder{AT_FDCWD, p.parent_path().string()}, p.filename().string());
}

Status AtomicFile::write(std::string_view bytes) {
  const char* p = bytes.data();
  size_t left = bytes.size();
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

Status AtomicFile::finish(bool fsync) {
  if (fsync && ::fsync(fd_) != 0 && errno != EINVAL && errno != EROFS)
    return Error{temp_ + ": fsync failed: " + std::strerror(errno)};
  if (::close(fd_) != 0) {
    fd_ = -1;
    return Error{temp_ + ": close failed: " + std::strerror(errno)};
  }
  fd_ = -1;
  finished_ = true;
  return {};
}

Status AtomicFile::commit() {
  if (!finished_) return Error{final_ + ": commit before finish"};
  if (::renameat(dirFd_, at(tempName_).c_str(), dirFd_, at(name_).c_str()) != 0)
    return Error{final_ + ": cannot rename from " + temp_ + ": " + std::strerror(errno)};
  temp_.clear();
  tempName_.clear();
  return {};
}

void AtomicFile::abandon() {
  if (fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
  }
  if (!tempName_.empty()) {
    ::unlinkat(dirFd_, at(tempName_).c_str(), 0);
    temp_.clear();
    tempName_.clear();
  }
}

}  // namespace xstack
