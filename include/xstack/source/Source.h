// One input format (a family of input files) behind one interface: how its
// folders are laid out, and how one of its files decodes into the neutral
// events of event/. The read and write stages only talk to a Source; every
// format-specific meaning stays in its folder (source/<format>/). Sources
// are found in the registry (SourceRegistry.h).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "xstack/core/FileIdentity.h"
#include "xstack/core/Status.h"
#include "xstack/core/Warnings.h"
#include "xstack/event/CounterSamples.h"
#include "xstack/event/Events.h"
#include "xstack/event/InputFile.h"
#include "xstack/event/InputListing.h"
#include "xstack/io/FileBytes.h"

namespace xstack {

struct TraceDecodeOptions {
  // Where the events without a row are counted (the source names the
  // warning kinds); nullptr: not counted (a second decode of a file).
  Warnings* dropWarnings = nullptr;
  // Prefix of the warning examples, e.g. "profile_rank.3 (training rank 3)".
  std::string where;
  // The rank the listing gave the file (nullopt: not checked, e.g. a second read): a
  // source whose files name their rank inside (Chrome JSON's distributedInfo.rank) fails
  // the decode, naming both ranks, when the file read says another.
  std::optional<int64_t> listedRank = std::nullopt;
};

struct TraceDecodeInfo {
  // Non-empty when the file was read only in part (cut or corrupt after some
  // events): names the byte offset. The events before it were delivered.
  std::string partial;
  uint64_t fileBytes = 0;
  // GPUs the profiled process saw, when the file says (Chrome JSON's
  // deviceProperties); 0 = not said. Evidence of GPUs per node.
  int64_t visibleGpus = 0;
  // The file as this decode read it (core/FileIdentity.h; not known when the
  // source does not say): the rendering's second read is checked against it.
  FileIdentity identity;
};

// What a counter or time file (InputKind Dcgm, Net, Time) holds.
struct CounterFileData {
  std::vector<GpuTelemetrySample> gpu;     // Dcgm
  std::vector<NetCounterSample> net;       // Net
  std::optional<uint64_t> startNs, endNs;  // Time: the job's declared start/end (Unix ns)
  Warnings warnings;                       // noise lines, bad values
  // False when the file held no usable line (a bad input).
  bool usable() const { return !gpu.empty() || !net.empty() || startNs || endNs; }
};

class Source {
 public:
  virtual ~Source() = default;
  virtual std::string_view name() const = 0;

  // The folders of a data set: `dataDir`'s layout unless `overrides` names
  // a folder explicitly.
  virtual InputDirs resolveDirs(const std::string& dataDir, const InputDirs& overrides) const = 0;
  // The input files this node sees under `dirs` (stage 1).
  virtual InputListing list(const InputDirs& dirs) const = 0;
  // Whether the file at `path` is one of this source's trace files, by its
  // content (a short read). The default source may answer false for all:
  // it is what a file no other source recognizes is tried as.
  virtual bool recognizes(const std::string& path) const = 0;
  // Whether a displayed file's rows are worth keeping from the read stage to
  // its rendering (when the same rank renders it) instead of decoding the file
  // again: true when a decode costs much more than the rows' memory (gzip,
  // JSON tokenizing); docs/PERFORMANCE.md.
  virtual bool keepRowsForRendering() const = 0;
  // The bytes a decode of a trace file of `fileBytes` bytes holds besides its
  // sink's (the file in `buffer` when the decoder needs it whole): charged to
  // the budget of the thread that decodes it. A streaming decoder's few
  // buffers of fixed size are not counted (they are the process' floor).
  virtual uint64_t decodeHeldBytes(uint64_t fileBytes) const { return fileBytes; }
  // Whether GPUs per node are told by the traces themselves (the devices of
  // their GPU activities, deviceProperties), known only once they are read,
  // rather than by file names and counter files before the read.
  virtual bool topologyFromTraces() const { return false; }

  // Reads the trace file `path` (an InputKind::Profile file) into `buffer`
  // (its memory reused) and decodes it into `sink`, whose views point into
  // *buffer. Fails (an Error naming the path) when nothing usable could be
  // read; a file cut short after some events is partial, not failed. Drop
  // warnings are complete only when the decode succeeded.
  virtual Expected<TraceDecodeInfo> decodeTrace(const std::string& path,
                                                std::unique_ptr<FileBuffer>& buffer,
                                                EventSink& sink,
                                                const TraceDecodeOptions& options) const = 0;

  // Reads a counter or time file. `label` names the file in warning
  // examples ("<label>:<line>: <what>"). An Error when it cannot be read.
  virtual Status readCounterFile(const InputFile& file, const std::string& label,
                                 CounterFileData& out) const = 0;
};

}  // namespace xstack
