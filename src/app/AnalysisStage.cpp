#include "xstack/app/AnalysisStage.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "xstack/analysis/Findings.h"
#include "xstack/analysis/StepTable.h"

namespace fs = std::filesystem;

namespace xstack {
namespace {

constexpr int kAnalysisTag = 91;  // distinct from the write stage's

// Writes `text` to dir/name through a hidden temporary file and a rename, so
// no reader ever sees a half-written file.
Status writeAtomically(const std::string& dir, const std::string& name, const std::string& text) {
  fs::path final = fs::path(dir) / name;
  fs::path temp = fs::path(dir) / ("." + name + ".tmp." + std::to_string(::getpid()));
  std::FILE* f = std::fopen(temp.c_str(), "wb");
  if (!f) return Error{"cannot create " + temp.string()};
  bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  ok = std::fclose(f) == 0 && ok;
  std::error_code ec;
  if (ok) fs::rename(temp, final, ec);
  if (!ok || ec) {
    fs::remove(temp, ec);
    return Error{"cannot write " + final.string()};
  }
  return {};
}

}  // namespace

std::string stepTableOf(const ProfileData& data, int64_t rank, const std::vector<Span>& spans) {
  StepTableBuilder b;
  for (const ProfileEvent& e : data.events) b.addEvent(e);
  for (const ProfileMemEvent& m : data.memEvents) b.addMemEvent(m);
  return encodeRankTables({b.build(rank, spans)});
}

AnalysisResult runAnalysisStage(Comm& comm, const std::vector<LocalInput>& local,
                                const Topology& topology, uint64_t originNs,
                                const std::string& outDir) {
  std::string mine;
  for (const LocalInput& in : local) mine += in.stepTable;
  AnalysisResult res;
  if (comm.rank() != 0) {
    comm.send(0, kAnalysisTag, 0, mine);
    return res;
  }
  std::vector<RankTable> tables;
  std::string decodeProblem;
  for (int r = 0; r < comm.size(); ++r) {
    std::string blob = r == 0 ? std::move(mine) : comm.recv(r, kAnalysisTag).data;
    try {
      for (RankTable& t : decodeRankTables(blob)) tables.push_back(std::move(t));
    } catch (const std::exception& e) {
      decodeProblem = "analysis: step tables of MPI rank " + std::to_string(r) + ": " + e.what();
    }
  }
  if (!decodeProblem.empty()) {
    res.written = Error{decodeProblem};
    return res;
  }
  try {  // rank 0 only: a failure here (memory) fails the analysis, not the traces
    std::sort(tables.begin(), tables.end(),
              [](const RankTable& a, const RankTable& b) { return a.rank < b.rank; });
    JobAnalysis a = analyzeJob(tables, topology);
    res.lines = terminalSummary(a, topology);
    Status st = writeAtomically(outDir, "steps.csv", stepsCsv(tables, topology, originNs));
    if (st.ok()) st = writeAtomically(outDir, "findings.json", findingsJson(a, topology));
    if (st.ok()) st = writeAtomically(outDir, "report.html", reportHtml(tables, a, topology));
    res.written = st;
  } catch (const std::exception& e) {
    res.written = Error{std::string("analysis failed: ") + e.what()};
  }
  return res;
}

}  // namespace xstack
