// What every `streamtensor sim` run does with the testbench's stream observations, for graph
// designs (sim_command.cpp) and LLM designs (llm_sim.cpp) alike: the stall report written to
// <design>/sim/stall_report.{json,md} (gen/stall_report.h) and, after a --trace run, the
// generated GTKWave save file beside the FST (gen/stream_probes.h), and the check that --trace
// overwrites neither a user's file nor a save file edited in GTKWave. docs/observability.md.
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

namespace st::cli {

/// From a testbench result line with "streams": writes simDir/stall_report.json and .md, draws
/// stall_report.dot/.svg from the JSON (cli/pictures.h; a note on stderr without Graphviz) and
/// returns the Markdown; "" (and nothing written) when the result has no "streams" (a design
/// compiled before the probes existed).
std::string writeStallReport(const std::filesystem::path &simDir, const nlohmann::json &result);

/// Writes the GTKWave save file (`tracePath` with extension .gtkw) grouping the streams of the
/// testbench manifest `manifestPath` ("streams") under their producer kernels, for the FST
/// `tracePath` of top module `top`. Returns the line "waveform: gtkwave <fst> <gtkw>\n".
/// Throws st::Error naming the manifest when its "streams" are malformed.
std::string writeWaveformView(const std::filesystem::path &manifestPath, const std::string &top,
                              const std::filesystem::path &tracePath);

/// Throws st::Error unless `--trace`'s FST path and the save file beside it may be written: each
/// absent, empty, or a file sim wrote before (an FST header; the save file's generated comment).
/// A save file edited and saved in GTKWave is the user's and is refused too.
void checkTraceOutputs(const std::filesystem::path &tracePath);

} // namespace st::cli
