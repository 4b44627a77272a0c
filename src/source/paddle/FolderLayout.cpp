#include "xstack/source/paddle/FolderLayout.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "xstack/core/Topology.h"

namespace fs = std::filesystem;

namespace xstack {

namespace {
std::optional<int64_t> parseId(std::string_view s) {
  if (s.empty() || s.size() > 18) return std::nullopt;
  int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

// Why an id taken from a file name is not used (core/Topology.h's bounds).
std::string aboveBound(const char* what, int64_t id, int64_t most) {
  return "implausible " + std::string(what) + " id " + std::to_string(id) + " in the name (above " +
         std::to_string(most) + "): not used";
}

// The ids of a file of `kind` named `name` into `f`, or why the name gives none:
// no suffix, or an id beyond core/Topology.h's bounds.
std::string idsFromName(InputKind kind, const std::string& name, InputFile& f) {
  if (kind == InputKind::Time) {
    auto ids = timeFileIds(name);
    if (!ids) return "name has no .<gpu>.<trainer> suffix";
    f.gpu = ids->first;
    f.id = ids->second;
    if (f.gpu > kMaxGpuId) return aboveBound("GPU", f.gpu, kMaxGpuId);
    if (f.id > kMaxTrainerId) return aboveBound("trainer", f.id, kMaxTrainerId);
    return {};
  }
  auto id = trailingId(name);
  if (!id) return "name has no integer suffix after the last dot";
  f.id = *id;
  if (kind == InputKind::Profile && f.id > kMaxRankId) return aboveBound("rank", f.id, kMaxRankId);
  if (kind != InputKind::Profile && f.id > kMaxTrainerId)
    return aboveBound("trainer", f.id, kMaxTrainerId);
  return {};
}

}  // namespace

std::optional<int64_t> trailingId(std::string_view name) {
  auto dot = name.rfind('.');
  if (dot == std::string_view::npos) return std::nullopt;
  return parseId(name.substr(dot + 1));
}

std::optional<std::pair<int64_t, int64_t>> timeFileIds(std::string_view name) {
  auto dot2 = name.rfind('.');
  if (dot2 == std::string_view::npos || dot2 == 0) return std::nullopt;
  auto dot1 = name.rfind('.', dot2 - 1);
  if (dot1 == std::string_view::npos) return std::nullopt;
  auto g = parseId(name.substr(dot1 + 1, dot2 - dot1 - 1));
  auto t = parseId(name.substr(dot2 + 1));
  if (!g || !t) return std::nullopt;
  return std::make_pair(*g, *t);
}

InputDirs resolveInputDirs(const std::string& dataDir, const InputDirs& o) {
  InputDirs d;
  auto pick = [&](const std::string& given, const char* sub) {
    if (!given.empty()) return given;
    if (dataDir.empty()) return std::string();
    return (fs::path(dataDir) / sub).string();
  };
  d.profile = pick(o.profile, "profile");
  d.dcgm = pick(o.dcgm, "dcgm");
  d.net = pick(o.net, "net");
  d.time = pick(o.time, "time");
  return d;
}

static void listOne(const std::string& dir, InputKind kind, InputListing& out) {
  if (dir.empty()) return;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    const bool exists = fs::exists(fs::symlink_status(dir, ec));
    if (exists && kind != InputKind::Profile)
      out.badInputs.push_back(std::string(kindName(kind)) + " path " + dir +
                              " exists but is not a folder");
    return;
  }
  if (kind == InputKind::Profile) out.profileDirFound = true;
  fs::directory_iterator it(dir, ec), end;
  if (ec) {
    out.skipped.push_back(dir + ": cannot list folder: " + ec.message());
    return;
  }
  for (; it != end; it.increment(ec)) {
    if (ec) {
      out.skipped.push_back(dir + ": listing stopped: " + ec.message());
      break;
    }
    const fs::path& p = it->path();
    std::string name = p.filename().string();
    if (name.empty() || name[0] == '.') continue;  // hidden and temporary files
    InputFile f;
    f.kind = kind;
    if (std::string why = idsFromName(kind, name, f); !why.empty()) {
      out.skipped.push_back(p.string() + ": " + why);
      continue;
    }
    f.path = p.string();
    std::error_code sec;
    auto st = it->status(sec);
    if (!sec && fs::is_regular_file(st)) {
      auto sz = it->file_size(sec);
      f.bytes = sec ? 0 : sz;
    }
    out.files.push_back(std::move(f));
  }
}

InputListing listInputs(const InputDirs& dirs) {
  InputListing out;
  listOne(dirs.profile, InputKind::Profile, out);
  listOne(dirs.dcgm, InputKind::Dcgm, out);
  listOne(dirs.net, InputKind::Net, out);
  listOne(dirs.time, InputKind::Time, out);
  std::sort(out.files.begin(), out.files.end(), [](const InputFile& a, const InputFile& b) {
    return std::tie(a.kind, a.id, a.gpu, a.path) < std::tie(b.kind, b.id, b.gpu, b.path);
  });
  std::sort(out.skipped.begin(), out.skipped.end());
  return out;
}

}  // namespace xstack
