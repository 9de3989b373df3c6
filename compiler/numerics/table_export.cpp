// $readmemh export of the non-linear tables for the RTL ROMs.
#include "table_export.h"

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "support/error.h"

namespace st::numerics {

std::vector<NamedTable> fixedTables() {
  return {
      {"exp2_neg_frac", &exp2NegativeFractionTable()},
      {"reciprocal", &reciprocalTable()},
      {"rsqrt", &rsqrtTable()},
      {"gelu_erf_residual", &geluErfResidualTable()},
      {"gelu_tanh_residual", &geluTanhResidualTable()},
      {"silu_residual", &siluResidualTable()},
      {"quarter_sine", &quarterSineTable()},
  };
}

void writeMemFile(const PiecewiseLinearTable &table, const std::string &path) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp);
    if (!out)
      throw Error(path, "file", "a writable path");
    out << "// " << table.function << ": " << table.entries.size() << " entries, u"
        << table.entryBits << " with " << table.entryFracBits << " fraction bits\n";
    const int digits = static_cast<int>((table.entryBits + 3) / 4);
    char buf[32];
    for (uint32_t e : table.entries) {
      std::snprintf(buf, sizeof buf, "%0*x\n", digits, e);
      out << buf;
    }
    if (!out)
      throw Error(path, "file", "a complete write");
  }
  std::filesystem::rename(tmp, path);
}

void writeRopePhaseFile(const std::vector<RopeTable> &tables, const std::string &path) {
  if (tables.empty())
    throw Error(path, "RoPE tables", "at least one table");
  for (size_t t = 0; t < tables.size(); ++t)
    if (tables[t].headDim != tables[0].headDim ||
        tables[t].phaseIncrement.size() != tables[0].headDim / 2)
      throw Error(path, "RoPE table " + std::to_string(t),
                  "head dim " + std::to_string(tables[0].headDim) + " with " +
                      std::to_string(tables[0].headDim / 2) + " increments, as table 0");
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp);
    if (!out)
      throw Error(path, "file", "a writable path");
    out << "// RoPE phase increments: " << tables.size() << " tables of " << tables[0].headDim / 2
        << " entries, u48 turns per position (Q0.48)\n";
    char buf[32];
    for (const RopeTable &table : tables)
      for (uint64_t increment : table.phaseIncrement) {
        std::snprintf(buf, sizeof buf, "%012llx\n",
                      static_cast<unsigned long long>(increment & ((uint64_t(1) << 48) - 1)));
        out << buf;
      }
    if (!out)
      throw Error(path, "file", "a complete write");
  }
  std::filesystem::rename(tmp, path);
}

std::vector<std::string> writeFixedTables(const std::string &directory) {
  std::filesystem::create_directories(directory);
  std::vector<std::string> paths;
  for (const auto &t : fixedTables()) {
    std::string path = (std::filesystem::path(directory) / (t.name + ".mem")).string();
    writeMemFile(*t.table, path);
    paths.push_back(path);
  }
  return paths;
}

} // namespace st::numerics
