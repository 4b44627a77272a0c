// The "collectives" analysis end to end: SliceEvents with a CollectiveInfo
// through its per-rank part (ArrivalRecorder) and its job part, on one rank
// (SerialComm) and on 1 to 3 thread ranks (ThreadComm): the same CSV bytes.
#include <gtest/gtest.h>

#include <cstdlib>
#include <deque>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>
#include <tuple>

#include "../../TempDirTest.h"
#include "xstack/analysis/AnalysisRegistry.h"
#include "xstack/analysis/JobBoard.h"
#include "xstack/analysis/collectives/ArrivalRecorder.h"
#include "xstack/comm/ThreadComm.h"

namespace xstack {
namespace {

constexpr uint64_t kT0 = 1700000000ull * 1000000000ull;  // Unix ns
constexpr uint64_t kU = 1000;                            // 1 µs in ns

// One profile's events: a compute kernel, an allreduce (group "", seq 0)
// with its launch, an allgather (group "1" of ranks 0..3, no seq), and a
// send/recv between ranks 0 and 1 and between ranks 2 and 3. Rank 3 computes
// 200 µs longer and arrives late at the allreduce; rank 1 is 50 µs late at
// the allgather; the receivers are late at their pairs.
class Profile {
 public:
  explicit Profile(int64_t rank) : rank_(rank) {
    const uint64_t extra = rank == 3 ? 200 * kU : 0;
    allreduce_.collective = "allreduce";
    allreduce_.seq = 0;
    allreduce_.bytes = 1 << 20;
    allgather_.collective = "allgather";
    allgather_.group = "1";
    allgather_.groupRanks = {3, 2, 1, 0};
    allgather_.bytes = 4096;
    const bool sender = rank % 2 == 0;
    p2p_.collective = sender ? "send" : "recv";
    p2p_.peer = sender ? rank + 1 : rank - 1;
    p2p_.bytes = 256;
    gpu("gemm", 100 * kU, 300 * kU + extra);
    gpu("ncclKernel_AllReduce", 300 * kU + extra, 600 * kU, &allreduce_, 10);
    launch(290 * kU, 10);  // after its kernel in input order
    gpu("ncclKernel_AllGather", rank == 1 ? 1150 * kU : 1100 * kU, 1200 * kU, &allgather_);
    const uint64_t late = rank == 1 ? 50 * kU : rank == 3 ? 20 * kU : 0;
    gpu("ncclKernel_SendRecv", 1300 * kU + late, 1400 * kU, &p2p_);
  }
  const std::vector<SliceEvent>& slices() const { return slices_; }
  static std::vector<Span> spans() {
    return {{Phase::Forward, 0, kT0, kT0 + 1000 * kU},
            {Phase::Forward, 1, kT0 + 1000 * kU, kT0 + 2000 * kU}};
  }

 private:
  void gpu(std::string_view name, uint64_t start, uint64_t end, const CollectiveInfo* c = nullptr,
           int64_t correlation = -1) {
    SliceEvent e;
    e.name = name;
    e.startNs = kT0 + start;
    e.endNs = kT0 + end;
    e.row = {RowKind::Gpu, 0};
    e.tid = 7;
    e.correlation = correlation;
    e.collective = c;
    slices_.push_back(e);
  }
  void launch(uint64_t start, int64_t correlation) {
    SliceEvent e;
    e.name = "cudaLaunchKernel";
    e.startNs = kT0 + start;
    e.endNs = kT0 + start + kU;
    e.row = {RowKind::CudaApi, 0};
    e.correlation = correlation;
    slices_.push_back(e);
  }
  int64_t rank_;
  CollectiveInfo allreduce_, allgather_, p2p_;
  std::vector<SliceEvent> slices_;
};

std::string partOf(int64_t rank) {
  Profile p(rank);
  std::unique_ptr<RankAnalysis> part = findAnalysis("collectives")->rankPart({"/tmp", 1 << 20});
  for (const SliceEvent& e : p.slices()) part->onSlice(e);
  return part->finish(rank, Profile::spans()).value();
}

const char* const kCollectivesCsv =
    "group,collective,bytes,count,transfer_p50_ms,transfer_p95_ms,busbw_p50_gbps,wait_ms,"
    "top_late_rank,top_late_share,bytes_p50\n"
    ",allreduce,1048576,1,0.100,0.100,15.729,0.600,3,1.000,1048576\n"
    ",send,256,2,0.050,0.080,0.003,0.070,1,0.500,256\n"
    "1,allgather,4096,1,0.050,0.050,0.061,0.150,1,1.000,4096\n";

// Trainers of 2 GPUs (AnalysisJobOptions' topology): ranks 0, 1 on node 0.
const char* const kWaitsCsv =
    "rank,node,waited_ms_per_step,caused_ms_per_step,top_cause,clock_offset_us,clock_spread_us\n"
    "0,0,0.150,0.000,,0.000,0.000\n"
    "1,0,0.100,0.100,host,0.000,0.000\n"
    "2,1,0.135,0.000,,0.000,0.000\n"
    "3,1,0.025,0.310,compute,0.000,0.000\n";

// Step 0 ends at rank 0's allreduce, which waited for rank 3 (compute);
// step 1 at rank 0's send, which waited for rank 1's recv, rank 1 being
// itself the last at the allgather before it.
const char* const kCriticalPathCsv =
    "step,order,rank,kind,start_ns,dur_ns,detail\n"
    "0,0,3,host,1700000000000000000,100000,\n"
    "0,1,3,compute,1700000000000100000,400000,\n"
    "0,2,0,transfer,1700000000000500000,100000,\"allreduce group (default), waited for rank 3\"\n"
    "0,3,0,host,1700000000000600000,400000,\n"
    "1,0,1,host,1700000000001000000,150000,\n"
    "1,1,1,transfer,1700000000001150000,50000,allgather group 1\n"
    "1,2,1,host,1700000000001200000,150000,\n"
    "1,3,0,transfer,1700000000001350000,50000,\"send group (default), waited for rank 1\"\n"
    "1,4,0,host,1700000000001400000,600000,\n";

AnalysisJobOptions twoGpusPerTrainer() {
  AnalysisJobOptions o;
  o.topology = Topology{2, 8, 2};
  return o;
}

TEST(CollectivesRankPart, ArrivalsWithTheirInstancesStepsLaunchesAndWindows) {
  Profile p(3);
  ArrivalRecorder rec;
  for (const SliceEvent& e : p.slices()) rec.onSlice(e);
  Expected<RankArrivals> got = rec.build(3, Profile::spans());
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->steps, 2u);
  ASSERT_EQ(got->arrivals.size(), 3u);
  const Arrival& ar = got->arrivals[0];
  EXPECT_EQ(ar.collective, "allreduce");
  EXPECT_EQ(ar.instance, 0);  // seq
  EXPECT_EQ(ar.step, 0);
  EXPECT_EQ(ar.launchNs, kT0 + 290 * kU);
  EXPECT_EQ(ar.computeNs, 400 * kU);  // gemm, from the first GPU slice
  EXPECT_EQ(ar.idleNs, 0u);
  const Arrival& ag = got->arrivals[1];
  EXPECT_EQ(ag.group, "1");
  EXPECT_EQ(ag.instance, 0);  // the group's first
  EXPECT_EQ(ag.step, 1);
  EXPECT_EQ(ag.launchNs, 0u);
  EXPECT_EQ(ag.computeNs, 0u);
  EXPECT_EQ(ag.idleNs, 500 * kU);  // from the allreduce's end
  const Arrival& recv = got->arrivals[2];
  EXPECT_EQ(recv.peer, 2);
  EXPECT_EQ(recv.instance, 0);  // the pair's first
  EXPECT_EQ(recv.idleNs, 120 * kU);
  ASSERT_EQ(got->groups.size(), 1u);
  EXPECT_EQ(got->groups[0].ranks, (std::vector<int64_t>{0, 1, 2, 3}));
}

// The launch table keeps the last `capacity` ids added (the first start of
// an id added twice), whether ids come increasing or not: checked against a
// map and a queue on a sequence that increases, repeats and then goes back.
TEST(CollectivesRankPart, LaunchTableKeepsTheMostRecentLaunches) {
  constexpr size_t kCap = 5;
  LaunchTable table(kCap);
  std::map<int64_t, uint64_t> held;
  std::deque<int64_t> order;
  const std::vector<int64_t> ids = {1, 2, 4, 4, 7, 9, 11, 12, 2, 13, 12, 3, 20, 1, 5, 6, 7, 8, 9};
  for (size_t i = 0; i < ids.size(); ++i) {
    table.add(ids[i], 100 + i);
    if (held.emplace(ids[i], 100 + i).second) {
      order.push_back(ids[i]);
      if (order.size() > kCap) {
        held.erase(order.front());
        order.pop_front();
      }
    }
    for (int64_t id = 0; id <= 21; ++id) {
      const uint64_t* got = table.find(id);
      auto it = held.find(id);
      ASSERT_EQ(got != nullptr, it != held.end()) << "id " << id << " after " << i;
      if (got) {
        EXPECT_EQ(*got, it->second) << "id " << id << " after " << i;
      }
    }
  }
}

// Instances without seq: by start order per group (input order does not
// matter), per peer for point-to-point ops; a sendrecv without a peer is the
// whole group's.
TEST(CollectivesRankPart, InstancesByGroupAndByPeer) {
  CollectiveInfo g0, g1, toA, toB, sr;
  g0.collective = g1.collective = "allreduce";
  g1.group = "1";
  toA.collective = toB.collective = "send";
  toA.peer = 1;
  toB.peer = 2;
  sr.collective = "sendrecv";
  // (start, info), in input order: not by start.
  const std::vector<std::pair<uint64_t, const CollectiveInfo*>> kernels{
      {50, &g0}, {10, &g0}, {20, &g1}, {30, &toA}, {40, &toB}, {60, &toA}, {70, &sr}, {80, &g1}};
  ArrivalRecorder rec;
  for (auto [start, info] : kernels) {
    SliceEvent e;
    e.name = "nccl";
    e.startNs = kT0 + start;
    e.endNs = kT0 + start + 5;
    e.row = {RowKind::Gpu, 0};
    e.collective = info;
    rec.onSlice(e);
  }
  Expected<RankArrivals> got = rec.build(0, {});
  ASSERT_TRUE(got.ok());
  std::vector<std::tuple<std::string, std::string, int64_t, int64_t, int64_t>> seen;
  for (const Arrival& a : got->arrivals)
    seen.emplace_back(a.group, a.collective, a.peer, a.instance, a.step);
  using T = std::tuple<std::string, std::string, int64_t, int64_t, int64_t>;
  EXPECT_EQ(seen, (std::vector<T>{T{"", "allreduce", -1, 0, -1}, T{"1", "allreduce", -1, 0, -1},
                                  T{"", "send", 1, 0, -1}, T{"", "send", 2, 0, -1},
                                  T{"", "allreduce", -1, 1, -1}, T{"", "send", 1, 1, -1},
                                  T{"", "sendrecv", -1, 2, -1}, T{"1", "allreduce", -1, 1, -1}}));
  EXPECT_EQ(got->steps, 0u);
}

class CollectivesJobTest : public TempDirTest {
 protected:
  // Two GPUs a trainer and 8 bytes of memory: every store spills to dir_.
  AnalysisJobOptions spillingEverything() const {
    AnalysisJobOptions options = twoGpusPerTrainer();
    options.memoryBytes = 8;
    options.spillDir = dir_.string();
    return options;
  }
  // Runs the job on MPI rank `comm`'s share of `parts` (training rank r on
  // MPI rank r % size); rank 0 writes into `dir` and gives its lines.
  // `threads`: AnalysisJobOptions::threads.
  void run(Comm& comm, const std::vector<std::string>& parts, const std::filesystem::path& dir,
           std::vector<std::string>* lines, unsigned threads = 1, uint64_t memoryBytes = 0) {
    std::vector<RankPart> local;
    for (size_t r = 0; r < parts.size(); ++r)
      if (static_cast<int>(r) % comm.size() == comm.rank())
        local.push_back({static_cast<int64_t>(r), parts[r]});
    AnalysisJobOptions options = twoGpusPerTrainer();
    options.threads = threads;
    if (memoryBytes > 0) options.memoryBytes = memoryBytes;
    options.spillDir = dir_.string();
    std::unique_ptr<AnalysisJob> job = findAnalysis("collectives")->jobPart(options);
    job->merge(comm, local);
    std::vector<AtomicFile> files;
    std::vector<std::string> mine;
    AnalysisOutput out;
    out.dir = Folder{AT_FDCWD, dir.string()};
    out.files = &files;
    out.lines = &mine;
    const Status st = job->write(comm, local, out);
    if (comm.rank() != 0) return;
    ASSERT_TRUE(job->status().ok()) << job->status().error().message;
    ASSERT_TRUE(st.ok()) << st.error().message;
    ASSERT_EQ(files.size(), 3u);
    for (AtomicFile& f : files) ASSERT_TRUE(f.commit().ok());
    *lines = mine;
  }
  std::string read(const std::filesystem::path& p) {
    std::stringstream s;
    s << std::ifstream(p).rdbuf();
    return s.str();
  }
};

TEST_F(CollectivesJobTest, OneRankWritesTheTables) {
  std::vector<std::string> parts;
  for (int64_t r = 0; r < 4; ++r) parts.push_back(partOf(r));
  SerialComm comm;
  std::vector<std::string> lines;
  run(comm, parts, dir_, &lines);
  EXPECT_EQ(read(dir_ / "collectives.csv"), kCollectivesCsv);
  EXPECT_EQ(read(dir_ / "waits.csv"), kWaitsCsv);
  EXPECT_EQ(read(dir_ / "critical_path.csv"), kCriticalPathCsv);
  EXPECT_EQ(lines, (std::vector<std::string>{
                       "collectives: 2 groups, 4 instances matched (0 unmatched); per rank in "
                       "waits.csv (a rank late because it waited itself: cause waiting)",
                       "clocks: 2 nodes compared by their collectives' ends; largest offset "
                       "+0.000 us (node 1), spread up to 0.000 us; the collectives' times moved "
                       "to node 0's clock"}));
}

TEST(CollectivesJobBoard, PublishesTheCriticalPathsSharesByRankThenKind) {
  std::vector<std::string> parts;
  for (int64_t r = 0; r < 4; ++r) parts.push_back(partOf(r));
  std::vector<RankPart> local;
  for (size_t r = 0; r < parts.size(); ++r) local.push_back({static_cast<int64_t>(r), parts[r]});
  SerialComm comm;
  std::unique_ptr<AnalysisJob> job = findAnalysis("collectives")->jobPart(twoGpusPerTrainer());
  job->merge(comm, local);
  ASSERT_TRUE(job->status().ok()) << job->status().error().message;
  JobBoard board;
  job->publish(board);
  ASSERT_NE(board.criticalShares, nullptr);
  std::vector<std::tuple<int64_t, std::string, uint64_t>> got;
  for (const CriticalShare& s : *board.criticalShares) got.emplace_back(s.rank, s.kind, s.ns);
  EXPECT_EQ(got, (std::vector<std::tuple<int64_t, std::string, uint64_t>>{{0, "host", 1000 * kU},
                                                                          {0, "transfer", 150 * kU},
                                                                          {1, "host", 300 * kU},
                                                                          {1, "transfer", 50 * kU},
                                                                          {3, "compute", 400 * kU},
                                                                          {3, "host", 100 * kU}}));
  EXPECT_EQ(board.criticalTotalNs, 2000 * kU);  // two steps of 1 ms
}

TEST_F(CollectivesJobTest, WithoutCollectivesHeadersOnlyAndNoLine) {
  std::vector<std::string> parts{findAnalysis("collectives")->rankPart({})->finish(0, {}).value()};
  SerialComm comm;
  std::vector<std::string> lines{"x"};
  run(comm, parts, dir_, &lines);
  EXPECT_EQ(read(dir_ / "collectives.csv"),
            "group,collective,bytes,count,transfer_p50_ms,transfer_p95_ms,busbw_p50_gbps,wait_ms,"
            "top_late_rank,top_late_share,bytes_p50\n");
  EXPECT_EQ(read(dir_ / "waits.csv"),
            "rank,node,waited_ms_per_step,caused_ms_per_step,top_cause,clock_offset_us,clock_"
            "spread_us\n");
  EXPECT_EQ(read(dir_ / "critical_path.csv"), "step,order,rank,kind,start_ns,dur_ns,detail\n");
  EXPECT_TRUE(lines.empty());
}

TEST_F(CollectivesJobTest, TheSameBytesOnOneToThreeRanksAndAnyBudget) {
  std::vector<std::string> parts;
  for (int64_t r = 0; r < 4; ++r) parts.push_back(partOf(r));
  // 8 bytes of memory: every store spills and the outcomes return one a round.
  for (int variant = 0; variant < 6; ++variant) {
    const int size = 1 + variant % 3;
    const uint64_t memory = variant < 3 ? 0 : 8;
    SCOPED_TRACE(std::to_string(size) + " ranks, memory " + std::to_string(memory));
    const std::filesystem::path out = dir_ / std::to_string(variant);
    std::filesystem::create_directories(out);
    ThreadWorld world(size);
    std::vector<std::string> lines;
    std::vector<std::thread> threads;
    for (int r = 0; r < size; ++r)
      threads.emplace_back([&, r] {
        ThreadComm comm(world, r, "h");
        run(comm, parts, out, &lines, 1, memory);
      });
    for (std::thread& t : threads) t.join();
    EXPECT_EQ(read(out / "collectives.csv"), kCollectivesCsv);
    EXPECT_EQ(read(out / "waits.csv"), kWaitsCsv);
    EXPECT_EQ(read(out / "critical_path.csv"), kCriticalPathCsv);
    EXPECT_EQ(lines.size(), 2u);  // the collectives' and the clocks' (rank 0's only)
  }
}

// The owner's groups and the routing's index on 1 to 4 threads, and with a
// budget so small that the owner spills every arrival: the same bytes.
TEST_F(CollectivesJobTest, TheSameBytesOnAnyThreads) {
  std::vector<std::string> parts;
  for (int64_t r = 0; r < 4; ++r) parts.push_back(partOf(r));
  for (unsigned threads = 1; threads <= 5; ++threads) {
    const uint64_t memory = threads == 5 ? 8 : 0;  // 8 bytes: an owner's budget of 1
    SCOPED_TRACE(std::to_string(threads) + " threads, memory " + std::to_string(memory));
    const std::filesystem::path out = dir_ / ("t" + std::to_string(threads));
    std::filesystem::create_directories(out);
    SerialComm comm;
    std::vector<std::string> lines;
    run(comm, parts, out, &lines, threads == 5 ? 2 : threads, memory);
    EXPECT_EQ(read(out / "collectives.csv"), kCollectivesCsv);
    EXPECT_EQ(read(out / "waits.csv"), kWaitsCsv);
    EXPECT_EQ(read(out / "critical_path.csv"), kCriticalPathCsv);
  }
}

// Rank 0's status (AnalysisJob::status) after the collectives job merged
// `parts` (training rank t's on MPI rank t % size) on `size` thread ranks.
Status rankZeroStatus(const std::vector<std::string>& parts, int size,
                      const AnalysisJobOptions& options) {
  ThreadWorld world(size);
  Status status;
  std::vector<std::thread> threads;
  for (int r = 0; r < size; ++r)
    threads.emplace_back([&, r] {
      ThreadComm comm(world, r, "h");
      std::vector<RankPart> local;
      for (size_t t = 0; t < parts.size(); ++t)
        if (static_cast<int>(t) % size == r) local.push_back({static_cast<int64_t>(t), parts[t]});
      std::unique_ptr<AnalysisJob> job = findAnalysis("collectives")->jobPart(options);
      job->merge(comm, local);
      if (r == 0) status = job->status();
    });
  for (std::thread& t : threads) t.join();
  return status;
}

// XSTACK_INJECT_FAULT=`spec` for one test only, whatever it asserts.
struct InjectedFault {
  explicit InjectedFault(const char* spec) { ::setenv("XSTACK_INJECT_FAULT", spec, 1); }
  ~InjectedFault() { ::unsetenv("XSTACK_INJECT_FAULT"); }
  InjectedFault(const InjectedFault&) = delete;
  InjectedFault& operator=(const InjectedFault&) = delete;
};

TEST_F(CollectivesJobTest, AMalformedPartFailsTheJobOnEveryRankCountWithoutAHang) {
  std::vector<std::string> parts;
  for (int64_t r = 0; r < 4; ++r) parts.push_back(partOf(r));
  parts[1].resize(parts[1].size() - 1);
  for (int size = 1; size <= 3; ++size) EXPECT_FALSE(rankZeroStatus(parts, size, {}).ok()) << size;
}

// The owners' scratch files cannot be read back (a bad disk, injected): the
// job fails on every rank count, naming why, without a hang.
TEST_F(CollectivesJobTest, AScratchFileThatCannotBeReadBackFailsTheJobWithoutAHang) {
  std::vector<std::string> parts;
  for (int64_t r = 0; r < 4; ++r) parts.push_back(partOf(r));
  const InjectedFault fault("spill-read:0");
  for (int size = 1; size <= 3; ++size) {
    const Status status = rankZeroStatus(parts, size, spillingEverything());
    ASSERT_FALSE(status.ok()) << size;
    EXPECT_NE(status.error().message.find("cannot read back"), std::string::npos)
        << status.error().message;
  }
}

// The owners' and readers' shelves (the outcomes' reply chunks, the readers'
// outcomes, the trace slices) spill everything at 8 bytes of memory; when
// their scratch files cannot be read back, the job fails on every rank with
// a message, never pairs a part with missing outcomes, and never hangs.
TEST_F(CollectivesJobTest, ShelvesThatCannotBeReadBackFailTheJobWithoutAHang) {
  std::vector<std::string> parts;
  for (int64_t r = 0; r < 4; ++r) parts.push_back(partOf(r));
  const InjectedFault fault("shelf-read:0");
  for (int size = 1; size <= 3; ++size) {
    const Status status = rankZeroStatus(parts, size, spillingEverything());
    ASSERT_FALSE(status.ok()) << size;
    EXPECT_NE(status.error().message.find("could not be read back from --spill-dir"),
              std::string::npos)
        << status.error().message;
  }
}

}  // namespace
}  // namespace xstack
