// Test hook: XSTACK_INJECT_FAULT="<stage>:<rank>[,<stage>:<rank>...]" makes
// MPI rank <rank> fail at <stage> ("list", "read", "render", or
// "kill-render" which SIGKILLs the process; "render-read-cmd", "read-cmd"
// (before the read stage, after the listing) and "list-cmd" (before the listing,
// after --out is locked) run a command, runInjectedCommand; "spill-read": on
// every rank, every read back or mapping of a scratch file fails, as on a
// bad disk, io/SpillFile.h; "shelf-read": the same for the scratch files of
// io/PartShelf.h alone, whose spilled parts then read as empty; "tracks-read"
// and "outcomes-read": the same for the collectives' trace slices' shelf
// alone, and for the outcomes a reader keeps for the critical path;
// "tracks-text-read": a track group's kept text, cmd/report's RenderedTracks,
// which is then rendered again), so the
// tests can prove that a
// failure on one rank at any stage neither hangs nor loses the other
// ranks' outputs. Unset in normal runs (a getenv per stage, no cost).
#pragma once

namespace xstack {

bool faultInjected(const char* stage, int rank);

// When faultInjected(stage, rank): runs the shell command in
// XSTACK_INJECT_COMMAND and waits for it (e.g. "render-read-cmd": replace a
// profile between its first read and its rendering's second read).
void runInjectedCommand(const char* stage, int rank);
// Whether XSTACK_INJECT_FAULT names `stage` for any rank (the same answer on
// every rank of a job that shares one environment).
bool faultArmed(const char* stage);

}  // namespace xstack
