#include "xstack/core/ParallelWork.h"

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <thread>
#include <vector>

namespace xstack {

unsigned cpusOfProcess() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0)
    return std::max(1U, std::thread::hardware_concurrency());
  return static_cast<unsigned>(std::max(1, CPU_COUNT(&set)));
}

unsigned workersFor(unsigned threads, size_t items) {
  const size_t most = std::max<size_t>(items, 1);
  return static_cast<unsigned>(std::clamp<size_t>(threads, 1, most));
}

namespace {

// The first failure of the loop by item: the one rethrown.
struct FirstFailure {
  std::mutex mutex;
  size_t item = SIZE_MAX;
  std::exception_ptr error;
  void note(size_t i, std::exception_ptr e) {
    std::lock_guard<std::mutex> lock(mutex);
    if (i < item) {
      item = i;
      error = std::move(e);
    }
  }
};

}  // namespace

void forEachItem(size_t items, unsigned threads,
                 const std::function<void(size_t item, unsigned worker)>& work) {
  const unsigned workers = workersFor(threads, items);
  if (workers == 1) {
    for (size_t i = 0; i < items; ++i) work(i, 0);
    return;
  }
  std::atomic<size_t> next{0};
  std::atomic<bool> stop{false};
  FirstFailure failure;
  auto run = [&](unsigned worker) {
    for (size_t i = next++; i < items && !stop; i = next++) {
      try {
        work(i, worker);
      } catch (...) {
        failure.note(i, std::current_exception());
        stop = true;
      }
    }
  };
  std::vector<std::jthread> pool;
  for (unsigned w = 1; w < workers; ++w) pool.emplace_back(run, w);
  run(0);
  pool.clear();  // joins
  if (failure.error) std::rethrow_exception(failure.error);
}

uint64_t SharedBudget::claim(uint64_t most) {
  std::lock_guard<std::mutex> lock(mutex_);
  const uint64_t left = total_ - std::min(total_, used_ + claimed_);
  const uint64_t share = most ? std::min(left, most) : left;
  claimed_ += share;
  return share;
}

void SharedBudget::settle(uint64_t claimed, uint64_t used) {
  std::lock_guard<std::mutex> lock(mutex_);
  claimed_ -= std::min(claimed_, claimed);
  used_ += std::min(used, claimed);
}

uint64_t SharedBudget::used() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return used_;
}

}  // namespace xstack
