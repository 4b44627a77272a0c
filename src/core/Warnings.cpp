#include "xstack/core/Warnings.h"

#include <algorithm>

namespace xstack {
namespace {

bool isDigit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

bool Warnings::naturalLess(const std::string& a, const std::string& b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (isDigit(a[i]) && isDigit(b[j])) {
      size_t ie = i, je = j;
      while (ie < a.size() && isDigit(a[ie])) ++ie;
      while (je < b.size() && isDigit(b[je])) ++je;
      size_t is = i, js = j;  // skip leading zeros, then longer is larger
      while (is + 1 < ie && a[is] == '0') ++is;
      while (js + 1 < je && b[js] == '0') ++js;
      if (ie - is != je - js) return ie - is < je - js;
      const int c = a.compare(is, ie - is, b, js, je - js);
      if (c != 0) return c < 0;
      i = ie;
      j = je;
      continue;
    }
    if (a[i] != b[j]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]);
    ++i;
    ++j;
  }
  if (i < a.size() || j < b.size()) return j < b.size();  // a prefix of b first
  return a < b;                                           // equal up to leading zeros: bytes decide
}

void Warnings::keepExample(std::vector<std::string>& examples, const std::string& example) {
  // Bounded: a line of hostile input must not make every summary huge.
  constexpr size_t kMaxExampleBytes = 300;
  const std::string x =
      example.size() <= kMaxExampleBytes ? example : example.substr(0, kMaxExampleBytes) + "...";
  auto at = std::lower_bound(examples.begin(), examples.end(), x, naturalLess);
  if (at != examples.end() && *at == x) return;
  if (examples.size() >= kMaxExamples && at == examples.end()) return;
  examples.insert(at, x);
  if (examples.size() > kMaxExamples) examples.pop_back();
}

}  // namespace xstack
