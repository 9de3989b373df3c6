// Phase timing and progress lines of long commands (see phase_log.h).
#include "support/phase_log.h"

#include <cstdio>
#include <iostream>
#include <sys/resource.h>
#include <unistd.h>

namespace st {

int64_t peakRssBytes() {
  struct rusage usage {};
  if (getrusage(RUSAGE_SELF, &usage) != 0)
    return 0;
  return static_cast<int64_t>(usage.ru_maxrss) * 1024; // Linux reports kilobytes
}

double processCpuSeconds() {
  struct rusage usage {};
  if (getrusage(RUSAGE_SELF, &usage) != 0)
    return 0;
  auto seconds = [](const timeval &t) { return static_cast<double>(t.tv_sec) + t.tv_usec * 1e-6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

PhaseLog::PhaseLog(std::ostream *out, bool quiet)
    : out_(quiet ? nullptr : out), tty_(out_ == &std::cerr && ::isatty(STDERR_FILENO)),
      created_(std::chrono::steady_clock::now()) {}

PhaseLog::~PhaseLog() {
  // A phase still running here ended by an exception: record nothing, clear the TTY line.
  if (!running_.empty() && tty_)
    *out_ << "\r\033[K" << std::flush;
}

double PhaseLog::totalSeconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - created_).count();
}

void PhaseLog::begin(const std::string &name) {
  end();
  const std::lock_guard<std::mutex> lock(mutex_);
  running_ = name;
  started_ = std::chrono::steady_clock::now();
  startedCpu_ = processCpuSeconds();
  if (out_ && tty_)
    *out_ << "  " << name << " ..." << std::flush;
}

void PhaseLog::end() {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (running_.empty())
    return;
  PhaseRecord r;
  r.name = running_;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  r.cpuSeconds = processCpuSeconds() - startedCpu_;
  r.peakRssBytes = peakRssBytes();
  phases_.push_back(r);
  running_.clear();
  print(r);
}

void PhaseLog::endBeside(const std::string &name, std::chrono::steady_clock::time_point started) {
  const std::lock_guard<std::mutex> lock(mutex_);
  PhaseRecord r;
  r.name = name;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  r.peakRssBytes = peakRssBytes();
  r.beside = true;
  phases_.push_back(r);
  print(r);
}

void PhaseLog::print(const PhaseRecord &r) {
  if (!out_)
    return;
  const std::string name = r.beside ? r.name + " (beside)" : r.name;
  char line[200];
  std::snprintf(line, sizeof line, "  %-32s %8.2f s   peak RSS %6.2f GB", name.c_str(), r.seconds,
                static_cast<double>(r.peakRssBytes) / 1e9);
  if (tty_)
    *out_ << "\r\033[K";
  *out_ << line << "\n";
  if (tty_ && !running_.empty())
    *out_ << "  " << running_ << " ..."; // the main phase still running
  *out_ << std::flush;
}

} // namespace st
