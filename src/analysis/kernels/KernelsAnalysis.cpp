#include "xstack/analysis/kernels/KernelsAnalysis.h"

#include <algorithm>
#include <exception>
#include <utility>

#include "xstack/analysis/GpuActivity.h"
#include "xstack/report/AnalysisFiles.h"
#include "xstack/transport/TypedMessages.h"

namespace xstack {

namespace {

constexpr const char* kKernelsCsv = "kernels.csv";

class KernelsRankPart final : public RankAnalysis {
 public:
  void onSlice(const SliceEvent& e) override {
    if (e.row.kind == RowKind::Gpu) stats_.add(e);
  }
  Expected<std::string> finish(int64_t rank, const std::vector<Span>& /*spans*/) override {
    return encodeKernelStats(rank, stats_.take());
  }
  // A kernel name's total_ns held at 2^63 - 1: one sum_saturated per name.
  void addWarnings(Warnings& warnings) const override {
    warnings.add(Warn::SumSaturated, stats_.saturatedSums());
  }

 private:
  KernelStatsBuilder stats_;
};

void writeRank(wire::Writer& w, int64_t rank) { w.i64(rank); }
int64_t readRank(wire::Reader& r) { return r.i64(); }

using Readers = std::vector<std::pair<int64_t, int>>;  // (training rank, MPI rank)

class KernelsJob final : public AnalysisJob {
 public:
  // collective: every MPI rank's training ranks, so rank 0 knows whom to ask.
  void merge(Comm& comm, const std::vector<RankPart>& local) override {
    std::vector<int64_t> mine;
    for (const RankPart& p : local) mine.push_back(p.rank);
    auto all = allgatherTyped(
        comm, mine, "the kernel tables' ranks",
        [](wire::Writer& w, const std::vector<int64_t>& v) { w.list(v, writeRank); },
        [](wire::Reader& r) {
          std::vector<int64_t> v;
          r.list(v, readRank);
          return v;
        });
    if (!all) {
      status_ = all.error();
      return;
    }
    for (size_t r = 0; r < all->size(); ++r)
      for (int64_t rank : (*all)[r]) readers_.emplace_back(rank, static_cast<int>(r));
    std::sort(readers_.begin(), readers_.end());
  }
  Status status() const override { return status_; }
  Status write(Comm& comm, const std::vector<RankPart>& local, const AnalysisOutput& out) override;
  void releaseAfterWrite() override { Readers().swap(readers_); }

 private:
  Status writeCsv(Comm& comm, const std::vector<RankPart>& local, const AnalysisOutput& out);
  Readers readers_;
  Status status_;
};

std::string_view localTable(const std::vector<RankPart>& local, int64_t rank) {
  for (const RankPart& p : local)
    if (p.rank == rank) return p.bytes;
  return {};
}

// Rank 0's request to a reader: one training rank's kernel table, or `done`
// (no more requests).
struct TableRequest {
  bool done = false;
  int64_t rank = 0;
};

void writeRequest(wire::Writer& w, const TableRequest& q) {
  w.boolean(q.done);
  w.i64(q.rank);
}

TableRequest readRequest(wire::Reader& r) {
  TableRequest q;
  q.done = r.boolean();
  q.rank = r.i64();
  return q;
}

// The answer: the table's bytes (a RankPart's, itself a wire message), empty
// when this reader has no table of that rank.
void writeTable(wire::Writer& w, const std::string_view& table) { w.bytes(table); }
std::string readTable(wire::Reader& r) { return r.bytes(); }

// A reader (MPI rank > 0) answers rank 0's requests for the kernel tables of
// the training ranks it read, one at a time, until the `done` request. One
// that does not decode is answered with no table (rank 0 then fails the
// analysis, naming this rank, and still releases it).
void serveKernelTables(Comm& comm, const std::vector<RankPart>& local) {
  for (;;) {
    auto q = receiveTyped<TableRequest>(comm, 0, MessageTag::KernelTableRequest,
                                        "a kernel table request", readRequest);
    if (q && q->done) return;
    sendTyped(comm, 0, MessageTag::KernelTable, q ? localTable(local, q->rank) : std::string_view(),
              writeTable);
  }
}

// Rank 0: the kernel table of training rank `rank`, read by MPI rank `reader`.
// The request and its answer are one step (nothing can fail in between), so
// a reader is never left sending to a rank 0 that has moved on.
std::string kernelTableOf(Comm& comm, const std::vector<RankPart>& local, int64_t rank,
                          int reader) {
  if (reader == 0) return std::string(localTable(local, rank));
  sendTyped(comm, reader, MessageTag::KernelTableRequest, TableRequest{false, rank}, writeRequest);
  auto table =
      receiveTyped<std::string>(comm, reader, MessageTag::KernelTable, "a kernel table", readTable);
  return table ? *table : std::string();  // empty: fails to decode, naming the reader
}

// Rank 0: kernels.csv, streamed: the training ranks' kernel tables are
// fetched in rank order, one at a time, and each one's rows are written to
// the temporary before the next is fetched. The caller releases the readers.
Status KernelsJob::writeCsv(Comm& comm, const std::vector<RankPart>& local,
                            const AnalysisOutput& out) {
  if (!status_) return status_;
  AtomicFile f;
  Status st = f.open(out.dir, kKernelsCsv);
  if (st) st = f.write(kernelsCsvHeader());
  std::string rows;
  for (auto [rank, reader] : readers_) {
    if (!st) break;
    const std::string table = kernelTableOf(comm, local, rank, reader);
    int64_t decodedRank = -1;
    Expected<std::vector<KernelStat>> kernels =
        decodeKernelStats(table, decodedRank, "kernel table of rank " + std::to_string(rank));
    if (!kernels) return Error{"analysis: " + kernels.error().message};
    if (decodedRank != rank)
      return Error{"analysis: MPI rank " + std::to_string(reader) +
                   " sent no kernel table of rank " + std::to_string(rank)};
    rows.clear();
    appendKernelsCsvRows(rows, rank, *kernels);
    st = f.write(rows);
  }
  if (st) st = f.finish(out.fsync);
  if (!st) return Error{std::string("cannot write ") + kKernelsCsv + ": " + st.error().message};
  out.files->push_back(std::move(f));
  return {};
}

// collective: rank 0 fetches the kernel tables, then releases the readers.
Status KernelsJob::write(Comm& comm, const std::vector<RankPart>& local,
                         const AnalysisOutput& out) {
  if (comm.rank() != 0) {
    serveKernelTables(comm, local);
    return {};
  }
  Status st;
  try {
    st = writeCsv(comm, local, out);
  } catch (const std::exception& e) {
    st = Error{std::string("analysis failed: ") + e.what()};
  }
  for (int r = 1; r < comm.size(); ++r)
    sendTyped(comm, r, MessageTag::KernelTableRequest, TableRequest{true, 0}, writeRequest);
  return st;
}

class KernelsAnalysis final : public Analysis {
 public:
  std::string_view name() const override { return "kernels"; }
  std::vector<std::string> outputFiles() const override { return {kKernelsCsv}; }
  std::unique_ptr<RankAnalysis> rankPart(const SpillOptions& /*input*/) const override {
    return std::make_unique<KernelsRankPart>();
  }
  std::unique_ptr<AnalysisJob> jobPart(const AnalysisJobOptions& /*options*/) const override {
    return std::make_unique<KernelsJob>();
  }
};

}  // namespace

const Analysis& kernelsAnalysis() {
  static const KernelsAnalysis kAnalysis;
  return kAnalysis;
}

}  // namespace xstack
