#include "xstack/source/paddle/PaddleSource.h"

#include "xstack/io/LineReader.h"
#include "xstack/source/paddle/DcgmParser.h"
#include "xstack/source/paddle/FolderLayout.h"
#include "xstack/source/paddle/NetParser.h"
#include "xstack/source/paddle/ProfileReader.h"
#include "xstack/source/paddle/TimeFileParser.h"
#include "xstack/source/paddle/WireEvents.h"

namespace xstack {
namespace {

template <class Parser>
Status parseLines(const std::string& path, Parser& parser) {
  return readLines(
      path, [&](std::string_view line, const LineInfo& info) { parser.feedLine(line, info); },
      [&](const LineInfo& info, uint64_t len) { parser.overlongLine(info, len); });
}

class PaddleSource final : public Source {
 public:
  std::string_view name() const override { return "paddle"; }

  InputDirs resolveDirs(const std::string& dataDir, const InputDirs& overrides) const override {
    return resolveInputDirs(dataDir, overrides);
  }
  InputListing list(const InputDirs& dirs) const override { return listInputs(dirs); }
  // Protobuf has no magic bytes: Paddle profiles are what no other source claims.
  bool recognizes(const std::string& /*path*/) const override { return false; }
  // Decoding protobuf again was measured faster than keeping the rows.
  bool keepRowsForRendering() const override { return false; }

  Expected<TraceDecodeInfo> decodeTrace(const std::string& path,
                                        std::unique_ptr<FileBuffer>& buffer, EventSink& sink,
                                        const TraceDecodeOptions& options) const override {
    WireEventMapper mapper(sink, {options.dropWarnings, options.where});
    auto info = readProfileInto(path, buffer, mapper);
    if (!info) return info.error();
    mapper.finish();
    TraceDecodeInfo out;  // visibleGpus: not in a Paddle profile
    out.partial = info->partial;
    out.fileBytes = info->fileBytes;
    if (buffer) out.identity = buffer->identity();
    return out;
  }

  Status readCounterFile(const InputFile& file, const std::string& label,
                         CounterFileData& out) const override {
    switch (file.kind) {
      case InputKind::Dcgm: {
        DcgmParser parser(label);
        if (Status st = parseLines(file.path, parser); !st) return st;
        out.gpu = std::move(parser.samples());
        out.warnings.merge(parser.warnings());
        return {};
      }
      case InputKind::Net: {
        NetParser parser(label);
        if (Status st = parseLines(file.path, parser); !st) return st;
        out.net = std::move(parser.samples());
        out.warnings.merge(parser.warnings());
        return {};
      }
      case InputKind::Time: {
        TimeFileParser parser(label);
        if (Status st = parseLines(file.path, parser); !st) return st;
        out.startNs = parser.startNs;
        out.endNs = parser.endNs;
        out.warnings.merge(parser.warnings());
        return {};
      }
      case InputKind::Profile:
        break;
    }
    return Error{file.path + ": not a counter or time file"};
  }
};

}  // namespace

const Source& paddleSource() {
  static const PaddleSource kSource;
  return kSource;
}

}  // namespace xstack
