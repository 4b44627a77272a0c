// The row (trace process) of a displayed rank that an event belongs to:
// kind and device. Rows are numbered in RowKey order (docs/FORMAT.md
// section 3): cpu:block:<d> (d ascending), cuda_api, gpu:<d>, then the
// memory tracks gpu, cpu, cudapinnedplace (device ascending).
#pragma once

#include <compare>
#include <cstdint>

namespace xstack {

enum class RowKind : int {
  CpuBlock = 0,  // host work of one CPU block (device = block id)
  CudaApi = 1,   // CUDA runtime API calls (device = -1)
  Gpu = 2,       // kernels and copies of one GPU (device = GPU id)
  MemGpu = 3,    // memory tracks, one per place and device
  MemCpu = 4,
  MemPinned = 5
};

struct RowKey {
  RowKind kind = RowKind::CpuBlock;
  int64_t device = 0;
  auto operator<=>(const RowKey&) const = default;
};

}  // namespace xstack
