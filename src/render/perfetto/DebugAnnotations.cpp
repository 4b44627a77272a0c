#include "xstack/render/perfetto/DebugAnnotations.h"

#include "xstack/render/perfetto/PerfettoFields.h"

namespace xstack::perfetto {
namespace f = fields;

void DebugAnnotations::intern(std::span<const DebugArg> args, std::string_view eventName,
                              EventIids& event, InternTables& tables, NewInternedEntries& fresh) {
  iids_.clear();
  for (const DebugArg& a : args) {
    const uint64_t nameIid = tables.annotationName(a.key, fresh);
    uint64_t valueIid = 0;
    if (a.type == DebugArg::Type::String && a.internValue) {
      if (a.s == eventName) {
        if (!event.stringValue) event.stringValue = tables.stringValue(a.s, fresh);
        valueIid = event.stringValue;
      } else {
        valueIid = tables.stringValue(a.s, fresh);
      }
    }
    iids_.emplace_back(nameIid, valueIid);
  }
}

void DebugAnnotations::write(ProtoWriter& w, std::span<const DebugArg> args,
                             JsonTextStats& text) const {
  for (size_t k = 0; k < args.size(); ++k) {
    ProtoWriter::Mark m = w.beginMessage(f::event::kDebugAnnotations);
    w.varintField(f::annotation::kNameIid, iids_[k].first);
    writeValue(w, args[k], iids_[k].second, text);
    w.endMessage(m);
  }
}

void DebugAnnotations::writeValue(ProtoWriter& w, const DebugArg& arg, uint64_t valueIid,
                                  JsonTextStats& text) {
  namespace a = f::annotation;
  switch (arg.type) {
    case DebugArg::Type::Int:
      w.int64Field(a::kIntValue, arg.i);
      break;
    case DebugArg::Type::Uint:
      w.varintField(a::kUintValue, arg.u);
      break;
    case DebugArg::Type::Double:
      w.doubleField(a::kDoubleValue, arg.d);
      break;
    case DebugArg::Type::Bool:
      w.boolField(a::kBoolValue, arg.i != 0);
      break;
    case DebugArg::Type::String:
      if (valueIid)
        w.varintField(a::kStringValueIid, valueIid);
      else
        w.utf8Field(a::kStringValue, arg.s, text);
      break;
  }
}

}  // namespace xstack::perfetto
