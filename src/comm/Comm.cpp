#include "xstack/comm/Comm.h"

#include <unistd.h>

#include <cstdlib>
#include <stdexcept>

namespace xstack {

std::string Comm::host() const {
  // Test hook: several "hosts" on one machine (tests/mpi/fileid.sh); unset in real runs.
  if (const char* fake = std::getenv("XSTACK_TEST_HOST"); fake && *fake) return fake;
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "unknown-host";
  return buf;
}

void SerialComm::send(int, int, uint64_t, std::string_view) {
  throw std::logic_error("SerialComm::send: a single rank has nobody to send to");
}

Message SerialComm::recv(int, int) {
  throw std::logic_error("SerialComm::recv: a single rank has nobody to receive from");
}

bool launchedByMpi() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
    if (std::getenv(v)) return true;
  return false;
}

}  // namespace xstack
