// Stream probes: what the testbench and the waveform viewer need to observe every stream of a
// generated top — per stream its SystemVerilog signals (the emitter's naming, gen/
// sv_top_emitter.h), producer and consumer nodes, token count and FIFO depth. From them:
//   - the "streams" list of the design manifest (tb/design.json), which the testbench reads to
//     find the signals at run time (tb/stream_profile.h: the stall report and the watchdog);
//   - a Verilator configuration file (tb/probes.vlt) that marks exactly those signals
//     public_flat_rd, so the testbench can read them without changing the synthesizable top;
//   - a GTKWave save file that groups, per producer node, its output streams' valid/ready/data
//     and the occupancy and high-water mark of their FIFOs.
// Everything is a function of the dataflow graph and the top's naming, so any top emitted with
// emitTop's stream naming (graph designs, the LLM top) gets the same observability.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ir/dataflow_graph.h"

namespace st::gen {

struct StreamProbe {
  std::string name;   ///< the stream's name in the dataflow graph
  std::string signal; ///< the SV base name (streamSignalBase): <signal>_in_valid, ...
  std::string producer, producerPort; ///< node and output port names
  std::string consumer, consumerPort; ///< node and input port names
  std::string producerModule, consumerModule;
  int64_t tokens = 0;     ///< tokens of the stream's itensor: the transfers of one run
  int64_t tokenBits = 0;  ///< width of <signal>_{in,out}_data
  int64_t fifoDepth = 2;  ///< the instantiated FIFO's depth
  unsigned countBits = 2; ///< width of <signal>_fifo_count and _fifo_max_count

  std::string inValid() const { return signal + "_in_valid"; }
  std::string inReady() const { return signal + "_in_ready"; }
  std::string inData() const { return signal + "_in_data"; }
  std::string outValid() const { return signal + "_out_valid"; }
  std::string outReady() const { return signal + "_out_ready"; }
  std::string outData() const { return signal + "_out_data"; }
  std::string fifoCount() const { return signal + "_fifo_count"; }
  std::string fifoMaxCount() const { return signal + "_fifo_max_count"; }
};

/// One probe per stream of `df`, ordered by the producer's topological position (then port);
/// in a graph with loops (the LLM top) by a dataflow order that breaks each loop once.
std::vector<StreamProbe> streamProbesOf(const ir::DataflowGraph &df);

/// The manifest's "streams" list and back. fromJson throws st::Error naming `where` and the
/// missing or mistyped field.
nlohmann::json streamProbesJson(const std::vector<StreamProbe> &probes);
std::vector<StreamProbe> streamProbesFromJson(const nlohmann::json &streams,
                                              const std::string &where);

/// The control wires of every generated top (graph and LLM) that probes.vlt also makes
/// readable: the start pulse the control slave gives the kernel and the kernel's done.
inline constexpr const char *kKernelStartSignal = "ap_start";
inline constexpr const char *kKernelDoneSignal = "ap_done";

/// A Verilator configuration file making every probed signal of `topModule` public_flat_rd
/// (readable through the model's scope table; the Verilated code is otherwise unchanged).
std::string probeVerilatorConfig(const std::vector<StreamProbe> &probes,
                                 const std::string &topModule);

/// A GTKWave save file for the FST the testbench writes: `scope` is the top module's scope in
/// the trace ("dut.<top module>" for the Harness's model). One group per producer node with
/// its output streams (valid, ready, data on the producer side, then the FIFO's count and
/// max count), the clock and ap_start/ap_done first.
std::string gtkwaveSaveFile(const std::vector<StreamProbe> &probes, const std::string &scope,
                            const std::string &dumpFile, const std::string &saveFile);

} // namespace st::gen
