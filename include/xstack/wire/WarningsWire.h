// Warnings (core/Warnings.h) inside a message: a list of entries in name
// order, each the kind's name (never its enum value: ranks agree on names),
// its count and, when the message carries them, its examples.
#pragma once

#include <string>

#include "xstack/core/Warnings.h"
#include "xstack/wire/Wire.h"

namespace xstack::wire {

void writeWarnings(Writer& w, const Warnings& warnings, bool withExamples);

// Reads what writeWarnings wrote (with the same `withExamples`). A kind this
// build does not know is left out, and warnByName's message for the first
// such kind goes to `unknownKind` (left as it is when every kind is known).
Warnings readWarnings(Reader& r, bool withExamples, std::string& unknownKind);

}  // namespace xstack::wire
