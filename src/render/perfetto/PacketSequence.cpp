#include "xstack/render/perfetto/PacketSequence.h"

#include <stdexcept>
#include <utility>

namespace xstack::perfetto {
namespace f = fields;

PacketSequence::PacketSequence(uint32_t sequenceId, Sink sink, size_t pieceBytes,
                               std::string buffer)
    : sink_(std::move(sink)), pieceBytes_(pieceBytes), buf_(std::move(buffer)), w_(buf_) {
  if (sequenceId == 0) throw std::invalid_argument("perfetto: sequence id 0 is invalid");
  // 1 = SEQ_INCREMENTAL_STATE_CLEARED on the first packet, then
  // 2 = SEQ_NEEDS_INCREMENTAL_STATE (interned data, packet defaults).
  for (uint64_t flags = 1; flags <= 2; ++flags) {
    ProtoWriter head(sequenceHead_[flags - 1]);
    head.varintField(f::packet::kTrustedPacketSequenceId, sequenceId);
    head.varintField(f::packet::kSequenceFlags, flags);
  }
  buf_.clear();  // capacity kept: chunks are often small, a fresh 4 MiB costs page faults
}

void PacketSequence::requireOpen() const {
  if (finished_) throw std::logic_error("perfetto: encoder used after finish()");
}

ProtoWriter::Mark PacketSequence::begin(uint64_t tsNs, bool hasTs) {
  requireOpen();
  // One append: TracePacket tag, length placeholder, timestamp (0 written
  // too: presence), sequence head.
  char head[32];  // tag 1 + placeholder 1 + timestamp <= 11 + sequence head <= 12
  SizedWriter o{head};
  o.tag(f::kTracePacket, WireType::LengthDelimited);
  o.byte(0);
  if (hasTs) o.varintField(f::packet::kTimestamp, tsNs);
  o.bytes(sequenceHead());
  const auto n = static_cast<size_t>(o.p - head);
  const ProtoWriter::Mark m = buf_.size() + 1;
  buf_.append(head, n);
  return m;
}

void PacketSequence::handOver() {
  sink_(buf_);
  buf_.clear();
}

void PacketSequence::finish() {
  if (finished_) return;
  finished_ = true;
  if (!buf_.empty()) handOver();
}

}  // namespace xstack::perfetto
