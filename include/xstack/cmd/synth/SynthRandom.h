// The random numbers of `xstack synth`: splitmix64, small, fast, and the same
// sequence on every platform (the standard library's distributions are not),
// so a seed gives the same data set everywhere.
#pragma once

#include <cstdint>

namespace xstack {

class SynthRandom {
 public:
  explicit SynthRandom(uint64_t seed) : s_(seed) {}
  uint64_t next() {
    uint64_t z = (s_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Uniform in [lo, hi] (any 64-bit value when the range is all of them).
  uint64_t range(uint64_t lo, uint64_t hi) {
    const uint64_t span = hi - lo + 1;
    return span == 0 ? next() : lo + next() % span;
  }
  bool chance(unsigned percent) { return next() % 100 < percent; }
  double unit() { return static_cast<double>(next() >> 11) / 9007199254740992.0; }  // [0, 1)

 private:
  uint64_t s_;
};

}  // namespace xstack
