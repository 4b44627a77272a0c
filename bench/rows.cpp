// xstack_rows: the cost of many distinct device ids. The same N
// GPU kernel events, once all on device 0 and once each on its own device
// (N rows), through RowCollector alone and through a whole `report` run
// (SerialComm), in a temporary folder. Prints seconds and the ratio.
//
//   build/bin/xstack_rows [N=150000]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "profiler.pb.h"
#include "xstack/cmd/cli/Cli.h"
#include "xstack/cmd/report/Report.h"
#include "xstack/comm/Comm.h"
#include "xstack/model/RankRows.h"

namespace fs = std::filesystem;
namespace pb = paddle::platform::proto;
using namespace xstack;

namespace {

double seconds(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double collectorSeconds(int64_t n, bool distinct) {
  EventList d;
  for (int64_t i = 0; i < n; ++i) {
    SliceEvent e;
    e.row = {RowKind::Gpu, distinct ? (i * 7919) % n : 0};  // shuffled order
    d.slices.push_back(e);
  }
  auto t0 = std::chrono::steady_clock::now();
  auto rows = rankRows(d);
  double s = seconds(t0);
  if (rows.size() != static_cast<size_t>(distinct ? n : 1)) std::abort();
  return s;
}

double reportSeconds(const fs::path& root, int64_t n, bool distinct) {
  const fs::path data = root / (distinct ? "distinct" : "one");
  fs::create_directories(data / "profile");
  pb::Profile p;
  const uint64_t t0ns = 1700000000ull * 1000000000ull;
  for (int64_t i = 0; i < n; ++i) {
    pb::Event* e = p.add_events();
    e->set_type(pb::Event::GPUKernel);
    e->set_name("k");
    e->set_start_ns(t0ns + static_cast<uint64_t>(i) * 1000);
    e->set_end_ns(t0ns + static_cast<uint64_t>(i) * 1000 + 500);
    e->set_device_id(distinct ? (i * 7919) % n : 0);
    e->set_sub_device_id(7);
  }
  p.set_start_ns(t0ns);
  p.set_end_ns(t0ns + static_cast<uint64_t>(n) * 1000 + 1000);
  std::ofstream(data / "profile" / "p.0", std::ios::binary) << p.SerializeAsString();
  ReportOptions o;
  o.dataDir = data.string();
  o.outDir = (data / "out").string();
  o.topology = Topology{1, 1, 1};
  o.progress = false;
  SerialComm comm;
  auto t = std::chrono::steady_clock::now();
  if (runReport(comm, o) != kExitOk) std::abort();
  return seconds(t);
}

}  // namespace

int main(int argc, char** argv) {
  const int64_t n = argc > 1 ? std::atoll(argv[1]) : 150000;
  char tmpl[] = "/tmp/xstack_rows_XXXXXX";
  if (!::mkdtemp(tmpl)) return 1;
  const fs::path root(tmpl);
  const double c1 = collectorSeconds(n, false), cN = collectorSeconds(n, true);
  std::printf("RowCollector, %lld events: 1 device %.4f s, %lld devices %.4f s, ratio %.1f\n",
              static_cast<long long>(n), c1, static_cast<long long>(n), cN, cN / c1);
  const double r1 = reportSeconds(root, n, false), rN = reportSeconds(root, n, true);
  std::printf("report,       %lld events: 1 device %.3f s, %lld devices %.3f s, ratio %.1f\n",
              static_cast<long long>(n), r1, static_cast<long long>(n), rN, rN / r1);
  fs::remove_all(root);
  return 0;
}
