// Stall report: the per-stream handshake statistics of one simulation run (the testbench's
// "streams", tb/stream_profile.h) as JSON and Markdown for people — per stream its producer and
// consumer, transfers against the itensor's tokens, cycles the producer was stalled on ready
// (its FIFO full: back-pressure from the consumer side), cycles the consumer was starved (its
// FIFO empty: waiting on the producer), and the FIFO's high-water mark against its depth; on a
// deadlock, what the watchdog found blocked. `streamtensor sim` prints it and writes
// <design>/sim/stall_report.{json,md}; docs/observability.md explains how to read it.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace st::gen {

/// The report's JSON from the testbench's result line: {"top", "seed", "cycles", "bit_exact",
/// "deadlock", "streams", and "watchdog" when it fired}.
nlohmann::json stallReportJson(const nlohmann::json &simResult);
/// A Markdown table (readable as plain text too) of a stallReportJson.
std::string stallReportMarkdown(const nlohmann::json &report);

} // namespace st::gen
