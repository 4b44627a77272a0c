// The synth options of a synchronous job (cmd/synth/SyncJobModel.h). Given any of
// --slow, --slow-step, --slow-trainer, --stall, --stall-step, --stall-trainer
// or --slow-memcpy, --sync is implied. --tp, --pp, --dp make a 3D-parallel
// job (cmd/synth/SynthParallelModel.h), which --slow-link needs.
#include <algorithm>
#include <boost/program_options.hpp>
#include <optional>
#include <string>
#include <vector>

#include "xstack/cmd/synth/Synth.h"
#include "xstack/core/Status.h"

namespace po = boost::program_options;

namespace xstack {
namespace {

// "A:B:...:F" with `ints` integers then a factor; nullopt when malformed.
std::optional<SynthOptions::Slowdown> parseSlowdown(const std::string& text, int ints) {
  SynthOptions::Slowdown s;
  int64_t v[2] = {-1, -1};
  size_t pos = 0;
  for (int i = 0; i < ints; ++i) {
    size_t colon = text.find(':', pos);
    if (colon == std::string::npos || colon == pos) return std::nullopt;
    for (size_t k = pos; k < colon; ++k)
      if (text[k] < '0' || text[k] > '9' || colon - pos > 12) return std::nullopt;
    v[i] = std::stoll(text.substr(pos, colon - pos));
    pos = colon + 1;
  }
  try {
    size_t used = 0;
    s.factor = std::stod(text.substr(pos), &used);
    if (used != text.size() - pos || !(s.factor > 0 && s.factor <= 100)) return std::nullopt;
  } catch (const std::exception&) {
    return std::nullopt;
  }
  s.rank = v[0];
  s.step = ints == 2 ? v[1] : -1;
  return s;
}

// --tp/--pp/--dp/--microbatches/--rank-order into o.parallel; with them the
// trainers and GPUs per trainer follow from 8 GPUs a node unless given.
Status readParallelShape(const po::variables_map& vm, SynthOptions& o) {
  SynthOptions::Parallel& p = o.parallel;
  p.on = vm.count("tp") || vm.count("pp") || vm.count("dp");
  if (!p.on) return {};
  p.tp = vm.count("tp") ? vm["tp"].as<int64_t>() : 1;
  p.pp = vm.count("pp") ? vm["pp"].as<int64_t>() : 1;
  p.dp = vm.count("dp") ? vm["dp"].as<int64_t>() : 1;
  p.microbatches = vm["microbatches"].as<int64_t>();
  const std::string order = vm["rank-order"].as<std::string>();
  if (order != "tp-dp-pp" && order != "tp-pp-dp")
    return Failure::usage("synth: --rank-order must be tp-dp-pp or tp-pp-dp, got '" + order + "'");
  p.tpPpDp = order == "tp-pp-dp";
  p.moe = vm.count("moe") > 0;
  if (p.tp < 1 || p.pp < 1 || p.dp < 1 || p.tp > 1024 || p.pp > 1024 || p.dp > 1024 ||
      p.tp * p.pp * p.dp > 65536)
    return Failure::usage("synth: --tp, --pp, --dp must be >= 1 with tp x pp x dp <= 65536");
  if (p.microbatches < 1 || p.microbatches > 4096)
    return Failure::usage("synth: --microbatches must be in 1..4096");
  if (p.moe && p.dp < 2)
    return Failure::usage(
        "synth: --moe needs --dp >= 2 (its experts are spread over the DP group)");
  const int64_t world = o.jobRanks();
  if (vm["gpus-per-trainer"].defaulted()) o.gpusPerTrainer = std::min<int64_t>(8, world);
  if (vm["trainers"].defaulted()) o.trainers = (world + o.gpusPerTrainer - 1) / o.gpusPerTrainer;
  if (o.gpusPerTrainer < 1 || o.trainers * o.gpusPerTrainer < world ||
      (o.trainers - 1) * o.gpusPerTrainer >= world)
    return Failure::usage("synth: --trainers x --gpus-per-trainer must hold tp x pp x dp = " +
                          std::to_string(world) + " ranks without an empty trainer");
  return {};
}

}  // namespace

void addSyncJobOptions(po::options_description& d) {
  d.add_options()("sync",
                  "synchronous job: every step ends in an NCCL all-reduce that ends at the same "
                  "time on all ranks (implied by --slow*)")(
      "slow", po::value<std::vector<std::string>>()->composing(),
      "RANK:FACTOR, rank's compute takes FACTOR times longer in every step (repeatable)")(
      "slow-step", po::value<std::vector<std::string>>()->composing(),
      "RANK:STEP:FACTOR, the same in one step (repeatable)")(
      "slow-trainer", po::value<std::vector<std::string>>()->composing(),
      "TRAINER:FACTOR, every GPU of a trainer node slowed (repeatable)")(
      "stall", po::value<std::vector<std::string>>()->composing(),
      "RANK:MS, rank's host stalls MS ms in a data-loader op at the start of every step (its GPU "
      "idles; same kernels; repeatable)")("stall-step",
                                          po::value<std::vector<std::string>>()->composing(),
                                          "RANK:STEP:MS, the same in one step (repeatable)")(
      "stall-trainer", po::value<std::vector<std::string>>()->composing(),
      "TRAINER:MS, every rank of a trainer node stalled (repeatable)")(
      "slow-memcpy", po::value<std::vector<std::string>>()->composing(),
      "RANK:FACTOR, rank's host-to-device copies take FACTOR times longer (repeatable)")(
      "noise", po::value<double>()->default_value(2.0),
      "--sync: compute noise per rank and step, +- percent (0..50)")(
      "tp", po::value<int64_t>(), "3D-parallel job: tensor-parallel size (needs --format kineto)")(
      "pp", po::value<int64_t>(), "3D-parallel job: pipeline stages (1F1B schedule)")(
      "dp", po::value<int64_t>(), "3D-parallel job: data-parallel size")(
      "microbatches", po::value<int64_t>()->default_value(4),
      "3D-parallel job: microbatches per step")(
      "rank-order", po::value<std::string>()->default_value("tp-dp-pp"),
      "3D-parallel job: global rank order, tp-dp-pp (Megatron's: TP fastest, then DP, then PP) "
      "or tp-pp-dp")("moe",
                     "3D-parallel job: mixture-of-experts layers, each with a token dispatch and "
                     "a combine all-to-all (all_to_allv, uneven splits) in the DP group")(
      "slow-link", po::value<std::vector<std::string>>()->composing(),
      "NODE:FACTOR, 3D job: every transfer of a group with a member on trainer "
      "node NODE takes FACTOR times longer (repeatable)");
}

Status readSyncJobOptions(const po::variables_map& vm, SynthOptions& o) {
  using K = SynthOptions::Slowdown::Kind;
  if (Status st = readParallelShape(vm, o); !st) return st;
  if (vm.count("moe") && !o.parallel.on)
    return Failure::usage("synth: --moe needs a 3D job (--tp, --pp or --dp)");
  if (vm.count("slow-link") && !o.parallel.on)
    return Failure::usage("synth: --slow-link needs a 3D job (--tp, --pp or --dp)");
  struct Kind {
    const char* flag;
    int ints;
    const char* form;
    K kind;
    bool trainer;
  };
  for (const Kind& k : {Kind{"slow", 1, "RANK:FACTOR", K::Compute, false},
                        Kind{"slow-step", 2, "RANK:STEP:FACTOR", K::Compute, false},
                        Kind{"slow-trainer", 1, "TRAINER:FACTOR", K::Compute, true},
                        Kind{"stall", 1, "RANK:MS", K::Stall, false},
                        Kind{"stall-step", 2, "RANK:STEP:MS", K::Stall, false},
                        Kind{"stall-trainer", 1, "TRAINER:MS", K::Stall, true},
                        Kind{"slow-memcpy", 1, "RANK:FACTOR", K::Memcpy, false},
                        Kind{"slow-link", 1, "NODE:FACTOR", K::Link, true}}) {
    if (!vm.count(k.flag)) continue;
    for (const std::string& text : vm[k.flag].as<std::vector<std::string>>()) {
      auto s = parseSlowdown(text, k.ints);
      if (!s)
        return Failure::usage(std::string("synth: --") + k.flag + " wants " + k.form +
                              " (FACTOR or MS in (0, 100]), got '" + text + "'");
      s->kind = k.kind;
      if (k.trainer) std::swap(s->rank, s->trainer);
      if (s->rank >= o.jobRanks() || s->trainer >= o.trainers || s->step >= o.steps)
        return Failure::usage(std::string("synth: --") + k.flag + " " + text +
                              " is outside the job (" + std::to_string(o.trainers) +
                              " trainers x " + std::to_string(o.gpusPerTrainer) + " GPUs, " +
                              std::to_string(o.steps) + " steps)");
      o.slowdowns.push_back(*s);
    }
  }
  if (o.parallel.on && vm.count("slow-memcpy"))
    return Failure::usage("synth: --slow-memcpy has no 3D-job meaning (its ranks make no copies)");
  o.noisePct = vm["noise"].as<double>();
  if (!(o.noisePct >= 0 && o.noisePct <= 50))
    return Failure::usage("synth: --noise must be in 0..50");
  o.sync = vm.count("sync") || !o.slowdowns.empty();
  return {};
}

}  // namespace xstack
