#include "xstack/cmd/synth/SynthMemoryLedger.h"

#include <algorithm>

namespace xstack {
namespace {

constexpr int64_t kSegmentBytes = 2 << 20;  // caching allocator segment
constexpr uint64_t kAlign = 512;

// First address of a (place, device): device memory of GPU d at
// 0x7f00'0000'0000 + d * 2^36, pinned host memory at 0x7e00'0000'0000.
uint64_t baseAddress(SynthMemoryPlace place, uint32_t device) {
  return place == SynthMemoryPlace::Gpu ? 0x7f0000000000ull + (uint64_t{device} << 36)
                                        : 0x7e0000000000ull;
}

}  // namespace

SynthMemoryLedger::Totals& SynthMemoryLedger::totalsOf(SynthMemoryPlace place, uint32_t device) {
  auto [it, added] = totals_.try_emplace({static_cast<int>(place), device});
  if (added) it->second.nextAddr = baseAddress(place, device);
  return it->second;
}

void SynthMemoryLedger::add(SynthMemoryPlace place, uint32_t device, uint64_t allocNs,
                            uint64_t freeNs, uint64_t bytes) {
  Totals& t = totalsOf(place, device);
  const uint64_t addr = t.nextAddr;  // a bump allocator: addresses are never reused
  t.nextAddr += (bytes + kAlign - 1) / kAlign * kAlign;
  const auto signedBytes = static_cast<int64_t>(bytes);
  pending_.push({allocNs, seq_++, addr, signedBytes, place, device});
  if (freeNs != 0) pending_.push({freeNs, seq_++, addr, -signedBytes, place, device});
}

void SynthMemoryLedger::release(uint64_t untilNs, const std::function<void(const Change&)>& emit) {
  while (!pending_.empty() && pending_.top().atNs <= untilNs) {
    const Pending p = pending_.top();
    pending_.pop();
    Totals& t = totalsOf(p.place, p.device);
    t.allocated += p.bytes;
    t.reserved =
        std::max(t.reserved, (t.allocated + kSegmentBytes - 1) / kSegmentBytes * kSegmentBytes);
    t.peakAllocated = std::max(t.peakAllocated, t.allocated);
    t.peakReserved = std::max(t.peakReserved, t.reserved);
    emit({p.atNs, p.place, p.device, p.addr, p.bytes, t.allocated, t.reserved, t.peakAllocated,
          t.peakReserved});
  }
}

}  // namespace xstack
