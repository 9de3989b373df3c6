// CompileState: what the pass pipeline works on — the tensor graph (read only), the user's
// tiling and layout choices, the device facts, and the dataflow graph the passes build and
// rewrite, together with the invariants established so far (checked by the verifier after
// every pass).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ir/dataflow_graph.h"
#include "ir/itensor_type.h"
#include "ir/tensor_graph.h"
#include "model/memory_read_model.h"
#include "passes/fifo_sizing.h"
#include "passes/kernel_cycles.h"

namespace st::passes {

/// The tiling of one op's loop nest (DSE level 1): a tile size per loop and the order of the
/// tile loops (a permutation of the op's loops, reduction loops innermost).
struct OpTiling {
  std::vector<int64_t> tileSizes;
  std::vector<unsigned> loopOrder;
};

/// Device facts read from constraints/<device>.yaml (never written in code).
struct DeviceConstraints {
  std::string name;
  std::string part;
  /// The Vitis platform the kernel is linked against (v++ --platform).
  std::string vitisPlatform;
  int64_t kernelClockMhz = 0;
  /// On-chip memory available to the design, in bits (BRAM36 + URAM of resources_available).
  int64_t onChipMemoryBits = 0;
  int64_t hbmPseudoChannels = 0;
  int64_t hbmPseudoChannelBytes = 0;
  /// The boundary no AXI burst may cross (hbm.axi_4k_boundary_bytes).
  int64_t hbmAlignmentBytes = 0;
  /// HBM's peak bandwidth over all pseudo-channels in GB/s (hbm.total_peak_gbps; 0 when the YAML
  /// gives none).
  double hbmTotalPeakGBps = 0;
  /// Pseudo-channels of one HBM mini-switch (hbm.mini_switch_pseudo_channels; 0 when the YAML
  /// gives none).
  int64_t hbmMiniSwitchChannels = 0;
  int64_t kernelAxiDataBits = 0;
  /// resources_available: the budget the report's resource estimate is a percentage of.
  int64_t availableLut = 0, availableFf = 0, availableDsp = 0, availableBram36 = 0,
          availableUram = 0;
  /// One super logic region (slrs:, bottom first): what the kernels may use of it under the
  /// shell, and whether the HBM is attached to it.
  struct Slr {
    std::string name;
    int64_t lut = 0, ff = 0, dsp = 0, bram36 = 0, uram = 0;
    bool hbm = false;
  };
  std::vector<Slr> slrs;
  /// Per boundary between slrs[b] and slrs[b + 1]: its super long lines (slr_boundaries:).
  std::vector<int64_t> sllPerBoundary;
};

/// Reads the device YAML; throws st::Error naming the file and the missing or malformed key.
DeviceConstraints loadDeviceConstraints(const std::string &path);
/// Reads only the hbm: section of a device YAML (the other fields stay zero): what an HBM image
/// needs. Throws as loadDeviceConstraints.
DeviceConstraints loadHbmConstraints(const std::string &path);

struct CompileOptions {
  /// Tile size of every loop that the graph does not tile explicitly: the largest divisor of
  /// the loop's extent that is at most this (the paper's single global tile size).
  int64_t defaultTileSize = 4;
  /// Overrides the device's on-chip memory budget for fusion (bits), e.g. to force a split.
  std::optional<int64_t> memoryBudgetBits;
  /// How the FIFO-sizing pass sizes the FIFOs (lp, conservative, deep).
  FifoSizingMode fifoMode = FifoSizingMode::Lp;
  /// FIFO depths forced by the user (stream name -> depth), e.g. below the LP's to test the
  /// watchdog.
  std::map<std::string, int64_t> forcedDepths;
  /// Also find, per stream, the least depth the timing simulation accepts, and the cycles with
  /// deep FIFOs (a bisection with one simulation per probe: seconds on a tiny graph, ~90 s on a
  /// full-size LLM block, whose designs skip it).
  bool searchMinDepths = true;
  /// Also predict the kernel's cycles under sim's memories (graph designs: report.json
  /// kernel_cycle_prediction). LLM stages have their own per-step prediction.
  bool predictKernelCycles = true;
};

struct CompileState {
  const ir::TensorGraph *graph = nullptr;
  /// Per op (by name): explicit tilings; the rest use the default.
  std::map<std::string, OpTiling> tilings;
  /// Per tensor (by name): a stream layout forced by the user (inputs and outputs).
  std::map<std::string, ir::ITensorType> forcedLayouts;
  DeviceConstraints device;
  CompileOptions options;

  ir::DataflowGraph dataflow;
  ir::DataflowInvariants invariants;
  /// Fusion groups formed (1 when everything fits on chip).
  unsigned numFusionGroups = 1;
  /// The FIFO-sizing pass's predicted cycles from start to the last output, and the LP's solve
  /// time.
  int64_t predictedCycles = 0;
  double fifoSolveSeconds = 0;
  /// Cycles with every FIFO very deep, and per stream (in DataflowGraph::streams() order) the
  /// smallest depth the timing simulation shows to keep within 2 % of them (-1: none found).
  int64_t deepCycles = 0;
  std::vector<int64_t> searchedMinDepths;
  /// The kernel's cycles (start pulse to ap_done, what sim measures as kernel_cycles) under the
  /// testbench memories sim offers by name (passes/kernel_cycles.h).
  struct KernelCyclePrediction {
    std::string memory; ///< "sim_default", "deterministic"
    model::MemoryTiming timing;
    KernelCycles prediction;
  };
  std::vector<KernelCyclePrediction> kernelCycles;
};

} // namespace st::passes
