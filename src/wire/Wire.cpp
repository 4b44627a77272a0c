#include "xstack/wire/Wire.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <functional>

namespace xstack::wire {

Writer::Writer() { put(static_cast<char>(kWireVersion)); }

// The room is an eighth of the message, at least 15 bytes (at first
// std::string's own buffer: no allocation), at most 64 KiB. resize writes
// the room, so it is resident: a message held within a budget (counted by
// size()) takes at most an eighth more. The string's capacity still grows
// geometrically (untouched past the room), so growing costs no more copies.
void Writer::grow(size_t atLeast) {
  constexpr size_t kFirstRoom = 15, kMostRoom = size_t{64} << 10;
  out_.resize(used_ + std::max(atLeast, std::clamp(used_ / 8, kFirstRoom, kMostRoom)));
}

void Writer::append(const char* p, size_t n) {
  if (n == 0) return;
  if (out_.size() - used_ < n) {
    // Bytes of this message itself (raw(view())) move with the buffer.
    const std::less_equal<const char*> atMost;
    const bool own = atMost(out_.data(), p) && atMost(p, out_.data() + used_);
    const size_t offset = own ? static_cast<size_t>(p - out_.data()) : 0;
    grow(n);
    if (own) p = out_.data() + offset;
  }
  std::memcpy(out_.data() + used_, p, n);
  used_ += n;
}

void Writer::u64Long(uint64_t v) {
  if (out_.size() - used_ < 10) grow(10);  // a varint of 64 bits has at most 10 bytes
  char* p = out_.data() + used_;
  size_t n = 0;
  while (v >= 0x80) {
    p[n++] = static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  p[n++] = static_cast<char>(v);
  used_ += n;
}

void Writer::f64(double v) {
  char b[8];
  std::memcpy(b, &v, 8);
  append(b, 8);
}

void Writer::boolean(bool v) { put(v ? 1 : 0); }

void Writer::str(std::string_view s) {
  u64(s.size());
  append(s.data(), s.size());
}

void Writer::strings(const std::vector<std::string>& items) {
  list(items, [](Writer& w, const std::string& s) { w.str(s); });
}

std::string Writer::take() {
  out_.resize(used_);
  std::string done = std::move(out_);
  out_ = std::string();
  used_ = 0;
  put(static_cast<char>(kWireVersion));
  return done;
}

Reader::Reader(std::string_view message, std::string what) : in_(message), what_(std::move(what)) {
  if (in_.empty()) {
    fail("empty (no version byte)");
  } else if (static_cast<uint8_t>(in_[0]) != kWireVersion) {
    fail("wire version " + std::to_string(static_cast<uint8_t>(in_[0])) + ", this build reads " +
         std::to_string(kWireVersion) + " (ranks of different xstack builds?)");
  } else {
    at_ = 1;
  }
}

void Reader::fail(const std::string& why) {
  if (!ok_) return;
  ok_ = false;
  error_ = why;
  errorAt_ = at_;
}

bool Reader::need(uint64_t n, const char* what) {
  if (!ok_) return false;
  if (n > in_.size() - at_) {
    fail(std::string("cut short in ") + what + " (" + std::to_string(n) + " bytes wanted, " +
         std::to_string(in_.size() - at_) + " left)");
    return false;
  }
  return true;
}

namespace {

// The low 7 bits of each of a word's 8 bytes, packed: byte i's bits land at
// 7i. Bit 7 of each byte (the continuation flag) is dropped.
uint64_t packSevenBitGroups(uint64_t w) {
  w &= 0x7f7f7f7f7f7f7f7fULL;
  w = ((w & 0x7f007f007f007f00ULL) >> 1) | (w & 0x007f007f007f007fULL);
  w = ((w & 0x3fff00003fff0000ULL) >> 2) | (w & 0x00003fff00003fffULL);
  return ((w & 0x0fffffff00000000ULL) >> 4) | (w & 0x000000000fffffffULL);
}

// The 8 bytes at p as a little-endian number, whatever the machine's order.
uint64_t littleEndianWord(const char* p) {
  uint64_t w = 0;
  std::memcpy(&w, p, 8);
  if constexpr (std::endian::native == std::endian::big) w = __builtin_bswap64(w);
  return w;
}

}  // namespace

uint64_t Reader::u64Long() {
  // Fast path: 10 bytes left hold any varint, so no byte needs a bounds
  // check. The first 8 bytes are decoded as one word: the first byte without
  // its continuation flag ends the varint. A varint longer than 64 bits
  // leaves it for the checked loop below, which fails at the same offset.
  if (ok_ && in_.size() - at_ >= 10) {
    const char* p = in_.data() + at_;
    const uint64_t w = littleEndianWord(p);
    if (const uint64_t ends = ~w & 0x8080808080808080ULL; ends != 0) {
      const int used = std::countr_zero(ends) + 1;  // bits up to the last byte's flag
      at_ += static_cast<size_t>(used / 8);
      return packSevenBitGroups(used == 64 ? w : w & ((uint64_t{1} << used) - 1));
    }
    const auto ninth = static_cast<uint8_t>(p[8]), tenth = static_cast<uint8_t>(p[9]);
    const uint64_t low = packSevenBitGroups(w) | (uint64_t{ninth & 0x7fu} << 56);
    if ((ninth & 0x80) == 0) {
      at_ += 9;
      return low;
    }
    if (tenth <= 1) {
      at_ += 10;
      return low | (uint64_t{tenth} << 63);
    }
  }
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (!need(1, "a number")) return 0;
    const auto byte = static_cast<uint8_t>(in_[at_++]);
    if (shift == 63 && byte > 1) break;
    v |= uint64_t{byte & 0x7fu} << shift;
    if ((byte & 0x80) == 0) return v;
  }
  fail("a number longer than 64 bits");
  return 0;
}

double Reader::f64() {
  if (!need(8, "a double")) return 0;
  double v = 0;
  std::memcpy(&v, in_.data() + at_, 8);
  at_ += 8;
  return v;
}

bool Reader::boolean() {
  if (!need(1, "a flag")) return false;
  const auto b = static_cast<uint8_t>(in_[at_++]);
  if (b > 1) fail("a flag of value " + std::to_string(b));
  return b == 1;
}

std::string Reader::str() { return std::string(view()); }

void Reader::skipVarints(int n) {
  for (int i = 0; i < n && ok_; ++i) {
    if (in_.size() - at_ >= 10) {  // as u64Long's fast path: a flag-less byte in the first 8
      const uint64_t ends = ~littleEndianWord(in_.data() + at_) & 0x8080808080808080ULL;
      if (ends != 0) {
        at_ += static_cast<size_t>(std::countr_zero(ends) + 1) / 8;
        continue;
      }
    }
    const size_t limit = std::min<size_t>(in_.size() - at_, 10);
    size_t k = 0;
    while (k < limit && (static_cast<uint8_t>(in_[at_ + k]) & 0x80) != 0) ++k;
    if (k == limit || (k == 9 && static_cast<uint8_t>(in_[at_ + 9]) > 1)) {
      (void)u64Long();  // fails with u64's message and offset
      return;
    }
    at_ += k + 1;
  }
}

std::string_view Reader::view() {
  const uint64_t n = u64();
  if (!need(n, "a string")) return {};
  const std::string_view s = in_.substr(at_, n);
  at_ += n;
  return s;
}

uint64_t Reader::count(uint64_t minElementBytes) {
  const uint64_t n = u64();
  if (!ok_) return 0;
  const uint64_t left = in_.size() - at_;
  if (minElementBytes > 0 && n > left / minElementBytes) {
    fail("a count of " + std::to_string(n) + " with " + std::to_string(left) + " bytes left");
    return 0;
  }
  return n;
}

std::vector<std::string> Reader::strings() {
  std::vector<std::string> out;
  list(out, [](Reader& r) { return r.str(); });
  return out;
}

Status Reader::status() const {
  if (ok_) return {};
  return Error{what_ + ": " + error_}.atOffset(errorAt_);
}

Status Reader::finish() {
  if (ok_ && at_ != in_.size()) {
    fail(std::to_string(in_.size() - at_) + " bytes left over");
  }
  return status();
}

}  // namespace xstack::wire
