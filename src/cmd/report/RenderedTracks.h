// An analysis' track group drawn alike in several trace files, rendered once
// on its owner: a group's tracks go into every trace file that holds one of
// its ranks (a tensor-parallel group of a node's 8 GPUs: the node's 8
// files), and in a format whose chunk bytes stand alone (JSON,
// OutputFormat::chunkBytesStandAlone) on the same process id they are the
// same bytes in each. The first rendering's pieces go to a scratch file in
// --spill-dir as they are handed out (the page cache holds them; none is
// held in memory); each later chunk of the group copies them, piece by piece
// as they were cut (each ends with a complete event), with the same
// warnings. Only groups this rank draws more than once are kept. Any thread
// (the render threads of OrderedRenderer share one). Sizes are bytes, 64-bit.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "ChunkRendering.h"
#include "xstack/core/Warnings.h"
#include "xstack/io/SpillFile.h"

namespace xstack {

class BufferPool;

class RenderedTracks {
 public:
  // A group's text in one file: (track set, group index, pid).
  using Key = std::tuple<size_t, int64_t, int64_t>;

  // The groups that rank `rank` draws more than once, from the plan; their
  // text goes to scratch files in `spillDir`.
  RenderedTracks(const std::vector<OutputFile>& outputs, int rank, std::string spillDir);
  RenderedTracks(const RenderedTracks&) = delete;
  RenderedTracks& operator=(const RenderedTracks&) = delete;

  // Chunk `index` of `set`'s key when it may be copied or kept: an
  // AnalysisTrack chunk of a one-format set whose chunk bytes stand alone,
  // drawn more than once on this rank.
  std::optional<Key> keyOf(const std::vector<OutputFile>& outputs, FileSet set, size_t index) const;

  // One rendering being kept (capture()); its pieces as they are handed out.
  class Capture {
   public:
    void add(std::string_view piece);

   private:
    friend class RenderedTracks;
    Key key_;
    size_t file_ = 0;
    uint64_t offset_ = 0;
    std::vector<uint64_t> pieces_;  // sizes, in order
    bool failed_ = false;           // the scratch file could not be written
    SpillFile* spill_ = nullptr;
  };

  // `key`'s kept pieces to `pieces` (format 0), each in a buffer of `pool`
  // when there is one, and the warnings of its first rendering; nullopt (and
  // no piece out) when it is not kept or its first piece cannot be read back:
  // the caller renders it. Throws when a later piece cannot be read back
  // (the chunk's pieces before it stay out, as complete events).
  std::optional<Warnings> copy(const Key& key, const FormatPieces& pieces, BufferPool* pool);
  // A capture of `key`'s rendering, or nullptr when it is kept or being
  // captured already, or no scratch file can be made.
  std::unique_ptr<Capture> capture(const Key& key);
  // The capture's rendering ended: with `problem` empty its pieces are kept
  // with `warnings`, else (or when its file failed) it is forgotten.
  void finish(std::unique_ptr<Capture> capture, const Warnings& warnings,
              const std::string& problem);

  uint64_t copies() const;  // chunks copied

 private:
  struct Entry {
    bool kept = false;  // false: being captured
    size_t file = 0;
    uint64_t offset = 0;
    std::vector<uint64_t> pieces;
    Warnings warnings;
  };
  struct File {
    SpillFile spill;
    bool busy = false;    // a capture appends to it
    bool broken = false;  // a write to it failed
  };
  std::optional<size_t> freeFile();  // under mutex_

  std::string spillDir_;
  std::set<Key> reused_;  // the keys of more than one chunk of this rank
  mutable std::mutex mutex_;
  std::map<Key, Entry> entries_;
  std::deque<File> files_;  // stable addresses: read while another is appended
  bool noFile_ = false;     // a scratch file could not be made: keep nothing
  uint64_t copies_ = 0;
};

}  // namespace xstack
