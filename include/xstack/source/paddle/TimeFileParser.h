// Meaning of a time file time.txt.<g>.<T>: lines "start time: <Unix s>" and
// "end time: <Unix s>" (decimal seconds, converted exactly to ns). Other
// lines are noise (warning time_noise_line); a repeated start/end keeps the
// first and is counted (time_repeated_line).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "xstack/core/Warnings.h"
#include "xstack/io/LineReader.h"

namespace xstack {

class TimeFileParser {
 public:
  explicit TimeFileParser(std::string path) : path_(std::move(path)) {}
  void feedLine(std::string_view line, const LineInfo& info);
  void overlongLine(const LineInfo& info, uint64_t length);
  std::optional<uint64_t> startNs, endNs;
  Warnings& warnings() { return warnings_; }

 private:
  std::string path_;
  Warnings warnings_;
};

}  // namespace xstack
