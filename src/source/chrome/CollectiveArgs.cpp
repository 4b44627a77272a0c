// The collective args of Kineto's NCCL kernels and record_param_comms ops
// (docs/FORMAT.md section 8, "Collectives") read into a CollectiveInfo.
#include <algorithm>
#include <cstdint>
#include <string>

#include "xstack/source/chrome/ChromeEvents.h"

namespace xstack::chrome {
namespace {

// Notes an arg that did not parse: its key and value, for the example.
void noteBad(const TraceEvent& e, ArgKey key, std::string& bad) {
  if (!bad.empty()) bad += ", ";
  std::string_view value = e.arg(key)->rawValue;
  if (value.size() > 40) value = value.substr(0, 40);
  bad.append(argKeyName(key)).append(" ").append(value);
}

// An optional integer arg: `absent` when missing; bad when it is not an
// integer or is below `min`.
int64_t intArg(const TraceEvent& e, ArgKey key, int64_t min, int64_t absent, std::string& bad) {
  if (!e.arg(key)) return absent;
  std::optional<int64_t> v = e.argInt(key);
  if (v && *v >= min) return *v;
  noteBad(e, key, bad);
  return absent;
}

bool isPointToPoint(std::string_view c) { return c == "send" || c == "recv" || c == "sendrecv"; }

// The peer of a send/recv: Dst Rank for a send, Src Rank for a recv, else
// whichever is there. A negative rank is "none" (-1), not a problem.
int64_t peerOf(const TraceEvent& e, std::string_view collective, std::string& bad) {
  const bool recv = collective == "recv";
  const ArgKey first = recv ? ArgKey::SrcRank : ArgKey::DstRank;
  const ArgKey second = recv ? ArgKey::DstRank : ArgKey::SrcRank;
  const ArgKey key = e.arg(first) ? first : second;
  const int64_t peer = intArg(e, key, INT64_MIN, -1, bad);
  return peer < 0 ? -1 : peer;
}

}  // namespace

bool collectiveFromArgs(const TraceEvent& e, CollectiveInfo& out, std::string& bad) {
  out.clear();
  bad.clear();
  if (!e.arg(ArgKey::CollectiveName)) return false;
  out.collective = normalizeCollectiveName(e.argText(ArgKey::CollectiveName));
  out.group.assign(e.argText(ArgKey::ProcessGroupName));
  out.groupDesc.assign(e.argText(ArgKey::ProcessGroupDesc));
  if (e.arg(ArgKey::ProcessGroupRanks) &&
      !parseRankList(e.argText(ArgKey::ProcessGroupRanks), out.groupRanks))
    noteBad(e, ArgKey::ProcessGroupRanks, bad);
  out.groupSize = intArg(e, ArgKey::GroupSize, 0, 0, bad);
  out.seq = intArg(e, ArgKey::Seq, 0, -1, bad);
  out.inNelems = intArg(e, ArgKey::InMsgNelems, 0, -1, bad);
  out.outNelems = intArg(e, ArgKey::OutMsgNelems, 0, -1, bad);
  out.dtype.assign(e.argText(ArgKey::Dtype));
  if (!out.dtype.empty() && dtypeBytes(out.dtype) == 0) noteBad(e, ArgKey::Dtype, bad);
  if (isPointToPoint(out.collective)) out.peer = peerOf(e, out.collective, bad);
  out.deriveBytes();
  // nelems x dtype size past 2^63 - 1 bytes: no size (0, no bandwidth), named like a bad arg.
  const bool sized = std::max(out.inNelems, out.outNelems) > 0 && dtypeBytes(out.dtype) > 0;
  if (sized && out.bytes == 0)
    noteBad(e, out.inNelems >= out.outNelems ? ArgKey::InMsgNelems : ArgKey::OutMsgNelems, bad);
  return true;
}

}  // namespace xstack::chrome
