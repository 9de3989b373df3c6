// VitisWriter: the AMD tool deliverables of a compiled design, all printed from the top's
// plan::TopInterface so that they apply unchanged to any top (synthetic graphs, LLM decoders):
//   include/<design>_kernel.h  the kernel's register map, argument order, m_axi ports, HBM
//                              channels and buffers; included by BOTH the Verilator testbench
//                              (tb/tb_main.cpp) and the host program, so the two cannot drift
//   vitis/   package_kernel.tcl (Vivado IP packager -> .xo), link.cfg (v++ connectivity: every
//            m_axi to its HBM pseudo-channel, the compute unit in one SLR when it fits one (else
//            the floorplan's pre-placement hook), the kernel clock) and a Makefile with targets
//            `xo` and `xclbin`
//   vivado/  build.tcl (non-project out-of-context synthesis, place and route, reports) with its
//            clock XDC and constraints/u55c_ooc.xdc
//   host/    host.cpp (XRT native API) and a CMakeLists.txt that builds it when XILINX_XRT is set
// See docs/vivado.md for the flow from `streamtensor compile` to a run on a card.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gen/sv_top_emitter.h"

namespace st::gen {

/// What the host does with one pointer argument's buffer.
struct KernelBuffer {
  std::string role = "scratch"; ///< "input", "output" or "scratch"
  uint64_t bytes = 0;
  /// Relative to the design's tb/ directory: the input data or the expected output ("" for
  /// scratch).
  std::string file;
  /// The argument whose buffer this one reads (a refill reads what its spill wrote); its own
  /// index otherwise.
  unsigned bufferOf = 0;
};

/// An LLM decoder's run, for its host program: the HBM image is loaded channel by channel (one
/// xrt::bo per pseudo-channel, in the bank of an argument linked to that channel), each pointer
/// argument is a sub-buffer of its channel's bo at its image address, the prompt ids are written
/// one u32 per 64-byte row and the generated ids read back the same way.
struct LlmHostRun {
  struct Channel {
    unsigned channel = 0;
    uint64_t bytes = 0; ///< the bo's size: the image file and every argument's buffer in it
    std::string file;   ///< relative to the design directory ("hbm/hbm_pcNN.bin"; "" if none)
    unsigned arg = 0;   ///< an argument linked to this channel (its kernel.group_id is the bank)
  };
  std::vector<Channel> channels;
  uint64_t pseudoChannelBytes = 0;
  /// Per kernel argument: the HBM address its pointer holds (0 for a scalar).
  std::vector<uint64_t> argAddress;
  uint64_t promptAddress = 0, tokensAddress = 0;
  int64_t maxContext = 0;
  std::string promptArg, stepsArg; ///< the scalar arguments n_prompt and n_steps
};

struct VitisDesign {
  const plan::TopInterface *top = nullptr;
  /// The design name the header and its namespace are named after (<design>_kernel.h).
  std::string design;
  /// rtl/ files in dependency order (rtl/filelist.f).
  std::vector<std::string> rtlFiles;
  std::string part;
  std::string platform;
  int64_t kernelClockMhz = 0;
  /// One per plan::TopInterface::args entry (scalars: role "scalar", bytes 0).
  std::vector<KernelBuffer> buffers;
  /// The SLR link.cfg pins the compute unit to (slr=), or none when the design spans SLRs (an
  /// LLM design's floorplan, plan/floorplan.h).
  std::optional<std::string> slr = std::string("SLR0");
  /// The floorplan's files: build.tcl reads vivado/<floorplanXdc>; link.cfg's [vivado] section
  /// runs `placeHook` (an absolute path) before placement. Empty: none.
  std::string floorplanXdc, placeHook;
  /// Set for an LLM decoder: host.cpp loads the HBM image, writes the prompt, decodes and prints
  /// the tokens and tokens/s (hostProgram); unset: the graph host (inputs in, outputs compared).
  std::optional<LlmHostRun> llm;
};

/// The generated header's file name and its C++ namespace.
std::string kernelHeaderName(const std::string &design);
std::string kernelNamespace(const std::string &design);

std::string kernelHeaderText(const VitisDesign &d);
std::string packageKernelTcl(const VitisDesign &d);
std::string linkConfig(const VitisDesign &d);
std::string vitisMakefile(const VitisDesign &d);
std::string vivadoBuildTcl(const VitisDesign &d);
std::string clockXdc(const VitisDesign &d);
std::string hostProgram(const VitisDesign &d);
std::string hostCmake(const VitisDesign &d);

/// tb/host_emu_bind.cpp: registers the Verilated top as the backend of the XRT emulation
/// (tb/xrt_emu), so host/host.cpp runs unchanged in simulation.
std::string hostEmulationBinding(const VitisDesign &d);
/// Lines appended to tb/CMakeLists.txt: the target host_emu_<top> (host.cpp + the XRT emulation
/// + the Verilated top), built only on request (EXCLUDE_FROM_ALL).
std::string hostEmulationCmake(const VitisDesign &d);

/// Writes include/, vitis/, vivado/ and host/ under `dir`, and tb/host_emu_bind.cpp with the
/// host_emu_<top> target appended to tb/CMakeLists.txt (written before, with probes.vlt);
/// copies the device XDC from `sourceDir`/constraints. Throws st::Error.
void writeVitisDeliverables(const VitisDesign &d, const std::string &sourceDir,
                            const std::string &dir);

} // namespace st::gen
