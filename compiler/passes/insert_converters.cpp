// Pass insert-converters: wherever a stream's producer and consumer disagree on the itensor
// (sameStream false), a layout converter is inserted: a ping-pong buffer written in the
// producer's order and read in the consumer's, sized by inferConverterBuffer (loops the two
// orders share surround the buffer). Consumers of one producer that want the same order share
// one converter (the paper's common-subexpression elimination before materializing).
#include "ir/converter_buffer.h"
#include "ir/converter_program.h"
#include "model/kernel_templates.h"
#include "passes/pass_pipeline.h"

namespace st::passes {

void insertConverters(CompileState &state) {
  ir::DataflowGraph &df = state.dataflow;
  for (ir::NodeId n : df.nodes()) {
    for (unsigned p = 0; p < df.node(n).outputs.size(); ++p) {
      const ir::PortRef src{n, p};
      // Group the mismatched consumers by the canonical form of the order they want.
      std::vector<std::pair<ir::ITensorType, std::vector<ir::StreamId>>> groups;
      for (ir::StreamId s : df.streamsFrom(src)) {
        const ir::ITensorType &want = df.dstPort(df.stream(s)).type;
        if (ir::sameStream(df.node(n).outputs[p].type, want))
          continue;
        ir::ITensorType key = ir::canonicalStream(want);
        auto it = std::find_if(groups.begin(), groups.end(),
                               [&](const auto &g) { return g.first == key; });
        if (it == groups.end())
          groups.push_back({key, {s}});
        else
          it->second.push_back(s);
      }
      for (size_t g = 0; g < groups.size(); ++g) {
        const ir::ITensorType from = df.node(n).outputs[p].type;
        const ir::ITensorType to = df.dstPort(df.stream(groups[g].second.front())).type;
        const ir::ConverterBufferShape buffer = ir::inferConverterBuffer(from, to);
        ir::DataflowNode cvt;
        cvt.kind = ir::NodeKind::Converter;
        cvt.module = model::layoutConverterTemplate().module();
        cvt.name = "cvt_" + df.node(n).name +
                   (df.node(n).outputs.size() > 1 ? "_" + df.node(n).outputs[p].name : "") +
                   (groups.size() > 1 ? "_" + std::to_string(g) : "");
        cvt.inputs = {{"in", from}};
        cvt.outputs = {{"out", to}};
        // The template's parameters fit this converter's program exactly; the emitter writes
        // the program's address tables next to the RTL and passes their paths.
        const ir::ConverterProgram program = ir::buildConverterProgram(from, to, buffer);
        const ir::ConverterLimits limits = ir::converterLimitsOf(program);
        cvt.params = model::layoutConverterTemplate().encode(ir::converterLimitsOf(program));
        cvt.attributes = {{"buffer_elements", buffer.elements}, {"phases", buffer.phases()}};
        const ir::NodeId c = df.addNode(std::move(cvt));
        df.connect(src, {c, 0});
        for (ir::StreamId s : groups[g].second) {
          const ir::PortRef dst = df.stream(s).dst;
          df.removeStream(s);
          df.connect({c, 0}, dst);
        }
      }
    }
  }
  state.invariants.typesMatch = true;
}

} // namespace st::passes
