// One rank of the synchronous job as a Paddle profiler trace
// (paddle.profiler export_chrome_tracing, schemaVersion "1.0.1"), laid out
// as Paddle's ChromeTracingLogger writes it: displayTimeUnit, schemaVersion
// and span_indx as strings, deviceProperties (smCount), traceEvents with
// every event followed by a comma and an empty object `{}` last, then
// ExtraInfo. Host events: pid = the process, tid = "<thread>(Python)" for
// ProfileStep and "<thread>(C++)" for the rest, names suffixed with their
// duration ("[12.345 ms]", "[0.500 us]"); device events: pid = device,
// tid = stream (ints); ts in whole microseconds (truncated, as Paddle's
// nsToUs), dur in microseconds with 3 decimals; no rank anywhere.
#include <set>
#include <string>
#include <string_view>

#include "xstack/cmd/synth/ChromeTraceSynth.h"
#include "xstack/cmd/synth/SynthMemoryLedger.h"
#include "xstack/cmd/synth/SynthTraceOut.h"

namespace xstack {
namespace {

constexpr const char* kAllReduceKernel =
    "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)";

// Paddle's duration suffix: "[%.3f ms]" above 1 ms, else "[%.3f us]"
// (here from integer ns, rounded half up).
std::string withDuration(std::string_view name, uint64_t durNs) {
  std::string s(name);
  if (durNs > 1'000'000)
    s += "[" + micros3Text(static_cast<int64_t>((durNs + 500) / 1000)) + " ms]";
  else
    s += "[" + micros3Text(static_cast<int64_t>(durNs)) + " us]";
  return s;
}

class PaddleTraceWriter : public SyncJobEvents {
 public:
  PaddleTraceWriter(const ChromeRank& r, const std::filesystem::path& path)
      : r_(r), out_(path, /*gzip=*/false) {}

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
  bool finish(uint64_t beginNs, uint64_t endNs) override;

 private:
  // A true time (ns) as epoch ns, skew added.
  uint64_t epoch(uint64_t trueNs) const { return trueNs + r_.skewNs; }
  // Paddle's ts: whole microseconds, truncated.
  SynthTraceOut& ts(uint64_t trueNs) { return out_.unsignedInteger(epoch(trueNs) / 1000); }
  // An X event up to its args' opening; tid is "<tid>(<kind>)" for host
  // events (threadKind non-empty), an int for device events.
  void complete(std::string_view name, uint64_t pid, uint64_t tid, std::string_view threadKind,
                uint64_t startNs, uint64_t endNs, std::string_view cat, std::string_view cname);
  void closeEvent() { out_.text("\n    }\n  },\n"); }
  void hostEvent(std::string_view cat, std::string_view name, uint64_t tid,
                 std::string_view threadKind, uint64_t startNs, uint64_t endNs);
  void flowEnd(int64_t device, int64_t stream, uint64_t startNs, uint64_t endNs);
  void memoryInstant(const SynthMemoryLedger::Change& c);
  void releaseMemory(uint64_t untilNs) {
    ledger_.release(untilNs, [this](const SynthMemoryLedger::Change& c) { memoryInstant(c); });
  }
  void threadMetadata(uint64_t tid);
  void streamMetadata(int64_t stream);
  void metadata(std::string_view name, uint64_t pid, std::string_view tid, std::string_view key,
                std::string_view quotedValue);

  const ChromeRank r_;
  SynthTraceOut out_;
  SynthMemoryLedger ledger_;
  HostCallNesting nesting_;  // runtime calls inside their operator
  uint64_t originNs_ = 0;    // start_time/end_time origin: the first host event (true ns)
  bool originSet_ = false;
  int64_t correlation_ = 0, nextCorrelation_ = 1;  // the last launch's "correlation id"
  std::set<int64_t> streams_;
  std::set<uint64_t> threads_;
};

void PaddleTraceWriter::begin(uint64_t beginNs) {
  originNs_ = beginNs;
  out_.text(
      "{\n  \"displayTimeUnit\": \"ms\",\n  \"schemaVersion\": \"1.0.1\",\n"
      "  \"span_indx\": \"0\",\n  \"deviceProperties\": [");
  for (int64_t g = 0; g < r_.gpusPerNode; ++g) {
    out_.text(g == 0 ? "\n    {\n      \"id\": " : ",\n    {\n      \"id\": ")
        .integer(g)
        .text(
            ", \"name\": \"NVIDIA A100-SXM4-80GB\", \"totalGlobalMem\": 85097971712,\n"
            "      \"computeMajor\": 8, \"computeMinor\": 0,\n"
            "      \"maxThreadsPerBlock\": 1024, \"maxThreadsPerMultiprocessor\": 2048,\n"
            "      \"regsPerBlock\": 65536, \"regsPerMultiprocessor\": 65536, \"warpSize\": 32,\n"
            "      \"sharedMemPerBlock\": 49152, \"sharedMemPerMultiprocessor\": 233472,\n"
            "      \"smCount\": 108, \"sharedMemPerBlockOptin\": 232448\n    }");
  }
  out_.text("],\n  \"traceEvents\": [\n");
}

void PaddleTraceWriter::complete(std::string_view name, uint64_t pid, uint64_t tid,
                                 std::string_view threadKind, uint64_t startNs, uint64_t endNs,
                                 std::string_view cat, std::string_view cname) {
  const uint64_t durNs = endNs - startNs;
  out_.text("  {\n    \"name\": \"").text(withDuration(name, durNs)).text("\", \"pid\": ");
  out_.unsignedInteger(pid).text(", \"tid\": ");
  if (threadKind.empty())
    out_.unsignedInteger(tid);
  else
    out_.text("\"").unsignedInteger(tid).text("(").text(threadKind).text(")\"");
  out_.text(",\n    \"ts\": ");
  ts(startNs).text(", \"dur\": ").micros3(static_cast<int64_t>(durNs));
  out_.text(",\n    \"ph\": \"X\", \"cat\": \"").text(cat);
  out_.text("\",\n    \"cname\": \"").text(cname).text("\",\n    \"args\": {\n");
  out_.text("      \"start_time\": \"").micros3(static_cast<int64_t>(startNs - originNs_));
  out_.text(" us\",\n      \"end_time\": \"").micros3(static_cast<int64_t>(endNs - originNs_));
  out_.text(" us\"");
}

void PaddleTraceWriter::hostEvent(std::string_view cat, std::string_view name, uint64_t tid,
                                  std::string_view threadKind, uint64_t startNs, uint64_t endNs) {
  if (!originSet_) originNs_ = startNs, originSet_ = true;
  threads_.insert(tid);
  complete(name, r_.pid, tid, threadKind, startNs, endNs, cat, "thread_state_runnable");
}

void PaddleTraceWriter::step(int64_t step, uint64_t startNs, uint64_t endNs) {
  hostEvent("ProfileStep", "ProfileStep#" + std::to_string(step), r_.pid, "Python", startNs, endNs);
  closeEvent();
}

void PaddleTraceWriter::op(const char* name, bool backward, uint64_t startNs, uint64_t endNs,
                           uint64_t tid, int64_t /*block*/) {
  releaseMemory(startNs);  // no allocation to come is earlier than this op
  nesting_.op(startNs, endNs);
  hostEvent("Operator", std::string(name) + (backward ? "_grad" : ""), tid, "C++", startNs, endNs);
  out_.text(
      ",\n      \"input_shapes\": {},\n      \"input_dtypes\": {},\n"
      "      \"callstack\": \"\"");
  closeEvent();
}

void PaddleTraceWriter::launch(SynthLaunch kind, uint64_t modelStartNs, uint64_t modelEndNs,
                               uint64_t tid) {
  static constexpr const char* kNames[] = {"cudaLaunchKernel", "cudaMemcpyAsync",
                                           "cudaMemsetAsync"};
  threads_.insert(tid);
  correlation_ = nextCorrelation_++;
  const auto [startNs, endNs] = nesting_.call(modelStartNs, modelEndNs);
  complete(kNames[static_cast<size_t>(kind)], r_.pid, tid, "C++", startNs, endNs, "CudaRuntime",
           "thread_state_running");
  out_.text(",\n      \"correlation id\": ").integer(correlation_);
  closeEvent();
  out_.text("  {\n    \"name\": \"launch\", \"id\": ").integer(correlation_);
  out_.text(", \"pid\": ").unsignedInteger(r_.pid).text(", \"tid\": \"").unsignedInteger(tid);
  out_.text("(C++)\",\n    \"ts\": ");
  ts((startNs + endNs) / 2).text(",\n    \"ph\": \"s\", \"cat\": \"async\"\n  },\n");
}

// Paddle's rule: the flow end at the activity's midpoint with bp "e", or at
// its start without bp when it lasts less than 1 us.
void PaddleTraceWriter::flowEnd(int64_t device, int64_t stream, uint64_t startNs, uint64_t endNs) {
  const bool shorterThanMicro = endNs - startNs < 1000;
  out_.text("  {\n    \"name\": \"launch\", \"id\": ").integer(correlation_);
  out_.text(", \"pid\": ").integer(device).text(", \"tid\": ").integer(stream);
  out_.text(",\n    \"ts\": ");
  ts(shorterThanMicro ? startNs : (startNs + endNs) / 2);
  out_.text(shorterThanMicro ? ",\n    \"ph\": \"f\", \"cat\": \"async\"\n  },\n"
                             : ",\n    \"ph\": \"f\", \"cat\": \"async\", \"bp\": \"e\"\n  },\n");
}

void PaddleTraceWriter::kernel(const char* name, uint64_t startNs, uint64_t endNs, int64_t device,
                               int64_t stream) {
  streams_.insert(stream);
  const auto d = static_cast<uint64_t>(device), s = static_cast<uint64_t>(stream);
  const bool nccl = std::string_view(name) == kAllReduceKernel;
  complete(name, d, s, "", startNs, endNs, "Kernel", "cq_build_failed");
  out_.text(",\n      \"device\": ").integer(device).text(", \"context\": 1,\n");
  out_.text("      \"stream\": ").integer(stream).text(", \"correlation id\": ");
  out_.integer(correlation_).text(",\n      \"registers per thread\": ");
  out_.text(nccl ? "96,\n      \"shared memory\": 87568,\n"
                 : "64,\n      \"shared memory\": 16384,\n");
  out_.text("      \"blocks per SM\": 0.074074,\n      \"warps per SM\": 1.259259,\n");
  out_.text(nccl ? "      \"grid\": [8, 1, 1],\n      \"block\": [544, 1, 1],\n"
                 : "      \"grid\": [160, 1, 1],\n      \"block\": [256, 1, 1],\n");
  out_.text("      \"theoretical achieved occupancy %\": 50.000");
  closeEvent();
  flowEnd(device, stream, startNs, endNs);
}

void PaddleTraceWriter::copy(SynthLaunch kind, uint64_t startNs, uint64_t endNs, int64_t device,
                             int64_t stream, uint64_t bytes) {
  streams_.insert(stream);
  const auto d = static_cast<uint64_t>(device), s = static_cast<uint64_t>(stream);
  if (kind == SynthLaunch::Memset) {
    complete("Memset (Device)", d, s, "", startNs, endNs, "Memset", "cq_build_failed");
    out_.text(",\n      \"device\": ").integer(device).text(", \"context\": 1,\n");
    out_.text("      \"stream\": ").integer(stream).text(", \"correlation id\": ");
    out_.integer(correlation_).text(",\n      \"bytes\": ").unsignedInteger(bytes);
    out_.text(", \"value\": 0");
  } else {
    const uint64_t durNs = endNs - startNs;
    complete("Memcpy HtoD (Pinned -> Device)", d, s, "", startNs, endNs, "Memcpy",
             "cq_build_failed");
    out_.text(",\n      \"stream\": ").integer(stream).text(", \"correlation id\": ");
    out_.integer(correlation_).text(",\n      \"bytes\": ").unsignedInteger(bytes);
    out_.text(", \"memory bandwidth (GB/s)\": ");
    out_.micros3(static_cast<int64_t>(durNs == 0 ? 0 : bytes * 1000 / durNs));
  }
  closeEvent();
  flowEnd(device, stream, startNs, endNs);
}

void PaddleTraceWriter::allReduce(uint64_t opStartNs, uint64_t opEndNs, uint64_t /*tid*/,
                                  uint64_t kernelStartNs, uint64_t kernelEndNs, int64_t device,
                                  int64_t stream) {
  const uint64_t tid = collectiveThreadOf(r_);
  hostEvent("Communication", "c_allreduce_sum", tid, "C++", opStartNs, opEndNs);
  closeEvent();
  nesting_.op(opStartNs, opEndNs);
  launch(SynthLaunch::Kernel, opStartNs + 1'000, opStartNs + 2'500, tid);
  kernel(kAllReduceKernel, kernelStartNs, kernelEndNs, device, stream);
}

void PaddleTraceWriter::memoryInstant(const SynthMemoryLedger::Change& c) {
  const bool gpu = c.place == SynthMemoryPlace::Gpu;
  out_.text("  {\n    \"name\": \"[memory]\", \"pid\": ").unsignedInteger(r_.pid);
  out_.text(", \"tid\": \"").unsignedInteger(r_.pid).text("(C++)\",\n    \"ts\": ");
  ts(c.atNs).text(",\n    \"ph\": \"i\", \"cat\": \"").text(c.bytes > 0 ? "Allocate" : "Free");
  out_.text("\",\n    \"args\": {\n      \"place\": \"");
  if (gpu)
    out_.text("Place(gpu:").unsignedInteger(c.device).text(")");
  else
    out_.text("Place(gpu_pinned)");
  out_.text("\",\n      \"addr\": \"").unsignedInteger(c.addr);
  out_.text("\",\n      \"increase_bytes\": ").integer(c.bytes);
  out_.text(",\n      \"current_allocated\": ").integer(c.allocated);
  out_.text(",\n      \"current_reserved\": ").integer(c.reserved);
  out_.text(",\n      \"peak_allocated\": ").integer(c.peakAllocated);
  out_.text(",\n      \"peak_reserved\": ").integer(c.peakReserved);
  closeEvent();
}

void PaddleTraceWriter::metadata(std::string_view name, uint64_t pid, std::string_view tid,
                                 std::string_view key, std::string_view quotedValue) {
  out_.text("  {\n    \"name\": \"").text(name).text("\", \"pid\": ").unsignedInteger(pid);
  out_.text(", \"tid\": ").text(tid).text(",\n    \"ph\": \"M\",\n    \"args\": {\n      \"");
  out_.text(key).text("\": ").text(quotedValue);
  closeEvent();
}

void PaddleTraceWriter::threadMetadata(uint64_t tid) {
  const std::string pid = std::to_string(r_.pid), t = std::to_string(tid);
  const std::string python = "\"" + t + "(Python)\"", cpp = "\"" + t + "(C++)\"";
  metadata("process_name", r_.pid, python, "name", "\"Process " + pid + " (CPU)\"");
  metadata("process_name", r_.pid, cpp, "name", "\"Process " + pid + " (CPU)\"");
  metadata("thread_name", r_.pid, python, "name", "\"thread " + t + ":(Python)\"");
  metadata("thread_name", r_.pid, cpp, "name", "\"thread " + t + ":(C++)\"");
  metadata("process_sort_index", r_.pid, t, "sort_index", pid);
  metadata("thread_sort_index", r_.pid, python, "sort_index", std::to_string(tid * 2));
  metadata("thread_sort_index", r_.pid, cpp, "sort_index", std::to_string(tid * 2 + 1));
}

void PaddleTraceWriter::streamMetadata(int64_t stream) {
  const auto d = static_cast<uint64_t>(r_.gpu);
  const std::string s = std::to_string(stream), g = std::to_string(r_.gpu);
  metadata("process_name", d, s, "name", "\"Device " + g + " (GPU)\"");
  metadata("thread_name", d, s, "name", "\"stream " + s + "\"");
  metadata("process_sort_index", d, s, "sort_index", std::to_string(r_.gpu + 0x10000000));
  metadata("thread_sort_index", d, s, "sort_index", s);
}

bool PaddleTraceWriter::finish(uint64_t /*beginNs*/, uint64_t /*endNs*/) {
  releaseMemory(UINT64_MAX);
  for (uint64_t t : threads_) threadMetadata(t);
  for (int64_t s : streams_) streamMetadata(s);
  out_.text("  {}\n  ],\n  \"ExtraInfo\": {}\n}\n");
  return out_.close();
}

}  // namespace

std::unique_ptr<SyncJobEvents> makePaddleTraceWriter(const ChromeRank& r,
                                                     const std::filesystem::path& path) {
  return std::make_unique<PaddleTraceWriter>(r, path);
}

}  // namespace xstack
