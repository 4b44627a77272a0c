// The input formats xstack reads, by name. Adding a format = a folder
// source/<format>/ with a Source implementation, plus one line in
// SourceRegistry.cpp.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "xstack/source/Source.h"

namespace xstack {

// Every registered source, in registration order (never empty).
const std::vector<const Source*>& registeredSources();
// The source named `name`, or nullptr.
const Source* findSource(std::string_view name);
// The source of a folder that holds no input of any source (the first
// registered: "paddle"), whose messages name what it expects.
const Source& defaultSource();
// The source whose trace files look like the file at `path` (by content),
// else the default source.
const Source& sourceForFile(const std::string& path);

}  // namespace xstack
