// The only file that includes <mpi.h>.
#include <mpi.h>
#include <time.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "xstack/comm/Comm.h"

namespace xstack {
namespace {

// Waits for a request without spinning a core: a few quick polls, then
// sleeps that grow to 0.5 ms. Rank 0 spends most of a run waiting for the
// next piece while the other ranks render; spinning would steal their CPU
// whenever ranks share cores (oversubscribed nodes, small test machines).
void waitGently(MPI_Request* req) {
  int done = 0;
  long sleepNs = 20'000;
  for (int polls = 0;; ++polls) {
    MPI_Test(req, &done, MPI_STATUS_IGNORE);
    if (done) return;
    if (polls < 64) continue;
    timespec ts{0, sleepNs};
    nanosleep(&ts, nullptr);
    sleepNs = std::min(sleepNs * 2, 500'000L);
  }
}

// Open MPI defaults xstack chooses before MPI_Init, each only when the user
// has not chosen (mpirun --mca and srun pass choices as OMPI_MCA_* variables;
// XSTACK_MPI_DEFAULTS=0 turns all of this off, e.g. to keep a setting from
// a site's openmpi-mca-params.conf, which this environment would override).
//
// - pml ob1: without it Open MPI 4 probes the cm PML's libfabric/PSM
//   transports in MPI_Init, 0.2 s of a 0.3 s MPI_Init on a 2-core node
//   (docs/PERFORMANCE.md). xstack moves only rendered text to rank 0 and a
//   few collectives; ob1 over shared memory and TCP serves that everywhere.
void chooseOpenMpiDefaults() {
  if (const char* v = std::getenv("XSTACK_MPI_DEFAULTS"); v && std::string(v) == "0") return;
  if (!std::getenv("OMPI_MCA_pml") && !std::getenv("OMPI_MCA_mtl"))
    setenv("OMPI_MCA_pml", "ob1", 0);
}

class MpiComm final : public Comm {
 public:
  MpiComm(int* argc, char*** argv) {
    int inited = 0;
    MPI_Initialized(&inited);
    if (inited) {  // started by someone else: ask what they chose
      int provided = MPI_THREAD_SINGLE;
      MPI_Query_thread(&provided);
      threads_ = provided >= MPI_THREAD_FUNNELED;
    }
    if (!inited) {
      chooseOpenMpiDefaults();
      // Funneled: rank 0 renders on a second thread, which never calls MPI.
      int provided = MPI_THREAD_SINGLE;
      MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
      threads_ = provided >= MPI_THREAD_FUNNELED;
      owns_ = true;
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &comm_);
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
  }
  ~MpiComm() override {
    waitPosted(0, nullptr);
    MPI_Comm_free(&comm_);
    if (owns_) MPI_Finalize();
  }

  int rank() const override { return rank_; }
  bool threadsAllowed() const override { return threads_; }
  int size() const override { return size_; }

  std::vector<std::string> allgather(const std::string& mine) override {
    // Sizes first (64-bit), then each rank's bytes broadcast in pieces.
    uint64_t n = mine.size();
    std::vector<uint64_t> sizes(static_cast<size_t>(size_));
    MPI_Request req;
    MPI_Iallgather(&n, 1, MPI_UINT64_T, sizes.data(), 1, MPI_UINT64_T, comm_, &req);
    waitGently(&req);
    std::vector<std::string> all(static_cast<size_t>(size_));
    for (int r = 0; r < size_; ++r) {
      std::string& buf = all[static_cast<size_t>(r)];
      if (r == rank_)
        buf = mine;
      else
        buf.resize(sizes[static_cast<size_t>(r)]);
      for (uint64_t off = 0; off < buf.size(); off += chunkBytes_) {
        int count = static_cast<int>(std::min<uint64_t>(chunkBytes_, buf.size() - off));
        MPI_Ibcast(buf.data() + off, count, MPI_BYTE, r, comm_, &req);
        waitGently(&req);
      }
    }
    return all;
  }

  // Collectives wait gently too: a rank that arrives early (rank 0, which
  // writes while the others read) must not spin on a core they need.
  bool allTrue(bool ok) override {
    int in = ok ? 1 : 0, out = 0;
    allreduce(&in, &out, MPI_INT, MPI_LAND);
    return out != 0;
  }
  void barrier() override {
    MPI_Request req;
    MPI_Ibarrier(comm_, &req);
    waitGently(&req);
  }

  void send(int dest, int tag, uint64_t kind, std::string_view data) override {
    uint64_t header[2] = {data.size(), kind};
    std::vector<MPI_Request> reqs;
    startSend(dest, tag, header, data, reqs);
    for (MPI_Request& r : reqs) waitGently(&r);
  }

  void post(int dest, int tag, uint64_t kind, std::string data) override {
    auto p = std::make_unique<Posted>();
    p->header[0] = data.size();
    p->header[1] = kind;
    p->data = std::move(data);
    startSend(dest, tag, p->header, p->data, p->reqs);
    posted_.push_back(std::move(p));
  }

  void waitPosted(size_t atMost, std::vector<std::string>* done) override {
    while (posted_.size() > atMost) {
      for (MPI_Request& r : posted_.front()->reqs) waitGently(&r);
      if (done) done->push_back(std::move(posted_.front()->data));
      posted_.pop_front();
    }
  }

  Message recv(int source, int tag) override {
    Message m;
    recvInto(source, tag, m);
    return m;
  }

  void recvInto(int source, int tag, Message& m) override {
    uint64_t header[2] = {0, 0};
    MPI_Request req;
    MPI_Irecv(header, 2, MPI_UINT64_T, source, tag, comm_, &req);
    waitGently(&req);
    m.kind = header[1];
    m.data.clear();
    m.data.resize(header[0]);
    for (uint64_t off = 0; off < m.data.size(); off += chunkBytes_) {
      int count = static_cast<int>(std::min<uint64_t>(chunkBytes_, m.data.size() - off));
      MPI_Irecv(m.data.data() + off, count, MPI_BYTE, source, tag, comm_, &req);
      waitGently(&req);
    }
  }

 private:
  // Starts one message: the 2-word header (size, kind), then `data` in
  // pieces of at most chunkBytes_; the requests go to `reqs`. The header and
  // the data must stay alive until every request is done.
  void startSend(int dest, int tag, uint64_t* header, std::string_view data,
                 std::vector<MPI_Request>& reqs) {
    reqs.emplace_back();
    MPI_Issend(header, 2, MPI_UINT64_T, dest, tag, comm_, &reqs.back());
    for (uint64_t off = 0; off < data.size(); off += chunkBytes_) {
      int count = static_cast<int>(std::min<uint64_t>(chunkBytes_, data.size() - off));
      reqs.emplace_back();
      MPI_Issend(data.data() + off, count, MPI_BYTE, dest, tag, comm_, &reqs.back());
    }
  }

  void allreduce(const void* in, void* out, MPI_Datatype type, MPI_Op op) {
    MPI_Request req;
    MPI_Iallreduce(in, out, 1, type, op, comm_, &req);
    waitGently(&req);
  }

  // A message in flight (post): its buffers live until every request is done.
  struct Posted {
    uint64_t header[2] = {0, 0};
    std::string data;
    std::vector<MPI_Request> reqs;
  };
  std::deque<std::unique_ptr<Posted>> posted_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1;
  bool owns_ = false;
  bool threads_ = false;
};

}  // namespace

std::unique_ptr<Comm> makeWorldComm(int* argc, char*** argv) {
  if (!launchedByMpi()) return std::make_unique<SerialComm>();
  return std::make_unique<MpiComm>(argc, argv);
}

std::string mpiLibraryVersion() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int len = 0;
  if (MPI_Get_library_version(text, &len) != MPI_SUCCESS) return "unknown";
  std::string v(text, static_cast<size_t>(std::clamp(len, 0, MPI_MAX_LIBRARY_VERSION_STRING)));
  v = v.substr(0, v.find_first_of("\r\n"));
  while (!v.empty() && (v.back() == ' ' || v.back() == '\0')) v.pop_back();
  return v.empty() ? "unknown" : v;
}

}  // namespace xstack
