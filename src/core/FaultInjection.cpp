#include "xstack/core/FaultInjection.h"

#include <cstdlib>
#include <sstream>
#include <string>

namespace xstack {

bool faultInjected(const char* stage, int rank) {
  const char* spec = std::getenv("XSTACK_INJECT_FAULT");
  if (!spec) return false;
  std::stringstream ss(spec);
  std::string item;
  const std::string want = std::string(stage) + ":" + std::to_string(rank);
  while (std::getline(ss, item, ','))
    if (item == want) return true;
  return false;
}

bool faultArmed(const char* stage) {
  const char* spec = std::getenv("XSTACK_INJECT_FAULT");
  if (!spec) return false;
  std::stringstream ss(spec);
  std::string item;
  const std::string want = std::string(stage) + ":";
  while (std::getline(ss, item, ','))
    if (item.rfind(want, 0) == 0) return true;
  return false;
}

void runInjectedCommand(const char* stage, int rank) {
  if (!faultInjected(stage, rank)) return;
  if (const char* cmd = std::getenv("XSTACK_INJECT_COMMAND"))
    (void)std::system(cmd);  // NOLINT(cert-env33-c): a test hook, off in normal runs
}

}  // namespace xstack
