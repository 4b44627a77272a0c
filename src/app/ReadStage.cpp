#include "xstack/app/ReadStage.h"

#include <stdexcept>

#include "xstack/analysis/StepTable.h"
#include "xstack/app/AnalysisStage.h"
#include "xstack/core/FaultInjection.h"
#include "xstack/input/LineReader.h"
#include "xstack/input/TimeFileParser.h"
#include "xstack/model/MemoryTrack.h"
#include "xstack/model/RankRows.h"
#include "xstack/trace/EventRenderer.h"
#include "xstack/trace/TraceLayout.h"

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
std::string baseName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The read stage's pass over one profile, as it is decoded: nothing per
// event is kept but the markers.
class ProfileSummarizer final : public ProfileSink {
 public:
  ProfileSummarizer(bool displayed, InputSummary& s, StepTableBuilder* steps = nullptr)
      : displayed_(displayed), s_(s), steps_(steps) {}
  void onEvent(const ProfileEvent& e) override {
    ++s_.events;
    if (steps_) steps_->addEvent(e);
    minTs_.add(e.startNs);
    minTs_.add(e.endNs);
    if (markerOf(e.name, e.detail, e.startNs, marker_)) pairer_.add(marker_);
    if (displayed_) rows_.add(e, s_.warnings);
  }
  void onMemEvent(const ProfileMemEvent& m) override {
    ++s_.memEvents;
    if (steps_) steps_->addMemEvent(m);
    minTs_.add(m.startNs);
    minTs_.add(m.endNs);
    if (displayed_) {
      rows_.add(m);
      memWarnings_.add(m);
    }
  }
  void onStartNs(uint64_t ns) override { minTs_.add(ns); }
  void onEndNs(uint64_t ns) override { minTs_.add(ns); }

  // After the last field: fills the rest of the summary.
  void finish(const std::string& partial, std::vector<Span>& spans) {
    s_.minTs = minTs_.value;
    const std::string where =
        baseName(s_.file.path) + " (training rank " + std::to_string(s_.file.id) + ")";
    spans = pairer_.pair(s_.warnings, where);
    s_.spanCount = spans.size();
    if (displayed_) {
      s_.rows = rows_.rows();
      memWarnings_.addTo(s_.warnings, where);
    }
    if (!partial.empty()) {
      s_.status = InputStatus::Partial;
      s_.problem = partial;
    }
  }

 private:
  const bool displayed_;
  InputSummary& s_;
  MinTimestamp minTs_;
  MarkerPairer pairer_;
  Marker marker_;
  RowCollector rows_;
  MemoryWarningCounter memWarnings_;
  StepTableBuilder* steps_;  // analysis, when on
};

}  // namespace

void summarizeProfile(const LoadedProfile& p, bool displayed, InputSummary& s,
                      std::vector<Span>& spans) {
  ProfileSummarizer sum(displayed, s);
  const ProfileData& d = p.data;
  if (d.hasStartNs) sum.onStartNs(d.startNs);
  for (const ProfileEvent& e : d.events) sum.onEvent(e);
  for (const ProfileMemEvent& m : d.memEvents) sum.onMemEvent(m);
  if (d.hasEndNs) sum.onEndNs(d.endNs);
  sum.finish(p.partial, spans);
}

namespace {

template <class Parser>
Status parseLines(const std::string& path, Parser& parser) {
  return readLines(
      path, [&](std::string_view line, const LineInfo& info) { parser.feedLine(line, info); },
      [&](const LineInfo& info, uint64_t len) { parser.overlongLine(info, len); });
}

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

// The summary's counter events of a DCGM file: per (group, GPU) with any.
void countDcgmCounters(InputSummary& s, const std::vector<DcgmSample>& dcgm) {
  std::map<int64_t, bool> gpus;
  for (const DcgmSample& d : dcgm) gpus[d.gpu] = true;
  for (const auto& [gpu, _] : gpus)
    for (CounterGroup g : kCounterGroups) {
      if (isNetGroup(g)) continue;
      if (uint64_t n = dcgmCounterCount(counterPid(g), gpu, dcgm)) s.counterEvents[{g, gpu}] = n;
    }
}

// The summary's counter events of a net file: tx and rx, GPU 0.
void countNetCounters(InputSummary& s, const std::vector<NetSample>& net) {
  for (CounterGroup g : {CounterGroup::NetTx, CounterGroup::NetRx})
    if (uint64_t n = netCounterCount(counterPid(g), net)) s.counterEvents[{g, 0}] = n;
}

// `spare`: the file buffer of the last profile read, reused for the next.
void readOne(const PlannedFile& pf, const ReadOptions& opt, LocalInput& in,
             std::unique_ptr<FileBuffer>& spare) {
  InputSummary& s = in.summary;
  s.file = pf.file;
  s.reader = pf.reader;
  s.readerHost = pf.readerHost;
  const std::string& path = pf.file.path;
  switch (pf.file.kind) {
    case InputKind::Profile: {
      const bool displayed = opt.topology.rankDisplayed(pf.file.id);
      // Streaming: the summary is computed as the file is decoded; only the
      // file's bytes are held, in memory reused from one profile to the next.
      StepTableBuilder steps;
      ProfileSummarizer sum(displayed, s, opt.analysis ? &steps : nullptr);
      auto info = readProfileInto(path, spare, sum);
      if (!info) return fail(s, info.error());
      sum.finish(info->partial, in.spans);
      if (opt.analysis) in.stepTable = encodeRankTables({steps.build(pf.file.id, in.spans)});
      return;
    }
    case InputKind::Dcgm: {
      DcgmParser parser(baseName(path));
      if (Status st = parseLines(path, parser); !st) return fail(s, st.error());
      in.dcgm = std::move(parser.samples());
      s.warnings.merge(parser.warnings());
      failIfUnusable(s, !in.dcgm.empty());
      MinTimestamp minTs;
      for (const DcgmSample& d : in.dcgm) minTs.add(d.tsNs);
      s.minTs = minTs.value;
      s.events = in.dcgm.size();
      countDcgmCounters(s, in.dcgm);
      return;
    }
    case InputKind::Net: {
      NetParser parser(baseName(path));
      if (Status st = parseLines(path, parser); !st) return fail(s, st.error());
      in.net = std::move(parser.samples());
      s.warnings.merge(parser.warnings());
      failIfUnusable(s, !in.net.empty());
      MinTimestamp minTs;
      for (const NetSample& n : in.net) minTs.add(n.tsNs);
      s.minTs = minTs.value;
      s.events = in.net.size();
      countNetCounters(s, in.net);
      return;
    }
    case InputKind::Time: {
      TimeFileParser parser(baseName(path));
      if (Status st = parseLines(path, parser); !st) return fail(s, st.error());
      s.warnings.merge(parser.warnings());
      failIfUnusable(s, parser.startNs || parser.endNs);
      MinTimestamp minTs;
      if (parser.startNs) minTs.add(*parser.startNs);
      if (parser.endNs) minTs.add(*parser.endNs);
      s.minTs = minTs.value;
      return;
    }
  }
}

}  // namespace

std::vector<LocalInput> readAssigned(const Plan& plan, int myRank, const ReadOptions& options,
                                     const std::function<void(const LocalInput&)>& onFile) {
  std::vector<LocalInput> out;
  std::unique_ptr<FileBuffer> spare;
  for (const PlannedFile& pf : plan.files) {
    if (pf.reader != myRank) continue;
    LocalInput in;
    try {
      if (faultInjected("read", myRank)) throw std::runtime_error("injected read fault");
      readOne(pf, options, in, spare);
    } catch (const std::exception& e) {  // e.g. bad_alloc: this file fails, the job goes on
      in = LocalInput{};
      in.summary.file = pf.file;
      in.summary.reader = pf.reader;
      in.summary.readerHost = pf.readerHost;
      in.summary.status = InputStatus::Failed;
      in.summary.problem = std::string("read failed: ") + e.what();
    }
    if (onFile) onFile(in);
    out.push_back(std::move(in));
  }
  return out;
}

}  // namespace xstack
