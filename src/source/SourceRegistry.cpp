#include "xstack/source/SourceRegistry.h"

#include "xstack/source/chrome/ChromeSource.h"
#include "xstack/source/paddle/PaddleSource.h"

namespace xstack {

const std::vector<const Source*>& registeredSources() {
  static const std::vector<const Source*> kSources = {
      &paddleSource(),  // Paddle's legacy protobuf profiles with DCGM, net and time files
      &chromeSource(),  // Chrome-trace JSON per rank: PyTorch (Kineto), Paddle's new profiler
  };
  return kSources;
}

const Source* findSource(std::string_view name) {
  for (const Source* s : registeredSources())
    if (s->name() == name) return s;
  return nullptr;
}

const Source& defaultSource() { return *registeredSources().front(); }

const Source& sourceForFile(const std::string& path) {
  for (const Source* s : registeredSources())
    if (s != &defaultSource() && s->recognizes(path)) return *s;
  return defaultSource();
}

}  // namespace xstack
