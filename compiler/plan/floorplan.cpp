// SLR floorplan of the LLM top (see floorplan.h).
#include "plan/floorplan.h"

#include <cmath>
#include <map>

#include "model/gemv_engine_model.h"
#include "plan/floorplan_ilp.h"
#include "plan/llm_plan.h"
#include "support/error.h"

namespace st::plan {

namespace {

using Cell = Floorplan::Cell;

/// The valid and ready beside a stream's data.
constexpr int64_t kHandshakeBits = 2;
/// The control's run scalars every sequencer and vector counter reads (n_steps, first_step,
/// n_prompt at 16 bits, run_clear), and per DMA port its 64-bit pointer and start handshake.
constexpr int64_t kRunScalarBits = 3 * 16 + 1, kDmaControlBits = 64 + 3;

model::ResourceEstimate scaled(const passes::DeviceConstraints::Slr &s, double f) {
  model::ResourceEstimate e;
  e.lut = int64_t(std::floor(double(s.lut) * f));
  e.ff = int64_t(std::floor(double(s.ff) * f));
  e.dsp = int64_t(std::floor(double(s.dsp) * f));
  e.bram36 = std::floor(double(s.bram36) * f);
  e.uram = int64_t(std::floor(double(s.uram) * f));
  return e;
}

/// The items and nets of `d`, built beside the problem the ILP solves.
class FloorplanBuilder {
public:
  FloorplanBuilder(const LlmPlan &d, int hbmSlr) : d_(d), df_(d.graph.dataflow), hbmSlr_(hbmSlr) {}

  void build(Floorplan &fp, FloorplanProblem &p) {
    nodeItems(fp);
    engineItems(fp);
    fifoCells(fp);
    assignParts(fp);
    for (const Floorplan::Item &it : fp.items)
      p.items.push_back({it.name, it.resources, it.hbm ? hbmSlr_ : -1});
    // The engine's channel instances of one kind are interchangeable.
    for (size_t k = 1; k < split_.channels.size(); ++k)
      if (split_.channels[k].ways == split_.channels[k - 1].ways)
        p.ordered.push_back({channelItem_.at(split_.channels[k - 1].firstChannel),
                             channelItem_.at(split_.channels[k].firstChannel)});
    streamNets(p);
    engineNets(p);
    controlNets(p);
  }

  /// Per net of the problem: the stream (or engine connection) it reports as.
  std::vector<std::string> netStreams;

private:
  size_t addItem(Floorplan &fp, std::string name, std::vector<Cell> cells, bool hbm) {
    fp.items.push_back({std::move(name), std::move(cells), {}, hbm, 0});
    return fp.items.size() - 1;
  }

  /// One item per node (views too: wiring, no cell, no resources); a node with an AXI master is
  /// pinned. Every part name the estimate may give a node's instances maps to (item, cell).
  void nodeItems(Floorplan &fp) {
    std::map<ir::NodeId, std::vector<size_t>> ports; // node -> its AXI masters (top.dmas order)
    for (size_t k = 0; k < d_.top.top.dmas.size(); ++k)
      ports[d_.top.top.dmas[k].node].push_back(k);
    for (ir::NodeId n : df_.nodes()) {
      const std::string &name = df_.node(n).name;
      const size_t item = addItem(fp, name, {}, ports.count(n) > 0);
      itemOf_[n] = item;
      // The position source is a sequencer of its own (u_<node>_seq).
      const bool sequencer = d_.graph.nodes.at(n).role == llm::AcceleratorRole::PositionSource;
      partCell_[name] = {item, {sequencer ? Cell::Kind::Sequencer : Cell::Kind::Node, n, 0, 0, ""}};
      partCell_[name + " sequencer"] = {item, {Cell::Kind::Sequencer, n, 0, 0, ""}};
      partCell_[name + " counter"] = {item, {Cell::Kind::Counter, n, 0, 0, ""}};
      partCell_[name + " command fork"] = {item, {Cell::Kind::CommandFork, n, 0, 0, ""}};
      partCell_[name + " join"] = {item, {Cell::Kind::Join, n, 0, 0, ""}};
      const std::vector<size_t> &mine = ports[n];
      for (size_t j = 0; j < mine.size(); ++j) {
        const std::string slice = name + "_s" + std::to_string(j);
        partCell_[slice] = {item, {Cell::Kind::SliceDma, n, 0, int64_t(j), ""}};
        partCell_[slice + " claim"] = {
            item, {Cell::Kind::Claim, n, 0, int64_t(j), d_.top.top.dmas[mine[j]].name}};
      }
    }
    controlItem_ = addItem(fp, "control", {}, false);
    partCell_["control"] = {controlItem_, {Cell::Kind::Control, 0, 0, 0, ""}};
  }

  /// Each stream's FIFO sits with its consumer (its crossing, if any, is into the FIFO).
  void fifoCells(Floorplan &fp) {
    for (ir::StreamId s : df_.streams()) {
      fifoItem_[s] = endItem(df_.stream(s).dst, true);
      partCell_["fifo " + df_.stream(s).name] = {fifoItem_[s], {Cell::Kind::Fifo, 0, s, 0, ""}};
    }
    (void)fp;
  }

  /// Each part of LlmPlan::resources onto its item (the engine's later, split).
  void assignParts(Floorplan &fp) {
    const bool engine = !d_.graph.engine.calls.empty();
    for (const DesignResources::Part &part : d_.resources.parts) {
      if (engine && part.name == df_.node(d_.graph.engine.node).name)
        continue;
      const auto it = partCell_.find(part.name);
      if (it == partCell_.end())
        throw Error("floorplan", "resource part '" + part.name + "' (" + part.module + ")",
                    "an instance of the top it belongs to");
      Floorplan::Item &item = fp.items[it->second.first];
      item.cells.push_back(it->second.second);
      item.resources += part.estimate;
    }
  }

  /// The engine: its core on the node's item, one item per st_gemv_channel instance.
  void engineItems(Floorplan &fp) {
    if (d_.graph.engine.calls.empty())
      return;
    const llm::EngineUse &e = d_.graph.engine;
    split_ = model::gemvEngineResourceSplit(e.shape);
    Floorplan::Item &core = fp.items[itemOf_.at(e.node)];
    core.cells.push_back({Cell::Kind::Node, e.node, 0, 0, ""});
    core.resources += split_.core;
    for (const auto &c : split_.channels) {
      const size_t item =
          addItem(fp, df_.node(e.node).name + " channel " + std::to_string(c.firstChannel),
                  {{Cell::Kind::EngineChannel, e.node, 0, c.firstChannel, ""}}, false);
      fp.items[item].resources = c.resources;
      for (int64_t w = 0; w < c.ways; ++w)
        channelItem_[c.firstChannel + w] = item;
    }
  }

  /// The item a stream's end sits on: the engine's weight ports go to their channel's instance.
  size_t endItem(const ir::PortRef &end, bool input) const {
    const llm::EngineUse &e = d_.graph.engine;
    if (input && !e.calls.empty() && end.node == e.node && int64_t(end.port) >= e.shape.numX)
      return channelItem_.at(int64_t(end.port) - e.shape.numX);
    return itemOf_.at(end.node);
  }

  void addNet(FloorplanProblem &p, std::string name, int64_t bits, size_t driver,
              std::vector<size_t> loads, std::string stream) {
    p.nets.push_back({std::move(name), bits, driver, std::move(loads)});
    netStreams.push_back(std::move(stream));
  }

  void streamNets(FloorplanProblem &p) {
    for (ir::StreamId s : df_.streams()) {
      const ir::Stream &st = df_.stream(s);
      const int64_t bits = df_.tokenBits(st) + kHandshakeBits;
      addNet(p, st.name, bits, endItem(st.src, false), {fifoItem_.at(s)}, st.name);
    }
  }

  /// The core's x and control to every channel instance (one broadcast), each instance's
  /// accumulators and records back.
  void engineNets(FloorplanProblem &p) {
    const llm::EngineUse &e = d_.graph.engine;
    if (e.calls.empty())
      return;
    const std::string name = df_.node(e.node).name;
    const size_t core = itemOf_.at(e.node);
    std::vector<size_t> instances;
    for (const auto &c : split_.channels)
      instances.push_back(channelItem_.at(c.firstChannel));
    addNet(p, name + " x", split_.coreToChannelBits, core, instances, name + " x to channels");
    for (const auto &c : split_.channels)
      addNet(p, name + " sums " + std::to_string(c.firstChannel), c.ways * split_.channelToCoreBits,
             channelItem_.at(c.firstChannel), {core},
             name + " channel " + std::to_string(c.firstChannel) + " sums");
  }

  /// The control slave's run scalars to every node with a sequencer or counter, and each AXI
  /// master's pointer.
  void controlNets(FloorplanProblem &p) {
    std::vector<size_t> readers;
    std::map<size_t, int64_t> pointers;
    for (const DesignResources::Part &part : d_.resources.parts) {
      const auto it = partCell_.find(part.name);
      if (it == partCell_.end())
        continue;
      const Cell::Kind k = it->second.second.kind;
      if (k == Cell::Kind::Sequencer || k == Cell::Kind::Counter)
        readers.push_back(it->second.first);
    }
    for (const auto &dma : d_.top.top.dmas)
      pointers[itemOf_.at(dma.node)] += kDmaControlBits;
    if (!readers.empty())
      addNet(p, "run scalars", kRunScalarBits, controlItem_, readers, "control run scalars");
    for (const auto &[item, bits] : pointers)
      addNet(p, "pointers " + std::to_string(item), bits, controlItem_, {item}, "control pointers");
  }

  const LlmPlan &d_;
  const ir::DataflowGraph &df_;
  int hbmSlr_;
  std::map<ir::NodeId, size_t> itemOf_;
  std::map<ir::StreamId, size_t> fifoItem_;
  std::map<int64_t, size_t> channelItem_;
  size_t controlItem_ = 0;
  std::map<std::string, std::pair<size_t, Cell>> partCell_;
  model::GemvEngineResourceSplit split_;
};

} // namespace

Floorplan planFloorplan(const LlmPlan &d, const passes::DeviceConstraints &device,
                        double budgetFraction, double sllFraction) {
  if (device.slrs.empty())
    throw Error("floorplan", "device '" + device.name + "'",
                "its SLRs (slrs: and slr_boundaries: in the device YAML)");
  if (!(budgetFraction > 0 && budgetFraction <= 1))
    throw Error("floorplan", "--slr-budget",
                "a fraction of each SLR in (0, 1], got " + std::to_string(budgetFraction));
  int hbmSlr = -1;
  for (size_t s = 0; s < device.slrs.size(); ++s)
    if (device.slrs[s].hbm && hbmSlr < 0)
      hbmSlr = int(s);
  if (hbmSlr < 0)
    throw Error("floorplan", "device '" + device.name + "' slrs", "one SLR with hbm: true");

  Floorplan fp;
  fp.budgetFraction = budgetFraction;
  fp.sllFraction = sllFraction;
  FloorplanProblem p;
  p.where = d.designName;
  for (const auto &s : device.slrs) {
    Floorplan::Slr slr;
    slr.name = s.name;
    slr.budget = scaled(s, budgetFraction);
    slr.capacity = scaled(s, 1.0);
    fp.slrs.push_back(slr);
    p.slrs.push_back({s.name, slr.budget});
  }
  for (size_t b = 0; b < device.sllPerBoundary.size(); ++b) {
    Floorplan::Boundary boundary;
    boundary.name = device.slrs[b].name + "-" + device.slrs[b + 1].name;
    boundary.sllCapacity = device.sllPerBoundary[b];
    boundary.sllLimit = int64_t(std::floor(double(boundary.sllCapacity) * sllFraction));
    fp.boundaries.push_back(boundary);
    p.boundaryBits.push_back(boundary.sllLimit);
  }
  FloorplanBuilder builder(d, hbmSlr);
  builder.build(fp, p);
  const FloorplanSolution sol = solveFloorplan(p);
  fp.solveSeconds = sol.solveSeconds;
  fp.solveCpuSeconds = sol.solveCpuSeconds;
  fp.weightedBits = sol.weightedBits;
  for (size_t i = 0; i < fp.items.size(); ++i)
    fp.items[i].slr = sol.slrOf[i];
  for (size_t s = 0; s < fp.slrs.size(); ++s)
    fp.slrs[s].used = sol.used[s];
  for (size_t b = 0; b < fp.boundaries.size(); ++b)
    fp.boundaries[b].bits = sol.boundaryBits[b];
  // The crossings, one per stream (its producer's SLR to its consumer's, through its FIFO) or
  // engine connection.
  std::map<std::string, Floorplan::Crossing> byStream;
  std::vector<std::string> order;
  for (size_t n = 0; n < p.nets.size(); ++n) {
    const FloorplanProblem::Net &net = p.nets[n];
    if (netCrossings(net, sol.slrOf) == 0)
      continue;
    const std::string &stream = builder.netStreams[n];
    for (size_t load : net.loads) {
      const int from = sol.slrOf[net.driver], to = sol.slrOf[load];
      if (from == to)
        continue;
      const std::string key = stream + "|" + std::to_string(from) + "|" + std::to_string(to);
      if (!byStream.count(key)) {
        order.push_back(key);
        byStream[key] = {stream, from, to, net.bits, 0};
      }
    }
  }
  for (const std::string &key : order)
    fp.crossings.push_back(byStream[key]);
  std::optional<int> single;
  bool one = true;
  for (const auto &it : fp.items) {
    if (it.cells.empty())
      continue;
    if (single && *single != it.slr)
      one = false;
    single = it.slr;
  }
  if (one && single)
    fp.singleSlr = single;
  return fp;
}

} // namespace st::plan
