#include "xstack/render/json/JsonNameCache.h"

namespace xstack {

void JsonNameCache::reset(const NameTable& names) {
  names_ = &names;
  entries_.assign(names.size(), Entry{});
  text_.clear();
}

std::string_view JsonNameCache::text(uint32_t id, JsonTextStats& fixed) {
  if (id >= entries_.size()) entries_.resize(names_->size());  // interned after reset
  Entry& e = entries_[id];
  if (!e.escaped) {
    e.at = text_.size();
    appendJsonString(text_, names_->raw(id), e.stats);
    e.len = text_.size() - e.at;
    e.escaped = true;
  }
  fixed.invalidUtf8 += e.stats.invalidUtf8;
  fixed.controlChars += e.stats.controlChars;
  return std::string_view(text_).substr(e.at, e.len);
}

}  // namespace xstack
