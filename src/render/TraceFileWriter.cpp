#include "xstack/render/TraceFileWriter.h"

#include <zlib.h>

#include <filesystem>

namespace xstack {

struct TraceFileWriter::Gzip {
  z_stream z{};
  std::string out = std::string(1 << 20, '\0');
  ~Gzip() { deflateEnd(&z); }
};

TraceFileWriter::TraceFileWriter() = default;
TraceFileWriter::~TraceFileWriter() = default;
TraceFileWriter::TraceFileWriter(TraceFileWriter&& o) noexcept = default;
TraceFileWriter& TraceFileWriter::operator=(TraceFileWriter&& o) noexcept = default;

Status TraceFileWriter::open(const std::string& finalPath, const Options& options) {
  const std::filesystem::path p(finalPath);
  return open(Folder{AT_FDCWD, p.parent_path().string()}, p.filename().string(), options);
}

Status TraceFileWriter::open(const Folder& dir, const std::string& name, const Options& options) {
  options_ = options;
  if (Status s = file_.open(dir, name); !s) return s;
  if (options_.gzip) {
    gz_ = std::make_unique<Gzip>();
    // windowBits 15 + 16: a gzip header, so the file is a plain .gz
    if (deflateInit2(&gz_->z, options_.gzipLevel, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
        Z_OK)
      return Error{file_.tempPath() + ": zlib init failed"};
  }
  return options_.raw ? Status{} : writeAll("{\"traceEvents\":[");
}

Status TraceFileWriter::writeAll(std::string_view text) {
  if (gz_) return deflateSome(text, Z_NO_FLUSH);
  return file_.write(text);
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
    if (rc == Z_STREAM_ERROR) return Error{file_.tempPath() + ": zlib error"};
    size_t have = gz_->out.size() - z.avail_out;
    if (Status s = file_.write({gz_->out.data(), have}); !s) return s;
  } while (z.avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
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
  return file_.finish(options_.fsync);
}

}  // namespace xstack
