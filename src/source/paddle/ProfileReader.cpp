#include "xstack/source/paddle/ProfileReader.h"

#include "xstack/io/FileBytes.h"

namespace xstack {
namespace {

// Failed (nothing usable), partial (the message) or whole (empty message).
// `decoded`: what decodeProfile returned (an error carries its offset).
Expected<std::string> classify(const std::string& path, const Status& decoded, uint64_t fileBytes,
                               bool anything, bool hasEndNs, uint64_t events) {
  if (!decoded) {
    const uint64_t at = decoded.error().offset.value_or(0);
    std::string where = "byte " + std::to_string(at) + " of " + std::to_string(fileBytes) + ": " +
                        decoded.error().message;
    if (!anything) return Error{path + ": not a profile (" + where + ")"}.atFile(path).atOffset(at);
    return "cut or corrupt at " + where;
  }
  if (!hasEndNs) {
    // The profiler writes end_ns after all events: a file cut exactly at an
    // event boundary still parses, but has no end_ns.
    if (!anything) return Error{path + ": not a profile (no events and no end_ns)"}.atFile(path);
    return "no end_ns after " + std::to_string(events) + " events: cut at byte " +
           std::to_string(fileBytes) + "?";
  }
  return std::string();
}

}  // namespace

Expected<LoadedProfile> readProfile(const std::string& path, LoadedProfile recycled) {
  ProfilePrefixCheck check;  // what cannot be a profile is not read whole
  auto bytes = FileBuffer::open(path, std::move(recycled.buffer), &check);
  if (!bytes) return bytes.error();
  LoadedProfile p;
  p.data.events = std::move(recycled.data.events);
  p.data.memEvents = std::move(recycled.data.memEvents);
  p.data.events.clear();
  p.data.memEvents.clear();
  p.buffer = std::move(*bytes);
  p.fileBytes = p.buffer->fileSize();
  if (p.buffer->size() == 0) return Error{path + ": empty file"};
  Status r = decodeChecked(p.buffer->view(), check, p.data);
  bool anything = !p.data.events.empty() || !p.data.memEvents.empty();
  auto partial = classify(path, r, p.fileBytes, anything, p.data.hasEndNs, p.data.events.size());
  if (!partial) return partial.error();
  p.partial = std::move(*partial);
  return p;
}

Expected<ProfileFileInfo> readProfileInto(const std::string& path,
                                          std::unique_ptr<FileBuffer>& buffer, ProfileSink& sink) {
  ProfilePrefixCheck check;  // what cannot be a profile is not read whole
  auto bytes = FileBuffer::open(path, std::move(buffer), &check);
  if (!bytes) return bytes.error();
  buffer = std::move(*bytes);
  ProfileFileInfo info;
  info.fileBytes = buffer->fileSize();
  if (info.fileBytes == 0) return Error{path + ": empty file"};
  struct Counting final : ProfileSink {
    ProfileSink& inner;
    uint64_t events = 0, memEvents = 0;
    bool hasEndNs = false;
    explicit Counting(ProfileSink& s) : inner(s) {}
    void onEvent(const ProfileEvent& e) override {
      ++events;
      inner.onEvent(e);
    }
    void onMemEvent(const ProfileMemEvent& m) override {
      ++memEvents;
      inner.onMemEvent(m);
    }
    void onStartNs(uint64_t ns) override { inner.onStartNs(ns); }
    void onEndNs(uint64_t ns) override {
      hasEndNs = true;
      inner.onEndNs(ns);
    }
  } counting(sink);
  Status r = decodeChecked(buffer->view(), check, counting);
  auto partial = classify(path, r, info.fileBytes, counting.events + counting.memEvents > 0,
                          counting.hasEndNs, counting.events);
  if (!partial) return partial.error();
  info.partial = std::move(*partial);
  return info;
}

}  // namespace xstack
