// The source registry, and the Paddle source behind the Source interface:
// decoding a file through it gives the events the wire mapping gives.
#include <gtest/gtest.h>

#include <string>

#include "../TempDirTest.h"
#include "profiler.pb.h"
#include "xstack/source/SourceRegistry.h"
#include "xstack/source/paddle/WireEvents.h"

namespace xstack {
namespace {

namespace pb = paddle::platform::proto;

TEST(SourceRegistry, PaddleIsTheDefaultAndFoundByName) {
  ASSERT_FALSE(registeredSources().empty());
  EXPECT_EQ(defaultSource().name(), "paddle");
  EXPECT_EQ(findSource("paddle"), &defaultSource());
  EXPECT_EQ(findSource("no_such_format"), nullptr);
}

class PaddleSourceTest : public TempDirTest {};

TEST_F(PaddleSourceTest, DecodeTraceGivesTheMappedEvents) {
  pb::Profile p;
  pb::Event* e = p.add_events();
  e->set_name("k");
  e->set_start_ns(10);
  e->set_end_ns(20);
  e->set_device_id(3);
  e->set_sub_device_id(7);
  e->set_type(pb::Event::GPUKernel);
  pb::Event* bad = p.add_events();
  bad->set_name("bad");
  bad->set_device_id(-4);
  pb::MemEvent* m = p.add_mem_events();
  m->set_start_ns(5);
  m->set_bytes(8);
  m->set_place(pb::MemEvent::CUDAPinnedPlace);
  p.set_start_ns(1);
  p.set_end_ns(100);  // a complete profile, not a partial one
  std::string bytes;
  ASSERT_TRUE(p.SerializeToString(&bytes));
  const std::string path = write("profile_rank.0", bytes);

  EventList viaSource;
  Warnings w;
  std::unique_ptr<FileBuffer> buffer;
  auto info = defaultSource().decodeTrace(path, buffer, viaSource, {&w, "p.0"});
  ASSERT_TRUE(info.ok());
  EXPECT_TRUE(info->partial.empty());
  EXPECT_EQ(info->fileBytes, bytes.size());
  ASSERT_EQ(viaSource.slices.size(), 1u);
  EXPECT_EQ(viaSource.slices[0].row, (RowKey{RowKind::Gpu, 3}));
  EXPECT_EQ(viaSource.slices[0].tid, 7);
  ASSERT_EQ(viaSource.unplaced.size(), 1u);
  ASSERT_EQ(viaSource.memory.size(), 1u);
  EXPECT_EQ(viaSource.memory[0].place, MemPlace::Pinned);
  EXPECT_EQ(w.count(Warn::EventBadDevice), 1u);

  EventList direct;
  ASSERT_TRUE(decodeProfileEvents(bytes, direct).ok());
  EXPECT_EQ(direct.slices.size(), viaSource.slices.size());
  EXPECT_EQ(direct.unplaced.size(), viaSource.unplaced.size());
  EXPECT_EQ(direct.memory.size(), viaSource.memory.size());
}

TEST_F(PaddleSourceTest, AProfileIsNotACounterFile) {
  InputFile f;
  f.kind = InputKind::Profile;
  f.path = write("profile_rank.0", "");
  CounterFileData data;
  EXPECT_FALSE(defaultSource().readCounterFile(f, "profile_rank.0", data).ok());
}

}  // namespace
}  // namespace xstack
