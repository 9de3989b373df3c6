// Compile report: what a compiled design contains, as JSON (for tools and tests) and Markdown
// (for people) — kernels, streams with their itensor types and FIFO depths, converters with
// their buffer sizes, DMAs, fusion groups.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "plan/design_resources.h"
#include "plan/graph_plan.h"

namespace st::gen {

nlohmann::json reportJson(const plan::GraphPlan &plan);
std::string reportMarkdown(const nlohmann::json &report);

/// Writes `res` into `report`: resource_estimate (the whole top), resource_estimate_fifos (the
/// FIFOs' share) and resource_estimate_by_module (per template: instances and their summed
/// estimate; the synth tests print it beside Yosys's count of the same module's instances).
void addResourceEstimate(const plan::DesignResources &res, nlohmann::json &report);

} // namespace st::gen
