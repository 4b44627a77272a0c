// Test hook: XSTACK_INJECT_FAULT="<stage>:<rank>[,<stage>:<rank>...]" makes
// MPI rank <rank> fail at <stage> ("list", "read", "render", or
// "kill-render" which SIGKILLs the process), so the tests can prove that a
// failure on one rank at any stage neither hangs nor loses the other
// ranks' outputs. Unset in normal runs (a getenv per stage, no cost).
#pragma once

namespace xstack {

bool faultInjected(const char* stage, int rank);

}  // namespace xstack
