// Tokenizer for the protobuf wire format of paddle.platform.proto.Profile
// (proto/profiler.proto). It decodes in place: strings are views into the
// caller's buffer, nothing is copied, and every length is checked against the
// bytes that remain, so a corrupt length prefix never allocates. This is the
// "parse" half of the profile reader; WireEvents.h gives the events meaning.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "xstack/core/Status.h"
#include "xstack/io/FileBytes.h"

namespace xstack {

struct ProfileEvent {
  std::string_view name;
  std::string_view detail;  // detail_info
  uint64_t startNs = 0;
  uint64_t endNs = 0;
  int64_t deviceId = 0;     // -1: CUDA runtime API call
  int64_t subDeviceId = 0;  // thread (CPU) or stream (GPU)
  uint64_t memcopyBytes = 0;
  int64_t type = 0;  // 0 CPU, 1 GPUKernel, other values are kept and warned about
};

struct ProfileMemEvent {
  uint64_t startNs = 0;
  uint64_t endNs = 0;
  uint64_t bytes = 0;
  int64_t place = 0;  // 0 CUDAPlace, 1 CPUPlace, 2 CUDAPinnedPlace
  uint64_t threadId = 0;
  uint64_t deviceId = 0;
};

struct ProfileData {
  std::vector<ProfileEvent> events;  // in file order
  std::vector<ProfileMemEvent> memEvents;
  uint64_t startNs = 0;
  uint64_t endNs = 0;
  bool hasStartNs = false;
  bool hasEndNs = false;
};

// Receives a profile's fields in file order as they are decoded (a
// streaming parse: the caller keeps only what it needs; the views point into
// the decoded bytes).
class ProfileSink {
 public:
  virtual ~ProfileSink() = default;
  virtual void onEvent(const ProfileEvent& e) = 0;
  virtual void onMemEvent(const ProfileMemEvent& m) = 0;
  virtual void onStartNs(uint64_t /*ns*/) {}
  virtual void onEndNs(uint64_t /*ns*/) {}
};

// Decodes `bytes` into `sink`. On a malformed or cut field it stops with an
// Error (kind Read, no file) whose offset is always set: the byte offset of
// the first field that failed; its message says what failed ("malformed
// event"). Everything before that field has been delivered.
Status decodeProfile(std::string_view bytes, ProfileSink& sink);

// Decodes `bytes` into `out` (appending), the same way.
Status decodeProfile(std::string_view bytes, ProfileData& out);

// The top level of a profile walked as the file arrives (FileBuffer::open's check):
// reading stops at the first top-level field that decodeProfile rejects (tag 0, wire
// type 4, 6 or 7, a varint of more than 10 bytes, a length or fixed value past the end
// of the file), so that what cannot be a profile (a sparse file of zeros, another
// format) is rejected after its first piece and memory does not grow with its size.
// decodeProfile of the bytes read then gives the same events and the same error at the
// same offset as of the whole file: every field before the one rejected is whole.
// An event or memory event of more than 4 MiB is walked inside too (its fields' tags
// and lengths): when one is one decodeEvent/decodeMemEvent rejects, reading stops there
// and rejected() holds the error decodeProfile gives for that field (decodeChecked).
// A group is not walked: the whole file (or that event) is read, as without a check.
class ProfilePrefixCheck final : public PrefixCheck {
 public:
  uint64_t usefulBytes(std::string_view prefix, uint64_t fileSize) override;
  // Set when a large event was rejected inside: decodeProfile's error for it (its offset set).
  const std::optional<Error>& rejected() const { return rejected_; }

 private:
  bool walkInside(std::string_view prefix);  // false: more bytes needed
  uint64_t next_ = 0;                        // offset of the next top-level field to walk
  bool readAll_ = false;                     // a group was met: walk no further
  bool stop_ = false;                        // a field decodeProfile rejects was met
  // The large event being walked inside: its offset, next field and end.
  struct Inside {
    uint64_t start = 0, next = 0, end = 0;
    bool memory = false;  // a memory event (field 4), else an event (field 1)
  };
  std::optional<Inside> inside_;
  std::optional<Error> rejected_;
};

// decodeProfile of what FileBuffer::open read with `check`: the same result as a
// decodeProfile of the whole file (the bytes before a rejected large event, then its error).
Status decodeChecked(std::string_view bytes, const ProfilePrefixCheck& check, ProfileSink& sink);
Status decodeChecked(std::string_view bytes, const ProfilePrefixCheck& check, ProfileData& out);

}  // namespace xstack
