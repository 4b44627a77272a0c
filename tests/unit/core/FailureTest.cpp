// The one error value (core/Failure.h): the named builders set the kind and
// the facts they name and nothing else; Error (core/Status.h) is the same type.
#include <gtest/gtest.h>

#include <type_traits>

#include "xstack/core/Failure.h"
#include "xstack/core/Status.h"

namespace xstack {
namespace {

static_assert(std::is_same_v<Error, Failure>);
static_assert(!std::is_aggregate_v<Failure>);  // no positional Failure{kind, file, rank, ...}

TEST(Failure, BuildersSetTheKindAndTheNamedFacts) {
  const Failure u = Failure::usage("give --out");
  EXPECT_EQ(u.kind, FailureKind::Usage);
  EXPECT_EQ(u.message, "give --out");
  EXPECT_EQ(u.file, "");
  EXPECT_FALSE(u.offset.has_value());
  EXPECT_EQ(u.rank, -1);
  EXPECT_EQ(u.host, "");
  EXPECT_EQ(exitCodeFor(u.kind), 2);

  const Failure o = Failure::outputDir("/out", "not writable").onRank(0, {});
  EXPECT_EQ(o.kind, FailureKind::OutputDir);
  EXPECT_EQ(o.file, "/out");
  EXPECT_EQ(o.rank, 0);
  EXPECT_EQ(exitCodeFor(o.kind), 1);

  const Failure r = Failure::read("cut short").atFile("p.3").atOffset(120).onRank(2, "node7");
  EXPECT_EQ(r.kind, FailureKind::Read);
  EXPECT_EQ(r.file, "p.3");
  EXPECT_EQ(r.offset, 120u);
  EXPECT_EQ(r.rank, 2);
  EXPECT_EQ(r.host, "node7");
  EXPECT_EQ(r.message, "cut short");

  EXPECT_EQ(Failure::conflict("x").kind, FailureKind::Conflict);
  EXPECT_EQ(Failure::noProfiles("/d", "x").file, "/d");
  EXPECT_EQ(Failure::write("x").kind, FailureKind::Write);
  EXPECT_EQ(Failure::commit("x").kind, FailureKind::Commit);
  EXPECT_STREQ(failureKindName(FailureKind::NoProfiles), "no_profiles");
}

TEST(Failure, AReaderErrorIsTheSameValue) {
  Error e{"byte 12 of 30: cut short"};
  EXPECT_EQ(e.kind, FailureKind::Read);
  e.atFile("p.0").atOffset(12);
  const Status s = e;
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().file, "p.0");
  EXPECT_EQ(s.error().offset, 12u);
  const Expected<int> x = Failure::usage("bad");
  ASSERT_FALSE(x.ok());
  EXPECT_EQ(x.error().kind, FailureKind::Usage);
}

}  // namespace
}  // namespace xstack
