// Fuzz harness: the graph YAML reader (frontend/graph_yaml.h): tensors, ops, element-wise
// bodies, tiling and forced layouts, and the tensor-graph verifier it runs.
#include <string>

#include "frontend/graph_yaml.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string text(reinterpret_cast<const char *>(data), size);
  st::fuzz::expectOnlyStError("fuzz_graph_yaml",
                              [&] { st::frontend::parseGraphYaml(text, "graph.yaml"); });
  return 0;
}
