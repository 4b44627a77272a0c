#include "xstack/analysis/Analysis.h"

namespace xstack {

Status writeForCommit(const Folder& dir, const std::string& name, const std::string& text,
                      bool fsync, std::vector<AtomicFile>& files) {
  AtomicFile f;
  Status st = f.open(dir, name);
  if (st) st = f.write(text);
  if (st) st = f.finish(fsync);
  if (!st) return Error{"cannot write " + name + ": " + st.error().message};
  files.push_back(std::move(f));
  return {};
}

}  // namespace xstack
