// The otherData object of a trace file: the trace's metadata (tool, version,
// group and gpu, time origin in ns, the ranks and trainers it shows, the job's
// shape and options, its warnings and the problems of its inputs and chunks),
// as compact JSON text. Rank 0 only, local: no rank talks to another here.
#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "xstack/cmd/report/TraceWriting.h"

namespace xstack {

std::string otherDataJson(const OutputFile& o, const WriteContext& ctx, const Warnings& warnings,
                          const std::vector<std::pair<size_t, std::string>>& renderProblems) {
  using nlohmann::json;
  const auto& all = *ctx.all;
  json d;
  d["tool"] = "xstack";
  d["version"] = XSTACK_VERSION;
  d["group"] = o.group;
  d["gpu"] = o.gpu;
  d["time_origin_ns"] = ctx.origin.ns;
  d["time_origin_source"] = ctx.job.originFromOption ? "option" : "inputs";
  d["ranks"] = o.ranks;
  d["trainers"] = o.trainers;
  d["trainers_in_group"] = o.trainersInGroup;
  d["missing_ranks"] = o.missingRanks;
  if (ctx.job.shape.missingRanks.size() >= kMaxMissingRanks)  // never cut silently
    d["missing_ranks_cut_after"] = ctx.job.shape.missingRanks.back();
  d["partial_group"] = o.trainersInGroup < ctx.job.topology.groupSize;
  d["job"] = {{"trainers", ctx.job.shape.trainers},
              {"groups", ctx.job.shape.groups},
              {"ranks", ctx.job.shape.ranks}};
  d["options"] = {{"gpus_per_trainer", ctx.job.topology.gpusPerTrainer},
                  {"group_size", ctx.job.topology.groupSize},
                  {"display_size", ctx.job.topology.displaySize}};
  json shown = json::array();  // ranks a finding names, displayed beyond display_size
  for (int64_t r : o.ranks)
    if (std::binary_search(ctx.job.topology.shownRanks.begin(), ctx.job.topology.shownRanks.end(),
                           r))
      shown.push_back(r);
  if (!shown.empty()) d["shown_for_findings"] = shown;
  json w = json::object();
  json examples = json::object();  // placement-independent: basenames, training ranks
  for (const auto& [kind, e] : warnings.entries()) {
    const std::string k(warnName(kind));
    w[k] = e.count;
    if (!e.examples.empty()) examples[k] = e.examples;
  }
  d["warnings"] = w;
  if (!examples.empty()) d["warning_examples"] = examples;
  json problems = json::array();
  for (size_t i : o.inputs) {
    const InputSummary& s = all[i];
    if (s.status == InputStatus::Ok) continue;
    problems.push_back({{"kind", kindName(s.file.kind)},
                        {"id", s.file.id},
                        {"file", std::filesystem::path(s.file.path).filename().string()},
                        {"status", statusName(s.status)},
                        {"message", s.problem}});
  }
  for (const auto& [i, message] : renderProblems) {
    const InputSummary& s = all[i];
    problems.push_back({{"kind", kindName(s.file.kind)},
                        {"id", s.file.id},
                        {"file", std::filesystem::path(s.file.path).filename().string()},
                        {"status", "render_failed"},
                        {"message", message}});
  }
  d["problems"] = problems;
  return d.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace xstack
