#include "xstack/cmd/synth/SynthParallelModel.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <tuple>

#include "xstack/cmd/common/ExitCode.h"
#include "xstack/cmd/synth/ChromeTraceSynth.h"
#include "xstack/cmd/synth/SyncJobModel.h"
#include "xstack/cmd/synth/Synth.h"
#include "xstack/cmd/synth/SynthRandom.h"
#include "xstack/core/TerminalText.h"

namespace fs = std::filesystem;

namespace xstack {
namespace {

constexpr uint64_t kEpochNs = 1700000000ull * 1000000000ull;
constexpr const char* kDataLoaderOp = "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__";
constexpr int64_t kComputeStream = 7;
constexpr uint64_t kForwardNs = 300'000;    // one layer's forward kernel, before jitter and faults
constexpr uint64_t kOptimizerNs = 200'000;  // the optimizer kernel at the step's end
constexpr int kData = 0, kTensor = 1, kPipe = 2;  // rankGroups_ slots

struct CommNames {
  const char* kernel;
  const char* collective;
  const char* annotation;
  int64_t stream;
};
// The NCCL names of a communication op kind (AllReduce .. Recv).
CommNames commNames(SynthParallelModel::OpKind k) {
  using K = SynthParallelModel::OpKind;
  switch (k) {
    case K::AllReduce:
      return {"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
              "allreduce", "nccl:all_reduce", 20};
    case K::ReduceScatter:
      return {"ncclDevKernel_ReduceScatter_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
              "reduce_scatter", "nccl:_reduce_scatter_base", 28};
    case K::AllGather:
      return {"ncclDevKernel_AllGather_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
              "_allgather_base", "nccl:_all_gather_base", 28};
    case K::AllToAll:
      return {"ncclDevKernel_SendRecv(ncclDevComm*, unsigned long, ncclWork*)", "all_to_allv",
              "nccl:all_to_all", 32};
    case K::Send:
      return {"ncclDevKernel_SendRecv(ncclDevComm*, unsigned long, ncclWork*)", "send", "nccl:send",
              24};
    default:
      return {"ncclDevKernel_SendRecv(ncclDevComm*, unsigned long, ncclWork*)", "recv", "nccl:recv",
              24};
  }
}

bool isCollective(SynthParallelModel::OpKind k) {
  using K = SynthParallelModel::OpKind;
  return k == K::AllReduce || k == K::ReduceScatter || k == K::AllGather || k == K::AllToAll;
}

}  // namespace

// The simulation state of one rank: its next op, its host and GPU clocks
// (true ns), and whether the next op was already issued by the host (it then
// waits for its peers).
struct SynthParallelModel::RankState {
  size_t next = 0;
  uint64_t host = 0, gpu = 0;
  bool issued = false;
  std::map<int, int64_t> seqOfGroup;                         // collectives per group
  std::map<std::pair<int64_t, int64_t>, int64_t> seqOfPair;  // p2p per (src, dst)
};

SynthParallelModel::SynthParallelModel(const SynthOptions& options)
    : o_(options),
      shape_{options.parallel.tp, options.parallel.pp, options.parallel.dp,
             options.parallel.tpPpDp} {
  groups_ = synthProcessGroups(shape_);
  const int64_t world = shape_.world();
  rankGroups_.assign(static_cast<size_t>(world), std::vector<int>(3, 0));
  for (size_t g = 0; g < groups_.size(); ++g) {
    groupRanksText_.push_back(ranksText(groups_[g].ranks));
    const SynthGroupKind k = groups_[g].kind;
    if (k == SynthGroupKind::World) continue;
    const int slot = k == SynthGroupKind::Data     ? kData
                     : k == SynthGroupKind::Tensor ? kTensor
                                                   : kPipe;
    for (int64_t r : groups_[g].ranks)
      rankGroups_[static_cast<size_t>(r)][slot] = static_cast<int>(g);
  }
  ops_.resize(static_cast<size_t>(world));
  for (int64_t r = 0; r < world; ++r) planRank(r);
  simulate();
}

uint64_t SynthParallelModel::beginNs() const { return kEpochNs + 49'000'000; }

std::vector<SynthProcessGroupInfo> SynthParallelModel::groupsOf(int64_t rank) const {
  std::vector<SynthProcessGroupInfo> mine{groups_[0]};
  for (int g : rankGroups_[static_cast<size_t>(rank)])
    mine.push_back(groups_[static_cast<size_t>(g)]);
  std::sort(mine.begin(), mine.end(),
            [](const auto& a, const auto& b) { return std::stoll(a.name) < std::stoll(b.name); });
  return mine;
}

// Transfer time (ns) of one instance over the members `ranks`: latency plus
// the algorithm's bytes over the slowest link's bandwidth, times every
// --slow-link factor of a node with a member.
uint64_t SynthParallelModel::transferNs(OpKind kind, const std::vector<int64_t>& ranks,
                                        int64_t nelems) const {
  const int64_t node0 = ranks.front() / o_.gpusPerTrainer;
  const bool inter = std::any_of(ranks.begin(), ranks.end(),
                                 [&](int64_t r) { return r / o_.gpusPerTrainer != node0; });
  const double n = static_cast<double>(ranks.size());
  const double share = kind == OpKind::AllReduce ? 2 * (n - 1) / n
                       : isCollective(kind)      ? (n - 1) / n
                                                 : 1.0;
  double ns = (inter ? 20'000.0 : 10'000.0) +
              share * static_cast<double>(nelems) * 4 / (inter ? 20.0 : 150.0);
  for (const auto& s : o_.slowdowns) {
    if (s.kind != SynthOptions::Slowdown::Kind::Link) continue;
    if (std::any_of(ranks.begin(), ranks.end(),
                    [&](int64_t r) { return r / o_.gpusPerTrainer == s.trainer; }))
      ns *= s.factor;
  }
  return static_cast<uint64_t>(ns);
}

SynthParallelModel::Op SynthParallelModel::commOp(OpKind kind, int64_t rank, int64_t step,
                                                  int group, int64_t peer, int64_t nelems) const {
  Op op;
  op.kind = kind;
  op.step = step;
  op.group = group;
  op.peer = peer;
  op.nelems = nelems;
  const auto& members = groups_[static_cast<size_t>(group)].ranks;
  if (peer >= 0)
    op.durNs = transferNs(kind, {rank, peer}, nelems);
  else
    op.durNs = transferNs(kind, members, nelems);
  return op;
}

}  // namespace xstack

namespace xstack {

// One microbatch's forward or backward on `rank` (its stage's part): recv,
// per layer a compute kernel and a TP all-reduce, send. `factor` scales the
// compute kernels; `draws` seeds their per-kernel jitter (+-3 %).
void SynthParallelModel::addPipeStep(int64_t rank, int64_t step, const SynthPipeStep& ps,
                                     double factor, uint64_t& draws, int64_t& alltoalls) {
  const SynthCoords c = synthCoordsOf(shape_, rank);
  const int pipe = rankGroups_[static_cast<size_t>(rank)][kPipe];
  const int tensor = rankGroups_[static_cast<size_t>(rank)][kTensor];
  const bool hasPrev = c.pp > 0, hasNext = c.pp < shape_.pp - 1;
  SynthCoords prev = c, next = c;
  --prev.pp, ++next.pp;
  std::vector<Op>& ops = ops_[static_cast<size_t>(rank)];
  if (ps.forward ? hasPrev : hasNext)
    ops.push_back(commOp(OpKind::Recv, rank, step, pipe,
                         synthRankOf(shape_, ps.forward ? prev : next), kActivationElems));
  for (int layer = 0; layer < kLayers; ++layer) {
    SynthRandom rng(o_.seed * 4099 + static_cast<uint64_t>(rank) * 131 + (++draws) * 7);
    Op k;
    k.kind = OpKind::Compute;
    k.backward = !ps.forward;
    k.step = step;
    k.name = "matmul_v2";
    k.kernel = ps.forward ? "cutlass_80_tensorop_gemm" : "volta_sgemm_128x64_nn";
    const double jitter = 0.97 + rng.unit() * 0.06;
    k.durNs = static_cast<uint64_t>(static_cast<double>(kForwardNs * (ps.forward ? 1 : 2)) *
                                    jitter * factor);
    ops.push_back(k);
    if (shape_.tp > 1)
      ops.push_back(commOp(OpKind::AllReduce, rank, step, tensor, -1, kActivationElems));
    if (o_.parallel.moe) addExpertLayer(rank, step, !ps.forward, factor, draws, alltoalls);
  }
  if (ps.forward ? hasNext : hasPrev)
    ops.push_back(commOp(OpKind::Send, rank, step, pipe,
                         synthRankOf(shape_, ps.forward ? next : prev), kActivationElems));
}

// Member `rank`'s share (floats) of the `index`-th all-to-all of DP group
// `group`: 1/2 to 3/2 of an activation, the same whichever member asks.
int64_t SynthParallelModel::alltoallElems(int group, int64_t index, int64_t rank) const {
  SynthRandom rng(o_.seed * 8191 + static_cast<uint64_t>(group) * 131071 +
                  static_cast<uint64_t>(index) * 524287 + static_cast<uint64_t>(rank) * 17);
  return kActivationElems / 2 +
         static_cast<int64_t>(rng.range(0, static_cast<uint64_t>(kActivationElems)));
}

// A layer's mixture-of-experts part on `rank`: the tokens' dispatch
// all-to-all in its DP group, its expert kernel (half a forward layer,
// times `factor`; jitter from `draws`), the combine all-to-all. Every DP
// member runs the same program, so the `alltoalls`-th call is one instance.
void SynthParallelModel::addExpertLayer(int64_t rank, int64_t step, bool backward, double factor,
                                        uint64_t draws, int64_t& alltoalls) {
  const int data = rankGroups_[static_cast<size_t>(rank)][kData];
  const std::vector<int64_t>& members = groups_[static_cast<size_t>(data)].ranks;
  std::vector<Op>& ops = ops_[static_cast<size_t>(rank)];
  auto alltoall = [&] {
    const int64_t index = alltoalls++;
    int64_t largest = 0;
    for (int64_t m : members) largest = std::max(largest, alltoallElems(data, index, m));
    Op op = commOp(OpKind::AllToAll, rank, step, data, -1, alltoallElems(data, index, rank));
    op.durNs = transferNs(OpKind::AllToAll, members, largest);
    ops.push_back(op);
  };
  alltoall();
  SynthRandom rng(o_.seed * 6151 + static_cast<uint64_t>(rank) * 257 + draws * 11);
  Op k;
  k.kind = OpKind::Compute;
  k.backward = backward;
  k.step = step;
  k.name = "moe_expert";
  k.kernel = "cutlass_80_tensorop_gemm_grouped";
  k.durNs = static_cast<uint64_t>(static_cast<double>(kForwardNs / 2 * (backward ? 2 : 1)) *
                                  (0.97 + rng.unit() * 0.06) * factor);
  ops.push_back(k);
  alltoall();
}

// The program of `rank`: per step its begin, the stall (if any), the 1F1B
// schedule, the DP reduce-scatter, the optimizer, the DP all-gather, its end.
void SynthParallelModel::planRank(int64_t rank) {
  const int64_t stage = synthCoordsOf(shape_, rank).pp;
  const int data = rankGroups_[static_cast<size_t>(rank)][kData];
  std::vector<Op>& ops = ops_[static_cast<size_t>(rank)];
  uint64_t draws = 0;
  int64_t alltoalls = 0;
  for (int64_t step = 0; step < o_.steps; ++step) {
    const SyncJobModel::Injected in = syncJobInjected(o_, rank, step);
    Op begin;
    begin.kind = OpKind::StepBegin;
    begin.step = step;
    begin.durNs = SynthRandom(o_.seed * 7777 + static_cast<uint64_t>(rank) * 31 +
                              static_cast<uint64_t>(step) * 131)
                      .range(0, 20'000);  // host jitter before the step, ns
    ops.push_back(begin);
    if (in.stallNs > 0) {
      Op stall;
      stall.kind = OpKind::DataLoader;
      stall.step = step;
      stall.name = kDataLoaderOp;
      stall.durNs = in.stallNs;
      ops.push_back(stall);
    }
    for (const SynthPipeStep& ps : synth1F1B(stage, shape_.pp, o_.parallel.microbatches))
      addPipeStep(rank, step, ps, in.compute, draws, alltoalls);
    if (shape_.dp > 1)
      ops.push_back(commOp(OpKind::ReduceScatter, rank, step, data, -1, kGradientElems));
    Op opt;
    opt.kind = OpKind::Compute;
    opt.step = step;
    opt.name = "elementwise_add";
    opt.kernel = "VectorizedElementwiseKernel";
    opt.durNs = static_cast<uint64_t>(static_cast<double>(kOptimizerNs) * in.compute);
    ops.push_back(opt);
    if (shape_.dp > 1)
      ops.push_back(commOp(OpKind::AllGather, rank, step, data, -1, kGradientElems));
    Op end;
    end.kind = OpKind::StepEnd;
    end.step = step;
    ops.push_back(end);
  }
}

void SynthParallelModel::simulate() {
  const auto world = static_cast<size_t>(shape_.world());
  std::vector<RankState> states(world);
  for (RankState& st : states) st.host = st.gpu = kEpochNs + 50'000'000;
  for (bool progress = true; progress;) {
    progress = false;
    for (size_t r = 0; r < world; ++r)
      while (states[r].next < ops_[r].size() && advance(static_cast<int64_t>(r), states[r]))
        progress = true;
  }
  for (size_t r = 0; r < world; ++r)
    if (states[r].next < ops_[r].size())
      throw std::logic_error("synth: the 3D schedule did not finish on rank " + std::to_string(r));
}

// Resolves rank's next op if it can run now; false when it waits for a peer.
// Host op of a compute or comm op: [host, host + 20 us], its launch at
// [+6 us, +11 us]; a kernel may start 3 us after its launch ends.
bool SynthParallelModel::advance(int64_t rank, RankState& st) {
  Op& op = ops_[static_cast<size_t>(rank)][st.next];
  if (!st.issued) {
    op.opStartNs = st.host;
    switch (op.kind) {
      case OpKind::StepBegin:
        op.opStartNs = st.host + 3'000 + op.durNs;
        st.host = op.opStartNs + 2'000;
        break;
      case OpKind::DataLoader:
        op.opEndNs = st.host + op.durNs;
        st.host = op.opEndNs + 1'000;
        break;
      case OpKind::StepEnd:
        st.host = std::max(st.host, st.gpu) + 5'000;
        op.opEndNs = st.host;
        break;
      default:
        op.opEndNs = st.host + 20'000;
        op.launchStartNs = st.host + 6'000;
        op.launchEndNs = st.host + 11'000;
        op.kernelStartNs = std::max(st.gpu, op.launchEndNs + 3'000);
        st.host = op.opEndNs + 2'000;
    }
    st.issued = true;
    if (op.kind == OpKind::Compute) {
      op.kernelEndNs = op.kernelStartNs + op.durNs;
      st.gpu = op.kernelEndNs + 1'000;
    }
  }
  if (op.kind >= OpKind::AllReduce && op.kind <= OpKind::Recv && !advanceComm(rank, st, op))
    return false;
  st.issued = false;
  ++st.next;
  return true;
}

// A communication op already issued: registers it (first call) and resolves
// it once its peers allow; false while it waits.
bool SynthParallelModel::advanceComm(int64_t rank, RankState& st, Op& op) {
  if (op.kind == OpKind::Send || op.kind == OpKind::Recv) {
    const bool send = op.kind == OpKind::Send;
    const std::pair<int64_t, int64_t> pair =
        send ? std::pair{rank, op.peer} : std::pair{op.peer, rank};
    op.seq = st.seqOfPair[pair];
    const auto key = std::tuple{pair.first, pair.second, op.seq};
    if (send) {
      sends_[key] = op.kernelStartNs;
      op.kernelEndNs = op.kernelStartNs + op.durNs;
    } else {
      auto it = sends_.find(key);
      if (it == sends_.end()) return false;
      op.kernelEndNs = std::max(op.kernelStartNs + 5'000, it->second + op.durNs);
      st.host = std::max(st.host, op.kernelEndNs + 2'000);
    }
    ++st.seqOfPair[pair];
    st.gpu = op.kernelEndNs + 1'000;
    return true;
  }
  auto& inst = instances_[{op.group, st.seqOfGroup[op.group]}];
  if (op.kernelEndNs == 0) {  // first visit: arrive (kernelEndNs 1 marks it until resolved)
    op.seq = st.seqOfGroup[op.group];
    ++inst.first;
    inst.second = std::max(inst.second, op.kernelStartNs);
    op.kernelEndNs = 1;
  }
  if (inst.first < static_cast<int>(groups_[static_cast<size_t>(op.group)].ranks.size()))
    return false;
  op.kernelEndNs = inst.second + op.durNs;
  ++st.seqOfGroup[op.group];
  st.gpu = op.kernelEndNs + 1'000;
  return true;
}

}  // namespace xstack

namespace xstack {

void SynthParallelModel::writeComm(int64_t rank, const Op& op, SyncJobEvents& out) const {
  const CommNames n = commNames(op.kind);
  const auto g = static_cast<size_t>(op.group);
  SynthCollective c;
  c.kernelName = n.kernel;
  c.collectiveName = n.collective;
  c.annotation = n.annotation;
  const bool p2p = op.kind == OpKind::Send || op.kind == OpKind::Recv;
  const auto size = static_cast<int64_t>(groups_[g].ranks.size());
  c.inNelems = op.kind == OpKind::AllGather ? op.nelems / size : op.nelems;
  c.outNelems = op.kind == OpKind::ReduceScatter ? op.nelems / size : op.nelems;
  c.groupSize = size;
  c.pgName = &groups_[g].name;
  c.pgDesc = &groups_[g].desc;
  c.pgRanks = &groupRanksText_[g];
  c.seq = op.seq;
  if (p2p) (op.kind == OpKind::Send ? c.dstRank : c.srcRank) = op.peer;
  c.opStartNs = op.opStartNs;
  c.opEndNs = op.opEndNs;
  c.launchStartNs = op.launchStartNs;
  c.launchEndNs = op.launchEndNs;
  c.kernelStartNs = op.kernelStartNs;
  c.kernelEndNs = op.kernelEndNs;
  c.tid = SyncJobModel::mainThreadOf(rank);
  c.device = rank % o_.gpusPerTrainer;
  c.stream = n.stream;
  out.collective(c);
}

std::optional<std::pair<uint64_t, uint64_t>> SynthParallelModel::writeRank(
    int64_t rank, SyncJobEvents& out) const {
  const uint64_t tid = SyncJobModel::mainThreadOf(rank);
  const int64_t gpu = rank % o_.gpusPerTrainer;
  const uint64_t begin = beginNs();
  out.begin(begin);
  for (uint64_t i = 0; i < 4; ++i)  // parameters, never freed
    out.memory(SynthMemoryPlace::Gpu, static_cast<uint32_t>(gpu), begin + i * 100, 0,
               (16 + 8 * i) << 20);
  const std::vector<Op>& ops = ops_[static_cast<size_t>(rank)];
  uint64_t end = begin + 1'000'000;
  for (size_t i = 0; i < ops.size(); ++i) {
    const Op& op = ops[i];
    switch (op.kind) {
      case OpKind::StepBegin: {  // the span first, as SyncJobEvents::step wants
        size_t e = i;
        while (ops[e].kind != OpKind::StepEnd) ++e;
        out.step(op.step, op.opStartNs, ops[e].opEndNs);
        end = std::max(end, ops[e].opEndNs + 1'000);
        break;
      }
      case OpKind::StepEnd:
        break;
      case OpKind::DataLoader:
        out.op(op.name, false, op.opStartNs, op.opEndNs, tid, 0);
        break;
      case OpKind::Compute:
        out.op(op.name, op.backward, op.opStartNs, op.opEndNs, tid, 0);
        out.launch(SynthLaunch::Kernel, op.launchStartNs, op.launchEndNs, tid);
        out.kernel(op.kernel, op.kernelStartNs, op.kernelEndNs, gpu, kComputeStream);
        break;
      default:
        writeComm(rank, op, out);
    }
  }
  if (!out.finish(begin, end)) return std::nullopt;
  return std::pair{begin, end};
}

bool SynthParallelModel::writeTruth(const fs::path& path) const {
  std::ofstream f(path);
  f << "rank,step,stage,step_ns,compute_ns,comm_ns,factor,stall_ns\n";
  char factor[32];
  for (int64_t r = 0; r < shape_.world(); ++r) {
    uint64_t start = 0, compute = 0, comm = 0, stall = 0;
    for (const Op& op : ops_[static_cast<size_t>(r)]) {
      if (op.kind == OpKind::StepBegin) start = op.opStartNs, compute = comm = stall = 0;
      if (op.kind == OpKind::DataLoader) stall += op.durNs;
      if (op.kind == OpKind::Compute) compute += op.kernelEndNs - op.kernelStartNs;
      if (op.kind >= OpKind::AllReduce && op.kind <= OpKind::Recv)
        comm += op.kernelEndNs - op.kernelStartNs;
      if (op.kind != OpKind::StepEnd) continue;
      std::snprintf(factor, sizeof factor, "%.4f", syncJobSlowFactor(o_, r, op.step));
      f << r << "," << op.step << "," << synthCoordsOf(shape_, r).pp << "," << op.opEndNs - start
        << "," << compute << "," << comm << "," << factor << "," << stall << "\n";
    }
  }
  f.close();
  return !f.fail();
}

namespace {

// <out>/parallel_ranks.csv: rank,node,tp,pp,dp per rank.
bool writeRankTable(const SynthOptions& o, const SynthParallelShape& shape, const fs::path& p) {
  std::ofstream f(p);
  f << "rank,node,tp,pp,dp\n";
  for (int64_t r = 0; r < shape.world(); ++r) {
    const SynthCoords c = synthCoordsOf(shape, r);
    f << r << "," << r / o.gpusPerTrainer << "," << c.tp << "," << c.pp << "," << c.dp << "\n";
  }
  f.close();
  return !f.fail();
}

}  // namespace

int runParallelSynth(const SynthOptions& o) {
  const fs::path out(o.outDir), profile = out / "profile";
  std::error_code ec;
  fs::create_directories(profile, ec);
  if (ec) {
    std::fprintf(stderr, "xstack: synth: cannot create %s: %s\n",
                 terminalSafe(profile.string()).c_str(), ec.message().c_str());
    return kExitFatal;
  }
  const SynthParallelModel model(o);
  uint64_t bytes = 0;
  for (int64_t rank = 0; rank < model.shape().world(); ++rank) {
    const int64_t tr = rank / o.gpusPerTrainer;
    SynthRandom trng(o.seed * 31 + static_cast<uint64_t>(tr) + 5);  // the sync job's skew draw
    const uint64_t skew = tr == 0 ? 0 : trng.range(0, o.skewNs);
    ChromeRank r = chromeRankOf(o, rank, skew);
    r.worldSize = model.shape().world();
    r.groups = model.groupsOf(rank);
    const fs::path p = profile / chromeTraceFileName(o.format, r, model.beginNs() + skew);
    auto writer = makeKinetoTraceWriter(r, p);
    errno = 0;
    if (!model.writeRank(rank, *writer)) {
      std::fprintf(stderr, "xstack: synth: cannot write %s: %s; the data set is incomplete\n",
                   terminalSafe(p.string()).c_str(), std::strerror(errno ? errno : EIO));
      return kExitFatal;
    }
    bytes += fs::file_size(p, ec);
  }
  const fs::path ranks = out / "parallel_ranks.csv", truth = out / "parallel_truth.csv";
  for (const fs::path& p : {ranks, truth}) {
    if (p == ranks ? writeRankTable(o, model.shape(), p) : model.writeTruth(p)) continue;
    std::fprintf(stderr, "xstack: synth: cannot write %s\n", terminalSafe(p.string()).c_str());
    return kExitFatal;
  }
  std::fprintf(stderr,
               "xstack: synth: wrote a TP%lld x PP%lld x DP%lld%s job (%lld ranks, %llu MiB of "
               "Kineto traces) to %s\n",
               static_cast<long long>(o.parallel.tp), static_cast<long long>(o.parallel.pp),
               static_cast<long long>(o.parallel.dp), o.parallel.moe ? " MoE" : "",
               static_cast<long long>(model.shape().world()),
               static_cast<unsigned long long>(bytes >> 20), terminalSafe(o.outDir).c_str());
  std::fprintf(stderr, "xstack: synth: to make its traces: %s\n",
               terminalSafe(reportCommandFor(o)).c_str());
  return kExitOk;
}

}  // namespace xstack
