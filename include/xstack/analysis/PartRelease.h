// What a job part calls when it is done, for now, with the bytes of one of
// its per-rank parts (AnalysisJobOptions::releasePart): they may leave memory
// (a spilled part's pages, io/PartShelf.h) and are read again when touched.
#pragma once

#include <functional>
#include <string_view>

namespace xstack {

using PartRelease = std::function<void(std::string_view)>;

}  // namespace xstack
