// Sorts more records than a rank may hold: records are kept up to a budget
// (SpillOptions::memoryBytes), then sorted and written to a SpillFile as one
// sorted run; read() merges the runs in order. Below the budget nothing
// touches the disk and read() walks the records sorted in memory, so a small
// input costs what a std::vector and a std::stable_sort cost.
//
// Contract:
// - T is trivially copyable (records are written as their bytes); `Less` is a
//   strict weak order. The order is stable: equal records come in push order.
// - Memory: at most about memoryBytes while pushing (the held records and the
//   stable sort's buffer); a reader of a spilled sorter holds one read buffer
//   per run, together about memoryBytes (at least 64 KiB each). More runs than
//   that allows are merged into fewer by finish() (more passes over the disk,
//   never more memory).
// - Errors (the scratch file cannot be made, written or read back) are
//   sticky: push() then does nothing, finish() and status() return the first
//   one, and a reader ends early with it in its status(). A caller checks the
//   status after finish() and after each pass.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <span>
#include <string_view>
#include <type_traits>
#include <vector>

#include "xstack/io/SpillFile.h"

namespace xstack {

template <class T, class Less = std::less<T>>
class ExternalSorter {
  static_assert(std::is_trivially_copyable_v<T>, "records are spilled as their bytes");

 public:
  struct Run {
    uint64_t offset = 0;  // bytes into the scratch file
    uint64_t count = 0;   // records
  };

  explicit ExternalSorter(SpillOptions options = {}, Less less = {})
      : options_(std::move(options)),
        less_(less),
        // The stable sort borrows a buffer of half the records: 2/3 of the budget is records.
        capacity_(std::max<uint64_t>(1024, options_.memoryBytes * 2 / 3 / sizeof(T))) {}

  void push(const T& record) {
    if (!status_.ok() || finished_) return;
    if (held_.size() == capacity_) spillHeld();
    if (held_.size() == held_.capacity())
      held_.reserve(std::min<uint64_t>(capacity_, std::max<size_t>(1024, 2 * held_.capacity())));
    // One comparison while the held records are still in order: input that
    // comes sorted (most GPU activity of a trace) is not sorted again.
    if (heldInOrder_ && !held_.empty() && less_(record, held_.back())) heldInOrder_ = false;
    held_.push_back(record);
    ++count_;
  }

  // Ends the input: sorts what is held, or spills it as the last run and
  // merges runs down to what one reader can hold. Returns status().
  Status finish() {
    if (finished_) return status_;
    finished_ = true;
    if (runs_.empty()) {
      sortHeld();
      return status_;
    }
    if (!held_.empty()) spillHeld();
    std::vector<T>().swap(held_);
    if (status_.ok()) status_ = file_->flush();
    while (status_.ok() && runs_.size() > maxFanIn()) mergePass();
    return status_;
  }

  const Status& status() const { return status_; }
  uint64_t size() const { return count_; }
  bool spilled() const { return !runs_.empty(); }
  size_t runCount() const { return runs_.size(); }

  // One pass over the records in order. The sorter must outlive it and take
  // no push() meanwhile; passes may follow one another.
  class Reader {
   public:
    // The next record into `out`; false at the end or on a read error.
    bool next(T& out) {
      if (memory_) {
        if (at_ == memory_->size()) return false;
        out = (*memory_)[at_++];
        return true;
      }
      return nextMerged(out);
    }
    const Status& status() const { return status_; }

   private:
    friend class ExternalSorter;
    struct Cursor {
      const Run* run = nullptr;
      uint64_t consumed = 0;  // records of the run taken into `buffer`
      std::vector<T> buffer;
      size_t at = 0;  // next record of `buffer`
    };
    Reader(const std::vector<T>* memory) : memory_(memory) {}
    Reader(const ExternalSorter* owner, std::span<const Run> runs, uint64_t bufferRecords)
        : owner_(owner) {
      cursors_.resize(runs.size());
      for (size_t i = 0; i < runs.size(); ++i) {
        cursors_[i].run = &runs[i];
        cursors_[i].buffer.reserve(std::min<uint64_t>(runs[i].count, bufferRecords));
        if (refill(cursors_[i])) heap_.push_back(i);
      }
      std::make_heap(heap_.begin(), heap_.end(), later());
    }
    // The heap's order: the cursor whose head comes later is "less" (a max-heap
    // of std::make_heap keeps the earliest head on top); ties by run index.
    auto later() const {
      return [this](size_t a, size_t b) {
        const T& x = head(a);
        const T& y = head(b);
        if (owner_->less_(y, x)) return true;
        if (owner_->less_(x, y)) return false;
        return a > b;
      };
    }
    const T& head(size_t c) const { return cursors_[c].buffer[cursors_[c].at]; }
    // Reads the cursor's next piece; false when its run is done (or on error).
    bool refill(Cursor& c) {
      c.at = 0;
      c.buffer.clear();
      const uint64_t left = c.run->count - c.consumed;
      if (left == 0 || !status_.ok()) return false;
      const uint64_t n = std::min<uint64_t>(left, c.buffer.capacity());
      c.buffer.resize(n);
      status_ = owner_->file_->readAt(c.run->offset + c.consumed * sizeof(T),
                                      reinterpret_cast<char*>(c.buffer.data()), n * sizeof(T));
      c.consumed += n;
      return status_.ok();
    }
    bool nextMerged(T& out) {
      if (heap_.empty()) return false;
      std::pop_heap(heap_.begin(), heap_.end(), later());
      const size_t c = heap_.back();
      Cursor& cur = cursors_[c];
      out = cur.buffer[cur.at++];
      if (cur.at < cur.buffer.size() || refill(cur))
        std::push_heap(heap_.begin(), heap_.end(), later());
      else
        heap_.pop_back();
      return status_.ok();
    }

    const std::vector<T>* memory_ = nullptr;
    size_t at_ = 0;
    const ExternalSorter* owner_ = nullptr;
    std::vector<Cursor> cursors_;
    std::vector<size_t> heap_;  // cursors with records left
    Status status_;
  };

  // A pass over every record, in order (after finish()).
  Reader read() const {
    if (runs_.empty()) return Reader(&held_);
    return Reader(this, runs_, bufferRecordsFor(runs_.size()));
  }

 private:
  static constexpr uint64_t kMinRunBufferBytes = uint64_t{64} << 10;

  uint64_t maxFanIn() const {
    return std::max<uint64_t>(2, options_.memoryBytes / kMinRunBufferBytes);
  }
  uint64_t bufferRecordsFor(size_t runs) const {
    const uint64_t bytes =
        std::max(kMinRunBufferBytes, options_.memoryBytes / std::max<size_t>(1, runs));
    return std::max<uint64_t>(1, bytes / sizeof(T));
  }

  // Sorts the held records and appends them to the scratch file as one run.
  void spillHeld() {
    if (!file_) {
      Expected<SpillFile> f = SpillFile::create(options_.dir);
      if (!f) {
        status_ = f.error();
        return;
      }
      file_.emplace(std::move(*f));
    }
    sortHeld();
    const Run run{file_->size(), held_.size()};
    status_ = file_->append(
        std::string_view(reinterpret_cast<const char*>(held_.data()), held_.size() * sizeof(T)));
    runs_.push_back(run);
    held_.clear();
    heldInOrder_ = true;
  }

  // The held records in order (stable); a no-op when they came in order.
  void sortHeld() {
    if (!heldInOrder_) std::stable_sort(held_.begin(), held_.end(), less_);
  }

  // One merge pass: each group of maxFanIn() consecutive runs becomes one run
  // (written at the end of the file), so the runs keep push order.
  void mergePass() {
    const size_t n = maxFanIn();
    std::vector<Run> merged;
    for (size_t first = 0; status_.ok() && first < runs_.size(); first += n) {
      const size_t count = std::min(n, runs_.size() - first);
      merged.push_back(count == 1 ? runs_[first]
                                  : mergeRuns(std::span<const Run>(runs_).subspan(first, count)));
    }
    runs_ = std::move(merged);
  }

  Run mergeRuns(std::span<const Run> group) {
    const uint64_t pieceRecords = bufferRecordsFor(group.size() + 1);
    Reader merged(this, group, pieceRecords);
    Run out{file_->size(), 0};
    std::vector<T> piece;
    piece.reserve(pieceRecords);
    auto writePiece = [&] {
      status_ = file_->append(
          std::string_view(reinterpret_cast<const char*>(piece.data()), piece.size() * sizeof(T)));
      out.count += piece.size();
      piece.clear();
    };
    T r;
    while (status_.ok() && merged.next(r)) {
      piece.push_back(r);
      if (piece.size() == pieceRecords) writePiece();
    }
    if (status_.ok() && !merged.status().ok()) status_ = merged.status();
    if (status_.ok() && !piece.empty()) writePiece();
    if (status_.ok()) status_ = file_->flush();
    return out;
  }

  SpillOptions options_;
  Less less_;
  uint64_t capacity_;  // records held before a spill
  std::vector<T> held_;
  std::vector<Run> runs_;
  std::optional<SpillFile> file_;
  uint64_t count_ = 0;
  bool finished_ = false;
  bool heldInOrder_ = true;  // no held record is less than the one pushed before it
  Status status_;
};

}  // namespace xstack
