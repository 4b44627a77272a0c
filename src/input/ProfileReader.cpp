#include "xstack/input/ProfileReader.h"

#include "xstack/input/FileBytes.h"

namespace xstack {

Expected<LoadedProfile> readProfile(const std::string& path, LoadedProfile recycled) {
  auto bytes = FileBuffer::open(path, std::move(recycled.buffer));
  if (!bytes) return bytes.error();
  LoadedProfile p;
  p.data.events = std::move(recycled.data.events);
  p.data.memEvents = std::move(recycled.data.memEvents);
  p.data.events.clear();
  p.data.memEvents.clear();
  p.buffer = std::move(*bytes);
  p.fileBytes = p.buffer->size();
  if (p.buffer->size() == 0) return Error{path + ": empty file"};
  DecodeResult r = decodeProfile(p.buffer->view(), p.data);
  bool anything = !p.data.events.empty() || !p.data.memEvents.empty();
  if (!r.ok) {
    std::string where = "byte " + std::to_string(r.errorOffset) + " of " +
                        std::to_string(p.fileBytes) + ": " + r.error;
    if (!anything) return Error{path + ": not a profile (" + where + ")"};
    p.partial = "cut or corrupt at " + where;
  } else if (!p.data.hasEndNs) {
    // The profiler writes end_ns after all events: a file cut exactly at an
    // event boundary still parses, but has no end_ns.
    if (!anything) return Error{path + ": not a profile (no events and no end_ns)"};
    p.partial = "no end_ns after " + std::to_string(p.data.events.size()) +
                " events: cut at byte " + std::to_string(p.fileBytes) + "?";
  }
  return p;
}

}  // namespace xstack
