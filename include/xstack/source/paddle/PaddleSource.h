// The Paddle input family (docs/FORMAT.md section 1): protobuf profiles
// (profile/<name>.<rank>), `dcgmi dmon` logs, net logs and time files, as one
// Source.
#pragma once

#include "xstack/source/Source.h"

namespace xstack {

const Source& paddleSource();

}  // namespace xstack
