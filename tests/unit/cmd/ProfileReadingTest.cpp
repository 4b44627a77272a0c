// The read stage: what each reading rank learns about its files.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "../TempDirTest.h"
#include "profiler.pb.h"
#include "xstack/cmd/inspect/Inspect.h"
#include "xstack/cmd/report/ProfileReading.h"
#include "xstack/cmd/report/Report.h"
#include "xstack/core/FileIdentity.h"
#include "xstack/model/TraceLayout.h"
#include "xstack/source/SourceRegistry.h"

namespace xstack {
namespace {

namespace fs = std::filesystem;
namespace pb = paddle::platform::proto;

class ReadStageTest : public TempDirTest {
 protected:
  PlannedFile planned(InputKind kind, int64_t id, const std::string& path, int reader = 0,
                      int64_t gpu = 0) {
    PlannedFile f;
    f.file.kind = kind;
    f.file.id = id;
    f.file.gpu = gpu;
    f.file.path = path;
    f.file.bytes = fs::exists(path) ? fs::file_size(path) : 0;
    f.reader = reader;
    f.readerHost = "h" + std::to_string(reader);
    return f;
  }
};

std::string sampleProfile() {
  pb::Profile p;
  auto ev = [&](const char* name, uint64_t s, uint64_t e, int64_t dev, pb::Event::EventType type) {
    pb::Event* x = p.add_events();
    x->set_name(name);
    x->set_start_ns(s);
    x->set_end_ns(e);
    x->set_device_id(dev);
    x->set_type(type);
    return x;
  };
  ev("marker/compute/MarkerCUDA", 5000, 5001, 0, pb::Event::CPU)
      ->set_detail_info("marker_forward_B");
  ev("marker/compute/MarkerCUDA", 6000, 6001, 0, pb::Event::CPU)
      ->set_detail_info("marker_forward_E");
  ev("marker/compute/MarkerCUDA", 7000, 7001, 0, pb::Event::CPU)
      ->set_detail_info("marker_backward_E");
  ev("op", 5100, 5200, 0, pb::Event::CPU);
  ev("kernel", 5150, 0, 2, pb::Event::GPUKernel);  // end 0: ignored for the minimum
  ev("bad", 5300, 5400, -3, pb::Event::CPU);
  pb::MemEvent* m = p.add_mem_events();
  m->set_start_ns(4000);  // the earliest timestamp
  m->set_end_ns(0);
  m->set_bytes(10);
  m->set_place(pb::MemEvent::CPUPlace);
  p.set_start_ns(0);  // unset-like zero: never the minimum
  p.set_end_ns(9000);
  std::string s;
  EXPECT_TRUE(p.SerializeToString(&s));
  return s;
}

TEST(ReadStage, WithoutPath) {
  EXPECT_EQ(withoutPath("/a/b.1: empty file", "/a/b.1"), "empty file");
  EXPECT_EQ(withoutPath("/a/b.1: ", "/a/b.1"), "/a/b.1: ");
  EXPECT_EQ(withoutPath("other: empty file", "/a/b.1"), "other: empty file");
  EXPECT_EQ(withoutPath("/a/b.1x: y", "/a/b.1"), "/a/b.1x: y");
}

// A decoder that holds its whole file (Paddle) is charged the file's bytes;
// a streamed one (Chrome JSON) is not. Bytes throughout.
TEST(ReadStage, DecodeShareChargesTheFileHeld) {
  const Source& paddle = defaultSource();
  const Source* chrome = findSource("chrome");
  ASSERT_NE(chrome, nullptr);
  const uint64_t mib = uint64_t{1} << 20;
  EXPECT_EQ(decodeShare({"", 16 * mib}, paddle, 6 * mib).memoryBytes, 10 * mib);
  EXPECT_EQ(decodeShare({"", 16 * mib}, paddle, 60 * mib).memoryBytes, mib);  // at least 1 MiB
  EXPECT_EQ(decodeShare({"", 1000}, paddle, 60 * mib).memoryBytes, 1000U);    // or all of it
  EXPECT_EQ(decodeShare({"", 16 * mib}, *chrome, 60 * mib).memoryBytes, 16 * mib);
}

// As many whole-file decodes at once as fit the budget, at least 1, at most the threads.
TEST(ReadStage, DecodersWithinTheBudget) {
  const Source& paddle = defaultSource();
  const Source* chrome = findSource("chrome");
  ASSERT_NE(chrome, nullptr);
  const uint64_t mib = uint64_t{1} << 20;
  EXPECT_EQ(decodersWithin(4, 64 * mib, paddle, 8 * mib), 4U);
  EXPECT_EQ(decodersWithin(4, 16 * mib, paddle, 8 * mib), 2U);
  EXPECT_EQ(decodersWithin(4, 1 * mib, paddle, 8 * mib), 1U);
  EXPECT_EQ(decodersWithin(4, 1 * mib, *chrome, 800 * mib), 4U);
  EXPECT_EQ(decodersWithin(4, 64 * mib, paddle, 0), 4U);  // no profile to decode
}

TEST_F(ReadStageTest, SummaryOfADisplayedProfile) {
  InputSummary s;
  s.file.path = write("p.0", sampleProfile());
  std::vector<Span> spans;
  std::unique_ptr<FileBuffer> buffer;
  ASSERT_TRUE(summarizeProfile(defaultSource(), true, s, spans, buffer).ok());
  EXPECT_EQ(s.status, InputStatus::Ok);
  EXPECT_EQ(s.minTs, 4000u);
  EXPECT_EQ(s.events, 6u);
  EXPECT_EQ(s.memEvents, 1u);
  ASSERT_EQ(spans.size(), 1u);
  EXPECT_EQ(s.spanCount, 1u);
  EXPECT_EQ(spans[0].startNs, 5000u);
  EXPECT_EQ(spans[0].endNs, 6000u);
  EXPECT_EQ(s.rows,
            (std::vector<RowKey>{{RowKind::CpuBlock, 0}, {RowKind::Gpu, 2}, {RowKind::MemCpu, 0}}));
  EXPECT_EQ(s.warnings.count(Warn::MarkerUnmatchedEnd), 1u);
  EXPECT_EQ(s.warnings.count(Warn::EventBadDevice), 1u);
  EXPECT_EQ(s.warnings.count(Warn::MemoryNeverFreed), 1u);
}

TEST_F(ReadStageTest, HiddenProfilesHaveSpansButNoRows) {
  InputSummary s;
  s.file.path = write("p.9", sampleProfile());
  std::vector<Span> spans;
  std::unique_ptr<FileBuffer> buffer;
  ASSERT_TRUE(summarizeProfile(defaultSource(), false, s, spans, buffer).ok());
  EXPECT_EQ(spans.size(), 1u);
  EXPECT_TRUE(s.rows.empty());
  EXPECT_EQ(s.warnings.count(Warn::MarkerUnmatchedEnd), 1u);
  EXPECT_EQ(s.minTs, 4000u);  // the origin still sees every file
}

TEST_F(ReadStageTest, ReadAssignedReadsOnlyMyFiles) {
  Plan plan;
  std::string prof = sampleProfile();
  plan.files.push_back(planned(InputKind::Profile, 0, write("p.0", prof), 0));
  plan.files.push_back(planned(InputKind::Profile, 1, write("p.1", prof), 1));
  plan.files.push_back(
      planned(InputKind::Profile, 16, write("p.16", prof), 0));  // not displayed (P = S = 8, D = 2)
  plan.files.push_back(
      planned(InputKind::Profile, 2, write("p.2", prof.substr(0, prof.size() - 3)), 0));
  plan.files.push_back(planned(InputKind::Profile, 3, write("p.3", ""), 0));
  plan.files.push_back(planned(InputKind::Profile, 4, (dir_ / "gone.4").string(), 0));
  plan.files.push_back(
      planned(InputKind::Dcgm, 0,
              write("d.0",
                    "# Entity GPUTL SMACT TIMESTAMP\nGPU 0 50 N/A 1.5\nGPU 1 N/A 0.5 1.25\n"
                    "GPU 1 20 0.25 2\n"),
              0));
  plan.files.push_back(planned(
      InputKind::Net, 0,
      write("n.0", "{\"name\":\"rx\",\"ts\":3.5,\"args\":{\"a\":1}}\n{\"name\":\"rx\",\"ts\":2}\n"),
      0));
  plan.files.push_back(
      planned(InputKind::Time, 0, write("time.txt.1.0", "start time: 0.5\nend time: 9\n"), 0, 1));
  size_t calls = 0;
  ReadOptions ro;
  auto in = readAssigned(plan, 0, ro, [&](const LocalInput&) { ++calls; });
  ASSERT_EQ(in.size(), 8u);
  EXPECT_EQ(calls, 8u);
  std::map<std::string, const LocalInput*> by;
  for (const auto& x : in) by[fs::path(x.summary.file.path).filename().string()] = &x;
  EXPECT_FALSE(by.count("p.1"));
  // Displayed and sound: rows for rendering.
  EXPECT_EQ(by["p.0"]->summary.status, InputStatus::Ok);
  EXPECT_FALSE(by["p.0"]->summary.rows.empty());
  EXPECT_EQ(by["p.0"]->summary.reader, 0);
  EXPECT_EQ(by["p.0"]->summary.readerHost, "h0");
  // Not displayed: no rows.
  EXPECT_TRUE(by["p.16"]->summary.rows.empty());
  EXPECT_EQ(by["p.16"]->spans.size(), 1u);
  // Cut: partial, events before the cut kept.
  EXPECT_EQ(by["p.2"]->summary.status, InputStatus::Partial);
  EXPECT_FALSE(by["p.2"]->summary.problem.empty());
  // Empty and missing: failed, the problem without the path.
  EXPECT_EQ(by["p.3"]->summary.status, InputStatus::Failed);
  EXPECT_EQ(by["p.3"]->summary.problem, "empty file");
  EXPECT_EQ(by["gone.4"]->summary.status, InputStatus::Failed);
  EXPECT_EQ(by["gone.4"]->summary.problem.find(dir_.string()), std::string::npos);
  EXPECT_EQ(by["gone.4"]->summary.minTs, 0u);
  // DCGM: counters per (counter group, GPU); the earliest TIMESTAMP.
  const InputSummary& d = by["d.0"]->summary;
  EXPECT_EQ(d.minTs, 1250000000u);
  EXPECT_EQ(d.counters(CounterGroup::GpuUtility, 0), 1u);
  EXPECT_EQ(d.counters(CounterGroup::GpuUtility, 1), 1u);
  EXPECT_EQ(d.counters(CounterGroup::SmUtility, 0), 0u);
  EXPECT_EQ(d.counters(CounterGroup::SmUtility, 1), 2u);
  EXPECT_EQ(by["d.0"]->dcgm.size(), 3u);
  // Net: rx only; the earliest ts in ms.
  EXPECT_EQ(by["n.0"]->summary.counters(CounterGroup::NetTx), 0u);
  EXPECT_EQ(by["n.0"]->summary.counters(CounterGroup::NetRx), 2u);
  EXPECT_EQ(by["n.0"]->summary.minTs, 2000000u);
  // Time: start and end contribute to the origin.
  EXPECT_EQ(by["time.txt.1.0"]->summary.minTs, 500000000u);
}

// What is read is what was listed: a file rewritten (same size, other bytes) or replaced by
// another size between its listing (its size and sample digest) and the read fails, naming
// what changed; an unchanged one reads. Without a sample (no listing stage) nothing is checked.
TEST_F(ReadStageTest, AFileChangedSinceItsListingFails) {
  const std::string prof = sampleProfile();
  Plan plan;
  for (int r = 0; r < 3; ++r) {
    plan.files.push_back(planned(InputKind::Profile, r, write("p." + std::to_string(r), prof), 0));
    plan.files.back().file.sample = sampleDigestOf(plan.files.back().file.path);
  }
  std::string other = prof;  // the same size, one name changed
  const size_t at = other.find("kernel");
  ASSERT_NE(at, std::string::npos);
  other[at + 5] = 'x';
  write("p.1", other);
  write("p.2", prof + std::string(8, '\0'));
  auto in = readAssigned(plan, 0, ReadOptions{}, nullptr);
  ASSERT_EQ(in.size(), 3u);
  EXPECT_EQ(in[0].summary.status, InputStatus::Ok);
  EXPECT_EQ(in[1].summary.status, InputStatus::Failed);
  EXPECT_NE(in[1].summary.problem.find("not the file listed as rank 1: its contents changed "
                                       "(sample digest "),
            std::string::npos)
      << in[1].summary.problem;
  EXPECT_EQ(in[2].summary.status, InputStatus::Failed);
  EXPECT_EQ(in[2].summary.problem,
            "not the file listed as rank 2: its size changed from " + std::to_string(prof.size()) +
                " bytes at listing to " + std::to_string(prof.size() + 8) +
                " at the read; not used");
  EXPECT_EQ(in[2].summary.minTs, 0u);  // a failed file never moves the time origin
  plan.files[1].file.sample = 0;       // no listing sample: not checked
  auto unchecked = readAssigned(plan, 0, ReadOptions{}, nullptr);
  EXPECT_NE(unchecked[1].summary.status, InputStatus::Failed);
}

TEST_F(ReadStageTest, InspectExitCodes) {
  std::string prof = sampleProfile();
  InspectOptions o;
  o.json = true;
  o.file = write("p.0", prof);
  testing::internal::CaptureStdout();
  int sound = runInspect(o);
  std::string out = testing::internal::GetCapturedStdout();
  EXPECT_EQ(sound, kExitOk);
  EXPECT_NE(out.find("\"events\": 6"), std::string::npos) << out;
  o.file = write("p.1", prof.substr(0, prof.size() - 3));
  testing::internal::CaptureStdout();
  int partial = runInspect(o);
  testing::internal::GetCapturedStdout();
  EXPECT_EQ(partial, kExitPartial);
  o.file = (dir_ / "none.2").string();
  testing::internal::CaptureStderr();
  int fatal = runInspect(o);
  testing::internal::GetCapturedStderr();
  EXPECT_EQ(fatal, kExitFatal);
}

}  // namespace
}  // namespace xstack
