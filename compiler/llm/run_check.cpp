// Run check: the first difference between the design's HBM after a run and the golden trace
// (see run_check.h).
#include "llm/run_check.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "support/error.h"

namespace st::llm {

namespace {

/// Packs `codes` little endian at `bits` (8, 16 or 32) bits each into `row` from byte 0.
void packCodes(const std::vector<int32_t> &codes, unsigned bits, std::vector<uint8_t> &row) {
  const size_t bytes = bits / 8;
  for (size_t i = 0; i < codes.size(); ++i)
    for (size_t b = 0; b < bytes; ++b)
      row[i * bytes + b] = static_cast<uint8_t>(static_cast<uint32_t>(codes[i]) >> (8 * b));
}

/// Element `index` of `row` at `bytes` bytes each, little endian, sign-extended when `isSigned`.
int64_t elementOf(const std::vector<uint8_t> &row, size_t index, size_t bytes, bool isSigned) {
  uint64_t v = 0;
  for (size_t b = 0; b < bytes; ++b)
    v |= static_cast<uint64_t>(row[index * bytes + b]) << (8 * b);
  if (isSigned && bytes < 8) {
    const unsigned shift = static_cast<unsigned>(64 - 8 * bytes);
    return static_cast<int64_t>(v << shift) >> shift;
  }
  return static_cast<int64_t>(v);
}

/// The expected bytes of the region's row of position `row` of `layer` (zero beyond the run).
std::vector<uint8_t> kvRow(const KvRegion &r, const GoldenTrace &trace, int64_t row,
                           int64_t layer) {
  std::vector<uint8_t> bytes(r.rowBytes, 0);
  if (row >= trace.numSteps())
    return bytes;
  const std::vector<int32_t> &codes =
      trace.steps[static_cast<size_t>(row)].at(r.stage, layer, r.appendOp);
  if (static_cast<int64_t>(codes.size()) != r.width)
    throw Error("run check", r.name,
                "rows of " + std::to_string(r.width) + " codes in the golden trace, got " +
                    std::to_string(codes.size()) + " from " + r.stage + "/" + r.appendOp);
  if (r.slices < 2) {
    packCodes(codes, 8, bytes);
    return bytes;
  }
  // A slice of a striped row: chunk c's part in bus word c (of its block's region).
  std::vector<uint8_t> whole(static_cast<size_t>(r.width), 0);
  packCodes(codes, 8, whole);
  if (r.positionSlices > 1) {
    // Positions striped: the region's row is its block's kv head, one bus word.
    std::copy_n(whole.begin() + r.block * r.partCodes, r.partCodes, bytes.begin());
    return bytes;
  }
  const int64_t chunks = r.width / (r.slices * r.partCodes) / r.blocks;
  for (int64_t c = 0; c < chunks; ++c)
    std::copy_n(whole.begin() + ((r.block * chunks + c) * r.slices + r.slice) * r.partCodes,
                r.partCodes, bytes.begin() + c * kTokenRowBytes);
  return bytes;
}

std::vector<uint8_t> tapRow(const TapRegion &r, const GoldenTrace &trace, int64_t step,
                            int64_t run) {
  std::vector<uint8_t> bytes(r.rowBytes, 0);
  const std::vector<int32_t> &codes = trace.steps[static_cast<size_t>(step)].at(r.stage, run, r.op);
  if (static_cast<int64_t>(codes.size()) != r.length)
    throw Error("run check", r.name,
                std::to_string(r.length) + " codes per row in the golden trace, got " +
                    std::to_string(codes.size()));
  if (r.paddedLength <= r.length) {
    packCodes(codes, r.bits, bytes);
    return bytes;
  }
  // Padding rows of an engine call saturate to the most negative code.
  std::vector<int32_t> padded = codes;
  padded.resize(static_cast<size_t>(r.paddedLength),
                static_cast<int32_t>(-(int64_t(1) << (r.bits - 1))));
  packCodes(padded, r.bits, bytes);
  return bytes;
}

std::vector<uint8_t> tokenBytes(int64_t id) {
  std::vector<uint8_t> bytes(4, 0);
  packCodes({static_cast<int32_t>(id)}, 32, bytes);
  return bytes;
}

/// The region's name in messages: its buffer's, and its kv-head block of a block-major slice.
std::string kvRegionLabel(const KvRegion &r) {
  return r.blocks > 1 ? r.name + " block " + std::to_string(r.block) : r.name;
}

/// The address of region row i (not position: KvRegion::positionOf) of `layer`.
uint64_t kvRegionRowAddress(const KvRegion &r, int64_t i, int64_t layer) {
  return r.address + static_cast<uint64_t>(layer) * r.layerStride +
         static_cast<uint64_t>(i) * r.rowBytes;
}

/// The address of position `row`'s row of `layer` (a position the region holds).
uint64_t kvRowAddress(const KvRegion &r, int64_t row, int64_t layer) {
  return kvRegionRowAddress(r, r.positionSlices > 1 ? row / r.positionSlices : row, layer);
}

uint64_t tapRowAddress(const TapRegion &r, int64_t step, int64_t run) {
  return r.address + static_cast<uint64_t>((step % r.maxSteps) * r.rowsPerStep + run) * r.rowBytes;
}

/// Does the tap still hold step t's rows after a run of `steps` steps (a ring holds the last)?
bool tapHolds(const TapRegion &r, int64_t t, int64_t steps) {
  return t >= steps - r.maxSteps;
}

void checkFits(const GoldenTrace &trace, const RunLayout &layout) {
  if (trace.numSteps() > layout.maxContext)
    throw Error("run check", "steps",
                "at most the layout's max context " + std::to_string(layout.maxContext) + ", got " +
                    std::to_string(trace.numSteps()));
  if (static_cast<int64_t>(trace.generated.size()) > layout.tokensCapacity)
    throw Error("run check", "tokens",
                "at most " + std::to_string(layout.tokensCapacity) + " generated ids, got " +
                    std::to_string(trace.generated.size()));
  for (const TapRegion &tap : layout.taps)
    if (!tap.ring && trace.numSteps() > tap.maxSteps)
      throw Error("run check", tap.name,
                  "rows for " + std::to_string(trace.numSteps()) + " steps, it has " +
                      std::to_string(tap.maxSteps));
}

/// Compares one row; on a difference fills `m` (index, expected, actual, address) and returns
/// true.
bool differs(const std::vector<uint8_t> &expected, const HbmReader &memory, uint64_t address,
             size_t elementBytes, bool isSigned, RunMismatch &m) {
  const std::vector<uint8_t> actual = memory(address, expected.size());
  if (actual.size() != expected.size())
    throw Error("run check", "HBM read at " + std::to_string(address),
                std::to_string(expected.size()) + " bytes, got " + std::to_string(actual.size()));
  if (actual == expected)
    return false;
  size_t byte = 0;
  while (expected[byte] == actual[byte])
    ++byte;
  const size_t index = byte / elementBytes;
  m.index = static_cast<int64_t>(index);
  m.expected = elementOf(expected, index, elementBytes, isSigned);
  m.actual = elementOf(actual, index, elementBytes, isSigned);
  m.address = address + index * elementBytes;
  return true;
}

} // namespace

std::string RunMismatch::toString() const {
  std::ostringstream s;
  s << tensor << " step " << step;
  if (layer >= 0)
    s << " layer " << layer;
  s << (tensor == "tokens" ? " generated id " : " element ") << index << " (HBM 0x" << std::hex
    << address << std::dec << "): expected " << expected << ", got " << actual;
  if (beyondRun)
    s << " (a KV row beyond the run's steps must stay zero)";
  return s.str();
}

std::optional<RunMismatch> firstMismatch(const GoldenTrace &trace, const RunLayout &layout,
                                         const HbmReader &memory, int64_t firstStep) {
  checkFits(trace, layout);
  if (firstStep < 0 || firstStep >= trace.numSteps())
    throw Error("run check", "first step " + std::to_string(firstStep),
                "a step of the trace (0 .. " + std::to_string(trace.numSteps() - 1) + ")");
  // The run's k-th generated id: the argmax of step firstToken + k.
  const int64_t firstToken = std::max(trace.stepOfToken(0), firstStep);
  RunMismatch m;
  for (int64_t t = 0; t < trace.numSteps(); ++t) {
    for (const RunLayout::StageRuns &stageRuns : layout.stages) {
      const std::string &stage = stageRuns.name;
      for (int64_t run = 0; run < stageRuns.runs; ++run) {
        for (const KvRegion &r : layout.kv)
          if (r.stage == stage && run < r.layers && r.holds(t) &&
              differs(kvRow(r, trace, t, run), memory, kvRowAddress(r, t, run), 1, true, m)) {
            m.tensor = kvRegionLabel(r);
            m.step = t;
            m.layer = run;
            return m;
          }
        for (const TapRegion &tap : layout.taps)
          if (t >= firstStep && tap.stage == stage && run < tap.rowsPerStep &&
              tapHolds(tap, t, trace.numSteps()) &&
              differs(tapRow(tap, trace, t, run), memory, tapRowAddress(tap, t, run), tap.bits / 8,
                      true, m)) {
            m.tensor = tap.stage + "/" + tap.op;
            m.step = t;
            m.layer = tap.perLayer() ? run : -1;
            return m;
          }
      }
    }
    const int64_t k = t - firstToken;
    if (k >= 0 &&
        differs(tokenBytes(trace.generated[static_cast<size_t>(t - trace.stepOfToken(0))]), memory,
                layout.tokensAddress + layout.tokensStride * static_cast<uint64_t>(k), 4, false,
                m)) {
      m.tensor = "tokens";
      m.step = t;
      m.layer = -1;
      m.index = k;
      return m;
    }
  }
  for (int64_t row = trace.numSteps(); row < layout.maxContext; ++row)
    for (const RunLayout::StageRuns &stageRuns : layout.stages)
      for (int64_t l = 0; l < stageRuns.runs; ++l)
        for (const KvRegion &r : layout.kv)
          if (r.stage == stageRuns.name && l < r.layers && r.holds(row) &&
              row < r.positionOf(r.rows - 1) + 1 &&
              differs(kvRow(r, trace, row, l), memory, kvRowAddress(r, row, l), 1, true, m)) {
            m.tensor = kvRegionLabel(r);
            m.step = row;
            m.layer = l;
            m.beyondRun = true;
            return m;
          }
  return std::nullopt;
}

std::vector<CheckedRegion> checkedRegions(const RunLayout &layout, const GoldenTrace &trace) {
  checkFits(trace, layout);
  std::vector<CheckedRegion> regions;
  CheckedRegion tokens{"run/tokens", layout.tokensAddress, {}};
  for (int64_t id : trace.generated) {
    std::vector<uint8_t> b = tokenBytes(id);
    b.resize(layout.tokensStride, 0);
    tokens.bytes.insert(tokens.bytes.end(), b.begin(), b.end());
  }
  regions.push_back(std::move(tokens));
  for (const KvRegion &r : layout.kv)
    for (int64_t l = 0; l < r.layers; ++l) {
      CheckedRegion c{
          kvRegionLabel(r) + " layer " + std::to_string(l), kvRegionRowAddress(r, 0, l), {}};
      for (int64_t i = 0; i < r.rows; ++i) {
        const std::vector<uint8_t> b = kvRow(r, trace, r.positionOf(i), l);
        c.bytes.insert(c.bytes.end(), b.begin(), b.end());
      }
      regions.push_back(std::move(c));
    }
  for (const TapRegion &tap : layout.taps) {
    // Row slot i of a ring holds the last step t = i (mod maxSteps) of the run.
    CheckedRegion c{tap.name, tap.address, {}};
    const int64_t steps = trace.numSteps(), slots = std::min(steps, tap.maxSteps);
    for (int64_t i = 0; i < slots; ++i) {
      const int64_t t =
          steps > tap.maxSteps
              ? steps - tap.maxSteps + ((i - steps) % tap.maxSteps + tap.maxSteps) % tap.maxSteps
              : i;
      for (int64_t run = 0; run < tap.rowsPerStep; ++run) {
        const std::vector<uint8_t> b = tapRow(tap, trace, t, run);
        c.bytes.insert(c.bytes.end(), b.begin(), b.end());
      }
    }
    regions.push_back(std::move(c));
  }
  return regions;
}

std::vector<CheckedRegion> kvPrefillRegions(const RunLayout &layout, const GoldenTrace &trace,
                                            int64_t firstStep) {
  checkFits(trace, layout);
  if (firstStep < 0 || firstStep > trace.numSteps())
    throw Error("kv prefill", "position " + std::to_string(firstStep),
                "at most the golden run's " + std::to_string(trace.numSteps()) + " steps");
  std::vector<CheckedRegion> regions;
  if (firstStep == 0)
    return regions;
  for (const KvRegion &r : layout.kv)
    for (int64_t l = 0; l < r.layers; ++l) {
      CheckedRegion c{
          kvRegionLabel(r) + " layer " + std::to_string(l), kvRegionRowAddress(r, 0, l), {}};
      for (int64_t i = 0; i < r.rows && r.positionOf(i) < firstStep; ++i) {
        const std::vector<uint8_t> b = kvRow(r, trace, r.positionOf(i), l);
        c.bytes.insert(c.bytes.end(), b.begin(), b.end());
      }
      if (!c.bytes.empty())
        regions.push_back(std::move(c));
    }
  return regions;
}

void writeRegions(const std::vector<CheckedRegion> &regions, const std::string &directory) {
  namespace fs = std::filesystem;
  fs::create_directories(directory);
  nlohmann::ordered_json j;
  j["format"] = "streamtensor-run-regions-1";
  j["regions"] = nlohmann::json::array();
  for (size_t i = 0; i < regions.size(); ++i) {
    char file[32];
    std::snprintf(file, sizeof file, "region_%03zu.bin", i);
    std::ofstream out(directory + "/" + file, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char *>(regions[i].bytes.data()),
              static_cast<std::streamsize>(regions[i].bytes.size()));
    if (!out)
      throw Error(directory + "/" + file, "file", "a writable region file");
    j["regions"].push_back({{"name", regions[i].name},
                            {"address", regions[i].address},
                            {"bytes", regions[i].bytes.size()},
                            {"file", file}});
  }
  std::ofstream out(directory + "/regions.json");
  out << j.dump(1) << "\n";
  if (!out)
    throw Error(directory + "/regions.json", "file", "a writable region index");
}

void writeExpectedRegions(const RunLayout &layout, const GoldenTrace &trace,
                          const std::string &directory) {
  writeRegions(checkedRegions(layout, trace), directory);
}

std::vector<CheckedRegion> readRegions(const std::string &directory) {
  const std::string index = directory + "/regions.json";
  std::ifstream in(index);
  if (!in)
    throw Error(index, "file", "a readable region index (regions.json)");
  nlohmann::json j;
  try {
    in >> j;
  } catch (const nlohmann::json::exception &e) {
    throw Error(index, "file", std::string("valid JSON (") + e.what() + ")");
  }
  if (j.value("format", "") != "streamtensor-run-regions-1")
    throw Error(index, "format", "\"streamtensor-run-regions-1\"");
  if (!j.contains("regions") || !j["regions"].is_array())
    throw Error(index, "regions", "an array");
  std::vector<CheckedRegion> regions;
  for (size_t i = 0; i < j["regions"].size(); ++i) {
    const nlohmann::json &r = j["regions"][i];
    const std::string field = "regions[" + std::to_string(i) + "]";
    if (!r.is_object() || !r.contains("name") || !r["name"].is_string() || !r.contains("address") ||
        !r["address"].is_number_unsigned() || !r.contains("bytes") ||
        !r["bytes"].is_number_unsigned() || !r.contains("file") || !r["file"].is_string())
      throw Error(index, field, "an object with name, address, bytes and file");
    CheckedRegion c{r["name"], r["address"].get<uint64_t>(), {}};
    const std::string file = directory + "/" + r["file"].get<std::string>();
    const uint64_t bytes = r["bytes"].get<uint64_t>();
    std::ifstream data(file, std::ios::binary);
    if (!data)
      throw Error(index, field + ".file", "a readable file, got '" + file + "'");
    c.bytes.resize(bytes);
    data.read(reinterpret_cast<char *>(c.bytes.data()), static_cast<std::streamsize>(bytes));
    if (static_cast<uint64_t>(data.gcount()) != bytes)
      throw Error(file, "size", std::to_string(bytes) + " bytes (" + field + ".bytes)");
    regions.push_back(std::move(c));
  }
  return regions;
}

std::optional<RunMismatch> checkRunDump(const GoldenTrace &trace, const RunLayout &layout,
                                        const std::string &dumpDirectory) {
  const RegionMemory memory(readRegions(dumpDirectory));
  return firstMismatch(trace, layout, memory.reader());
}

RegionMemory::RegionMemory(const std::vector<CheckedRegion> &regions) {
  for (const CheckedRegion &r : regions)
    write(r.address, r.bytes);
}

void RegionMemory::write(uint64_t address, const std::vector<uint8_t> &bytes) {
  chunks_.emplace_back(address, bytes);
}

std::vector<uint8_t> RegionMemory::read(uint64_t address, uint64_t bytes) const {
  std::vector<uint8_t> out(bytes, 0);
  for (const auto &[start, data] : chunks_) {
    const uint64_t end = start + data.size();
    const uint64_t from = std::max(start, address), to = std::min(end, address + bytes);
    for (uint64_t a = from; a < to; ++a)
      out[a - address] = data[a - start];
  }
  return out;
}

HbmReader RegionMemory::reader() const {
  return [this](uint64_t address, uint64_t bytes) { return read(address, bytes); };
}

} // namespace st::llm
