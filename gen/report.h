// Compile report: what a compiled design contains, as JSON (for tools and tests) and Markdown
// (for people) — kernels, streams with their itensor types and FIFO depths, converters with
// their buffer sizes, DMAs, fusion groups.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "passes/compile_state.h"

namespace st::gen {

nlohmann::json reportJson(const passes::CompileState &state, const std::string &designName);
std::string reportMarkdown(const nlohmann::json &report);

} // namespace st::gen
