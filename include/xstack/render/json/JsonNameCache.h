// The JSON text of a rank's names ("<escaped>", quotes included, as
// appendJsonString writes it), each escaped once, on its first use: op and
// kernel names recur thousands of times per rank. The store (NameTable)
// keeps them raw; this cache is the JSON sink's own.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "xstack/core/TextWriting.h"
#include "xstack/render/NameTable.h"

namespace xstack {

class JsonNameCache {
 public:
  // The names of the next rank; forgets the escaped text (keeps its memory).
  void reset(const NameTable& names);
  // "<escaped name>" of id; `fixed` gets what escaping one occurrence fixed
  // (counted per use).
  std::string_view text(uint32_t id, JsonTextStats& fixed);

 private:
  struct Entry {
    size_t at = 0, len = 0;  // in text_
    JsonTextStats stats;
    bool escaped = false;
  };
  const NameTable* names_ = nullptr;
  std::vector<Entry> entries_;
  std::string text_;  // the escaped names, back to back
};

}  // namespace xstack
