#include "xstack/model/RankRows.h"

#include <algorithm>
#include <cstdio>
#include <set>

#include "xstack/model/MemoryTrack.h"

namespace xstack {

bool rowOfEvent(const ProfileEvent& e, RowKey& out, Warnings& warnings) {
  if (e.type == 0) {
    if (e.deviceId == -1) {
      out = {RowKind::CudaApi, -1};
      return true;
    }
    if (e.deviceId >= 0) {
      out = {RowKind::CpuBlock, e.deviceId};
      return true;
    }
    warnings.add("event_bad_device");
    return false;
  }
  if (e.type == 1) {
    out = {RowKind::Gpu, e.deviceId};
    return true;
  }
  warnings.add("event_unknown_type");
  return false;
}

std::string rankLabel(int64_t rank) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "trainerRank.%03lld", static_cast<long long>(rank));
  return buf;
}

std::string rowProcessName(int64_t pid, int64_t rank, const RowKey& row) {
  char nn[32];
  std::snprintf(nn, sizeof nn, "%02lld_", static_cast<long long>(pid));
  std::string s = nn;
  const std::string label = rankLabel(rank);
  const std::string dev = std::to_string(row.device);
  switch (row.kind) {
    case RowKind::CpuBlock:
      return s + label + ":cpu:block:" + dev;
    case RowKind::CudaApi:
      return s + label + ":cuda_api";
    case RowKind::Gpu:
      return s + label + ":gpu:" + dev;
    case RowKind::MemGpu:
      return s + "memory usage on " + label + ":gpu:" + dev;
    case RowKind::MemCpu:
      return s + "memory usage on " + label + ":cpu:" + dev;
    case RowKind::MemPinned:
      return s + "memory usage on " + label + ":cudapinnedplace:" + dev;
  }
  return s;
}

std::vector<RowKey> rankRows(const ProfileData& data, Warnings& warnings) {
  std::set<RowKey> rows;
  RowKey key;
  for (const ProfileEvent& e : data.events)
    if (rowOfEvent(e, key, warnings)) rows.insert(key);
  for (const ProfileMemEvent& m : data.memEvents) {
    MemPlace place;
    if (!memPlaceFromWire(m.place, place)) continue;  // counted by buildMemoryTracks
    rows.insert({static_cast<RowKind>(static_cast<int>(RowKind::MemGpu) + static_cast<int>(place)),
                 static_cast<int64_t>(m.deviceId)});
  }
  return {rows.begin(), rows.end()};
}

}  // namespace xstack
