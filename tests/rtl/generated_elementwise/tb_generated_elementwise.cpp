// Verilator test of the element-wise modules emitted by gen::emitElementwiseModule at build time
// (generated_specs.h): timing against elementwiseGeneratedTiming (D, II, L, tokens per port,
// tokens needed per output), then random tiles (codes uniform, extreme, small, all one extreme
// over each input type's range) bit-exact against ir::interpretGraph running the same body as
// an elementwise op on tensors of the tile shapes, under random backpressure on every input and
// the output. Counts saturated outputs and fails if none saturated.
// --config NAME selects the module; --config NAME --compare-synth REPORT prints the resource
// estimate beside Yosys.
#include <cstring>

#include "Vst_gen_bcast_mix.h"
#include "Vst_gen_relu_scale.h"
#include "generated_specs.h"
#include "ir/graph_interpreter.h"
#include "model/elementwise_generated_model.h"
#include "synth_compare.h"
#include "tile_kernel_bench.h"

using namespace st::tb;
namespace ir = st::ir;
namespace model = st::model;

namespace {

const GeneratedSpec &spec(const std::string &name) {
  static const std::vector<GeneratedSpec> specs = generatedSpecs();
  for (const auto &s : specs)
    if (s.name == name)
      return s;
  throw TestFailure("unknown --config '" + name + "'; known: st_gen_bcast_mix st_gen_relu_scale");
}

model::ElementwiseGeneratedParams modelParams(const GeneratedSpec &s, int64_t tokens) {
  return {s.body, s.outputTileShape, s.inputTileShapes, s.inputTypes, s.outputType, tokens};
}

int64_t elementCount(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (auto d : shape)
    n *= d;
  return n;
}

template <class Model>
void runModule(Harness<Model> &h, const GeneratedSpec &s, std::vector<StreamPins> inputs,
               StreamPins output) {
  // The reference: one elementwise op on tensors of the tile shapes.
  ir::TensorGraph g;
  std::vector<ir::TensorId> ins;
  for (size_t i = 0; i < s.inputTileShapes.size(); ++i)
    ins.push_back(g.addTensor(
        {"in" + std::to_string(i), s.inputTileShapes[i], s.inputTypes[i], ir::TensorRole::Input}));
  const ir::TensorId out =
      g.addTensor({"out", s.outputTileShape, s.outputType, ir::TensorRole::Output});
  ir::addElementwise(g, "op", ins, out, s.body);
  g.verify();

  const unsigned outBits = ir::bitWidth(s.outputType);
  uint64_t saturated = 0, elements = 0;
  TileKernel k;
  k.inputs = std::move(inputs);
  k.output = std::move(output);
  k.invocation = [&](int64_t tokens, std::mt19937_64 &rng) {
    Invocation inv;
    inv.inputs.resize(ins.size());
    for (int64_t t = 0; t < tokens; ++t) {
      ir::TensorValues values;
      for (size_t i = 0; i < ins.size(); ++i) {
        const ir::DType type = s.inputTypes[i];
        const size_t n = size_t(elementCount(s.inputTileShapes[i]));
        values[ins[i]] = randomCodes(n, {ir::minValue(type), ir::maxValue(type)}, rng);
        inv.inputs[i].push_back(packElements(values[ins[i]], 0, n, ir::bitWidth(type)));
      }
      const ir::TensorValues result = ir::interpretGraph(g, values);
      const std::vector<int64_t> &y = result.at(out);
      for (int64_t v : y) {
        saturated += v == ir::minValue(s.outputType) || v == ir::maxValue(s.outputType);
        ++elements;
      }
      inv.expected.push_back(packElements(y, 0, y.size(), outBits));
    }
    return inv;
  };
  k.timing = [&s](int64_t tokens) {
    return model::elementwiseGeneratedTiming(modelParams(s, tokens));
  };
  runTileKernelTest(h, k, h.options().tokens);
  std::printf("%llu of %llu output elements at a bound of %s\n", (unsigned long long)saturated,
              (unsigned long long)elements, ir::toString(s.outputType).c_str());
  if (saturated == 0)
    h.fail("no output reached a bound of the output type: the saturation was not exercised");
}

#define ST_INPUT(m, i, width)                                                                      \
  StreamPins {                                                                                     \
    SignalRef(m.in##i##_valid_i, 1), SignalRef(m.in##i##_ready_o, 1),                              \
        SignalRef(m.in##i##_data_i, width)                                                         \
  }

unsigned portWidth(const GeneratedSpec &s, size_t i) {
  return unsigned(elementCount(s.inputTileShapes[i])) * ir::bitWidth(s.inputTypes[i]);
}

void run(const TestOptions &options) {
  const GeneratedSpec &s = spec(options.config);
  const unsigned outWidth = unsigned(elementCount(s.outputTileShape)) * ir::bitWidth(s.outputType);
  if (s.name == "st_gen_bcast_mix") {
    Harness<Vst_gen_bcast_mix> h(options, [](Vst_gen_bcast_mix &m) {
      return ClockReset{&m.clk_i, &m.rst_ni};
    });
    auto &m = h.dut();
    runModule(h, s,
              {ST_INPUT(m, 0, portWidth(s, 0)), ST_INPUT(m, 1, portWidth(s, 1)),
               ST_INPUT(m, 2, portWidth(s, 2))},
              {SignalRef(m.valid_o, 1), SignalRef(m.ready_i, 1), SignalRef(m.data_o, outWidth)});
  } else {
    Harness<Vst_gen_relu_scale> h(options, [](Vst_gen_relu_scale &m) {
      return ClockReset{&m.clk_i, &m.rst_ni};
    });
    auto &m = h.dut();
    runModule(h, s, {ST_INPUT(m, 0, portWidth(s, 0)), ST_INPUT(m, 1, portWidth(s, 1))},
              {SignalRef(m.valid_o, 1), SignalRef(m.ready_i, 1), SignalRef(m.data_o, outWidth)});
  }
}

} // namespace

int main(int argc, char **argv) {
  if (argc == 5 && !std::strcmp(argv[1], "--config") && !std::strcmp(argv[3], "--compare-synth"))
    return compareSynthWithEstimate(
        argv[4], model::elementwiseGeneratedResources(modelParams(spec(argv[2]), 1)));
  return runTest(argc, argv, run);
}
