// The communicator every stage takes: the only door to MPI. Two
// implementations: MpiComm (src/comm/MpiComm.cpp, the only file that
// includes <mpi.h>) and SerialComm (one rank, no MPI at all), so the whole
// pipeline runs and is unit-tested without mpirun.
//
// Sizes are 64-bit everywhere; messages of any size are split into pieces
// of at most chunkBytes() (MPI counts are int), and reassembled.
// Functions marked "collective" must be called by every rank, in the same
// order; callers first agree (allTrue) that no rank has failed, so a local
// error never leaves a rank waiting in a collective alone.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace xstack {

struct Message {
  uint64_t kind = 0;  // caller-defined
  std::string data;
};

class Comm {
 public:
  virtual ~Comm() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // This process's host name (gethostname).
  virtual std::string host() const;

  // collective: everyone's `mine`, indexed by rank.
  virtual std::vector<std::string> allgather(const std::string& mine) = 0;
  // collective: logical AND of `ok` over all ranks.
  virtual bool allTrue(bool ok) = 0;
  // collective
  virtual void barrier() = 0;

  // Point to point, any size. Messages between two ranks with one tag
  // arrive in the order they were sent. send() is synchronous: it returns
  // once the receiver has started receiving, so a sender never runs ahead
  // of the receiver by more than one message (bounded memory on rank 0).
  virtual void send(int dest, int tag, uint64_t kind, std::string_view data) = 0;
  virtual Message recv(int source, int tag) = 0;

  // Starts sending `data` (taken over, freed once the receiver has it) and
  // returns without waiting for the receiver: the sender goes on working
  // while the message is in flight. Order with send() and other posts to
  // the same (dest, tag) is kept. Memory stays bounded only if the caller
  // calls waitPosted(n) regularly. The default is a synchronous send().
  virtual void post(int dest, int tag, uint64_t kind, std::string data) {
    send(dest, tag, kind, data);
  }
  // Waits until at most `atMost` posted messages are still in flight. The
  // buffers of the messages that completed go to `done` when given (reuse).
  virtual void waitPosted(size_t /*atMost*/, std::vector<std::string>* /*done*/ = nullptr) {}
  // recv() into `m`, reusing m.data's memory.
  virtual void recvInto(int source, int tag, Message& m) { m = recv(source, tag); }

  // Whether this process may run threads besides the one that calls the
  // Comm (MPI_THREAD_FUNNELED or better).
  virtual bool threadsAllowed() const { return true; }

  uint64_t chunkBytes() const { return chunkBytes_; }
  void setChunkBytes(uint64_t b) { chunkBytes_ = b ? b : 1; }

 protected:
  uint64_t chunkBytes_ = uint64_t{1} << 30;  // 1 GiB pieces
};

// One rank, no MPI.
class SerialComm final : public Comm {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  std::vector<std::string> allgather(const std::string& mine) override { return {mine}; }
  bool allTrue(bool ok) override { return ok; }
  void barrier() override {}
  void send(int, int, uint64_t, std::string_view) override;
  Message recv(int, int) override;
};

// True when this process was started by an MPI launcher (mpirun, srun with
// PMIx/PMI); then the world communicator is MPI, otherwise SerialComm.
bool launchedByMpi();

// Initializes MPI (when launched by it) and returns the world communicator.
// MPI is finalized when the returned object is destroyed.
std::unique_ptr<Comm> makeWorldComm(int* argc, char*** argv);

// The MPI library's own version line (MPI_Get_library_version, first line),
// e.g. "Open MPI v4.1.4, package: ...". Needs no MPI_Init.
std::string mpiLibraryVersion();

}  // namespace xstack
