#include <algorithm>
#include <exception>
#include <map>
#include <stdexcept>

#include "xstack/app/ReportStages.h"
#include "xstack/core/FaultInjection.h"
#include "xstack/core/FileIdentity.h"
#include "xstack/source/SourceRegistry.h"

namespace xstack {
namespace {

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

// Every source lists the folders; the one that finds profiles is this
// rank's choice (the default source when none does). Two sources that both
// find profiles (other files than each other's): a fatal line naming one
// file of each.
SourceListing chooseSource(const ReportOptions& opt) {
  std::vector<SourceListing> found;
  for (const Source* s : registeredSources()) {
    SourceListing l{s, s->resolveDirs(opt.dataDir, opt.dirs), {}};
    l.listing = s->list(l.dirs);
    if (hasProfiles(l.listing) || !l.listing.fatal.empty()) found.push_back(std::move(l));
  }
  if (found.empty()) {
    const Source& s = defaultSource();
    SourceListing l{&s, s.resolveDirs(opt.dataDir, opt.dirs), {}};
    l.listing = s.list(l.dirs);
    for (const Source* other : registeredSources()) {  // what no source could read
      if (other == &s) continue;
      InputListing o = other->list(other->resolveDirs(opt.dataDir, opt.dirs));
      l.listing.ignored.insert(l.listing.ignored.end(), o.ignored.begin(), o.ignored.end());
    }
    return l;
  }
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

// One rank's listing, as the agreement needs it: one field per line.
std::string encodeChoice(const std::string& host, const Source& source, const InputListing& l) {
  const InputFile* first = nullptr;
  for (const InputFile& f : l.files)
    if (f.kind == InputKind::Profile && !first) first = &f;
  std::string out = std::string(source.name()) + "\n" + (first ? first->path : "") + "\n" +
                    std::to_string(l.declaredWorldSize) + "\n" + std::to_string(l.ignored.size()) +
                    "\n" + (l.ignored.empty() ? "" : l.ignored.front()) + "\n";
  out += host + "\n" + std::to_string(l.declaredVisibleGpus) + "\n";
  for (const std::string& f : l.fatal) out += f + "\n";
  return out;
}

struct RankChoice {
  std::string source, firstProfile, firstIgnored, host;
  int64_t world = 0;
  uint64_t ignored = 0;
  std::vector<std::string> fatal;
  int64_t visibleGpus = 0;
};

RankChoice decodeChoice(const std::string& text) {
  std::vector<std::string> lines;
  size_t at = 0;
  while (at < text.size()) {
    size_t nl = text.find('\n', at);
    lines.push_back(text.substr(at, nl - at));
    at = nl + 1;
  }
  lines.resize(std::max<size_t>(lines.size(), 7));
  RankChoice c{lines[0],
               lines[1],
               lines[4],
               lines[5],
               std::stoll("0" + lines[2]),
               std::stoull("0" + lines[3]),
               {},
               std::stoll("0" + lines[6])};
  c.fatal.assign(lines.begin() + 7, lines.end());
  return c;
}

// The listing of `source` on this rank (after another rank chose it).
void relist(ReportRun& run, const Source& source, ListedInputs& out) {
  out.dirs = source.resolveDirs(run.options.dataDir, run.options.dirs);
  out.listing = source.list(out.dirs);
}

// collective: every rank's choice of source; the one source that found
// profiles anywhere, which ranks that chose another adopt (they list again
// with it). Usage failures: two formats in the job, or files to fix.
Expected<const Source*> agreeOnSource(ReportRun& run, const Source* mine, ListedInputs& out) {
  std::vector<RankChoice> all;
  for (const std::string& t : run.comm.allgather(encodeChoice(run.comm.host(), *mine, out.listing)))
    all.push_back(decodeChoice(t));
  const Source* chosen = nullptr;
  std::string chosenFile;
  std::vector<std::string> fatal;
  for (const RankChoice& c : all) {
    fatal.insert(fatal.end(), c.fatal.begin(), c.fatal.end());
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
  if (!fatal.empty()) {
    std::sort(fatal.begin(), fatal.end());
    fatal.erase(std::unique(fatal.begin(), fatal.end()), fatal.end());
    for (size_t i = 0; i + 1 < fatal.size(); ++i) run.log("error: " + fatal[i]);
    return Failure::usage("error: " + fatal.back());
  }
  if (!chosen) chosen = mine;
  if (chosen != mine) relist(run, *chosen, out);
  // Ranks of one host see the same folders: each host's files count once.
  std::map<std::string, std::pair<uint64_t, std::string>> ignoredByHost;
  for (const RankChoice& c : all) {
    out.declaredWorldSize = std::max(out.declaredWorldSize, c.world);
    out.declaredVisibleGpus = std::max(out.declaredVisibleGpus, c.visibleGpus);
    auto& [count, first] = ignoredByHost[c.host];
    if (c.source == chosen->name() && c.ignored > count) {
      count = c.ignored;
      first = c.firstIgnored;
    }
  }
  uint64_t ignored = 0;
  std::string example;
  for (const auto& [host, counted] : ignoredByHost) {
    ignored += counted.first;
    if (example.empty()) example = counted.second;
  }
  if (ignored > 0)
    run.log("note: " + std::to_string(ignored) +
            " files in the input folders are no input xstack reads and were ignored (e.g. " +
            example + ")");
  return chosen;
}

}  // namespace

Expected<ListedInputs> listInputsStage(ReportRun& run) {
  ListedInputs out;
  SourceListing chosen;
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
  // What this host holds under each path (issue 21 item A2): ~200 KiB read a file.
  for (InputFile& f : out.listing.files) f.sample = sampleDigestOf(f.path);
  Expected<const Source*> agreed = agreeOnSource(run, chosen.source, out);
  if (!agreed) return agreed.error();
  run.source = *agreed;
  run.clock.mark("list");
  return out;
}

}  // namespace xstack
