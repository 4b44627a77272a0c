// Typed helpers over Comm: every message between ranks is a wire::Writer
// message (wire/Wire.h) and every point-to-point tag is a MessageTag
// (MessageTags.h). Encoders are `void(wire::Writer&, const T&)`, decoders
// `T(wire::Reader&)`; a message that does not decode is an Error naming the
// rank it came from, never a throw.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "xstack/comm/Comm.h"
#include "xstack/core/Status.h"
#include "xstack/transport/MessageTags.h"
#include "xstack/wire/Wire.h"

namespace xstack {

// Decodes a whole message with `read`; an Error (what, byte offset) when it is
// short, malformed or has bytes left over.
template <class T, class Read>
Expected<T> decodeMessage(std::string_view bytes, const std::string& what, Read read) {
  wire::Reader r(bytes, what);
  T value = read(r);
  if (Status st = r.finish(); !st) return st.error();
  return value;
}

template <class T, class Write>
std::string encodeMessage(const T& value, Write write) {
  wire::Writer w;
  write(w, value);
  return w.take();
}

// collective: every rank's `mine` to every rank, decoded, indexed by rank.
// Every rank decodes every message, so a bad one fails the same on all ranks.
template <class T, class Write, class Read>
Expected<std::vector<T>> allgatherTyped(Comm& comm, const T& mine, const std::string& what,
                                        Write write, Read read) {
  std::vector<std::string> all = comm.allgather(encodeMessage(mine, write));
  std::vector<T> out;
  out.reserve(all.size());
  for (size_t r = 0; r < all.size(); ++r) {
    auto v = decodeMessage<T>(all[r], what + " of MPI rank " + std::to_string(r), read);
    if (!v) return v.error();
    out.push_back(std::move(*v));
  }
  return out;
}

// Point to point: `value` to rank `dest` on `tag` (synchronous, Comm::send).
template <class T, class Write>
void sendTyped(Comm& comm, int dest, MessageTag tag, const T& value, Write write) {
  sendMessage(comm, dest, tag, encodeMessage(value, write));
}

// Point to point: the next message from `source` on `tag`, decoded.
template <class T, class Read>
Expected<T> receiveTyped(Comm& comm, int source, MessageTag tag, const std::string& what,
                         Read read) {
  return decodeMessage<T>(receiveMessage(comm, source, tag),
                          what + " from MPI rank " + std::to_string(source), read);
}

}  // namespace xstack
