#include "xstack/transport/MessageTags.h"

namespace xstack {

void sendMessage(Comm& comm, int dest, MessageTag tag, std::string_view data) {
  comm.send(dest, tagValue(tag), 0, data);
}

std::string receiveMessage(Comm& comm, int source, MessageTag tag) {
  return comm.recv(source, tagValue(tag)).data;
}

}  // namespace xstack
