// DesignCheck: reads the manifests of a design directory written by `streamtensor compile` and
// checks, before `streamtensor sim` builds anything, that the directory holds everything the run
// needs and that its parts agree (issue 19): design.json, tb/llm_run.json and hbm/manifest.json
// of an LLM design name the same top, precision, context and buffer addresses; every HBM channel
// file the manifest lists is there at its full size; every RTL file of rtl/filelist.f and every
// $readmemh table the RTL names exists; a graph design's tb/design.json buffers have their data
// files at their sizes. The first problem found is one st::Error naming the file, the field and
// what was expected.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace st::cli {

/// One kernel argument of an LLM design (design.json "args").
struct LlmDesignArg {
  std::string name;
  int64_t offset = 0;
  bool pointer = false;
  std::string buffer;   ///< the HBM buffer a pointer argument addresses (empty: none)
  int64_t address = -1; ///< its image address (-1: none)
};

/// design.json of an LLM design (format streamtensor-llm-design-1).
struct LlmDesignManifest {
  std::string top;
  std::string modelDir;
  std::string precision;
  int64_t maxContext = 0;
  std::optional<int64_t> vocabSize; ///< absent in designs compiled before the field existed
  /// One-pass attention's tile (the golden model's attentionTiled); 0: two passes (and absent
  /// in designs compiled before the field existed).
  int64_t attentionTilePositions = 0;
  std::vector<LlmDesignArg> args;
};

/// Parses design.json text; `file` names it in errors. Every field is checked for presence and
/// type, sizes for range.
LlmDesignManifest parseLlmDesignManifest(const std::string &text, const std::string &file);
/// Reads `path` and parses it.
LlmDesignManifest readLlmDesignManifest(const std::filesystem::path &path);

/// One buffer of a graph design's tb/design.json.
struct GraphDesignBuffer {
  std::string name;
  std::string role; ///< input, output or scratch
  int64_t bytes = 0;
  std::string file; ///< relative to the manifest's directory (empty: none)
};

/// tb/design.json (or search/tb/design.json) of a graph design.
struct GraphDesignManifest {
  std::string top;
  std::vector<GraphDesignBuffer> buffers;
};

/// Parses a graph design manifest; `file` names it in errors.
GraphDesignManifest parseGraphDesignManifest(const std::string &text, const std::string &file);

/// Checks an LLM design directory (see the file comment); returns its design.json.
LlmDesignManifest checkLlmDesignDirectory(const std::filesystem::path &dir);

/// Checks a graph design directory: the testbench in tb/ (search/tb/ with `fifoSearch`), its
/// data files and the RTL; returns the manifest.
GraphDesignManifest checkGraphDesignDirectory(const std::filesystem::path &dir, bool fifoSearch);

} // namespace st::cli
