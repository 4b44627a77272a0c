// SPEC.md section 4: the outputs are byte-identical whatever the number of
// ranks and which rank read which file. MPI is not needed to prove it: a
// Comm whose ranks are threads of this process runs the real pipeline, with
// synchronous sends like MPI_Ssend, on 1 to 4 ranks.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include "xstack/app/Cli.h"
#include "xstack/app/Report.h"
#include "xstack/app/Synth.h"
#include "xstack/dist/Comm.h"

namespace xstack {
namespace {

namespace fs = std::filesystem;

// Shared state of a group of thread ranks.
class ThreadWorld {
 public:
  explicit ThreadWorld(int size) : size_(size), contributions_(static_cast<size_t>(size)) {}
  int size() const { return size_; }

  // Collective: every rank's string, indexed by rank.
  std::vector<std::string> exchange(int rank, const std::string& mine) {
    std::unique_lock<std::mutex> lock(mu_);
    const uint64_t gen = generation_;
    contributions_[static_cast<size_t>(rank)] = mine;
    if (++arrived_ == size_) {
      result_ = contributions_;
      arrived_ = 0;
      ++generation_;
      cv_.notify_all();
    } else {
      waitFor(lock, [&] { return generation_ != gen; });
    }
    return result_;
  }

  // Synchronous send: returns once the receiver has taken the message.
  void send(int from, int to, int tag, Message m) {
    std::unique_lock<std::mutex> lock(mu_);
    auto& q = queues_[{from, to, tag}];
    const uint64_t id = ++sent_;
    q.push_back({id, std::move(m)});
    cv_.notify_all();
    waitFor(lock, [&] { return taken_.count(id) > 0; });
    taken_.erase(id);
  }
  Message recv(int from, int to, int tag) {
    std::unique_lock<std::mutex> lock(mu_);
    auto& q = queues_[{from, to, tag}];
    waitFor(lock, [&] { return !q.empty(); });
    auto [id, m] = std::move(q.front());
    q.pop_front();
    taken_.insert(id);
    cv_.notify_all();
    return m;
  }

 private:
  template <class Pred>
  void waitFor(std::unique_lock<std::mutex>& lock, Pred pred) {
    // A protocol error would otherwise hang the whole test binary.
    if (!cv_.wait_for(lock, std::chrono::seconds(60), pred)) {
      std::fprintf(stderr, "ThreadWorld: a rank waited 60 s: deadlock in the protocol\n");
      std::abort();
    }
  }

  const int size_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::string> contributions_, result_;
  int arrived_ = 0;
  uint64_t generation_ = 0;
  std::map<std::tuple<int, int, int>, std::deque<std::pair<uint64_t, Message>>> queues_;
  uint64_t sent_ = 0;
  std::set<uint64_t> taken_;
};

class ThreadComm final : public Comm {
 public:
  ThreadComm(ThreadWorld& w, int rank, std::string host) : w_(w), rank_(rank), host_(std::move(host)) {}
  int rank() const override { return rank_; }
  int size() const override { return w_.size(); }
  std::string host() const override { return host_; }
  std::vector<std::string> allgather(const std::string& mine) override { return w_.exchange(rank_, mine); }
  bool allTrue(bool ok) override {
    for (const auto& s : w_.exchange(rank_, ok ? "1" : "0"))
      if (s != "1") return false;
    return true;
  }
  uint64_t allMin(uint64_t v) override {
    uint64_t m = UINT64_MAX;
    for (const auto& s : w_.exchange(rank_, std::to_string(v))) m = std::min<uint64_t>(m, std::stoull(s));
    return m;
  }
  int64_t allMax(int64_t v) override {
    int64_t m = INT64_MIN;
    for (const auto& s : w_.exchange(rank_, std::to_string(v))) m = std::max<int64_t>(m, std::stoll(s));
    return m;
  }
  uint64_t allSum(uint64_t v) override {
    uint64_t m = 0;
    for (const auto& s : w_.exchange(rank_, std::to_string(v))) m += std::stoull(s);
    return m;
  }
  void barrier() override { w_.exchange(rank_, ""); }
  void send(int dest, int tag, uint64_t kind, std::string_view data) override {
    w_.send(rank_, dest, tag, Message{kind, std::string(data)});
  }
  Message recv(int source, int tag) override { return w_.recv(source, rank_, tag); }
  [[noreturn]] void abort(int code) override { std::_Exit(code); }

 private:
  ThreadWorld& w_;
  int rank_;
  std::string host_;
};

std::map<std::string, std::string> filesIn(const fs::path& dir) {
  std::map<std::string, std::string> m;
  for (const auto& e : fs::directory_iterator(dir)) {
    std::ifstream f(e.path(), std::ios::binary);
    std::stringstream s;
    s << f.rdbuf();
    m[e.path().filename().string()] = s.str();
  }
  return m;
}

// Runs the report on `ranks` thread ranks (two per host); every rank must
// return the same exit code.
int runOnRanks(int ranks, const ReportOptions& o) {
  ThreadWorld world(ranks);
  std::vector<int> codes(static_cast<size_t>(ranks), -1);
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r)
    threads.emplace_back([&, r] {
      ThreadComm comm(world, r, "node" + std::to_string(r / 2));
      codes[static_cast<size_t>(r)] = runReport(comm, o);
    });
  for (auto& t : threads) t.join();
  for (int c : codes) EXPECT_EQ(c, codes[0]);
  return codes[0];
}

class MultiRankReport : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "xstack_ranks_XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    root_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  ReportOptions options(const std::string& out) {
    ReportOptions o;
    o.dataDir = (root_ / "data").string();
    o.outDir = (root_ / out).string();
    o.topology = Topology{2, 2, 1};
    o.progress = false;
    return o;
  }
  fs::path root_;
};

TEST_F(MultiRankReport, SameBytesOnOneToFourRanks) {
  SynthOptions so;
  so.outDir = (root_ / "data").string();
  so.trainers = 3;
  so.gpusPerTrainer = 2;
  so.steps = 2;
  so.opsPerStep = 10;
  ASSERT_EQ(runSynth(so), kExitOk);
  // A cut profile too: its problem must read the same whoever read it.
  fs::path cut = root_ / "data" / "profile" / "profile_rank.2";
  fs::resize_file(cut, fs::file_size(cut) - 7);

  ASSERT_EQ(runOnRanks(1, options("out1")), kExitPartial);
  auto want = filesIn(root_ / "out1");
  ASSERT_EQ(want.size(), 4u);
  for (int ranks = 2; ranks <= 4; ++ranks) {
    SCOPED_TRACE(std::to_string(ranks) + " ranks");
    auto o = options("out" + std::to_string(ranks));
    // Small pieces and MPI chunks, no profile cache: many messages, every profile read twice.
    o.pieceBytes = 512;
    o.mpiChunkBytes = 100;
    o.cacheBytes = ranks == 3 ? 0 : o.cacheBytes;
    ASSERT_EQ(runOnRanks(ranks, o), kExitPartial);
    EXPECT_EQ(filesIn(root_ / o.outDir), want);
  }
}

TEST_F(MultiRankReport, ConflictIsFatalOnEveryRank) {
  SynthOptions so;
  so.outDir = (root_ / "data").string();
  so.trainers = 1;
  so.gpusPerTrainer = 2;
  so.steps = 1;
  so.opsPerStep = 2;
  ASSERT_EQ(runSynth(so), kExitOk);
  fs::copy_file(root_ / "data" / "profile" / "profile_rank.1", root_ / "data" / "profile" / "copy.1");
  fs::resize_file(root_ / "data" / "profile" / "copy.1", 10);
  EXPECT_EQ(runOnRanks(3, options("out")), kExitFatal);
  EXPECT_TRUE(!fs::exists(root_ / "out") || filesIn(root_ / "out").empty());
}

}  // namespace
}  // namespace xstack
