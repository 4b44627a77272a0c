// One rank of the synchronous job as a PyTorch profiler (Kineto) trace, laid
// out as libkineto's output_json writes it: the header keys, then
// traceEvents (host events on pid = the process, tid = its threads; GPU
// events on pid = the local GPU, tid = the stream; ac2g flow pairs; [memory]
// instants; metadata; the "Record Window End" instant). displayTimeUnit and
// baseTimeNanoseconds come before traceEvents, in the order of Kineto's
// output_json.cpp (files re-serialized by other tools, e.g. HTA's test data,
// put them after: the reader accepts both). ts and dur are microseconds with exactly 3 decimals, ts
// relative to baseTimeNanoseconds (a multiple of 7,889,238 s, as Kineto picks it).
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "xstack/cmd/synth/ChromeTraceSynth.h"
#include "xstack/cmd/synth/SynthMemoryLedger.h"
#include "xstack/cmd/synth/SynthTraceOut.h"

namespace xstack {
namespace {

constexpr uint64_t kBaseUnitNs = 7'889'238ull * 1'000'000'000ull;  // Kineto's base-time unit
constexpr const char* kAllReduceKernel =
    "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)";
constexpr int64_t kAllReduceElements = 16'777'216;  // floats per all-reduce (64 MiB)

// The PyTorch names of the model's (Paddle) operators: forward, backward.
struct OpNames {
  const char* paddle;
  const char* forward;
  const char* backward;
};
constexpr OpNames kOpNames[] = {
    {"matmul_v2", "aten::matmul", "MmBackward0"},
    {"elementwise_add", "aten::add", "AddBackward0"},
    {"relu", "aten::relu", "ReluBackward0"},
    {"layer_norm", "aten::layer_norm", "NativeLayerNormBackward0"},
    {"softmax", "aten::softmax", "SoftmaxBackward0"},
    {"dropout", "aten::dropout", "NativeDropoutBackward0"},
    {"conv2d", "aten::conv2d", "ConvolutionBackward0"},
    {"batch_norm", "aten::batch_norm", "CudnnBatchNormBackward0"},
    {"reshape2", "aten::reshape", "ViewBackward0"},
    {"transpose2", "aten::transpose", "TransposeBackward0"},
    {"fused_attention", "aten::scaled_dot_product_attention",
     "ScaledDotProductEfficientAttentionBackward0"},
};

std::string kinetoOpName(const char* paddle, bool backward) {
  for (const OpNames& n : kOpNames)
    if (std::string_view(n.paddle) == paddle)
      return backward ? std::string("autograd::engine::evaluate_function: ") + n.backward
                      : std::string(n.forward);
  return paddle;
}

}  // namespace

std::string ranksText(const std::vector<int64_t>& ranks) {
  std::string t = "[";
  for (size_t i = 0; i < ranks.size(); ++i) t += (i ? ", " : "") + std::to_string(ranks[i]);
  return t + "]";
}

namespace {

class KinetoTraceWriter : public SyncJobEvents {
 public:
  KinetoTraceWriter(const ChromeRank& r, const std::filesystem::path& path)
      : r_(r), out_(path, /*gzip=*/true) {}

  void begin(uint64_t beginNs) override;
  void step(int64_t step, uint64_t startNs, uint64_t endNs) override;
  void op(const char* name, bool backward, uint64_t startNs, uint64_t endNs, uint64_t tid,
          int64_t block) override;
  void launch(SynthLaunch kind, uint64_t startNs, uint64_t endNs, uint64_t tid) override;
  void kernel(const char* name, uint64_t startNs, uint64_t endNs, int64_t device,
              int64_t stream) override;
  void copy(SynthLaunch kind, uint64_t startNs, uint64_t endNs, int64_t device, int64_t stream,
            uint64_t bytes) override;
  void memory(SynthMemoryPlace place, uint32_t device, uint64_t allocNs, uint64_t freeNs,
              uint64_t bytes) override {
    ledger_.add(place, device, allocNs, freeNs, bytes);
  }
  void allReduce(uint64_t opStartNs, uint64_t opEndNs, uint64_t tid, uint64_t kernelStartNs,
                 uint64_t kernelEndNs, int64_t device, int64_t stream) override;
  void collective(const SynthCollective& c) override;
  bool finish(uint64_t beginNs, uint64_t endNs) override;

 private:
  // A true time (ns) as ns since the base, skew added.
  int64_t rel(uint64_t trueNs) const { return static_cast<int64_t>(trueNs + r_.skewNs - baseNs_); }
  void open() { out_.text(first_ ? "\n  {\n" : ",\n  {\n"), first_ = false; }
  // An X event up to the opening of its args (the caller writes them, then closeArgs).
  void complete(std::string_view cat, std::string_view name, uint64_t pid, int64_t tid,
                uint64_t startNs, uint64_t endNs);
  void closeArgs() { out_.text("\n    }\n  }"); }
  void flowStart(uint64_t tid, uint64_t atNs);
  void flowEnd(int64_t device, int64_t stream, uint64_t atNs);
  void gpuArgs(int64_t device, int64_t stream);
  void memoryInstant(const SynthMemoryLedger::Change& c);
  void releaseMemory(uint64_t untilNs) {
    ledger_.release(untilNs, [this](const SynthMemoryLedger::Change& c) { memoryInstant(c); });
  }
  void writeHeader();
  void writeProcessGroups();
  void collectiveArgs(const SynthCollective& c);
  void writeMetadata(uint64_t beginNs);
  void metadata(std::string_view name, int64_t pid, int64_t tid, std::string_view key,
                std::string_view quotedValue);

  const ChromeRank r_;
  SynthTraceOut out_;
  SynthMemoryLedger ledger_;
  HostCallNesting nesting_;  // runtime calls inside their operator
  uint64_t baseNs_ = 0;
  uint64_t metadataNs_ = 0;  // ts of the metadata events (the rank's begin)
  bool first_ = true;
  int64_t externalId_ = 0, nextExternalId_ = 1;    // the current cpu_op's "External id"
  int64_t correlation_ = 0, nextCorrelation_ = 1;  // the last launch's correlation
  int64_t evIdx_ = 0;                              // "Ev Idx" of host events
  std::set<int64_t> streams_;                      // streams with GPU events
  std::set<uint64_t> threads_;                     // host threads with events
};

void KinetoTraceWriter::complete(std::string_view cat, std::string_view name, uint64_t pid,
                                 int64_t tid, uint64_t startNs, uint64_t endNs) {
  open();
  out_.text("    \"ph\": \"X\", \"cat\": \"")
      .text(cat)
      .text("\", \"name\": \"")
      .text(name)
      .text("\", \"pid\": ")
      .unsignedInteger(pid)
      .text(", \"tid\": ")
      .integer(tid)
      .text(",\n    \"ts\": ")
      .micros3(rel(startNs))
      .text(", \"dur\": ")
      .micros3(static_cast<int64_t>(endNs - startNs))
      .text(",\n    \"args\": {\n      ");
}

void KinetoTraceWriter::writeHeader() {
  out_.text("{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [");
  for (int64_t g = 0; g < r_.gpusPerNode; ++g) {
    out_.text(g == 0 ? "\n    {\n      \"id\": " : ",\n    {\n      \"id\": ")
        .integer(g)
        .text(
            ", \"name\": \"NVIDIA A100-SXM4-80GB\", \"totalGlobalMem\": 85097971712,\n"
            "      \"computeMajor\": 8, \"computeMinor\": 0,\n"
            "      \"maxThreadsPerBlock\": 1024, \"maxThreadsPerMultiprocessor\": 2048,\n"
            "      \"regsPerBlock\": 65536, \"warpSize\": 32,\n"
            "      \"sharedMemPerBlock\": 49152, \"numSms\": 108\n"
            "    , \"regsPerMultiprocessor\": 65536, \"sharedMemPerBlockOptin\": 232448, "
            "\"sharedMemPerMultiprocessor\": 233472\n    }");
  }
  out_.text("\n  ],\n  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": ")
      .integer(r_.rank)
      .text(", \"world_size\": ")
      .integer(r_.worldSize);
  writeProcessGroups();
  out_.text("},\n  \"displayTimeUnit\": \"ms\",\n  \"baseTimeNanoseconds\": ")
      .unsignedInteger(baseNs_)
      .text(",\n  \"traceEvents\": [");
}

// A 3D job's distributedInfo tail, as PyTorch 2.4+ writes it: pg_count and
// pg_config, one entry per group the rank is in (ranks as a JSON list).
void KinetoTraceWriter::writeProcessGroups() {
  if (r_.groups.empty()) return;
  out_.text(", \"pg_count\": ")
      .integer(static_cast<int64_t>(r_.groups.size()))
      .text(", \"pg_config\": [");
  bool first = true;
  for (const SynthProcessGroupInfo& g : r_.groups) {
    out_.text(first ? "{\"pg_name\": \"" : ", {\"pg_name\": \"")
        .text(g.name)
        .text("\", \"pg_desc\": \"")
        .text(g.desc)
        .text("\", \"backend_config\": \"cuda:nccl\", \"pg_size\": ")
        .integer(static_cast<int64_t>(g.ranks.size()))
        .text(", \"ranks\": ")
        .text(ranksText(g.ranks))
        .text("}");
    first = false;
  }
  out_.text("], \"nccl_version\": \"2.20.5\"");
}

void KinetoTraceWriter::begin(uint64_t beginNs) {
  baseNs_ = (beginNs + r_.skewNs) / kBaseUnitNs * kBaseUnitNs;
  writeHeader();
}

void KinetoTraceWriter::step(int64_t step, uint64_t startNs, uint64_t endNs) {
  threads_.insert(r_.pid);
  complete("user_annotation", "ProfilerStep#" + std::to_string(step), r_.pid,
           static_cast<int64_t>(r_.pid), startNs, endNs);
  out_.text("\"External id\": ")
      .integer(nextExternalId_++)
      .text(", \"Record function id\": ")
      .integer(step)
      .text(", \"Ev Idx\": ")
      .integer(evIdx_++);
  closeArgs();
}

void KinetoTraceWriter::op(const char* name, bool backward, uint64_t startNs, uint64_t endNs,
                           uint64_t tid, int64_t /*block*/) {
  releaseMemory(startNs);  // no allocation to come is earlier than this op
  nesting_.op(startNs, endNs);
  threads_.insert(tid);
  externalId_ = nextExternalId_++;
  complete("cpu_op", kinetoOpName(name, backward), r_.pid, static_cast<int64_t>(tid), startNs,
           endNs);
  out_.text("\"External id\": ")
      .integer(externalId_)
      .text(", \"Record function id\": ")
      .integer(externalId_)
      .text(", \"Ev Idx\": ")
      .integer(evIdx_++);
  closeArgs();
}

void KinetoTraceWriter::flowStart(uint64_t tid, uint64_t atNs) {
  open();
  out_.text("    \"ph\": \"s\", \"id\": ")
      .integer(correlation_)
      .text(", \"pid\": ")
      .unsignedInteger(r_.pid)
      .text(", \"tid\": ")
      .unsignedInteger(tid)
      .text(", \"ts\": ")
      .micros3(rel(atNs))
      .text(",\n    \"cat\": \"ac2g\", \"name\": \"ac2g\"\n  }");
}

void KinetoTraceWriter::flowEnd(int64_t device, int64_t stream, uint64_t atNs) {
  open();
  out_.text("    \"ph\": \"f\", \"id\": ")
      .integer(correlation_)
      .text(", \"pid\": ")
      .integer(device)
      .text(", \"tid\": ")
      .integer(stream)
      .text(", \"ts\": ")
      .micros3(rel(atNs))
      .text(",\n    \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"\n  }");
}

void KinetoTraceWriter::launch(SynthLaunch kind, uint64_t modelStartNs, uint64_t modelEndNs,
                               uint64_t tid) {
  static constexpr const char* kNames[] = {"cudaLaunchKernel", "cudaMemcpyAsync",
                                           "cudaMemsetAsync"};
  static constexpr int kCbids[] = {211, 41, 51};
  const auto k = static_cast<size_t>(kind);
  threads_.insert(tid);
  correlation_ = nextCorrelation_++;
  const auto [startNs, endNs] = nesting_.call(modelStartNs, modelEndNs);
  complete("cuda_runtime", kNames[k], r_.pid, static_cast<int64_t>(tid), startNs, endNs);
  out_.text("\"External id\": ")
      .integer(externalId_)
      .text(", \"cbid\": ")
      .integer(kCbids[k])
      .text(", \"correlation\": ")
      .integer(correlation_);
  closeArgs();
  flowStart(tid, startNs);
}

void KinetoTraceWriter::gpuArgs(int64_t device, int64_t stream) {
  streams_.insert(stream);
  out_.text("\"External id\": ")
      .integer(externalId_)
      .text(", \"queued\": 0, \"device\": ")
      .integer(device)
      .text(", \"context\": 1, \"stream\": ")
      .integer(stream)
      .text(", \"correlation\": ")
      .integer(correlation_);
}

void KinetoTraceWriter::kernel(const char* name, uint64_t startNs, uint64_t endNs, int64_t device,
                               int64_t stream) {
  complete("kernel", name, static_cast<uint64_t>(device), stream, startNs, endNs);
  gpuArgs(device, stream);
  const auto blocks = static_cast<int64_t>(std::string_view(name).size() * 16);
  out_.text(", \"registers per thread\": 64, \"shared memory\": 16384, \"grid\": [")
      .integer(blocks)
      .text(", 1, 1], \"block\": [256, 1, 1], \"est. achieved occupancy %\": 50");
  closeArgs();
  flowEnd(device, stream, startNs);
}

void KinetoTraceWriter::copy(SynthLaunch kind, uint64_t startNs, uint64_t endNs, int64_t device,
                             int64_t stream, uint64_t bytes) {
  const bool memset = kind == SynthLaunch::Memset;
  complete(memset ? "gpu_memset" : "gpu_memcpy",
           memset ? "Memset (Device)" : "Memcpy HtoD (Pinned -> Device)",
           static_cast<uint64_t>(device), stream, startNs, endNs);
  gpuArgs(device, stream);
  // GB/s = bytes per ns, with 3 decimals (0 for an empty interval).
  const uint64_t durNs = endNs - startNs;
  const uint64_t milliGBs = durNs == 0 ? 0 : bytes * 1000 / durNs;
  out_.text(", \"bytes\": ")
      .unsignedInteger(bytes)
      .text(", \"memory bandwidth (GB/s)\": ")
      .micros3(static_cast<int64_t>(milliGBs));
  closeArgs();
  flowEnd(device, stream, startNs);
}

void KinetoTraceWriter::allReduce(uint64_t opStartNs, uint64_t opEndNs, uint64_t /*tid*/,
                                  uint64_t kernelStartNs, uint64_t kernelEndNs, int64_t device,
                                  int64_t stream) {
  const uint64_t tid = collectiveThreadOf(r_);
  threads_.insert(tid);
  complete("user_annotation", "nccl:all_reduce", r_.pid, static_cast<int64_t>(tid), opStartNs,
           opEndNs);
  out_.text("\"External id\": ")
      .integer(nextExternalId_++)
      .text(", \"Ev Idx\": ")
      .integer(evIdx_++);
  closeArgs();
  externalId_ = nextExternalId_++;
  complete("cpu_op", "record_param_comms", r_.pid, static_cast<int64_t>(tid), opStartNs + 200,
           opEndNs - 200);
  nesting_.op(opStartNs + 200, opEndNs - 200);
  std::string collective = "\"Collective name\": \"allreduce\", \"In msg nelems\": " +
                           std::to_string(kAllReduceElements) +
                           ", \"Out msg nelems\": " + std::to_string(kAllReduceElements) +
                           ", \"Group size\": " + std::to_string(r_.worldSize) +
                           ", \"dtype\": \"Float\", \"In split size\": \"[]\", \"Out split "
                           "size\": \"[]\", \"Process Group Name\": \"0\", \"Process Group "
                           "Description\": \"default_pg\"";
  out_.text("\"External id\": ").integer(externalId_).text(", ").text(collective);
  out_.text(", \"Ev Idx\": ").integer(evIdx_++);
  closeArgs();
  launch(SynthLaunch::Kernel, opStartNs + 1'000, opStartNs + 2'500, tid);
  complete("kernel", kAllReduceKernel, static_cast<uint64_t>(device), stream, kernelStartNs,
           kernelEndNs);
  gpuArgs(device, stream);
  out_.text(
          ", \"registers per thread\": 96, \"shared memory\": 87568, \"grid\": [8, 1, 1], "
          "\"block\": [544, 1, 1], \"est. achieved occupancy %\": 0, ")
      .text(collective);
  closeArgs();
  flowEnd(device, stream, kernelStartNs);
}

// The collective's args, as PyTorch's profiler writes them on both the
// record_param_comms op and the NCCL kernel.
void KinetoTraceWriter::collectiveArgs(const SynthCollective& c) {
  out_.text("\"Collective name\": \"")
      .text(c.collectiveName)
      .text("\", \"In msg nelems\": ")
      .integer(c.inNelems)
      .text(", \"Out msg nelems\": ")
      .integer(c.outNelems)
      .text(", \"Group size\": ")
      .integer(c.groupSize)
      .text(
          ", \"dtype\": \"Float\", \"In split size\": \"[]\", \"Out split size\": \"[]\", "
          "\"Process Group Name\": \"")
      .text(*c.pgName)
      .text("\", \"Process Group Description\": \"")
      .text(*c.pgDesc)
      .text("\", \"Process Group Ranks\": \"")
      .text(*c.pgRanks)
      .text("\", \"Seq\": ")
      .integer(c.seq);
  if (c.dstRank >= 0) out_.text(", \"Dst Rank\": ").integer(c.dstRank);
  if (c.srcRank >= 0) out_.text(", \"Src Rank\": ").integer(c.srcRank);
}

void KinetoTraceWriter::collective(const SynthCollective& c) {
  threads_.insert(c.tid);
  const auto tid = static_cast<int64_t>(c.tid);
  complete("user_annotation", c.annotation, r_.pid, tid, c.opStartNs, c.opEndNs);
  out_.text("\"External id\": ")
      .integer(nextExternalId_++)
      .text(", \"Ev Idx\": ")
      .integer(evIdx_++);
  closeArgs();
  externalId_ = nextExternalId_++;
  complete("cpu_op", "record_param_comms", r_.pid, tid, c.opStartNs + 200, c.opEndNs - 200);
  nesting_.op(c.opStartNs + 200, c.opEndNs - 200);
  out_.text("\"External id\": ").integer(externalId_).text(", ");
  collectiveArgs(c);
  out_.text(", \"Ev Idx\": ").integer(evIdx_++);
  closeArgs();
  launch(SynthLaunch::Kernel, c.launchStartNs, c.launchEndNs, c.tid);
  complete("kernel", c.kernelName, static_cast<uint64_t>(c.device), c.stream, c.kernelStartNs,
           c.kernelEndNs);
  gpuArgs(c.device, c.stream);
  out_.text(
      ", \"registers per thread\": 96, \"shared memory\": 87568, \"grid\": [8, 1, 1], "
      "\"block\": [544, 1, 1], \"est. achieved occupancy %\": 0, ");
  collectiveArgs(c);
  closeArgs();
  flowEnd(c.device, c.stream, c.kernelStartNs);
}

void KinetoTraceWriter::memoryInstant(const SynthMemoryLedger::Change& c) {
  const bool gpu = c.place == SynthMemoryPlace::Gpu;
  open();
  out_.text(
          "    \"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": "
          "\"[memory]\",\n    \"pid\": ")
      .unsignedInteger(r_.pid)
      .text(", \"tid\": ")
      .unsignedInteger(r_.pid)
      .text(",\n    \"ts\": ")
      .micros3(rel(c.atNs))
      .text(",\n    \"args\": {\n      \"Addr\": ")
      .unsignedInteger(c.addr)
      .text(", \"Bytes\": ")
      .integer(c.bytes)
      .text(", \"Total Allocated\": ")
      .integer(c.allocated)
      .text(", \"Total Reserved\": ")
      .integer(c.reserved)
      .text(gpu ? ", \"Device Type\": 1, \"Device Id\": " : ", \"Device Type\": 0, \"Device Id\": ")
      .integer(gpu ? static_cast<int64_t>(c.device) : -1)
      .text(", \"Ev Idx\": ")
      .integer(evIdx_++);
  closeArgs();
}

void KinetoTraceWriter::metadata(std::string_view name, int64_t pid, int64_t tid,
                                 std::string_view key, std::string_view quotedValue) {
  open();
  out_.text("    \"name\": \"")
      .text(name)
      .text("\", \"ph\": \"M\", \"ts\": ")
      .micros3(rel(metadataNs_))
      .text(", \"pid\": ")
      .integer(pid)
      .text(", \"tid\": ")
      .integer(tid)
      .text(",\n    \"args\": {\n      \"")
      .text(key)
      .text("\": ")
      .text(quotedValue);
  closeArgs();
}

void KinetoTraceWriter::writeMetadata(uint64_t beginNs) {
  metadataNs_ = beginNs;
  const auto pid = static_cast<int64_t>(r_.pid);
  metadata("process_name", pid, 0, "name", "\"python3\"");
  metadata("process_labels", pid, 0, "labels", "\"CPU\"");
  metadata("process_name", r_.gpu, 0, "name", "\"python3\"");
  metadata("process_labels", r_.gpu, 0, "labels", "\"GPU " + std::to_string(r_.gpu) + "\"");
  metadata("process_sort_index", r_.gpu, 0, "sort_index", std::to_string(16777216 + r_.gpu));
  for (int64_t s : streams_) {
    metadata("thread_name", r_.gpu, s, "name", "\"stream " + std::to_string(s) + " \"");
    metadata("thread_sort_index", r_.gpu, s, "sort_index", std::to_string(s));
  }
  for (uint64_t t : threads_) {
    const auto tid = static_cast<int64_t>(t);
    const std::string role = t == r_.pid ? "pt_main_thread"
                             : t == collectiveThreadOf(r_)
                                 ? "pt_ddp_comm"
                                 : "pt_autograd_" + std::to_string(t - r_.pid - 1);
    metadata("thread_name", pid, tid, "name",
             "\"thread " + std::to_string(t) + " (" + role + ")\"");
    metadata("thread_sort_index", pid, tid, "sort_index", std::to_string(t));
  }
}

bool KinetoTraceWriter::finish(uint64_t beginNs, uint64_t endNs) {
  releaseMemory(UINT64_MAX);
  writeMetadata(beginNs);
  open();
  out_.text("    \"ph\": \"X\", \"cat\": \"Trace\", \"ts\": ")
      .micros3(rel(beginNs))
      .text(", \"dur\": ")
      .micros3(static_cast<int64_t>(endNs - beginNs))
      .text(
          ",\n    \"pid\": \"Spans\", \"tid\": \"PyTorch Profiler\",\n    \"name\": \"PyTorch "
          "Profiler (0)\",\n    \"args\": {\n      \"Op count\": 0");
  closeArgs();
  open();
  out_.text(
          "    \"name\": \"Record Window End\", \"ph\": \"i\", \"s\": \"g\",\n    \"pid\": \"\", "
          "\"tid\": \"\", \"ts\": ")
      .micros3(rel(endNs))
      .text("\n  }");
  out_.text("\n  ]\n}\n");
  return out_.close();
}

}  // namespace

std::unique_ptr<SyncJobEvents> makeKinetoTraceWriter(const ChromeRank& r,
                                                     const std::filesystem::path& path) {
  return std::make_unique<KinetoTraceWriter>(r, path);
}

}  // namespace xstack
