// Checked sums of ns and bytes (docs/FORMAT.md "Sums that would overflow"). Every
// time in xstack is below 2^63 ns and every size below 2^63 bytes, so a sum of
// durations or sizes is held at kMaxSum (2^63 - 1, INT64_MAX: what the int64
// readers of the outputs hold: Perfetto counters, pandas, JSON readers) instead
// of wrapping; the caller counts a warning kind for it. Nothing here allocates.
#pragma once

#include <cstdint>

namespace xstack {

// The largest sum of ns or bytes an output holds: 2^63 - 1.
inline constexpr uint64_t kMaxSum = static_cast<uint64_t>(INT64_MAX);

// out = a + b; false (out unspecified) when it does not fit in T.
template <typename T>
[[nodiscard]] constexpr bool checkedAdd(T a, T b, T& out) {
  return !__builtin_add_overflow(a, b, &out);
}

// sum += v, held at kMaxSum; true when the addition lost something (the sum
// was, or became, held). Adding 0 never saturates.
[[nodiscard]] constexpr bool addSaturating(uint64_t& sum, uint64_t v) {
  uint64_t r = 0;
  if (v == 0) return false;
  if (!checkedAdd(sum, v, r) || r > kMaxSum) {
    sum = kMaxSum;
    return true;
  }
  sum = r;
  return false;
}

// sum += v, held at kMaxSum; sets `held` when the addition lost something (a
// sum made of several additions, counted once by its owner).
constexpr void addHeld(uint64_t& sum, uint64_t v, bool& held) {
  if (addSaturating(sum, v)) held = true;
}

// A sum of ns or bytes that remembers whether it was ever held at kMaxSum.
struct SaturatingSum {
  uint64_t value = 0;
  bool saturated = false;
  // Adds `v`; true when this addition made the sum saturated for the first
  // time (so a caller counting per sum counts it once).
  constexpr bool add(uint64_t v) {
    const bool first = !saturated;
    saturated = addSaturating(value, v) || saturated;
    return first && saturated;
  }
};

// Memory in use (bytes) from signed changes (+allocated, -freed), as drawn and
// analysed: the exact running sum is kept in 128 bits (it cannot overflow for
// fewer than 2^64 changes of at most 2^63 bytes), and what is shown is that sum
// held to 0..kMaxSum. So a sum that passed 2^63 - 1 on the way up comes back
// down exactly as the frees say, and is never negative.
class MemoryInUse {
 public:
  // Adds one change; true when the exact sum is above kMaxSum after it (the
  // value shown is held: count memory_sum_overflow).
  constexpr bool add(int64_t delta) {
    exact_ += delta;
    return exact_ > static_cast<__int128>(kMaxSum);
  }
  // The bytes shown: the exact sum held to 0..kMaxSum.
  constexpr int64_t bytes() const {
    if (exact_ < 0) return 0;
    if (exact_ > static_cast<__int128>(kMaxSum)) return INT64_MAX;
    return static_cast<int64_t>(exact_);
  }

 private:
  __int128 exact_ = 0;
};

}  // namespace xstack
