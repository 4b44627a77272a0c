// The collective args of Kineto's NCCL kernels and record_param_comms ops
// (docs/FORMAT.md section 8, "Collectives") read into a CollectiveInfo.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

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

// normalizeCollectiveName of `text`, through the memo.
const std::string& collectiveNameOf(std::string_view text, CollectiveArgsMemo& memo) {
  if (!memo.hasName || memo.nameText != text) {
    memo.hasName = true;
    memo.nameText.assign(text);
    memo.name = normalizeCollectiveName(text);
  }
  return memo.name;
}

// parseRankList of `text` into `out`, through the memo.
bool rankListOf(std::string_view text, std::vector<int64_t>& out, CollectiveArgsMemo& memo) {
  if (!memo.hasRanks || memo.ranksText != text) {
    memo.hasRanks = true;
    memo.ranksText.assign(text);
    memo.ranksParsed = parseRankList(text, memo.ranks);
  }
  out = memo.ranks;
  return memo.ranksParsed;
}

// dtypeBytes of `dtype`, through the memo.
int64_t dtypeSizeOf(std::string_view dtype, CollectiveArgsMemo& memo) {
  if (!memo.hasDtype || memo.dtypeText != dtype) {
    memo.hasDtype = true;
    memo.dtypeText.assign(dtype);
    memo.dtypeSize = dtypeBytes(dtype);
  }
  return memo.dtypeSize;
}

}  // namespace

bool collectiveFromArgs(const TraceEvent& e, CollectiveInfo& out, std::string& bad) {
  CollectiveArgsMemo memo;
  return collectiveFromArgs(e, out, bad, memo);
}

bool collectiveFromArgs(const TraceEvent& e, CollectiveInfo& out, std::string& bad,
                        CollectiveArgsMemo& memo) {
  out.clear();
  bad.clear();
  if (!e.arg(ArgKey::CollectiveName)) return false;
  out.collective = collectiveNameOf(e.argText(ArgKey::CollectiveName), memo);
  out.group.assign(e.argText(ArgKey::ProcessGroupName));
  out.groupDesc.assign(e.argText(ArgKey::ProcessGroupDesc));
  if (e.arg(ArgKey::ProcessGroupRanks) &&
      !rankListOf(e.argText(ArgKey::ProcessGroupRanks), out.groupRanks, memo))
    noteBad(e, ArgKey::ProcessGroupRanks, bad);
  out.groupSize = intArg(e, ArgKey::GroupSize, 0, 0, bad);
  out.seq = intArg(e, ArgKey::Seq, 0, -1, bad);
  out.inNelems = intArg(e, ArgKey::InMsgNelems, 0, -1, bad);
  out.outNelems = intArg(e, ArgKey::OutMsgNelems, 0, -1, bad);
  out.dtype.assign(e.argText(ArgKey::Dtype));
  const int64_t dtypeSize = dtypeSizeOf(out.dtype, memo);
  if (!out.dtype.empty() && dtypeSize == 0) noteBad(e, ArgKey::Dtype, bad);
  if (isPointToPoint(out.collective)) out.peer = peerOf(e, out.collective, bad);
  out.deriveBytes(dtypeSize);
  // nelems x dtype size past 2^63 - 1 bytes: no size (0, no bandwidth), named like a bad arg.
  const bool sized = std::max(out.inNelems, out.outNelems) > 0 && dtypeSize > 0;
  if (sized && out.bytes == 0)
    noteBad(e, out.inNelems >= out.outNelems ? ArgKey::InMsgNelems : ArgKey::OutMsgNelems, bad);
  return true;
}

}  // namespace xstack::chrome
