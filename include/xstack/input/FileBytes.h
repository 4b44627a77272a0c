// Reading a whole input file without ever blocking: the file is opened with
// O_NONBLOCK and must be a regular file (a FIFO, a folder or a device is an
// error, not a hang). At most `maxBytes` are read.
#pragma once

#include <cstdint>
#include <string>

#include "xstack/core/Status.h"

namespace xstack {

Expected<std::string> readFileBytes(const std::string& path,
                                    uint64_t maxBytes = UINT64_MAX);

}  // namespace xstack
