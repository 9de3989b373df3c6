// Watchdog: names the streams that stopped moving when a simulation makes no progress.
#include "watchdog.h"

#include <cstdio>

namespace st::tb {

void Watchdog::watch(const std::string &name, StreamPins pins) {
  owned_.emplace_back(name, std::move(pins));
}

std::vector<const StreamProtocolChecker *> Watchdog::all() const {
  std::vector<const StreamProtocolChecker *> v;
  for (const auto &c : owned_)
    v.push_back(&c);
  v.insert(v.end(), external_.begin(), external_.end());
  return v;
}

void Watchdog::sample(uint64_t cycle) {
  for (auto &c : owned_)
    c.sample(cycle);
  uint64_t total = 0;
  for (const auto *c : all())
    total += c->handshakes();
  for (const auto &p : progress_)
    total += p.handshakes();
  if (total != lastTotal_) {
    lastTotal_ = total;
    lastProgress_ = cycle;
    return;
  }
  if (!enabled_ || !error_.empty() || cycle - lastProgress_ < limit_)
    return;
  std::string stalled, starved, lastName = "(none)";
  uint64_t lastCycle = 0;
  for (const auto *c : all()) {
    if (c->validNow() && !c->readyNow())
      stalled += " " + c->name();
    else if (!c->validNow() && c->readyNow())
      starved += " " + c->name();
    if (c->handshakes() > 0 && c->lastHandshakeCycle() >= lastCycle) {
      lastCycle = c->lastHandshakeCycle();
      lastName = c->name();
    }
  }
  error_ = "watchdog: no stream moved for " + std::to_string(cycle - lastProgress_) + " cycles";
  if (!all().empty())
    error_ += "; stalled (valid, no ready):" + (stalled.empty() ? " none" : stalled) +
              "; starved (ready, no valid):" + (starved.empty() ? " none" : starved) +
              "; last to move: " + lastName + " at cycle " + std::to_string(lastCycle);
  for (const auto &p : progress_)
    if (p.diagnose)
      error_ += "; " + p.diagnose();
}

std::string Watchdog::stallReport() const {
  std::string out =
      "stream                               handshakes  stalled(ready)  starved(valid)\n";
  for (const auto *c : all()) {
    char line[256];
    std::snprintf(line, sizeof line, "%-36s %10llu  %14llu  %14llu\n", c->name().c_str(),
                  static_cast<unsigned long long>(c->handshakes()),
                  static_cast<unsigned long long>(c->stalledOnReady()),
                  static_cast<unsigned long long>(c->starvedOnValid()));
    out += line;
  }
  return out;
}

} // namespace st::tb
