#include "xstack/cmd/report/Progress.h"

#include <unistd.h>

namespace xstack {

Progress::Progress(std::FILE* out, bool enabled)
    : out_(out),
      enabled_(enabled),
      tty_(enabled && ::isatty(::fileno(out))),
      start_(Clock::now()),
      last_(start_) {}

void Progress::update(const char* what, uint64_t done, uint64_t total) {
  if (!enabled_) return;
  auto now = Clock::now();
  auto since = now - last_;
  bool end = done >= total;
  if (tty_) {
    if (since < std::chrono::milliseconds(100) && !end) return;
    int width = 30;
    int filled = total ? static_cast<int>(width * done / total) : width;
    std::string bar(static_cast<size_t>(filled), '#');
    bar.resize(static_cast<size_t>(width), '.');
    std::fprintf(out_, "\rxstack: %-5s [%s] %llu/%llu", what, bar.c_str(),
                 static_cast<unsigned long long>(done), static_cast<unsigned long long>(total));
    std::fflush(out_);
    drawn_ = true;
  } else {
    if (since < std::chrono::seconds(5)) return;
    double secs = std::chrono::duration<double>(now - start_).count();
    std::fprintf(out_, "xstack: %s %llu/%llu (%.0f s)\n", what,
                 static_cast<unsigned long long>(done), static_cast<unsigned long long>(total),
                 secs);
  }
  last_ = now;
}

void Progress::finish() {
  if (drawn_) std::fputc('\n', out_);
  drawn_ = false;
}

}  // namespace xstack
