// A trace file appears complete or not at all.
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "../TempDirTest.h"
#include "xstack/render/TraceFileWriter.h"
#include "xstack/render/json/JsonRenderer.h"

namespace xstack {
namespace {

namespace fs = std::filesystem;

class TraceFileWriterTest : public TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    final_ = (dir_ / "traceFile_0_0.json").string();
  }
  std::vector<std::string> names() const {
    std::vector<std::string> n;
    for (const auto& e : fs::directory_iterator(dir_)) n.push_back(e.path().filename().string());
    std::sort(n.begin(), n.end());
    return n;
  }
  static std::string slurp(const std::string& p) {
    std::ifstream f(p, std::ios::binary);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
  }
  std::string tempName() const { return ".traceFile_0_0.json.xstack-" + processToken() + ".tmp"; }
  std::string final_;
};

TEST_F(TraceFileWriterTest, TemporaryFileIsHiddenUntilCommit) {
  TraceFileWriter w;
  ASSERT_TRUE(w.open(final_).ok());
  EXPECT_EQ(w.finalPath(), final_);
  EXPECT_EQ(names(), std::vector<std::string>{tempName()});
  EXPECT_EQ(names()[0][0], '.');
  ASSERT_TRUE(
      w.appendEvents(
           ",\n{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":0,\"args\":{\"name\":\"x\"}}")
          .ok());
  ASSERT_TRUE(w.finish("{\"tool\":\"xstack\"}").ok());
  EXPECT_FALSE(fs::exists(final_));
  ASSERT_TRUE(w.commit().ok());
  EXPECT_EQ(names(), std::vector<std::string>{"traceFile_0_0.json"});
  EXPECT_EQ(w.bytesWritten(), fs::file_size(final_));
}

TEST_F(TraceFileWriterTest, ExactLayoutWithKeysInOrder) {
  {
    TraceFileWriter w;
    ASSERT_TRUE(w.open(final_).ok());
    ASSERT_TRUE(w.appendEvents(",\n{\"a\":1}").ok());
    ASSERT_TRUE(w.appendEvents("").ok());
    ASSERT_TRUE(w.appendEvents(",\n{\"b\":2},\n{\"c\":3}").ok());
    ASSERT_TRUE(w.finish("{\"group\":0}").ok());
    ASSERT_TRUE(w.commit().ok());
  }
  std::string text = slurp(final_);
  EXPECT_EQ(text,
            "{\"traceEvents\":[\n{\"a\":1},\n{\"b\":2},\n{\"c\":3}\n],\"displayTimeUnit\":\"ns\","
            "\"otherData\":{\"group\":0}}\n");
  auto j = nlohmann::ordered_json::parse(text);
  std::vector<std::string> keys;
  for (auto it = j.begin(); it != j.end(); ++it) keys.push_back(it.key());
  EXPECT_EQ(keys, (std::vector<std::string>{"traceEvents", "displayTimeUnit", "otherData"}));
  EXPECT_EQ(j["traceEvents"].size(), 3u);
  EXPECT_EQ(j["displayTimeUnit"], "ns");
}

TEST_F(TraceFileWriterTest, NoEventsIsStillValidJson) {
  TraceFileWriter w;
  ASSERT_TRUE(w.open(final_).ok());
  ASSERT_TRUE(w.finish("{}").ok());
  ASSERT_TRUE(w.commit().ok());
  auto j = nlohmann::json::parse(slurp(final_));
  EXPECT_TRUE(j["traceEvents"].empty());
}

TEST_F(TraceFileWriterTest, RendererOutputParses) {
  TraceFileWriter w;
  ASSERT_TRUE(w.open(final_).ok());
  Status st;
  JsonRenderer r(
      TimeOrigin{100},
      [&](std::string_view s) {
        if (st.ok()) st = w.appendEvents(s);
      },
      64);
  r.processMeta(0, "00_pipeline");
  r.threadMeta(0, 3, "rank 3");
  r.spans(3, {{Phase::Forward, 0, 200, 300}, {Phase::Backward, 0, 400, 900}});
  r.flush();
  ASSERT_TRUE(st.ok());
  ASSERT_TRUE(w.finish("{\"warnings\":{}}").ok());
  ASSERT_TRUE(w.commit().ok());
  auto j = nlohmann::json::parse(slurp(final_));
  EXPECT_EQ(j["traceEvents"].size(), 6u);
}

TEST_F(TraceFileWriterTest, AbandonRemovesTheTemporaryAndKeepsTheOlderFile) {
  { std::ofstream(final_) << "old"; }
  TraceFileWriter w;
  ASSERT_TRUE(w.open(final_).ok());
  ASSERT_TRUE(w.appendEvents(",\n{}").ok());
  w.abandon();
  EXPECT_EQ(names(), std::vector<std::string>{"traceFile_0_0.json"});
  EXPECT_EQ(slurp(final_), "old");
}

TEST_F(TraceFileWriterTest, FinishedButNotCommittedIsRemovedByTheDestructor) {
  { std::ofstream(final_) << "old"; }
  {
    TraceFileWriter w;
    ASSERT_TRUE(w.open(final_).ok());
    ASSERT_TRUE(w.finish("{}").ok());
  }
  EXPECT_EQ(names(), std::vector<std::string>{"traceFile_0_0.json"});
  EXPECT_EQ(slurp(final_), "old");
}

TEST_F(TraceFileWriterTest, DestructorWhileOpenRemovesTheTemporary) {
  {
    TraceFileWriter w;
    ASSERT_TRUE(w.open(final_).ok());
    ASSERT_TRUE(w.appendEvents(",\n{}").ok());
  }
  EXPECT_TRUE(names().empty());
}

TEST_F(TraceFileWriterTest, CommitReplacesAnOlderFile) {
  { std::ofstream(final_) << "old"; }
  TraceFileWriter w;
  ASSERT_TRUE(w.open(final_).ok());
  ASSERT_TRUE(w.finish("{}").ok());
  EXPECT_EQ(slurp(final_), "old");
  ASSERT_TRUE(w.commit().ok());
  EXPECT_NE(slurp(final_), "old");
  EXPECT_EQ(names(), std::vector<std::string>{"traceFile_0_0.json"});
}

TEST_F(TraceFileWriterTest, CommitBeforeFinishIsAnError) {
  TraceFileWriter w;
  ASSERT_TRUE(w.open(final_).ok());
  Status s = w.commit();
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, final_ + ": commit before finish");
  EXPECT_FALSE(fs::exists(final_));
}

TEST_F(TraceFileWriterTest, MovedWriterOwnsTheFile) {
  TraceFileWriter a;
  ASSERT_TRUE(a.open(final_).ok());
  TraceFileWriter b(std::move(a));
  a.abandon();  // the moved-from writer must not remove b's file
  EXPECT_EQ(names(), std::vector<std::string>{tempName()});
  ASSERT_TRUE(b.appendEvents(",\n{}").ok());
  ASSERT_TRUE(b.finish("{}").ok());
  ASSERT_TRUE(b.commit().ok());
  EXPECT_FALSE(nlohmann::json::parse(slurp(final_)).empty());
  // A vector of writers (as the write stage keeps them) survives growth.
  std::vector<TraceFileWriter> v;
  v.resize(1);
  ASSERT_TRUE(v[0].open((dir_ / "traceFile_1_0.json").string()).ok());
  v.resize(10);
  ASSERT_TRUE(v[0].finish("{}").ok());
  ASSERT_TRUE(v[0].commit().ok());
  EXPECT_TRUE(fs::exists(dir_ / "traceFile_1_0.json"));
}

std::string gunzip(const std::string& gz) {
  z_stream z{};
  EXPECT_EQ(inflateInit2(&z, 15 + 16), Z_OK);
  std::string out;
  char buf[4096];
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));
  z.avail_in = static_cast<uInt>(gz.size());
  int rc;
  do {
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof buf;
    rc = inflate(&z, Z_NO_FLUSH);
    out.append(buf, sizeof buf - z.avail_out);
  } while (rc == Z_OK);
  EXPECT_EQ(rc, Z_STREAM_END);
  inflateEnd(&z);
  return out;
}

TEST_F(TraceFileWriterTest, GzipHoldsExactlyThePlainText) {
  std::string events;
  for (int i = 0; i < 20000; ++i)
    events += ",\n{\"ph\":\"X\",\"ts\":" + std::to_string(i * 7) + "}";
  auto writeWith = [&](const std::string& path, TraceFileWriter::Options o) {
    TraceFileWriter w;
    ASSERT_TRUE(w.open(path, o).ok());
    for (size_t off = 0; off < events.size(); off += 5000)
      ASSERT_TRUE(w.appendEvents(std::string_view(events).substr(off, 5000)).ok());
    ASSERT_TRUE(w.finish("{\"x\":1}").ok());
    ASSERT_TRUE(w.commit().ok());
    EXPECT_EQ(w.bytesWritten(), fs::file_size(path));
  };
  writeWith(final_, {});
  TraceFileWriter::Options gz;
  gz.gzip = true;
  gz.fsync = true;
  writeWith(final_ + ".gz", gz);
  std::string plain = slurp(final_);
  std::string packed = slurp(final_ + ".gz");
  EXPECT_LT(packed.size(), plain.size() / 4);
  EXPECT_EQ(gunzip(packed), plain);
  EXPECT_EQ(nlohmann::json::parse(plain)["traceEvents"].size(), 20000u);
  EXPECT_EQ(names(), (std::vector<std::string>{"traceFile_0_0.json", "traceFile_0_0.json.gz"}));
}

TEST_F(TraceFileWriterTest, AbandonedGzipLeavesNothing) {
  TraceFileWriter::Options gz;
  gz.gzip = true;
  {
    TraceFileWriter w;
    ASSERT_TRUE(w.open(final_ + ".gz", gz).ok());
    ASSERT_TRUE(w.appendEvents(",\n{}").ok());
  }
  EXPECT_TRUE(names().empty());
}

TEST_F(TraceFileWriterTest, MissingFolderIsAnError) {
  TraceFileWriter w;
  Status s = w.open((dir_ / "no" / "such" / "t.json").string());
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("cannot create"), std::string::npos);
}

}  // namespace
}  // namespace xstack
