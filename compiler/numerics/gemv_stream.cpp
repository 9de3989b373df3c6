// The channel streams of st_gemv_engine (see gemv_stream.h and docs/gemv-engine.md).
#include "gemv_stream.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "support/error.h"
#include "support/int_math.h"

namespace st::numerics {

namespace {

const char *const kStreamWhere = "gemv stream";
const char *const kShapeWhere = "gemv engine";

constexpr int64_t kWordBytes = kGemvWordBits / 8;
constexpr int64_t kRecordBytes = 10; // 80 bits
constexpr int64_t kWordLimbs = kGemvWordBits / 32;

void require(bool ok, const char *where, const std::string &field, const std::string &expected) {
  if (!ok)
    throw Error(where, field, expected);
}

bool isPowerOfTwo(int64_t v) {
  return v > 0 && (v & (v - 1)) == 0;
}

std::string got(int64_t v) {
  return ", got " + std::to_string(v);
}

/// K and g against the shape (the rules of docs/gemv-engine.md's descriptor).
void checkKAndGroup(int64_t k, int64_t groupSize, const GemvEngineShape &s) {
  require(k > 0 && k % s.kLanes == 0 && k <= s.maxK, kStreamWhere, "K",
          "a positive multiple of KLanes = " + std::to_string(s.kLanes) +
              " up to MaxK = " + std::to_string(s.maxK) + got(k));
  if (groupSize == 0)
    return;
  require(groupSize > 0 && groupSize % s.segLanes == 0 &&
              (groupSize % s.kLanes == 0 || s.kLanes % groupSize == 0) && k % groupSize == 0,
          kStreamWhere, "group size",
          "0 or a multiple of SegLanes = " + std::to_string(s.segLanes) +
              " that is a multiple or a divisor of KLanes = " + std::to_string(s.kLanes) +
              " and divides K = " + std::to_string(k) + got(groupSize));
}

/// The layer, the shape and the invocation checked, and what the streams are built from.
struct Plan {
  GemvDescriptor d;
  int64_t channels = 0, words = 0; ///< G
  int64_t layerRows = 0;
  int64_t groups = 0;        ///< mantissas per row (grouped)
  int64_t wordsPerChunk = 0; ///< W words per S word (grouped)
  bool saturatePadding = false;
};

Plan plan(const QuantizedLinear &layer, const GemvEngineShape &s, const GemvInvocation &inv) {
  checkGemvEngineShape(s);
  Plan p;
  const int64_t k = int64_t(layer.cols), n = int64_t(layer.rows);
  require(n > 0, kStreamWhere, "rows", "at least one row" + got(n));
  require(layer.weightBits == unsigned(s.weightBits), kStreamWhere, "weightBits",
          "the engine's WBits = " + std::to_string(s.weightBits) + got(layer.weightBits));
  require(layer.activationBits >= 2 && layer.activationBits <= unsigned(s.activationBits),
          kStreamWhere, "activationBits",
          "at most the engine's ABits = " + std::to_string(s.activationBits) +
              got(layer.activationBits));
  require(layer.outputBits >= 2 && layer.outputBits <= unsigned(s.outputBits), kStreamWhere,
          "outputBits",
          "2 .. the engine's OutBits = " + std::to_string(s.outputBits) + got(layer.outputBits));
  require(layer.groupSize > 0 && layer.cols % layer.groupSize == 0, kStreamWhere, "groupSize",
          "a divisor of K = " + std::to_string(k) + got(int64_t(layer.groupSize)));
  const int64_t g = gemvStreamGroupSize(layer);
  checkKAndGroup(k, g, s);
  const size_t codeBytes = size_t(n * k * int64_t(layer.weightBits) / 8);
  require(layer.packedWeights.size() == codeBytes, kStreamWhere, "packedWeights",
          std::to_string(codeBytes) + " bytes" + got(int64_t(layer.packedWeights.size())));
  const size_t mantissas = layer.rows * layer.groupsPerRow();
  require(layer.groupScales.size() == mantissas, kStreamWhere, "groupScales",
          std::to_string(mantissas) + " mantissas" + got(int64_t(layer.groupScales.size())));
  if (g == 0)
    require(std::all_of(layer.groupScales.begin(), layer.groupScales.end(),
                        [](uint16_t m) { return m == 1; }),
            kStreamWhere, "groupScales", "every mantissa 1 in per-channel mode");
  require(layer.bias.empty() || layer.bias.size() == layer.rows, kStreamWhere, "bias",
          "none or " + std::to_string(n) + " values" + got(int64_t(layer.bias.size())));
  require(layer.outputScales.size() == layer.rows, kStreamWhere, "outputScales",
          std::to_string(n) + " multipliers" + got(int64_t(layer.outputScales.size())));
  // Per row: the messages are built only for a row that fails (plan runs once per channel).
  for (size_t r = 0; r < layer.rows; ++r) {
    const int64_t b = layer.bias.empty() ? 0 : layer.bias[r];
    if (b < -(int64_t(1) << 47) || b >= (int64_t(1) << 47))
      throw Error(kStreamWhere, "bias[" + std::to_string(r) + "]",
                  "a value that fits s48" + got(b));
    if (layer.outputScales[r].mantissa >= (uint32_t(1) << 24) || layer.outputScales[r].shift >= 64)
      throw Error(kStreamWhere, "outputScales[" + std::to_string(r) + "]",
                  "a u24 mantissa and a u6 shift");
  }
  require(inv.xPort >= 0 && inv.xPort < s.numX, kStreamWhere, "x port",
          "0 .. NumX - 1 = " + std::to_string(s.numX - 1) + got(inv.xPort));
  require(inv.yPort >= 0 && inv.yPort < s.numY, kStreamWhere, "y port",
          "0 .. NumY - 1 = " + std::to_string(s.numY - 1) + got(inv.yPort));
  if (inv.nextX) {
    require(inv.nextX->xPort >= 0 && inv.nextX->xPort < s.numX, kStreamWhere, "next x port",
            "0 .. NumX - 1 = " + std::to_string(s.numX - 1) + got(inv.nextX->xPort));
    require(inv.nextX->k > 0 && inv.nextX->k % s.kLanes == 0 && inv.nextX->k <= s.maxK,
            kStreamWhere, "next K",
            "a positive multiple of KLanes = " + std::to_string(s.kLanes) +
                " up to MaxK = " + std::to_string(s.maxK) + got(inv.nextX->k));
  }
  const int64_t delivered = inv.deliverPaddedRows ? ceilDiv(n, s.lanes) * s.lanes : n;
  require(delivered % s.lanes == 0, kStreamWhere, "rows",
          "a multiple of Lanes = " + std::to_string(s.lanes) + " (or deliverPaddedRows)" + got(n));

  p.d.k = k;
  p.d.blocks = ceilDiv(n, s.channels);
  p.d.rows = delivered;
  p.d.outputBits = layer.outputBits;
  p.d.groupSize = g;
  p.d.xPort = inv.xPort;
  p.d.reuseX = inv.reuseX;
  p.d.yPort = inv.yPort;
  p.d.nextX = inv.nextX;
  p.channels = s.channels;
  p.words = k / s.kLanes;
  p.layerRows = n;
  p.groups = g == 0 ? 0 : k / g;
  p.wordsPerChunk = g == 0 ? 0 : kGemvMantissasPerWord * g / s.kLanes;
  p.saturatePadding = inv.padding == GemvPaddingRecord::Saturate;
  return p;
}

/// The 80-bit record of a row as 10 bytes (bias, mantissa, shift; bits 78, 79 zero).
void recordBytes(const QuantizedLinear &layer, const Plan &p, int64_t row, uint8_t *out) {
  uint64_t bias = 0;
  uint32_t mantissa = 0;
  uint32_t shift = 0;
  if (row < p.layerRows) {
    bias = uint64_t(layer.bias.empty() ? 0 : layer.bias[size_t(row)]);
    mantissa = layer.outputScales[size_t(row)].mantissa;
    shift = layer.outputScales[size_t(row)].shift;
  } else if (p.saturatePadding) {
    bias = uint64_t(-(int64_t(1) << 47));
    mantissa = 1;
  }
  for (int i = 0; i < 6; ++i)
    out[i] = uint8_t(bias >> (8 * i));
  for (int i = 0; i < 3; ++i)
    out[6 + i] = uint8_t(mantissa >> (8 * i));
  out[9] = uint8_t(shift & 0x3f);
}

/// Whether channel-local W word w is preceded by an S word.
bool opensChunk(const Plan &p, int64_t w) {
  return p.d.groupSize != 0 && w % p.wordsPerChunk == 0;
}

} // namespace

void checkGemvEngineShape(const GemvEngineShape &s) {
  require(s.channels >= 1, kShapeWhere, "Channels", "at least 1" + got(s.channels));
  require(s.weightBits == 4 || s.weightBits == 8, kShapeWhere, "WBits",
          "4 or 8" + got(s.weightBits));
  require(s.activationBits == 8 || s.activationBits == 16, kShapeWhere, "ABits",
          "8 or 16" + got(s.activationBits));
  require(isPowerOfTwo(s.kLanes) && s.kLanes >= 2 && s.kLanes * s.weightBits <= kGemvWordBits,
          kShapeWhere, "KLanes", "a power of two >= 2 with KLanes * WBits <= 512" + got(s.kLanes));
  require(isPowerOfTwo(s.segLanes) && s.kLanes % s.segLanes == 0 &&
              s.kLanes / s.segLanes <= kGemvMantissasPerWord,
          kShapeWhere, "SegLanes",
          "a power of two dividing KLanes, at most 32 segments per word" + got(s.segLanes));
  require(s.lanes >= 1 && s.channels % s.lanes == 0 && s.kLanes % s.lanes == 0, kShapeWhere,
          "Lanes", "a divisor of Channels and KLanes" + got(s.lanes));
  require(s.maxK >= s.kLanes && s.maxK % s.kLanes == 0, kShapeWhere, "MaxK",
          "a positive multiple of KLanes" + got(s.maxK));
  require(s.outputBits >= 2 && s.outputBits <= 32, kShapeWhere, "OutBits",
          "2 .. 32" + got(s.outputBits));
  require(s.numX >= 1 && s.numX <= 256, kShapeWhere, "NumX", "1 .. 256" + got(s.numX));
  require(s.numY >= 1 && s.numY <= 256, kShapeWhere, "NumY", "1 .. 256" + got(s.numY));
  require(s.packedPairs >= 0 && s.packedPairs <= s.channels / 2 &&
              (s.packedPairs == 0 || gemvPairsPackable(s)),
          kShapeWhere, "PackedPairs",
          "0 .. Channels/2, and 0 unless WBits + SegBits + 1 <= 27 and ABits <= 18" +
              got(s.packedPairs));
}

bool gemvPairsPackable(const GemvEngineShape &s) {
  int64_t segBits = s.weightBits + s.activationBits;
  for (int64_t n = 1; n < s.segLanes; n *= 2)
    ++segBits;
  return s.weightBits + segBits + 1 <= 27 && s.activationBits <= 18;
}

int64_t gemvStreamGroupSize(const QuantizedLinear &layer) {
  return layer.perChannel() ? 0 : int64_t(layer.groupSize);
}

GemvDescriptor gemvDescriptorFor(const QuantizedLinear &layer, const GemvEngineShape &shape,
                                 const GemvInvocation &invocation) {
  return plan(layer, shape, invocation).d;
}

StreamWord gemvDescriptorWord(const GemvDescriptor &d) {
  StreamWord word(kWordLimbs, 0);
  placeBits(word, 0, 32, uint64_t(d.k));
  placeBits(word, 32, 32, uint64_t(d.blocks));
  placeBits(word, 64, 32, uint64_t(d.rows));
  placeBits(word, 96, 6, uint64_t(d.outputBits));
  placeBits(word, 104, 32, uint64_t(d.groupSize));
  placeBits(word, 136, 8, uint64_t(d.xPort));
  placeBits(word, 144, 1, d.reuseX ? 1 : 0);
  placeBits(word, 152, 8, uint64_t(d.yPort));
  if (d.nextX) {
    placeBits(word, 160, 1, 1);
    placeBits(word, 168, 8, uint64_t(d.nextX->xPort));
    placeBits(word, 176, 32, uint64_t(d.nextX->k));
  }
  return word;
}

int64_t gemvWordsPerChannel(int64_t k, int64_t n, int64_t groupSize, const GemvEngineShape &shape) {
  checkGemvEngineShape(shape);
  checkKAndGroup(k, groupSize, shape);
  require(n > 0, kStreamWhere, "rows", "at least one row" + got(n));
  const int64_t blocks = ceilDiv(n, shape.channels);
  const int64_t chunks =
      groupSize == 0 ? 0 : ceilDiv(blocks * (k / groupSize), kGemvMantissasPerWord);
  return 1 + ceilDiv(blocks, kGemvRecordsPerWord) + blocks * (k / shape.kLanes) + chunks;
}

int64_t gemvWordsThroughBlock(int64_t block, int64_t k, int64_t groupSize,
                              const GemvEngineShape &shape) {
  checkKAndGroup(k, groupSize, shape);
  const int64_t w = (block + 1) * (k / shape.kLanes);
  const int64_t s =
      groupSize == 0 ? 0 : ceilDiv(w, kGemvMantissasPerWord * groupSize / shape.kLanes);
  return block / kGemvRecordsPerWord + 1 + w + s;
}

std::vector<std::vector<StreamWord>> gemvChannelWords(const QuantizedLinear &layer,
                                                      const GemvEngineShape &shape,
                                                      const GemvInvocation &invocation) {
  const Plan p = plan(layer, shape, invocation);
  const StreamWord descriptor = gemvDescriptorWord(p.d);
  const int64_t wb = int64_t(layer.weightBits);
  std::vector<std::vector<StreamWord>> channels(size_t(p.channels));
  for (int64_t c = 0; c < p.channels; ++c) {
    std::vector<StreamWord> &out = channels[size_t(c)];
    out.push_back(descriptor);
    auto rowOf = [&](int64_t b) { return b * p.channels + c; };
    // The channel's mantissas, row after row (zero for padding rows).
    auto mantissa = [&](int64_t index) -> uint64_t {
      const int64_t row = rowOf(index / p.groups);
      if (index >= p.d.blocks * p.groups || row >= p.layerRows)
        return 0;
      return layer.groupScales[size_t(row * p.groups + index % p.groups)];
    };
    for (int64_t b = 0; b < p.d.blocks; ++b) {
      if (b % kGemvRecordsPerWord == 0) {
        StreamWord word(kWordLimbs, 0);
        for (int64_t i = 0; i < kGemvRecordsPerWord && b + i < p.d.blocks; ++i) {
          const int64_t row = rowOf(b + i);
          const int64_t at = 80 * i;
          if (row < p.layerRows) {
            placeBits(word, at, 48, uint64_t(layer.bias.empty() ? 0 : layer.bias[size_t(row)]));
            placeBits(word, at + 48, 24, layer.outputScales[size_t(row)].mantissa);
            placeBits(word, at + 72, 6, layer.outputScales[size_t(row)].shift);
          } else if (p.saturatePadding) {
            placeBits(word, at, 48, uint64_t(-(int64_t(1) << 47)));
            placeBits(word, at + 48, 24, 1);
          }
        }
        out.push_back(std::move(word));
      }
      for (int64_t j = 0; j < p.words; ++j) {
        const int64_t w = b * p.words + j;
        if (opensChunk(p, w)) {
          // Mantissa of word w's first segment: floor(w * KLanes / g), a multiple of 32 here.
          const int64_t first = w * shape.kLanes / p.d.groupSize;
          StreamWord word(kWordLimbs, 0);
          for (int64_t i = 0; i < kGemvMantissasPerWord; ++i)
            placeBits(word, 16 * i, 16, mantissa(first + i));
          out.push_back(std::move(word));
        }
        StreamWord word(kWordLimbs, 0);
        const int64_t row = rowOf(b);
        if (row < p.layerRows)
          for (int64_t l = 0; l < shape.kLanes; ++l)
            placeBits(word, l * wb, wb,
                      uint64_t(int64_t(layer.weight(size_t(row), size_t(j * shape.kLanes + l)))));
        out.push_back(std::move(word));
      }
    }
  }
  return channels;
}

namespace {

/// Appends channel c's words of the invocation `p` plans (descriptor bytes given) to `bytes`.
void appendChannel(const QuantizedLinear &layer, const GemvEngineShape &shape, const Plan &p,
                   const uint8_t *descriptor, int64_t c, std::vector<uint8_t> &bytes) {
  const int64_t total = gemvWordsPerChannel(p.d.k, p.layerRows, p.d.groupSize, shape) * kWordBytes;
  const int64_t run = shape.kLanes * shape.weightBits / 8; // a W word's code bytes
  const int64_t rowBytes = p.d.k * shape.weightBits / 8;   // a row's packed codes
  const uint8_t *codes = layer.packedWeights.data();
  const size_t start = bytes.size();
  bytes.resize(start + size_t(total), 0);
  uint8_t *at = bytes.data() + start;
  std::memcpy(at, descriptor, kWordBytes);
  at += kWordBytes;
  for (int64_t b = 0; b < p.d.blocks; ++b) {
    const int64_t row = b * p.channels + c;
    if (b % kGemvRecordsPerWord == 0) {
      for (int64_t i = 0; i < kGemvRecordsPerWord && b + i < p.d.blocks; ++i)
        recordBytes(layer, p, row + i * p.channels, at + i * kRecordBytes);
      at += kWordBytes;
    }
    const uint8_t *rowCodes = row < p.layerRows ? codes + row * rowBytes : nullptr;
    for (int64_t j = 0; j < p.words; ++j) {
      const int64_t w = b * p.words + j;
      if (opensChunk(p, w)) {
        // 32 mantissas from index w*KLanes/g of the channel's sequence (row after row).
        const int64_t first = w * shape.kLanes / p.d.groupSize;
        for (int64_t i = 0; i < kGemvMantissasPerWord; ++i) {
          const int64_t index = first + i;
          const int64_t mRow = (index / p.groups) * p.channels + c;
          if (index >= p.d.blocks * p.groups || mRow >= p.layerRows)
            continue;
          const uint16_t m = layer.groupScales[size_t(mRow * p.groups + index % p.groups)];
          at[2 * i] = uint8_t(m & 0xff);
          at[2 * i + 1] = uint8_t(m >> 8);
        }
        at += kWordBytes;
      }
      if (rowCodes) // padding rows: zero codes
        std::memcpy(at, rowCodes + j * run, size_t(run));
      at += kWordBytes;
    }
  }
}

void descriptorBytes(const Plan &p, uint8_t *descriptor) {
  const StreamWord d = gemvDescriptorWord(p.d);
  for (int64_t i = 0; i < kWordBytes; ++i)
    descriptor[i] = uint8_t(d[size_t(i / 4)] >> (8 * (i % 4)));
}

} // namespace

void appendGemvChannelBytes(const QuantizedLinear &layer, const GemvEngineShape &shape,
                            const GemvInvocation &invocation,
                            std::vector<std::vector<uint8_t>> &channelBytes) {
  const Plan p = plan(layer, shape, invocation);
  if (channelBytes.empty())
    channelBytes.resize(size_t(p.channels));
  require(int64_t(channelBytes.size()) == p.channels, kStreamWhere, "channel buffers",
          std::to_string(p.channels) + got(int64_t(channelBytes.size())));
  uint8_t descriptor[kWordBytes];
  descriptorBytes(p, descriptor);
  for (int64_t c = 0; c < p.channels; ++c)
    appendChannel(layer, shape, p, descriptor, c, channelBytes[size_t(c)]);
}

void appendGemvChannelBytes(const QuantizedLinear &layer, const GemvEngineShape &shape,
                            const GemvInvocation &invocation, int64_t channel,
                            std::vector<uint8_t> &bytes) {
  const Plan p = plan(layer, shape, invocation);
  require(channel >= 0 && channel < p.channels, kStreamWhere, "channel",
          "0 .. " + std::to_string(p.channels - 1) + got(channel));
  uint8_t descriptor[kWordBytes];
  descriptorBytes(p, descriptor);
  appendChannel(layer, shape, p, descriptor, channel, bytes);
}

} // namespace st::numerics
