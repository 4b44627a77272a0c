// A small protobuf wire-format encoder that appends to a caller's
// std::string: varints, fixed64/double, length-delimited fields and nested
// messages. Nested messages get their length patched in place when they end:
// beginMessage() writes the tag and a one-byte length placeholder; endMessage()
// writes the real length, moving the body right when the length needs more
// than one byte (rare: only messages of 128 bytes or more). Output is the
// canonical encoding (minimal varints), so equal calls give equal bytes.
// Nested messages must end in LIFO order. Memory: the caller's string only.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "xstack/core/TextWriting.h"

namespace xstack::perfetto {

enum class WireType : uint32_t { Varint = 0, Fixed64 = 1, LengthDelimited = 2, Fixed32 = 5 };

// Bytes of v as a varint (1..10).
inline size_t varintSize(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

// Writes into memory the caller has sized exactly beforehand (sums of
// varintFieldSize/nestedSize), for packets whose size is known before they
// are written: no length patching, no size check per field.
struct SizedWriter {
  char* p;
  void byte(uint8_t b) { *p++ = static_cast<char>(b); }
  void varint(uint64_t v) {
    while (v >= 0x80) {
      *p++ = static_cast<char>(static_cast<uint8_t>(v) | 0x80);
      v >>= 7;
    }
    *p++ = static_cast<char>(v);
  }
  void tag(uint32_t field, WireType type) {
    varint((static_cast<uint64_t>(field) << 3) | static_cast<uint32_t>(type));
  }
  void varintField(uint32_t field, uint64_t v) {
    tag(field, WireType::Varint);
    varint(v);
  }
  void bytes(std::string_view s) {
    std::memcpy(p, s.data(), s.size());
    p += s.size();
  }
};

inline constexpr size_t tagSize(uint32_t field) { return field < 16 ? 1 : field < 2048 ? 2 : 3; }
// Bytes of a varint field (tag + value).
inline size_t varintFieldSize(uint32_t field, uint64_t v) { return tagSize(field) + varintSize(v); }
// Bytes of a length-delimited field whose body has `len` bytes.
inline size_t nestedSize(uint32_t field, size_t len) {
  return tagSize(field) + varintSize(len) + len;
}

class ProtoWriter {
 public:
  // Position of a nested message's length byte, from beginMessage().
  using Mark = size_t;

  explicit ProtoWriter(std::string& out) : out_(&out) {}

  std::string& out() { return *out_; }

  void varint(uint64_t v) {
    char tmp[10];
    size_t n = 0;
    while (v >= 0x80) {
      tmp[n++] = static_cast<char>(static_cast<uint8_t>(v) | 0x80);
      v >>= 7;
    }
    tmp[n++] = static_cast<char>(v);
    out_->append(tmp, n);
  }
  void tag(uint32_t field, WireType type) {
    varint((static_cast<uint64_t>(field) << 3) | static_cast<uint32_t>(type));
  }
  // uint32/uint64/enum fields; int32/int64 through int64Field (a negative
  // value takes 10 bytes, as protobuf encodes int32 and int64).
  void varintField(uint32_t field, uint64_t v) {
    tag(field, WireType::Varint);
    varint(v);
  }
  void int64Field(uint32_t field, int64_t v) { varintField(field, static_cast<uint64_t>(v)); }
  void boolField(uint32_t field, bool v) { varintField(field, v ? 1 : 0); }
  void fixed64Field(uint32_t field, uint64_t v) {
    tag(field, WireType::Fixed64);
    char tmp[8];
    for (int i = 0; i < 8; ++i) tmp[i] = static_cast<char>(static_cast<uint8_t>(v >> (8 * i)));
    out_->append(tmp, 8);
  }
  void doubleField(uint32_t field, double v) {
    uint64_t bits;
    std::memcpy(&bits, &v, 8);
    fixed64Field(field, bits);
  }
  // Bytes as they are (the caller guarantees UTF-8 for string fields).
  void bytesField(uint32_t field, std::string_view v) {
    tag(field, WireType::LengthDelimited);
    varint(v.size());
    out_->append(v);
  }
  // A string field holding s made valid UTF-8 (appendValidUtf8: invalid
  // subparts become U+FFFD, counted in stats).
  void utf8Field(uint32_t field, std::string_view s, JsonTextStats& stats) {
    Mark m = beginMessage(field);
    appendValidUtf8(*out_, s, stats);
    endMessage(m);
  }

  Mark beginMessage(uint32_t field) {
    tag(field, WireType::LengthDelimited);
    out_->push_back('\0');
    return out_->size() - 1;
  }
  void endMessage(Mark m) {
    const size_t len = out_->size() - (m + 1);
    const size_t n = varintSize(len);
    if (n > 1) out_->insert(m + 1, n - 1, '\0');
    uint64_t v = len;
    char* p = out_->data() + m;
    while (v >= 0x80) {
      *p++ = static_cast<char>(static_cast<uint8_t>(v) | 0x80);
      v >>= 7;
    }
    *p = static_cast<char>(v);
  }

 private:
  std::string* out_;
};

}  // namespace xstack::perfetto
