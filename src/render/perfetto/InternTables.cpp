#include "xstack/render/perfetto/InternTables.h"

#include "xstack/render/perfetto/PerfettoFields.h"

namespace xstack::perfetto {
namespace f = fields;

uint64_t InternTables::intern(Index& index, std::string_view text,
                              NewInternedEntries::List& fresh) {
  if (index.lastIid && text == index.lastText) return index.lastIid;
  auto it = index.iids.find(text);
  if (it == index.iids.end()) {
    const uint64_t iid = index.iids.size() + 1;
    it = index.iids.emplace(std::string(text), iid).first;
    fresh.emplace_back(iid, text);
  }
  index.lastText = it->first;
  index.lastIid = it->second;
  return it->second;
}

uint64_t InternTables::find(const Index& index, std::string_view text) {
  auto it = index.iids.find(text);
  return it == index.iids.end() ? 0 : it->second;
}

EventIids& InternTables::eventName(std::string_view name, NewInternedEntries& fresh) {
  if (eventSlots_.empty()) eventSlots_.resize(kEventSlots);
  const auto address = reinterpret_cast<uintptr_t>(name.data());
  EventSlot& slot = eventSlots_[((address >> 3) ^ name.size()) & (kEventSlots - 1)];
  if (slot.entry && slot.data == name.data() && slot.size == name.size() &&
      slot.entry->first == name)
    return slot.entry->second;
  auto found = events_.find(name);
  if (found == events_.end()) {
    const uint64_t iid = events_.size() + 1;
    found = events_.emplace(std::string(name), EventIids{iid, 0}).first;
    fresh.events.emplace_back(iid, name);
  }
  slot = {name.data(), name.size(), &*found};
  return found->second;
}

const EventIids* InternTables::findEventName(std::string_view name) const {
  auto it = events_.find(name);
  return it == events_.end() ? nullptr : &it->second;
}

void InternTables::write(ProtoWriter& w, const NewInternedEntries& fresh, JsonTextStats& text) {
  if (fresh.empty()) return;
  auto entries = [&](uint32_t field, const NewInternedEntries::List& list) {
    for (const auto& [iid, entryText] : list) {
      ProtoWriter::Mark e = w.beginMessage(field);
      w.varintField(f::interned::kIid, iid);
      w.utf8Field(f::interned::kName, entryText, text);
      w.endMessage(e);
    }
  };
  ProtoWriter::Mark m = w.beginMessage(f::packet::kInternedData);
  entries(f::interned::kEventCategories, fresh.categories);
  entries(f::interned::kEventNames, fresh.events);
  entries(f::interned::kDebugAnnotationNames, fresh.names);
  entries(f::interned::kDebugAnnotationStringValues, fresh.strings);
  w.endMessage(m);
}

}  // namespace xstack::perfetto
