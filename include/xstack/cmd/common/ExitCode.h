// The exit codes of every command.
#pragma once

namespace xstack {

// Exit codes (README): 0 ok, 1 fatal (no outputs), 2 usage, 3 partial.
enum ExitCode : int { kExitOk = 0, kExitFatal = 1, kExitUsage = 2, kExitPartial = 3 };

}  // namespace xstack
