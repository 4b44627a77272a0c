// Field numbers of the Perfetto trace schema (perfetto.protos, proto2) that
// the encoder writes. Facts taken from Perfetto's published .proto files
// (protos/perfetto/trace/...); these are our own definitions, not copies.
// tests/perfetto/perfetto_subset.proto declares the same numbers for the
// decoder test.
#pragma once

#include <cstdint>

namespace xstack::perfetto::fields {

// trace.proto: message Trace { repeated TracePacket packet = 1; }
constexpr uint32_t kTracePacket = 1;

// trace_packet.proto: TracePacket
namespace packet {
constexpr uint32_t kTimestamp = 8;                   // uint64, ns
constexpr uint32_t kTrustedPacketSequenceId = 10;    // uint32
constexpr uint32_t kTrackEvent = 11;                 // TrackEvent
constexpr uint32_t kInternedData = 12;               // InternedData
constexpr uint32_t kSequenceFlags = 13;              // uint32
constexpr uint32_t kTracePacketDefaults = 59;        // TracePacketDefaults
constexpr uint32_t kTrackDescriptor = 60;            // TrackDescriptor
constexpr uint32_t kChromeEvents = 5;                // ChromeEventBundle
constexpr uint32_t kSeqIncrementalStateCleared = 1;  // SequenceFlags value
}  // namespace packet

// chrome/chrome_trace_event.proto: ChromeEventBundle / ChromeMetadata (trace_processor puts
// each entry in its `metadata` table as "cr-<name>", outside the timeline)
namespace chrome {
constexpr uint32_t kBundleMetadata = 2;  // ChromeEventBundle.metadata, repeated ChromeMetadata
constexpr uint32_t kMetadataName = 1;    // ChromeMetadata.name, string
constexpr uint32_t kMetadataString = 2;  // ChromeMetadata.string_value
}  // namespace chrome

// trace_packet_defaults.proto: TracePacketDefaults / TrackEventDefaults
namespace defaults {
constexpr uint32_t kTrackEventDefaults = 11;  // TracePacketDefaults.track_event_defaults
constexpr uint32_t kTrackUuid = 11;           // TrackEventDefaults.track_uuid
}  // namespace defaults

// track_event/track_event.proto: TrackEvent
namespace event {
constexpr uint32_t kCategoryIids = 3;         // repeated uint64
constexpr uint32_t kDebugAnnotations = 4;     // repeated DebugAnnotation
constexpr uint32_t kType = 9;                 // Type enum
constexpr uint32_t kNameIid = 10;             // uint64
constexpr uint32_t kTrackUuid = 11;           // uint64
constexpr uint32_t kCounterValue = 30;        // int64
constexpr uint32_t kDoubleCounterValue = 44;  // double
constexpr uint32_t kFlowIds = 47;             // repeated fixed64: a flow leaves this event
constexpr uint32_t kTerminatingFlowIds = 48;  // repeated fixed64: a flow ends at this event
constexpr uint32_t kTypeSliceBegin = 1;
constexpr uint32_t kTypeSliceEnd = 2;
constexpr uint32_t kTypeInstant = 3;
constexpr uint32_t kTypeCounter = 4;
}  // namespace event

// track_event/debug_annotation.proto: DebugAnnotation
namespace annotation {
constexpr uint32_t kNameIid = 1;  // uint64, interned DebugAnnotationName
constexpr uint32_t kBoolValue = 2;
constexpr uint32_t kUintValue = 3;
constexpr uint32_t kIntValue = 4;
constexpr uint32_t kDoubleValue = 5;
constexpr uint32_t kStringValue = 6;
constexpr uint32_t kStringValueIid = 17;  // interned debug_annotation_string_values
}  // namespace annotation

// interned_data/interned_data.proto: InternedData. Entries are
// EventCategory / EventName / DebugAnnotationName {iid = 1; name = 2} and
// InternedString {iid = 1; str = 2}.
namespace interned {
constexpr uint32_t kEventCategories = 1;
constexpr uint32_t kEventNames = 2;
constexpr uint32_t kDebugAnnotationNames = 3;
constexpr uint32_t kDebugAnnotationStringValues = 29;
constexpr uint32_t kIid = 1;
constexpr uint32_t kName = 2;
}  // namespace interned

// track_event/track_descriptor.proto: TrackDescriptor
namespace track {
constexpr uint32_t kUuid = 1;
constexpr uint32_t kName = 2;
constexpr uint32_t kProcess = 3;  // ProcessDescriptor
constexpr uint32_t kThread = 4;   // ThreadDescriptor
constexpr uint32_t kParentUuid = 5;
constexpr uint32_t kCounter = 8;  // CounterDescriptor
// Today's ordering (the UI ignores the legacy sort indexes): a parent's
// children in the order of their sibling ranks (int32, smaller first).
constexpr uint32_t kChildOrdering = 11;  // ChildTracksOrdering enum
constexpr uint32_t kSiblingOrderRank = 12;
constexpr uint32_t kChildOrderingExplicit = 3;
}  // namespace track

// track_event/process_descriptor.proto: ProcessDescriptor
namespace process {
constexpr uint32_t kPid = 1;
constexpr uint32_t kLegacySortIndex = 3;
constexpr uint32_t kProcessName = 6;
}  // namespace process

// track_event/thread_descriptor.proto: ThreadDescriptor
namespace thread {
constexpr uint32_t kPid = 1;
constexpr uint32_t kTid = 2;
constexpr uint32_t kLegacySortIndex = 3;
constexpr uint32_t kThreadName = 5;
}  // namespace thread

// track_event/counter_descriptor.proto: CounterDescriptor
namespace counter {
constexpr uint32_t kUnit = 3;      // Unit enum: 1 TIME_NS, 2 COUNT, 3 SIZE_BYTES
constexpr uint32_t kUnitName = 6;  // string
}  // namespace counter

}  // namespace xstack::perfetto::fields
