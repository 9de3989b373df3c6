// `streamtensor itensor convert`: parses two itensor types and prints the layout converter
// between them (needed or not, buffer shape, loops shared around it, buffer elements), as text
// or as one JSON object. Bad type text or types over different tensors: one error line naming
// the argument, exit code 2.
#include <iostream>
#include <memory>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/command_registry.h"
#include "ir/converter_buffer.h"
#include "ir/itensor_type.h"
#include "support/error.h"

namespace st::cli {

namespace {

constexpr const char *kCommand = "streamtensor itensor convert";

struct ConvertOptions {
  std::string from;
  std::string to;
  bool json = false;
};

std::string loopList(const std::vector<unsigned> &loops) {
  std::string s;
  for (unsigned k : loops)
    s += (s.empty() ? "d" : "*d") + std::to_string(k);
  return s;
}

/// Parses one argument's type text; prints the error line naming the argument on failure.
std::optional<ir::ITensorType> parseArgument(const std::string &option, const std::string &text) {
  try {
    return ir::parseITensorType(text);
  } catch (const Error &e) {
    std::cerr << kCommand << ": error: " << option << " '" << text << "': " << e.field()
              << ": expected " << e.expected() << "\n";
    return std::nullopt;
  }
}

void printText(const ir::ITensorType &from, const ir::ITensorType &to,
               const ir::ConverterBufferShape &b) {
  std::string tensor = ir::tensorTypeString(b.tensorShape, b.elementType);
  fmt::print("producer: {}\nconsumer: {}\ntensor:   {}\n", from.toString(), to.toString(), tensor);
  if (!b.converterNeeded) {
    fmt::print("converter: not needed (both stream the same tokens in the same order; connect "
               "them by a FIFO)\n");
    return;
  }
  fmt::print("converter: needed\n");
  fmt::print("shared loops: {} (around the buffer, outermost first)\n", b.sharedLoops.size());
  for (size_t i = 0; i < b.sharedLoops.size(); ++i) {
    const ir::SharedLoop &l = b.sharedLoops[i];
    std::string what = l.dataDim ? fmt::format("data dim {}, step {}", *l.dataDim, l.step)
                                 : std::string("reuse (re-streams the same block)");
    fmt::print("  {}: {} trips, {}; producer loop {}, consumer loop {}\n", i, l.tripCount, what,
               loopList(l.producerLoops), loopList(l.consumerLoops));
  }
  fmt::print("buffer: {} = {} elements (ping-pong excluded), filled and drained {} time{}\n",
             ir::tensorTypeString(b.shape, b.elementType), b.elements, b.phases(),
             b.phases() == 1 ? "" : "s");
}

int runConvert(const ConvertOptions &o) {
  std::optional<ir::ITensorType> from = parseArgument("--from", o.from);
  if (!from)
    return kExitUsage;
  std::optional<ir::ITensorType> to = parseArgument("--to", o.to);
  if (!to)
    return kExitUsage;
  std::vector<int64_t> fromShape = from->tensorShape(), toShape = to->tensorShape();
  if (fromShape != toShape || from->elementType != to->elementType) {
    std::cerr << kCommand << ": error: --to '" << o.to << "': tensor: expected an itensor over "
              << "the same tensor as --from (" << ir::tensorTypeString(fromShape, from->elementType)
              << "), got one over " << ir::tensorTypeString(toShape, to->elementType) << "\n";
    return kExitUsage;
  }
  ir::ConverterBufferShape b = ir::inferConverterBuffer(*from, *to);
  if (o.json) {
    nlohmann::ordered_json j;
    j["converter"] = b.converterNeeded;
    j["buffer_shape"] = b.shape;
    j["buffer_elements"] = b.elements;
    j["shared_loops"] = b.sharedLoops.size();
    std::cout << j.dump() << "\n";
  } else {
    printText(*from, *to, b);
  }
  return 0;
}

} // namespace

void addItensorCommands(std::vector<CliCommand> &registry) {
  CliCommand convert;
  convert.name = "itensor convert";
  convert.summary = "infer the layout converter between a producer's and a consumer's itensor";
  convert.help =
      R"(Usage: streamtensor itensor convert --from '<itensor>' --to '<itensor>' [--json]

Decides whether a stream typed --from (the producer) can feed a consumer expecting --to through a
plain FIFO, and otherwise sizes the layout converter: a ping-pong buffer written in the
producer's order and read in the consumer's. Loops both types share from the outermost inwards
(same trip count, and the same data dim with the same step, or reuse on both sides) surround the
buffer; the buffer holds what the remaining inner loops touch. Prints the loops shared, the
buffer shape and its element count (one half of the ping-pong pair). With --json prints exactly
one object: {"converter": bool, "buffer_shape": [...], "buffer_elements": N, "shared_loops": K}
(no converter: empty shape, 0 elements, 0 loops). Types over different tensors, or text that is
not an itensor, give one error line naming the argument and exit code 2. See docs/itensor.md.

Example (docs/itensor.md, worked example 1: b -> c):
  streamtensor itensor convert \
    --from 'itensor<4x2xf32, iter_space: [4,2]*[2,4], iter_map: (d0,d1)->(d1,d0)>' \
    --to 'itensor<4x2xf32, iter_space: [4,2,2]*[2,1,4], iter_map: (d0,d1,d2)->(d2,d0)>' --json
  {"converter":true,"buffer_shape":[8,2],"buffer_elements":16,"shared_loops":1}
)";
  convert.setup = [](CLI::App &app) -> CommandRunner {
    auto o = std::make_shared<ConvertOptions>();
    app.add_option("--from", o->from, "The producer's itensor type")->required();
    app.add_option("--to", o->to, "The consumer's itensor type")->required();
    app.add_flag("--json", o->json, "Print one JSON object instead of text");
    return [o] { return runConvert(*o); };
  };
  registry.push_back(std::move(convert));
}

} // namespace st::cli
