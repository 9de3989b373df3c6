// PhaseLog: what a long command is doing and what each step cost. A command names each phase
// as it starts it (reading weights, calibration, quantization, ...); the log prints one line
// per finished phase on stderr ("  calibration      1.84 s   peak RSS 2.1 GB") unless it is
// quiet, and keeps every phase's wall time, the CPU time the process spent in it (all threads:
// on a machine shared with other work, CPU time / wall time says how many cores the phase got)
// and the process's peak RSS at its end, so that a benchmark can write them as JSON. A TTY also
// sees the running phase's name while it works.
//
// A phase may also run beside the main sequence, on another thread (BesidePhase: the lowering
// and step prediction of an LLM while calibration and quantization run). It is printed when it
// ends, marked "(beside)", with its own wall time; the process's CPU time cannot be split
// between concurrent phases, so a beside phase records none and the main phases it overlapped
// include it.
#pragma once

#include <chrono>
#include <cstdint>
#include <exception>
#include <iosfwd>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace st {

struct PhaseRecord {
  std::string name;
  double seconds = 0;       ///< wall time of the phase
  double cpuSeconds = 0;    ///< user + system CPU time of the process's threads in the phase
  int64_t peakRssBytes = 0; ///< the process's peak resident set size at the phase's end
  bool beside = false;      ///< ran beside the main sequence (cpuSeconds: 0, not known)
};

class PhaseLog {
public:
  /// `out` null or `quiet`: record only.
  PhaseLog(std::ostream *out, bool quiet);
  ~PhaseLog();
  PhaseLog(const PhaseLog &) = delete;
  PhaseLog &operator=(const PhaseLog &) = delete;

  /// Ends the running phase (if any) and starts `name`.
  void begin(const std::string &name);
  /// Ends the running phase.
  void end();
  /// Records a phase that ran beside the main sequence from `started` until now (thread-safe).
  void endBeside(const std::string &name, std::chrono::steady_clock::time_point started);
  const std::vector<PhaseRecord> &phases() const { return phases_; }
  /// Wall time since the log was made.
  double totalSeconds() const;

private:
  /// Prints a finished phase's line (the TTY's running-phase line is redrawn after it).
  void print(const PhaseRecord &r);

  std::mutex mutex_; // begin, end and endBeside may come from different threads
  std::ostream *out_;
  bool tty_;
  std::string running_;
  std::chrono::steady_clock::time_point started_, created_;
  double startedCpu_ = 0;
  std::vector<PhaseRecord> phases_;
};

/// The process's peak resident set size so far, in bytes (getrusage).
int64_t peakRssBytes();
/// The user + system CPU time of the process so far (all threads), in seconds (getrusage).
double processCpuSeconds();

/// Runs `begin(name)` on construction and `end()` on destruction: one phase per scope.
class PhaseScope {
public:
  PhaseScope(PhaseLog *log, const std::string &name) : log_(log) {
    if (log_)
      log_->begin(name);
  }
  ~PhaseScope() {
    if (log_)
      log_->end();
  }
  PhaseScope(const PhaseScope &) = delete;
  PhaseScope &operator=(const PhaseScope &) = delete;

private:
  PhaseLog *log_;
};

/// A phase beside the main sequence for the scope's lifetime (not recorded if the scope ends
/// by an exception).
class BesidePhase {
public:
  BesidePhase(PhaseLog *log, std::string name)
      : log_(log), name_(std::move(name)), started_(std::chrono::steady_clock::now()),
        exceptions_(std::uncaught_exceptions()) {}
  ~BesidePhase() {
    if (log_ && std::uncaught_exceptions() == exceptions_)
      log_->endBeside(name_, started_);
  }
  BesidePhase(const BesidePhase &) = delete;
  BesidePhase &operator=(const BesidePhase &) = delete;

private:
  PhaseLog *log_;
  std::string name_;
  std::chrono::steady_clock::time_point started_;
  int exceptions_;
};

} // namespace st
