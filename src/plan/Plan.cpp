#include "xstack/plan/Plan.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <tuple>

#include "xstack/wire/Wire.h"

namespace xstack {

namespace {

struct Seen {
  InputFile file;
  std::vector<int> ranks;
  std::vector<std::string> hosts;
};

// "two files claim profile rank 3: A (120 bytes, on h1), B (...)"; variants that
// differ only in their contents (same path and size on several hosts) say so and
// name every host of each.
std::string conflictMessage(const std::string& what, const std::vector<Seen>& variants) {
  bool samePathAndSize = true;
  for (const Seen& v : variants)
    samePathAndSize = samePathAndSize && v.file.path == variants[0].file.path &&
                      v.file.bytes == variants[0].file.bytes;
  std::string msg = samePathAndSize ? "different contents under one path claim " + what + ":"
                                    : "two files claim " + what + ":";
  for (size_t i = 0; i < variants.size(); ++i) {
    std::set<std::string> hosts(variants[i].hosts.begin(), variants[i].hosts.end());
    std::string on;
    for (const std::string& h : hosts) on += (on.empty() ? "" : ", ") + h;
    msg += (i == 0            ? " "
            : samePathAndSize ? "; "
                              : ", ") +
           variants[i].file.path + " (" + std::to_string(variants[i].file.bytes) + " bytes, on " +
           (samePathAndSize ? on : variants[i].hosts[0]) + ")";
  }
  return msg;
}

}  // namespace

Plan makePlan(const std::vector<RankListing>& listings) {
  // A rank's listing: its own, or the lower rank's it is the same as.
  auto listingOf = [&listings](const RankListing& l) -> const InputListing& {
    const auto ref = static_cast<size_t>(l.sameAs);
    return l.sameAs >= 0 && ref < listings.size() ? listings[ref].listing : l.listing;
  };
  Plan plan;
  // subject -> distinct (path, bytes) variants
  std::map<std::tuple<int, int64_t, int64_t>, std::vector<Seen>> subjects;
  std::set<std::string> skipped;
  std::map<std::string, std::string> badPaths;  // "<what> on <host>" -> with the lowest rank
  for (const RankListing& l : listings) {
    const InputListing& listing = listingOf(l);
    plan.anyProfileDir = plan.anyProfileDir || listing.profileDirFound;
    for (const auto& s : listing.skipped) skipped.insert(s + " (on " + l.host + ")");
    for (const auto& s : listing.badInputs)
      badPaths.emplace(s + " on " + l.host,
                       s + " (seen by rank " + std::to_string(l.rank) + " on " + l.host + ")");
    for (const InputFile& f : listing.files) {
      auto& variants = subjects[{static_cast<int>(f.kind), f.id, f.gpu}];
      auto it = std::find_if(variants.begin(), variants.end(), [&](const Seen& s) {
        return s.file.path == f.path && s.file.bytes == f.bytes && s.file.sample == f.sample;
      });
      if (it == variants.end()) {
        variants.push_back({f, {}, {}});
        it = variants.end() - 1;
      }
      it->ranks.push_back(l.rank);
      it->hosts.push_back(l.host);
    }
  }
  plan.skipped.assign(skipped.begin(), skipped.end());
  for (const auto& [key, s] : badPaths) plan.badPaths.push_back(s);
  for (const RankListing& l : listings) plan.hosts.push_back(l.host);

  std::vector<const Seen*> unique;
  for (auto& [key, variants] : subjects) {
    if (variants.size() > 1) {
      const InputFile& f = variants[0].file;
      std::string what =
          std::string(kindName(f.kind)) +
          (f.kind == InputKind::Profile ? " rank "
           : f.kind == InputKind::Time  ? " gpu " + std::to_string(f.gpu) + " of trainer "
                                        : " trainer ") +
          std::to_string(f.id);
      plan.conflicts.push_back(conflictMessage(what, variants));
      continue;
    }
    unique.push_back(&variants[0]);
  }
  // Largest first; ties in subject order. Each goes to its least-loaded candidate.
  std::stable_sort(unique.begin(), unique.end(),
                   [](const Seen* a, const Seen* b) { return a->file.bytes > b->file.bytes; });
  std::vector<uint64_t> load(listings.size(), 0);
  for (const Seen* s : unique) {
    size_t best = 0;
    for (size_t i = 1; i < s->ranks.size(); ++i) {
      int r = s->ranks[i], b = s->ranks[best];
      if (load[r] < load[b] || (load[r] == load[b] && r < b)) best = i;
    }
    int reader = s->ranks[best];
    load[reader] += std::max<uint64_t>(s->file.bytes, 1);
    std::vector<int> seers = s->ranks;
    std::sort(seers.begin(), seers.end());
    plan.files.push_back({s->file, reader, s->hosts[best], std::move(seers)});
  }
  std::sort(plan.files.begin(), plan.files.end(), [](const PlannedFile& a, const PlannedFile& b) {
    return std::tie(a.file.kind, a.file.id, a.file.gpu) <
           std::tie(b.file.kind, b.file.id, b.file.gpu);
  });
  return plan;
}

namespace {

void writeListedFile(wire::Writer& w, const InputFile& f) {
  w.enumeration(f.kind);
  w.i64(f.id);
  w.i64(f.gpu);
  w.str(f.path);
  w.u64(f.bytes);
  w.u64(f.sample);
}

InputFile readListedFile(wire::Reader& r) {
  InputFile f;
  f.kind = r.enumeration(InputKind::Time);
  f.id = r.i64();
  f.gpu = r.i64();
  f.path = r.str();
  f.bytes = r.u64();
  f.sample = r.u64();
  return f;
}

void writeListingBody(wire::Writer& w, const InputListing& mine) {
  w.boolean(mine.profileDirFound);
  w.strings(mine.skipped);
  w.strings(mine.badInputs);
  w.list(mine.files, writeListedFile);
}

}  // namespace

std::string encodeListing(const std::string& host, const InputListing& mine, int sameAs) {
  wire::Writer w;
  w.str(host);
  w.i64(sameAs < 0 ? -1 : sameAs);
  if (sameAs < 0) writeListingBody(w, mine);
  return w.take();
}

Expected<RankListing> decodeListing(int rank, const std::string& bytes) {
  wire::Reader r(bytes, "the listing of MPI rank " + std::to_string(rank));
  RankListing l;
  l.rank = rank;
  l.host = r.str();
  const int64_t sameAs = r.i64();
  if (r.ok() && (sameAs < -1 || sameAs >= rank))
    r.fail("a listing the same as rank " + std::to_string(sameAs) + "'s, not a lower rank");
  l.sameAs = static_cast<int>(sameAs < 0 ? -1 : sameAs);
  if (r.ok() && l.sameAs < 0) {
    l.listing.profileDirFound = r.boolean();
    l.listing.skipped = r.strings();
    l.listing.badInputs = r.strings();
    r.list(l.listing.files, readListedFile);
  }
  if (Status st = r.finish(); !st.ok()) return st.error();
  return l;
}

std::string listingDigest(const InputListing& mine) {
  wire::Writer w;
  writeListingBody(w, mine);
  const std::string body = w.take();
  uint64_t fnv = 14695981039346656037ull;
  for (unsigned char c : body) fnv = (fnv ^ c) * 1099511628211ull;
  const uint64_t other = std::hash<std::string>()(body) ^ (body.size() * 0x9e3779b97f4a7c15ull);
  std::string out(16, '\0');
  for (int i = 0; i < 8; ++i) {
    out[static_cast<size_t>(i)] = static_cast<char>(fnv >> (8 * i));
    out[static_cast<size_t>(8 + i)] = static_cast<char>(other >> (8 * i));
  }
  return out;
}

}  // namespace xstack
