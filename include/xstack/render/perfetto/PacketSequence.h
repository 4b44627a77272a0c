// One Perfetto packet sequence as it is written: frames each TracePacket
// (Trace.packet, field 1, length-delimited) with its timestamp and the
// sequence's own fields, and hands the bytes on in pieces. The parts of the
// encoder (PerfettoSequenceEncoder) write their packets' bodies through it.
//
// Contract:
// - `sequenceId` (nonzero, else std::invalid_argument) is every packet's
//   trusted_packet_sequence_id; the first packet carries sequence_flags
//   SEQ_INCREMENTAL_STATE_CLEARED (1), the others SEQ_NEEDS_INCREMENTAL_STATE
//   (2).
// - A timed packet's timestamp (ns since the trace's time origin) is always
//   written, 0 included; an untimed packet has none.
// - After each packet, once `pieceBytes` or more are buffered, they go to
//   `sink` (pieces are cut at packet boundaries; the bytes do not depend on
//   where). finish() hands the rest; a packet begun after it is a
//   std::logic_error.
// - textStats() counts the fixes of every string made valid UTF-8 for this
//   sequence (appendValidUtf8), whichever part wrote it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "xstack/core/TextWriting.h"
#include "xstack/render/perfetto/PerfettoFields.h"
#include "xstack/render/perfetto/ProtoWriter.h"

namespace xstack::perfetto {

class PacketSequence {
 public:
  // Receives each piece (the same contract as JsonRenderer::Sink).
  using Sink = std::function<void(std::string&)>;

  // `buffer`: memory to encode into (a recycled piece buffer), optional.
  PacketSequence(uint32_t sequenceId, Sink sink, size_t pieceBytes, std::string buffer);

  // A packet written field by field through writer(): begin, write the
  // packet's other fields, end with the returned mark.
  ProtoWriter::Mark beginPacket(uint64_t tsNs) { return begin(tsNs, true); }
  ProtoWriter::Mark beginUntimedPacket() { return begin(0, false); }
  void endPacket(ProtoWriter::Mark packet) {
    w_.endMessage(packet);
    packetEnded();
  }
  ProtoWriter& writer() { return w_; }

  // A TrackEvent packet of known size: writes the packet head (timestamp,
  // sequence fields) and the TrackEvent's tag and length; the caller writes
  // exactly `eventBytes` more, then calls endSizedEvent().
  SizedWriter beginSizedEvent(uint64_t tsNs, size_t eventBytes) {
    namespace f = fields;
    const std::string& head = sequenceHead();
    const size_t body = varintFieldSize(f::packet::kTimestamp, tsNs) + head.size() +
                        nestedSize(f::packet::kTrackEvent, eventBytes);
    const size_t at = buf_.size();
    buf_.resize(at + nestedSize(f::kTracePacket, body));
    SizedWriter o{buf_.data() + at};
    o.tag(f::kTracePacket, WireType::LengthDelimited);
    o.varint(body);
    o.varintField(f::packet::kTimestamp, tsNs);
    o.bytes(head);
    o.tag(f::packet::kTrackEvent, WireType::LengthDelimited);
    o.varint(eventBytes);
    return o;
  }
  void endSizedEvent() { packetEnded(); }

  // Throws std::logic_error after finish().
  void requireOpen() const;
  // Hands every buffered byte to the sink; no packet may begin after it.
  void finish();
  bool finished() const { return finished_; }
  // The encode buffer, for reuse by the next chunk (after finish()).
  std::string takeBuffer() { return std::move(buf_); }

  JsonTextStats& textStats() { return text_; }
  const JsonTextStats& textStats() const { return text_; }
  uint64_t packetCount() const { return packets_; }

 private:
  ProtoWriter::Mark begin(uint64_t tsNs, bool hasTs);
  // trusted_packet_sequence_id and sequence_flags of the next packet.
  const std::string& sequenceHead() const { return sequenceHead_[packets_ == 0 ? 0 : 1]; }
  // Counts the packet; hands the buffer to the sink once it holds a piece.
  void packetEnded() {
    ++packets_;
    if (buf_.size() >= pieceBytes_) handOver();
  }
  void handOver();

  Sink sink_;
  size_t pieceBytes_;
  std::string buf_;
  ProtoWriter w_;
  JsonTextStats text_;
  uint64_t packets_ = 0;
  bool finished_ = false;
  // Packet header after the timestamp: trusted_packet_sequence_id and
  // sequence_flags, encoded once; [0] for the first packet (flags 1), [1]
  // for the others (flags 2).
  std::string sequenceHead_[2];
};

}  // namespace xstack::perfetto
