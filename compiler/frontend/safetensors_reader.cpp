// safetensors reader (see safetensors_reader.h). Format: an 8-byte little-endian header length N,
// N bytes of JSON {name: {dtype, shape, data_offsets: [begin, end]}, "__metadata__": {...}},
// then the data section; offsets are relative to the data section's start.
#include "frontend/safetensors_reader.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "support/error.h"

namespace st::frontend {

namespace fs = std::filesystem;
using nlohmann::json;

float halfToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exponent = (h >> 10) & 0x1fu;
  uint32_t mantissa = h & 0x3ffu;
  uint32_t bits;
  if (exponent == 0) {
    if (mantissa == 0) {
      bits = sign;
    } else { // subnormal: normalize
      exponent = 127 - 15 + 1;
      while (!(mantissa & 0x400u)) {
        mantissa <<= 1;
        --exponent;
      }
      bits = sign | (exponent << 23) | ((mantissa & 0x3ffu) << 13);
    }
  } else if (exponent == 0x1f) {
    bits = sign | 0x7f800000u | (mantissa << 13);
  } else {
    bits = sign | ((exponent + 127 - 15) << 23) | (mantissa << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

float bfloat16ToFloat(uint16_t h) {
  const uint32_t bits = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

namespace {

std::vector<char> readWholeFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw Error(path, "file", "a readable file (cannot open it)");
  return std::vector<char>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

} // namespace

void readSafetensorsFile(const std::string &path, WeightStore &store) {
  const std::vector<char> bytes = readWholeFile(path);
  if (bytes.size() < 8)
    throw Error(path, "header length",
                "8 bytes of header length, got a file of " + std::to_string(bytes.size()) +
                    " bytes (truncated)");
  uint64_t headerLength = 0;
  for (int i = 7; i >= 0; --i)
    headerLength = (headerLength << 8) | static_cast<unsigned char>(bytes[i]);
  if (headerLength > bytes.size() - 8)
    throw Error(path, "header length",
                "at most the " + std::to_string(bytes.size() - 8) + " bytes after it, got " +
                    std::to_string(headerLength) + " (truncated file)");
  json header;
  try {
    header = json::parse(bytes.begin() + 8, bytes.begin() + 8 + static_cast<long>(headerLength));
  } catch (const json::exception &e) {
    throw Error(path, "header", std::string("valid JSON (") + e.what() + ")");
  }
  if (!header.is_object())
    throw Error(path, "header", "a JSON object of tensors");
  const size_t dataStart = 8 + headerLength;
  const uint64_t dataSize = bytes.size() - dataStart;
  for (const auto &[name, entry] : header.items()) {
    if (name == "__metadata__")
      continue;
    const std::string field = "tensor '" + name + "'";
    if (!entry.is_object() || !entry.contains("dtype") || !entry.contains("shape") ||
        !entry.contains("data_offsets"))
      throw Error(path, field, "an object with dtype, shape and data_offsets");
    const json &dtypeJson = entry["dtype"], &shapeJson = entry["shape"],
               &offsetsJson = entry["data_offsets"];
    if (!dtypeJson.is_string())
      throw Error(path, field + " dtype", "a string");
    const std::string dtype = dtypeJson.get<std::string>();
    size_t elementSize;
    if (dtype == "F32")
      elementSize = 4;
    else if (dtype == "F16" || dtype == "BF16")
      elementSize = 2;
    else
      throw Error(path, field + " dtype", "F32, F16 or BF16, got " + dtype);
    WeightTensor t;
    t.file = path;
    if (!shapeJson.is_array())
      throw Error(path, field + " shape", "an array of non-negative integers");
    for (const auto &d : shapeJson) {
      if (!d.is_number_unsigned())
        throw Error(path, field + " shape", "an array of non-negative integers");
      t.shape.push_back(d.get<int64_t>());
    }
    if (!offsetsJson.is_array() || offsetsJson.size() != 2 ||
        !offsetsJson[0].is_number_unsigned() || !offsetsJson[1].is_number_unsigned())
      throw Error(path, field + " data_offsets", "[begin, end] with non-negative integers");
    const uint64_t begin = offsetsJson[0].get<uint64_t>(), end = offsetsJson[1].get<uint64_t>();
    const uint64_t n = static_cast<uint64_t>(t.numElements());
    if (end < begin || end - begin != n * elementSize)
      throw Error(path, field + " data_offsets",
                  std::to_string(n * elementSize) + " bytes for shape " + shapeToString(t.shape) +
                      " in " + dtype + ", got [" + std::to_string(begin) + ", " +
                      std::to_string(end) + "]");
    if (end > dataSize)
      throw Error(path, field + " data_offsets",
                  "an end within the " + std::to_string(dataSize) + " data bytes, got " +
                      std::to_string(end) + " (truncated file)");
    const unsigned char *src =
        reinterpret_cast<const unsigned char *>(bytes.data()) + dataStart + begin;
    t.data.resize(n);
    for (uint64_t i = 0; i < n; ++i) {
      if (elementSize == 4) {
        uint32_t bits = static_cast<uint32_t>(src[4 * i]) |
                        static_cast<uint32_t>(src[4 * i + 1]) << 8 |
                        static_cast<uint32_t>(src[4 * i + 2]) << 16 |
                        static_cast<uint32_t>(src[4 * i + 3]) << 24;
        std::memcpy(&t.data[i], &bits, 4);
      } else {
        const uint16_t bits = static_cast<uint16_t>(src[2 * i] | src[2 * i + 1] << 8);
        t.data[i] = dtype == "F16" ? halfToFloat(bits) : bfloat16ToFloat(bits);
      }
    }
    if (store.contains(name))
      throw Error(path, field, "a tensor name not already read from another file");
    store.add(name, std::move(t));
  }
}

WeightStore readModelWeights(const std::string &modelDir) {
  WeightStore store;
  const fs::path dir(modelDir);
  const fs::path single = dir / "model.safetensors";
  const fs::path index = dir / "model.safetensors.index.json";
  if (fs::exists(single)) {
    store.setSource(single.string());
    readSafetensorsFile(single.string(), store);
    return store;
  }
  if (!fs::exists(index))
    throw Error(modelDir, "weights",
                "model.safetensors or model.safetensors.index.json in the model directory");
  const std::string indexPath = index.string();
  store.setSource(indexPath);
  std::ifstream in(indexPath);
  json j;
  try {
    in >> j;
  } catch (const json::exception &e) {
    throw Error(indexPath, "index", std::string("valid JSON (") + e.what() + ")");
  }
  if (!j.is_object() || !j.contains("weight_map") || !j["weight_map"].is_object())
    throw Error(indexPath, "weight_map", "an object mapping tensor names to shard files");
  std::set<std::string> shards;
  for (const auto &[name, shard] : j["weight_map"].items()) {
    if (!shard.is_string())
      throw Error(indexPath, "weight_map '" + name + "'", "a shard file name");
    shards.insert(shard.get<std::string>());
  }
  for (const std::string &shard : shards) {
    const fs::path shardPath = dir / shard;
    if (!fs::exists(shardPath))
      throw Error(indexPath, "weight_map shard '" + shard + "'", "an existing file in " + modelDir);
    readSafetensorsFile(shardPath.string(), store);
  }
  for (const auto &[name, shard] : j["weight_map"].items()) {
    const std::string shardPath = (dir / shard.get<std::string>()).string();
    if (!store.contains(name))
      throw Error(shardPath, "tensor '" + name + "'",
                  "the tensor the index places in this shard (it is missing)");
    if (store.get(name).file != shardPath)
      throw Error(indexPath, "weight_map '" + name + "'",
                  "the shard holding the tensor, got " + shard.get<std::string>());
  }
  return store;
}

} // namespace st::frontend
