// What a communication kernel (or the host op that launched it) says about
// its collective: which collective, in which process group, which instance,
// how big. Sources fill it from the trace's args (Kineto's "Collective name",
// "Process Group Name"...: docs/FORMAT.md section 8, "Collectives") or, when a kernel has no
// such args, from the NCCL kernel's name alone. Format-neutral: no JSON here.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace xstack {

// One collective call as the trace describes it. Unknown numbers are -1
// (0 for groupSize and bytes), unknown texts empty.
struct CollectiveInfo {
  // Normalized lower-case name: "allreduce", "allgather", "reduce_scatter",
  // "alltoall", "broadcast", "reduce", "send", "recv", "sendrecv"; any other
  // name ("wait", "barrier", "gather"...) lower-cased as written.
  std::string collective;
  // The process group's name as the trace writes it (PyTorch: "0", "1"...);
  // empty = the default group of all ranks (also when only the name told).
  std::string group;
  std::string groupDesc;            // "default_pg", "undefined"...; empty = none
  std::vector<int64_t> groupRanks;  // global ranks of the group; empty = unknown
  int64_t groupSize = 0;            // ranks in the group; 0 = unknown
  int64_t seq = -1;                 // the call's sequence number in its group; -1 = absent
  int64_t inNelems = -1;            // elements of the input message; -1 = unknown
  int64_t outNelems = -1;           // elements of the output message; -1 = unknown
  std::string dtype;  // element type as written ("Float", "BFloat16"); empty = unknown
  // Bytes of the larger message: max(inNelems, outNelems) x the size of
  // dtype (dtypeBytes); 0 = unknown (no nelems or an unknown dtype).
  uint64_t bytes = 0;
  // The other side's global rank of a send (Dst Rank), recv (Src Rank) or
  // sendrecv; -1 = unknown or not point-to-point.
  int64_t peer = -1;
  bool fromKernelName = false;  // true: only the kernel's name told the collective

  // Back to the default-constructed state, keeping the strings' memory.
  void clear();
  // Sets bytes from the nelems and dtype (its size given: dtypeBytes(dtype)).
  void deriveBytes();
  void deriveBytes(int64_t dtypeSize);
};

// Size in bytes of one element of a PyTorch dtype name ("Float" 4, "Half" 2,
// "BFloat16" 2, "Double" 8, "Long" 8, "Int" 4, "Byte"/"Char"/"Bool" 1, ...;
// lower-case torch spellings "float32", "bf16" too); 0 = unknown.
int64_t dtypeBytes(std::string_view dtype);

// The normalized collective name (see CollectiveInfo::collective) of a
// "Collective name" arg: lower-cased, leading '_' and a "_base" suffix
// dropped, "all_reduce" -> "allreduce", "alltoall_base" -> "alltoall"...
std::string normalizeCollectiveName(std::string_view name);
// The suffix of a normalized name of several tensors in one call
// ("allgather_coalesced"): the collective's name comes before it.
inline constexpr std::string_view kCoalescedSuffix = "_coalesced";

// Ranks from the text of a list: "[0, 1]" -> {0, 1}, "[]" -> {}. False (and
// `out` cleared) when the text is not a bracketed list of non-negative
// integers.
bool parseRankList(std::string_view text, std::vector<int64_t>& out);

// The collective an NCCL (or RCCL) kernel's name names: the word after
// "ncclKernel_" or "ncclDevKernel_" ("ncclKernel_AllReduce_RING_LL_Sum_float(...)",
// "ncclDevKernel_SendRecv(...)") normalized ("allreduce", "sendrecv"); empty
// when the name is not such a kernel or the word is not a known collective.
// The one rule by which a source tells a communication kernel from its name.
std::string_view collectiveOfKernelName(std::string_view name);

// Fills `out` (cleared first) from a kernel's name alone: the collective,
// fromKernelName true, the default group. False (`out` untouched) when the
// name names none.
bool collectiveFromKernelName(std::string_view name, CollectiveInfo& out);

}  // namespace xstack
