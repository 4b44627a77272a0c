// Threads inside one rank (--threads): a loop whose items run on a few
// std::threads, and a budget those threads share. No MPI call is made from
// these threads: the rank's MPI thread level does not matter to them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>

namespace xstack {

// The CPUs this process may run on (sched_getaffinity), at least 1: the
// default of --threads.
unsigned cpusOfProcess();

// The threads a loop of `items` items uses with `threads` wanted: at least 1,
// at most the items (no thread without an item).
unsigned workersFor(unsigned threads, size_t items);

// Runs work(i, worker) for every i in [0, items), on workersFor(threads, items)
// threads (worker 0 is the calling thread; workers are 0..workers-1). Items
// are taken in ascending order, one at a time, by whichever worker is free, so
// a worker's items are ascending too. Returns when every item is done. An
// exception leaving `work` is rethrown here, after every worker has stopped
// (the one of the lowest item; items after it may not have run). With one
// worker it is a plain loop on the calling thread.
void forEachItem(size_t items, unsigned threads,
                 const std::function<void(size_t item, unsigned worker)>& work);

// An amount (e.g. rows to keep in memory, in ops) shared by threads: each
// claims a share before it knows what it needs, gives back what it did not
// use, and never more than `total` is out at once. Thread-safe.
class SharedBudget {
 public:
  explicit SharedBudget(uint64_t total) : total_(total) {}
  // At most `most` (0: no cap) of what is neither used nor claimed; 0 when none is left.
  uint64_t claim(uint64_t most);
  // Ends a claim of `claimed`: `used` (<= claimed) of it stays used, the rest is free again.
  void settle(uint64_t claimed, uint64_t used);
  uint64_t used() const;

 private:
  mutable std::mutex mutex_;
  const uint64_t total_;
  uint64_t used_ = 0, claimed_ = 0;
};

}  // namespace xstack
