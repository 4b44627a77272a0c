// chrome_json_bench: throughput of the Chrome-trace JSON tokenizer
// (src/source/chrome) against nlohmann::json's SAX parser, for the parser
// choice in docs/DESIGN.md ("Chrome-trace JSON parser").
//
//   chrome_json_bench synth OUT.json MB    writes a Kineto-like trace of about MB megabytes
//   chrome_json_bench FILE [REPEAT]        measures on FILE (.json or .json.gz)
//
// Measurements (best of REPEAT runs, CPU seconds of the process, MB = 10^6 bytes of
// JSON text after gunzip):
//   xstack-file     readTrace(FILE): streamed from the file, every event parsed
//   xstack-header   readTraceHeader(FILE): traceEvents skipped by the bracket scan
//   xstack-memory   readTraceBytes over the text in memory (no I/O, no inflate)
//   nlohmann-memory nlohmann::json::sax_parse over the text in memory, a handler that
//                   does nothing (the SAX tokenizer's upper bound)
//   nlohmann-stream the same from an std::ifstream (streamed; plain files only)
//   gunzip          zlib inflate of FILE alone (the floor of a .gz file)
#include <time.h>
#include <zlib.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "xstack/source/chrome/ByteStream.h"
#include "xstack/source/chrome/TraceReader.h"

namespace {

using namespace xstack::chrome;

// A SAX handler that accepts everything and keeps nothing.
struct NullSax : nlohmann::json_sax<nlohmann::json> {
  uint64_t values = 0;
  bool null() override { return ++values; }
  bool boolean(bool) override { return ++values; }
  bool number_integer(number_integer_t) override { return ++values; }
  bool number_unsigned(number_unsigned_t) override { return ++values; }
  bool number_float(number_float_t, const string_t&) override { return ++values; }
  bool string(string_t&) override { return ++values; }
  bool binary(binary_t&) override { return ++values; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }
};

std::string textOf(const std::string& path) {
  std::optional<ReadError> error;
  auto source = ByteStream::openFile(path, 1 << 20, error);
  std::string text;
  if (!source) return text;
  std::string piece(1 << 20, '\0');
  while (uint64_t n = source->read(piece.data(), piece.size())) text.append(piece.data(), n);
  return text;
}

// CPU seconds of this process (user + system): on a shared machine the wall
// time also counts other processes' turns.
double cpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

double bestSeconds(int repeat, const std::function<bool()>& run) {
  double best = 1e30;
  for (int i = 0; i < repeat; ++i) {
    const double t0 = cpuSeconds();
    if (!run()) {
      std::fprintf(stderr, "chrome_json_bench: a run failed\n");
      std::exit(1);
    }
    best = std::min(best, cpuSeconds() - t0);
  }
  return best;
}

void report(const char* what, double seconds, uint64_t bytes) {
  std::printf("%-16s %8.3f s cpu %9.1f MB/s\n", what, seconds, bytes / 1e6 / seconds);
}

int measure(const std::string& path, int repeat) {
  const std::string text = textOf(path);
  const uint64_t bytes = text.size();
  uint64_t events = 0;
  auto count = [&](const TraceEvent&) { ++events; };
  std::printf("%s: %.1f MB of JSON text\n", path.c_str(), bytes / 1e6);
  report("xstack-file", bestSeconds(repeat, [&] { return readTrace(path, count).ok(); }), bytes);
  report("xstack-header", bestSeconds(repeat, [&] { return readTraceHeader(path).ok(); }), bytes);
  report("xstack-memory",
         bestSeconds(repeat, [&] { return readTraceBytes(text, path, count).ok(); }), bytes);
  report("nlohmann-memory",
         bestSeconds(repeat,
                     [&] {
                       NullSax sax;
                       return nlohmann::json::sax_parse(text, &sax);
                     }),
         bytes);
  bool gz = text.size() > 0 && readTraceHeader(path).info.gzip;
  if (!gz) {
    report("nlohmann-stream",
           bestSeconds(repeat,
                       [&] {
                         std::ifstream in(path, std::ios::binary);
                         NullSax sax;
                         return nlohmann::json::sax_parse(in, &sax);
                       }),
           bytes);
  } else {
    report("gunzip", bestSeconds(repeat, [&] { return textOf(path).size() == bytes; }), bytes);
  }
  std::printf("events per run: %llu\n", static_cast<unsigned long long>(events / (2 * repeat)));
  return 0;
}

// One Kineto-like event of each common kind, Kineto's layout (one key group
// per line, 3-decimal microseconds relative to a base).
void writeStep(std::FILE* out, uint64_t i, double& ts) {
  const unsigned corr = static_cast<unsigned>(i * 2 + 1);
  std::fprintf(
      out,
      "  {\n    \"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::linear\", "
      "\"pid\": 4171, \"tid\": 4171,\n    \"ts\": %.3f, \"dur\": %.3f,\n"
      "    \"args\": {\n      \"External id\": %u,\"Record function id\": 0, \"Ev Idx\": %u, "
      "\"Input Dims\": [[64, 1024], [4096, 1024], [4096]], \"Input type\": "
      "[\"float\", \"float\", \"float\"]\n    }\n  },\n",
      ts, 35.125, corr, corr);
  std::fprintf(
      out,
      "  {\n    \"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", "
      "\"pid\": 4171, \"tid\": 4171,\n    \"ts\": %.3f, \"dur\": %.3f,\n"
      "    \"args\": {\n      \"External id\": %u,\n      \"cbid\": 211, \"correlation\": %u\n"
      "    }\n  },\n  {\n    \"ph\": \"s\", \"id\": %u, \"pid\": 4171, \"tid\": 4171, "
      "\"ts\": %.3f,\n    \"cat\": \"ac2g\", \"name\": \"ac2g\"\n  },\n",
      ts + 5.5, 4.25, corr, corr, corr, ts + 5.5);
  std::fprintf(
      out,
      "  {\n    \"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"void "
      "at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
      "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, "
      "at::detail::Array<char*, 3>)\", \"pid\": 0, \"tid\": 7,\n    \"ts\": %.3f, "
      "\"dur\": %.3f,\n    \"args\": {\n      \"External id\": %u,\n      \"queued\": 0, "
      "\"device\": 0, \"context\": 1,\n      \"stream\": 7, \"correlation\": %u,\n"
      "      \"registers per thread\": 16,\n      \"shared memory\": 0,\n"
      "      \"blocks per SM\": 1.5,\n      \"warps per SM\": 12.0,\n      \"grid\": [1024, 1, "
      "1],\n"
      "      \"block\": [128, 1, 1],\n      \"est. achieved occupancy %%\": 25\n    }\n  },\n"
      "  {\n    \"ph\": \"f\", \"id\": %u, \"pid\": 0, \"tid\": 7, \"ts\": %.3f,\n"
      "    \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"\n  },\n",
      ts + 20.0, 13.75, corr, corr, corr, ts + 20.0);
  ts += 40.0;
}

int synth(const std::string& path, double megabytes) {
  std::FILE* out = std::fopen(path.c_str(), "w");
  if (!out) return 1;
  std::fprintf(out,
               "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [{\"id\": 0, \"name\": "
               "\"NVIDIA A100-SXM4-80GB\", \"totalGlobalMem\": 85031714816}],\n"
               "  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 0, \"world_size\": 2},\n"
               "  \"baseTimeNanoseconds\": 1711964646000000000,\n  \"traceEvents\": [\n");
  double ts = 1000000.0;
  for (uint64_t i = 0; std::ftell(out) < static_cast<long>(megabytes * 1e6); ++i)
    writeStep(out, i, ts);
  std::fprintf(out,
               "  {\n    \"name\": \"Record Window End\", \"ph\": \"i\", \"s\": \"g\",\n"
               "    \"pid\": \"\", \"tid\": \"\", \"ts\": %.3f\n  }\n],\n"
               "  \"traceName\": \"synth.pt.trace.json\"\n}\n",
               ts);
  return std::fclose(out) == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 4 && std::string(argv[1]) == "synth") return synth(argv[2], std::atof(argv[3]));
  if (argc == 2 || argc == 3) return measure(argv[1], argc == 3 ? std::atoi(argv[2]) : 3);
  std::fprintf(stderr,
               "usage: chrome_json_bench synth OUT.json MB | chrome_json_bench FILE [REPEAT]\n");
  return 2;
}
