#include "xstack/model/InputSummary.h"

#include <nlohmann/json.hpp>

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

nlohmann::json identityJson(const FileIdentity& id) {
  if (!id.known) return nullptr;
  return {id.device, id.inode, id.size, id.mtimeNs, id.hasDigest, id.digest};
}

FileIdentity identityFrom(const nlohmann::json& j) {
  FileIdentity id;
  if (!j.is_array()) return id;
  id.known = true;
  id.device = j[0].get<uint64_t>();
  id.inode = j[1].get<uint64_t>();
  id.size = j[2].get<uint64_t>();
  id.mtimeNs = j[3].get<int64_t>();
  id.hasDigest = j[4].get<bool>();
  id.digest = j[5].get<uint64_t>();
  return id;
}

}  // namespace

std::string encodeSummaries(const std::vector<InputSummary>& all) {
  nlohmann::json arr = nlohmann::json::array();
  for (const InputSummary& s : all) {
    nlohmann::json w = nlohmann::json::object();
    for (const auto& [k, e] : s.warnings.entries())
      w[std::string(warnName(k))] = {e.count, e.examples};
    nlohmann::json rows = nlohmann::json::array();
    for (const RowKey& r : s.rows) rows.push_back({static_cast<int>(r.kind), r.device});
    nlohmann::json counters = nlohmann::json::array();
    for (const auto& [k, n] : s.counterEvents)
      counters.push_back({static_cast<int>(k.first), k.second, n});
    arr.push_back({static_cast<int>(s.file.kind), s.file.id, s.file.gpu, s.file.path, s.file.bytes,
                   s.reader, s.readerHost, static_cast<int>(s.status), s.problem, s.minTs, s.events,
                   s.memEvents, w, rows, s.spanCount, counters, s.gpuDevices, s.visibleGpus,
                   identityJson(s.identity)});
  }
  auto bytes = nlohmann::json::to_msgpack(arr);
  return std::string(bytes.begin(), bytes.end());
}

Expected<std::vector<InputSummary>> decodeSummaries(const std::string& bytes) {
  std::vector<InputSummary> out;
  nlohmann::json arr;
  try {
    arr = nlohmann::json::from_msgpack(bytes);
  } catch (const nlohmann::json::exception& e) {
    return Error{std::string("gathered summaries: ") + e.what()};
  }
  for (const auto& a : arr) {
    InputSummary s;
    s.file.kind = static_cast<InputKind>(a[0].get<int>());
    s.file.id = a[1].get<int64_t>();
    s.file.gpu = a[2].get<int64_t>();
    s.file.path = a[3].get<std::string>();
    s.file.bytes = a[4].get<uint64_t>();
    s.reader = a[5].get<int>();
    s.readerHost = a[6].get<std::string>();
    s.status = static_cast<InputStatus>(a[7].get<int>());
    s.problem = a[8].get<std::string>();
    s.minTs = a[9].get<uint64_t>();
    s.events = a[10].get<uint64_t>();
    s.memEvents = a[11].get<uint64_t>();
    for (const auto& [name, v] : a[12].items()) {
      const Expected<Warn> k = warnByName(name);
      if (!k) return Error{"gathered summary of " + s.file.path + ": " + k.error().message};
      s.warnings.add(*k, v[0].get<uint64_t>());
      for (const auto& x : v[1]) s.warnings.addExample(*k, x.get<std::string>());
    }
    for (const auto& r : a[13])
      s.rows.push_back({static_cast<RowKind>(r[0].get<int>()), r[1].get<int64_t>()});
    s.spanCount = a[14].get<uint64_t>();
    for (const auto& c : a[15])
      s.counterEvents[{static_cast<CounterGroup>(c[0].get<int>()), c[1].get<int64_t>()}] =
          c[2].get<uint64_t>();
    s.gpuDevices = a[16].get<std::vector<int64_t>>();
    s.visibleGpus = a[17].get<int64_t>();
    s.identity = identityFrom(a[18]);
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace xstack
