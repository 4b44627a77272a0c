#include "xstack/app/OptionAgreement.h"

#include <map>
#include <utility>

namespace xstack {
namespace {

using OptionLines = std::vector<std::pair<std::string, std::string>>;

std::string givenOrNot(bool given, const std::string& value) {
  return given ? value : "(not given)";
}

std::string onOff(bool on) { return on ? "given" : "(not given)"; }

OptionLines decode(const std::string& text) {
  OptionLines lines;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(pos, end - pos);
    const size_t tab = line.find('\t');
    if (tab == std::string::npos)
      lines.emplace_back(line, "");
    else
      lines.emplace_back(line.substr(0, tab), line.substr(tab + 1));
    pos = end + 1;
  }
  return lines;
}

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

std::string encodeAgreedOptions(const ReportOptions& o) {
  const OptionLines lines = {
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
  std::string text;
  for (const auto& [name, value] : lines) text += name + "\t" + value + "\n";
  return text;
}

std::vector<std::string> describeOptionMismatch(const std::vector<std::string>& perRank) {
  std::vector<OptionLines> decoded;
  decoded.reserve(perRank.size());
  size_t options = 0;
  for (const auto& text : perRank) {
    decoded.push_back(decode(text));
    options = std::max(options, decoded.back().size());
  }
  std::vector<std::string> out;
  for (size_t i = 0; i < options; ++i) {
    std::string name;
    std::vector<std::string> values;
    for (const auto& lines : decoded) {
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
