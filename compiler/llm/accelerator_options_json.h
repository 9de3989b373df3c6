// The accelerator options of a compiled design as JSON (design.json's "accelerator"): compile
// writes the options it chose, and sim reads them back to lower the same design and predict the
// steps of its run (llm/step_prediction.h).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "llm/accelerator_graph.h"

namespace st::llm {

/// Every field of `options`, by name.
nlohmann::json acceleratorOptionsJson(const AcceleratorOptions &options);

/// The options of acceleratorOptionsJson. Throws st::Error naming `file` and the field for a
/// missing field or a value of the wrong type.
AcceleratorOptions acceleratorOptionsFromJson(const nlohmann::json &j, const std::string &file);

} // namespace st::llm
