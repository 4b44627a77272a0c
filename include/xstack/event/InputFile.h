// One input file of a data set, as listed on one node (docs/FORMAT.md
// section 1): its kind and the rank or trainer it describes. It lives in
// event/, not in a source, because the summaries (model/InputSummary) and the
// plan name files by it, and neither may see a source's headers.
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
  // A digest of a sample of its contents as listed on this host
  // (core/FileIdentity.h sampleDigestOf; 0 = not taken): the same path and size
  // on two hosts with different samples are two files, never one.
  uint64_t sample = 0;

  // Identity of what the file describes: two files with the same key claim
  // the same rank or trainer.
  bool sameSubject(const InputFile& o) const {
    return kind == o.kind && id == o.id && gpu == o.gpu;
  }
};

}  // namespace xstack
