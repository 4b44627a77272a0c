#include "xstack/cmd/common/VersionInfo.h"

#include <google/protobuf/stubs/common.h>

#include "xstack/comm/Comm.h"
#include "xstack_git_describe.h"  // generated at build time (cmake/GitDescribe.cmake)

namespace xstack {

std::string versionText() {
  const int pb = GOOGLE_PROTOBUF_VERSION;  // e.g. 3021012 = 3.21.12
  std::string text = std::string("xstack ") + XSTACK_VERSION + "\n";
  text += std::string("git ") + XSTACK_GIT_DESCRIBE + "\n";
  text += "protobuf " + std::to_string(pb / 1000000) + "." + std::to_string(pb / 1000 % 1000) +
          "." + std::to_string(pb % 1000) + "\n";
  text += "mpi " + mpiLibraryVersion() + "\n";
  return text;
}

}  // namespace xstack
