#include "xstack/app/ReadStage.h"

#include <stdexcept>

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

void summarizeProfile(const LoadedProfile& p, bool displayed, InputSummary& s,
                      std::vector<Span>& spans) {
  const ProfileData& d = p.data;
  s.events = d.events.size();
  s.memEvents = d.memEvents.size();
  MinTimestamp minTs;
  minTs.add(d.startNs);
  minTs.add(d.endNs);
  MarkerPairer pairer;
  Marker m;
  for (const ProfileEvent& e : d.events) {
    minTs.add(e.startNs);
    minTs.add(e.endNs);
    if (markerOf(e.name, e.detail, e.startNs, m)) pairer.add(m);
  }
  for (const ProfileMemEvent& e : d.memEvents) {
    minTs.add(e.startNs);
    minTs.add(e.endNs);
  }
  s.minTs = minTs.value;
  spans = pairer.pair(s.warnings);
  s.spanCount = spans.size();
  if (displayed) {
    s.rows = rankRows(d, s.warnings);
    countMemoryWarnings(d.memEvents, s.warnings);
  }
  if (!p.partial.empty()) {
    s.status = InputStatus::Partial;
    s.problem = p.partial;
  }
}

Expected<LoadedProfile> reloadProfile(const InputSummary& s, LoadedProfile recycled) {
  return readProfile(s.file.path, std::move(recycled));
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

// `spare`: memory of the last profile read and dropped, reused for the next.
void readOne(const PlannedFile& pf, const ReadOptions& opt, uint64_t& cached, LocalInput& in,
             LoadedProfile& spare) {
  InputSummary& s = in.summary;
  s.file = pf.file;
  s.reader = pf.reader;
  s.readerHost = pf.readerHost;
  const std::string& path = pf.file.path;
  switch (pf.file.kind) {
    case InputKind::Profile: {
      auto p = readProfile(path, std::move(spare));
      spare = LoadedProfile{};
      if (!p) return fail(s, p.error());
      bool displayed = opt.topology.rankDisplayed(pf.file.id);
      summarizeProfile(*p, displayed, s, in.spans);
      if (displayed && cached + p->fileBytes <= opt.cacheBytes) {
        cached += p->fileBytes;
        in.profile = std::move(*p);
      } else {
        spare = std::move(*p);
      }
      return;
    }
    case InputKind::Dcgm: {
      DcgmParser parser(path);
      if (Status st = parseLines(path, parser); !st) return fail(s, st.error());
      in.dcgm = std::move(parser.samples());
      s.warnings.merge(parser.warnings());
      MinTimestamp minTs;
      for (const DcgmSample& d : in.dcgm) minTs.add(d.tsNs);
      s.minTs = minTs.value;
      s.events = in.dcgm.size();
      std::map<int64_t, bool> gpus;
      for (const DcgmSample& d : in.dcgm) gpus[d.gpu] = true;
      for (const auto& [gpu, _] : gpus)
        for (int64_t pid = kFirstDcgmPid; pid < kFirstDcgmPid + kDcgmPidCount; ++pid)
          if (uint64_t n = dcgmCounterCount(pid, gpu, in.dcgm)) s.counterEvents[{pid, gpu}] = n;
      return;
    }
    case InputKind::Net: {
      NetParser parser(path);
      if (Status st = parseLines(path, parser); !st) return fail(s, st.error());
      in.net = std::move(parser.samples());
      s.warnings.merge(parser.warnings());
      MinTimestamp minTs;
      for (const NetSample& n : in.net) minTs.add(n.tsNs);
      s.minTs = minTs.value;
      s.events = in.net.size();
      for (int64_t pid : {kNetTxPid, kNetRxPid})
        if (uint64_t n = netCounterCount(pid, in.net)) s.counterEvents[{pid, 0}] = n;
      return;
    }
    case InputKind::Time: {
      TimeFileParser parser(path);
      if (Status st = parseLines(path, parser); !st) return fail(s, st.error());
      s.warnings.merge(parser.warnings());
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
  uint64_t cached = 0;
  LoadedProfile spare;
  for (const PlannedFile& pf : plan.files) {
    if (pf.reader != myRank) continue;
    LocalInput in;
    try {
      if (faultInjected("read", myRank)) throw std::runtime_error("injected read fault");
      readOne(pf, options, cached, in, spare);
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
