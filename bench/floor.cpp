// xstack_floor: the unavoidable work of `xstack report`, and nothing else.
//
//   1. read every profile file of a folder (whole file into memory),
//   2. parse it with protobuf (paddle::platform::proto::Profile::ParseFromString),
//   3. write N bytes (the total size of xstack's outputs, given) to K files in
//      an output folder, the way xstack does: a temporary file, 4 MiB writes,
//      fsync, close, rename.
//
// xstack's wall time over this program's, measured in the same run, is the
// headline figure of docs/PERFORMANCE.md. With --threads T the files are
// parsed by T threads (the machine's parallelism); the writing is always one
// thread, as on xstack's rank 0.
//
// --parse picks the parser: `protobuf` (the floor, default),
// `arena` (protobuf into an Arena: no per-message frees) or `none` (read and
// write only: the I/O floor of this machine).
//
// Prints one line of key=value pairs (times in seconds) that bench/run reads.
#include <fcntl.h>
#include <google/protobuf/arena.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "profiler.pb.h"

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

double secondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

[[noreturn]] void die(const std::string& m) {
  std::fprintf(stderr, "xstack_floor: %s\n", m.c_str());
  std::exit(1);
}

std::string readAll(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) die(path + ": " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0) die(path + ": " + std::strerror(errno));
  std::string buf(static_cast<size_t>(st.st_size), '\0');
  size_t got = 0;
  while (got < buf.size()) {
    ssize_t n = ::read(fd, buf.data() + got, buf.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  ::close(fd);
  buf.resize(got);
  return buf;
}

void writeAll(int fd, const char* p, size_t n, const std::string& path) {
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) die(path + ": write: " + std::strerror(errno));
    p += w;
    n -= static_cast<size_t>(w);
  }
}

void usage() {
  std::fprintf(
      stderr,
      "usage: xstack_floor --profile-dir DIR --out DIR --bytes N [--files K] [--threads T]\n"
      "                    [--parse protobuf|arena|none] [--no-fsync]\n"
      "  --bytes N     bytes to write in total (xstack's output size)\n"
      "  --files K     spread them over K files (xstack's output count; default 1)\n"
      "  --threads T   parse with T threads (default 1)\n"
      "  --parse P     protobuf (default), arena (protobuf on an Arena) or none (I/O only)\n"
      "  --no-fsync    do not fsync the outputs\n");
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  GOOGLE_PROTOBUF_VERIFY_VERSION;
  std::string profileDir, outDir;
  uint64_t bytes = 0, files = 1;
  int threads = 1;
  bool doFsync = true;
  std::string parse = "protobuf";
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) usage();
      return argv[++i];
    };
    if (a == "--profile-dir")
      profileDir = next();
    else if (a == "--out")
      outDir = next();
    else if (a == "--bytes")
      bytes = std::strtoull(next().c_str(), nullptr, 10);
    else if (a == "--files")
      files = std::max<uint64_t>(1, std::strtoull(next().c_str(), nullptr, 10));
    else if (a == "--threads")
      threads = std::max(1, std::atoi(next().c_str()));
    else if (a == "--no-fsync")
      doFsync = false;
    else if (a == "--parse")
      parse = next();
    else
      usage();
  }
  if (profileDir.empty() || outDir.empty()) usage();
  if (parse != "protobuf" && parse != "arena" && parse != "none") usage();

  const auto t0 = Clock::now();
  std::vector<std::string> paths;
  for (const auto& e : fs::directory_iterator(profileDir))
    if (e.is_regular_file()) paths.push_back(e.path().string());
  std::sort(paths.begin(), paths.end());
  if (paths.empty()) die("no files in " + profileDir);

  // Read + parse, T threads taking files in turn.
  std::atomic<size_t> nextFile{0};
  std::atomic<uint64_t> inBytes{0}, events{0}, memEvents{0};
  std::mutex timeMu;
  double readS = 0, parseS = 0;  // summed over threads
  auto worker = [&] {
    double r = 0, p = 0;
    for (size_t i; (i = nextFile++) < paths.size();) {
      auto ta = Clock::now();
      std::string buf = readAll(paths[i]);
      r += secondsSince(ta);
      auto tb = Clock::now();
      if (parse == "protobuf") {
        paddle::platform::proto::Profile prof;
        if (!prof.ParseFromString(buf)) die(paths[i] + ": not a profile");
        events += static_cast<uint64_t>(prof.events_size());
        memEvents += static_cast<uint64_t>(prof.mem_events_size());
      } else if (parse == "arena") {  // destroyed with the arena: part of the parse cost
        google::protobuf::Arena arena;
        auto* prof =
            google::protobuf::Arena::CreateMessage<paddle::platform::proto::Profile>(&arena);
        if (!prof->ParseFromString(buf)) die(paths[i] + ": not a profile");
        events += static_cast<uint64_t>(prof->events_size());
        memEvents += static_cast<uint64_t>(prof->mem_events_size());
      }
      p += secondsSince(tb);
      inBytes += buf.size();
    }
    std::lock_guard<std::mutex> lock(timeMu);
    readS += r;
    parseS += p;
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  const double readParseWall = secondsSince(t0);

  // Write: K files, temp + rename, 4 MiB writes, fsync.
  const auto tw = Clock::now();
  fs::create_directories(outDir);
  std::string block(4u << 20, ' ');
  for (size_t i = 0; i < block.size(); i += 64) block[i] = '\n';
  double fsyncS = 0;
  for (uint64_t f = 0; f < files; ++f) {
    uint64_t n = bytes / files + (f + 1 == files ? bytes % files : 0);
    std::string final = (fs::path(outDir) / ("floor_" + std::to_string(f) + ".json")).string();
    std::string temp = final + ".tmp";
    int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) die(temp + ": " + std::strerror(errno));
    for (uint64_t off = 0; off < n; off += block.size())
      writeAll(fd, block.data(), static_cast<size_t>(std::min<uint64_t>(block.size(), n - off)),
               temp);
    if (doFsync) {
      auto ts = Clock::now();
      ::fsync(fd);
      fsyncS += secondsSince(ts);
    }
    ::close(fd);
    if (std::rename(temp.c_str(), final.c_str()) != 0) die(final + ": rename failed");
  }
  const double writeS = secondsSince(tw);
  const double total = secondsSince(t0);

  std::printf(
      "floor: files=%zu in_bytes=%llu events=%llu mem_events=%llu out_bytes=%llu out_files=%llu "
      "threads=%d parse=%s read_s=%.4f parse_s=%.4f read_parse_wall_s=%.4f write_s=%.4f "
      "fsync_s=%.4f "
      "total_s=%.4f\n",
      paths.size(), static_cast<unsigned long long>(inBytes.load()),
      static_cast<unsigned long long>(events.load()),
      static_cast<unsigned long long>(memEvents.load()), static_cast<unsigned long long>(bytes),
      static_cast<unsigned long long>(files), threads, parse.c_str(), readS, parseS, readParseWall,
      writeS, fsyncS, total);
  google::protobuf::ShutdownProtobufLibrary();
  return 0;
}
