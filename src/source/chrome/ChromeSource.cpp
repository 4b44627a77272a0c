#include "xstack/source/chrome/ChromeSource.h"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <mutex>

#include "xstack/core/FileIdentity.h"
#include "xstack/core/Topology.h"
#include "xstack/source/chrome/ChromeEvents.h"
#include "xstack/source/chrome/TraceReader.h"

namespace fs = std::filesystem;

namespace xstack {
namespace chrome {

std::optional<int64_t> rankFromFileName(std::string_view name) {
  auto lower = [](char c) {
    return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  };
  for (size_t at = 0; at + 4 < name.size(); ++at) {
    if (lower(name[at]) != 'r' || lower(name[at + 1]) != 'a' || lower(name[at + 2]) != 'n' ||
        lower(name[at + 3]) != 'k')
      continue;
    if (at > 0 && std::isalpha(static_cast<unsigned char>(name[at - 1]))) continue;
    size_t d = at + 4;
    if (name[d] == '-' || name[d] == '_') ++d;
    size_t end = d;
    while (end < name.size() && end - d < 18 && std::isdigit(static_cast<unsigned char>(name[end])))
      ++end;
    if (end == d) continue;
    return std::stoll(std::string(name.substr(d, end - d)));
  }
  return std::nullopt;
}

namespace {

// The endings trace files have: the profilers' own first, then plain JSON.
constexpr std::string_view kProfilerEndings[] = {".pt.trace.json.gz", ".pt.trace.json",
                                                 ".paddle_trace.json"};
constexpr std::string_view kJsonEndings[] = {".json.gz", ".json"};

// The ending of `fileName` among `endings` (the name longer than it), or empty.
template <size_t N>
std::string_view endingOf(std::string_view fileName, const std::string_view (&endings)[N]) {
  for (std::string_view end : endings)
    if (fileName.size() > end.size() && fileName.ends_with(end)) return end;
  return {};
}

// Whether a file is named like a trace: a profiler's ending (.pt.trace.json[.gz],
// .paddle_trace.json), or .json[.gz] with a rank in the name (rankFromFileName).
bool namedLikeTrace(std::string_view fileName) {
  return !endingOf(fileName, kProfilerEndings).empty() ||
         (!endingOf(fileName, kJsonEndings).empty() && rankFromFileName(fileName).has_value());
}

}  // namespace

std::string nameWithRank(std::string_view fileName, std::string_view rank) {
  std::string_view end = endingOf(fileName, kProfilerEndings);
  if (end.empty()) end = endingOf(fileName, kJsonEndings);
  return std::string(fileName.substr(0, fileName.size() - end.size())) + "_rank" +
         std::string(rank) + std::string(end);
}

TraceWriter traceWriterOf(const TraceInfo& info) {
  if (!info.schemaVersion.empty())
    return info.schemaVersionIsString ? TraceWriter::Paddle : TraceWriter::Kineto;
  if (info.hasSpanIndx) return TraceWriter::Paddle;
  if (info.rank || info.worldSize || info.baseTimeNs) return TraceWriter::Kineto;
  return TraceWriter::Unknown;
}

const char* traceWriterName(TraceWriter w) {
  switch (w) {
    case TraceWriter::Kineto:
      return "PyTorch profiler (Kineto)";
    case TraceWriter::Paddle:
      return "Paddle profiler";
    case TraceWriter::Unknown:
      break;
  }
  return "unknown";
}

}  // namespace chrome

namespace {

std::string baseName(const std::string& path) { return fs::path(path).filename().string(); }

// The first file of each program that wrote the traces (the listing's
// writers; an unknown one mixes with either).
void noteWriter(chrome::TraceWriter w, const std::string& path, InputListing& out) {
  if (w == chrome::TraceWriter::Unknown) return;
  const std::string name = chrome::traceWriterName(w);
  for (const auto& [known, first] : out.writers)
    if (known == name) return;
  out.writers.emplace_back(name, path);
}

// A file whose head is no trace object, but whose name says it is a trace
// (chrome::namedLikeTrace). Unless its text is valid JSON of something else (a config
// file), it is a damaged trace, not another file: unreadable, cut short, corrupt gzip, or
// bytes no JSON starts with (e.g. zeros of a preallocated file).
bool damagedTrace(const std::string& name, const chrome::ReadError& error) {
  using chrome::ReadErrorKind;
  if (!chrome::namedLikeTrace(name)) return false;
  return error.kind == ReadErrorKind::Io || error.kind == ReadErrorKind::BadGzip ||
         error.kind == ReadErrorKind::Truncated || error.kind == ReadErrorKind::NotJson;
}

// A file that is no trace: ignored, or a bad input when named like one (a rank in the
// name: listed as that rank's trace, so its read fails naming the rank and the byte).
void listNonTrace(const std::string& path, const chrome::ReadError& error, uint64_t bytes,
                  InputListing& out) {
  const std::string name = baseName(path);
  if (!damagedTrace(name, error)) {
    out.ignored.push_back(path);
    return;
  }
  const std::optional<int64_t> rank = chrome::rankFromFileName(name);
  if (rank && *rank <= kMaxRankId) {
    out.files.push_back(InputFile{InputKind::Profile, *rank, 0, path, bytes});
    return;
  }
  out.badInputs.push_back(error.text() + ": a damaged trace (named like one), not used");
}

// A trace whose rank nothing tells: rank 0 if it is the job's only trace (the listing
// stage decides), else the line naming it and how to give it a rank.
void listUnranked(const std::string& path, uint64_t bytes, InputListing& out) {
  out.unranked.push_back(
      {InputFile{InputKind::Profile, 0, 0, path, bytes},
       path +
           ": a trace without a rank (no distributedInfo.rank, and no rank-N, "
           "rank_N or rankN in its name): put its training rank N in its name, e.g. " +
           chrome::nameWithRank(baseName(path), "<N>") +
           ", or add \"distributedInfo\": {\"rank\": N} to it; only a job of one trace "
           "may leave it out (read as rank 0)"});
}

// One candidate file of the folder: a trace (rank found, or unranked),
// a damaged trace, or ignored.
void listOne(const fs::path& p, uint64_t bytes, InputListing& out) {
  const std::string path = p.string();
  chrome::ReadResult head = chrome::readTraceHead(path);
  if (!head.ok()) {
    listNonTrace(path, *head.error, bytes, out);
    return;
  }
  std::optional<int64_t> rank = head.info.rank;
  std::optional<int64_t> world = head.info.worldSize;
  if (!rank) rank = chrome::rankFromFileName(baseName(path));
  if (!rank) {  // distributedInfo may follow the events (Kineto's on-demand path)
    chrome::ReadResult whole = chrome::readTraceHeader(path);
    rank = whole.info.rank;
    if (whole.info.worldSize) world = whole.info.worldSize;
  }
  if (rank && *rank > kMaxRankId) {  // no real job's rank: it would overflow the rank arithmetic
    out.skipped.push_back(path + ": implausible rank " + std::to_string(*rank) + " (above " +
                          std::to_string(kMaxRankId) + "): not used");
    return;
  }
  if (world && *world > 0 && *world <= kMaxRankId + 1)
    out.declaredWorldSize = std::max(out.declaredWorldSize, *world);
  if (head.info.visibleGpus <= kMaxGpusPerTrainer)  // more GPUs than a node can have: not used
    out.declaredVisibleGpus = std::max(out.declaredVisibleGpus, head.info.visibleGpus);
  noteWriter(chrome::traceWriterOf(head.info), path, out);
  if (!rank || *rank < 0) {
    listUnranked(path, bytes, out);
    return;
  }
  out.files.push_back(InputFile{InputKind::Profile, *rank, 0, path, bytes});
}

void listFolder(const std::string& dir, InputListing& out) {
  std::error_code ec;
  if (dir.empty() || !fs::is_directory(dir, ec)) return;
  out.profileDirFound = true;
  fs::directory_iterator it(dir, ec), end;
  if (ec) {
    out.skipped.push_back(dir + ": cannot list folder: " + ec.message());
    return;
  }
  std::vector<std::pair<fs::path, uint64_t>> candidates;
  for (; it != end; it.increment(ec)) {
    if (ec) {
      out.skipped.push_back(dir + ": listing stopped: " + ec.message());
      break;
    }
    const std::string name = it->path().filename().string();
    std::error_code sec;
    if (name.empty() || !it->is_regular_file(sec)) continue;
    if (name[0] == '.') {  // not looked at, counted
      ++out.hidden;
      continue;
    }
    const uint64_t size = it->file_size(sec);
    candidates.emplace_back(it->path(), sec ? 0 : size);
  }
  std::sort(candidates.begin(), candidates.end());
  for (const auto& [p, size] : candidates) listOne(p, size, out);
}

// A file as stat(2) sees it: a changed file is not the one a value was
// found in.
struct FileStamp {
  uint64_t device = 0, inode = 0, size = 0;
  int64_t mtimeNs = 0;
  bool operator==(const FileStamp&) const = default;
};

std::optional<FileStamp> stampOf(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return FileStamp{static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino),
                   static_cast<uint64_t>(st.st_size),
                   static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec};
}

// The time bases found by a pass over the whole file (a base after the
// events), so that a file read twice (summary, then rendering) pays that
// pass once. Shared by the rendering threads.
class TimeBaseCache {
 public:
  std::optional<int64_t> find(const std::string& path, const FileStamp& stamp) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = bases_.find(path);
    if (it == bases_.end() || !(it->second.first == stamp)) return std::nullopt;
    return it->second.second;
  }
  void put(const std::string& path, const FileStamp& stamp, int64_t base) {
    std::lock_guard<std::mutex> lock(mutex_);
    bases_[path] = {stamp, base};
  }

 private:
  std::mutex mutex_;
  std::map<std::string, std::pair<FileStamp, int64_t>> bases_;
};

// The file's time base: baseTimeNanoseconds, before the events (one short
// read of the head) or after them (a second pass that skips the events,
// once per file version).
Expected<int64_t> timeBaseOf(const std::string& path, TimeBaseCache& cache) {
  chrome::ReadResult head = chrome::readTraceHead(path);
  if (!head.ok()) return head.error->toError();
  if (head.info.baseTimeNs) return *head.info.baseTimeNs;
  const std::optional<FileStamp> stamp = stampOf(path);
  if (stamp)
    if (std::optional<int64_t> known = cache.find(path, *stamp)) return *known;
  chrome::ReadResult whole = chrome::readTraceHeader(path);
  const int64_t base = whole.info.baseTimeNs.value_or(0);
  if (stamp && whole.ok()) cache.put(path, *stamp, base);
  return base;
}

uint64_t fileSize(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
}

class ChromeSource final : public Source {
 public:
  std::string_view name() const override { return "chrome"; }

  InputDirs resolveDirs(const std::string& dataDir, const InputDirs& overrides) const override {
    InputDirs d;
    if (!overrides.profile.empty()) {
      d.profile = overrides.profile;
    } else if (!dataDir.empty()) {
      std::error_code ec;
      const fs::path sub = fs::path(dataDir) / "profile";
      if (fs::is_directory(sub, ec)) {  // traces in D and in D/profile
        d.profile = sub.string();
        d.profileAlso = dataDir;
      } else {
        d.profile = dataDir;
      }
    }
    return d;
  }

  InputListing list(const InputDirs& dirs) const override {
    InputListing out;
    listFolder(dirs.profile, out);
    listFolder(dirs.profileAlso, out);
    std::sort(out.files.begin(), out.files.end(), [](const InputFile& a, const InputFile& b) {
      return std::tie(a.id, a.path) < std::tie(b.id, b.path);
    });
    return out;
  }

  // A second gunzip + tokenize costs ~5 ns per JSON byte; the rows ~30 bytes an event.
  bool keepRowsForRendering() const override { return true; }

  // JSON traces carry no time files: the devices of their GPU activities and
  // deviceProperties tell (plan/TopologyInference.h, gpusPerTrainerFromTraces).
  bool topologyFromTraces() const override { return true; }

  bool recognizes(const std::string& path) const override {
    return chrome::readTraceHead(path).ok();
  }

  Expected<TraceDecodeInfo> decodeTrace(const std::string& path,
                                        std::unique_ptr<FileBuffer>& /*buffer*/, EventSink& sink,
                                        const TraceDecodeOptions& options) const override {
    Expected<int64_t> base = timeBaseOf(path, bases_);
    if (!base) return base.error();
    FileIdentity identity = statIdentity(path);  // at open; the digest is of the text read
    Warnings scratch;
    chrome::ChromeEventMapper mapper(sink, options.dropWarnings ? *options.dropWarnings : scratch,
                                     *base, std::filesystem::path(path).filename().string() + ": ");
    chrome::ReadResult r =
        chrome::readTrace(path, [&mapper](const chrome::TraceEvent& e) { mapper.onEvent(e); });
    mapper.finish();
    identity.digest = r.info.textDigest;
    identity.hasDigest = identity.known;
    TraceDecodeInfo info{{}, fileSize(path), r.info.visibleGpus, identity};
    if (r.error) {
      if (r.info.events == 0) return r.error->toError();
      info.partial = "read " + std::to_string(r.info.events) + " events, then byte " +
                     std::to_string(r.error->offset) + ": " + r.error->message;
    }
    return info;
  }

  Status readCounterFile(const InputFile& file, const std::string& /*label*/,
                         CounterFileData& /*out*/) const override {
    return Error{file.path + ": the chrome source has no counter files"};
  }

 private:
  mutable TimeBaseCache bases_;
};

}  // namespace

const Source& chromeSource() {
  static const ChromeSource kSource;
  return kSource;
}

}  // namespace xstack
