#include <gtest/gtest.h>

#include <string>

#include "xstack/core/TerminalText.h"

namespace xstack {
namespace {

// Nothing a terminal acts on survives; what is printable stays.
TEST(TerminalText, ControlSequencesAndForgedLinesBecomeQuestionMarks) {
  EXPECT_EQ(terminalSafe("profile_rank.3"), "profile_rank.3");
  EXPECT_EQ(terminalSafe("a\x1b[2Jb"), "a?[2Jb");               // CSI
  EXPECT_EQ(terminalSafe("\x1b]0;title\x07x"), "?]0;title?x");  // OSC ... BEL
  EXPECT_EQ(terminalSafe("f\nxstack: wrote 0 trace files"), "f?xstack: wrote 0 trace files");
  EXPECT_EQ(terminalSafe("\r\t\x7f"), "???");
  EXPECT_EQ(terminalSafe(std::string("a\0b", 3)), "a?b");
  EXPECT_EQ(terminalSafe("\x9b"
                         "31m"),
            "?31m");  // 8-bit CSI byte
  EXPECT_EQ(terminalSafe("\xc2\x9b"
                         "31m"),
            "??31m");                         // C1 CSI as UTF-8
  EXPECT_EQ(terminalSafe("\xc2\x85"), "??");  // NEL
}

TEST(TerminalText, ValidUtf8IsKept) {
  EXPECT_EQ(terminalSafe("r\xc3\xa9sum\xc3\xa9"), "r\xc3\xa9sum\xc3\xa9");          // é
  EXPECT_EQ(terminalSafe("\xe8\xae\xad\xe7\xbb\x83"), "\xe8\xae\xad\xe7\xbb\x83");  // 训练
  EXPECT_EQ(terminalSafe("\xf0\x9f\x98\x80"), "\xf0\x9f\x98\x80");
  EXPECT_EQ(terminalSafe("\xc2\xa0"), "\xc2\xa0");  // U+00A0, the first after C1
}

TEST(TerminalText, InvalidUtf8IsReplacedBytewise) {
  EXPECT_EQ(terminalSafe("\xff\xfe"), "??");
  EXPECT_EQ(terminalSafe("\xc3"), "?");            // cut
  EXPECT_EQ(terminalSafe("\xc0\xaf"), "??");       // overlong '/'
  EXPECT_EQ(terminalSafe("\xed\xa0\x80"), "???");  // a surrogate
  EXPECT_EQ(terminalSafe("\xe8\xae"
                         "a"),
            "??a");  // a cut sequence, then ASCII
}

TEST(TerminalText, LinesKeepTheirNewlines) {
  EXPECT_EQ(terminalSafeLines("unknown command 'a\x1b[2J'\nusage: x\n"),
            "unknown command 'a?[2J'\nusage: x\n");
  EXPECT_EQ(terminalSafeLines(""), "");
  EXPECT_EQ(terminalSafeLines("\n\r\n"), "\n?\n");
}

TEST(TerminalText, ExcerptQuotesAndCuts) {
  EXPECT_EQ(terminalExcerpt("GPU\x1b[2J"), "\"GPU?[2J\"");
  EXPECT_EQ(terminalExcerpt(std::string(50, 'x')), "\"" + std::string(40, 'x') + "...\"");
  EXPECT_EQ(terminalExcerpt("abc\xc3\xa9", 4), "\"abc?...\"");  // a sequence cut by the limit
}

}  // namespace
}  // namespace xstack
