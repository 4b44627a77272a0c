#include "xstack/model/InputSummary.h"

#include "xstack/wire/WarningsWire.h"
#include "xstack/wire/Wire.h"

namespace xstack {

const char* statusName(InputStatus s) {
  switch (s) {
    case InputStatus::Ok:
      return "ok";
    case InputStatus::Partial:
      return "partial";
    case InputStatus::Failed:
      return "failed";
  }
  return "?";
}

namespace {

void writeIdentity(wire::Writer& w, const FileIdentity& id) {
  w.boolean(id.known);
  if (!id.known) return;
  w.u64(id.device);
  w.u64(id.inode);
  w.u64(id.size);
  w.i64(id.mtimeNs);
  w.boolean(id.hasDigest);
  w.u64(id.digest);
}

FileIdentity readIdentity(wire::Reader& r) {
  FileIdentity id;
  id.known = r.boolean();
  if (!id.known) return id;
  id.device = r.u64();
  id.inode = r.u64();
  id.size = r.u64();
  id.mtimeNs = r.i64();
  id.hasDigest = r.boolean();
  id.digest = r.u64();
  return id;
}

// The file of a summary (its sample digest stays with the listing).
void writeFile(wire::Writer& w, const InputFile& f) {
  w.enumeration(f.kind);
  w.i64(f.id);
  w.i64(f.gpu);
  w.str(f.path);
  w.u64(f.bytes);
}

InputFile readFile(wire::Reader& r) {
  InputFile f;
  f.kind = r.enumeration(InputKind::Time);
  f.id = r.i64();
  f.gpu = r.i64();
  f.path = r.str();
  f.bytes = r.u64();
  return f;
}

void writeSummary(wire::Writer& w, const InputSummary& s) {
  writeFile(w, s.file);
  w.i64(s.reader);
  w.str(s.readerHost);
  w.enumeration(s.status);
  w.str(s.problem);
  w.u64(s.minTs);
  w.u64(s.events);
  w.u64(s.memEvents);
  wire::writeWarnings(w, s.warnings, true);
  w.list(s.rows, [](wire::Writer& x, const RowKey& k) {
    x.enumeration(k.kind);
    x.i64(k.device);
  });
  w.u64(s.spanCount);
  w.boolean(s.rowsKept);
  w.list(s.counterEvents, [](wire::Writer& x, const auto& c) {
    x.enumeration(c.first.first);
    x.i64(c.first.second);
    x.u64(c.second);
  });
  w.list(s.gpuDevices, [](wire::Writer& x, int64_t d) { x.i64(d); });
  w.i64(s.visibleGpus);
  writeIdentity(w, s.identity);
}

// One summary; the first warning kind this build does not know goes to
// `unknownKind` (warnByName's message).
InputSummary readSummary(wire::Reader& r, std::string& unknownKind) {
  InputSummary s;
  s.file = readFile(r);
  s.reader = static_cast<int>(r.i64());
  s.readerHost = r.str();
  s.status = r.enumeration(InputStatus::Failed);
  s.problem = r.str();
  s.minTs = r.u64();
  s.events = r.u64();
  s.memEvents = r.u64();
  s.warnings = wire::readWarnings(r, true, unknownKind);
  r.list(s.rows, [](wire::Reader& x) {
    const RowKind kind = x.enumeration(RowKind::MemPinned);
    return RowKey{kind, x.i64()};
  });
  s.spanCount = r.u64();
  s.rowsKept = r.boolean();
  for (uint64_t n = r.count(3), i = 0; i < n && r.ok(); ++i) {
    const CounterGroup group = r.enumeration(CounterGroup::NetRx);
    const int64_t gpu = r.i64();
    s.counterEvents[{group, gpu}] = r.u64();
  }
  r.list(s.gpuDevices, [](wire::Reader& x) { return x.i64(); });
  s.visibleGpus = r.i64();
  s.identity = readIdentity(r);
  return s;
}

}  // namespace

std::string encodeSummaries(const std::vector<InputSummary>& all) {
  wire::Writer w;
  w.list(all, writeSummary);
  return w.take();
}

Expected<std::vector<InputSummary>> decodeSummaries(const std::string& bytes) {
  wire::Reader r(bytes, "gathered summaries");
  std::vector<InputSummary> out;
  for (uint64_t n = r.count(), i = 0; i < n && r.ok(); ++i) {
    std::string unknownKind;
    InputSummary s = readSummary(r, unknownKind);
    if (!r.ok()) break;
    if (!unknownKind.empty())
      return Error{"gathered summary of " + s.file.path + ": " + unknownKind};
    out.push_back(std::move(s));
  }
  if (Status st = r.finish(); !st.ok()) return st.error();
  return out;
}

}  // namespace xstack
