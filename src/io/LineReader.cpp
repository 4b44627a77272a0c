#include "xstack/io/LineReader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

namespace xstack {
namespace {

using OnLine = std::function<void(std::string_view, const LineInfo&)>;
using OnOverlong = std::function<void(const LineInfo&, uint64_t)>;

constexpr std::string_view kBom = "\xEF\xBB\xBF";

// Splits a byte stream fed in chunks of any size into lines. Memory: at most
// maxLineBytes + 1 bytes of a line that spans chunks (the +1 is a '\r' that
// the '\n' may still turn into a CRLF); longer lines are only counted.
class LineSplitter {
 public:
  LineSplitter(const OnLine& onLine, const OnOverlong& onOverlong, uint64_t maxLineBytes)
      : onLine_(onLine), onOverlong_(onOverlong), max_(maxLineBytes) {}

  void feed(std::string_view chunk) {
    if (!bomChecked_) {
      size_t take = std::min(kBom.size() - head_.size(), chunk.size());
      head_.append(chunk.substr(0, take));
      chunk.remove_prefix(take);
      if (head_.size() < kBom.size()) return;
      bomChecked_ = true;
      const std::string head = std::move(head_);
      if (head == kBom) {
        pos_ = lineStart_ = kBom.size();
      } else {
        split(head);
      }
    }
    split(chunk);
  }

  // End of input: yields a last line that has no '\n'.
  void finish() {
    if (!bomChecked_) {
      bomChecked_ = true;
      const std::string head = std::move(head_);
      split(head);
    }
    if (lineBytes_ > 0) endLine(skipping_ ? std::string_view{} : pending_, true);
  }

 private:
  void split(std::string_view chunk) {
    while (!chunk.empty()) {
      const void* nl = std::memchr(chunk.data(), '\n', chunk.size());
      size_t n = nl ? static_cast<const char*>(nl) - chunk.data() : chunk.size();
      std::string_view part = chunk.substr(0, n);
      if (nl && lineBytes_ == 0) {
        // Whole line inside this chunk: no copy.
        lineBytes_ = n;
        endLine(part, false);
      } else {
        append(part);
        if (nl) endLine(skipping_ ? std::string_view{} : pending_, false);
      }
      pos_ += n + (nl ? 1 : 0);
      if (nl) lineStart_ = pos_;
      chunk.remove_prefix(nl ? n + 1 : n);
    }
  }

  void append(std::string_view part) {
    if (part.empty()) return;
    lineBytes_ += part.size();
    lastIsCr_ = part.back() == '\r';
    if (skipping_) return;
    if (pending_.size() + part.size() - 1 > max_) {  // part is not empty
      skipping_ = true;
      pending_.clear();
      return;
    }
    pending_.append(part);
  }

  // `line` holds the line's bytes unless it is being skipped; lineBytes_ and
  // lastIsCr_ (or line's last byte) describe it either way.
  void endLine(std::string_view line, bool unterminated) {
    bool cr = skipping_ ? lastIsCr_ : (!line.empty() && line.back() == '\r');
    uint64_t length = lineBytes_ - (cr ? 1 : 0);
    LineInfo info{number_, lineStart_, unterminated};
    if (skipping_ || length > max_) {
      if (onOverlong_) onOverlong_(info, length);
    } else if (onLine_) {
      onLine_(line.substr(0, length), info);
    }
    ++number_;
    lineBytes_ = 0;
    lastIsCr_ = false;
    skipping_ = false;
    pending_.clear();
  }

  const OnLine& onLine_;
  const OnOverlong& onOverlong_;
  const uint64_t max_;
  std::string head_;  // first bytes, until a BOM is ruled in or out
  bool bomChecked_ = false;
  std::string pending_;     // current line's bytes from earlier chunks
  uint64_t lineBytes_ = 0;  // current line's length so far (incl. a '\r')
  bool lastIsCr_ = false;   // current line's last byte so far is '\r'
  bool skipping_ = false;   // current line is overlong: not buffered
  uint64_t number_ = 1;
  uint64_t pos_ = 0;        // file offset of the next byte to split
  uint64_t lineStart_ = 0;  // file offset of the current line
};

struct FdCloser {
  int fd;
  ~FdCloser() { ::close(fd); }
};

}  // namespace

Status readLines(const std::string& path, const OnLine& onLine, const OnOverlong& onOverlong,
                 const LineReaderOptions& options) {
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return Error{path + ": cannot open: " + std::strerror(errno)};
  FdCloser closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) return Error{path + ": cannot stat: " + std::strerror(errno)};
  if (!S_ISREG(st.st_mode)) {
    const char* what = S_ISDIR(st.st_mode)    ? "a folder"
                       : S_ISFIFO(st.st_mode) ? "a FIFO"
                       : S_ISSOCK(st.st_mode) ? "a socket"
                                              : "a device";
    return Error{path + ": not a regular file (" + what + ")"};
  }
  std::vector<char> block(std::max<uint64_t>(options.blockBytes, 1));
  LineSplitter splitter(onLine, onOverlong, options.maxLineBytes);
  uint64_t offset = 0;
  for (;;) {
    ssize_t n = ::read(fd, block.data(), block.size());
    if (n < 0) {
      int e = errno;
      if (e == EINTR) continue;
      return Error{path + ": read failed at byte " + std::to_string(offset) + ": " +
                   std::strerror(e)};
    }
    if (n == 0) break;
    offset += static_cast<uint64_t>(n);
    splitter.feed(std::string_view(block.data(), static_cast<size_t>(n)));
  }
  splitter.finish();
  return Status::Ok();
}

void splitLines(std::string_view text, const OnLine& onLine, const OnOverlong& onOverlong,
                const LineReaderOptions& options) {
  LineSplitter splitter(onLine, onOverlong, options.maxLineBytes);
  splitter.feed(text);
  splitter.finish();
}

}  // namespace xstack
