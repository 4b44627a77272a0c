// libFuzzer target: arbitrary bytes as one of the analysis files `xstack diff`
// reads (the first byte picks which: kAnalysisFiles), alone in a folder that
// is compared with itself. Must never crash; a folder that reads is "no
// change" against itself (docs/DIFF.md: `xstack diff A A` always says so), and
// its text, JSON and diff.html are made.
#include <stdlib.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "xstack/cmd/diff/Diff.h"

namespace {

const std::string& folder() {
  static const std::string dir = [] {
    std::string tmpl =
        (std::filesystem::temp_directory_path() / "xstack_fuzz_diff_XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) std::abort();
    return tmpl;
  }();
  return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace xstack;
  if (size == 0) return 0;
  const std::string& dir = folder();
  std::error_code ec;
  for (const char* name : kAnalysisFiles) std::filesystem::remove(dir + "/" + name, ec);
  const char* name = kAnalysisFiles[data[0] % std::size(kAnalysisFiles)];
  std::ofstream(dir + "/" + name, std::ios::binary)
      .write(reinterpret_cast<const char*>(data + 1), static_cast<std::streamsize>(size - 1));
  Expected<DiffResult> d = computeDiff(dir, dir);
  if (!d) return 0;
  if (!d->noChange) std::abort();
  (void)diffText(*d);
  (void)diffJson(*d, "");
  (void)diffHtml(*d, "fuzz");
  return 0;
}
