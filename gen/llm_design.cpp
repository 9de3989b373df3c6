// LLM design: prints the directory of a planned LLM accelerator (see llm_design.h).
#include "gen/llm_design.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "gen/design_writer.h"
#include "gen/floorplan_writer.h"
#include "gen/hbm_image.h"
#include "gen/kernel_tables.h"
#include "gen/llm_top_emitter.h"
#include "gen/report.h"
#include "gen/stream_probes.h"
#include "gen/vitis_writer.h"
#include "ir/hbm_layout.h"
#include "llm/accelerator_options_json.h"
#include "plan/design_resources.h"
#include "plan/llm_kernel_bindings.h"
#include "plan/step_hbm_bound.h"
#include "support/error.h"
#include "support/text_file.h"

namespace st::gen {

namespace {

namespace fs = std::filesystem;
using llm::AcceleratorRole;

/// The context report.md leads with beside the max context.
constexpr int64_t kReferenceContext = 64;

/// report.json's step_prediction (llm/step_prediction.h): the cycles of the reported steps (step
/// c - 1 of each reference context c, llm::reportedSteps) under the default testbench memory,
/// each one exact timing simulation; sim predicts the steps of its own run the same way. Beside
/// them, indexed alike, each step's HBM bytes and its bound (plan/step_hbm_bound.h: those bytes
/// at HBM's peak rate, in cycles).
nlohmann::json stepPredictionJson(const plan::LlmPlan &d, const plan::LlmStepPrediction &p,
                                  const plan::StepHbmBound &bound) {
  nlohmann::json j;
  j["hbm_read_latency"] = p.hbm.readLatency;
  j["hbm_read_latency_jitter"] = p.hbm.readLatencyJitter;
  j["hbm_ready_probability"] = p.hbm.readyProbability;
  j["layer_windows"] = d.layerWindows;
  j["steps"] = p.steps;
  std::vector<int64_t> contexts, bytes, boundCycles;
  for (int64_t t : p.steps) {
    contexts.push_back(t + 1);
    bytes.push_back(bound.bytes.at(static_cast<size_t>(t)));
    if (!bound.cycles.empty())
      boundCycles.push_back(std::llround(bound.cycles.at(static_cast<size_t>(t))));
  }
  j["contexts"] = contexts;
  j["step_cycles"] = p.stepCycles;
  j["step_hbm_bytes"] = bytes;
  j["hbm_peak_gbps"] = d.hbm.device.totalPeakGBps;
  j["bound_cycles"] = boundCycles;
  // What compile's design choices and this prediction simulated (llm/prediction_work.h).
  j["work"] = {{"step_simulations", p.work.stepSimulations},
               {"block_simulations", p.work.blockSimulations},
               {"layers_simulated", p.work.layersSimulated},
               {"cycles_simulated", p.work.cyclesSimulated}};
  return j;
}

/// The contexts report.md and report.json lead with: 64 and the max context (the max alone when
/// it is 64 or less).
std::vector<int64_t> referenceContexts(int64_t maxContext) {
  if (maxContext <= kReferenceContext)
    return {maxContext};
  return {kReferenceContext, maxContext};
}

/// report.json's headline: per reference context c, the step that decodes with c tokens in the
/// context (step c - 1 of step_prediction), its HBM bytes and bound and their ratio, ms per token
/// at the kernel clock.
nlohmann::json headlineJson(const nlohmann::json &prediction, int64_t maxContext,
                            double kernelClockMhz) {
  nlohmann::json rows = nlohmann::json::array();
  const std::vector<int64_t> steps = prediction.at("steps").get<std::vector<int64_t>>();
  const nlohmann::json &cycles = prediction.at("step_cycles");
  const nlohmann::json &bounds = prediction.at("bound_cycles");
  for (int64_t c : referenceContexts(maxContext)) {
    const auto at = std::find(steps.begin(), steps.end(), c - 1);
    if (at == steps.end())
      continue;
    const size_t i = static_cast<size_t>(at - steps.begin());
    nlohmann::json row;
    row["context"] = c;
    row["step"] = c - 1;
    row["cycles"] = cycles[i];
    row["hbm_bytes"] = prediction.at("step_hbm_bytes")[i];
    if (kernelClockMhz > 0)
      row["ms_per_token"] = cycles[i].get<double>() / (kernelClockMhz * 1e3);
    if (i < bounds.size() && bounds[i].get<int64_t>() > 0) {
      row["bound_cycles"] = bounds[i];
      row["x_bound"] = cycles[i].get<double>() / bounds[i].get<double>();
    }
    rows.push_back(row);
  }
  return rows;
}

nlohmann::json reportJson(const plan::LlmPlan &d, const plan::LlmStepPrediction &prediction) {
  const ir::DataflowGraph &df = d.graph.dataflow;
  nlohmann::json j;
  j["design"] = d.designName;
  j["top"] = d.top.top.module;
  j["architecture"] = d.graph.program->architecture;
  j["precision"] = d.precisionName;
  j["parameters"] = d.graph.program->parameterCount();
  j["layers"] = d.graph.layers;
  j["lanes"] = d.graph.lanes;
  j["max_context"] = d.accelerator.maxContext;
  j["step_prediction"] = stepPredictionJson(d, prediction, d.stepBound);
  j["kernel_clock_mhz"] = d.device.kernelClockMhz;
  j["headline"] = headlineJson(j["step_prediction"], d.accelerator.maxContext,
                               static_cast<double>(d.device.kernelClockMhz));
  // What the FIFO sizing assumed of one step: each stage's makespan alone at one cache length,
  // summed (prologue + layers x block + epilogue). Not the step: step_prediction is.
  j["fifo_sizing_stage_sum"] = {{"cycles", d.graph.predictedCyclesPerStep()},
                                {"cache_length", d.accelerator.sizingCacheLength},
                                {"stage_cycles", d.graph.stageCycles}};
  j["hbm_bytes"] = d.hbm.totalBytes();
  // "group" (the stage, or "control"), each stream's "producer"/"consumer" and each AXI master's
  // "node"/"hbm_channels" are what the compile's dataflow.svg is drawn from (as for graphs).
  for (ir::NodeId n : df.nodes()) {
    const ir::DataflowNode &node = df.node(n);
    const int stage = d.graph.nodes.at(n).stage;
    j["nodes"].push_back(
        {{"name", node.name},
         {"module", node.module},
         {"role", llm::toString(d.graph.nodes.at(n).role)},
         {"group", stage < 0 ? std::string("control") : plan::decodeStageOf(d.graph, n).name}});
  }
  // On-chip memory of the intermediate tensors (streams between kernels, not to or from HBM):
  // the FIFOs as sized, against an unfused design that buffers each such tensor whole between
  // its producer and its consumer (one step, one layer).
  int64_t fifoBits = 0, unfusedBits = 0;
  auto isDmaNode = [&](ir::NodeId n) {
    const ir::NodeKind k = df.node(n).kind;
    return k == ir::NodeKind::ReadDma || k == ir::NodeKind::WriteDma;
  };
  for (ir::StreamId s : df.streams()) {
    const ir::Stream &st = df.stream(s);
    if (isDmaNode(st.src.node) || isDmaNode(st.dst.node))
      continue;
    fifoBits += std::max<int64_t>(st.fifoDepth, 2) * df.tokenBits(st);
    unfusedBits += df.srcPort(st).type.numTokens() * df.tokenBits(st);
  }
  j["fifo_bits"] = fifoBits;
  j["unfused_stream_bits"] = unfusedBits;
  for (ir::StreamId s : df.streams()) {
    const ir::Stream &st = df.stream(s);
    j["streams"].push_back({{"name", st.name},
                            {"from", df.node(st.src.node).name},
                            {"to", df.node(st.dst.node).name},
                            {"producer", df.node(st.src.node).name},
                            {"consumer", df.node(st.dst.node).name},
                            {"itensor", df.srcPort(st).type.toString()},
                            {"token_bits", df.tokenBits(st)},
                            {"fifo_depth", st.fifoDepth}});
  }
  for (size_t i = 0; i < d.top.dmas.size(); ++i) {
    const plan::TopInterface::DmaPort &p = d.top.top.dmas[i];
    std::vector<int64_t> channels{p.hbmChannel};
    for (const plan::HbmBuffer &b : d.hbm.buffers)
      if (b.name == d.top.dmas[i].buffer)
        channels = b.channels;
    j["axi_masters"].push_back({{"port", "m_axi_" + p.name},
                                {"node", df.node(p.node).name},
                                {"read", p.isRead},
                                {"role", llm::toString(d.top.dmas[i].role)},
                                {"buffer", d.top.dmas[i].buffer},
                                {"hbm_channel", p.hbmChannel},
                                {"hbm_channels", channels},
                                {"arg_offset", p.argOffset}});
  }
  // Resource estimate of the whole top (LlmPlan::resources: kernels, DMAs, forks, FIFOs and the
  // LLM control) beside the device budget; synth.vitis_top.<fixture> compares it with Yosys.
  addResourceEstimate(d.resources, j);
  const passes::DeviceConstraints &device = d.device;
  j["resource_budget"] = {{"lut", device.availableLut},
                          {"ff", device.availableFf},
                          {"bram36", device.availableBram36},
                          {"dsp", device.availableDsp},
                          {"uram", device.availableUram}};
  // Which SLR each instance goes to (LlmPlan::floorplan).
  if (d.floorplan)
    j["floorplan"] = floorplanJson(*d.floorplan);
  return j;
}

/// report.md's first lines: the predicted step at each reference context beside its HBM bound.
void headlineMarkdown(std::ostringstream &os, const nlohmann::json &j) {
  for (const nlohmann::json &row : j["headline"]) {
    char ms[32] = "";
    if (row.contains("ms_per_token"))
      std::snprintf(ms, sizeof ms, " (%.3f ms/token at %d MHz)", row["ms_per_token"].get<double>(),
                    j["kernel_clock_mhz"].get<int>());
    os << "- predicted step at context " << row["context"] << ": **" << row["cycles"] << "** cycles"
       << ms;
    if (row.contains("bound_cycles")) {
      char ratio[32];
      std::snprintf(ratio, sizeof ratio, "%.2f", row["x_bound"].get<double>());
      os << ", **" << ratio << "x** its HBM bound of " << row["bound_cycles"]
         << " cycles (the step's " << row["hbm_bytes"] << " HBM bytes at "
         << j["step_prediction"]["hbm_peak_gbps"] << " GB/s)";
    }
    os << "\n";
  }
  os << "\n";
}

std::string llmReportMarkdown(const nlohmann::json &j) {
  std::ostringstream os;
  os << "# " << j["design"].get<std::string>() << " (" << j["architecture"].get<std::string>()
     << ", " << j["precision"].get<std::string>() << ")\n\n";
  headlineMarkdown(os, j);
  const nlohmann::json &stageSum = j["fifo_sizing_stage_sum"];
  os << "- " << j["layers"] << " layers through one block, " << j["lanes"]
     << " codes per residual token, max context " << j["max_context"] << "\n"
     << "- FIFO sizing's stage sum (each stage alone at cache length " << stageSum["cache_length"]
     << ", summed: prologue + layers x block + epilogue " << stageSum["stage_cycles"].dump()
     << "): " << stageSum["cycles"] << " cycles; not a step prediction\n"
     << "- HBM image and run buffers: " << j["hbm_bytes"] << " bytes\n"
     << "- on-chip stream memory: " << j["fifo_bits"] << " FIFO bits between kernels, against "
     << j["unfused_stream_bits"]
     << " bits for an unfused design buffering every intermediate tensor whole\n";
  if (j.contains("resource_estimate") && j.contains("resource_budget")) {
    os << "- resources (estimate / U55C budget):";
    for (const char *k : {"lut", "ff", "bram36", "dsp", "uram"}) {
      const double used = j["resource_estimate"][k].get<double>();
      const double budget = j["resource_budget"][k].get<double>();
      char text[96];
      std::snprintf(text, sizeof text, " %s %.1f / %.0f (%.1f %%)", k, used, budget,
                    budget > 0 ? 100.0 * used / budget : 0.0);
      os << text;
    }
    os << "\n";
  }
  if (j.contains("floorplan"))
    os << floorplanMarkdown(j["floorplan"]);
  os << "\n## AXI masters\n\n| port | role | buffer | HBM channel | register "
        "|\n|---|---|---|---|---|\n";
  for (const auto &m : j["axi_masters"])
    os << "| " << m["port"].get<std::string>() << " | " << m["role"].get<std::string>() << " | "
       << m["buffer"].get<std::string>() << " | " << m["hbm_channel"] << " | 0x" << std::hex
       << m["arg_offset"].get<unsigned>() << std::dec << " |\n";
  os << "\n## Streams\n\n| stream | from | to | itensor | FIFO depth |\n|---|---|---|---|---|\n";
  for (const auto &s : j["streams"])
    os << "| " << s["name"].get<std::string>() << " | " << s["from"].get<std::string>() << " | "
       << s["to"].get<std::string>() << " | `" << s["itensor"].get<std::string>() << "` | "
       << s["fifo_depth"] << " |\n";
  return os.str();
}

/// The generated testbench's main(): binds the control slave and every AXI master (in argument
/// order) and hands tb/llm_run.h the argument registers of ../include/<design>_kernel.h, the
/// header the host program programs the kernel from (so the two cannot drift); tb/llm_run.h does
/// the rest.
std::string llmTestbenchMain(const plan::LlmTopInterface &top, const std::string &design) {
  std::ostringstream os;
  const plan::TopInterface &t = top.top;
  const std::string ns = kernelNamespace(design);
  os << "// Generated by streamtensor: the Verilator testbench of " << t.module << ".\n"
     << "// Binds the top's ports; tb/llm_run.h does the rest (see its header comment). The\n"
     << "// argument registers come from ../include/" << kernelHeaderName(design)
     << ", the header the host program uses.\n"
     << "#include \"V" << t.module << ".h\"\n#include \"axi_pins.h\"\n#include \"llm_run.h\"\n"
     << "#include \"" << kernelHeaderName(design) << "\"\n\n"
     << "static_assert(" << ns << "::kControlOffset == st::tb::AxiLiteMaster::kControl);\n"
     << "static_assert(" << ns << "::kNumArgs == " << t.args.size() << ");\n";
  for (size_t i = 0; i < t.args.size(); ++i)
    os << "static_assert(" << ns << "::kArgIndex_" << t.args[i].name << " == " << i << ");\n";
  os << "\nint main(int argc, char **argv) {\n  using Model = V" << t.module << ";\n"
     << "  const std::vector<st::tb::ArgRegister> registers{";
  for (size_t i = 0; i < t.args.size(); ++i)
    os << (i ? ",\n" : "\n") << "      {\"" << t.args[i].name << "\", " << ns << "::kArgOffset_"
       << t.args[i].name << "}";
  os << "};\n"
     << "  return st::tb::runLlm<Model>(\n      argc, argv, registers,\n"
     << "      [](Model &m) { return ST_AXI_LITE_PINS(m, s_axi_control_, " << t.controlAddrBits
     << "); },\n      [](Model &m) {\n        std::vector<st::tb::AxiPins> pins(" << t.dmas.size()
     << ");\n";
  for (size_t i = 0; i < t.dmas.size(); ++i)
    os << "        ST_AXI_BIND_" << (t.dmas[i].isRead ? "READ" : "WRITE") << "(pins[" << i
       << "], m, m_axi_" << t.dmas[i].name << "_, 1, 64, 512);\n";
  os << "        return pins;\n      });\n}\n";
  return os.str();
}

/// A file name for a buffer name ("block/attention.k_cache" -> "block_attention_k_cache").
std::string fileStem(const std::string &bufferName) {
  std::string s = bufferName;
  for (char &c : s)
    if (c == '/' || c == '.')
      c = '_';
  return s;
}

/// tb/llm_run.json: what the testbench loads, programs and dumps (tb/llm_run.h).
nlohmann::json llmRunManifest(const plan::LlmPlan &d) {
  nlohmann::json j;
  j["format"] = "streamtensor-llm-run-1";
  j["top"] = d.top.top.module;
  j["kernel_clock_mhz"] = d.device.kernelClockMhz;
  j["max_context"] = d.accelerator.maxContext;
  j["prompt_address"] = plan::hbmBufferNamed(d.hbm, plan::kPromptBuffer).address;
  j["files"] = nlohmann::json::array();
  for (size_t c = 0; c < d.hbm.channelBytes.size(); ++c)
    if (d.hbm.channelBytes[c] > 0) {
      char name[40];
      std::snprintf(name, sizeof name, "../hbm/hbm_pc%02zu.bin", c);
      j["files"].push_back(
          {{"path", name},
           {"address",
            static_cast<uint64_t>(c) * static_cast<uint64_t>(d.hbm.device.pseudoChannelBytes)}});
    }
  int pin = 0;
  j["step_port"] = -1;
  j["token_port"] = -1;
  // The argument registers are not here: the testbench takes them from the kernel header.
  for (const plan::TopInterface::KernelArg &a : d.top.top.args) {
    nlohmann::json arg = {{"name", a.name}, {"pointer", a.isPointer}};
    if (a.dma >= 0) {
      const plan::LlmDmaPort &port = d.top.dmas[a.dma];
      arg["address"] = plan::hbmBufferNamed(d.hbm, port.buffer).address;
      if (port.role == AcceleratorRole::TokenWrite)
        j["token_port"] = pin;
      if (port.role == AcceleratorRole::Tap && d.graph.nodes.at(port.node).layers == 1) {
        j["step_port"] = pin;
        j["step_words"] = port.rowLayout.wordsStreamed(); // the planned layout of a step's row
      }
      ++pin;
    }
    j["args"].push_back(arg);
  }
  j["dump"] = nlohmann::json::array();
  for (const plan::HbmBuffer &b : d.hbm.buffers)
    if (b.kind == "k_cache" || b.kind == "v_cache" || b.kind.rfind("run_", 0) == 0)
      // A cache whose kv-head blocks spread over channels: each block's region on its own.
      for (int64_t block = 0; block < b.kvBlockChannels; ++block)
        j["dump"].push_back(
            {{"name", fileStem(b.name) + (block > 0 ? ".b" + std::to_string(block) : "")},
             {"address", b.address + block * b.kvBlockStride()},
             {"bytes", b.bytes()}});
  return j;
}

/// The AMD-tool deliverables' view of the design (gen/vitis_writer.h): per argument its buffer
/// (role, size), and the run of the LLM host program (the image's channels, the pointers'
/// addresses, the prompt and tokens buffers).
VitisDesign llmVitisDesign(const plan::LlmPlan &d, const std::vector<std::string> &rtlFiles) {
  const passes::DeviceConstraints &device = d.device;
  VitisDesign v;
  v.top = &d.top.top;
  v.design = d.designName;
  v.rtlFiles = rtlFiles;
  v.part = device.part;
  v.platform = device.vitisPlatform;
  v.kernelClockMhz = device.kernelClockMhz;
  LlmHostRun run;
  run.pseudoChannelBytes = static_cast<uint64_t>(d.hbm.device.pseudoChannelBytes);
  run.maxContext = d.accelerator.maxContext;
  run.promptArg = plan::LlmTopInterface::kPromptArg;
  run.stepsArg = plan::LlmTopInterface::kStepsArg;
  run.promptAddress =
      static_cast<uint64_t>(plan::hbmBufferNamed(d.hbm, plan::kPromptBuffer).address);
  run.tokensAddress = static_cast<uint64_t>(plan::hbmBufferNamed(d.hbm, "run/tokens").address);
  std::map<unsigned, LlmHostRun::Channel> channels;
  for (size_t c = 0; c < d.hbm.channelBytes.size(); ++c)
    if (d.hbm.channelBytes[c] > 0) {
      char name[32];
      std::snprintf(name, sizeof name, "hbm/hbm_pc%02zu.bin", c);
      LlmHostRun::Channel &ch = channels[static_cast<unsigned>(c)];
      ch.channel = static_cast<unsigned>(c);
      ch.bytes = static_cast<uint64_t>(d.hbm.channelBytes[c]);
      ch.file = name;
      ch.arg = ~0u;
    }
  for (size_t i = 0; i < d.top.top.args.size(); ++i) {
    const plan::TopInterface::KernelArg &a = d.top.top.args[i];
    KernelBuffer kb;
    kb.bufferOf = static_cast<unsigned>(i);
    if (a.dma < 0) {
      kb.role = "scalar";
      v.buffers.push_back(kb);
      run.argAddress.push_back(0);
      continue;
    }
    const plan::LlmDmaPort &port = d.top.dmas[static_cast<size_t>(a.dma)];
    const plan::HbmBuffer &b = plan::hbmBufferNamed(d.hbm, port.buffer);
    kb.bytes = static_cast<uint64_t>(b.bytes());
    kb.role = port.role == AcceleratorRole::TokenWrite || port.role == AcceleratorRole::Tap
                  ? "output"
              : port.role == AcceleratorRole::KvAppend || port.role == AcceleratorRole::KvCacheRead
                  ? "scratch"
                  : "input";
    v.buffers.push_back(kb);
    const uint64_t address = static_cast<uint64_t>(b.address);
    run.argAddress.push_back(address);
    const unsigned c = static_cast<unsigned>(address / run.pseudoChannelBytes);
    LlmHostRun::Channel &ch = channels[c];
    ch.channel = c;
    ch.bytes = std::max(ch.bytes, address % run.pseudoChannelBytes + kb.bytes);
    if (ch.arg == ~0u)
      ch.arg = static_cast<unsigned>(i);
  }
  for (auto &[c, ch] : channels) {
    if (ch.arg == ~0u)
      throw Error("llm design", "HBM pseudo-channel " + std::to_string(c),
                  "a channel that an AXI master of the top is linked to");
    run.channels.push_back(ch);
  }
  v.llm = run;
  return v;
}

/// The manifest's "streams" of the joined graph (gen/stream_probes.h; the LLM top uses the
/// same stream naming as every top, sv_stream_wiring.h), each with "runs_per_step": how often
/// its producer or consumer runs per decode step (the layers, for the block's streams), from
/// which the testbench scales "tokens" (one run's) to the run's expected transfers.
nlohmann::json llmStreamProbesJson(const llm::AcceleratorGraph &g,
                                   const std::vector<StreamProbe> &probes) {
  const ir::DataflowGraph &df = g.dataflow;
  std::map<std::string, int64_t> runsPerStep;
  for (ir::StreamId s : df.streams()) {
    const ir::Stream &st = df.stream(s);
    runsPerStep[st.name] = std::max(g.nodes.at(st.src.node).layers, g.nodes.at(st.dst.node).layers);
  }
  nlohmann::json streams = streamProbesJson(probes);
  for (auto &s : streams)
    s["runs_per_step"] = runsPerStep.at(s.at("name").get<std::string>());
  return streams;
}

} // namespace

void writeLlmHbmImage(const plan::LlmPlan &d, const std::string &dirName) {
  writeHbmImage(d.hbm, (fs::path(dirName) / "hbm").string());
}

void writeLlmDesign(const plan::LlmPlan &d, const plan::LlmStepPrediction &prediction,
                    const LlmWriteOptions &options, const std::string &dirName) {
  const fs::path dir = dirName;
  writeKernelTables(d.tables, (dir / "rtl" / "tables").string());
  const std::string top = emitLlmTop(d.graph, d.top, d.kernels);
  const std::vector<std::string> rtlFiles = writeRtlSources(
      (dir / "rtl").string(), d.graph.dataflow, d.top.top.module, top, options.sourceDir);
  fs::create_directories(dir / "tb");
  writeTextFile(dir / "tb" / "tb_main.cpp", llmTestbenchMain(d.top, d.designName));
  writeTextFile(
      dir / "tb" / "CMakeLists.txt",
      testbenchCmakeLists(d.top.top.module, options.sourceDir, rtlFiles, /*probes=*/true));
  // The streams the testbench observes (stall report, watchdog, waveform groups).
  const std::vector<StreamProbe> probes = streamProbesOf(d.graph.dataflow);
  nlohmann::json runManifest = llmRunManifest(d);
  runManifest["streams"] = llmStreamProbesJson(d.graph, probes);
  writeTextFile(dir / "tb" / "llm_run.json", runManifest.dump(2) + "\n");
  writeTextFile(dir / "tb" / "probes.vlt", probeVerilatorConfig(probes, d.top.top.module));
  // ---- AMD tools: kernel header (shared with tb_main.cpp), Vitis kernel, Vivado, XRT host ----
  VitisDesign vitis = llmVitisDesign(d, rtlFiles);
  // The floorplan: one SLR pinned in link.cfg when the whole design fits it, else the pblocks
  // (vivado/floorplan.xdc for the standalone flow, the pre-placement hook for v++).
  if (d.floorplan) {
    const plan::Floorplan &fp = *d.floorplan;
    writeFloorplan(d.graph.dataflow, fp, d.top.top.module, d.designName, dir.string());
    vitis.slr = fp.singleSlr ? std::optional<std::string>(fp.slrs[size_t(*fp.singleSlr)].name)
                             : std::nullopt;
    vitis.floorplanXdc = "floorplan.xdc";
    vitis.placeHook =
        (fs::path(options.finalDir.empty() ? fs::absolute(dir) : fs::path(options.finalDir)) /
         "vivado" / "floorplan_vitis.tcl")
            .string();
  }
  writeVitisDeliverables(vitis, options.sourceDir, dir.string());
  const nlohmann::json report = reportJson(d, prediction);
  writeTextFile(dir / "report.json", report.dump(2) + "\n");
  writeTextFile(dir / "report.md", llmReportMarkdown(report));
  nlohmann::json design;
  design["format"] = "streamtensor-llm-design-1";
  design["top"] = d.top.top.module;
  design["model_dir"] = fs::absolute(options.modelDir).string();
  design["random_weights"] = options.randomWeights;
  design["precision"] = d.precisionName;
  design["max_context"] = d.accelerator.maxContext;
  design["vocab_size"] = d.program->vocabSize;
  design["max_lanes"] = d.accelerator.maxLanes;
  design["attention_tile_positions"] = d.accelerator.attentionTilePositions;
  design["accelerator"] = llm::acceleratorOptionsJson(d.accelerator);
  design["streams"] = streamProbesJson(probes);
  for (const plan::TopInterface::KernelArg &a : d.top.top.args) {
    nlohmann::json arg = {{"name", a.name}, {"offset", a.offset}, {"pointer", a.isPointer}};
    if (a.dma >= 0) {
      const plan::HbmBuffer &b = plan::hbmBufferNamed(d.hbm, d.top.dmas[a.dma].buffer);
      arg["buffer"] = b.name;
      arg["address"] = b.address;
    }
    design["args"].push_back(arg);
  }
  writeTextFile(dir / "design.json", design.dump(2) + "\n");
}

} // namespace st::gen
