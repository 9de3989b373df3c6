// HBM image files and manifest (see hbm_image.h, docs/hbm-image.md).
#include "gen/hbm_image.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <numeric>
#include <set>

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include "model/kernel_templates.h"
#include "model/llm_kernel_params.h"
#include "model/weight_stream.h"
#include "numerics/embedding.h"
#include "numerics/table_export.h"
#include "support/bulk_file.h"
#include "support/error.h"
#include "support/parallel.h"

namespace st::gen {

namespace {
std::string ropeFileName(const std::string &stage, const std::string &op) {
  return "rope_" + stage + "_" + op + ".mem";
}
} // namespace

std::string hbmManifestJson(const plan::HbmImagePlan &plan) {
  nlohmann::ordered_json j;
  j["format"] = "streamtensor-hbm-image-1";
  j["architecture"] = plan.architecture;
  j["precision"] = plan.precision;
  j["max_context"] = plan.maxContext;
  j["pseudo_channels"] = plan.device.pseudoChannels;
  j["pseudo_channel_bytes"] = plan.device.pseudoChannelBytes;
  j["files"] = nlohmann::json::array();
  for (int64_t c = 0; c < plan.device.pseudoChannels; ++c)
    if (plan.channelBytes[static_cast<size_t>(c)] > 0) {
      char name[32];
      std::snprintf(name, sizeof name, "hbm_pc%02lld.bin", static_cast<long long>(c));
      j["files"].push_back(
          {{"channel", c}, {"path", name}, {"bytes", plan.channelBytes[static_cast<size_t>(c)]}});
    }
  j["buffers"] = nlohmann::json::array();
  for (const plan::HbmBuffer &b : plan.buffers) {
    nlohmann::ordered_json e;
    e["name"] = b.name;
    e["kind"] = b.kind;
    e["stage"] = b.stage;
    e["op"] = b.op;
    e["channels"] = b.channels;
    e["offset"] = b.address - b.channels.front() * plan.device.pseudoChannelBytes;
    e["address"] = b.address;
    e["bytes"] = b.bytes();
    e["layers"] = b.layers;
    e["layer_bytes"] = b.layerBytes;
    e["layer_stride"] = b.layerStride;
    if (b.rowBytes > 0)
      e["row_bytes"] = b.rowBytes;
    if (b.ringSteps > 0)
      e["ring_steps"] = b.ringSteps;
    if (b.paddedCodes > 0)
      e["padded_codes"] = b.paddedCodes;
    if (b.kvSlices > 1) {
      e["kv_slice"] = b.kvSlice;
      e["kv_slices"] = b.kvSlices;
      e["kv_part_codes"] = b.kvPartCodes;
      if (b.kvBlocks > 1)
        e["kv_blocks"] = b.kvBlocks;
      if (b.kvBlockChannels > 1)
        e["kv_block_channels"] = b.kvBlockChannels;
      if (b.kvPositionSlices > 1)
        e["kv_position_slices"] = b.kvPositionSlices;
    }
    e["format"] = b.format;
    if (b.kind == "linear_weights") {
      const model::LinearParams &p = b.linearParams;
      e["linear_params"] = nlohmann::json::object();
      for (const auto &t : model::linearTemplate().params())
        e["linear_params"][t.name] = t.get(p);
    }
    j["buffers"].push_back(e);
  }
  j["rope_tables"] = nlohmann::json::array();
  for (const plan::RopeOpTables &r : plan.ropeTables)
    j["rope_tables"].push_back({{"op", r.stage + "/" + r.op},
                                {"file", ropeFileName(r.stage, r.op)},
                                {"bases", r.bases},
                                {"run_table", r.runTable}});
  return j.dump(1);
}

plan::HbmImagePlan readHbmManifest(const std::string &path) {
  std::ifstream in(path);
  if (!in)
    throw Error(path, "file", "a readable HBM manifest (manifest.json)");
  nlohmann::json j;
  try {
    // The whole file is one JSON value (`in >> j` would stop after the first and accept junk).
    j = nlohmann::json::parse(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  } catch (const nlohmann::json::exception &e) {
    throw Error(path, "file", std::string("valid JSON (") + e.what() + ")");
  }
  auto field = [&](const nlohmann::json &object, const std::string &key,
                   const std::string &where) -> const nlohmann::json & {
    if (!object.is_object() || !object.contains(key))
      throw Error(path, where + key, "a value");
    return object[key];
  };
  auto integer = [&](const nlohmann::json &object, const std::string &key,
                     const std::string &where) {
    const nlohmann::json &v = field(object, key, where);
    if (!v.is_number_integer())
      throw Error(path, where + key, "an integer, got " + v.dump());
    return v.get<int64_t>();
  };
  auto text = [&](const nlohmann::json &object, const std::string &key, const std::string &where) {
    const nlohmann::json &v = field(object, key, where);
    if (!v.is_string())
      throw Error(path, where + key, "a string, got " + v.dump());
    return v.get<std::string>();
  };
  if (!j.is_object() || !j.contains("format") || j["format"] != "streamtensor-hbm-image-1")
    throw Error(path, "format", "\"streamtensor-hbm-image-1\"");
  plan::HbmImagePlan plan;
  plan.architecture = text(j, "architecture", "");
  plan.precision = text(j, "precision", "");
  plan.maxContext = integer(j, "max_context", "");
  plan.device.pseudoChannels = integer(j, "pseudo_channels", "");
  plan.device.pseudoChannelBytes = integer(j, "pseudo_channel_bytes", "");
  if (plan.device.pseudoChannels < 1 || plan.device.pseudoChannelBytes < 1)
    throw Error(path, "pseudo_channels", "a positive channel count and size");
  plan.channelBytes.assign(static_cast<size_t>(plan.device.pseudoChannels), 0);
  const nlohmann::json &files = field(j, "files", "");
  if (!files.is_array())
    throw Error(path, "files", "an array");
  for (size_t i = 0; i < files.size(); ++i) {
    const std::string where = "files[" + std::to_string(i) + "].";
    const int64_t c = integer(files[i], "channel", where);
    if (c < 0 || c >= plan.device.pseudoChannels)
      throw Error(path, where + "channel",
                  "a channel in [0, " + std::to_string(plan.device.pseudoChannels) + ")");
    plan.channelBytes[static_cast<size_t>(c)] = integer(files[i], "bytes", where);
  }
  const nlohmann::json &buffers = field(j, "buffers", "");
  if (!buffers.is_array())
    throw Error(path, "buffers", "an array");
  for (size_t i = 0; i < buffers.size(); ++i) {
    const nlohmann::json &e = buffers[i];
    const std::string where = "buffers[" + std::to_string(i) + "].";
    plan::HbmBuffer b;
    b.name = text(e, "name", where);
    b.kind = text(e, "kind", where);
    b.stage = text(e, "stage", where);
    b.op = text(e, "op", where);
    b.format = e.contains("format") && e["format"].is_string() ? e["format"].get<std::string>()
                                                               : std::string();
    b.address = integer(e, "address", where);
    b.layers = integer(e, "layers", where);
    b.layerBytes = integer(e, "layer_bytes", where);
    b.layerStride = integer(e, "layer_stride", where);
    if (e.contains("row_bytes"))
      b.rowBytes = integer(e, "row_bytes", where);
    if (e.contains("ring_steps"))
      b.ringSteps = integer(e, "ring_steps", where);
    if (e.contains("padded_codes"))
      b.paddedCodes = integer(e, "padded_codes", where);
    if (e.contains("kv_slices")) {
      b.kvSlice = integer(e, "kv_slice", where);
      b.kvSlices = integer(e, "kv_slices", where);
      b.kvPartCodes = integer(e, "kv_part_codes", where);
      if (b.kvSlices < 2 || b.kvSlice < 0 || b.kvSlice >= b.kvSlices || b.kvPartCodes < 1 ||
          b.kvPartCodes > 64)
        throw Error(path, where + "kv_slices",
                    "a slice 0 .. kv_slices-1 of kv_slices >= 2, of 1 .. 64 codes per part");
      if (e.contains("kv_blocks")) {
        b.kvBlocks = integer(e, "kv_blocks", where);
        if (e.contains("kv_block_channels")) {
          // Its blocks on channels of their own: a layer is one block's region on each.
          b.kvBlockChannels = integer(e, "kv_block_channels", where);
          if (b.kvBlockChannels != b.kvBlocks)
            throw Error(path, where + "kv_block_channels",
                        "its kv_blocks (" + std::to_string(b.kvBlocks) + "), one channel a block");
          b.kvBlockStrideBytes = plan.device.pseudoChannelBytes;
        }
        if (b.kvBlocks < 2 || b.rowBytes % (b.kvBlocks * 64) != 0 ||
            (b.kvBlockChannels == 1 && b.layerBytes % b.kvBlocks != 0))
          throw Error(path, where + "kv_blocks",
                      "at least 2 kv-head blocks dividing its rows into whole bus words");
      }
      if (e.contains("kv_position_slices")) {
        b.kvPositionSlices = integer(e, "kv_position_slices", where);
        if (b.kvPositionSlices != b.kvSlices || b.kvBlocks < 2)
          throw Error(path, where + "kv_position_slices",
                      "its kv_slices, on a block-major cache (kv_blocks)");
      }
    }
    const nlohmann::json &channels = field(e, "channels", where);
    if (!channels.is_array() || channels.empty())
      throw Error(path, where + "channels", "a non-empty array of channel numbers");
    for (const nlohmann::json &c : channels) {
      if (!c.is_number_integer())
        throw Error(path, where + "channels", "channel numbers, got " + c.dump());
      b.channels.push_back(c.get<int64_t>());
    }
    if (b.kvBlockChannels > 1 && (static_cast<int64_t>(b.channels.size()) != b.kvBlockChannels ||
                                  b.channels.back() != b.channels.front() + b.kvBlockChannels - 1))
      throw Error(path, where + "channels",
                  std::to_string(b.kvBlockChannels) +
                      " consecutive channels, one per kv-head block");
    if (b.layers < 1 || b.layerBytes < 0 || b.layerStride < b.layerBytes || b.address < 0 ||
        b.bytes() != integer(e, "bytes", where))
      throw Error(path, where + "bytes",
                  "layer_stride * (layers - 1) + layer_bytes with layers >= 1 and layer_stride "
                  ">= layer_bytes");
    if (e.contains("linear_params")) {
      const nlohmann::json &p = e["linear_params"];
      const std::string w = where + "linear_params.";
      for (const auto &t : model::linearTemplate().params())
        t.set(b.linearParams, integer(p, t.name, w));
    }
    plan.buffers.push_back(std::move(b));
  }
  return plan;
}

void writeHbmImage(const plan::HbmImagePlan &plan, const std::string &directory) {
  namespace fs = std::filesystem;
  fs::create_directories(directory);
  const int64_t channelBytes = plan.device.pseudoChannelBytes;
  // Every used channel's file, created at its size (zero regions stay sparse holes), written
  // past the page cache where the filesystem allows (support/bulk_file.h).
  std::vector<std::unique_ptr<BulkFile>> files(static_cast<size_t>(plan.device.pseudoChannels));
  for (int64_t c = 0; c < plan.device.pseudoChannels; ++c) {
    if (plan.channelBytes[static_cast<size_t>(c)] <= 0)
      continue;
    char name[32];
    std::snprintf(name, sizeof name, "hbm_pc%02lld.bin", static_cast<long long>(c));
    files[static_cast<size_t>(c)] = std::make_unique<BulkFile>(
        directory + "/" + name, plan.channelBytes[static_cast<size_t>(c)]);
  }
  // One task per layer of every buffer with contents, largest first, spread over the cores:
  // each builds its layer's bytes and writes them with one pwrite per channel it touches, so
  // memory stays a layer's bytes per thread.
  struct LayerTask {
    const plan::HbmBuffer *buffer;
    int64_t layer;
    std::exception_ptr error;
  };
  std::vector<LayerTask> tasks;
  for (const plan::HbmBuffer &b : plan.buffers)
    if (b.contents) // else zero-filled (sparse)
      for (int64_t layer = 0; layer < b.layers; ++layer)
        tasks.push_back({&b, layer, nullptr});
  std::vector<size_t> largestFirst(tasks.size());
  std::iota(largestFirst.begin(), largestFirst.end(), 0);
  std::stable_sort(largestFirst.begin(), largestFirst.end(), [&](size_t x, size_t y) {
    return tasks[x].buffer->layerBytes > tasks[y].buffer->layerBytes;
  });
  parallelFor(tasks.size(), [&](size_t i) {
    LayerTask &task = tasks[largestFirst[i]];
    const plan::HbmBuffer &b = *task.buffer;
    try {
      const std::vector<uint8_t> bytes = b.contents(task.layer);
      if (static_cast<int64_t>(bytes.size()) != b.layerBytes)
        throw Error("hbm image", "buffer '" + b.name + "' layer " + std::to_string(task.layer),
                    std::to_string(b.layerBytes) + " bytes, got " + std::to_string(bytes.size()));
      int64_t address = b.address + task.layer * b.layerStride;
      size_t done = 0;
      while (done < bytes.size()) {
        const int64_t c = address / channelBytes, offset = address % channelBytes;
        const size_t n = std::min(bytes.size() - done, static_cast<size_t>(channelBytes - offset));
        BulkFile *file =
            c < plan.device.pseudoChannels ? files[static_cast<size_t>(c)].get() : nullptr;
        if (!file)
          throw Error(directory, "channel " + std::to_string(c), "a channel with a file");
        file->write(offset, bytes.data() + done, n);
        done += n;
        address += static_cast<int64_t>(n);
      }
    } catch (...) {
      task.error = std::current_exception();
    }
  });
  for (const LayerTask &task : tasks)
    if (task.error)
      std::rethrow_exception(task.error);
  for (std::unique_ptr<BulkFile> &file : files)
    if (file)
      file->close();
  for (const plan::RopeOpTables &r : plan.ropeTables)
    numerics::writeRopePhaseFile(r.tables, directory + "/" + ropeFileName(r.stage, r.op));
  std::ofstream out(directory + "/manifest.json");
  out << hbmManifestJson(plan) << "\n";
  if (!out)
    throw Error(directory + "/manifest.json", "file", "a writable manifest");
}

} // namespace st::gen
