// Run check: compares what the LLM accelerator left in HBM after a decode run (the tokens, the
// KV caches, the taps of a RunLayout) bit for bit with a GoldenTrace and reports the first
// difference in program order (docs/accelerator.md §4):
//   for each step t = 0 .. T-1: for each stage in program order, for each run (layer) l: the
//   stage's K then V cache row t of layer l, then the stage's taps (row t, or row t * L + l);
//   then the token generated at step t (t >= P-1);
//   then the KV rows T .. maxContext-1 of every layer, which must still be zero.
// Rows are compared with their padding (expected zero). The same expected bytes are available
// as a list of (address, bytes) regions, which writeRegions / readRegions store as files, so a
// testbench can dump the design's memory over the same list and RegionMemory can serve it back.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "llm/golden_trace.h"
#include "llm/run_layout.h"

namespace st::llm {

struct RunMismatch {
  /// The region: a KV buffer ("block/attention.k_cache"), a tap op ("epilogue/logits") or
  /// "tokens".
  std::string tensor;
  int64_t step = 0;   ///< the step (for a KV row beyond the run: the row's position)
  int64_t layer = -1; ///< the run (layer) of a KV row or a per-layer tap; -1 otherwise
  int64_t index = 0;  ///< element (code) index in the row; for tokens the generated id's index
  int64_t expected = 0, actual = 0;
  uint64_t address = 0;   ///< global HBM address of the element
  bool beyondRun = false; ///< a KV row the run must not have written
  std::string toString() const;
};

/// Reads `bytes` at a global HBM address from what the design left in HBM.
using HbmReader = std::function<std::vector<uint8_t>(uint64_t address, uint64_t bytes)>;

/// The first difference between `memory` and `trace` in the order above, or none. A run that
/// resumed at step `firstStep` (its KV rows below it prefilled: kvPrefillRegions) wrote no tap
/// rows of the steps before, and its k-th generated id is the argmax of step
/// max(P, firstStep + 1) - 1 + k. Throws st::Error when the trace does not fit the layout (more
/// steps than KV rows, more ids than the tokens region) or the reader returns the wrong number of
/// bytes.
std::optional<RunMismatch> firstMismatch(const GoldenTrace &trace, const RunLayout &layout,
                                         const HbmReader &memory, int64_t firstStep = 0);

/// One checked region and the bytes it must hold after the run.
struct CheckedRegion {
  std::string name; ///< "run/tokens", "<kv buffer> layer <l>", "<stage>/<op>.tap"
  uint64_t address = 0;
  std::vector<uint8_t> bytes;
};

/// The expected contents of every region firstMismatch reads: the N tokens, every layer of
/// every KV cache (all maxContext rows, the rows beyond the run zero), every tap's T *
/// rowsPerStep rows. Memory holding exactly these bytes has no mismatch.
std::vector<CheckedRegion> checkedRegions(const RunLayout &layout, const GoldenTrace &trace);

/// The KV rows of positions 0 .. firstStep - 1 of every cache and layer, as the golden run wrote
/// them: what a run resuming at step firstStep finds in HBM (`sim --kv-prefill`). One region
/// per cache and layer; none when firstStep is 0. Throws st::Error when firstStep is beyond the
/// trace's steps.
std::vector<CheckedRegion> kvPrefillRegions(const RunLayout &layout, const GoldenTrace &trace,
                                            int64_t firstStep);

/// Writes `regions` into `directory` (created): regions.json (format
/// "streamtensor-run-regions-1": name, address, bytes, file of each) and region_<i>.bin each.
void writeRegions(const std::vector<CheckedRegion> &regions, const std::string &directory);
/// writeRegions(checkedRegions(layout, trace), directory).
void writeExpectedRegions(const RunLayout &layout, const GoldenTrace &trace,
                          const std::string &directory);
/// Reads what writeRegions wrote (or a testbench's dump in that format). Throws st::Error naming
/// the file and field.
std::vector<CheckedRegion> readRegions(const std::string &directory);

/// The check of a testbench's dump: firstMismatch against the regions readRegions(directory)
/// finds (a byte no dumped region covers reads as zero).
std::optional<RunMismatch> checkRunDump(const GoldenTrace &trace, const RunLayout &layout,
                                        const std::string &dumpDirectory);

/// A sparse HBM holding some regions; every other byte reads as zero (the image's KV caches and
/// run buffers start zero).
class RegionMemory {
public:
  RegionMemory() = default;
  explicit RegionMemory(const std::vector<CheckedRegion> &regions);
  void write(uint64_t address, const std::vector<uint8_t> &bytes);
  std::vector<uint8_t> read(uint64_t address, uint64_t bytes) const;
  HbmReader reader() const;

private:
  /// (start address, bytes) in write order; a later write wins where chunks overlap.
  std::vector<std::pair<uint64_t, std::vector<uint8_t>>> chunks_;
};

} // namespace st::llm
