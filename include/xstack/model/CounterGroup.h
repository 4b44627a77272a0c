// The counter processes of a trace file that a DCGM or a net file feeds, in
// output order: what a summary counts counter events by. The trace's pid of
// each is counterPid (trace/TracePids.h); its series are the trace's too
// (trace/TraceLayout.h).
#pragma once

#include <array>

namespace xstack {

enum class CounterGroup : int {
  GpuUtility,  // DCGM
  SmUtility,
  MemUtility,
  TxUtility,
  CalUtility,
  NetTx,  // net
  NetRx,
};

// Every group, in output order.
inline constexpr std::array<CounterGroup, 7> kCounterGroups = {
    CounterGroup::GpuUtility, CounterGroup::SmUtility,  CounterGroup::MemUtility,
    CounterGroup::TxUtility,  CounterGroup::CalUtility, CounterGroup::NetTx,
    CounterGroup::NetRx};

constexpr bool isNetGroup(CounterGroup g) {
  return g == CounterGroup::NetTx || g == CounterGroup::NetRx;
}

}  // namespace xstack
