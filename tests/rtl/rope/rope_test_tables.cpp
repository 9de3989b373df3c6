// rope_test_tables PATH HEAD_DIM NUM_TABLES: writes the st_rope test phase tables
// (rope_test_tables.h) with st::numerics::writeRopePhaseFile, the compiler's writer.
#include "rope_test_tables.h"

#include "numerics/table_export.h"

#include <cstdio>
#include <cstdlib>
#include <exception>

int main(int argc, char **argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s PATH HEAD_DIM NUM_TABLES\n", argv[0]);
    return 2;
  }
  try {
    st::numerics::writeRopePhaseFile(
        st::tb::ropeTestTables(size_t(std::atoll(argv[2])), size_t(std::atoll(argv[3]))), argv[1]);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "rope_test_tables: %s\n", e.what());
    return 1;
  }
  return 0;
}
