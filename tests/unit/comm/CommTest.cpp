// SerialComm: the one-rank communicator (the serial build's only one).
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "xstack/comm/Comm.h"

namespace xstack {
namespace {

TEST(SerialComm, OneRankCollectives) {
  SerialComm c;
  EXPECT_EQ(c.rank(), 0);
  EXPECT_EQ(c.size(), 1);
  EXPECT_EQ(c.allgather("x"), std::vector<std::string>{"x"});
  EXPECT_TRUE(c.allTrue(true));
  EXPECT_FALSE(c.allTrue(false));
  c.setChunkBytes(0);
  EXPECT_EQ(c.chunkBytes(), 1u);
  EXPECT_THROW(c.send(0, 1, 0, "x"), std::logic_error);
  EXPECT_THROW(c.recv(0, 1), std::logic_error);
  EXPECT_FALSE(c.host().empty());
}

}  // namespace
}  // namespace xstack
