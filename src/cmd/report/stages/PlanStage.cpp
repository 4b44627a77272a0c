#include <algorithm>
#include <cstdio>
#include <set>

#include "xstack/cmd/report/PlanExchange.h"
#include "xstack/cmd/report/stages/ReportStages.h"
#include "xstack/core/TerminalText.h"
#include "xstack/plan/NodeNames.h"
#include "xstack/source/SourceRegistry.h"

namespace xstack {
namespace {

void printPlan(const Plan& plan) {
  for (const auto& f : plan.files)
    std::fprintf(stderr, "xstack: plan: %s %s %llu bytes -> rank %d on %s\n", kindName(f.file.kind),
                 terminalSafe(f.file.path).c_str(), static_cast<unsigned long long>(f.file.bytes),
                 f.reader, terminalSafe(f.readerHost).c_str());
}

// collective: the effective --gpus-per-trainer, given and checked against the
// time files, or inferred from the inputs. A usage Failure when the inputs
// contradict it; the gather's Error when its messages do not decode.
Expected<PlannedTopology> settleGpusPerTrainer(ReportRun& run, const Plan& plan,
                                               const ListedInputs& listed) {
  const ReportOptions& opt = run.options;
  const std::optional<int64_t> given =
      opt.inferGpusPerTrainer ? std::nullopt : std::optional(opt.topology.gpusPerTrainer);
  Expected<TopologyEvidence> gathered = gatherTopologyEvidence(run.comm, plan, given);
  if (!gathered) return gathered.error();
  TopologyEvidence& evidence = *gathered;
  evidence.traceVisibleGpus = listed.declaredVisibleGpus;
  evidence.tracesTellDevices = run.source && run.source->topologyFromTraces();
  const GpusPerTrainer gpt = inferGpusPerTrainer(evidence);
  // The PyTorch family's words for its JSON traces (plan/NodeNames.h).
  const bool nodeWords = evidence.tracesTellDevices && !listed.paddleTraces;
  auto words = [nodeWords](const std::string& line) {
    return nodeWords ? inNodeWords(line) : line;
  };
  if (!gpt.contradiction.empty()) return Failure::usage("error: " + words(gpt.contradiction));
  PlannedTopology planned;
  planned.topology = opt.topology;
  planned.topology.gpusPerTrainer = gpt.value;
  planned.source = gpt.source;
  planned.settledAfterRead = gpt.settledAfterRead;
  planned.topology.nodeWords = nodeWords;
  if (nodeWords) planned.topology.nodeNames = nodeNamesOf(plan);
  for (const auto& line : gpt.notes) run.log(words(line));
  for (const auto& line : gpt.warnings) run.log(words(line));
  return planned;
}

// A job whose files declare more ranks than are present (a few ranks'
// traces copied from a big job) is normal: a note, not a problem.
void noteMissingRanks(const ReportRun& run, const Plan& plan, int64_t worldSize) {
  std::set<int64_t> ranks;
  for (const auto& f : plan.files)
    if (f.file.kind == InputKind::Profile) ranks.insert(f.file.id);
  if (worldSize <= static_cast<int64_t>(ranks.size())) return;
  run.log("note: " + std::to_string(ranks.size()) + " of the job's " + std::to_string(worldSize) +
          " ranks have a trace here; the outputs cover those");
}

// The folders every source looks for profiles in ("D/profile and D").
std::string foldersLookedIn(const ReportOptions& opt) {
  std::vector<std::string> dirs;
  for (const Source* s : registeredSources()) {
    const InputDirs d = s->resolveDirs(opt.dataDir, opt.dirs);
    for (const std::string& dir : {d.profile, d.profileAlso})
      if (!dir.empty() && std::find(dirs.begin(), dirs.end(), dir) == dirs.end())
        dirs.push_back(dir);
  }
  std::string text;
  for (size_t i = 0; i < dirs.size(); ++i)
    text += (i == 0 ? "" : i + 1 == dirs.size() ? " and " : ", ") + dirs[i];
  return text;
}

// No rank found a trace or profile: what was looked for, where, and what the
// folders hold instead (a few names and the count).
std::string noInputText(const ReportOptions& opt, const ListedInputs& listed) {
  std::string text =
      "error: no trace or profile on any rank in " + foldersLookedIn(opt) +
      ": looked for Chrome-trace JSON (PyTorch profiler *.pt.trace.json[.gz], Paddle profiler "
      "*.paddle_trace.json: any name, plain or gzip, a JSON object with traceEvents) and "
      "Paddle's legacy profile dumps (profile/<name>.<rank>); ";
  if (listed.ignoredFiles == 0 && listed.hiddenFiles == 0) return text + "the folders hold no file";
  text += "the folders hold " + std::to_string(listed.ignoredFiles) + " files that are neither";
  for (size_t i = 0; i < listed.ignoredExamples.size(); ++i)
    text += (i == 0 ? " (" : ", ") + listed.ignoredExamples[i];
  if (!listed.ignoredExamples.empty()) {
    if (listed.ignoredFiles > listed.ignoredExamples.size())
      text += ", +" + std::to_string(listed.ignoredFiles - listed.ignoredExamples.size()) + " more";
    text += ")";
  }
  if (listed.hiddenFiles > 0)
    text += " and " + std::to_string(listed.hiddenFiles) + " hidden files (not looked at)";
  return text;
}

}  // namespace

Expected<PlannedInputs> planStage(ReportRun& run, const ListedInputs& listed) {
  Expected<Plan> gathered = gatherPlan(run.comm, listed.listing);
  if (!gathered) return gathered.error();
  Plan& plan = *gathered;
  run.clock.mark("plan");
  if (!plan.anyProfileDir)
    return Failure::usage("error: input folder not found on any rank: looked for " +
                          foldersLookedIn(run.options) + " (give --data-dir or --profile-dir)")
        .atFile(listed.dirs.profile);
  for (const auto& s : plan.skipped) run.log("skipped: " + s);
  for (const auto& s : plan.badPaths) run.log("failed: " + s);  // a bad input: rc 3
  if (!plan.conflicts.empty()) {
    for (const auto& c : plan.conflicts) run.log("error: " + c);
    return Failure::conflict("conflicting input files; nothing written");
  }
  size_t profiles = 0;
  for (const auto& f : plan.files) profiles += f.file.kind == InputKind::Profile;
  if (profiles == 0) return Failure::usage(noInputText(run.options, listed));
  Expected<PlannedTopology> topology = settleGpusPerTrainer(run, plan, listed);
  if (!topology.ok()) return topology.error();
  noteMissingRanks(run, plan, listed.declaredWorldSize);
  if (run.options.showPlan && run.root()) printPlan(plan);
  return PlannedInputs{std::move(plan), *topology};
}

}  // namespace xstack
