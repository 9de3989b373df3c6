// Writes the non-linear tables as $readmemh files, the form in which the RTL kernels' ROMs load
// them (Vivado, Verilator and Yosys all read $readmemh). One entry per line, hexadecimal,
// zero-padded to the entry width, entry 0 first.
#pragma once

#include <string>
#include <vector>

#include "nonlinear_tables.h"

namespace st::numerics {

/// The file name of a fixed table: "<name>.mem".
struct NamedTable {
  std::string name; ///< e.g. "exp2_neg_frac"
  const PiecewiseLinearTable *table;
};

/// Every fixed table of the datapath with its file stem.
std::vector<NamedTable> fixedTables();

/// Writes `table` to `path` (creating or replacing it). Throws st::Error naming the path on an
/// I/O failure.
void writeMemFile(const PiecewiseLinearTable &table, const std::string &path);

/// Writes the phase-increment tables of st_rope (PhaseTableFile): every table's headDim/2
/// increments (Q0.48) as 12 hexadecimal digits per line, table 0 first, pair 0 first. All tables
/// must have the same headDim; throws st::Error naming the path otherwise or on an I/O failure.
void writeRopePhaseFile(const std::vector<RopeTable> &tables, const std::string &path);

/// Writes every fixed table into `directory` as <name>.mem; returns the paths written.
std::vector<std::string> writeFixedTables(const std::string &directory);

} // namespace st::numerics
