// JSON text pieces: any input bytes must give valid JSON.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "xstack/core/TextWriting.h"

namespace xstack {
namespace {

const std::string kFFFD = "\xEF\xBF\xBD";

std::string quoted(std::string_view s, JsonTextStats* stats = nullptr) {
  std::string out;
  JsonTextStats local;
  appendJsonString(out, s, stats ? *stats : local);
  return out;
}

// The string value that a JSON parser reads back from our text.
std::string readBack(const std::string& json) {
  return nlohmann::json::parse(json).get<std::string>();
}

TEST(JsonText, PlainTextIsQuoted) {
  EXPECT_EQ(quoted(""), "\"\"");
  EXPECT_EQ(quoted("matmul_v2"), "\"matmul_v2\"");
  EXPECT_EQ(quoted("a b/c<d>&'"), "\"a b/c<d>&'\"");
}

TEST(JsonText, QuotesAndBackslashesAreEscaped) {
  JsonTextStats st;
  EXPECT_EQ(quoted("say \"hi\"", &st), R"("say \"hi\"")");
  EXPECT_EQ(quoted("C:\\path\\", &st), R"("C:\\path\\")");
  EXPECT_EQ(quoted("\\\"", &st), R"("\\\"")");
  EXPECT_EQ(st.controlChars, 0u);
  EXPECT_EQ(st.invalidUtf8, 0u);
  EXPECT_EQ(readBack(quoted("say \"hi\" \\ ")), "say \"hi\" \\ ");
}

TEST(JsonText, EveryControlCharacterIsEscaped) {
  const char* expected[32] = {
      "\\u0000", "\\u0001", "\\u0002", "\\u0003", "\\u0004", "\\u0005", "\\u0006", "\\u0007",
      "\\b",     "\\t",     "\\n",     "\\u000b", "\\f",     "\\r",     "\\u000e", "\\u000f",
      "\\u0010", "\\u0011", "\\u0012", "\\u0013", "\\u0014", "\\u0015", "\\u0016", "\\u0017",
      "\\u0018", "\\u0019", "\\u001a", "\\u001b", "\\u001c", "\\u001d", "\\u001e", "\\u001f"};
  std::string all;
  for (int c = 0; c < 32; ++c) {
    std::string s(1, static_cast<char>(c));
    JsonTextStats st;
    std::string out = quoted(s, &st);
    EXPECT_EQ(out, "\"" + std::string(expected[c]) + "\"") << c;
    EXPECT_EQ(st.controlChars, 1u) << c;
    EXPECT_EQ(readBack(out), s) << c;
    all += s;
  }
  JsonTextStats st;
  EXPECT_EQ(readBack(quoted("x" + all + "y", &st)), "x" + all + "y");
  EXPECT_EQ(st.controlChars, 32u);
}

TEST(JsonText, DelPassesUnescaped) {
  JsonTextStats st;
  EXPECT_EQ(quoted("a\x7f"
                   "b",
                   &st),
            "\"a\x7f"
            "b\"");
  EXPECT_EQ(st.controlChars, 0u);
  EXPECT_EQ(st.invalidUtf8, 0u);
  EXPECT_EQ(readBack(quoted("\x7f")), "\x7f");
}

TEST(JsonText, ValidMultiByteUtf8PassesUnchanged) {
  for (const char* s : {"\xC2\x80",                   // U+0080
                        "\xC3\xA9t\xC3\xA9",          // été
                        "\xDF\xBF",                   // U+07FF
                        "\xE0\xA0\x80",               // U+0800
                        "\xE2\x82\xAC",               // €
                        "\xED\x9F\xBF",               // U+D7FF, just below the surrogates
                        "\xEE\x80\x80",               // U+E000, just above
                        "\xEF\xBF\xBD",               // U+FFFD itself
                        "\xEF\xBF\xBF",               // U+FFFF
                        "\xF0\x90\x80\x80",           // U+10000
                        "\xF0\x9F\x98\x80",           // 😀
                        "\xF4\x8F\xBF\xBF",           // U+10FFFF
                        "\xE6\x97\xA5\xE6\x9C\xAC"})  // 日本
  {
    JsonTextStats st;
    std::string out = quoted(s, &st);
    EXPECT_EQ(out, "\"" + std::string(s) + "\"");
    EXPECT_EQ(st.invalidUtf8, 0u);
    EXPECT_EQ(readBack(out), s);
  }
}

struct Invalid {
  std::string in;
  std::string out;  // the string value, with U+FFFD for each maximal invalid subpart
  uint64_t replaced;
};

TEST(JsonText, InvalidUtf8BecomesReplacementCharacters) {
  const std::string R = kFFFD;
  const Invalid cases[] = {
      {"\x80", R, 1},  // lone continuation
      {"a\xBF"
       "b",
       "a" + R + "b", 1},                      // lone continuation inside
      {"\xC0\x80", R + R, 2},                  // overlong NUL
      {"\xC1\xBF", R + R, 2},                  // overlong
      {"\xE0\x80\x80", R + R + R, 3},          // overlong 3-byte
      {"\xF0\x80\x80\x80", R + R + R + R, 4},  // overlong 4-byte
      {"\xED\xA0\x80", R + R + R, 3},          // surrogate D800
      {"\xED\xBF\xBF", R + R + R, 3},          // surrogate DFFF
      {"\xF4\x90\x80\x80", R + R + R + R, 4},  // past U+10FFFF
      {"\xF5\x80\x80\x80", R + R + R + R, 4},  // F5 never valid
      {"\xFF", R, 1},
      {"\xFE\xFF", R + R, 2},
      {"\xE2\x82", R, 1},                               // cut sequence at the end
      {"\xF0\x9F\x98", R, 1},                           // cut 4-byte sequence at the end
      {"\xC3", R, 1},                                   // cut 2-byte sequence
      {"\xE2\x82x", R + "x", 1},                        // cut, then ASCII
      {"\xE2\x82\xE2\x82\xAC", R + "\xE2\x82\xAC", 1},  // cut, then a valid €
      {"\xC3\"", R + "\"", 1},                          // cut before a quote: the quote survives
      {"\xC3\n", R + "\n", 1},                          // cut before a control char
  };
  for (const Invalid& c : cases) {
    JsonTextStats st;
    std::string out = quoted(c.in, &st);
    std::string back;
    ASSERT_NO_THROW(back = readBack(out)) << out;
    EXPECT_EQ(back, c.out) << out;
    EXPECT_EQ(st.invalidUtf8, c.replaced) << out;
  }
}

TEST(JsonText, StatsAccumulate) {
  JsonTextStats st;
  std::string out;
  appendJsonString(out, "\x80\x01", st);
  appendJsonString(out, "\xC0\t", st);
  EXPECT_EQ(st.invalidUtf8, 2u);
  EXPECT_EQ(st.controlChars, 2u);
  std::string plain;
  appendJsonString(plain, "\x80");  // the overload without stats
  EXPECT_EQ(plain, "\"" + kFFFD + "\"");
}

bool validUtf8(const std::string& s) {
  try {
    (void)nlohmann::json(s).dump();  // throws on invalid UTF-8
    return true;
  } catch (const nlohmann::json::exception&) {
    return false;
  }
}

TEST(JsonText, RandomBytesAlwaysGiveValidJson) {
  std::mt19937_64 rng(2024);
  // Biased towards the interesting bytes: controls, quotes, UTF-8 lead and continuation bytes.
  const unsigned char pool[] = {0x00, 0x01, 0x1f, 0x20, '"',  '\\', 'a',  0x7f,
                                0x80, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xed,
                                0xef, 0xf0, 0xf4, 0xf5, 0xff, 0xa0, 0x90, 0x8f};
  uint64_t replaced = 0;
  for (int i = 0; i < 10000; ++i) {
    std::string s(rng() % 24, '\0');
    for (char& c : s)
      c = static_cast<char>(rng() % 2 ? pool[rng() % sizeof pool]
                                      : static_cast<unsigned char>(rng()));
    JsonTextStats st;
    std::string out = quoted(s, &st);
    replaced += st.invalidUtf8;
    std::string back;
    ASSERT_NO_THROW(back = readBack(out)) << i;
    ASSERT_TRUE(validUtf8(back));
    if (st.invalidUtf8 == 0) {
      EXPECT_EQ(back, s);  // nothing lost when nothing was invalid
    }
    // Inside an array and an object too, as the trace writer uses them.
    ASSERT_TRUE(nlohmann::json::accept("{" + out + ":[" + out + "]}"));
  }
  EXPECT_GT(replaced, 0u);
}

TEST(JsonText, RandomValidUtf8RoundTrips) {
  std::mt19937_64 rng(99);
  for (int i = 0; i < 2000; ++i) {
    nlohmann::json::string_t s;
    int n = static_cast<int>(rng() % 10);
    for (int k = 0; k < n; ++k) {
      uint32_t cp;
      do cp = static_cast<uint32_t>(rng() % 0x110000);
      while (cp >= 0xD800 && cp <= 0xDFFF);
      if (cp < 0x80) {
        s.push_back(static_cast<char>(cp));
      } else if (cp < 0x800) {
        s.push_back(static_cast<char>(0xC0 | (cp >> 6)));
        s.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
      } else if (cp < 0x10000) {
        s.push_back(static_cast<char>(0xE0 | (cp >> 12)));
        s.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        s.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
      } else {
        s.push_back(static_cast<char>(0xF0 | (cp >> 18)));
        s.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
        s.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        s.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
      }
    }
    JsonTextStats st;
    std::string out = quoted(s, &st);
    EXPECT_EQ(st.invalidUtf8, 0u);
    EXPECT_EQ(readBack(out), s);
  }
}

TEST(JsonText, Integers) {
  std::string s;
  appendInt(s, 0);
  s += ' ';
  appendInt(s, -1);
  s += ' ';
  appendInt(s, INT64_MIN);
  s += ' ';
  appendInt(s, INT64_MAX);
  s += ' ';
  appendUint(s, UINT64_MAX);
  EXPECT_EQ(s, "0 -1 -9223372036854775808 9223372036854775807 18446744073709551615");
}

std::string dbl(double v) {
  std::string s;
  appendDouble(s, v);
  return s;
}

TEST(JsonText, DoublesAreShortestAndReadBackExactly) {
  EXPECT_EQ(dbl(0.57), "0.57");
  EXPECT_EQ(dbl(0.1), "0.1");
  EXPECT_EQ(dbl(0), "0");
  EXPECT_EQ(dbl(1), "1");
  EXPECT_EQ(dbl(100), "100");
  EXPECT_EQ(dbl(0.5), "0.5");
  EXPECT_EQ(dbl(-2.25), "-2.25");
  EXPECT_EQ(dbl(1.0 / 3), "0.3333333333333333");
  for (double v :
       {0.57, 1e-5, 1e300, -1e-300, 5e-324, 1.7976931348623157e308, 12345678.9, 0.1 + 0.2}) {
    std::string s = dbl(v);
    auto j = nlohmann::json::parse(s);
    EXPECT_EQ(j.get<double>(), v) << s;
  }
}

// jsonPlain(s) means appendJsonString writes s as it is, and for ASCII it
// says whether it does, on random strings of every length to 40 (bytes of
// every kind, mostly plain ones). Valid UTF-8 beyond ASCII is written as it
// is too but is not jsonPlain (its callers take the general path).
TEST(JsonText, PlainIsWhatAppendJsonStringLeavesAsItIs) {
  std::mt19937_64 rng(5);
  for (int i = 0; i < 100000; ++i) {
    std::string s(rng() % 41, 'a');
    for (char& c : s) {
      const uint64_t r = rng();
      c = static_cast<char>(r % 50 ? 0x20 + (r >> 8) % 0x60 : (r >> 8) % 256);
    }
    std::string written;
    appendJsonString(written, s);
    const bool asIs = written == "\"" + s + "\"";
    const bool ascii = std::all_of(s.begin(), s.end(), [](char c) { return c >= 0; });
    if (jsonPlain(s)) {
      ASSERT_TRUE(asIs) << i;
    }
    if (ascii) {
      ASSERT_EQ(jsonPlain(s), asIs) << i;
    }
  }
}

// threeDecimalsText prints what printf's "%.3f" prints, for any finite
// double: ties of the binary value, negatives, tiny and huge ones.
TEST(JsonText, ThreeDecimalsAreWhatPrintfPrints) {
  std::mt19937_64 rng(7);
  std::vector<double> values = {0.0,
                                -0.0,
                                0.0005,
                                0.0015,
                                1.0005,
                                2.5e-4,
                                -0.0004,
                                123.4565,
                                1e300,
                                -1e300,
                                std::numeric_limits<double>::max(),
                                std::numeric_limits<double>::denorm_min()};
  for (int i = 0; i < 20000; ++i) {
    values.push_back(static_cast<double>(rng() % 100000000) / 1000.0 + 0.0005);
    values.push_back(
        std::ldexp(static_cast<double>(rng() >> 11), static_cast<int>(rng() % 80) - 60));
    values.push_back(-static_cast<double>(rng() % 1000000) / 7.0);
    // Exact binary ties at the third decimal (k / 2^n: x.xxx5 and finer),
    // ties to even both ways, and any bit pattern at all.
    values.push_back(
        std::ldexp(static_cast<double>(rng() % 100000), -static_cast<int>(rng() % 14)));
    uint64_t bits = rng();
    double any = 0;
    std::memcpy(&any, &bits, sizeof any);
    if (std::isfinite(any)) values.push_back(any);
  }
  for (double edge : {9007199254740992.0, 9007199254740991.0, 9007199254740993.0,
                      4503599627370495.5, 0.0625, 0.1875, 0.0005, 2.0625, -2.0625, 1e-320})
    for (double v : {edge, std::nextafter(edge, 0.0), std::nextafter(edge, 1e308)})
      values.push_back(v);
  for (double v : values) {
    char text[400];
    std::snprintf(text, sizeof text, "%.3f", v);
    ASSERT_EQ(threeDecimalsText(v), text) << v;
  }
}

TEST(JsonText, NonFiniteDoublesAreZero) {
  EXPECT_EQ(dbl(std::numeric_limits<double>::quiet_NaN()), "0");
  EXPECT_EQ(dbl(std::numeric_limits<double>::infinity()), "0");
  EXPECT_EQ(dbl(-std::numeric_limits<double>::infinity()), "0");
}

}  // namespace

// The 8-bytes-at-a-time scan must stop for every byte that needs attention,
// wherever it sits in a long plain run (each of the 8 lanes, and the tail).
TEST(JsonText, SpecialByteAtEveryOffsetOfALongPlainRun) {
  const std::string specials[] = {"\"",       "\\",  std::string(1, '\0'), "\x1f", "\x7f",
                                  "\xc3\xa9", "\xff"};
  for (const std::string& sp : specials)
    for (size_t at = 0; at < 40; ++at) {
      std::string in = std::string(at, 'a') + sp + std::string(40 - at, 'b');
      std::string out;
      appendJsonString(out, in);
      std::string want = "\"" + std::string(at, 'a');
      if (sp == "\"" || sp == "\\")
        want += "\\" + sp;
      else if (sp.size() == 1 && static_cast<unsigned char>(sp[0]) < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned char>(sp[0]));
        want += buf;
      } else if (sp == "\xff")
        want += "\xEF\xBF\xBD";
      else
        want += sp;
      want += std::string(40 - at, 'b') + "\"";
      EXPECT_EQ(out, want) << "special " << testing::PrintToString(sp) << " at " << at;
    }
}

// The text outputs' rule (CSV fields, report.html, diff.html).
TEST(VisibleText, ControlsBecomeEscapeTextButTabCrLf) {
  JsonTextStats st;
  std::string out;
  appendVisibleText(out, std::string("a\0b\x1b[2J\x07\x7f\t\r\nz", 13), st);
  EXPECT_EQ(out, "a\\u0000b\\u001b[2J\\u0007\\u007f\t\r\nz");
  EXPECT_EQ(st.controlChars, 4u);
  EXPECT_EQ(st.invalidUtf8, 0u);
  // C1 controls (valid UTF-8 U+0080..U+009F) too; U+00A0 and above stay.
  EXPECT_EQ(visibleText("x\xc2\x9b"
                        "31m\xc2\x80\xc2\xa0\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"),
            "x\\u009b31m\\u0080\xc2\xa0\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
}

TEST(VisibleText, InvalidUtf8BecomesReplacementCharacters) {
  JsonTextStats st;
  std::string out;
  // Maximal subparts, as appendValidUtf8: \xff, \xc3 before '(', \xed \xa0 \x80 (a surrogate:
  // three), a cut 3-byte sequence at the end (one).
  appendVisibleText(out, "a\xff\xc3(\xed\xa0\x80z\xe2\x82", st);
  EXPECT_EQ(out, "a" + kFFFD + kFFFD + "(" + kFFFD + kFFFD + kFFFD + "z" + kFFFD);
  EXPECT_EQ(st.invalidUtf8, 6u);
  std::string same;
  JsonTextStats st2;
  appendValidUtf8(same, "a\xff\xc3(\xed\xa0\x80z\xe2\x82", st2);
  EXPECT_EQ(out, same);
}

TEST(VisibleText, RandomBytesGiveValidUtf8WithoutControls) {
  std::mt19937 rng(11);
  for (int round = 0; round < 2000; ++round) {
    std::string in(rng() % 40, '\0');
    for (char& c : in) c = static_cast<char>(rng() % 256);
    const std::string out = visibleText(in);
    // Valid UTF-8 (nlohmann's strict decoder accepts it as a JSON string) ...
    std::string json;
    appendJsonString(json, out);
    EXPECT_EQ(readBack(json), out);
    // ... with no control byte but TAB, LF, CR, and no C1 control.
    for (size_t i = 0; i < out.size(); ++i) {
      const auto c = static_cast<unsigned char>(out[i]);
      EXPECT_FALSE((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f) << i;
      if (c == 0xc2 && i + 1 < out.size()) {
        EXPECT_FALSE(static_cast<unsigned char>(out[i + 1]) < 0xa0) << i;
      }
    }
    // Text already clean is a fixed point.
    EXPECT_EQ(visibleText(out), out);
  }
}

TEST(VisibleText, HtmlTextEscapesAfterTheRule) {
  EXPECT_EQ(htmlText("<b a=\"1\">&\x1b[0m\xff"),
            "&lt;b a=&quot;1&quot;&gt;&amp;\\u001b[0m" + kFFFD);
}

}  // namespace xstack
