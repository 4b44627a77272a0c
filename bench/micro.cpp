// xstack_micro: Google Benchmark micro-benchmarks of xstack's hot paths, on
// one realistic profile (one rank of the standard set: `xstack synth` with
// 10 steps x 2000 ops per step), made in a temporary folder at start-up, or
// the file named by XSTACK_BENCH_PROFILE.
//
//   build/bin/xstack_micro [--benchmark_filter=Decode] [--benchmark_min_time=0.5]
//
// Throughput is given as bytes/s (profile bytes in for decoding, JSON bytes
// out for rendering) and items/s (events).
#include <benchmark/benchmark.h>
#include <google/protobuf/arena.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "profiler.pb.h"
#include "xstack/cmd/cli/Cli.h"
#include "xstack/cmd/report/ProfileReading.h"
#include "xstack/cmd/synth/Synth.h"
#include "xstack/core/TextWriting.h"
#include "xstack/core/TimeUnits.h"
#include "xstack/io/FileBytes.h"
#include "xstack/model/MarkerPairer.h"
#include "xstack/model/MemoryTrack.h"
#include "xstack/model/RankRows.h"
#include "xstack/render/json/JsonRenderer.h"
#include "xstack/source/SourceRegistry.h"
#include "xstack/source/paddle/ProfileDecoder.h"
#include "xstack/source/paddle/ProfileReader.h"
#include "xstack/source/paddle/WireEvents.h"

namespace fs = std::filesystem;
using namespace xstack;

namespace {

struct Fixture {
  std::string path;
  std::string bytes;
  ProfileData data;  // views into `bytes`: the wire events
  EventList events;  // the same as neutral events (source/paddle/WireEvents.h)
  uint64_t items = 0;
  TimeOrigin origin;
  std::string tempDir;

  Fixture() {
    if (const char* p = std::getenv("XSTACK_BENCH_PROFILE"); p && *p) {
      path = p;
    } else {
      char tmpl[] = "/var/tmp/xstack_micro.XXXXXX";
      if (!::mkdtemp(tmpl)) {
        std::perror("mkdtemp");
        std::exit(1);
      }
      tempDir = tmpl;
      SynthOptions o;
      o.outDir = tempDir;
      o.trainers = 1;
      o.gpusPerTrainer = 1;
      o.steps = 10;
      o.opsPerStep = 2000;
      o.seed = 1;
      if (runSynth(o) != 0) std::exit(1);
      path = tempDir + "/profile/profile_rank.0";
    }
    auto b = readFileBytes(path);
    if (!b) {
      std::fprintf(stderr, "xstack_micro: %s\n", b.error().message.c_str());
      std::exit(1);
    }
    bytes = std::move(*b);
    Status r = decodeProfile(bytes, data);
    if (!r.ok()) {
      std::fprintf(stderr, "xstack_micro: %s: %s\n", path.c_str(), r.error().message.c_str());
      std::exit(1);
    }
    decodeProfileEvents(bytes, events);
    items = data.events.size() + data.memEvents.size();
    MinTimestamp m;
    for (const auto& e : data.events) m.add(e.startNs);
    for (const auto& e : data.memEvents) m.add(e.startNs);
    origin.ns = m.value;
    std::fprintf(stderr, "xstack_micro: %s: %zu bytes, %zu events, %zu memory events\n",
                 path.c_str(), bytes.size(), data.events.size(), data.memEvents.size());
  }
  ~Fixture() {
    if (!tempDir.empty()) {
      std::error_code ec;
      fs::remove_all(tempDir, ec);
    }
  }
};

Fixture& fx() {
  static Fixture f;
  return f;
}

// ---- profile decoding ----------------------------------------------------

void BM_DecodeProfile_xstack(benchmark::State& state) {
  const auto& f = fx();
  for (auto _ : state) {
    ProfileData d;
    Status r = decodeProfile(f.bytes, d);
    benchmark::DoNotOptimize(r.ok());
    benchmark::DoNotOptimize(d.events.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * f.bytes.size()));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * f.items));
}
BENCHMARK(BM_DecodeProfile_xstack)->Unit(benchmark::kMillisecond);

// Reserving the vectors from a cheap pre-count would avoid the regrowth
// copies of a 72-byte-per-event vector; this measures what that costs now.
void BM_DecodeProfile_xstack_reserved(benchmark::State& state) {
  const auto& f = fx();
  for (auto _ : state) {
    ProfileData d;
    d.events.reserve(f.data.events.size());
    d.memEvents.reserve(f.data.memEvents.size());
    Status r = decodeProfile(f.bytes, d);
    benchmark::DoNotOptimize(r.ok());
    benchmark::DoNotOptimize(d.events.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * f.bytes.size()));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * f.items));
}
BENCHMARK(BM_DecodeProfile_xstack_reserved)->Unit(benchmark::kMillisecond);

void BM_DecodeProfile_protobuf(benchmark::State& state) {
  const auto& f = fx();
  for (auto _ : state) {
    paddle::platform::proto::Profile p;
    bool ok = p.ParseFromString(f.bytes);
    benchmark::DoNotOptimize(ok);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * f.bytes.size()));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * f.items));
}
BENCHMARK(BM_DecodeProfile_protobuf)->Unit(benchmark::kMillisecond);

void BM_DecodeProfile_protobufArena(benchmark::State& state) {
  const auto& f = fx();
  for (auto _ : state) {
    google::protobuf::Arena arena;
    auto* p = google::protobuf::Arena::CreateMessage<paddle::platform::proto::Profile>(&arena);
    bool ok = p->ParseFromString(f.bytes);
    benchmark::DoNotOptimize(ok);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * f.bytes.size()));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * f.items));
}
BENCHMARK(BM_DecodeProfile_protobufArena)->Unit(benchmark::kMillisecond);

// As a rank decodes: 16 profiles in a row, all kept alive (ProfileReading keeps
// displayed profiles for rendering), so every vector lands in fresh pages
// (page faults) instead of reusing the pages of the previous iteration.
void BM_DecodeProfile_xstack_keep16(benchmark::State& state) {
  const auto& f = fx();
  for (auto _ : state) {
    std::vector<ProfileData> kept(16);
    for (auto& d : kept) {
      Status r = decodeProfile(f.bytes, d);
      benchmark::DoNotOptimize(r.ok());
    }
    benchmark::DoNotOptimize(kept.data());
    state.PauseTiming();
    kept.clear();  // freeing is not part of decoding
    state.ResumeTiming();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * 16 * f.bytes.size()));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * 16 * f.items));
}
BENCHMARK(BM_DecodeProfile_xstack_keep16)->Unit(benchmark::kMillisecond);

void BM_DecodeProfile_xstack_keep16_reserved(benchmark::State& state) {
  const auto& f = fx();
  for (auto _ : state) {
    std::vector<ProfileData> kept(16);
    for (auto& d : kept) {
      d.events.reserve(f.data.events.size());
      d.memEvents.reserve(f.data.memEvents.size());
      Status r = decodeProfile(f.bytes, d);
      benchmark::DoNotOptimize(r.ok());
    }
    benchmark::DoNotOptimize(kept.data());
    state.PauseTiming();
    kept.clear();
    state.ResumeTiming();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * 16 * f.bytes.size()));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * 16 * f.items));
}
BENCHMARK(BM_DecodeProfile_xstack_keep16_reserved)->Unit(benchmark::kMillisecond);

// File read (page cache) + decode + completeness checks: ProfileReading's input.
void BM_ReadProfile(benchmark::State& state) {
  const auto& f = fx();
  for (auto _ : state) {
    auto p = readProfile(f.path);
    benchmark::DoNotOptimize(static_cast<bool>(p));
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * f.bytes.size()));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * f.items));
}
BENCHMARK(BM_ReadProfile)->Unit(benchmark::kMillisecond);

// ---- read-stage computations ----------------------------------------------

// What ProfileReading does per displayed profile: read (page cache) and decode
// through the source, min timestamp, markers, rows, memory warnings.
void BM_SummarizeProfile(benchmark::State& state) {
  auto& f = fx();
  std::unique_ptr<FileBuffer> buffer;
  for (auto _ : state) {
    InputSummary s;
    s.file.path = f.path;
    std::vector<Span> spans;
    summarizeProfile(defaultSource(), true, s, spans, buffer);
    benchmark::DoNotOptimize(s.rows.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * f.items));
}
BENCHMARK(BM_SummarizeProfile)->Unit(benchmark::kMillisecond);

// Marker pairing: classify every wire event (stepMarkOf), then pair.
void BM_MarkerPairing(benchmark::State& state) {
  const auto& f = fx();
  size_t spans = 0;
  for (auto _ : state) {
    MarkerPairer pairer;
    StepMark m;
    for (const ProfileEvent& e : f.data.events)
      if (stepMarkOf(e.name, e.detail, e.startNs, m)) pairer.add(m);
    Warnings w;
    auto s = pairer.pair(w);
    spans = s.size();
    benchmark::DoNotOptimize(s.data());
  }
  state.counters["spans"] = static_cast<double>(spans);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * f.data.events.size()));
}
BENCHMARK(BM_MarkerPairing)->Unit(benchmark::kMicrosecond);

// Pairing alone on many markers (a long run: arg = number of steps).
void BM_MarkerPairOnly(benchmark::State& state) {
  std::vector<StepMark> markers;
  uint64_t t = 1000;
  for (int64_t s = 0; s < state.range(0); ++s)
    for (Phase p : {Phase::Forward, Phase::Backward}) {
      markers.push_back({t, p, true});
      t += 100;
      markers.push_back({t, p, false});
      t += 10;
    }
  for (auto _ : state) {
    MarkerPairer pairer;
    for (const StepMark& m : markers) pairer.add(m);
    Warnings w;
    auto s = pairer.pair(w);
    benchmark::DoNotOptimize(s.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * markers.size()));
}
BENCHMARK(BM_MarkerPairOnly)->Arg(10)->Arg(10000)->Unit(benchmark::kMicrosecond);

// Memory sums: running allocated bytes per (place, device).
void BM_MemoryTracks(benchmark::State& state) {
  const auto& f = fx();
  size_t samples = 0;
  for (auto _ : state) {
    Warnings w;
    auto tracks = buildMemoryTracks(f.events.memory, w);
    samples = 0;
    for (const auto& t : tracks) samples += t.samples.size();
    benchmark::DoNotOptimize(tracks.data());
  }
  state.counters["samples"] = static_cast<double>(samples);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * f.events.memory.size()));
}
BENCHMARK(BM_MemoryTracks)->Unit(benchmark::kMillisecond);

// The rows of a rank (std::set of row keys over every event).
void BM_RankRowKeys(benchmark::State& state) {
  const auto& f = fx();
  for (auto _ : state) {
    auto rows = rankRows(f.events);
    benchmark::DoNotOptimize(rows.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * f.items));
}
BENCHMARK(BM_RankRowKeys)->Unit(benchmark::kMillisecond);

// ---- rendering ------------------------------------------------------------

// JsonRenderer::rankRows: every row of one displayed rank to JSON text, the
// pieces handed to a sink that only counts them.
void BM_RenderRankRows(benchmark::State& state) {
  const auto& f = fx();
  const std::vector<RowKey> rows = rankRows(f.events);
  uint64_t out = 0;
  std::string buffer;  // reused between chunks, as TraceWriting's BufferPool does
  for (auto _ : state) {
    out = 0;
    JsonRenderer r(
        f.origin, [&](std::string_view t) { out += t.size(); }, 4 << 20, std::move(buffer));
    r.rankRows(3, 8, rows, f.events);
    r.flush();
    buffer = r.takeBuffer();
    benchmark::DoNotOptimize(out);
  }
  state.counters["out_bytes"] = static_cast<double>(out);
  state.counters["out_bytes_per_event"] = static_cast<double>(out) / static_cast<double>(f.items);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * out));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * f.items));
}
BENCHMARK(BM_RenderRankRows)->Unit(benchmark::kMillisecond);

// The same text copied once more (as the transfer to rank 0 / write would):
// a bandwidth reference for the rendering figure above.
void BM_MemcpyRenderedSize(benchmark::State& state) {
  const size_t n = 4u << 20;
  std::string a(n, 'x'), b(n, 'y');
  for (auto _ : state) {
    std::memcpy(b.data(), a.data(), n);
    benchmark::DoNotOptimize(b.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * n));
}
BENCHMARK(BM_MemcpyRenderedSize)->Unit(benchmark::kMicrosecond);

// ---- the machine: what fresh memory costs ------------------------------------
// Touching newly mapped memory (one page fault per 4 KiB page, or per 2 MiB
// with transparent huge pages via madvise). arg 0: 4 KiB pages, 1: MADV_HUGEPAGE.
void BM_FreshPages64MiB(benchmark::State& state) {
  const size_t n = 64u << 20;
  for (auto _ : state) {
    void* p = ::mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
      state.SkipWithError("mmap failed");
      break;
    }
    if (state.range(0)) ::madvise(p, n, MADV_HUGEPAGE);
    auto* c = static_cast<char*>(p);
    for (size_t i = 0; i < n; i += 4096) c[i] = 1;
    benchmark::DoNotOptimize(c);
    ::munmap(p, n);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * n));
  // Seconds (CPU) per 4 KiB page touched.
  state.counters["s_per_4KiB"] = benchmark::Counter(
      static_cast<double>(n / 4096),
      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_FreshPages64MiB)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// ---- JSON text --------------------------------------------------------------

void BM_AppendJsonString(benchmark::State& state) {
  static const char* kInputs[] = {
      // 0: a typical kernel name (ASCII, no escapes)
      "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>",
      // 1: a short op name
      "matmul_v2_grad",
      // 2: quotes, backslashes and a control character
      "op \"x\\y\"\twith\nescapes and \x01 control",
      // 3: valid multi-byte UTF-8 and invalid bytes
      "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 bad:\xff\xc0\xaf end",
  };
  std::string_view in = kInputs[state.range(0)];
  std::string out;
  JsonTextStats stats;
  for (auto _ : state) {
    out.clear();
    for (int i = 0; i < 64; ++i) appendJsonString(out, in, stats);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * 64 * in.size()));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * 64));
}
BENCHMARK(BM_AppendJsonString)->DenseRange(0, 3)->Unit(benchmark::kNanosecond);

void BM_AppendMicros(benchmark::State& state) {
  std::string out;
  uint64_t v = 123456789012;
  for (auto _ : state) {
    out.clear();
    for (int i = 0; i < 64; ++i) appendMicros(out, v + static_cast<uint64_t>(i) * 7919);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * 64));
}
BENCHMARK(BM_AppendMicros)->Unit(benchmark::kNanosecond);

}  // namespace

BENCHMARK_MAIN();
