#include "RenderedTracks.h"

#include <stdexcept>

#include "xstack/core/BufferPool.h"
#include "xstack/core/FaultInjection.h"
#include "xstack/render/OutputFormats.h"

namespace xstack {

namespace {

bool standAloneSet(const std::vector<OutputFile>& outputs, FileSet set) {
  return set.count == 1 && outputFormat(outputs[set.first].format).chunkBytesStandAlone;
}

}  // namespace

RenderedTracks::RenderedTracks(const std::vector<OutputFile>& outputs, int rank,
                               std::string spillDir)
    : spillDir_(std::move(spillDir)) {
  std::map<Key, uint64_t> uses;  // this rank's chunks of each key
  for (const FileSet& set : fileSets(outputs)) {
    if (!standAloneSet(outputs, set)) continue;
    for (const Chunk& c : outputs[set.first].chunks)
      if (c.kind == ChunkKind::AnalysisTrack && c.owner == rank)
        ++uses[{c.trackSet, c.subject, c.pid}];
  }
  for (const auto& [key, n] : uses)
    if (n > 1) reused_.insert(key);
}

std::optional<RenderedTracks::Key> RenderedTracks::keyOf(const std::vector<OutputFile>& outputs,
                                                         FileSet set, size_t index) const {
  const Chunk& c = outputs[set.first].chunks[index];
  if (c.kind != ChunkKind::AnalysisTrack || !standAloneSet(outputs, set)) return std::nullopt;
  const Key key{c.trackSet, c.subject, c.pid};
  if (!reused_.count(key)) return std::nullopt;  // not changed after construction: no lock
  return key;
}

void RenderedTracks::Capture::add(std::string_view piece) {
  if (failed_) return;
  if (Status st = spill_->append(piece); !st) {
    failed_ = true;
    return;
  }
  pieces_.push_back(piece.size());
}

std::optional<size_t> RenderedTracks::freeFile() {
  for (size_t i = 0; i < files_.size(); ++i)
    if (!files_[i].busy && !files_[i].broken) return i;
  if (noFile_) return std::nullopt;
  Expected<SpillFile> f = SpillFile::create(spillDir_);
  if (!f) {
    noFile_ = true;
    return std::nullopt;
  }
  files_.push_back({std::move(*f), false});
  return files_.size() - 1;
}

std::unique_ptr<RenderedTracks::Capture> RenderedTracks::capture(const Key& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (entries_.count(key)) return nullptr;
  const std::optional<size_t> file = freeFile();
  if (!file) return nullptr;
  File& f = files_[*file];
  f.busy = true;
  entries_[key] = Entry{};  // being captured: a copy finds it not kept
  auto c = std::make_unique<Capture>();
  c->key_ = key;
  c->file_ = *file;
  c->offset_ = f.spill.size();
  c->spill_ = &f.spill;
  return c;
}

void RenderedTracks::finish(std::unique_ptr<Capture> c, const Warnings& warnings,
                            const std::string& problem) {
  const bool flushed = !c->failed_ && c->spill_->flush().ok();
  c->spill_->dropBuffer();  // 256 KiB a file, not held between two groups
  std::lock_guard<std::mutex> lock(mutex_);
  files_[c->file_].busy = false;
  files_[c->file_].broken = !flushed;  // its size after a failed write is not known: not reused
  auto it = entries_.find(c->key_);
  if (!flushed || !problem.empty()) {
    entries_.erase(it);
    return;
  }
  Entry& e = it->second;
  e.kept = true;
  e.file = c->file_;
  e.offset = c->offset_;
  e.pieces = std::move(c->pieces_);
  e.warnings = warnings;
}

std::optional<Warnings> RenderedTracks::copy(const Key& key, const FormatPieces& pieces,
                                             BufferPool* pool) {
  Entry e;
  const SpillFile* file = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = entries_.find(key);
    if (it == entries_.end() || !it->second.kept) return std::nullopt;
    e = it->second;  // its pieces' sizes and warnings: a few per group
    file = &files_[e.file].spill;
  }
  uint64_t offset = e.offset;
  for (size_t i = 0; i < e.pieces.size(); ++i) {
    std::string text = pool ? pool->take() : std::string();
    text.resize(e.pieces[i]);
    std::string why;
    if (faultArmed("tracks-text-read"))
      why = "injected fault";
    else if (Status st = file->readAt(offset, text.data(), text.size()); !st)
      why = st.error().message;
    if (!why.empty()) {
      if (i == 0) return std::nullopt;  // nothing out yet: the caller renders
      throw std::runtime_error("an analysis track's text could not be read back: " + why);
    }
    offset += e.pieces[i];
    pieces(0, text);
    if (pool) pool->give(std::move(text));
  }
  std::lock_guard<std::mutex> lock(mutex_);
  ++copies_;
  return e.warnings;
}

uint64_t RenderedTracks::copies() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return copies_;
}

}  // namespace xstack
