// The thread stand-in for MPI: a Comm whose ranks are threads of one process
// (tests run the real pipeline on 1..N ranks without mpirun). Sends are
// synchronous like MPI_Ssend; collectives meet at a generation barrier. A rank
// that waits 60 s aborts the process: a protocol error must not hang a test.
// Header-only; no MPI.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "xstack/comm/Comm.h"

namespace xstack {

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
  ThreadComm(ThreadWorld& w, int rank, std::string host, bool threads = true)
      : w_(w), rank_(rank), host_(std::move(host)), threads_(threads) {}
  int rank() const override { return rank_; }
  bool threadsAllowed() const override { return threads_; }
  int size() const override { return w_.size(); }
  std::string host() const override { return host_; }
  std::vector<std::string> allgather(const std::string& mine) override {
    return w_.exchange(rank_, mine);
  }
  bool allTrue(bool ok) override {
    for (const auto& s : w_.exchange(rank_, ok ? "1" : "0"))
      if (s != "1") return false;
    return true;
  }
  void barrier() override { w_.exchange(rank_, ""); }
  void send(int dest, int tag, uint64_t kind, std::string_view data) override {
    w_.send(rank_, dest, tag, Message{kind, std::string(data)});
  }
  Message recv(int source, int tag) override { return w_.recv(source, rank_, tag); }

 private:
  ThreadWorld& w_;
  int rank_;
  std::string host_;
  bool threads_;
};

}  // namespace xstack
