// Which files in --out are `xstack report`'s own outputs: the trace files of
// every registered format and the files the analyses declare. OutputCommit
// (io/) is given this predicate; it names no output file itself.
#pragma once

#include <string_view>

namespace xstack {

bool isReportOutputName(std::string_view name);

}  // namespace xstack
