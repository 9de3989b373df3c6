// Scoreboard: in-order expected-versus-actual token comparison.
#include "scoreboard.h"

namespace st::tb {

void Scoreboard::observe(const Bits &token) {
  if (!error_.empty())
    return;
  if (expected_.empty()) {
    error_ = name_ + ": unexpected token #" + std::to_string(matched_) + " " + token.toString() +
             " (no more tokens expected)";
    return;
  }
  if (expected_.front() != token) {
    error_ = name_ + ": token #" + std::to_string(matched_) + " mismatch: expected " +
             expected_.front().toString() + ", got " + token.toString();
    return;
  }
  expected_.pop_front();
  ++matched_;
}

std::string Scoreboard::finalCheck() const {
  if (!error_.empty())
    return error_;
  if (!expected_.empty())
    return name_ + ": " + std::to_string(expected_.size()) + " token(s) never arrived; next is #" +
           std::to_string(matched_) + " " + expected_.front().toString();
  return {};
}

} // namespace st::tb
