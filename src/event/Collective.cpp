#include "xstack/event/Collective.h"

#include <algorithm>
#include <array>

namespace xstack {
namespace {

struct NameSize {
  std::string_view name;
  int64_t bytes;
};

// PyTorch's ScalarType names (c10 toString, what Kineto writes) and the
// torch.dtype spellings.
constexpr std::array kDtypes = {
    NameSize{"Float", 4},
    NameSize{"Half", 2},
    NameSize{"BFloat16", 2},
    NameSize{"Double", 8},
    NameSize{"Long", 8},
    NameSize{"Int", 4},
    NameSize{"Short", 2},
    NameSize{"Byte", 1},
    NameSize{"Char", 1},
    NameSize{"Bool", 1},
    NameSize{"ComplexHalf", 4},
    NameSize{"ComplexFloat", 8},
    NameSize{"ComplexDouble", 16},
    NameSize{"QInt8", 1},
    NameSize{"QUInt8", 1},
    NameSize{"QInt32", 4},
    NameSize{"UInt16", 2},
    NameSize{"UInt32", 4},
    NameSize{"UInt64", 8},
    NameSize{"Float8_e5m2", 1},
    NameSize{"Float8_e4m3fn", 1},
    NameSize{"Float8_e5m2fnuz", 1},
    NameSize{"Float8_e4m3fnuz", 1},
    NameSize{"float32", 4},
    NameSize{"float", 4},
    NameSize{"float16", 2},
    NameSize{"half", 2},
    NameSize{"bfloat16", 2},
    NameSize{"bf16", 2},
    NameSize{"fp16", 2},
    NameSize{"fp32", 4},
    NameSize{"float64", 8},
    NameSize{"double", 8},
    NameSize{"int64", 8},
    NameSize{"long", 8},
    NameSize{"int32", 4},
    NameSize{"int", 4},
    NameSize{"int16", 2},
    NameSize{"int8", 1},
    NameSize{"uint8", 1},
    NameSize{"bool", 1},
};

struct Alias {
  std::string_view from, to;
};

// Spellings of one collective, after lower-casing and dropping a leading
// '_' and a "_base" suffix.
constexpr std::array kAliases = {
    Alias{"all_reduce", "allreduce"},
    Alias{"all_gather", "allgather"},
    Alias{"all_gather_into_tensor", "allgather"},
    Alias{"allgather_into_tensor", "allgather"},
    Alias{"reducescatter", "reduce_scatter"},
    Alias{"reduce_scatter_tensor", "reduce_scatter"},
    Alias{"all_to_all", "alltoall"},
    Alias{"all_to_all_single", "alltoall"},
    Alias{"all_to_allv", "alltoallv"},  // PyTorch's all_to_all_single with splits
};

// The words of NCCL kernel names ("ncclKernel_<Word>_..."), normalized.
constexpr std::array kKernelWords = {
    Alias{"AllReduce", "allreduce"},
    Alias{"AllGather", "allgather"},
    Alias{"ReduceScatter", "reduce_scatter"},
    Alias{"Broadcast", "broadcast"},
    Alias{"Reduce", "reduce"},
    Alias{"SendRecv", "sendrecv"},
    Alias{"Send", "send"},
    Alias{"Recv", "recv"},
    Alias{"AllToAll", "alltoall"},
};

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && isSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && isSpace(s.back())) s.remove_suffix(1);
  return s;
}

// A non-negative decimal integer below 2^62; false otherwise.
bool parseRank(std::string_view s, int64_t& out) {
  s = trimmed(s);
  if (s.empty() || s.size() > 18) return false;
  int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  out = v;
  return true;
}

// Drops `suffix` from `s` when s is longer and ends with it; true when it did.
bool dropSuffix(std::string& s, std::string_view suffix) {
  if (s.size() <= suffix.size() || s.compare(s.size() - suffix.size(), suffix.size(), suffix) != 0)
    return false;
  s.resize(s.size() - suffix.size());
  return true;
}

}  // namespace

void CollectiveInfo::clear() {
  collective.clear();
  group.clear();
  groupDesc.clear();
  groupRanks.clear();
  groupSize = 0;
  seq = -1;
  inNelems = outNelems = -1;
  dtype.clear();
  bytes = 0;
  peer = -1;
  fromKernelName = false;
}

void CollectiveInfo::deriveBytes() { deriveBytes(dtypeBytes(dtype)); }

void CollectiveInfo::deriveBytes(int64_t size) {
  bytes = 0;
  const int64_t n = std::max(inNelems, outNelems);
  int64_t product = 0;
  if (n > 0 && size > 0 && !__builtin_mul_overflow(n, size, &product))
    bytes = static_cast<uint64_t>(product);
}

int64_t dtypeBytes(std::string_view dtype) {
  for (const NameSize& d : kDtypes)
    if (d.name == dtype) return d.bytes;
  return 0;
}

std::string normalizeCollectiveName(std::string_view name) {
  std::string s(trimmed(name));
  std::transform(s.begin(), s.end(), s.begin(), [](char c) {
    return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
  });
  const size_t lead = s.find_first_not_of('_');
  s.erase(0, lead == std::string::npos ? s.size() : lead);
  // Several tensors in one call (FSDP's all_gather_into_tensor_coalesced):
  // the collective's name, then "_coalesced".
  const bool coalesced = dropSuffix(s, kCoalescedSuffix);
  dropSuffix(s, "_base");
  for (const Alias& a : kAliases)
    if (a.from == s) s = a.to;
  return coalesced ? s + std::string(kCoalescedSuffix) : s;
}

bool parseRankList(std::string_view text, std::vector<int64_t>& out) {
  out.clear();
  text = trimmed(text);
  if (text.size() < 2 || text.front() != '[' || text.back() != ']') return false;
  std::string_view body = trimmed(text.substr(1, text.size() - 2));
  while (!body.empty()) {
    const size_t comma = body.find(',');
    int64_t rank = 0;
    if (!parseRank(body.substr(0, comma), rank)) {
      out.clear();
      return false;
    }
    out.push_back(rank);
    if (comma == std::string_view::npos) break;
    body.remove_prefix(comma + 1);
    if (trimmed(body).empty()) {  // "[0, ]"
      out.clear();
      return false;
    }
  }
  return true;
}

std::string_view collectiveOfKernelName(std::string_view name) {
  constexpr std::string_view kPrefixes[] = {"ncclKernel_", "ncclDevKernel_"};
  if (name.size() < 4 || name.compare(0, 4, "nccl") != 0) return {};
  for (std::string_view p : kPrefixes) {
    if (name.compare(0, p.size(), p) != 0) continue;
    std::string_view rest = name.substr(p.size());
    const std::string_view word = rest.substr(0, rest.find_first_of("_(<"));
    for (const Alias& w : kKernelWords)
      if (w.from == word) return w.to;
    return {};
  }
  return {};
}

bool collectiveFromKernelName(std::string_view name, CollectiveInfo& out) {
  const std::string_view coll = collectiveOfKernelName(name);
  if (coll.empty()) return false;
  out.clear();
  out.collective.assign(coll);
  out.fromKernelName = true;
  return true;
}

}  // namespace xstack
