#include "xstack/wire/Wire.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace xstack::wire {
namespace {

TEST(WireTest, RoundTripsEveryType) {
  Writer w;
  w.u64(0);
  w.u64(std::numeric_limits<uint64_t>::max());
  w.i64(std::numeric_limits<int64_t>::min());
  w.i64(-1);
  w.i64(std::numeric_limits<int64_t>::max());
  w.f64(-2.5);
  w.boolean(true);
  w.str(std::string("a\0b", 3));
  w.strings({"x", "", "yz"});
  const std::string msg = w.take();
  Reader r(msg, "test");
  EXPECT_EQ(r.u64(), 0u);
  EXPECT_EQ(r.u64(), std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(r.i64(), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(r.i64(), -1);
  EXPECT_EQ(r.i64(), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(r.f64(), -2.5);
  EXPECT_TRUE(r.boolean());
  EXPECT_EQ(r.str(), std::string("a\0b", 3));
  EXPECT_EQ(r.strings(), (std::vector<std::string>{"x", "", "yz"}));
  EXPECT_TRUE(r.finish().ok());
}

TEST(WireTest, ShortMessageFailsWithOffsetAndName) {
  Writer w;
  w.str("hello");
  std::string msg = w.take();
  msg.resize(msg.size() - 2);
  Reader r(msg, "rank 3's table");
  EXPECT_EQ(r.str(), "");
  EXPECT_FALSE(r.ok());
  Status st = r.finish();
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("rank 3's table"), std::string::npos);
  EXPECT_NE(st.error().message.find("cut short"), std::string::npos);
  EXPECT_EQ(st.error().offset, 2u);
}

TEST(WireTest, LeftOverBytesAndWrongVersionFail) {
  Writer w;
  w.u64(5);
  w.u64(6);
  std::string msg = w.take();
  Reader r(msg);
  EXPECT_EQ(r.u64(), 5u);
  EXPECT_FALSE(r.finish().ok());
  msg[0] = static_cast<char>(kWireVersion + 1);
  Reader v(msg);
  EXPECT_EQ(v.u64(), 0u);
  ASSERT_FALSE(v.finish().ok());
  EXPECT_NE(v.finish().error().message.find("wire version"), std::string::npos);
  EXPECT_FALSE(Reader("").finish().ok());
}

TEST(WireTest, HugeCountIsRefusedNotAllocated) {
  Writer w;
  w.u64(uint64_t{1} << 60);  // a count with nothing after it
  const std::string msg = w.take();
  Reader r(msg);
  std::vector<std::string> out;
  r.list(out, [](Reader& x) { return x.str(); });
  EXPECT_TRUE(out.empty());
  EXPECT_FALSE(r.ok());
}

TEST(WireTest, OverlongVarintFails) {
  std::string msg(1, static_cast<char>(kWireVersion));
  msg.append(11, static_cast<char>(0xff));
  Reader r(msg);
  r.u64();
  EXPECT_FALSE(r.ok());
}

TEST(WireTest, BadFlagFails) {
  std::string msg(1, static_cast<char>(kWireVersion));
  msg.push_back(7);
  Reader r(msg);
  r.boolean();
  EXPECT_FALSE(r.ok());
}

}  // namespace
}  // namespace xstack::wire
