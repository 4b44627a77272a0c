// One input file of a data set, as listed on one node (SPEC.md section 1).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace xstack {

enum class InputKind : int { Profile = 0, Dcgm = 1, Net = 2, Time = 3 };

const char* kindName(InputKind k);
std::optional<InputKind> kindFromName(std::string_view name);

struct InputFile {
  InputKind kind = InputKind::Profile;
  int64_t id = 0;   // global rank (profile), trainer (dcgm, net, time)
  int64_t gpu = 0;  // local GPU (time files only), else 0
  std::string path;
  uint64_t bytes = 0;

  // Identity of what the file describes: two files with the same key claim
  // the same rank or trainer.
  bool sameSubject(const InputFile& o) const {
    return kind == o.kind && id == o.id && gpu == o.gpu;
  }
};

// "<anything>.<R>": the integer after the last dot (digits only, fits int63).
std::optional<int64_t> trailingId(std::string_view fileName);
// "time.txt.<g>.<T>" (any prefix): the two trailing integers {g, T}.
std::optional<std::pair<int64_t, int64_t>> timeFileIds(std::string_view fileName);

}  // namespace xstack
