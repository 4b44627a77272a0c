#include "xstack/cmd/report/ProfileReading.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <mutex>
#include <set>
#include <stdexcept>

#include "xstack/analysis/AnalysisRegistry.h"
#include "xstack/core/FaultInjection.h"
#include "xstack/core/ParallelWork.h"
#include "xstack/model/MemoryTrack.h"
#include "xstack/model/RankRows.h"
#include "xstack/model/TraceLayout.h"
#include "xstack/render/NameTable.h"
#include "xstack/render/SpilledRows.h"
#include "xstack/source/SourceRegistry.h"

namespace xstack {

std::string withoutPath(const std::string& message, const std::string& path) {
  if (message.size() > path.size() + 2 && message.compare(0, path.size(), path) == 0 &&
      message.compare(path.size(), 2, ": ") == 0)
    return message.substr(path.size() + 2);
  return message;
}

namespace {

// A file's name without its folder: warning examples name files by it, so
// they (and otherData) do not depend on where a rank saw the file.
std::string hex16(uint64_t v) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(v));
  return text;
}

std::string baseName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The read stage's pass over one profile, as it is decoded: nothing per
// event is kept but the step marks; the tee and the analyses' per-rank parts
// see every event.
class ProfileSummarizer final : public EventSink {
 public:
  ProfileSummarizer(bool displayed, InputSummary& s, ProfileSummaryTargets targets)
      : displayed_(displayed),
        s_(s),
        tee_(targets.tee),
        analyses_(std::move(targets.analyses)),
        namesSlices_(!analyses_.empty()) {
    if (tee_) analyses_.push_back(tee_);
  }
  void onSlice(const SliceEvent& e) override {
    ++s_.events;
    minTs_.add(e.startNs);
    minTs_.add(e.endNs);
    if (displayed_) rows_.add(e);
    if (e.row.kind == RowKind::Gpu) noteGpuDevice(e.row.device);
    if (!namesSlices_) {
      for (EventSink* a : analyses_) a->onSlice(e);
      return;
    }
    SliceEvent named = e;  // the name hashed once here for every analysis part
    named.nameId = names_.intern(e.name);
    for (EventSink* a : analyses_) a->onSlice(named);
  }
  void onStepMark(const StepMark& m) override {
    pairer_.add(m);
    for (EventSink* a : analyses_) a->onStepMark(m);
  }
  void onUnplaced(const UnplacedEvent& u) override {
    ++(u.memory ? s_.memEvents : s_.events);
    minTs_.add(u.startNs);
    minTs_.add(u.endNs);
    for (EventSink* a : analyses_) a->onUnplaced(u);
  }
  void onMemory(const MemoryEvent& m) override {
    ++s_.memEvents;
    minTs_.add(m.startNs);
    minTs_.add(m.endNs);
    if (displayed_) {
      rows_.add(m);
      memWarnings_.add(m);
    }
    for (EventSink* a : analyses_) a->onMemory(m);
  }
  void onTraceStart(uint64_t ns) override {
    minTs_.add(ns);
    for (EventSink* a : analyses_) a->onTraceStart(ns);
  }
  void onTraceEnd(uint64_t ns) override {
    minTs_.add(ns);
    for (EventSink* a : analyses_) a->onTraceEnd(ns);
  }

  // After the last event: fills the rest of the summary.
  void finish(const std::string& where, const std::string& partial, std::vector<Span>& spans) {
    s_.minTs = minTs_.value;
    spans = pairer_.pair(s_.warnings, where);
    s_.spanCount = spans.size();
    if (displayed_) {
      s_.rows = rows_.rows();
      memWarnings_.addTo(s_.warnings, where);
    }
    s_.gpuDevices.assign(gpuDevices_.begin(), gpuDevices_.end());
    if (!partial.empty()) {
      s_.status = InputStatus::Partial;
      s_.problem = partial;
    }
  }

 private:
  // Topology evidence: the distinct devices of GPU activities (a few).
  void noteGpuDevice(int64_t device) {
    if (device == lastGpuDevice_) return;
    lastGpuDevice_ = device;
    if (gpuDevices_.size() < kMaxGpuDevicesKept) gpuDevices_.insert(device);
  }

  const bool displayed_;
  InputSummary& s_;
  std::set<int64_t> gpuDevices_;
  int64_t lastGpuDevice_ = -1;
  MinTimestamp minTs_;
  MarkerPairer pairer_;
  RowCollector rows_;
  MemoryWarningCounter memWarnings_;
  EventSink* tee_;
  std::vector<EventSink*> analyses_;  // the analyses' parts, then the tee
  const bool namesSlices_;            // analysis parts: each slice gets its nameId
  NameTable names_;                   // the profile's slice names (SliceEvent::nameId)
};

// Empty when the file read (`read`: stat at open) is the one listed (`listed`: its size and
// sample digest on this host at listing), else what differs: a file replaced or rewritten
// between the listing and the read is not drawn under the listing's rank. Not checked when
// the listing took no sample (a plan made without the listing stage).
std::string listingChange(const InputFile& listed, const FileIdentity& read) {
  if (listed.sample == 0) return {};
  std::string what;
  if (read.known && read.size != listed.bytes) {
    what = "its size changed from " + std::to_string(listed.bytes) + " bytes at listing to " +
           std::to_string(read.size) + " at the read";
  } else if (const uint64_t now = sampleDigestOf(listed.path); now != listed.sample) {
    what = "its contents changed (sample digest " + hex16(listed.sample) + " at listing, " +
           hex16(now) + " at the read)";
  } else {
    return {};
  }
  return "not the file listed as rank " + std::to_string(listed.id) + ": " + what + "; not used";
}

}  // namespace

Expected<TraceDecodeInfo> summarizeProfile(const Source& source, bool displayed, InputSummary& s,
                                           std::vector<Span>& spans,
                                           std::unique_ptr<FileBuffer>& buffer,
                                           ProfileSummaryTargets targets) {
  ProfileSummarizer sum(displayed, s, targets);
  const std::string where =
      baseName(s.file.path) + " (training rank " + std::to_string(s.file.id) + ")";
  // Rows and their drop warnings are counted for displayed ranks only.
  TraceDecodeOptions options{displayed ? &s.warnings : nullptr, where, s.file.id};
  auto info = source.decodeTrace(s.file.path, buffer, sum, options);
  if (info)
    if (std::string change = listingChange(s.file, info->identity); !change.empty())
      return Error{s.file.path + ": " + change}.atFile(s.file.path);
  if (info) {
    sum.finish(where, info->partial, spans);
    s.visibleGpus = info->visibleGpus;
    s.identity = info->identity;
  }
  return info;
}

SpillOptions decodeShare(const SpillOptions& spill, const Source& source, uint64_t fileBytes) {
  SpillOptions share = spill;
  const uint64_t held = std::min(spill.memoryBytes, source.decodeHeldBytes(fileBytes));
  const uint64_t least = std::min<uint64_t>(spill.memoryBytes, uint64_t{1} << 20);
  share.memoryBytes = std::max(least, spill.memoryBytes - held);
  return share;
}

unsigned decodersWithin(unsigned threads, uint64_t budget, const Source& source,
                        uint64_t largestFile) {
  const uint64_t held = source.decodeHeldBytes(largestFile);
  if (held == 0) return threads;
  return static_cast<unsigned>(std::clamp<uint64_t>(budget / held, 1, std::max(1U, threads)));
}

namespace {

void fail(InputSummary& s, const Error& e) {
  s.status = InputStatus::Failed;
  s.problem = withoutPath(e.message, s.file.path);
}

// A dcgm, net or time file with no usable line (empty, random bytes, another
// kind of log) is a bad input, not noise: Failed, rc 3. Its warnings stay counted.
void failIfUnusable(InputSummary& s, bool usable) {
  if (usable) return;
  s.status = InputStatus::Failed;
  s.problem = "no usable " + std::string(kindName(s.file.kind)) + " line (" +
              std::to_string(s.warnings.total()) + " lines skipped)";
}

// The counts of a DCGM or net file's samples per trace process.
void countCounterEvents(LocalInput& in) {
  InputSummary& s = in.summary;
  MinTimestamp minTs;
  for (const GpuTelemetrySample& d : in.dcgm) minTs.add(d.tsNs);
  for (const NetCounterSample& n : in.net) minTs.add(n.tsNs);
  s.minTs = minTs.value;
  s.events = in.dcgm.size() + in.net.size();
  std::map<int64_t, bool> gpus;
  for (const GpuTelemetrySample& d : in.dcgm) gpus[d.gpu] = true;
  for (const auto& [gpu, _] : gpus)
    for (CounterGroup g : kCounterGroups) {
      if (isNetGroup(g)) continue;
      if (uint64_t n = dcgmCounterCount(counterPid(g), gpu, in.dcgm)) s.counterEvents[{g, gpu}] = n;
    }
  if (s.file.kind == InputKind::Net)
    for (CounterGroup g : {CounterGroup::NetTx, CounterGroup::NetRx})
      if (uint64_t n = netCounterCount(counterPid(g), in.net)) s.counterEvents[{g, 0}] = n;
}

// The ops a rank keeps in LocalInput::keptRows over all its files, shared by
// its reading threads: half the budget (the analysis' sorters hold at most
// another eighth meanwhile, kAnalysisBudgetDivisor; the rest is the walk's
// and the output pieces'). A file claims all that is left when it starts and
// gives back what it does not keep, so one thread reads like the loop it was.
SharedBudget keptRowsBudget(const ReadOptions& opt) {
  return SharedBudget(heldOpsWithin({opt.spill.dir, opt.spill.memoryBytes / 2}));
}

// Rows to keep for rendering, when the source wants them and the budget allows;
// `claimed` is what was claimed of `kept` for them (0: none, nothing to settle).
std::unique_ptr<RowBuckets> rowsToKeep(const Source& source, bool displayed, SharedBudget& kept,
                                       uint64_t& claimed) {
  claimed = 0;
  if (!displayed || !source.keepRowsForRendering()) return nullptr;
  claimed = kept.claim(0);
  if (claimed == 0) return nullptr;
  auto rows = std::make_unique<RowBuckets>();
  rows->resetLearning();
  rows->limitOps(claimed);
  return rows;
}

// A per-rank part of every registered analysis for one profile (none with
// --no-analysis).
std::vector<std::unique_ptr<RankAnalysis>> analysisParts(const ReadOptions& opt) {
  std::vector<std::unique_ptr<RankAnalysis>> parts;
  if (!opt.analysis) return parts;
  for (const Analysis* a : registeredAnalyses()) parts.push_back(a->rankPart(opt.spill));
  return parts;
}

// Every analysis' finished part of the profile of training rank `rank`, onto
// `shelf` (null: one of the input's own, in memory) with their handles in
// in.analyses (all of them, or none and an Error, e.g. a sorter that could
// not spill: it names the spill folder).
Status finishAnalyses(int64_t rank, std::vector<std::unique_ptr<RankAnalysis>>& parts,
                      const std::shared_ptr<PartShelf>& shelf, LocalInput& in) {
  std::vector<std::string> results;
  for (auto& part : parts) {
    Expected<std::string> bytes = part->finish(rank, in.spans);
    if (!bytes) return bytes.error();
    results.push_back(std::move(*bytes));
  }
  for (auto& part : parts) part->addWarnings(in.summary.warnings);
  if (results.empty()) return {};
  in.parts = shelf ? shelf : std::make_shared<PartShelf>(std::string(), UINT64_MAX);
  for (size_t i = 0; i < results.size(); ++i)
    in.analyses.push_back(in.parts->put(i, std::move(results[i])));
  return {};
}

// Settles a claim on `budget` when it goes out of scope (also when a read throws).
struct ClaimSettler {
  SharedBudget& budget;
  uint64_t claimed = 0;
  uint64_t used = 0;
  ~ClaimSettler() {
    if (claimed) budget.settle(claimed, used);
  }
};

// `spare`: the file buffer of the last profile this thread read, reused for
// the next. `kept`: the ops this rank may keep in LocalInput::keptRows.
void readOne(const PlannedFile& pf, const ReadOptions& opt, LocalInput& in,
             std::unique_ptr<FileBuffer>& spare, SharedBudget& kept) {
  const Source& source = opt.source ? *opt.source : defaultSource();
  InputSummary& s = in.summary;
  s.file = pf.file;
  s.reader = pf.reader;
  s.readerHost = pf.readerHost;
  if (pf.file.kind == InputKind::Profile) {
    const bool displayed = opt.topology.rankDisplayed(pf.file.id);
    // Streaming: the summary is computed as the file is decoded; only the
    // file's bytes are held, in memory reused from one profile to the next,
    // and charged to this file's share of the budget.
    ReadOptions mine = opt;
    mine.spill = decodeShare(opt.spill, source, pf.file.bytes);
    std::vector<std::unique_ptr<RankAnalysis>> parts = analysisParts(mine);
    uint64_t claimed = 0;
    std::unique_ptr<RowBuckets> rows = rowsToKeep(source, displayed, kept, claimed);
    ClaimSettler settle{kept, claimed};
    ProfileSummaryTargets targets{rows.get(), {}};
    for (auto& part : parts) targets.analyses.push_back(part.get());
    auto info = summarizeProfile(source, displayed, s, in.spans, spare, std::move(targets));
    if (!info) return fail(s, info.error());
    if (Status st = finishAnalyses(pf.file.id, parts, opt.parts, in); !st) {
      in.spans.clear();  // the file fails: never a wrong table
      return fail(s, st.error());
    }
    if (rows && !rows->abandoned()) {
      rows->adoptRows(s.rows);
      settle.used = rows->opCount();
      in.keptRows = std::move(rows);
      s.rowsKept = true;
    }
    return;
  }
  CounterFileData data;
  if (Status st = source.readCounterFile(pf.file, baseName(pf.file.path), data); !st)
    return fail(s, st.error());
  s.warnings.merge(data.warnings);
  failIfUnusable(s, data.usable());
  if (pf.file.kind == InputKind::Time) {
    MinTimestamp minTs;
    if (data.startNs) minTs.add(*data.startNs);
    if (data.endNs) minTs.add(*data.endNs);
    s.minTs = minTs.value;
    return;
  }
  in.dcgm = std::move(data.gpu);
  in.net = std::move(data.net);
  countCounterEvents(in);
}

// A file that could not be read (or not twice alike): nothing of it is kept.
LocalInput failedInput(const PlannedFile& pf, std::string problem) {
  LocalInput in;
  in.summary.file = pf.file;
  in.summary.reader = pf.reader;
  in.summary.readerHost = pf.readerHost;
  in.summary.status = InputStatus::Failed;
  in.summary.problem = std::move(problem);
  return in;
}

// How a second reading of a profile replaces its first: a profile displayed
// or hidden by another --gpus-per-trainer fails when the second read throws
// (its first reading has the other display's rows); one shown only because a
// finding names it keeps its first reading unless the second is Ok (it
// stays undisplayed). A profile whose identity changed between the reads
// keeps neither (a bad input, never a mix of two versions).
enum class SecondReadRule { NotAgain, DisplayChanged, ShownByFinding };

SecondReadRule secondReadRule(int64_t rank, const LocalInput& first, const Topology& before,
                              const Topology& after) {
  if (before.rankDisplayed(rank) == after.rankDisplayed(rank) ||
      first.summary.status == InputStatus::Failed)
    return SecondReadRule::NotAgain;
  Topology withoutShown = after;
  withoutShown.shownRanks.clear();
  if (before.rankDisplayed(rank) != withoutShown.rankDisplayed(rank))
    return SecondReadRule::DisplayChanged;
  return first.summary.status == InputStatus::Ok ? SecondReadRule::ShownByFinding
                                                 : SecondReadRule::NotAgain;
}

// Reads `pf` again into `in` (its first reading) under `rule`.
void readAgain(const PlannedFile& pf, const ReadOptions& options, SecondReadRule rule,
               LocalInput& in, std::unique_ptr<FileBuffer>& spare, SharedBudget& kept) {
  LocalInput again;
  try {
    readOne(pf, options, again, spare, kept);
  } catch (const std::exception& e) {  // e.g. bad_alloc
    if (rule == SecondReadRule::DisplayChanged)
      in = failedInput(pf, std::string("second read failed: ") + e.what());
    return;
  }
  const std::string change = identityChange(in.summary.identity, again.summary.identity, true);
  if (!change.empty()) {
    in = failedInput(pf, "changed between its two reads: " + change);
    return;
  }
  if (rule == SecondReadRule::DisplayChanged || again.summary.status == InputStatus::Ok)
    in = std::move(again);
}

// The files of `plan` that `rank` reads, in plan order.
std::vector<const PlannedFile*> filesOf(const Plan& plan, int rank) {
  std::vector<const PlannedFile*> mine;
  for (const PlannedFile& pf : plan.files)
    if (pf.reader == rank) mine.push_back(&pf);
  return mine;
}

// The threads that read `files` at once: --threads, fewer when the files
// are decoded whole and that many of the largest would pass the budget.
unsigned readWorkers(const ReadOptions& options, const std::vector<const PlannedFile*>& files) {
  const Source& source = options.source ? *options.source : defaultSource();
  uint64_t largest = 0;
  for (const PlannedFile* pf : files)
    if (pf->file.kind == InputKind::Profile) largest = std::max(largest, pf->file.bytes);
  const unsigned decoders =
      decodersWithin(options.threads, options.spill.memoryBytes, source, largest);
  return workersFor(decoders, files.size());
}

// The options of one file read while `workers` files are read at once: the
// rank's budget (--memory-mb) split between them, so that the files in flight
// hold no more than one file did (at least 1 MiB each, or the whole budget when
// it is smaller: spilling below that only costs time).
ReadOptions perFileOptions(const ReadOptions& options, unsigned workers) {
  ReadOptions one = options;
  const uint64_t floor = std::min<uint64_t>(options.spill.memoryBytes, uint64_t{1} << 20);
  one.spill.memoryBytes = std::max(floor, options.spill.memoryBytes / std::max(1U, workers));
  return one;
}

}  // namespace

void readWhereDisplayChanged(const Plan& plan, int myRank, const ReadOptions& options,
                             const Topology& before, std::vector<LocalInput>& local) {
  const std::vector<const PlannedFile*> mine = filesOf(plan, myRank);
  SharedBudget kept = keptRowsBudget(options);
  for (const LocalInput& in : local)
    if (in.keptRows) kept.settle(in.keptRows->opCount(), in.keptRows->opCount());
  std::vector<std::pair<size_t, SecondReadRule>> again;  // (index in local, rule)
  for (size_t k = 0; k < mine.size() && k < local.size(); ++k) {
    const PlannedFile& pf = *mine[k];
    if (pf.file.kind != InputKind::Profile) continue;
    const SecondReadRule rule = secondReadRule(pf.file.id, local[k], before, options.topology);
    if (rule != SecondReadRule::NotAgain) again.emplace_back(k, rule);
  }
  std::vector<const PlannedFile*> againFiles;
  for (const auto& [k, rule] : again) againFiles.push_back(mine[k]);
  const unsigned workers = readWorkers(options, againFiles);
  const ReadOptions shared = perFileOptions(options, workers);
  std::vector<std::unique_ptr<FileBuffer>> spares(workers);
  forEachItem(again.size(), workers, [&](size_t i, unsigned worker) {
    const auto [k, rule] = again[i];
    readAgain(*mine[k], shared, rule, local[k], spares[worker], kept);
  });
}

std::vector<LocalInput> readAssigned(const Plan& plan, int myRank, const ReadOptions& options,
                                     const std::function<void(const LocalInput&)>& onFile) {
  const std::vector<const PlannedFile*> mine = filesOf(plan, myRank);
  std::vector<LocalInput> out(mine.size());
  SharedBudget kept = keptRowsBudget(options);
  const unsigned workers = readWorkers(options, mine);
  ReadOptions shared = perFileOptions(options, workers);
  if (!shared.parts && shared.analysis)
    shared.parts =
        std::make_shared<PartShelf>(options.spill.dir, storeHeldBytes(options.spill.memoryBytes));
  std::vector<std::unique_ptr<FileBuffer>> spares(workers);
  std::mutex progress;
  forEachItem(mine.size(), workers, [&](size_t k, unsigned worker) {
    LocalInput& in = out[k];
    try {
      if (faultInjected("read", myRank)) throw std::runtime_error("injected read fault");
      readOne(*mine[k], shared, in, spares[worker], kept);
    } catch (const std::exception& e) {  // e.g. bad_alloc: this file fails, the job goes on
      in = failedInput(*mine[k], std::string("read failed: ") + e.what());
    }
    std::lock_guard<std::mutex> lock(progress);
    if (onFile) onFile(in);
  });
  if (shared.parts) shared.parts->seal();
  return out;
}

}  // namespace xstack
