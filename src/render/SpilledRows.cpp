#include "xstack/render/SpilledRows.h"

#include <algorithm>

namespace xstack {

namespace {

// The budget's shares: the ops, the flow candidates, the memory changes.
SpillOptions share(const SpillOptions& all, uint64_t eighths) {
  return {all.dir, std::max<uint64_t>(1, all.memoryBytes / 8 * eighths)};
}

// What RowBuckets holds per event, measured: 153 MB over the floor for a
// 500 MB Kineto rank of 1.23 M events (its 24-byte ops and their vectors'
// growth, the extras of 2 ops in 3, the correlation index, memory events).
constexpr uint64_t kHeldBytesPerOp = 128;

uint64_t durOf(uint64_t startNs, uint64_t endNs) { return endNs < startNs ? 0 : endNs - startNs; }

}  // namespace

uint64_t heldOpsWithin(const SpillOptions& options) {
  return options.memoryBytes / kHeldBytesPerOp;
}

uint64_t heldBytesOf(uint64_t ops) { return ops * kHeldBytesPerOp; }

uint64_t heldOpsOfText(uint64_t bytes) { return (bytes + kHeldBytesPerOp - 1) / kHeldBytesPerOp; }

bool rowsFitInMemory(uint64_t events, const SpillOptions& options) {
  return events <= heldOpsWithin(options);
}

bool SpilledRows::OutputOrder::operator()(const OpRecord& a, const OpRecord& b) const {
  if (a.row != b.row) return a.row < b.row;
  if (a.tid != b.tid) return a.tid < b.tid;
  const uint64_t ta = origin.since(a.startNs), tb = origin.since(b.startNs);
  if (ta != tb) return ta < tb;
  const uint64_t da = durOf(a.startNs, a.endNs), db = durOf(b.startNs, b.endNs);
  if (da != db) return da > db;  // at one ts the longer first: it encloses the shorter
  return a.seq < b.seq;
}

bool SpilledRows::ByCorrelation::operator()(const FlowCandidate& a, const FlowCandidate& b) const {
  if (a.correlation != b.correlation) return a.correlation < b.correlation;
  if (a.gpu != b.gpu) return a.gpu < b.gpu;
  if (a.startNs != b.startNs) return a.startNs < b.startNs;
  return a.seq < b.seq;
}

bool SpilledRows::ByTrack::operator()(const MemoryChange& a, const MemoryChange& b) const {
  if (a.place != b.place) return a.place < b.place;
  if (a.device != b.device) return a.device < b.device;
  return a.ns < b.ns;
}

SpilledRows::SpilledRows(const std::vector<RowKey>& rows, TimeOrigin origin,
                         const SpillOptions& options)
    : rows_(rows),
      origin_(origin),
      ops_(share(options, 6), OutputOrder{origin}),
      flowCandidates_(share(options, 1)),
      memory_(share(options, 1)),
      options_(options) {}

size_t SpilledRows::rowIndex(const RowKey& key) {
  if (lastRow_ < rows_.size() && rows_[lastRow_] == key) return lastRow_;
  auto it = std::lower_bound(rows_.begin(), rows_.end(), key);
  if (it == rows_.end() || *it != key) return SIZE_MAX;
  return lastRow_ = static_cast<size_t>(it - rows_.begin());
}

uint64_t SpilledRows::keepDetail(std::string_view detail) {
  if (!writeStatus_.ok()) return 0;
  if (!details_) {
    Expected<SpillFile> f = SpillFile::create(options_.dir);
    if (!f) {
      writeStatus_ = f.error();
      return 0;
    }
    details_.emplace(std::move(*f));
  }
  const uint64_t at = details_->size();
  writeStatus_ = details_->append(detail);
  return at;
}

void SpilledRows::onSlice(const SliceEvent& e) {
  const size_t r = rowIndex(e.row);
  if (r == SIZE_MAX) return;
  OpRecord op;
  op.startNs = e.startNs;
  op.endNs = e.endNs;
  op.seq = seq_++;
  op.tid = e.tid;
  op.nameId = names_.intern(e.name);
  op.row = static_cast<uint32_t>(r);
  ++opsPerThread_[{op.row, e.tid}];
  if (e.bytes > 0 || !e.detail.empty() || e.correlation >= 0) {
    op.hasExtra = 1;
    op.memcopyBytes = e.bytes;
    op.correlation = e.correlation < 0 ? -1 : e.correlation;
    if (!e.detail.empty()) {
      op.detailBytes = static_cast<uint32_t>(std::min<size_t>(e.detail.size(), UINT32_MAX));
      op.detailOffset = keepDetail(e.detail.substr(0, op.detailBytes));
    }
    // RowBuckets' rule: flows join a launch (CudaApi) and a GPU activity.
    if (e.correlation >= 0 && (e.row.kind == RowKind::CudaApi || e.row.kind == RowKind::Gpu))
      flowCandidates_.push(
          {e.correlation, e.row.kind == RowKind::Gpu ? 1u : 0u, e.startNs, op.seq});
  }
  ops_.push(op);
}

void SpilledRows::onMemory(const MemoryEvent& m) {
  const int64_t bytes = memoryChangeBytes(m.bytes);
  const auto place = static_cast<uint64_t>(m.place);
  memory_.push({place, m.device, m.startNs, bytes});
  if (!(m.endNs == 0 || m.endNs < m.startNs)) memory_.push({place, m.device, m.endNs, -bytes});
}

void SpilledRows::setFlow(uint64_t seq, FlowEnd end) {
  flowBits_[seq / 4] |= static_cast<uint8_t>(static_cast<unsigned>(end) << (2 * (seq % 4)));
}

FlowEnd SpilledRows::flowOf(uint64_t seq) const {
  if (seq / 4 >= flowBits_.size()) return FlowEnd::None;
  return static_cast<FlowEnd>((flowBits_[seq / 4] >> (2 * (seq % 4))) & 3u);
}

// For each correlation the earliest launch and the earliest GPU activity
// (ties: file order); a flow when the launch starts strictly before the
// activity in output time (RowBuckets::markFlowEnds).
void SpilledRows::markFlows() {
  flowBits_.assign((seq_ + 3) / 4, 0);
  auto reader = flowCandidates_.read();
  FlowCandidate c, launch;
  bool hasLaunch = false, gpuSeen = false;  // of correlation `current`
  int64_t current = -1;
  while (reader.next(c)) {
    if (c.correlation != current) {
      current = c.correlation;
      hasLaunch = gpuSeen = false;
    }
    if (c.gpu == 0) {
      if (!hasLaunch) launch = c;
      hasLaunch = true;
      continue;
    }
    if (gpuSeen) continue;
    gpuSeen = true;
    if (!hasLaunch || origin_.since(c.startNs) <= origin_.since(launch.startNs)) continue;
    setFlow(launch.seq, FlowEnd::Out);
    setFlow(c.seq, FlowEnd::In);
    anyFlow_ = true;
  }
  if (!reader.status().ok() && writeStatus_.ok()) writeStatus_ = reader.status();
}

Status SpilledRows::finish() {
  if (details_ && writeStatus_.ok()) writeStatus_ = details_->flush();
  for (Status st : {ops_.finish(), flowCandidates_.finish(), memory_.finish()})
    if (!st.ok() && writeStatus_.ok()) writeStatus_ = st;
  if (writeStatus_.ok()) markFlows();
  if (!writeStatus_.ok()) return writeStatus_;
  reader_.emplace(ops_.read());
  head_.reset();
  fill();
  return readStatus_;
}

bool SpilledRows::fill() {
  OpRecord r;
  if (reader_ && reader_->next(r)) {
    head_ = r;
    return true;
  }
  head_.reset();
  if (reader_ && !reader_->status().ok() && readStatus_.ok()) readStatus_ = reader_->status();
  return false;
}

void SpilledRows::tidsOf(size_t row, std::vector<int64_t>& out) const {
  out.clear();
  const auto r = static_cast<uint32_t>(row);
  for (auto it = opsPerThread_.lower_bound({r, INT64_MIN});
       it != opsPerThread_.end() && it->first.first == r; ++it)
    out.push_back(it->first.second);
}

uint64_t SpilledRows::opCount(size_t row, int64_t tid) const {
  auto it = opsPerThread_.find({static_cast<uint32_t>(row), tid});
  return it == opsPerThread_.end() ? 0 : it->second;
}

bool SpilledRows::peek(size_t& row, int64_t& tid) {
  if (!head_) return false;
  row = head_->row;
  tid = head_->tid;
  return true;
}

size_t SpilledRows::nextBatch(size_t row, int64_t tid, std::vector<RowBuckets::Op>& out,
                              size_t max) {
  out.clear();
  extras_.clear();
  detailText_.clear();
  std::vector<std::pair<uint64_t, uint32_t>> details;  // (start in detailText_, size) per extra
  while (head_ && head_->row == row && head_->tid == tid && out.size() < max) {
    const OpRecord& r = *head_;
    RowBuckets::Op op{r.startNs, r.endNs, r.nameId, 0};
    if (r.hasExtra) {
      extras_.push_back({r.memcopyBytes, {}, r.correlation, flowOf(r.seq)});
      op.extra = static_cast<uint32_t>(extras_.size());
      details.emplace_back(detailText_.size(), r.detailBytes);
      if (r.detailBytes > 0) {
        detailText_.resize(detailText_.size() + r.detailBytes);
        Status st = details_->readAt(r.detailOffset, detailText_.data() + details.back().first,
                                     r.detailBytes);
        if (!st.ok() && readStatus_.ok()) readStatus_ = st;
      }
    }
    out.push_back(op);
    fill();
  }
  for (size_t i = 0; i < extras_.size(); ++i)
    extras_[i].detail = std::string_view(detailText_).substr(details[i].first, details[i].second);
  return out.size();
}

}  // namespace xstack
