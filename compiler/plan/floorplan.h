// SLR floorplan of the LLM top: which super logic region of the U55C each instance of the top
// goes to (docs/vivado.md, "Floorplan"; `compile --floorplan`). The items are the planned
// design's costed parts (LlmPlan::resources): one per node (with its sequencer, vector counter,
// a striped read's slice DMAs, channel claims, command fork and join, and the FIFOs of the
// streams into it), the control slave, and the GEMV engine cut into its st_gemv_channel
// instances (each with its weight FIFO) and its core (model::gemvEngineResourceSplit). Every
// node with an AXI master (its DMAs, the embedding gather) is pinned to the SLR the HBM is
// attached to. The nets are the streams (producer -> the consumer's FIFO, data bits plus valid
// and ready), the engine's x broadcast to all channel instances and their sums back, and the
// control's pointers and run scalars. The engine's channel instances of one kind are
// interchangeable, so the ILP orders them. plan/floorplan_ilp solves the assignment;
// gen/floorplan_writer prints the pblocks (vivado/floorplan.xdc, the v++ hook), the picture and
// the report's tables.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/dataflow_graph.h"
#include "model/kernel_timing.h"
#include "passes/compile_state.h"

namespace st::plan {

struct LlmPlan;

/// The default share of each SLR's resources the floorplan may fill (--slr-budget).
inline constexpr double kDefaultSlrBudget = 0.70;
/// The default share of each boundary's super long lines the crossing bits may use
/// (--sll-budget).
inline constexpr double kDefaultSllBudget = 0.50;

struct Floorplan {
  /// One instance of the top (gen/llm_top_emitter's names).
  struct Cell {
    enum class Kind {
      Node,          ///< u_<node>
      Sequencer,     ///< u_<node>_seq
      Counter,       ///< u_<node>_counter
      SliceDma,      ///< u_<node>_s<index>
      CommandFork,   ///< u_<node>_cmd
      Join,          ///< u_<node>_join
      Claim,         ///< u_claim_<port>
      Fifo,          ///< the stream's st_fifo
      Control,       ///< u_control
      EngineChannel, ///< u_<node>/gen_channel[<index>].gen_instance.u_channel
    };
    Kind kind = Kind::Node;
    ir::NodeId node = 0;
    ir::StreamId stream = 0;
    int64_t index = 0;
    std::string port; ///< a claim's AXI master (m_axi_<port>)
  };
  struct Item {
    std::string name;
    std::vector<Cell> cells;
    model::ResourceEstimate resources;
    bool hbm = false; ///< holds the logic of an AXI master (pinned to the HBM's SLR)
    int slr = 0;
  };
  struct Slr {
    std::string name;
    model::ResourceEstimate budget, used, capacity;
  };
  struct Boundary {
    std::string name; ///< "SLR0-SLR1"
    int64_t bits = 0, sllCapacity = 0, sllLimit = 0;
  };
  /// A connection whose ends sit in different SLRs.
  struct Crossing {
    std::string stream; ///< the stream, or the engine's internal connection
    int from = 0, to = 0;
    int64_t bits = 0;
    int relayStages = 0; ///< registered slices on the way (none inserted yet)
  };
  double budgetFraction = kDefaultSlrBudget, sllFraction = kDefaultSllBudget;
  std::vector<Slr> slrs;
  std::vector<Boundary> boundaries;
  std::vector<Item> items;
  std::vector<Crossing> crossings;
  int64_t weightedBits = 0;
  double solveSeconds = 0, solveCpuSeconds = 0;
  /// The SLR the whole design sits in, when one holds it all (link.cfg then pins the compute
  /// unit there).
  std::optional<int> singleSlr;
};

/// Plans the floorplan of `d` (its graph, LlmPlan::resources, its top interface) on `device`'s
/// SLRs with `budgetFraction` of each. Throws st::Error when the device has no SLRs, when a part
/// of the estimate matches no instance, or when no assignment fits (naming the resource and the
/// SLR budgets).
Floorplan planFloorplan(const LlmPlan &d, const passes::DeviceConstraints &device,
                        double budgetFraction, double sllFraction = kDefaultSllBudget);

} // namespace st::plan
