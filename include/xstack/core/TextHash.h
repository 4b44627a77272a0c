// Hash maps keyed by text that are looked up with a std::string_view, without
// making a std::string of the key first (C++20 heterogeneous lookup).
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace xstack {

struct TextHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

template <class V>
using TextMap = std::unordered_map<std::string, V, TextHash, std::equal_to<>>;

}  // namespace xstack
