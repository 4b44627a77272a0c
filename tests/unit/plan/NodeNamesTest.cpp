// The PyTorch family's words (docs/FORMAT.md section 2, "Words"): a rank's node is the host
// that read its file when each host reads its own files, else the host its file's name
// says, else its trainer number; Paddle's words stay "trainer, gpu".
#include <gtest/gtest.h>

#include "xstack/core/Topology.h"
#include "xstack/plan/NodeNames.h"

namespace xstack {
namespace {

RankListing listing(int rank, const std::string& host,
                    std::vector<std::pair<int64_t, std::string>> profiles) {
  RankListing l;
  l.rank = rank;
  l.host = host;
  l.listing.profileDirFound = true;
  for (const auto& [id, path] : profiles) {
    InputFile f;
    f.kind = InputKind::Profile;
    f.id = id;
    f.path = path;
    f.bytes = 100;
    l.listing.files.push_back(f);
  }
  return l;
}

TEST(NodeNames, HostFromTensorboardWorkerName) {
  EXPECT_EQ(hostFromTraceName("gpu-a_4321.1700000000000.pt.trace.json.gz"), "gpu-a");
  EXPECT_EQ(hostFromTraceName("n1.cluster.org_77.1623143089861.pt.trace.json"), "n1.cluster.org");
  // No pid after the worker, a rank where a pid would be, xstack synth's rank<R>. names,
  // no time, another ending, bytes no host has: no host.
  for (const char* name :
       {"resnet50_worker0.1623143089861.pt.trace.json.gz", "trace_rank_3.17.pt.trace.json",
        "rank4.node1_10040.1700000000050254143.pt.trace.json.gz",
        "vllm_graph_capture_rank_0.pt.trace.json.gz", "h_1.17.json", "h\x1b_1.17.pt.trace.json",
        "_1.17.pt.trace.json"})
    EXPECT_FALSE(hostFromTraceName(name).has_value()) << name;
}

TEST(NodeNames, ReadersHostsWhenEachNodeReadsItsOwnFiles) {
  // Two hosts, node-local folders: each rank's node is the host that read its file.
  Plan p = makePlan({listing(0, "ha", {{0, "/l/rank0.json"}, {1, "/l/rank1.json"}}),
                     listing(1, "hb", {{2, "/l/rank2.json"}, {3, "/l/rank3.json"}})});
  EXPECT_EQ(nodeNamesOf(p),
            (std::map<int64_t, std::string>{{0, "ha"}, {1, "ha"}, {2, "hb"}, {3, "hb"}}));
}

TEST(NodeNames, SharedFilesOrOneHostTellNoHost) {
  // One host (np 1, or every MPI rank on one machine): the reader says nothing of the
  // node that wrote the file.
  EXPECT_TRUE(
      nodeNamesOf(makePlan({listing(0, "ha", {{0, "/s/rank0.json"}, {1, "/s/rank1.json"}})}))
          .empty());
  // Two hosts, every trace on one of them (copied there): nothing says their nodes.
  EXPECT_TRUE(nodeNamesOf(makePlan({listing(0, "ha", {{0, "/l/rank0.json"}, {1, "/l/rank1.json"}}),
                                    listing(1, "hb", {})}))
                  .empty());
  // A shared file system: both hosts see every file.
  const std::vector<std::pair<int64_t, std::string>> both = {{0, "/s/rank0.json"},
                                                             {1, "/s/rank1.json"}};
  EXPECT_TRUE(nodeNamesOf(makePlan({listing(0, "ha", both), listing(1, "hb", both)})).empty());
  // Then the names' hosts, when every name has one.
  const std::vector<std::pair<int64_t, std::string>> named = {{0, "/s/g1_10.17.pt.trace.json"},
                                                              {1, "/s/g2_11.17.pt.trace.json"}};
  EXPECT_EQ(nodeNamesOf(makePlan({listing(0, "ha", named), listing(1, "hb", named)})),
            (std::map<int64_t, std::string>{{0, "g1"}, {1, "g2"}}));
  const std::vector<std::pair<int64_t, std::string>> partly = {{0, "/s/g1_10.17.pt.trace.json"},
                                                               {1, "/s/rank1.json"}};
  EXPECT_TRUE(nodeNamesOf(makePlan({listing(0, "ha", partly)})).empty());
}

TEST(NodeNames, RankWords) {
  Topology t(4, 8, 2);
  EXPECT_EQ(t.rankWho(5), "rank 5 (trainer 1, gpu 1)");
  EXPECT_EQ(t.trainerWho(1), "trainer 1");
  EXPECT_EQ(t.nodeOf(5), "1");
  t.nodeWords = true;
  EXPECT_EQ(t.rankWho(5), "rank 5 (node 1, local rank 1)");
  EXPECT_EQ(t.trainerWho(1), "node 1");
  t.nodeNames = {{4, "gpu-b"}, {5, "gpu-b"}};
  EXPECT_EQ(t.rankWho(5), "rank 5 (node gpu-b, local rank 1)");
  EXPECT_EQ(t.trainerWho(1), "node gpu-b");
  EXPECT_EQ(t.nodeOf(0), "0");
}

}  // namespace
}  // namespace xstack
