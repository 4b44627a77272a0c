// The one error value: what kind, which file (and byte offset in it when
// known), which rank on which host, and a message. A reader returns it as a
// recoverable Error (core/Status.h: Error is this type) inside Expected or
// Status; a stage returns it to end the run, and the driver turns its kind into
// the exit code and its message into text only when it is printed. Never parsed
// back from text. Built by the named helpers below, never positionally:
//   Failure::usage("give --out"), Failure::outputDir(dir, msg).onRank(0, {}),
//   Failure::read(e.what()).onRank(rank, host), Error{msg}.atFile(path).atOffset(120)
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

namespace xstack {

enum class FailureKind {
  Usage,       // the command cannot run as given (exit 2)
  Conflict,    // two input files claim the same subject (exit 1)
  OutputDir,   // --out cannot be created or written (exit 1)
  NoProfiles,  // no profile file on any rank (exit 1)
  Read,        // reading failed on some rank (exit 1)
  Write,       // rendering, sending or writing a trace failed (exit 1)
  Commit,      // renaming a finished trace into place failed (exit 1)
};

const char* failureKindName(FailureKind kind);
// 2 for Usage, 1 for every other kind (README: exit codes).
int exitCodeFor(FailureKind kind);

struct Failure {
  FailureKind kind = FailureKind::Read;
  std::string file;                // the input or output file concerned, or empty
  std::optional<uint64_t> offset;  // the byte offset in `file` where it went wrong, when known
  int rank = -1;                   // the rank that failed, or -1 when not one rank's
  std::string host;                // that rank's host, or empty
  std::string message;

  Failure() = default;
  // A recoverable error with only a message (kind Read until a stage gives it
  // another): `Error{"byte 12 of 30: cut short"}`.
  explicit Failure(std::string msg) : message(std::move(msg)) {}

  static Failure of(FailureKind kind, std::string msg) {
    Failure f(std::move(msg));
    f.kind = kind;
    return f;
  }
  static Failure usage(std::string msg) { return of(FailureKind::Usage, std::move(msg)); }
  static Failure conflict(std::string msg) { return of(FailureKind::Conflict, std::move(msg)); }
  static Failure outputDir(std::string dir, std::string msg) {
    return of(FailureKind::OutputDir, std::move(msg)).atFile(std::move(dir));
  }
  static Failure noProfiles(std::string dir, std::string msg) {
    return of(FailureKind::NoProfiles, std::move(msg)).atFile(std::move(dir));
  }
  static Failure read(std::string msg) { return of(FailureKind::Read, std::move(msg)); }
  static Failure write(std::string msg) { return of(FailureKind::Write, std::move(msg)); }
  static Failure commit(std::string msg) { return of(FailureKind::Commit, std::move(msg)); }

  // The same value with one more fact; chain on a temporary or on a variable.
  Failure atFile(std::string path) && { return std::move(atFile_(std::move(path))); }
  Failure& atFile(std::string path) & { return atFile_(std::move(path)); }
  Failure atOffset(uint64_t byte) && { return std::move(atOffset_(byte)); }
  Failure& atOffset(uint64_t byte) & { return atOffset_(byte); }
  Failure onRank(int r, std::string h) && { return std::move(onRank_(r, std::move(h))); }
  Failure& onRank(int r, std::string h) & { return onRank_(r, std::move(h)); }

 private:
  Failure& atFile_(std::string path) {
    file = std::move(path);
    return *this;
  }
  Failure& atOffset_(uint64_t byte) {
    offset = byte;
    return *this;
  }
  Failure& onRank_(int r, std::string h) {
    rank = r;
    host = std::move(h);
    return *this;
  }
};

}  // namespace xstack
