#include "xstack/source/chrome/ChromeEvents.h"

#include <algorithm>
#include <array>

#include "xstack/core/CheckedMath.h"

namespace xstack::chrome {
namespace {

struct CategoryClass {
  std::string_view cat;
  EventClass cls;
};

// Kineto's category names (ActivityType.h), its 2022 capitalised ones, and
// Paddle's TracerEventType names (docs/FORMAT.md section 8). Everything not
// listed is host work.
constexpr std::array kCategories = {
    CategoryClass{"kernel", EventClass::GpuActivity},
    CategoryClass{"gpu_memcpy", EventClass::GpuActivity},
    CategoryClass{"gpu_memset", EventClass::GpuActivity},
    CategoryClass{"cuda_sync", EventClass::GpuActivity},
    CategoryClass{"mtia_ccp_events", EventClass::GpuActivity},
    CategoryClass{"Kernel", EventClass::GpuActivity},  // 2022 Kineto and Paddle
    CategoryClass{"Memcpy", EventClass::GpuActivity},  // Paddle
    CategoryClass{"Memset", EventClass::GpuActivity},  // Paddle
    CategoryClass{"cuda_runtime", EventClass::Api},
    CategoryClass{"cuda_driver", EventClass::Api},
    CategoryClass{"Runtime", EventClass::Api},      // 2022 Kineto
    CategoryClass{"CudaRuntime", EventClass::Api},  // Paddle
    CategoryClass{"mtia_runtime", EventClass::Api},
    CategoryClass{"xpu_runtime", EventClass::Api},
    CategoryClass{"xpu_driver", EventClass::Api},
    CategoryClass{"privateuse1_runtime", EventClass::Api},
    CategoryClass{"privateuse1_driver", EventClass::Api},
    CategoryClass{"Trace", EventClass::Skipped},  // the profiler's own span
    CategoryClass{"gpu_user_annotation", EventClass::Skipped},
};

bool startsWith(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && s.compare(0, prefix.size(), prefix) == 0;
}

bool isDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// A [memory] instant's address: an int (Kineto) or a decimal string (Paddle).
int64_t addressOf(const TraceEvent& e) {
  if (std::optional<int64_t> a = e.argInt(ArgKey::Addr)) return *a;
  return -1;
}

}  // namespace

EventClass classOfCategory(std::string_view cat) {
  for (const CategoryClass& c : kCategories)
    if (c.cat == cat) return c.cls;
  return EventClass::Host;
}

int64_t stepNumberOf(std::string_view name) {
  const size_t hash = name.find('#');
  if (hash == std::string_view::npos) return -1;
  const std::string_view digits = name.substr(hash + 1);
  if (!isDigits(digits) || digits.size() > 18) return -1;
  return std::stoll(std::string(digits));
}

bool isStepEvent(std::string_view name, std::string_view cat) {
  if (cat == "user_annotation") return startsWith(name, "ProfilerStep#");
  if (cat == "ProfileStep") return startsWith(name, "ProfileStep#");
  return false;
}

bool memPlaceFromText(std::string_view text, MemPlace& place, uint64_t& device) {
  if (startsWith(text, "Place(") && text.back() == ')') text = text.substr(6, text.size() - 7);
  if (text == "cpu") {
    place = MemPlace::Cpu;
    device = 0;
    return true;
  }
  if (text == "gpu_pinned" || text == "cuda_pinned") {
    place = MemPlace::Pinned;
    device = 0;
    return true;
  }
  if (!startsWith(text, "gpu:") || !isDigits(text.substr(4)) || text.size() > 12) return false;
  place = MemPlace::Gpu;
  device = std::stoull(std::string(text.substr(4)));
  return true;
}

namespace {
// Bytes held, from an exact difference of byte counts: 0..2^63 - 1 (docs/FORMAT.md
// "Sums that would overflow").
uint64_t heldBytes(__int128 exact) {
  if (exact < 0) return 0;
  return exact > static_cast<__int128>(kMaxSum) ? kMaxSum : static_cast<uint64_t>(exact);
}
}  // namespace

bool ChromeEventMapper::absoluteNs(const TimeField& t, uint64_t& out) const {
  if (!t.valid) return false;
  int64_t ns = 0;
  if (__builtin_add_overflow(t.ns, baseNs_, &ns) || ns < 0) return false;
  out = static_cast<uint64_t>(ns);
  return true;
}

// An event at relative ts exactly 0 in a file with a base: Kineto clamps a time before the
// base to 0, so the event's real time is unknown (up to months before the trace). Dropped,
// counted with an example.
bool ChromeEventMapper::clamped(const TimeField& t) {
  if (!relative_ || !t.valid || t.ns != 0) return false;
  ++droppedForTime_;
  warnings_.add(Warn::JsonClampedTime, 1,
                where_ + "ts " + std::to_string(baseNs_) + " ns: relative ts 0, dropped");
  return true;
}

void ChromeEventMapper::onEvent(const TraceEvent& e) {
  switch (e.ph) {
    case 'X':
      return onComplete(e);
    case 'i':
    case 'I':
      if (e.name == "[memory]") return onMemoryInstant(e);
      return;  // "Iteration Start", "Record Window End": markers of the profiler
    case 'B':
    case 'E':
      return onBeginEnd(e);
    case 'M':
    case 's':
    case 'f':
    case 't':
      return;  // names (xstack names its rows itself) and flows (from the correlation ids)
    default:
      warnings_.add(Warn::JsonIgnoredEvent);
  }
}

// NCCL's collective args as one detail text ("" when the event has none).
std::string_view ChromeEventMapper::detailOf(const TraceEvent& e) {
  if (!e.arg(ArgKey::CollectiveName)) return {};
  detail_.clear();
  constexpr std::pair<ArgKey, std::string_view> kKept[] = {{ArgKey::CollectiveName, "collective"},
                                                           {ArgKey::InMsgNelems, "in_nelems"},
                                                           {ArgKey::OutMsgNelems, "out_nelems"},
                                                           {ArgKey::GroupSize, "group_size"},
                                                           {ArgKey::Dtype, "dtype"},
                                                           {ArgKey::ProcessGroupRanks, "ranks"}};
  for (const auto& [key, label] : kKept) {
    if (!e.arg(key)) continue;
    if (!detail_.empty()) detail_ += "; ";
    detail_.append(label).append(" ").append(e.argText(key));
  }
  return detail_;
}

// The collective of a communication kernel (its args, else its name) or of
// a host op with collective args; nullptr for every other event.
const CollectiveInfo* ChromeEventMapper::collectiveOf(const TraceEvent& e, EventClass cls,
                                                      uint64_t startNs) {
  if (e.arg(ArgKey::CollectiveName) &&
      collectiveFromArgs(e, collective_, badArgs_, collectiveMemo_)) {
    if (!badArgs_.empty())
      warnings_.add(Warn::JsonBadCollectiveArg, 1,
                    where_ + "ts " + std::to_string(startNs) + " ns: " + badArgs_);
    return &collective_;
  }
  if (cls == EventClass::GpuActivity && collectiveFromKernelName(e.name, collective_))
    return &collective_;
  return nullptr;
}

void ChromeEventMapper::onComplete(const TraceEvent& e) {
  const EventClass cls = classOfCategory(e.cat);
  if (cls == EventClass::Skipped) {
    if (e.cat != "Trace") warnings_.add(Warn::JsonIgnoredEvent);
    return;
  }
  uint64_t start = 0;
  // A negative dur ends the event where it starts (drawn as 0): its end must
  // not move the time origin before the event.
  const int64_t dur = e.dur.valid ? std::max<int64_t>(e.dur.ns, 0) : 0;
  const bool endsBeforeStart = e.dur.valid && e.dur.ns < 0;
  int64_t endNs = 0;
  if (clamped(e.ts)) return;
  // An end past 2^63 - 1 ns (after 2262) is no time: dropped like its start would be.
  if (!absoluteNs(e.ts, start) || (e.dur.present && !e.dur.valid) ||
      !checkedAdd(static_cast<int64_t>(start), dur, endNs)) {
    ++droppedForTime_;
    warnings_.add(Warn::JsonBadTime);
    return;
  }
  ++used_;
  const auto end = static_cast<uint64_t>(endNs);
  SliceEvent s{e.name, {}, start, end, {RowKind::CpuBlock, 0}, e.tid.value, 0};
  s.correlation = e.argInt(ArgKey::Correlation).value_or(-1);
  if (cls == EventClass::Api) s.row = {RowKind::CudaApi, -1};
  if (cls == EventClass::GpuActivity) {
    std::optional<int64_t> device = e.argInt(ArgKey::Device);
    if (!device && e.pid.numeric) device = e.pid.value;
    if (!device || *device < 0) {
      warnings_.add(Warn::JsonBadDevice);
      out_.onUnplaced({start, end, false});
      return;
    }
    s.row = {RowKind::Gpu, *device};
    s.tid = e.argInt(ArgKey::Stream).value_or(e.tid.value);
    s.bytes = static_cast<uint64_t>(std::max<int64_t>(0, e.argInt(ArgKey::Bytes).value_or(0)));
    s.detail = detailOf(e);
  }
  s.collective = collectiveOf(e, cls, start);
  if (isStepEvent(e.name, e.cat)) {
    const int64_t number = stepNumberOf(e.name);
    out_.onStepMark({start, Phase::Forward, true, number});
    out_.onStepMark({end, Phase::Forward, false, number});
  }
  if (endsBeforeStart) warnings_.add(Warn::EventEndBeforeStart);
  out_.onSlice(s);
}

// A B/E pair of a step (ProfilerStep#N written as a duration pair) is a
// step; other B/E events are ignored (counted). An E closes the latest open
// B of its (pid, tid), as the Trace Event Format says.
void ChromeEventMapper::onBeginEnd(const TraceEvent& e) {
  std::vector<int64_t>& open = openBegins_[{e.pid.value, e.tid.value}];
  uint64_t ts = 0;
  const bool timed = absoluteNs(e.ts, ts);
  if (e.ph == 'B') {
    const bool step = timed && isStepEvent(e.name, e.cat);
    open.push_back(step ? std::max<int64_t>(stepNumberOf(e.name), -1) : kNotAStep);
    if (step)
      out_.onStepMark({ts, Phase::Forward, true, open.back()});
    else
      warnings_.add(Warn::JsonIgnoredEvent);
    return;
  }
  const int64_t number = open.empty() ? kNotAStep : open.back();
  if (!open.empty()) open.pop_back();
  if (number == kNotAStep || !timed) {
    warnings_.add(Warn::JsonIgnoredEvent);
    return;
  }
  out_.onStepMark({ts, Phase::Forward, false, number});
}

void ChromeEventMapper::onMemoryInstant(const TraceEvent& e) {
  MemKey key{MemPlace::Gpu, 0};
  std::optional<int64_t> delta, total;
  if (e.arg(ArgKey::Place)) {  // Paddle: cat Allocate/Free; Reserved* are not allocations
    if (e.cat != "Allocate" && e.cat != "Free") return;
    if (!memPlaceFromText(e.argText(ArgKey::Place), key.place, key.device)) {
      warnings_.add(Warn::MemoryUnknownPlace);
      return;
    }
    delta = e.argInt(ArgKey::IncreaseBytes);
    total = e.argInt(ArgKey::CurrentAllocated);
  } else {  // Kineto: Device Type 0 CPU, 1 CUDA
    std::optional<int64_t> type = e.argInt(ArgKey::DeviceType);
    if (type == 0)
      key = {MemPlace::Cpu, 0};
    else if (type == 1)
      key = {MemPlace::Gpu,
             static_cast<uint64_t>(std::max<int64_t>(0, e.argInt(ArgKey::DeviceId).value_or(0)))};
    else {
      warnings_.add(Warn::MemoryUnknownPlace);
      return;
    }
    delta = e.argInt(ArgKey::MemoryBytes);
    total = e.argInt(ArgKey::TotalAllocated);
  }
  uint64_t ts = 0;
  if (clamped(e.ts)) return;
  if (!delta || !absoluteNs(e.ts, ts)) {
    ++droppedForTime_;
    warnings_.add(Warn::JsonBadTime);
    return;
  }
  ++used_;
  auto [it, first] = devices_.try_emplace(key);
  if (first) {
    it->second.firstNs = ts;
    if (total)
      it->second.before = static_cast<int64_t>(heldBytes(static_cast<__int128>(*total) - *delta));
  }
  // |delta| (2^63 for INT64_MIN: the tracks hold a block at 2^63 - 1 bytes).
  const uint64_t bytes =
      *delta < 0 ? uint64_t{0} - static_cast<uint64_t>(*delta) : static_cast<uint64_t>(*delta);
  if (*delta > 0) allocate(key, addressOf(e), ts, bytes, e.tid.value);
  if (*delta < 0) release(key, addressOf(e), ts, bytes);
}

void ChromeEventMapper::allocate(const MemKey& key, int64_t addr, uint64_t ts, uint64_t bytes,
                                 int64_t thread) {
  auto [it, fresh] = live_.try_emplace({key.place, key.device, addr}, Block{ts, bytes, thread});
  if (fresh) return;
  // The address was handed out again without a free in the trace: the
  // earlier block ended here.
  const Block old = it->second;
  out_.onMemory(
      {old.startNs, ts, old.bytes, key.place, key.device, static_cast<uint64_t>(old.thread)});
  it->second = Block{ts, bytes, thread};
}

void ChromeEventMapper::release(const MemKey& key, int64_t addr, uint64_t ts, uint64_t bytes) {
  auto it = live_.find({key.place, key.device, addr});
  if (it == live_.end()) {  // allocated before the trace began
    devices_[key].earlierFrees.emplace_back(ts, bytes);
    return;
  }
  const Block b = it->second;
  live_.erase(it);
  out_.onMemory({b.startNs, ts, b.bytes, key.place, key.device, static_cast<uint64_t>(b.thread)});
}

void ChromeEventMapper::finish() {
  for (const auto& [k, b] : live_) {
    const auto& [place, device, addr] = k;
    out_.onMemory({b.startNs, 0, b.bytes, place, device, static_cast<uint64_t>(b.thread)});
  }
  live_.clear();
  for (const auto& [key, d] : devices_) {
    // What was held before the trace: the blocks it frees, then the rest,
    // held to the end; so the running sum equals the trace's totals.
    __int128 held = d.before;  // exact: bytes up to 2^64 each cannot wrap it
    for (const auto& [ns, bytes] : d.earlierFrees) {
      out_.onMemory({d.firstNs, ns, bytes, key.place, key.device, 0});
      held -= bytes;
    }
    if (held < 0) warnings_.add(Warn::JsonMemoryMismatch);
    if (held > 0) out_.onMemory({d.firstNs, 0, heldBytes(held), key.place, key.device, 0});
  }
  devices_.clear();
}

}  // namespace xstack::chrome
