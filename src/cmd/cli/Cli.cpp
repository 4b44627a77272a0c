#include "xstack/cmd/cli/Cli.h"

#include <algorithm>
#include <boost/program_options.hpp>
#include <optional>
#include <sstream>

#include "xstack/cmd/common/VersionInfo.h"
#include "xstack/core/ParallelWork.h"
#include "xstack/core/Status.h"
#include "xstack/core/TerminalText.h"
#include "xstack/core/Topology.h"
#include "xstack/core/WarningKinds.h"
#include "xstack/render/OutputFormats.h"

namespace po = boost::program_options;

namespace xstack {

// --sync, --slow, --slow-step, --slow-trainer, --noise (SyncJobOptions.cpp).
void addSyncJobOptions(po::options_description& d);
Status readSyncJobOptions(const po::variables_map& vm, SynthOptions& o);

namespace {

const char* kTopUsage =
    "usage: xstack <command> [options]\n"
    "\n"
    "commands:\n"
    "  report    turn a job's profiler dumps into Chrome/Perfetto traces (run under mpirun/srun,\n"
    "            or alone on one node)\n"
    "  synth     write a realistic sample data set\n"
    "  inspect   show what one profile file holds, and any problem in it\n"
    "  diff      compare two output folders of report (step time, ranks, kernels, findings)\n"
    "\n"
    "xstack <command> --help shows the command's options.\n"
    "exit codes: 0 ok, 1 fatal (nothing written), 2 usage, 3 partial (outputs written, bad inputs "
    "or earlier outputs that could not be removed named)\n";

std::string helpText(const char* usage, const po::options_description& d) {
  std::ostringstream s;
  s << usage << "\n" << d;
  return s.str();
}

po::variables_map parse(const std::vector<std::string>& args, const po::options_description& d,
                        const po::positional_options_description* pos = nullptr) {
  po::variables_map vm;
  auto parser = po::command_line_parser(args).options(d);
  if (pos) parser.positional(*pos);
  po::store(parser.run(), vm);
  return vm;  // po::notify (required options) after the --help check
}

// "json", "perfetto", "json,perfetto" (either order, each at most once).
bool parseFormats(const std::string& text, std::vector<TraceFormat>& out) {
  out.clear();
  size_t at = 0;
  while (at <= text.size()) {
    const size_t comma = std::min(text.find(',', at), text.size());
    const std::string name = text.substr(at, comma - at);
    const OutputFormat* f = outputFormatNamed(name);
    if (!f || std::find(out.begin(), out.end(), f->format) != out.end()) return false;
    out.push_back(f->format);
    at = comma + 1;
  }
  return !out.empty();
}

// --time-origin-ns: decimal digits only, within uint64.
Expected<uint64_t> parseTimeOriginNs(const std::string& text) {
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9' || v > (UINT64_MAX - 9) / 10)
      return Failure::usage("--time-origin-ns must be a non-negative integer, got '" + text + "'");
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  return v;
}

// `report`'s options as typed on the command line, before their checks.
struct ReportArgs {
  int64_t P = 8, S = 8, D = 2;
  int64_t gpusPerNode = 8;  // --gpus-per-node: PyTorch's name of P (gpus-per-trainer)
  std::string origin, formats;
  // Signed on purpose: Boost reads "-1" into an unsigned as 2^64-1.
  int64_t pieceKb = 4096, chunkBytes = int64_t{1} << 30;
  int64_t memoryMb = 64;
  int64_t threads = 0;  // --threads; 0: not given (cpusOfProcess)
};

po::options_description reportOptions(ReportOptions& o, ReportArgs& a) {
  po::options_description d("report options");
  d.add_options()("help,h", "show this help")(
      "data-dir", po::value(&o.dataDir),
      "job data folder: Chrome-trace JSON (PyTorch/Paddle profiler) in it or in profile/, or "
      "Paddle dumps in profile/ with dcgm/, net/, time/")(
      "profile-dir", po::value(&o.dirs.profile),
      "profile or trace folder (default DATA/profile; JSON traces: DATA too)")(
      "dcgm-dir", po::value(&o.dirs.dcgm), "DCGM log folder (default DATA/dcgm)")(
      "net-dir", po::value(&o.dirs.net), "net log folder (default DATA/net)")(
      "time-dir", po::value(&o.dirs.time), "time file folder (default DATA/time)")(
      "out", po::value(&o.outDir)->required(),
      "output folder for traceFile_<group>_<gpu>.json (created)")(
      "gpus-per-trainer", po::value(&a.P),
      "GPUs (ranks) per trainer node, P (default: from the time file names, else the DCGM GPU "
      "ids; JSON traces: deviceProperties, else the GPUs their GPU work runs on; else 8)")(
      "gpus-per-node", po::value(&a.gpusPerNode),
      "the same as --gpus-per-trainer, in PyTorch's words (ranks per node; local rank = rank % P; "
      "PyTorch traces name a rank 'rank R (node N, local rank L)')")(
      "group-size", po::value(&a.S)->default_value(8), "trainers (nodes) per group, S")(
      "display-size", po::value(&a.D)->default_value(2),
      "trainers (nodes) per group shown in detail, D <= S")(
      "time-origin-ns", po::value(&a.origin),
      "time origin in Unix ns (default: earliest input timestamp)")(
      "plan", po::bool_switch(&o.showPlan), "print which rank on which host reads each file")(
      "compress", po::bool_switch(&o.compress), "write traceFile_<k>_<g>.json.gz (gzip, streamed)")(
      "format", po::value(&a.formats)->default_value("json"),
      "trace formats: json, perfetto (traceFile_<k>_<g>.pftrace) or json,perfetto")(
      "fsync", po::bool_switch(&o.fsync),
      "sync every trace to disk before it is renamed into place")("no-progress",
                                                                  "no progress display on stderr")(
      "no-analysis", "skip the analysis (steps.csv, findings.json, report.html)")(
      "timings", po::bool_switch(&o.timings),
      "print wall and CPU seconds per stage for every rank (rank 0, stderr)")(
      "piece-kb", po::value(&a.pieceKb)->default_value(a.pieceKb),
      "rendered text per message to rank 0, KiB")(
      "mpi-chunk-bytes", po::value(&a.chunkBytes)->default_value(a.chunkBytes),
      "largest single MPI message; bigger transfers are split (testing)")(
      "memory-mb", po::value(&a.memoryMb)->default_value(a.memoryMb),
      "memory a rank gives one input's rows and analysis tables, MiB; past it they spill to "
      "--spill-dir (the outputs are the same bytes)")(
      "threads", po::value(&a.threads),
      "threads of each rank, 1..1024: it reads its files and renders its traces this many at "
      "once, within --memory-mb (default: the CPUs this rank may run on)")(
      "spill-dir", po::value(&o.spill.dir),
      "node-local folder for what spills (default: $TMPDIR, else /tmp)");
  return d;
}

// The numeric options' ranges: the first one out of range, as a usage error.
std::optional<Failure> checkReportNumbers(const ReportArgs& a) {
  if (a.P < 1) return Failure::usage("--gpus-per-trainer must be at least 1");
  if (a.P > kMaxGpusPerTrainer)
    return Failure::usage("--gpus-per-trainer must be at most " +
                          std::to_string(kMaxGpusPerTrainer));
  if (a.S < 1) return Failure::usage("--group-size must be at least 1");
  if (a.D < 0) return Failure::usage("--display-size must not be negative");
  if (a.D > a.S)
    return Failure::usage("--display-size (" + std::to_string(a.D) +
                          ") is larger than --group-size (" + std::to_string(a.S) + ")");
  // Lower bounds keep the message count per GiB of traces in the hundreds of
  // thousands at most (--mpi-chunk-bytes 1 took minutes): every accepted
  // value finishes in reasonable time.
  if (a.pieceKb < 16 || a.pieceKb > (int64_t{1} << 20))
    return Failure::usage("--piece-kb must be in 16..1048576, got " + std::to_string(a.pieceKb));
  if (a.chunkBytes < 4096 || a.chunkBytes > (int64_t{1} << 30))
    return Failure::usage("--mpi-chunk-bytes must be in 4096..1073741824, got " +
                          std::to_string(a.chunkBytes));
  if (a.memoryMb < 1 || a.memoryMb > (int64_t{1} << 20))
    return Failure::usage("--memory-mb must be in 1..1048576, got " + std::to_string(a.memoryMb));
  if (a.threads < 0 || a.threads > 1024)
    return Failure::usage("--threads must be in 1..1024, got " + std::to_string(a.threads));
  return std::nullopt;
}

Command parseReport(const std::vector<std::string>& args) {
  ReportOptions o;
  ReportArgs a;
  a.memoryMb = static_cast<int64_t>(o.spill.memoryBytes >> 20);
  po::options_description d = reportOptions(o, a);
  auto vm = parse(args, d);
  if (vm.count("help"))
    return HelpRequest{helpText("usage: xstack report --data-dir DIR --out DIR [options]", d)};
  po::notify(vm);
  if (o.dataDir.empty() && o.dirs.profile.empty())
    return Failure::usage("report: give --data-dir or --profile-dir");
  if (vm.count("gpus-per-node")) {
    if (vm.count("gpus-per-trainer") && a.P != a.gpusPerNode)
      return Failure::usage("--gpus-per-node " + std::to_string(a.gpusPerNode) +
                            " and --gpus-per-trainer " + std::to_string(a.P) +
                            " differ (they are one option; give one)");
    a.P = a.gpusPerNode;
  }
  if (std::optional<Failure> bad = checkReportNumbers(a)) return *bad;
  o.spill.memoryBytes = static_cast<uint64_t>(a.memoryMb) << 20;
  if (vm.count("threads") && a.threads == 0)
    return Failure::usage("--threads must be in 1..1024, got 0");
  o.threads = a.threads ? static_cast<unsigned>(a.threads) : cpusOfProcess();
  if (o.spill.dir.empty()) o.spill.dir = defaultSpillDir();
  if (!a.origin.empty()) {
    Expected<uint64_t> ns = parseTimeOriginNs(a.origin);
    if (!ns) return ns.error();
    o.timeOriginNs = *ns;
  }
  if (!parseFormats(a.formats, o.formats))
    return Failure::usage("--format must be json, perfetto or json,perfetto, got '" + a.formats +
                          "'");
  o.topology = {a.P, a.S, a.D};
  o.inferGpusPerTrainer = vm.count("gpus-per-trainer") == 0 && vm.count("gpus-per-node") == 0;
  o.progress = !vm.count("no-progress");
  o.analysis = !vm.count("no-analysis");
  o.pieceBytes = static_cast<uint64_t>(a.pieceKb) << 10;
  o.mpiChunkBytes = static_cast<uint64_t>(a.chunkBytes);
  return o;
}

Command parseSynth(const std::vector<std::string>& args) {
  SynthOptions o;
  int64_t seed = 1, skew = static_cast<int64_t>(o.skewNs);  // signed: "-1" must not wrap
  std::string format;
  po::options_description d("synth options");
  d.add_options()("help,h", "show this help")("out", po::value(&o.outDir)->required(),
                                              "folder to create the data set in")(
      "trainers", po::value(&o.trainers)->default_value(o.trainers), "trainer nodes, T")(
      "gpus-per-trainer", po::value(&o.gpusPerTrainer)->default_value(o.gpusPerTrainer),
      "GPUs per trainer, P")("steps", po::value(&o.steps)->default_value(o.steps),
                             "training steps")(
      "ops-per-step", po::value(&o.opsPerStep)->default_value(o.opsPerStep), "operators per step")(
      "seed", po::value(&seed)->default_value(seed), "random seed (same seed, same bytes)")(
      "skew-ns", po::value(&skew)->default_value(skew),
      "largest clock skew between trainers, ns (<= 1 h)")(
      "format", po::value(&format)->default_value("paddle"),
      "paddle (protobuf dumps with dcgm/, net/, time/), kineto (PyTorch "
      "profile/rank<R>.*.pt.trace.json.gz) or paddle-json (Paddle profiler "
      "profile/*.rank<R>.paddle_trace.json); the JSON formats make a --sync job");
  addSyncJobOptions(d);
  auto vm = parse(args, d);
  if (vm.count("help")) return HelpRequest{helpText("usage: xstack synth --out DIR [options]", d)};
  po::notify(vm);
  if (seed < 0) return Failure::usage("synth: --seed must not be negative");
  if (skew < 0 || skew > 3'600'000'000'000)
    return Failure::usage("synth: --skew-ns must be in 0..3600000000000");
  o.seed = static_cast<uint64_t>(seed);
  o.skewNs = static_cast<uint64_t>(skew);
  if (Status st = readSyncJobOptions(vm, o); !st) return st.error();
  if (format == "kineto")
    o.format = SynthFormat::Kineto;
  else if (format == "paddle-json")
    o.format = SynthFormat::PaddleJson;
  else if (format != "paddle")
    return Failure::usage("synth: --format must be paddle, kineto or paddle-json, got '" + format +
                          "'");
  o.sync = o.sync || o.format != SynthFormat::PaddleProfile;
  if (o.parallel.on && o.format != SynthFormat::Kineto)
    return Failure::usage("synth: --tp, --pp, --dp need --format kineto");
  if (o.trainers < 1 || o.gpusPerTrainer < 1 || o.steps < 0 || o.opsPerStep < 0)
    return Failure::usage(
        "synth: --trainers and --gpus-per-trainer must be >= 1, --steps and --ops-per-step >= 0");
  // Bounded so that every accepted value finishes: at most 2^20 profiles of
  // at most 2^26 operators each.
  if (o.trainers > (1 << 20) || o.gpusPerTrainer > (1 << 20) ||
      o.trainers * o.gpusPerTrainer > (1 << 20))
    return Failure::usage("synth: --trainers x --gpus-per-trainer must be in 1..1048576");
  if (o.steps > (1 << 26) || o.opsPerStep > (1 << 26) || o.steps * o.opsPerStep > (1 << 26))
    return Failure::usage("synth: --steps x --ops-per-step must be in 0..67108864");
  return o;
}

Command parseInspect(const std::vector<std::string>& args) {
  InspectOptions o;
  po::options_description d("inspect options");
  d.add_options()("help,h", "show this help")("file", po::value(&o.file), "profile file")(
      "json", po::bool_switch(&o.json), "print JSON instead of text");
  po::positional_options_description pos;
  pos.add("file", 1);
  auto vm = parse(args, d, &pos);
  po::notify(vm);
  if (vm.count("help") || o.file.empty())
    return vm.count("help")
               ? Command{HelpRequest{helpText("usage: xstack inspect FILE [--json]", d)}}
               : Command{Failure::usage("inspect: give a profile FILE")};
  return o;
}

const char* kDiffUsage =
    "usage: xstack diff A B [--out DIR] [--json]\n"
    "\n"
    "Compares two output folders of `xstack report` (A the baseline, B the run compared) from\n"
    "their analysis files only (steps.csv, ranks.csv, kernels.csv, findings.json,\n"
    "collectives.csv, waits.csv; never the traces): step time, per-rank GPU categories, the\n"
    "kernels whose time changed most, new and vanished findings, the collectives whose transfer\n"
    "or bus bandwidth changed most, the ranks whose waits moved most. Prints text (or JSON with\n"
    "--json) on stdout and writes diff.html into\n"
    "DIR (default B). Exit 0, 1 when a folder or file cannot be read, 2 usage. docs/DIFF.md.\n";

Command parseDiff(const std::vector<std::string>& args) {
  DiffOptions o;
  std::vector<std::string> dirs;
  po::options_description d("diff options");
  d.add_options()("help,h", "show this help")("out", po::value(&o.outDir),
                                              "folder for diff.html (default: B; created)")(
      "json", po::bool_switch(&o.json), "print one JSON document instead of the text")(
      "folders", po::value(&dirs), "A and B");
  po::options_description visible("diff options");
  visible.add_options()("help,h", "show this help")("out", po::value<std::string>(),
                                                    "folder for diff.html (default: B; created)")(
      "json", "print one JSON document instead of the text");
  po::positional_options_description pos;
  pos.add("folders", 2);
  auto vm = parse(args, d, &pos);
  if (vm.count("help")) return HelpRequest{helpText(kDiffUsage, visible)};
  po::notify(vm);
  if (dirs.size() != 2) return Failure::usage("diff: give two output folders A and B");
  o.a = dirs[0];
  o.b = dirs[1];
  if (o.outDir.empty() && vm.count("out")) return Failure::usage("diff: --out must not be empty");
  o.commandLine = "xstack diff";
  for (const std::string& a : args) o.commandLine += " " + a;
  return o;
}

}  // namespace

Command parseCommandLine(const std::vector<std::string>& args) {
  if (args.empty()) return Failure::usage(std::string("no command\n") + kTopUsage);
  const std::string& cmd = args[0];
  std::vector<std::string> rest(args.begin() + 1, args.end());
  try {
    if (cmd == "report") return parseReport(rest);
    if (cmd == "synth") return parseSynth(rest);
    if (cmd == "inspect") return parseInspect(rest);
    if (cmd == "diff") return parseDiff(rest);
    if (cmd == "--help" || cmd == "-h" || cmd == "help") return HelpRequest{kTopUsage};
    if (cmd == "--version") return HelpRequest{versionText()};
    // Hidden (not in the usage): the table of docs/WARNINGS.md, from core/WarningKinds.h.
    if (cmd == "warnings-table") return HelpRequest{warningKindsMarkdown()};
  } catch (const po::error& e) {
    return Failure::usage(cmd + ": " + terminalSafe(e.what()));  // it quotes the arguments
  }
  return Failure::usage("unknown command '" + terminalSafe(cmd) + "'\n" + kTopUsage);
}

}  // namespace xstack
