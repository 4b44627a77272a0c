#include "xstack/plan/NodeNames.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace xstack {
namespace {

constexpr std::string_view kEndings[] = {".pt.trace.json.gz", ".pt.trace.json"};

bool allDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) != 0;
  });
}

bool endsWithRank(std::string_view s) {
  if (s.size() < 4) return false;
  std::string tail(s.substr(s.size() - 4));
  std::transform(tail.begin(), tail.end(), tail.begin(), [](char c) {
    return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  });
  return tail == "rank";
}

// Whether `worker` starts with "rank<R>." (xstack synth's names: the rank, then a
// node that is no host).
bool rankPrefixed(std::string_view worker) {
  const size_t dot = worker.find('.');
  return worker.starts_with("rank") && dot != std::string_view::npos &&
         allDigits(worker.substr(4, dot - 4));
}

// A host name's letters (RFC 1123, and '_'): anything else is no host name of ours to
// print (control bytes, spaces, quotes).
bool hostLike(std::string_view s) {
  return !s.empty() && s.size() <= 253 && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '.' || c == '_';
  });
}

std::string baseName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Rule 1: the reader's host of every profile, when the files are node-local and on two
// hosts or more (a job's files copied to one host say nothing of the nodes that wrote them).
std::map<int64_t, std::string> readerHosts(const Plan& plan) {
  std::map<int64_t, std::string> out;
  std::set<std::string> readers;
  for (const PlannedFile& f : plan.files) {
    if (f.file.kind != InputKind::Profile) continue;
    for (int seer : f.seers)
      if (seer < 0 || static_cast<size_t>(seer) >= plan.hosts.size() ||
          plan.hosts[static_cast<size_t>(seer)] != f.readerHost || !hostLike(f.readerHost))
        return {};
    out[f.file.id] = f.readerHost;
    readers.insert(f.readerHost);
  }
  return readers.size() >= 2 ? out : std::map<int64_t, std::string>{};
}

// Rule 2: the host every profile's name says, or none.
std::map<int64_t, std::string> namedHosts(const Plan& plan) {
  std::map<int64_t, std::string> out;
  for (const PlannedFile& f : plan.files) {
    if (f.file.kind != InputKind::Profile) continue;
    std::optional<std::string> host = hostFromTraceName(baseName(f.file.path));
    if (!host) return {};
    out[f.file.id] = *host;
  }
  return out;
}

}  // namespace

std::optional<std::string> hostFromTraceName(std::string_view name) {
  std::string_view end;
  for (std::string_view e : kEndings)
    if (name.size() > e.size() && name.ends_with(e)) end = e;
  if (end.empty()) return std::nullopt;
  name.remove_suffix(end.size());
  const size_t timeDot = name.rfind('.');  // <worker>.<time>
  if (timeDot == std::string_view::npos || !allDigits(name.substr(timeDot + 1)))
    return std::nullopt;
  const std::string_view worker = name.substr(0, timeDot);
  if (rankPrefixed(worker)) return std::nullopt;
  const size_t pidAt = worker.rfind('_');  // <host>_<pid>
  if (pidAt == std::string_view::npos || pidAt == 0 || !allDigits(worker.substr(pidAt + 1)))
    return std::nullopt;
  const std::string_view host = worker.substr(0, pidAt);
  if (endsWithRank(host) || !hostLike(host))
    return std::nullopt;  // "..._rank_3": a rank, not a pid
  return std::string(host);
}

std::map<int64_t, std::string> nodeNamesOf(const Plan& plan) {
  std::map<int64_t, std::string> hosts = readerHosts(plan);
  return hosts.empty() ? namedHosts(plan) : hosts;
}

}  // namespace xstack
