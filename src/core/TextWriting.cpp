#include "xstack/core/TextWriting.h"

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace xstack {
namespace {

// Length of the valid UTF-8 sequence starting at p (1..4), or 0 when the
// bytes at p start an invalid sequence; `bad` gets the length of the maximal
// invalid subpart to replace with one U+FFFD.
size_t utf8Length(const unsigned char* p, const unsigned char* end, size_t& bad) {
  unsigned char c = p[0];
  size_t need;
  unsigned char lo = 0x80, hi = 0xBF;
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF)
    need = 1;
  else if (c == 0xE0)
    need = 2, lo = 0xA0;
  else if (c >= 0xE1 && c <= 0xEC)
    need = 2;
  else if (c == 0xED)
    need = 2, hi = 0x9F;
  else if (c >= 0xEE && c <= 0xEF)
    need = 2;
  else if (c == 0xF0)
    need = 3, lo = 0x90;
  else if (c >= 0xF1 && c <= 0xF3)
    need = 3;
  else if (c == 0xF4)
    need = 3, hi = 0x8F;
  else {
    bad = 1;
    return 0;
  }
  size_t i = 1;
  for (; i <= need; ++i) {
    if (p + i >= end) break;
    unsigned char b = p[i];
    unsigned char l = i == 1 ? lo : 0x80, h = i == 1 ? hi : 0xBF;
    if (b < l || b > h) break;
  }
  if (i == need + 1) return need + 1;
  bad = i;  // lead byte plus the continuation bytes that were valid so far
  return 0;
}

constexpr char kHex[] = "0123456789abcdef";

// Bytes that are copied as they are: printable ASCII but '"' and '\\'.
struct PlainTable {
  bool plain[256] = {};
  constexpr PlainTable() {
    for (int c = 0x20; c < 0x80; ++c) plain[c] = c != '"' && c != '\\';
  }
};
constexpr PlainTable kPlain;

// True when one of the 8 bytes in x is not plain: below 0x20, 0x80 or above,
// '"' or '\\' (SWAR: a byte b has (b - k) & ~b & 0x80 set when b < k).
inline bool needsAttention(uint64_t x) {
  constexpr uint64_t kOnes = 0x0101010101010101ull, kHigh = 0x8080808080808080ull;
  auto hasZero = [](uint64_t v) { return (v - kOnes) & ~v & kHigh; };
  uint64_t below20 = (x - kOnes * 0x20) & ~x & kHigh;
  return ((x & kHigh) | below20 | hasZero(x ^ (kOnes * '"')) | hasZero(x ^ (kOnes * '\\'))) != 0;
}

}  // namespace

// Appends the UTF-8 sequence at p (a non-ASCII lead byte), or U+FFFD for its
// maximal invalid subpart (counted); returns the position after it.
static const unsigned char* appendUtf8Sequence(std::string& out, const unsigned char* p,
                                               const unsigned char* end, JsonTextStats& stats) {
  size_t bad = 0;
  const size_t n = utf8Length(p, end, bad);
  if (n) {
    out.append(reinterpret_cast<const char*>(p), n);
    return p + n;
  }
  ++stats.invalidUtf8;
  out += "\xEF\xBF\xBD";
  return p + bad;
}

void appendJsonString(std::string& out, std::string_view s, JsonTextStats& stats) {
  out.push_back('"');
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const auto* end = p + s.size();
  while (p < end) {
    const auto* run = p;
    // 8 bytes at a time while none needs attention, then byte by byte.
    while (end - p >= 8) {
      uint64_t x;
      std::memcpy(&x, p, 8);
      if (needsAttention(x)) break;
      p += 8;
    }
    while (p < end && kPlain.plain[*p]) ++p;
    out.append(reinterpret_cast<const char*>(run), static_cast<size_t>(p - run));
    if (p >= end) break;
    unsigned char c = *p;
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(static_cast<char>(c));
      ++p;
    } else if (c < 0x20) {
      ++stats.controlChars;
      switch (c) {
        case '\n':
          out += "\\n";
          break;
        case '\t':
          out += "\\t";
          break;
        case '\r':
          out += "\\r";
          break;
        case '\b':
          out += "\\b";
          break;
        case '\f':
          out += "\\f";
          break;
        default:
          out += "\\u00";
          out.push_back(kHex[c >> 4]);
          out.push_back(kHex[c & 15]);
      }
      ++p;
    } else {
      p = appendUtf8Sequence(out, p, end, stats);
    }
  }
  out.push_back('"');
}

void appendJsonString(std::string& out, std::string_view s) {
  JsonTextStats ignored;
  appendJsonString(out, s, ignored);
}

bool jsonPlain(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const auto* end = p + s.size();
  for (; end - p >= 8; p += 8) {
    uint64_t x;
    std::memcpy(&x, p, 8);
    if (needsAttention(x)) return false;
  }
  for (; p < end; ++p)
    if (!kPlain.plain[*p]) return false;
  return true;
}

void appendValidUtf8(std::string& out, std::string_view s, JsonTextStats& stats) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const auto* end = p + s.size();
  while (p < end) {
    const auto* run = p;
    while (p < end && *p < 0x80) ++p;
    out.append(reinterpret_cast<const char*>(run), static_cast<size_t>(p - run));
    if (p >= end) break;
    p = appendUtf8Sequence(out, p, end, stats);
  }
}

void appendVisibleText(std::string& out, std::string_view s, JsonTextStats& stats) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const auto* end = p + s.size();
  auto control = [&](unsigned c) {
    ++stats.controlChars;
    out += "\\u00";
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 15]);
  };
  while (p < end) {
    const auto* run = p;
    while (p < end && ((*p >= 0x20 && *p < 0x7f) || *p == '\t' || *p == '\n' || *p == '\r')) ++p;
    out.append(reinterpret_cast<const char*>(run), static_cast<size_t>(p - run));
    if (p >= end) break;
    if (*p < 0x80) {
      control(*p++);
    } else if (p[0] == 0xC2 && end - p >= 2 && p[1] >= 0x80 && p[1] <= 0x9F) {
      control(p[1]);  // a C1 control, valid UTF-8
      p += 2;
    } else {
      p = appendUtf8Sequence(out, p, end, stats);
    }
  }
}

void appendVisibleText(std::string& out, std::string_view s) {
  JsonTextStats ignored;
  appendVisibleText(out, s, ignored);
}

std::string visibleText(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  appendVisibleText(out, s);
  return out;
}

std::string htmlText(std::string_view s) {
  std::string o;
  o.reserve(s.size());
  for (char c : visibleText(s)) {
    switch (c) {
      case '<':
        o += "&lt;";
        break;
      case '>':
        o += "&gt;";
        break;
      case '&':
        o += "&amp;";
        break;
      case '"':
        o += "&quot;";
        break;
      default:
        o += c;
    }
  }
  return o;
}

char* writeUint(char* p, uint64_t v) {
  static constexpr char kPairs[] =
      "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
      "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
      "8081828384858687888990919293949596979899";
  char tmp[20];
  char* end = tmp + sizeof tmp;
  char* q = end;
  while (v >= 100) {
    const unsigned two = static_cast<unsigned>(v % 100) * 2;
    v /= 100;
    q -= 2;
    q[0] = kPairs[two];
    q[1] = kPairs[two + 1];
  }
  if (v >= 10) {
    q -= 2;
    q[0] = kPairs[v * 2];
    q[1] = kPairs[v * 2 + 1];
  } else {
    *--q = static_cast<char>('0' + v);
  }
  const size_t n = static_cast<size_t>(end - q);
  std::memcpy(p, q, n);
  return p + n;
}

void appendInt(std::string& out, int64_t v) {
  char buf[24];
  out.append(buf, writeInt(buf, v));
}

void appendUint(std::string& out, uint64_t v) {
  char buf[24];
  out.append(buf, writeUint(buf, v));
}

namespace {

// |v| * 1000 rounded to the nearest integer, ties to even, exactly (as
// printf rounds), for a finite |v| < 2^53; false for a larger one. |v| is
// m / 2^shift with m a 53-bit integer (read from the double's bits: no libm
// call), so |v| * 1000 = m * 1000 / 2^shift with m * 1000 < 2^63: integer
// arithmetic, no rounding on the way.
bool thousandthsOf(double v, uint64_t& q) {
  const uint64_t bits = std::bit_cast<uint64_t>(v) & ~(uint64_t{1} << 63);  // |v|
  const auto biased = static_cast<int>(bits >> 52);  // 0: zero or subnormal (< 2^-1022)
  if (biased >= 1023 + 53) return false;             // |v| >= 2^53 (or not finite)
  if (biased == 0) {
    q = 0;  // below 2^-1022: far below one half of a thousandth
    return true;
  }
  const uint64_t m = (bits & ((uint64_t{1} << 52) - 1)) | (uint64_t{1} << 52);
  const int shift = 1075 - biased;  // |v| = m / 2^shift, shift >= 0
  const unsigned __int128 p = static_cast<unsigned __int128>(m) * 1000;
  if (shift == 0) {
    q = static_cast<uint64_t>(p);
  } else if (shift >= 64) {
    q = 0;  // p < 2^63: below one half
  } else {
    const unsigned __int128 whole = p >> shift;
    const unsigned __int128 rest = p - (whole << shift);
    const unsigned __int128 half = static_cast<unsigned __int128>(1) << (shift - 1);
    q = static_cast<uint64_t>(whole) + ((rest > half || (rest == half && (whole & 1))) ? 1 : 0);
  }
  return true;
}

}  // namespace

char* writeThreeDecimals(char* p, double v) {
  uint64_t q = 0;
  if (!thousandthsOf(v, q)) return nullptr;  // also not finite
  if (std::signbit(v)) *p++ = '-';           // as printf: "-0.000" for -0.0001
  p = writeUint(p, q / 1000);
  const auto f = static_cast<unsigned>(q % 1000);
  *p++ = '.';
  *p++ = static_cast<char>('0' + f / 100);
  *p++ = static_cast<char>('0' + f / 10 % 10);
  *p++ = static_cast<char>('0' + f % 10);
  return p;
}

void appendThreeDecimals(std::string& out, double v) {
  if (!std::isfinite(v)) v = 0.0;
  char text[32];
  if (char* end = writeThreeDecimals(text, v)) {
    out.append(text, end);
    return;
  }
  // to_chars with a precision prints what printf's "%.3f" prints (the C
  // locale); 400 bytes hold any finite double so.
  char wide[400];
  const auto r = std::to_chars(wide, wide + sizeof wide, v, std::chars_format::fixed, 3);
  out.append(wide, r.ptr);
}

std::string threeDecimalsText(double v) {
  std::string out;
  appendThreeDecimals(out, v);
  return out;
}

void appendDouble(std::string& out, double v) {
  if (!std::isfinite(v)) {
    out.push_back('0');
    return;
  }
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

}  // namespace xstack
