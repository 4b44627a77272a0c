// The one codec for every message between MPI ranks: a small typed writer and
// reader. A message is a version byte (kWireVersion) followed by values in the
// order the writer put them; the reader takes them back in the same order and
// names what it expected when the bytes run out or do not fit.
//
// Encoding (little-endian, all sizes 64-bit):
//   u64        unsigned LEB128 varint (1..10 bytes)
//   i64        zigzag, then as u64
//   f64        the 8 bytes of the IEEE-754 double
//   boolean    one byte, 0 or 1
//   str/bytes  u64 length, then the bytes (any content, NUL included)
//   list       u64 count, then each element
//   nested     a message inside a message is `bytes` (its own version byte)
//
// The reader never throws and never reads past its input: a short or bad
// message makes it sticky-failed (every later value is zero/empty) and
// finish() returns the first Error, with the byte offset where it happened.
// Files (the commit journal, /proc) are no messages and do not use it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "xstack/core/Status.h"

namespace xstack::wire {

// Bumped whenever any message's layout changes: ranks of two builds refuse
// each other's bytes instead of misreading them.
inline constexpr uint8_t kWireVersion = 1;

class Writer {
 public:
  Writer();
  // Varints (a value below 128 is one byte, written inline); i64 zigzagged.
  void u64(uint64_t v) {
    if (v < 0x80) {
      put(static_cast<char>(v));
      return;
    }
    u64Long(v);
  }
  void i64(int64_t v) {
    const uint64_t u = static_cast<uint64_t>(v);
    u64((u << 1) ^ (v < 0 ? ~uint64_t{0} : 0));  // zigzag
  }
  void f64(double v);
  void boolean(bool v);
  void str(std::string_view s);
  void bytes(std::string_view s) { str(s); }
  // A count followed by each element, written by `each(writer, element)`.
  template <class Range, class Each>
  void list(const Range& items, Each each) {
    u64(static_cast<uint64_t>(std::size(items)));
    for (const auto& item : items) each(*this, item);
  }
  void strings(const std::vector<std::string>& items);
  // Bytes as they are, no length: a piece of another message's encoding
  // (e.g. a list's elements between two Reader::offset()s), which the reader
  // then reads as the values it holds.
  void raw(std::string_view s) { append(s.data(), s.size()); }
  // An enum of non-negative values, as its value (u64); read back with
  // Reader::enumeration.
  template <class E>
  void enumeration(E e) {
    u64(static_cast<uint64_t>(e));
  }
  // The message (version byte first). The writer is empty afterwards.
  std::string take();
  size_t size() const { return used_; }
  // Valid until the next write.
  std::string_view view() const { return {out_.data(), used_}; }

 private:
  void u64Long(uint64_t v);
  void put(char c) {
    if (used_ == out_.size()) grow(1);
    out_[used_++] = c;
  }
  void append(const char* p, size_t n);
  void grow(size_t atLeast);  // room for `atLeast` more bytes past used_
  // The message is out_[0, used_); the rest is room, written in place (no
  // per-write length update or terminator, as std::string's appends do).
  std::string out_;
  size_t used_ = 0;
};

class Reader {
 public:
  // `what` names the message in errors ("the plan", "rank 3's step tables").
  explicit Reader(std::string_view message, std::string what = "message");
  // A one-byte varint is read inline; longer ones (and errors) by u64Long.
  uint64_t u64() {
    if (ok_ && at_ < in_.size()) {
      const auto byte = static_cast<uint8_t>(in_[at_]);
      if (byte < 0x80) {
        ++at_;
        return byte;
      }
    }
    return u64Long();
  }
  int64_t i64() {
    const uint64_t u = u64();
    return static_cast<int64_t>((u >> 1) ^ (~(u & 1) + 1));
  }
  double f64();
  bool boolean();
  std::string str();
  std::string bytes() { return str(); }
  // str() without a copy: a view into the message, valid while it lives.
  std::string_view view();
  // Steps over `n` varints without their values, each checked as u64 checks
  // it (ends within the message, at most 64 bits): a bad one fails exactly
  // as u64 would, at the same offset.
  void skipVarints(int n);
  // A count written by Writer::list; refuses counts that cannot fit in the
  // bytes left (each element takes at least `minElementBytes`).
  uint64_t count(uint64_t minElementBytes = 1);
  std::vector<std::string> strings();
  // An enum written by Writer::enumeration; a value above `last` (the enum's
  // last value) fails the reader and gives E{}.
  template <class E>
  E enumeration(E last) {
    const uint64_t v = u64();
    if (v <= static_cast<uint64_t>(last)) return static_cast<E>(v);
    fail("an enum value " + std::to_string(v) + " out of range");
    return E{};
  }
  // Reads `count()` elements with `each(reader)`, appending to `out`.
  template <class T, class Each>
  void list(std::vector<T>& out, Each each) {
    const uint64_t n = count();
    // Room for n (at most the bytes left: count() checks) up to 1 MiB of
    // elements, so that a damaged count costs no more; only into an empty
    // vector (appending keeps its growth).
    if (out.empty()) out.reserve(std::min<uint64_t>(n, (uint64_t{1} << 20) / sizeof(T) + 1));
    for (uint64_t i = 0; i < n && ok(); ++i) out.push_back(each(*this));
  }
  bool ok() const { return ok_; }
  bool atEnd() const { return at_ == in_.size(); }
  // Where the next value starts: a byte offset into the message (the version
  // byte is offset 0).
  size_t offset() const { return at_; }
  size_t left() const { return in_.size() - at_; }  // bytes not yet read
  // Marks the message bad (e.g. a value out of range), keeping the first error.
  void fail(const std::string& why);
  // The first error, or an error when bytes are left over.
  Status finish();
  // The first error without the left-over check (a reader that stops early).
  Status status() const;

 private:
  uint64_t u64Long();
  bool need(uint64_t n, const char* what);
  std::string_view in_;
  std::string what_;
  size_t at_ = 0;
  bool ok_ = true;
  std::string error_;
  size_t errorAt_ = 0;
};

// Convenience: encode/decode one value with a type's `write(Writer&, const T&)`
// and `read(Reader&) -> T` found by argument-dependent lookup or given.
template <class T, class WriteFn>
std::string encode(const T& value, WriteFn write) {
  Writer w;
  write(w, value);
  return w.take();
}

}  // namespace xstack::wire
