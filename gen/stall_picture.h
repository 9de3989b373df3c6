// Stall picture: the stall report of one `streamtensor sim` run (sim/stall_report.json,
// gen/stall_report.h) as a DataflowPicture (gen/dataflow_dot.h) whose streams are coloured by
// how long they stalled and starved: red for the fraction of cycles the producer was stalled
// on ready (FIFO full, back-pressure), blue for the fraction the consumer was starved on valid
// (FIFO empty), pen width by the larger of the two, each labelled with both percentages and the
// FIFO's high-water mark against its depth. The streams of a deadlock's wait-for cycle are drawn
// bold. It reads only the report's JSON, so any run's report can be drawn again later.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "gen/dataflow_dot.h"

namespace st::gen {

/// The picture of `stallReport` (its streams' "producer"/"consumer" are "node.port"). Nodes
/// that `design` (the design's own picture, from its report.json; may be null) knows keep their
/// group, kind and module there. Throws st::Error naming `file` when the report lacks "streams"
/// or a stream lacks a field.
DataflowPicture stallPicture(const nlohmann::json &stallReport, const DataflowPicture *design,
                             const std::string &file);

/// "#rrggbb" of a stream stalled `stalled` and starved `starved` of the cycles (fractions in
/// [0, 1]): grey when neither, towards red with stalls and towards blue with starving.
std::string stallColor(double stalled, double starved);

} // namespace st::gen
