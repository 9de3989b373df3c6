// Build-time generator of the generated_elementwise test: writes <out-dir>/<name>.sv for every
// module of generated_specs.h with gen::emitElementwiseModule.
#include <cstdio>
#include <fstream>

#include "gen/elementwise_module.h"
#include "generated_specs.h"

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
  return 0;
}
