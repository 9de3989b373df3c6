// The kernels' table files (see kernel_tables.h).
#include "gen/kernel_tables.h"

#include <filesystem>

#include "numerics/table_export.h"

namespace st::gen {

void writeKernelTables(const std::vector<plan::KernelTable> &tables, const std::string &dir) {
  std::filesystem::create_directories(dir);
  for (const plan::KernelTable &t : tables) {
    const std::string path = (std::filesystem::path(dir) / t.file).string();
    if (t.fixed)
      numerics::writeMemFile(*t.fixed, path);
    else
      numerics::writeRopePhaseFile(t.ropePhases, path);
  }
}

} // namespace st::gen
