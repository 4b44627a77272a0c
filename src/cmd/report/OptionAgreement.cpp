#include "xstack/cmd/report/OptionAgreement.h"

#include <algorithm>
#include <map>
#include <utility>

#include "xstack/render/OutputFormats.h"

namespace xstack {
namespace {

std::string givenOrNot(bool given, const std::string& value) {
  return given ? value : "(not given)";
}

std::string onOff(bool on) { return on ? "given" : "(not given)"; }

// One option's values in the order of their first rank, with the ranks of each.
std::string mismatchLine(const std::string& name, const std::vector<std::string>& valueOfRank) {
  std::vector<std::pair<std::string, std::vector<int>>> groups;
  for (size_t r = 0; r < valueOfRank.size(); ++r) {
    auto it = groups.begin();
    while (it != groups.end() && it->first != valueOfRank[r]) ++it;
    if (it == groups.end()) it = groups.insert(groups.end(), {valueOfRank[r], {}});
    it->second.push_back(static_cast<int>(r));
  }
  if (groups.size() < 2) return {};
  std::string out = name + " differs between ranks: ";
  for (size_t g = 0; g < groups.size(); ++g) {
    if (g) out += "; ";
    out += groups[g].first + (groups[g].second.size() == 1 ? " on rank " : " on ranks ") +
           rankRangesText(groups[g].second);
  }
  return out;
}

// "json,perfetto": the --format list as given.
std::string formatList(const std::vector<TraceFormat>& formats) {
  std::string s;
  for (TraceFormat f : formats) s += (s.empty() ? "" : ",") + std::string(outputFormat(f).name);
  return s;
}

}  // namespace

AgreedOptions agreedOptionsOf(const ReportOptions& o) {
  return {
      {"--out", o.outDir},
      {"--gpus-per-trainer",
       givenOrNot(!o.inferGpusPerTrainer, std::to_string(o.topology.gpusPerTrainer))},
      {"--group-size", std::to_string(o.topology.groupSize)},
      {"--display-size", std::to_string(o.topology.displaySize)},
      {"--time-origin-ns",
       givenOrNot(o.timeOriginNs.has_value(), std::to_string(o.timeOriginNs.value_or(0)))},
      {"--compress", onOff(o.compress)},
      {"--fsync", onOff(o.fsync)},
      {"--no-analysis", onOff(!o.analysis)},
      {"--format", formatList(o.formats)},
      {"--piece-kb", std::to_string(o.pieceBytes >> 10)},
      {"--mpi-chunk-bytes", std::to_string(o.mpiChunkBytes)},
  };
}

void writeAgreedOptions(wire::Writer& w, const AgreedOptions& options) {
  w.list(options, [](wire::Writer& x, const std::pair<std::string, std::string>& option) {
    x.str(option.first);
    x.str(option.second);
  });
}

AgreedOptions readAgreedOptions(wire::Reader& r) {
  AgreedOptions options;
  r.list(options, [](wire::Reader& x) {
    std::string name = x.str();
    return std::pair(std::move(name), x.str());
  });
  return options;
}

std::vector<std::string> describeOptionMismatch(const std::vector<AgreedOptions>& perRank) {
  size_t options = 0;
  for (const AgreedOptions& lines : perRank) options = std::max(options, lines.size());
  std::vector<std::string> out;
  for (size_t i = 0; i < options; ++i) {
    std::string name;
    std::vector<std::string> values;
    for (const AgreedOptions& lines : perRank) {
      if (i < lines.size() && name.empty()) name = lines[i].first;
      values.push_back(i < lines.size() ? lines[i].second : "(unknown: another version)");
    }
    if (std::string line = mismatchLine(name, values); !line.empty()) out.push_back(line);
  }
  return out;
}

std::string rankRangesText(const std::vector<int>& ascending) {
  std::string out;
  for (size_t i = 0; i < ascending.size();) {
    size_t j = i;
    while (j + 1 < ascending.size() && ascending[j + 1] == ascending[j] + 1) ++j;
    if (!out.empty()) out += ",";
    out += std::to_string(ascending[i]);
    if (j > i) out += "-" + std::to_string(ascending[j]);
    i = j + 1;
  }
  return out;
}

}  // namespace xstack
