// Graph YAML: the hand-written synthetic graph format of docs/graph-yaml.md — tensors, ops
// (matmul, elementwise, reduce, transpose, reshape), optional tiling per op and optional forced
// stream layouts — read into a TensorGraph plus the tiling and layout choices for the passes.
#pragma once

#include <map>
#include <string>

#include "ir/itensor_type.h"
#include "ir/tensor_graph.h"
#include "passes/compile_state.h"

namespace st::frontend {

struct GraphSpec {
  std::string name;
  ir::TensorGraph graph;
  std::map<std::string, passes::OpTiling> tilings;
  std::map<std::string, ir::ITensorType> layouts;
};

/// Reads and verifies a graph YAML file. Every error is one st::Error naming the file and the
/// field (e.g. `ops[2].tile`) and saying what was expected there.
GraphSpec loadGraphYaml(const std::string &path);
/// The same from text; `file` names it in errors.
GraphSpec parseGraphYaml(const std::string &text, const std::string &file);

/// Parses an elementwise body such as `add(in0, shr_round(mul(in1, 3), 2))`; throws st::Error
/// with the given file and field on malformed text.
ir::ScalarExpr parseScalarExpr(const std::string &text, const std::string &file,
                               const std::string &field);

} // namespace st::frontend
