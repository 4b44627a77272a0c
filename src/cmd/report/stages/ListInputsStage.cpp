#include <algorithm>
#include <exception>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>

#include "xstack/cmd/report/stages/ReportStages.h"
#include "xstack/core/FaultInjection.h"
#include "xstack/core/FileIdentity.h"
#include "xstack/source/SourceRegistry.h"
#include "xstack/source/chrome/ChromeSource.h"
#include "xstack/transport/TypedMessages.h"

namespace xstack {
namespace {

// Files named in a message about the folders, at most (then "+N more").
constexpr size_t kNamedFiles = 5;

struct SourceListing {
  const Source* source = nullptr;
  InputDirs dirs;
  InputListing listing;
};

bool hasProfiles(const InputListing& l) {
  return std::any_of(l.files.begin(), l.files.end(),
                     [](const InputFile& f) { return f.kind == InputKind::Profile; });
}

const InputFile* firstProfileNotIn(const InputListing& l, const InputListing& other) {
  for (const InputFile& f : l.files) {
    if (f.kind != InputKind::Profile) continue;
    bool shared = std::any_of(other.files.begin(), other.files.end(),
                              [&f](const InputFile& o) { return o.path == f.path; });
    if (!shared) return &f;
  }
  return nullptr;
}

// No source found an input: the default source's listing, with what the
// others looked at and could not read (their ignored and hidden files, the
// folders they found). The default source's skip lines about those files
// (e.g. "no integer suffix" for a gen_info.json) go: the files are named
// once, as ignored.
SourceListing nothingFound(std::vector<SourceListing>& all) {
  const Source& s = defaultSource();
  auto mine =
      std::find_if(all.begin(), all.end(), [&s](const SourceListing& l) { return l.source == &s; });
  SourceListing l = std::move(*mine);
  std::set<std::string> ignoredElsewhere;
  for (SourceListing& o : all) {
    if (o.source == &s) continue;
    l.listing.profileDirFound = l.listing.profileDirFound || o.listing.profileDirFound;
    l.listing.hidden = std::max(l.listing.hidden, o.listing.hidden);
    for (std::string& path : o.listing.ignored)
      if (ignoredElsewhere.insert(path).second) l.listing.ignored.push_back(std::move(path));
  }
  std::erase_if(l.listing.skipped, [&ignoredElsewhere](const std::string& line) {
    for (size_t colon = line.find(": "); colon != std::string::npos;
         colon = line.find(": ", colon + 1))
      if (ignoredElsewhere.count(line.substr(0, colon))) return true;
    return false;
  });
  std::sort(l.listing.ignored.begin(), l.listing.ignored.end());
  l.listing.ignored.erase(std::unique(l.listing.ignored.begin(), l.listing.ignored.end()),
                          l.listing.ignored.end());
  return l;
}

// Every source lists the folders; the one that finds profiles is this
// rank's choice (the default source when none does). Two sources that both
// find profiles (other files than each other's): a fatal line naming one
// file of each.
SourceListing chooseSource(const ReportOptions& opt) {
  std::vector<SourceListing> all, found;
  for (const Source* s : registeredSources()) {
    SourceListing l{s, s->resolveDirs(opt.dataDir, opt.dirs), {}};
    l.listing = s->list(l.dirs);
    if (hasProfiles(l.listing) || !l.listing.fatal.empty() || !l.listing.unranked.empty())
      found.push_back(l);
    all.push_back(std::move(l));
  }
  if (found.empty()) return nothingFound(all);
  SourceListing chosen = std::move(found.front());
  for (size_t i = 1; i < found.size(); ++i) {
    const InputFile* a = firstProfileNotIn(chosen.listing, found[i].listing);
    const InputFile* b = firstProfileNotIn(found[i].listing, chosen.listing);
    if (a && b)
      chosen.listing.fatal.push_back("the inputs mix two formats: " + a->path + " (" +
                                     std::string(chosen.source->name()) + ") and " + b->path +
                                     " (" + std::string(found[i].source->name()) +
                                     "); give one job's files of one format per --data-dir");
  }
  return chosen;
}

// One rank's listing, as the agreement needs it.
struct RankChoice {
  std::string source, firstProfile, host;
  int64_t world = 0;
  int64_t visibleGpus = 0;
  uint64_t ignored = 0, hidden = 0;
  std::vector<std::string> ignoredNames;  // the first kNamedFiles
  std::vector<std::string> writers;       // name, first file, name, first file, ...
  std::vector<std::string> fatal;
  bool ranked = false;                  // a trace with a rank (firstProfile is one)
  std::vector<UnrankedTrace> unranked;  // traces whose rank nothing tells
};

// This rank's choice, for the gather: at most kNamedFiles ignored names.
RankChoice choiceOf(const std::string& host, const Source& source, const InputListing& l) {
  RankChoice c;
  c.source = source.name();
  for (const InputFile& f : l.files)
    if (f.kind == InputKind::Profile && c.firstProfile.empty()) c.firstProfile = f.path;
  c.ranked = !c.firstProfile.empty();
  if (!c.ranked && !l.unranked.empty()) c.firstProfile = l.unranked.front().file.path;
  c.unranked = l.unranked;
  c.host = host;
  c.world = l.declaredWorldSize;
  c.visibleGpus = l.declaredVisibleGpus;
  c.ignored = l.ignored.size();
  c.hidden = l.hidden;
  c.ignoredNames.assign(l.ignored.begin(), l.ignored.begin() + static_cast<std::ptrdiff_t>(std::min(
                                                                   l.ignored.size(), kNamedFiles)));
  for (const auto& [name, file] : l.writers) {
    c.writers.push_back(name);
    c.writers.push_back(file);
  }
  c.fatal = l.fatal;
  return c;
}

void writeChoice(wire::Writer& w, const RankChoice& c) {
  w.str(c.source);
  w.str(c.firstProfile);
  w.str(c.host);
  w.i64(c.world);
  w.i64(c.visibleGpus);
  w.u64(c.ignored);
  w.u64(c.hidden);
  w.strings(c.ignoredNames);
  w.strings(c.writers);
  w.strings(c.fatal);
  w.boolean(c.ranked);
  w.list(c.unranked, [](wire::Writer& x, const UnrankedTrace& u) {
    x.str(u.file.path);
    x.u64(u.file.bytes);
    x.u64(u.file.sample);
    x.str(u.fix);
  });
}

RankChoice readChoice(wire::Reader& r) {
  RankChoice c;
  c.source = r.str();
  c.firstProfile = r.str();
  c.host = r.str();
  c.world = r.i64();
  c.visibleGpus = r.i64();
  c.ignored = r.u64();
  c.hidden = r.u64();
  c.ignoredNames = r.strings();
  c.writers = r.strings();
  c.fatal = r.strings();
  c.ranked = r.boolean();
  r.list(c.unranked, [](wire::Reader& x) {
    UnrankedTrace u;
    u.file.path = x.str();
    u.file.bytes = x.u64();
    u.file.sample = x.u64();
    u.fix = x.str();
    return u;
  });
  return c;
}

// What this host holds under each listed path (~200 KiB read a file): the same path on
// two hosts is one file only when the samples agree.
void takeSamples(InputListing& l) {
  for (InputFile& f : l.files) f.sample = sampleDigestOf(f.path);
  for (UnrankedTrace& u : l.unranked) u.file.sample = sampleDigestOf(u.file.path);
}

// The listing of `source` on this rank (after another rank chose it).
void relist(ReportRun& run, const Source& source, ListedInputs& out) {
  out.dirs = source.resolveDirs(run.options.dataDir, run.options.dirs);
  out.listing = source.list(out.dirs);
  takeSamples(out.listing);
}

bool sameFile(const InputFile& a, const InputFile& b) {
  return a.path == b.path && a.bytes == b.bytes && a.sample == b.sample;
}

// The rank of the traces nothing gives one, decided on every rank's listing of `source`
// (the same on every rank, for any np): when the job's traces are one file (a file several
// ranks see, by path, size and sample, counts once) and it has no rank, it is rank 0, and
// returned. Else each trace without a rank is a fatal line naming it (nullptr).
const UnrankedTrace* settleUnranked(const std::vector<RankChoice>& all, std::string_view source,
                                    std::vector<std::string>& fatal) {
  std::vector<const UnrankedTrace*> distinct;
  bool ranked = false;
  for (const RankChoice& c : all) {
    if (c.source != source) continue;
    ranked = ranked || c.ranked;
    for (const UnrankedTrace& u : c.unranked)
      if (std::none_of(distinct.begin(), distinct.end(),
                       [&u](const UnrankedTrace* d) { return sameFile(d->file, u.file); }))
        distinct.push_back(&u);
  }
  if (distinct.size() == 1 && !ranked) return distinct.front();
  for (const UnrankedTrace* u : distinct) fatal.push_back(u->fix);
  return nullptr;
}

// The job's only trace, without a rank, as rank 0 in this rank's listing (when this rank
// sees it).
void readAsRankZero(const ReportRun& run, const UnrankedTrace& only, InputListing& l) {
  run.log("note: one trace without a rank (" + only.file.path + "): read as rank 0");
  for (const UnrankedTrace& u : l.unranked)
    if (sameFile(u.file, only.file)) l.files.push_back(u.file);
  l.unranked.clear();
  std::sort(l.files.begin(), l.files.end(), [](const InputFile& a, const InputFile& b) {
    return std::tie(a.kind, a.id, a.gpu, a.path) < std::tie(b.kind, b.id, b.gpu, b.path);
  });
}

// The first source that found profiles on some rank, or nullptr; two: a
// fatal line naming a file of each.
const Source* sourceFound(const std::vector<RankChoice>& all, std::vector<std::string>& fatal) {
  const Source* chosen = nullptr;
  std::string chosenFile;
  for (const RankChoice& c : all) {
    if (c.firstProfile.empty()) continue;
    const Source* s = findSource(c.source);
    if (chosen && s != chosen && fatal.empty())
      fatal.push_back("the inputs mix two formats: " + chosenFile + " (" +
                      std::string(chosen->name()) + ") and " + c.firstProfile + " (" + c.source +
                      "); give one job's files of one format per --data-dir");
    if (!chosen) {
      chosen = s;
      chosenFile = c.firstProfile;
    }
  }
  return chosen;
}

// The traces of one job come from one program: the first file of two
// programs, across every rank of `source`, is a fatal line.
void checkWriters(const std::vector<RankChoice>& all, std::string_view source,
                  std::vector<std::string>& fatal) {
  std::vector<std::pair<std::string, std::string>> firsts;  // program, its first file
  for (const RankChoice& c : all) {
    if (c.source != source) continue;
    for (size_t i = 0; i + 1 < c.writers.size(); i += 2) {
      const std::string& name = c.writers[i];
      if (std::none_of(firsts.begin(), firsts.end(),
                       [&name](const auto& f) { return f.first == name; }))
        firsts.emplace_back(name, c.writers[i + 1]);
    }
  }
  if (firsts.size() < 2) return;
  fatal.push_back("the traces mix two profilers: " + firsts[0].second + " (" + firsts[0].first +
                  ") and " + firsts[1].second + " (" + firsts[1].first +
                  "); give one job's traces, of one profiler, per --data-dir");
}

// Whether a rank's listing found traces of Paddle's profiler (JSON).
bool writtenByPaddle(const RankChoice& c) {
  const std::string paddle = chrome::traceWriterName(chrome::TraceWriter::Paddle);
  for (size_t i = 0; i < c.writers.size(); i += 2)
    if (c.writers[i] == paddle) return true;
  return false;
}

// Ranks of one host see the same folders: each host's ignored and hidden
// files count once (its rank that saw the most).
void countIgnored(const std::vector<RankChoice>& all, std::string_view source, ListedInputs& out) {
  std::map<std::string, const RankChoice*> byHost;
  for (const RankChoice& c : all) {
    if (c.source != source) continue;
    const RankChoice*& best = byHost[c.host];
    if (!best || c.ignored + c.hidden > best->ignored + best->hidden) best = &c;
  }
  for (const auto& [host, c] : byHost) {
    out.ignoredFiles += c->ignored;
    out.hiddenFiles += c->hidden;
    for (const std::string& name : c->ignoredNames)
      if (out.ignoredExamples.size() < kNamedFiles) out.ignoredExamples.push_back(name);
  }
}

void noteIgnored(const ReportRun& run, const ListedInputs& in) {
  const uint64_t total = in.ignoredFiles + in.hiddenFiles;
  if (total == 0) return;
  std::string what;
  if (in.hiddenFiles > 0) what = std::to_string(in.hiddenFiles) + " hidden";
  if (!in.ignoredExamples.empty())
    what += (what.empty() ? "e.g. " : "; e.g. ") + in.ignoredExamples.front();
  run.log("note: " + std::to_string(total) +
          " files in the input folders are no input xstack reads and were ignored (" + what + ")");
}

// collective: every rank's choice of source; the one source that found
// profiles anywhere, which ranks that chose another adopt (they list again
// with it). The job's only trace, when nothing gives its rank, is rank 0
// (settleUnranked). Usage failures: two formats or two profilers in the job,
// traces without a rank beside other traces, or files to fix.
// A choice that does not decode is the same Error on every rank.
Expected<const Source*> agreeOnSource(ReportRun& run, const Source* mine, ListedInputs& out) {
  Expected<std::vector<RankChoice>> gathered =
      allgatherTyped(run.comm, choiceOf(run.comm.host(), *mine, out.listing), "the input listing",
                     writeChoice, readChoice);
  if (!gathered) return gathered.error();
  const std::vector<RankChoice>& all = *gathered;
  std::vector<std::string> fatal;
  for (const RankChoice& c : all) fatal.insert(fatal.end(), c.fatal.begin(), c.fatal.end());
  const Source* chosen = sourceFound(all, fatal);
  const bool anyFound = chosen != nullptr;  // else the plan stage names the files (rc 2)
  if (!chosen) chosen = mine;
  checkWriters(all, chosen->name(), fatal);
  const UnrankedTrace* only = settleUnranked(all, chosen->name(), fatal);
  if (!fatal.empty()) {
    std::sort(fatal.begin(), fatal.end());
    fatal.erase(std::unique(fatal.begin(), fatal.end()), fatal.end());
    for (size_t i = 0; i + 1 < fatal.size(); ++i) run.log("error: " + fatal[i]);
    return Failure::usage("error: " + fatal.back());
  }
  if (chosen != mine) relist(run, *chosen, out);
  if (only) readAsRankZero(run, *only, out.listing);
  for (const RankChoice& c : all) {
    out.declaredWorldSize = std::max(out.declaredWorldSize, c.world);
    out.declaredVisibleGpus = std::max(out.declaredVisibleGpus, c.visibleGpus);
    out.paddleTraces = out.paddleTraces || writtenByPaddle(c);
  }
  countIgnored(all, chosen->name(), out);
  if (anyFound) noteIgnored(run, out);
  return chosen;
}

}  // namespace

Expected<ListedInputs> listInputsStage(ReportRun& run) {
  ListedInputs out;
  SourceListing chosen;
  runInjectedCommand("list-cmd", run.comm.rank());  // test hook: before the first input is read
  try {
    if (faultInjected("list", run.comm.rank())) throw std::runtime_error("injected listing fault");
    chosen = chooseSource(run.options);
  } catch (const std::exception& e) {  // this rank contributes no files; the others go on
    const Source& s = defaultSource();
    chosen = {&s, s.resolveDirs(run.options.dataDir, run.options.dirs), {}};
    chosen.listing.skipped.push_back("rank " + std::to_string(run.comm.rank()) +
                                     ": listing failed: " + e.what());
    out.listingFailed = true;
  }
  out.dirs = chosen.dirs;
  out.listing = std::move(chosen.listing);
  takeSamples(out.listing);
  Expected<const Source*> agreed = agreeOnSource(run, chosen.source, out);
  if (!agreed) return agreed.error();
  run.source = *agreed;
  run.clock.mark("list");
  return out;
}

}  // namespace xstack
