// Fuzz harness: the manifests of a design directory that `streamtensor sim` reads: an LLM
// design's design.json and a graph design's tb/design.json (cli/design_check.h), and the HBM
// image's manifest.json (gen/hbm_image.h readHbmManifest). Each input goes to all three.
#include <string>

#include "cli/design_check.h"
#include "fuzz_support.h"
#include "gen/hbm_image.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string text(reinterpret_cast<const char *>(data), size);
  st::fuzz::expectOnlyStError("fuzz_design_manifest",
                              [&] { st::cli::parseLlmDesignManifest(text, "design.json"); });
  st::fuzz::expectOnlyStError("fuzz_design_manifest",
                              [&] { st::cli::parseGraphDesignManifest(text, "tb/design.json"); });
  const std::string &path = st::fuzz::writeInputFile(data, size, "manifest.json");
  st::fuzz::expectOnlyStError("fuzz_design_manifest", [&] { st::gen::readHbmManifest(path); });
  return 0;
}
