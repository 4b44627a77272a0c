// The registry of output formats: every TraceFormat has one entry, names and
// suffixes are distinct, names find their entry, and each entry's sink is of
// its format (a JSON chunk is JSON text, a Perfetto chunk protobuf packets).
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "xstack/render/OutputFormats.h"

namespace xstack {
namespace {

TEST(OutputFormatsTest, OneEntryPerFormatWithDistinctNamesAndSuffixes) {
  std::set<std::string_view> names, suffixes;
  for (const OutputFormat& f : outputFormats()) {
    EXPECT_EQ(&outputFormat(f.format), &f);
    EXPECT_EQ(outputFormatNamed(f.name), &f);
    names.insert(f.name);
    suffixes.insert(f.suffix);
  }
  EXPECT_EQ(names.size(), outputFormats().size());
  EXPECT_EQ(suffixes.size(), outputFormats().size());
  EXPECT_EQ(outputFormat(TraceFormat::Json).suffix, ".json");
  EXPECT_EQ(outputFormat(TraceFormat::Perfetto).suffix, ".pftrace");
  EXPECT_FALSE(outputFormat(TraceFormat::Json).rawFile);
  EXPECT_TRUE(outputFormat(TraceFormat::Perfetto).rawFile);
  EXPECT_EQ(outputFormatNamed("pftrace"), nullptr);
  EXPECT_EQ(outputFormatNamed(""), nullptr);
}

TEST(OutputFormatsTest, EachEntryMakesASinkOfItsFormat) {
  for (TraceFormat fmt : {TraceFormat::Json, TraceFormat::Perfetto}) {
    std::string bytes;
    auto sink = outputFormat(fmt).makeSink(0, [&bytes](std::string& piece) { bytes += piece; },
                                           1 << 20, {});
    sink->process(8, "08_trainerRank.000:cuda_api");
    sink->flush();
    ASSERT_FALSE(bytes.empty());
    if (fmt == TraceFormat::Json)
      EXPECT_NE(bytes.find("\"process_name\""), std::string::npos);
    else
      EXPECT_EQ(bytes.find("\"process_name\""), std::string::npos);  // protobuf, not JSON
    EXPECT_NE(bytes.find("08_trainerRank.000:cuda_api"), std::string::npos);
  }
}

// Rank 0 writes every file of every format: its weight is the largest one's.
TEST(OutputFormatsTest, Rank0WriteWeightOfTheFormatsWritten) {
  const TraceFormat json[] = {TraceFormat::Json};
  const TraceFormat perfetto[] = {TraceFormat::Perfetto};
  const TraceFormat both[] = {TraceFormat::Perfetto, TraceFormat::Json};
  EXPECT_EQ(rank0WriteWeightOf(json), 1.0);
  EXPECT_EQ(rank0WriteWeightOf(perfetto), 0.25);
  EXPECT_EQ(rank0WriteWeightOf(both), 1.0);
}

TEST(OutputFormatsTest, TraceFileNamesOfEveryFormat) {
  EXPECT_TRUE(isTraceFileName("traceFile_0_0.json"));
  EXPECT_TRUE(isTraceFileName("traceFile_12_7.json.gz"));
  EXPECT_TRUE(isTraceFileName("traceFile_3_1.pftrace"));
  EXPECT_TRUE(isTraceFileName("traceFile_3_1.pftrace.gz"));
  EXPECT_FALSE(isTraceFileName("traceFile_notes.txt"));
  EXPECT_FALSE(isTraceFileName("traceFile_0_0.json.bak"));
  EXPECT_FALSE(isTraceFileName("traceFile_0_0.json.gz.gz"));
  EXPECT_FALSE(isTraceFileName("mytraceFile_0_0.json"));
  EXPECT_FALSE(isTraceFileName("traceFile__0.json"));
  EXPECT_FALSE(isTraceFileName("traceFile_0_.json"));
  EXPECT_FALSE(isTraceFileName("traceFile_0_0"));
}

}  // namespace
}  // namespace xstack
