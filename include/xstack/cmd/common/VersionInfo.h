// `xstack --version`: what a bug report needs to name the build.
#pragma once

#include <string>

namespace xstack {

// Lines "xstack <version>", "git <describe>" (at build time; "unknown" outside a
// git checkout), "protobuf <version>" (the headers built against) and
// "mpi <library version line>". Only the first (XSTACK_VERSION) goes into a
// trace's otherData: the rest differs between builds of one release.
std::string versionText();

}  // namespace xstack
