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
  if (info.rank || !info.rankProblem.empty() || info.worldSize || info.hasBaseTimeKey)
    return TraceWriter::Kineto;
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

// A JSON object that says it is a trace but holds no events array: `traceEvents` null, an
// object, a string, or missing while distributedInfo.rank is there.
bool traceWithoutEvents(const chrome::ReadResult& head) {
  using chrome::ReadErrorKind;
  const ReadErrorKind kind = head.error->kind;
  return kind == ReadErrorKind::TraceEventsNotArray ||
         (kind == ReadErrorKind::NoTraceEvents &&
          (head.info.rank || !head.info.rankProblem.empty()));
}

// A file that is no trace: ignored, or a bad input when named like one or when it is a trace
// without events (a rank in the name or in distributedInfo: listed as that rank's trace, so
// its read fails naming the rank and the byte).
void listNonTrace(const std::string& path, const chrome::ReadResult& head, uint64_t bytes,
                  InputListing& out) {
  const std::string name = baseName(path);
  const chrome::ReadError& error = *head.error;
  const bool noEvents = traceWithoutEvents(head);
  if (!noEvents && !damagedTrace(name, error)) {
    out.ignored.push_back(path);
    return;
  }
  if (!head.info.rankProblem.empty()) {
    out.badInputs.push_back(error.text() + "; and its " + head.info.rankProblem + ": not used");
    return;
  }
  std::optional<int64_t> rank = head.info.rank;
  if (!rank && chrome::namedLikeTrace(name)) rank = chrome::rankFromFileName(name);
  if (rank && *rank <= kMaxRankId) {
    out.files.push_back(InputFile{InputKind::Profile, *rank, 0, path, bytes});
    return;
  }
  out.badInputs.push_back(error.text() + (noEvents ? ": a trace without events, not used"
                                                   : ": a damaged trace (named like one), not used"));
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
    listNonTrace(path, head, bytes, out);
    return;
  }
  std::optional<int64_t> rank = head.info.rank;
  std::optional<int64_t> world = head.info.worldSize;
  std::string rankProblem = head.info.rankProblem;
  if (!rank && rankProblem.empty()) rank = chrome::rankFromFileName(baseName(path));
  if (!rank && rankProblem.empty()) {  // distributedInfo may follow the events (Kineto's on-demand path)
    chrome::ReadResult whole = chrome::readTraceHeader(path);
    rank = whole.info.rank;
    rankProblem = whole.info.rankProblem;
    if (whole.info.worldSize) world = whole.info.worldSize;
  }
  if (!rankProblem.empty()) {  // -1, 1.5: no rank, and not a trace without one either
    out.badInputs.push_back(path + ": " + rankProblem + ": not used");
    return;
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
// events; nullopt: the file has none), so that a file read twice (summary, then
// rendering) pays that pass once. Shared by the rendering threads.
class TimeBaseCache {
 public:
  bool find(const std::string& path, const FileStamp& stamp, std::optional<int64_t>& base) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = bases_.find(path);
    if (it == bases_.end() || !(it->second.first == stamp)) return false;
    base = it->second.second;
    return true;
  }
  void put(const std::string& path, const FileStamp& stamp, std::optional<int64_t> base) {
    std::lock_guard<std::mutex> lock(mutex_);
    bases_[path] = {stamp, base};
  }

 private:
  std::mutex mutex_;
  std::map<std::string, std::pair<FileStamp, std::optional<int64_t>>> bases_;
};

// A file's time base (nullopt: none, its ts are absolute), and the file as stat(2) saw it
// before the pass that found the base after the events (nullopt: the base came from the
// head, which the read sees again): the read must be of that file.
struct TimeBase {
  std::optional<int64_t> ns;
  std::optional<FileStamp> stamp;
};

Error fileError(const std::string& path, const std::string& what) {
  return Error{path + ": " + what}.atFile(path);
}

std::string baseText(std::optional<int64_t> base) {
  return base ? std::to_string(*base) : std::string("none");
}

// The file's time base: baseTimeNanoseconds, before the events (one short read of the
// head) or after them (a second pass that skips the events, once per file version).
// Never guessed: an unusable base, or a pass after the events that could not finish
// (the base may be in what it did not read), is an Error naming the file. Paddle's
// traces (schemaVersion a string, or span_indx) have no base: their ts are absolute.
Expected<TimeBase> timeBaseOf(const std::string& path, TimeBaseCache& cache) {
  chrome::ReadResult head = chrome::readTraceHead(path);
  if (!head.ok()) return head.error->toError();
  if (!head.info.baseTimeProblem.empty()) return fileError(path, head.info.baseTimeProblem);
  if (head.info.baseTimeNs) return TimeBase{head.info.baseTimeNs, std::nullopt};
  const std::optional<FileStamp> stamp = stampOf(path);
  std::optional<int64_t> known;
  if (stamp && cache.find(path, *stamp, known)) return TimeBase{known, stamp};
  chrome::ReadResult whole = chrome::readTraceHeader(path);
  if (!whole.info.baseTimeProblem.empty()) return fileError(path, whole.info.baseTimeProblem);
  if (!whole.ok() && !whole.info.baseTimeNs) {
    if (chrome::traceWriterOf(head.info) == chrome::TraceWriter::Paddle)
      return TimeBase{std::nullopt, std::nullopt};  // cut: read as partial
    return fileError(path, "its time base is unknown: no baseTimeNanoseconds before its events, "
                           "and the pass looking for one after them stopped at byte " +
                               std::to_string(whole.error->offset) + " (" +
                               whole.error->message + "); not read without it");
  }
  if (stamp && whole.ok()) cache.put(path, *stamp, whole.info.baseTimeNs);
  return TimeBase{whole.info.baseTimeNs, stamp};
}

// Empty when the events' read (`r`, of the file as `atOpen`) agrees with what the base was
// taken from, else why not: the file changed between the passes.
std::string baseChange(const TimeBase& base, const FileIdentity& atOpen,
                       const chrome::ReadResult& r) {
  if (base.stamp && atOpen.known &&
      !(*base.stamp == FileStamp{atOpen.device, atOpen.inode, atOpen.size, atOpen.mtimeNs}))
    return "it changed between the pass that found its time base (" + baseText(base.ns) +
           ") and the read of its events (size " + std::to_string(base.stamp->size) + " -> " +
           std::to_string(atOpen.size) + " bytes)";
  // A read cut short may stop before a base after the events: only a base it saw differs.
  if (r.info.baseTimeNs != base.ns && (r.ok() || r.info.baseTimeNs))
    return "it changed between the pass that found its time base (" + baseText(base.ns) +
           ") and the read of its events, which found " + baseText(r.info.baseTimeNs);
  return {};
}

// Empty when the rank the read found (distributedInfo.rank, else the name's) is the one the
// listing gave `listed`, else why not.
std::string rankChange(const std::string& path, int64_t listed, const chrome::TraceInfo& info) {
  if (!info.rankProblem.empty()) return info.rankProblem + " (listed as rank " +
                                        std::to_string(listed) + "): it changed since the listing";
  std::optional<int64_t> found = info.rank;
  const char* from = "distributedInfo.rank";
  if (!found) {
    found = chrome::rankFromFileName(baseName(path));
    from = "its name";
  }
  if (found == listed || (!found && listed == 0)) return {};
  return "listed as rank " + std::to_string(listed) + ", but read as " +
         (found ? "rank " + std::to_string(*found) + " (" + from + ")" : std::string("no rank")) +
         ": the file changed between the listing and the read; not used";
}

// No event of the file could be used (an empty traceEvents, or every event dropped): the
// rank would be a row of zeros.
std::string nothingUsable(const chrome::ReadResult& r, const chrome::ChromeEventMapper& mapper) {
  if (mapper.used() > 0) return {};
  if (r.info.events == 0) return "no event: its traceEvents is empty";
  return "no usable event: none of its " + std::to_string(r.info.events) +
         " events could be placed in time or on a row (" +
         std::to_string(mapper.droppedForTime()) +
         " dropped for their time: ts or dur not a number, outside 1970..2262, or at relative "
         "ts 0; see the json_* warnings)";
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
  // Streamed (ByteStream, JsonStream): buffers of fixed size, not the file.
  uint64_t decodeHeldBytes(uint64_t /*fileBytes*/) const override { return 0; }

  // JSON traces carry no time files: the devices of their GPU activities and
  // deviceProperties tell (plan/TopologyInference.h, gpusPerTrainerFromTraces).
  bool topologyFromTraces() const override { return true; }

  bool recognizes(const std::string& path) const override {
    return chrome::readTraceHead(path).ok();
  }

  Expected<TraceDecodeInfo> decodeTrace(const std::string& path,
                                        std::unique_ptr<FileBuffer>& /*buffer*/, EventSink& sink,
                                        const TraceDecodeOptions& options) const override {
    Expected<TimeBase> base = timeBaseOf(path, bases_);
    if (!base) return base.error();
    FileIdentity identity = statIdentity(path);  // at open; the digest is of the text read
    Warnings scratch;
    chrome::ChromeEventMapper mapper(sink, options.dropWarnings ? *options.dropWarnings : scratch,
                                     base->ns.value_or(0),
                                     std::filesystem::path(path).filename().string() + ": ",
                                     base->ns.has_value());
    chrome::ReadResult r =
        chrome::readTrace(path, [&mapper](const chrome::TraceEvent& e) { mapper.onEvent(e); });
    mapper.finish();
    identity.digest = r.info.textDigest;
    identity.hasDigest = identity.known;
    if (r.error && r.info.events == 0) return r.error->toError();
    if (!r.info.baseTimeProblem.empty()) return fileError(path, r.info.baseTimeProblem);
    if (std::string change = baseChange(*base, identity, r); !change.empty())
      return fileError(path, change);
    if (options.listedRank)
      if (std::string change = rankChange(path, *options.listedRank, r.info); !change.empty())
        return fileError(path, change);
    if (std::string none = nothingUsable(r, mapper); !none.empty()) return fileError(path, none);
    TraceDecodeInfo info{{}, fileSize(path), r.info.visibleGpus, identity};
    if (r.error)
      info.partial = "read " + std::to_string(r.info.events) + " events, then byte " +
                     std::to_string(r.error->offset) + ": " + r.error->message;
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
