// Scoreboard: in-order comparison of received tokens against expected ones. Reports the first
// mismatch with its index, expected and actual value; tokens that arrive unexpected or never
// arrive are failures too.
#pragma once

#include <cstdint>
#include <deque>
#include <string>

#include "bits.h"
#include "component.h"

namespace st::tb {

class Scoreboard : public Component {
public:
  explicit Scoreboard(std::string name) : name_(std::move(name)) {}

  void expect(const Bits &token) { expected_.push_back(token); }
  void observe(const Bits &token);

  uint64_t matched() const { return matched_; }
  uint64_t outstanding() const { return expected_.size(); }
  bool empty() const { return expected_.empty(); }
  std::string error() const override { return error_; }

  /// Fails (via the returned message) if tokens are still expected; empty when all arrived.
  std::string finalCheck() const;

private:
  std::string name_;
  std::deque<Bits> expected_;
  uint64_t matched_ = 0;
  std::string error_;
};

} // namespace st::tb
