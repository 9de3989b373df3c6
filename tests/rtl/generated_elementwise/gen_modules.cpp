// Build-time generator of the generated_elementwise tests: writes <out-dir>/<name>.sv for every
// module of generated_specs.h with gen::emitElementwiseModule, and <out-dir>/st_gen_fuzz_top.sv:
// one combinational module holding gen::emitElementwiseFunction of every body of
// random_bodies.h, function k driving y[k*64 +: 64] from inputs a0, a1, a2 (low bits).
#include <cstdio>
#include <fstream>

#include "gen/elementwise_module.h"
#include "generated_specs.h"
#include "random_bodies.h"

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUT_DIR\n", argv[0]);
    return 2;
  }
  for (const auto &s : st::tb::generatedSpecs()) {
    const std::string path = std::string(argv[1]) + "/" + s.name + ".sv";
    std::ofstream out(path);
    out << st::gen::emitElementwiseModule(s.name, s.body, s.outputTileShape, s.inputTileShapes,
                                          s.inputTypes, s.outputType);
    if (!out) {
      std::fprintf(stderr, "cannot write %s\n", path.c_str());
      return 1;
    }
  }
  const std::string path = std::string(argv[1]) + "/st_gen_fuzz_top.sv";
  std::ofstream out(path);
  const auto bodies = st::tb::randomBodies(st::tb::kFuzzBodies, st::tb::kFuzzSeed);
  out << "// st_gen_fuzz_top: random element-wise bodies (tests/rtl/generated_elementwise/"
         "random_bodies.h)\n// as emitted by gen::emitElementwiseFunction, side by side.\n"
      << "`default_nettype none\n\nmodule st_gen_fuzz_top (\n"
      << "    input  wire  [63:0] a0,\n    input  wire  [63:0] a1,\n    input  wire  [63:0] a2,\n"
      << "    output logic [" << bodies.size() * 64 - 1 << ":0] y\n);\n\n"
      << "  wire unused_a = ^{a0, a1, a2};  // each body reads only the low bits of its types\n\n";
  for (size_t k = 0; k < bodies.size(); ++k) {
    const auto &b = bodies[k];
    const std::string f = "body" + std::to_string(k);
    out << "  // " << b.body.toString() << "\n"
        << st::gen::emitElementwiseFunction(f, b.body, b.inputTypes, b.outputType);
    std::string args;
    for (unsigned i : st::ir::elementwiseInputsRead(b.body))
      args += (args.empty() ? "a" : ", a") + std::to_string(i) + "[" +
              std::to_string(st::ir::bitWidth(b.inputTypes[i]) - 1) + ":0]";
    out << "  assign y[" << k * 64 << " +: 64] = 64'(" << f << "(" << args << "));\n\n";
  }
  out << "endmodule\n\n`default_nettype wire\n";
  if (!out) {
    std::fprintf(stderr, "cannot write %s\n", path.c_str());
    return 1;
  }
  return 0;
}
