// A failure that ends a run: a typed value (what kind, which file, which rank
// on which host, and a message), turned into the exit code by the driver and
// into text only when it is printed. Never parsed back from text.
#pragma once

#include <string>
#include <utility>
#include <variant>

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
  std::string file;  // the input or output file concerned, or empty
  int rank = -1;     // the rank that failed, or -1 when not one rank's
  std::string host;  // that rank's host, or empty
  std::string message;
};

// A stage's typed output, or the Failure that stopped the run.
template <class T>
class Outcome {
 public:
  Outcome(T value) : v_(std::move(value)) {}
  Outcome(Failure failure) : v_(std::move(failure)) {}
  bool ok() const { return v_.index() == 0; }
  T& operator*() { return std::get<0>(v_); }
  T* operator->() { return &std::get<0>(v_); }
  const Failure& failure() const { return std::get<1>(v_); }

 private:
  std::variant<T, Failure> v_;
};

}  // namespace xstack
