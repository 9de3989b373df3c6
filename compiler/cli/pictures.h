// The pictures of a design directory, drawn with Graphviz `dot` (a Debian package, graphviz):
// dataflow.svg, written by every `compile` from the design's report.json (kernels clustered by
// stage or fusion group, streams labelled with their itensor type and FIFO depth, AXI masters
// and their HBM pseudo-channels; gen/dataflow_dot.h), and sim/stall_report.svg, written by every
// `sim` from sim/stall_report.json (streams coloured by stall and starve fractions;
// gen/stall_picture.h). The .dot text is always written; without `dot` on the PATH (or
// ST_GRAPHVIZ_DOT naming another program) the SVG is skipped and the returned note says so, and
// nothing fails: the pictures are for people, the design does not depend on them.
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "gen/dataflow_dot.h"

namespace st::cli {

/// The picture of a design from its report.json (graph or LLM design: nodes with "group",
/// streams with "producer"/"consumer", "axi_masters" with "node" and "hbm_channels"). Throws
/// st::Error naming `file` and the key when one is missing.
gen::DataflowPicture dataflowPictureOfReport(const nlohmann::json &report, const std::string &file);

/// Writes `designDir`/dataflow.dot from `designDir`/report.json and renders dataflow.svg.
/// Returns "" when the SVG was written, else a note for the user (dot missing or failing).
std::string writeDataflowPicture(const std::filesystem::path &designDir);

/// Writes `simDir`/stall_report.dot from `simDir`/stall_report.json (kernels clustered as in
/// `designDir`/report.json when it is there) and renders stall_report.svg; returns like
/// writeDataflowPicture.
std::string writeStallPicture(const std::filesystem::path &simDir,
                              const std::filesystem::path &designDir);

/// Renders `dot` into `svg` with Graphviz; "" on success, else the note.
std::string renderSvg(const std::filesystem::path &dot, const std::filesystem::path &svg);

} // namespace st::cli
