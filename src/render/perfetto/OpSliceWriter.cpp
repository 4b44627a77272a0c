#include "xstack/render/perfetto/OpSliceWriter.h"

#include "xstack/render/perfetto/PerfettoFields.h"

namespace xstack::perfetto {
namespace f = fields;

namespace {

constexpr std::string_view kKeys[3] = {"name", "mem_bytes", "detail_info"};

}  // namespace

std::span<const DebugArg> OpSliceWriter::generalArgs(const OpSlice& op, DebugArg (&room)[3]) {
  size_t n = 0;
  room[n++] = DebugArg::ofString(kKeys[0], op.name, true);
  if (op.memBytes > 0) room[n++] = DebugArg::ofUint(kKeys[1], op.memBytes);
  if (!op.detail.empty()) room[n++] = DebugArg::ofString(kKeys[2], op.detail);
  return {room, n};
}

void OpSliceWriter::remember(const OpSlice& op) {
  categoryIid_ = interned_.findCategory(kOpCategory);
  for (size_t k = 0; k < 3; ++k) keyIids_[k] = interned_.findAnnotationName(kKeys[k]);
  const EventIids* event = interned_.findEventName(op.name);
  if (!event) return;
  if (op.nameId >= names_.size()) names_.resize(op.nameId + 1);
  names_[op.nameId] = {event->name, event->stringValue};
}

bool OpSliceWriter::tryBegin(uint64_t trackUuid, const OpSlice& op) {
  // Nothing new to intern and no track switch: the packet is a fixed shape
  // whose size is known before writing.
  if (op.nameId >= names_.size() || op.flow.id) return false;
  const NameIids ids = names_[op.nameId];
  if (!ids.name || !ids.value || !categoryIid_ || !keyIids_[0]) return false;
  if ((op.memBytes && !keyIids_[1]) || (!op.detail.empty() && !keyIids_[2])) return false;
  if (trackUuid != events_.defaultTrack()) return false;
  namespace a = f::annotation;
  const size_t nameArg =
      varintFieldSize(a::kNameIid, keyIids_[0]) + varintFieldSize(a::kStringValueIid, ids.value);
  size_t event = varintFieldSize(f::event::kCategoryIids, categoryIid_) +
                 nestedSize(f::event::kDebugAnnotations, nameArg) +
                 varintFieldSize(f::event::kType, f::event::kTypeSliceBegin) +
                 varintFieldSize(f::event::kNameIid, ids.name);
  size_t memArg = 0, detailArg = 0;
  if (op.memBytes) {
    memArg =
        varintFieldSize(a::kNameIid, keyIids_[1]) + varintFieldSize(a::kUintValue, op.memBytes);
    event += nestedSize(f::event::kDebugAnnotations, memArg);
  }
  if (!op.detail.empty()) {
    detailText_.clear();
    appendValidUtf8(detailText_, op.detail, seq_.textStats());
    detailArg =
        varintFieldSize(a::kNameIid, keyIids_[2]) + nestedSize(a::kStringValue, detailText_.size());
    event += nestedSize(f::event::kDebugAnnotations, detailArg);
  }
  writeBegin(op, ids, nameArg, memArg, detailArg, event);
  return true;
}

void OpSliceWriter::writeBegin(const OpSlice& op, NameIids ids, size_t nameArg, size_t memArg,
                               size_t detailArg, size_t eventBytes) {
  namespace a = f::annotation;
  SizedWriter o = seq_.beginSizedEvent(op.tsNs, eventBytes);
  o.varintField(f::event::kCategoryIids, categoryIid_);
  o.tag(f::event::kDebugAnnotations, WireType::LengthDelimited);
  o.varint(nameArg);
  o.varintField(a::kNameIid, keyIids_[0]);
  o.varintField(a::kStringValueIid, ids.value);
  if (memArg) {
    o.tag(f::event::kDebugAnnotations, WireType::LengthDelimited);
    o.varint(memArg);
    o.varintField(a::kNameIid, keyIids_[1]);
    o.varintField(a::kUintValue, op.memBytes);
  }
  if (detailArg) {
    o.tag(f::event::kDebugAnnotations, WireType::LengthDelimited);
    o.varint(detailArg);
    o.varintField(a::kNameIid, keyIids_[2]);
    o.tag(a::kStringValue, WireType::LengthDelimited);
    o.varint(detailText_.size());
    o.bytes(detailText_);
  }
  o.varintField(f::event::kType, f::event::kTypeSliceBegin);
  o.varintField(f::event::kNameIid, ids.name);
  seq_.endSizedEvent();
}

}  // namespace xstack::perfetto
