// Reads one profile file: bytes from disk, decoded by ProfileDecoder, then
// checked for completeness. The buffer owns the bytes that the events' names
// point into, so a LoadedProfile is moved, never copied.
#pragma once

#include <memory>
#include <string>

#include "xstack/core/Status.h"
#include "xstack/io/FileBytes.h"
#include "xstack/source/paddle/ProfileDecoder.h"

namespace xstack {

struct LoadedProfile {
  std::unique_ptr<FileBuffer> buffer;  // the file's bytes, read into memory; the views point here
  ProfileData data;
  // Non-empty when the file was read only in part (cut or corrupt after some
  // events): names the byte offset. The events before it are kept.
  std::string partial;
  uint64_t fileBytes = 0;
};

// Fails (an Error naming the path) when nothing usable could be read: the
// file cannot be opened, is not a regular file, is empty, or is not a
// profile at all. A file cut short after some events is *partial*, not failed.
// `recycled`: a profile no longer needed; its memory (file buffer, event
// vectors) is reused.
Expected<LoadedProfile> readProfile(const std::string& path, LoadedProfile recycled = {});

// The streaming form: reads `path` into `buffer` (reusing its memory) and
// decodes it into `sink`, whose views point into *buffer. Fails, or reports
// a partial file, exactly like readProfile.
struct ProfileFileInfo {
  std::string partial;  // as LoadedProfile::partial
  uint64_t fileBytes = 0;
};
Expected<ProfileFileInfo> readProfileInto(const std::string& path,
                                          std::unique_ptr<FileBuffer>& buffer, ProfileSink& sink);

}  // namespace xstack
