// DecodeProgram verification and dump (see decode_program.h).
#include "ir/decode_program.h"

#include <map>
#include <set>
#include <sstream>

#include "support/error.h"

namespace st::ir {

void DecodeProgram::verify() const {
  std::set<std::string> available = {kTokenInput, kPositionInput};
  for (const DecodeStage &stage : stages) {
    const std::string where = "decode program stage '" + stage.name + "'";
    stage.graph.verify();
    if (stage.repeat < 1 || static_cast<int64_t>(stage.bindings.size()) != stage.repeat)
      throw Error(where, "bindings",
                  "one binding per run (" + std::to_string(stage.repeat) + "), got " +
                      std::to_string(stage.bindings.size()));
    std::set<std::string> produced;
    for (TensorId t = 0; t < stage.graph.numTensors(); ++t) {
      const TensorInfo &info = stage.graph.tensor(t);
      if (info.role == TensorRole::Output)
        produced.insert(stage.exportedName(info.name));
    }
    for (TensorId t = 0; t < stage.graph.numTensors(); ++t) {
      const TensorInfo &info = stage.graph.tensor(t);
      if (info.role == TensorRole::Input && !available.count(info.name) &&
          !(stage.repeat > 1 && produced.count(info.name)))
        throw Error(where, "input '" + info.name + "'",
                    "a runtime scalar or a tensor an earlier stage produces");
      if (info.role != TensorRole::Constant)
        continue;
      for (size_t run = 0; run < stage.bindings.size(); ++run)
        if (!stage.bindings[run].weights.count(info.name))
          throw Error(where, "binding " + std::to_string(run) + " constant '" + info.name + "'",
                      "a stored weight bound to it");
    }
    for (size_t run = 0; run < stage.bindings.size(); ++run) {
      for (const auto &[tensorName, weight] : stage.bindings[run].weights)
        if (!stage.graph.findTensor(tensorName))
          throw Error(where, "binding " + std::to_string(run) + " tensor '" + tensorName + "'",
                      "a constant of the stage graph");
      for (const auto &[opName, attrs] : stage.bindings[run].attributes) {
        bool found = false;
        for (OpId o = 0; o < stage.graph.numOps(); ++o)
          if (stage.graph.op(o).name == opName) {
            found = true;
            if (stage.graph.op(o).llm.index() != attrs.index())
              throw Error(where, "binding " + std::to_string(run) + " op '" + opName + "'",
                          "attributes of kind " + llmOpName(stage.graph.op(o).llm));
          }
        if (!found)
          throw Error(where, "binding " + std::to_string(run) + " op '" + opName + "'",
                      "an op of the stage graph");
      }
    }
    available.insert(produced.begin(), produced.end());
  }
  if (!available.count(kLogitsOutput) || !available.count(kNextTokenOutput))
    throw Error("decode program", "epilogue", "tensors 'logits' and 'next_token'");
}

std::string DecodeProgram::toString() const {
  std::ostringstream os;
  os << "decode program " << architecture << " vocab=" << vocabSize
     << " max_positions=" << maxPositions << "\n";
  for (const DecodeStage &stage : stages) {
    os << "stage " << stage.name << " x" << stage.repeat << "\n" << stage.graph.toString();
    for (size_t run = 0; run < stage.bindings.size() && run < 2; ++run) {
      os << "  binding " << run << ":";
      for (const auto &[t, w] : stage.bindings[run].weights)
        os << " " << t << "=" << w;
      for (const auto &[o, a] : stage.bindings[run].attributes)
        os << " " << o << "{" << llmAttributesToString(a) << "}";
      os << "\n";
    }
  }
  return os.str();
}

int64_t DecodeProgram::parameterCount() const {
  std::map<std::string, int64_t> elements;
  for (const DecodeStage &stage : stages)
    for (const LayerBinding &binding : stage.bindings)
      for (const auto &[tensor, stored] : binding.weights)
        for (TensorId t = 0; t < stage.graph.numTensors(); ++t)
          if (stage.graph.tensor(t).name == tensor)
            elements[stored] = stage.graph.tensor(t).numElements();
  int64_t total = 0;
  for (const auto &[name, count] : elements)
    total += count;
  return total;
}

} // namespace st::ir
