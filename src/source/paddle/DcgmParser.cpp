#include "xstack/source/paddle/DcgmParser.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>
#include <utility>

#include "xstack/core/TerminalText.h"
#include "xstack/core/TimeUnits.h"
#include "xstack/core/Topology.h"

namespace xstack {
namespace {

// Raw column ids stored in DcgmParser::columns_: a DcgmSeries for columns
// copied as they are, or one of these.
constexpr int kColUnknown = -1;  // a column xstack does not use
constexpr int kColFbTotal = kDcgmSeriesCount;
constexpr int kColFbUsed = kDcgmSeriesCount + 1;
constexpr int kColTimestamp = kDcgmSeriesCount + 2;

bool equalsNoCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'a' && x <= 'z') x = static_cast<char>(x - 'a' + 'A');
    if (y >= 'a' && y <= 'z') y = static_cast<char>(y - 'a' + 'A');
    if (x != y) return false;
  }
  return true;
}

int columnId(std::string_view name) {
  static constexpr std::pair<const char*, int> kColumns[] = {
      {"GPUTL", kGPUTL},      {"GRACT", kGRACT},     {"SMACT", kSMACT},           {"SMOCC", kSMOCC},
      {"DRAMA", kDRAMA},      {"NVLTX", kNVLTX},     {"NVLRX", kNVLRX},           {"PCITX", kPCITX},
      {"PCIRX", kPCIRX},      {"FP32A", kFP32A},     {"FP16A", kFP16A},           {"TENSO", kTENSO},
      {"FBTTL", kColFbTotal}, {"FBUSD", kColFbUsed}, {"TIMESTAMP", kColTimestamp}};
  for (const auto& [n, id] : kColumns)
    if (equalsNoCase(name, n)) return id;
  return kColUnknown;
}

std::vector<std::string_view> tokens(std::string_view line) {
  constexpr std::string_view kSpace = " \t\r\v\f";
  std::vector<std::string_view> out;
  size_t i = 0;
  while ((i = line.find_first_not_of(kSpace, i)) != std::string_view::npos) {
    size_t end = std::min(line.find_first_of(kSpace, i), line.size());
    out.push_back(line.substr(i, end - i));
    i = end;
  }
  return out;
}

// A short printable rendering of input bytes for warning examples (core/TerminalText.h).
std::string excerpt(std::string_view text) { return terminalExcerpt(text); }

// A value of a counter: a finite, non-negative number.
std::optional<double> parseValue(std::string_view text) {
  double v = 0;
  auto r = std::from_chars(text.data(), text.data() + text.size(), v);
  if (r.ec != std::errc() || r.ptr != text.data() + text.size()) return std::nullopt;
  if (!std::isfinite(v) || v < 0) return std::nullopt;
  return v;
}

// Columns of a header line ("# Entity A B", "#Entity A B", "Entity A B"), or
// nullopt when the line is not a header.
std::optional<std::vector<std::string_view>> headerColumns(
    const std::vector<std::string_view>& tok) {
  size_t first = 0;
  if (tok[0] == "#" && tok.size() > 1 && equalsNoCase(tok[1], "Entity")) {
    first = 2;
  } else if (equalsNoCase(tok[0], "#Entity") || equalsNoCase(tok[0], "Entity")) {
    first = 1;
  } else {
    return std::nullopt;
  }
  return std::vector<std::string_view>(tok.begin() + static_cast<ptrdiff_t>(first), tok.end());
}

}  // namespace

namespace {

// Raw column ids of a header's columns; a column named twice counts once (its first place).
std::vector<int> columnIdsOf(const std::vector<std::string_view>& names) {
  std::vector<int> ids;
  uint32_t seen = 0;
  for (std::string_view name : names) {
    int id = columnId(name);
    if (id != kColUnknown) {
      if (seen & (1u << id))
        id = kColUnknown;
      else
        seen |= 1u << id;
    }
    ids.push_back(id);
  }
  return ids;
}

// The GPU id of a row ("GPU <id> ..."), or -1 (not a number, or above kMaxGpuId:
// no real GPU's, and it would overflow the inferred --gpus-per-trainer).
int64_t gpuIdOf(const std::vector<std::string_view>& tok) {
  int64_t gpu = -1;
  if (tok.size() < 2) return gpu;
  auto r = std::from_chars(tok[1].data(), tok[1].data() + tok[1].size(), gpu);
  if (r.ec != std::errc() || r.ptr != tok[1].data() + tok[1].size()) return -1;
  return gpu <= kMaxGpuId ? gpu : -1;
}

// The row's values (tok[2..]) into `s`; a bad value is counted and skipped.
template <class Where>
void fillValues(const std::vector<std::string_view>& tok, const std::vector<int>& columns,
                GpuTelemetrySample& s, Warnings& warnings, const Where& where) {
  std::optional<double> fbTotal, fbUsed;
  for (size_t c = 0; c < columns.size(); ++c) {
    const int id = columns[c];
    const std::string_view text = tok[c + 2];
    if (id == kColUnknown || id == kColTimestamp || text == "N/A") continue;
    std::optional<double> v = parseValue(text);
    if (!v) {
      warnings.add(Warn::DcgmBadValue, 1, where() + "bad value " + excerpt(text));
    } else if (id == kColFbTotal) {
      fbTotal = v;
    } else if (id == kColFbUsed) {
      fbUsed = v;
    } else {
      s.values[id] = id == kGPUTL ? *v / 100 : *v;
      s.present |= 1u << id;
    }
  }
  if (!fbTotal || !fbUsed || *fbTotal <= 0) return;
  // Both are finite and non-negative (parseValue), but their ratio may not be:
  // counted, and no value written (a 0 would be a wrong value).
  const double ratio = *fbUsed / *fbTotal;
  if (!std::isfinite(ratio)) {
    warnings.add(Warn::DcgmBadRatio, 1, where() + "FBUSD/FBTTL is not a finite number");
    return;
  }
  s.values[kFB_USED_RATIO] = ratio;
  s.present |= 1u << kFB_USED_RATIO;
}

}  // namespace

void DcgmParser::feedLine(std::string_view line, const LineInfo& info) {
  const std::vector<std::string_view> tok = tokens(line);
  if (tok.empty()) return;  // blank lines carry nothing
  auto where = [&] { return path_ + ":" + std::to_string(info.number) + ": "; };

  if (auto cols = headerColumns(tok)) {
    columns_ = columnIdsOf(*cols);
    haveHeader_ = true;
    return;
  }
  // dcgmi prints a second header line holding only "ID" under "Entity".
  if (tok.size() == 1 && equalsNoCase(tok[0], "ID")) return;
  if (!equalsNoCase(tok[0], "GPU")) {
    warnings_.add(Warn::DcgmNoiseLine, 1, where() + "not a header or GPU row: " + excerpt(line));
    return;
  }
  if (!haveHeader_) {
    warnings_.add(Warn::DcgmRowBeforeHeader, 1, where() + "GPU row before any header");
    return;
  }
  const int64_t gpu = gpuIdOf(tok);
  if (gpu < 0) {
    warnings_.add(Warn::DcgmBadRow, 1,
                  where() + "bad GPU id " + excerpt(tok.size() >= 2 ? tok[1] : "") +
                      " (ids are 0.." + std::to_string(kMaxGpuId) + ")");
    return;
  }
  const size_t nValues = tok.size() - 2;
  if (nValues != columns_.size()) {
    warnings_.add(Warn::DcgmBadRow, 1,
                  where() + std::to_string(nValues) + " values, header has " +
                      std::to_string(columns_.size()) + " columns");
    return;
  }
  std::optional<uint64_t> ts;
  for (size_t c = 0; c < nValues; ++c)
    if (columns_[c] == kColTimestamp) ts = parseSecondsToNs(tok[c + 2]);
  if (!ts) {
    warnings_.add(Warn::DcgmBadRow, 1, where() + "no usable TIMESTAMP");
    return;
  }
  GpuTelemetrySample s;
  s.tsNs = *ts;
  s.gpu = gpu;
  fillValues(tok, columns_, s, warnings_, where);
  samples_.push_back(s);
}

void DcgmParser::overlongLine(const LineInfo& info, uint64_t length) {
  warnings_.add(Warn::DcgmNoiseLine, 1,
                path_ + ":" + std::to_string(info.number) + ": line of " + std::to_string(length) +
                    " bytes skipped");
}

}  // namespace xstack
