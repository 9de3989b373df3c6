// The channel streams of the shared GEMV engine st_gemv_engine (docs/gemv-engine.md): the one
// implementation of their layout, used by the HBM image (bytes, appended per pseudo-channel), the
// compiler's HBM planning (word counts), the engine's timing model and its Verilator test
// (words). A QuantizedLinear (the golden model's integer fields), the engine's shape and the
// caller's choices for one invocation (ports, x reuse, padding rows) fix every bit.
#pragma once

#include "quantization.h"
#include "stream_word.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace st::numerics {

/// Bits of every channel word.
constexpr int64_t kGemvWordBits = 512;
/// Row records per P word (80 bits each: bias s48, mantissa u24, shift u6, 2 zero).
constexpr int64_t kGemvRecordsPerWord = 6;
/// Group mantissas per S word (u16 each).
constexpr int64_t kGemvMantissasPerWord = 32;

/// The parameters of one st_gemv_engine instance (same names and meaning as the RTL's).
struct GemvEngineShape {
  int64_t channels = 32;      ///< Channels: weight streams, rows per block
  int64_t kLanes = 16;        ///< KLanes: codes of one row per W word (power of two)
  int64_t segLanes = 16;      ///< SegLanes: codes per mantissa multiply (divides KLanes)
  int64_t lanes = 2;          ///< Lanes: codes per x and y token
  int64_t weightBits = 4;     ///< WBits: 4 or 8
  int64_t activationBits = 8; ///< ABits: 8 or 16
  int64_t maxK = 128;         ///< MaxK: longest K (multiple of KLanes)
  int64_t outputBits = 16;    ///< OutBits: widest output code (2 .. 32)
  int64_t numX = 1;           ///< NumX: x ports
  int64_t numY = 1;           ///< NumY: y ports
  /// PackedPairs: channel pairs (2i, 2i+1), i < this, whose two int4 x int8 products of a lane
  /// share one DSP48E2 multiply (st_gemv_channel Ways = 2); 0 .. Channels/2, > 0 only when
  /// gemvPairsPackable.
  int64_t packedPairs = 0;
};

/// Whether two channels' products of a lane fit one DSP48E2 multiply: the packed weight operand
/// (WBits + SegBits + 1 bits, SegBits = WBits + ABits + log2(SegLanes)) on the 27-bit port, x on
/// the 18-bit one.
bool gemvPairsPackable(const GemvEngineShape &shape);

/// Throws st::Error (file "gemv engine", the parameter as field) on a shape the RTL rejects.
void checkGemvEngineShape(const GemvEngineShape &shape);

/// The x of the next invocation, announced in a descriptor so that the engine loads it into its
/// other x buffer while this invocation streams (docs/gemv-engine.md, the x loader).
struct GemvNextX {
  int64_t xPort = 0; ///< the x port it comes from
  int64_t k = 0;     ///< its codes (the next invocation's K)
  bool operator==(const GemvNextX &o) const { return xPort == o.xPort && k == o.k; }
};

/// The fields of a descriptor word D, as the engine reads them.
struct GemvDescriptor {
  int64_t k = 0;          ///< reduction length
  int64_t blocks = 0;     ///< B = ceil(layer rows / Channels)
  int64_t rows = 0;       ///< N: rows delivered on y (multiple of Lanes, (B-1)*C < N <= B*C)
  int64_t outputBits = 8; ///< the invocation's output code width
  int64_t groupSize = 0;  ///< g in codes; 0 = per output channel (no S words)
  int64_t xPort = 0;      ///< x port to load x from
  bool reuseX = false;    ///< load nothing: the previous invocation's x
  int64_t yPort = 0;      ///< y port of the outputs
  std::optional<GemvNextX> nextX; ///< announced: the next invocation's x (which loads it)
};

/// What a padding row (rows N .. B*C-1 of the layer) holds: zero weights, mantissas and record
/// (output 0), or a record saturating it to the most negative code (bias -2^47, mantissa 1,
/// shift 0: the padded LM head, whose padding logits must never win the argmax).
enum class GemvPaddingRecord { Zero, Saturate };

/// The caller's part of one invocation: everything the layer does not say.
struct GemvInvocation {
  int64_t xPort = 0;
  bool reuseX = false;
  int64_t yPort = 0;
  GemvPaddingRecord padding = GemvPaddingRecord::Zero;
  /// Deliver N rounded up to Lanes rows (the padding rows up to there are delivered too);
  /// otherwise the layer's row count must be a multiple of Lanes.
  bool deliverPaddedRows = false;
  /// The next invocation's x, to announce (none: the next reuses this x, or loads its own
  /// after its D).
  std::optional<GemvNextX> nextX;
};

/// The group size a layer streams with: 0 in per-channel mode (layer.perChannel(), every
/// mantissa 1), else layer.groupSize.
int64_t gemvStreamGroupSize(const QuantizedLinear &layer);

/// The descriptor of one invocation of `layer`. Throws st::Error (file "gemv stream", naming
/// the field) when the layer does not fit the shape: K not a multiple of KLanes or above MaxK,
/// a group size that is not a multiple of SegLanes or neither a multiple nor a divisor of
/// KLanes, mantissas other than 1 in per-channel mode, out bits outside 2..OutBits, a bias,
/// mantissa or shift outside its field, vectors of the wrong length, ports out of range, a row
/// count not a multiple of Lanes without deliverPaddedRows, an announced next x whose port or K
/// does not fit.
GemvDescriptor gemvDescriptorFor(const QuantizedLinear &layer, const GemvEngineShape &shape,
                                 const GemvInvocation &invocation);
/// The 512-bit D word of a descriptor (fields as docs/gemv-engine.md places them).
StreamWord gemvDescriptorWord(const GemvDescriptor &descriptor);

/// Words per channel of one invocation: 1 + ceil(B/6) + B*G + S with B = ceil(n / Channels),
/// G = k / KLanes, S = ceil(B*k/g / 32) when grouped (g > 0), else 0. A pure function of the
/// layer's K, N and g: what the compiler plans HBM with. Throws st::Error like
/// gemvDescriptorFor on a K or g that does not fit the shape.
int64_t gemvWordsPerChannel(int64_t k, int64_t n, int64_t groupSize, const GemvEngineShape &shape);
/// The super-words after D up to and including the last W word of block b (0-based):
/// floor(b/6) + 1 P words, (b+1)*G W words and, grouped, ceil((b+1)*G / (32*g/KLanes)) S words.
/// (The engine's timing model counts with it.)
int64_t gemvWordsThroughBlock(int64_t block, int64_t k, int64_t groupSize,
                              const GemvEngineShape &shape);

/// The words of one invocation, per channel (channels x words, each 512 bits as 16
/// little-endian limbs), in stream order. Field by field; the reference for the bytes form.
std::vector<std::vector<StreamWord>> gemvChannelWords(const QuantizedLinear &layer,
                                                      const GemvEngineShape &shape,
                                                      const GemvInvocation &invocation);

/// The same words as bytes (64 per word, little endian: bit 0 of a word is bit 0 of its first
/// byte), appended to channelBytes[c] for every channel c (resized to Channels if empty). Built
/// from whole byte runs: the int4/int8 codes of a row's W word are copied from packedWeights.
void appendGemvChannelBytes(const QuantizedLinear &layer, const GemvEngineShape &shape,
                            const GemvInvocation &invocation,
                            std::vector<std::vector<uint8_t>> &channelBytes);
/// Channel `channel`'s bytes only, appended to `bytes` (the HBM image builds each channel's
/// stream on its own thread).
void appendGemvChannelBytes(const QuantizedLinear &layer, const GemvEngineShape &shape,
                            const GemvInvocation &invocation, int64_t channel,
                            std::vector<uint8_t> &bytes);

} // namespace st::numerics
