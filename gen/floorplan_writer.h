// Floorplan writer: prints the LLM top's SLR floorplan (plan::Floorplan, plan/floorplan.h):
//   vivado/floorplan.xdc        one pblock per SLR used, each holding its instances of the top
//                               (the standalone Vivado flow, where the top is the design's top)
//   vivado/floorplan_vitis.tcl  the same assignment as a pre-placement hook of the v++ link
//                               (link.cfg: prop=run.impl_1.STEPS.PLACE_DESIGN.TCL.PRE): it finds
//                               the compute unit's instance of the top and puts its cells in the
//                               platform's pblock of each SLR (pblock_dynamic_SLR<n>)
//   floorplan.svg               the SLRs stacked, what sits in each, crossing connections by width
// and report.json's "floorplan" object and report.md's per-SLR table.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ir/dataflow_graph.h"
#include "plan/floorplan.h"

namespace st::gen {

/// The instance path of `cell` inside the top (gen/llm_top_emitter's names); an engine channel
/// instance is <engine>/gen_channel[<c>].gen_instance.u_channel.
std::string floorplanCellPath(const ir::DataflowGraph &df, const plan::Floorplan::Cell &cell);

/// Per SLR (index), the instance paths it holds, the engine's channel instances last (a child
/// assigned after its parent moves to the child's pblock).
std::vector<std::vector<std::string>> floorplanCellsBySlr(const ir::DataflowGraph &df,
                                                          const plan::Floorplan &fp);

std::string floorplanXdc(const ir::DataflowGraph &df, const plan::Floorplan &fp,
                         const std::string &topModule);
std::string floorplanVitisTcl(const ir::DataflowGraph &df, const plan::Floorplan &fp,
                              const std::string &topModule);
std::string floorplanSvg(const plan::Floorplan &fp, const std::string &design);

/// report.json's "floorplan": slrs (budget, used), boundaries (bits, sll_capacity),
/// crossing_streams (stream, from, to, relay_stages), and the solve's figures.
nlohmann::json floorplanJson(const plan::Floorplan &fp);
/// report.md's "Floorplan" section from report.json's object.
std::string floorplanMarkdown(const nlohmann::json &floorplan);

/// Writes vivado/floorplan.xdc, vivado/floorplan_vitis.tcl and floorplan.svg under `dir`.
void writeFloorplan(const ir::DataflowGraph &df, const plan::Floorplan &fp,
                    const std::string &topModule, const std::string &design,
                    const std::string &dir);

} // namespace st::gen
