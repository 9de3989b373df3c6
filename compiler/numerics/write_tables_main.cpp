// st_write_tables DIR: writes every fixed non-linear table as DIR/<name>.mem ($readmemh), for
// the RTL kernel tests' ROMs. Generated designs get the same files from the compiler's emitter.
#include <cstdio>
#include <exception>

#include "table_export.h"

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUTPUT_DIRECTORY\n", argv[0]);
    return 2;
  }
  try {
    for (const auto &path : st::numerics::writeFixedTables(argv[1]))
      std::printf("%s\n", path.c_str());
  } catch (const std::exception &e) {
    std::fprintf(stderr, "st_write_tables: %s\n", e.what());
    return 1;
  }
  return 0;
}
