#include "xstack/trace/TraceFileWriter.h"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>

namespace xstack {
namespace {

// Temporary files of this process, removed by the signal handler when the
// job is torn down (mpirun sends SIGTERM to the survivors when a rank dies).
constexpr int kMaxTemps = 1 << 14;
std::atomic<char*> gTemps[kMaxTemps];

void onTerminate(int sig) {
  for (auto& slot : gTemps)
    if (char* p = slot.load()) ::unlink(p);  // unlink is async-signal-safe
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

void registerTemp(const std::string& path) {
  static std::once_flag once;
  std::call_once(once, [] {
    for (int sig : {SIGTERM, SIGINT, SIGHUP}) std::signal(sig, onTerminate);
  });
  for (auto& slot : gTemps) {
    char* expected = nullptr;
    if (!slot.load() && slot.compare_exchange_strong(expected, ::strdup(path.c_str()))) return;
  }
}

void unregisterTemp(const std::string& path) {
  for (auto& slot : gTemps) {
    char* p = slot.load();
    if (p && path == p && slot.compare_exchange_strong(p, nullptr)) {
      std::free(p);
      return;
    }
  }
}

}  // namespace

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
  namespace fs = std::filesystem;
  final_ = finalPath;
  fs::path p(finalPath);
  temp_ = (p.parent_path() / ("." + p.filename().string() + ".tmp." + std::to_string(::getpid())))
              .string();
  fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    std::string msg = temp_ + ": cannot create: " + std::strerror(errno);
    temp_.clear();
    return Error{msg};
  }
  registerTemp(temp_);
  if (options_.gzip) {
    gz_ = std::make_unique<Gzip>();
    // windowBits 15 + 16: a gzip header, so the file is a plain .gz
    if (deflateInit2(&gz_->z, options_.gzipLevel, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
        Z_OK)
      return Error{temp_ + ": zlib init failed"};
  }
  return writeAll("{\"traceEvents\":[");
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
  if (first_) {
    first_ = false;
    if (text.front() == ',') text.remove_prefix(1);
  }
  return writeAll(text);
}

Status TraceFileWriter::finish(std::string_view otherDataJson) {
  std::string tail = "\n],\"displayTimeUnit\":\"ns\",\"otherData\":";
  tail += otherDataJson;
  tail += "}\n";
  if (Status s = writeAll(tail); !s) return s;
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
  unregisterTemp(temp_);
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
    unregisterTemp(temp_);
    temp_.clear();
  }
}

}  // namespace xstack
