// Who reads what (docs/FORMAT.md section 5): every distinct file exactly once, by a
// rank that can see it, balanced by bytes, the same plan on every rank.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "xstack/cmd/report/PlanExchange.h"
#include "xstack/plan/Plan.h"

namespace xstack {
namespace {

InputFile file(InputKind kind, int64_t id, const std::string& path, uint64_t bytes,
               int64_t gpu = 0) {
  InputFile f;
  f.kind = kind;
  f.id = id;
  f.gpu = gpu;
  f.path = path;
  f.bytes = bytes;
  return f;
}
InputFile prof(int64_t rank, const std::string& path, uint64_t bytes) {
  return file(InputKind::Profile, rank, path, bytes);
}

RankListing listing(int rank, const std::string& host, std::vector<InputFile> files) {
  RankListing l;
  l.rank = rank;
  l.host = host;
  l.listing.files = std::move(files);
  l.listing.profileDirFound = true;
  return l;
}

std::map<std::string, int> readers(const Plan& p) {
  std::map<std::string, int> m;
  for (const auto& f : p.files) m[f.file.path] = f.reader;
  return m;
}

TEST(Plan, FileSeenByThreeRanksIsReadOnce) {
  std::vector<RankListing> ls;
  for (int r = 0; r < 3; ++r)
    ls.push_back(listing(r, "node1", {prof(0, "/shared/profile/p.0", 1000)}));
  Plan p = makePlan(ls);
  EXPECT_TRUE(p.conflicts.empty());
  ASSERT_EQ(p.files.size(), 1u);
  EXPECT_EQ(p.files[0].reader, 0);  // ties go to the lower rank
  EXPECT_EQ(p.files[0].readerHost, "node1");
  EXPECT_EQ(p.files[0].file.path, "/shared/profile/p.0");
  EXPECT_TRUE(p.anyProfileDir);
}

TEST(Plan, SharedFileSystemIsBalancedByBytes) {
  // Every rank sees every file: largest first, each to the least-loaded rank.
  std::vector<InputFile> all = {prof(0, "/s/p.0", 100), prof(1, "/s/p.1", 60),
                                prof(2, "/s/p.2", 50), prof(3, "/s/p.3", 40),
                                file(InputKind::Dcgm, 0, "/s/d.0", 30)};
  std::vector<RankListing> ls = {listing(0, "a", all), listing(1, "b", all)};
  Plan p = makePlan(ls);
  auto r = readers(p);
  EXPECT_EQ(r["/s/p.0"], 0);  // 100 -> r0 (100, 0)
  EXPECT_EQ(r["/s/p.1"], 1);  // 60 -> r1 (100, 60)
  EXPECT_EQ(r["/s/p.2"], 1);  // 50 -> r1 (100, 110)
  EXPECT_EQ(r["/s/p.3"], 0);  // 40 -> r0 (140, 110)
  EXPECT_EQ(r["/s/d.0"], 1);  // 30 -> r1 (140, 140)
  uint64_t load[2] = {0, 0};
  for (const auto& f : p.files) load[f.reader] += f.file.bytes;
  EXPECT_EQ(load[0], 140u);
  EXPECT_EQ(load[1], 140u);
}

TEST(Plan, ManyEqualFilesAreSpreadEvenly) {
  std::vector<InputFile> all;
  for (int i = 0; i < 40; ++i) all.push_back(prof(i, "/s/p." + std::to_string(i), 10));
  std::vector<RankListing> ls;
  for (int r = 0; r < 4; ++r) ls.push_back(listing(r, "h" + std::to_string(r), all));
  Plan p = makePlan(ls);
  std::map<int, int> perRank;
  for (const auto& f : p.files) perRank[f.reader]++;
  EXPECT_EQ(perRank, (std::map<int, int>{{0, 10}, {1, 10}, {2, 10}, {3, 10}}));
}

TEST(Plan, NodeLocalFilesGoOnlyToARankThatSeesThem) {
  // Two nodes with two ranks each; each node sees only its own profiles.
  std::vector<InputFile> n1 = {prof(0, "/local/p.0", 500), prof(1, "/local/p.1", 400),
                               prof(2, "/local/p.2", 300)};
  std::vector<InputFile> n2 = {prof(3, "/local/p.3", 10),
                               file(InputKind::Net, 1, "/local/net.1", 5)};
  std::vector<RankListing> ls = {listing(0, "n1", n1), listing(1, "n1", n1), listing(2, "n2", n2),
                                 listing(3, "n2", n2)};
  Plan p = makePlan(ls);
  ASSERT_TRUE(p.conflicts.empty());
  ASSERT_EQ(p.files.size(), 5u);
  for (const auto& f : p.files) {
    if (f.file.id <= 2 && f.file.kind == InputKind::Profile) {
      EXPECT_TRUE(f.reader == 0 || f.reader == 1) << f.file.path;
      EXPECT_EQ(f.readerHost, "n1");
    } else {
      EXPECT_TRUE(f.reader == 2 || f.reader == 3) << f.file.path;
      EXPECT_EQ(f.readerHost, "n2");
    }
  }
  auto r = readers(p);
  EXPECT_EQ(r["/local/p.0"], 0);
  EXPECT_EQ(r["/local/p.1"], 1);
  EXPECT_EQ(r["/local/p.2"], 1);
  EXPECT_EQ(r["/local/p.3"], 2);
  EXPECT_EQ(r["/local/net.1"], 3);
}

TEST(Plan, MixOfSharedAndLocal) {
  // A shared file seen by all, a big local file on rank 1: the shared one goes elsewhere.
  std::vector<RankListing> ls = {
      listing(0, "a", {prof(0, "/shared/p.0", 50)}),
      listing(1, "b", {prof(0, "/shared/p.0", 50), prof(1, "/local/p.1", 1000)}),
  };
  Plan p = makePlan(ls);
  auto r = readers(p);
  EXPECT_EQ(r["/local/p.1"], 1);
  EXPECT_EQ(r["/shared/p.0"], 0);
}

InputFile sampled(InputFile f, uint64_t sample) {
  f.sample = sample;
  return f;
}

// One path and size on two hosts with different contents is
// no shared file: a conflict naming both hosts, whatever the placement.
TEST(Plan, OnePathAndSizeWithDifferentContentsOnTwoHostsIsAConflictNamingBoth) {
  for (int np : {2, 3}) {
    std::vector<RankListing> ls = {
        listing(0, "hostA", {sampled(prof(0, "p/profile_rank.0", 10), 7)}),
        listing(1, "hostB", {sampled(prof(0, "p/profile_rank.0", 10), 9)})};
    if (np == 3) ls.push_back(listing(2, "hostB", {sampled(prof(0, "p/profile_rank.0", 10), 9)}));
    Plan p = makePlan(ls);
    ASSERT_EQ(p.conflicts.size(), 1u) << np;
    EXPECT_EQ(p.conflicts[0],
              "different contents under one path claim profile rank 0: p/profile_rank.0 (10 bytes, "
              "on hostA); p/profile_rank.0 (10 bytes, on hostB)");
    EXPECT_TRUE(p.files.empty());
  }
  // The same contents on both hosts: one file, read once.
  Plan same = makePlan({listing(0, "hostA", {sampled(prof(0, "p/profile_rank.0", 10), 7)}),
                        listing(1, "hostB", {sampled(prof(0, "p/profile_rank.0", 10), 7)})});
  EXPECT_TRUE(same.conflicts.empty());
  ASSERT_EQ(same.files.size(), 1u);
  EXPECT_EQ(same.files[0].seers, (std::vector<int>{0, 1}));
}

TEST(Plan, TheSampleDigestSurvivesTheGather) {
  InputListing mine;
  mine.files.push_back(sampled(prof(0, "p/profile_rank.0", 10), 0x1234567890abcdefULL));
  RankListing back = decodeListing(0, encodeListing("h", mine)).value();
  ASSERT_EQ(back.listing.files.size(), 1u);
  EXPECT_EQ(back.listing.files[0].sample, 0x1234567890abcdefULL);
}

// A listing the same as a lower rank's travels as a reference and plans as
// the copy would: readers, seers, hosts, skipped lines per host.
TEST(Plan, AListingTheSameAsALowerRanksPlansAsItsCopy) {
  std::vector<InputFile> all = {prof(0, "/s/p.0", 100), prof(1, "/s/p.1", 60),
                                file(InputKind::Dcgm, 0, "/s/d.0", 30)};
  std::vector<RankListing> copies = {listing(0, "a", all), listing(1, "b", {prof(2, "/l/p.2", 5)}),
                                     listing(2, "c", all)};
  copies[0].listing.skipped = {"x.json: no rank"};
  copies[2].listing.skipped = copies[0].listing.skipped;
  std::vector<RankListing> refs = copies;
  refs[2].listing = InputListing{};
  refs[2].sameAs = 0;
  const Plan a = makePlan(copies);
  const Plan b = makePlan(refs);
  ASSERT_EQ(a.files.size(), b.files.size());
  for (size_t i = 0; i < a.files.size(); ++i) {
    EXPECT_EQ(a.files[i].file.path, b.files[i].file.path);
    EXPECT_EQ(a.files[i].reader, b.files[i].reader);
    EXPECT_EQ(a.files[i].readerHost, b.files[i].readerHost);
    EXPECT_EQ(a.files[i].seers, b.files[i].seers);
  }
  EXPECT_EQ(a.skipped, b.skipped);  // "(on a)" and "(on c)"
  EXPECT_EQ(b.skipped.size(), 2u);

  // On the wire: the host and the reference only; a reference to a rank not
  // below is no listing.
  const std::string ref = encodeListing("c", copies[2].listing, 0);
  EXPECT_LT(ref.size(), encodeListing("c", copies[2].listing).size());
  RankListing back = decodeListing(2, ref).value();
  EXPECT_EQ(back.sameAs, 0);
  EXPECT_EQ(back.host, "c");
  EXPECT_TRUE(back.listing.files.empty());
  EXPECT_FALSE(decodeListing(0, ref).ok());
  EXPECT_FALSE(decodeListing(1, encodeListing("c", {}, 1)).ok());
  EXPECT_EQ(decodeListing(3, encodeListing("c", copies[2].listing)).value().sameAs, -1);

  // The digest: equal listings alike, any difference not.
  EXPECT_EQ(listingDigest(copies[0].listing), listingDigest(copies[2].listing));
  InputListing other = copies[2].listing;
  other.files[1].bytes += 1;
  EXPECT_NE(listingDigest(copies[0].listing), listingDigest(other));
  EXPECT_EQ(listingDigest(copies[0].listing).size(), 16u);
}

TEST(Plan, TwoDifferentFilesClaimingOneRankAreAConflictNamingBoth) {
  std::vector<RankListing> ls = {
      listing(0, "h1", {prof(3, "/a/profile.3", 10), prof(4, "/a/profile.4", 1)}),
      listing(1, "h2", {prof(3, "/b/other.3", 20)})};
  Plan p = makePlan(ls);
  ASSERT_EQ(p.conflicts.size(), 1u);
  EXPECT_EQ(p.conflicts[0],
            "two files claim profile rank 3: /a/profile.3 (10 bytes, on h1), /b/other.3 (20 bytes, "
            "on h2)");
  // The conflicting subject is not planned; the rest is.
  ASSERT_EQ(p.files.size(), 1u);
  EXPECT_EQ(p.files[0].file.id, 4);
}

TEST(Plan, SamePathWithDifferentSizesIsAConflict) {
  std::vector<RankListing> ls = {listing(0, "h1", {file(InputKind::Dcgm, 2, "/local/dcgm.2", 10)}),
                                 listing(1, "h2", {file(InputKind::Dcgm, 2, "/local/dcgm.2", 11)})};
  Plan p = makePlan(ls);
  ASSERT_EQ(p.conflicts.size(), 1u);
  EXPECT_NE(p.conflicts[0].find("two files claim dcgm trainer 2: "), std::string::npos)
      << p.conflicts[0];
  EXPECT_NE(p.conflicts[0].find("on h1"), std::string::npos);
  EXPECT_NE(p.conflicts[0].find("on h2"), std::string::npos);
}

TEST(Plan, TimeFilesConflictPerGpuAndTrainer) {
  std::vector<RankListing> ls = {listing(0, "h",
                                         {file(InputKind::Time, 3, "/t/time.txt.1.3", 5, 1),
                                          file(InputKind::Time, 3, "/t/x.1.3", 5, 1),
                                          file(InputKind::Time, 3, "/t/time.txt.2.3", 5, 2)})};
  Plan p = makePlan(ls);
  ASSERT_EQ(p.conflicts.size(), 1u);
  EXPECT_EQ(p.conflicts[0],
            "two files claim time gpu 1 of trainer 3: /t/time.txt.1.3 (5 bytes, on h), /t/x.1.3 (5 "
            "bytes, on h)");
  ASSERT_EQ(p.files.size(), 1u);
  EXPECT_EQ(p.files[0].file.gpu, 2);
}

TEST(Plan, SameIdDifferentKindsIsNoConflict) {
  std::vector<RankListing> ls = {
      listing(0, "h",
              {prof(1, "/p/p.1", 1), file(InputKind::Dcgm, 1, "/d/d.1", 1),
               file(InputKind::Net, 1, "/n/n.1", 1), file(InputKind::Time, 1, "/t/t.0.1", 1, 0)})};
  Plan p = makePlan(ls);
  EXPECT_TRUE(p.conflicts.empty());
  EXPECT_EQ(p.files.size(), 4u);
}

TEST(Plan, SortedByKindIdGpu) {
  std::vector<RankListing> ls = {
      listing(0, "h",
              {file(InputKind::Time, 0, "/t/a.1.0", 1, 1), prof(10, "/p/p.10", 1),
               file(InputKind::Time, 0, "/t/a.0.0", 1, 0), prof(2, "/p/p.2", 9),
               file(InputKind::Dcgm, 0, "/d/d.0", 3)})};
  Plan p = makePlan(ls);
  std::vector<std::string> order;
  for (const auto& f : p.files) order.push_back(f.file.path);
  EXPECT_EQ(order,
            (std::vector<std::string>{"/p/p.2", "/p/p.10", "/d/d.0", "/t/a.0.0", "/t/a.1.0"}));
}

TEST(Plan, DeterministicWhateverTheListingOrder) {
  std::vector<InputFile> files;
  for (int i = 0; i < 30; ++i)
    files.push_back(
        prof(i, "/s/p." + std::to_string(i), static_cast<uint64_t>((i * 7919) % 97 + 1)));
  for (int t = 0; t < 4; ++t)
    files.push_back(file(InputKind::Dcgm, t, "/s/d." + std::to_string(t), 50));
  auto build = [&](bool reversed) {
    std::vector<RankListing> ls;
    for (int r = 0; r < 3; ++r) {
      auto f = files;
      if (reversed) std::reverse(f.begin(), f.end());
      if (r == 1 && reversed) std::rotate(f.begin(), f.begin() + 7, f.end());
      ls.push_back(listing(r, "h" + std::to_string(r), f));
    }
    return makePlan(ls);
  };
  Plan a = build(false), b = build(true);
  ASSERT_EQ(a.files.size(), b.files.size());
  for (size_t i = 0; i < a.files.size(); ++i) {
    EXPECT_EQ(a.files[i].file.path, b.files[i].file.path);
    EXPECT_EQ(a.files[i].reader, b.files[i].reader);
    EXPECT_EQ(a.files[i].readerHost, b.files[i].readerHost);
  }
}

TEST(Plan, SkippedNamesAreDeduplicatedAndNameTheirHost) {
  std::vector<RankListing> ls = {listing(0, "h1", {}), listing(1, "h1", {}), listing(2, "h2", {})};
  for (auto& l : ls)
    l.listing.skipped = {"/d/profile/README: name has no integer suffix after the last dot"};
  ls[2].listing.profileDirFound = false;
  Plan p = makePlan(ls);
  EXPECT_EQ(p.skipped,
            (std::vector<std::string>{
                "/d/profile/README: name has no integer suffix after the last dot (on h1)",
                "/d/profile/README: name has no integer suffix after the last dot (on h2)"}));
  EXPECT_TRUE(p.anyProfileDir);
}

TEST(Plan, NoProfileDirAnywhere) {
  std::vector<RankListing> ls = {listing(0, "h1", {}), listing(1, "h2", {})};
  for (auto& l : ls) l.listing.profileDirFound = false;
  Plan p = makePlan(ls);
  EXPECT_FALSE(p.anyProfileDir);
  EXPECT_TRUE(p.files.empty());
}

TEST(Plan, EmptyFilesStillGetAReaderAndSpread) {
  std::vector<InputFile> all = {prof(0, "/s/p.0", 0), prof(1, "/s/p.1", 0)};
  Plan p = makePlan({listing(0, "a", all), listing(1, "b", all)});
  auto r = readers(p);
  EXPECT_EQ(r["/s/p.0"], 0);
  EXPECT_EQ(r["/s/p.1"], 1);
}

TEST(Plan, GatherPlanOnOneRank) {
  SerialComm comm;
  InputListing mine;
  mine.profileDirFound = true;
  mine.files = {prof(0, "/x/p.0", 7), file(InputKind::Time, 0, "/x/time.txt.0.0", 3)};
  mine.skipped = {"/x/junk"};
  Plan p = gatherPlan(comm, mine).value();
  ASSERT_EQ(p.files.size(), 2u);
  for (const auto& f : p.files) {
    EXPECT_EQ(f.reader, 0);
    EXPECT_EQ(f.readerHost, comm.host());
  }
  EXPECT_EQ(p.files[0].file.bytes, 7u);
  EXPECT_EQ(p.files[1].file.gpu, 0);
  EXPECT_EQ(p.skipped, std::vector<std::string>{"/x/junk (on " + comm.host() + ")"});
}

TEST(Plan, ListingRoundTrip) {
  InputListing mine;
  mine.profileDirFound = true;
  mine.files = {prof(3, "/x/p.3", 9), file(InputKind::Time, 1, "/x/time.txt.0.1", 4)};
  mine.skipped = {"/x/junk"};
  mine.badInputs = {"/x/dcgm"};
  RankListing l = decodeListing(5, encodeListing("h5", mine)).value();
  EXPECT_EQ(l.rank, 5);
  EXPECT_EQ(l.host, "h5");
  EXPECT_TRUE(l.listing.profileDirFound);
  EXPECT_EQ(l.listing.skipped, mine.skipped);
  EXPECT_EQ(l.listing.badInputs, mine.badInputs);
  ASSERT_EQ(l.listing.files.size(), 2u);
  EXPECT_EQ(l.listing.files[0].path, "/x/p.3");
  EXPECT_EQ(l.listing.files[0].id, 3);
  EXPECT_EQ(l.listing.files[0].bytes, 9u);
  EXPECT_EQ(l.listing.files[1].kind, InputKind::Time);
}

// A gathered listing cut short, garbled, with bytes left over or of another
// wire version is an Error naming the rank, never a throw.
TEST(Plan, ABadListingIsAnErrorNamingTheRank) {
  InputListing mine;
  mine.profileDirFound = true;
  mine.files = {sampled(prof(3, "/x/p.3", 9), 42), file(InputKind::Dcgm, 1, "/x/dcgm.1", 4)};
  mine.skipped = {"/x/junk"};
  const std::string bytes = encodeListing("h5", mine);
  for (size_t n = 0; n < bytes.size(); ++n) {
    const auto cut = decodeListing(5, bytes.substr(0, n));
    ASSERT_FALSE(cut.ok()) << n;
    EXPECT_EQ(cut.error().message.rfind("the listing of MPI rank 5: ", 0), 0u)
        << cut.error().message;
  }
  EXPECT_FALSE(decodeListing(5, bytes + "x").ok());
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string bad = bytes;
    bad[i] = static_cast<char>(bad[i] ^ 0xff);
    EXPECT_NO_THROW((void)decodeListing(5, bad)) << i;
  }
  // The dcgm file's kind, id, gpu and path length, one byte each, then its path.
  std::string kind = bytes;
  const size_t at = kind.find("/x/dcgm.1") - 4;
  ASSERT_EQ(kind[at], static_cast<char>(InputKind::Dcgm));
  kind[at] = 9;  // no InputKind
  EXPECT_FALSE(decodeListing(5, kind).ok());
}

}  // namespace
}  // namespace xstack
