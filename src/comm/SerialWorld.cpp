// The world communicator of the serial build (-DXSTACK_MPI=OFF): always one
// rank. Started by an MPI launcher with more than one rank, every process would
// believe it is rank 0 and write the same outputs: that is refused.
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "xstack/comm/Comm.h"
#include "xstack/core/TerminalText.h"

namespace xstack {

std::unique_ptr<Comm> makeWorldComm(int* /*argc*/, char*** /*argv*/) {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS"}) {
    const char* s = std::getenv(v);
    if (s && std::strtol(s, nullptr, 10) > 1) {
      std::fprintf(stderr,
                   "xstack: this xstack was built without MPI (-DXSTACK_MPI=OFF) but was started "
                   "as one of %s ranks; run it alone, or use an MPI build\n",
                   terminalSafe(s).c_str());
      std::exit(1);
    }
  }
  return std::make_unique<SerialComm>();
}

std::string mpiLibraryVersion() { return "none (serial build, -DXSTACK_MPI=OFF)"; }

}  // namespace xstack
