// The accelerator options of a compiled design as JSON (see accelerator_options_json.h).
#include "llm/accelerator_options_json.h"

#include "frontend/quantized_model.h"
#include "support/error.h"

namespace st::llm {

nlohmann::json acceleratorOptionsJson(const AcceleratorOptions &o) {
  nlohmann::json j;
  j["precision"] = frontend::precisionName(o.precision);
  j["max_lanes"] = o.maxLanes;
  j["engine"] = toString(o.engine);
  j["engine_channels"] = o.engineChannels;
  j["engine_fifo_words"] = o.engineFifoWords;
  j["engine_packed_pairs"] = o.enginePackedPairs;
  j["max_context"] = o.maxContext;
  j["sizing_cache_length"] = o.sizingCacheLength;
  j["attention_kv_step"] = o.attentionKvStep;
  j["attention_head_split"] = o.attentionHeadSplit;
  j["attention_read_step"] = o.attentionReadStep;
  j["attention_block_major"] = o.attentionBlockMajor;
  j["attention_position_slices"] = o.attentionPositionSlices;
  j["attention_tile_positions"] = o.attentionTilePositions;
  j["debug_taps"] = o.debugTaps;
  j["forced_depths"] = o.forcedDepths;
  return j;
}

namespace {

/// Field `name` of the options object, which must be present and hold a T.
template <typename T>
T field(const nlohmann::json &j, const char *name, const std::string &file, const char *expected) {
  const std::string where = std::string("accelerator.") + name;
  if (!j.contains(name))
    throw Error(file, where, std::string(expected) + " (compile the design again)");
  try {
    return j.at(name).get<T>();
  } catch (const nlohmann::json::exception &) {
    throw Error(file, where, std::string(expected) + ", got " + j.at(name).dump());
  }
}

} // namespace

AcceleratorOptions acceleratorOptionsFromJson(const nlohmann::json &j, const std::string &file) {
  if (!j.is_object())
    throw Error(file, "accelerator", "the design's accelerator options (compile the design again)");
  const char *integer = "an integer";
  AcceleratorOptions o;
  o.precision = frontend::parsePrecision(field<std::string>(j, "precision", file, "a precision"),
                                         file + " accelerator.precision");
  o.maxLanes = field<int64_t>(j, "max_lanes", file, integer);
  o.engine = parseLinearEngine(field<std::string>(j, "engine", file, "\"per-op\" or \"gemv\""),
                               file + " accelerator.engine");
  o.engineChannels = field<int64_t>(j, "engine_channels", file, integer);
  o.engineFifoWords = field<int64_t>(j, "engine_fifo_words", file, integer);
  o.enginePackedPairs = field<int64_t>(j, "engine_packed_pairs", file, integer);
  o.maxContext = field<int64_t>(j, "max_context", file, integer);
  o.sizingCacheLength = field<int64_t>(j, "sizing_cache_length", file, integer);
  o.attentionKvStep = field<int64_t>(j, "attention_kv_step", file, integer);
  o.attentionHeadSplit = field<int64_t>(j, "attention_head_split", file, integer);
  o.attentionReadStep = field<int64_t>(j, "attention_read_step", file, integer);
  o.attentionBlockMajor = field<bool>(j, "attention_block_major", file, "true or false");
  o.attentionPositionSlices = field<int64_t>(j, "attention_position_slices", file, integer);
  o.attentionTilePositions = field<int64_t>(j, "attention_tile_positions", file, integer);
  o.debugTaps = field<bool>(j, "debug_taps", file, "true or false");
  o.forcedDepths = field<std::map<std::string, int64_t>>(j, "forced_depths", file,
                                                         "an object of stream name -> depth");
  return o;
}

} // namespace st::llm
