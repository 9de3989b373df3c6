// Prints the Yosys resource counts of one synthesis of an infrastructure template (st_fifo,
// st_fork, st_axi_lite_ctrl, st_axi_read_dma, st_axi_write_dma, st_read_dma_stream,
// st_write_dma_stream; the template is the report's "top") beside its resource model in
// compiler/model/ at the same parameters (tb/synth_compare.h). These models are calibrated on
// these very runs, so the gate is the aim: every ratio within [1/1.25, 1.25].
// Usage: infrastructure_resource_check <report.json> Name=Value...
#include "model/axi_lite_ctrl_resources.h"
#include "model/dma_stream_resources.h"
#include "model/fifo_resources.h"
#include "model/fork_resources.h"
#include "synth_compare.h"

#include <cstdio>
#include <fstream>

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <report.json> Name=Value...\n", argv[0]);
    return 2;
  }
  std::ifstream in(argv[1]);
  if (!in) {
    std::printf("FAIL: cannot read synthesis report %s (run the synth test first)\n", argv[1]);
    return 1;
  }
  const std::string top = nlohmann::json::parse(in).at("top").get<std::string>();
  const auto params = st::tb::parseParamArgs(argc, argv, 2);
  auto get = [&](const char *name, long long fallback) {
    auto it = params.find(name);
    return it == params.end() ? fallback : it->second;
  };
  st::model::ResourceEstimate estimate;
  st::model::DmaParams dma;
  dma.numLoops = get("NumLoops", 1);
  dma.dataWidth = get("DataWidth", 512);
  dma.maxBurstLen = get("MaxBurstLen", 64);
  dma.maxOutstanding = get("MaxOutstanding", 4);
  st::model::DmaStreamTokens tokens;
  tokens.paddedTokenBits = get("PaddedTokenBits", 32);
  tokens.tokenBits = get("TokenBits", 32);
  tokens.tokensPerRun = get("TokensPerRun", 16);
  if (top == "st_fifo") // a standalone FIFO keeps its high-water-mark output
    estimate = st::model::fifoResources(get("Width", 32), get("Depth", 16), true);
  else if (top == "st_fork")
    estimate = st::model::forkResources(get("N", 2), get("Width", 32));
  else if (top == "st_axi_lite_ctrl")
    estimate = st::model::axiLiteCtrlResources(get("NumArgs", 1), get("ArgIs64", 0));
  else if (top == "st_axi_read_dma")
    estimate = st::model::axiReadDmaResources(dma);
  else if (top == "st_axi_write_dma")
    estimate = st::model::axiWriteDmaResources(dma);
  else if (top == "st_read_dma_stream")
    estimate = st::model::readDmaStreamResources(dma, tokens);
  else if (top == "st_channel_claim")
    estimate = st::model::channelClaimResources(get("Channels", 2), get("MaxOutstanding", 4));
  else if (top == "st_write_dma_stream")
    estimate = st::model::writeDmaStreamResources(dma, tokens);
  else {
    std::printf("FAIL: no infrastructure resource model for %s\n", top.c_str());
    return 1;
  }
  return st::tb::compareSynthWithEstimate(argv[1], estimate, 1.25);
}
