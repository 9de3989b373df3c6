// Random weights (see random_weights.h). A full-size model has ~10^9 weights, made twice per
// compile (calibration, quantization): four draws at a time with AVX2 when the CPU has it
// (64-bit multiplies from 32-bit ones), one at a time otherwise; the same bits either way.
#include "frontend/random_weights.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define ST_RANDOM_WEIGHTS_X86 1
#endif

namespace st::frontend {

namespace {

constexpr uint64_t kGamma = 0x9e3779b97f4a7c15ull;
constexpr uint64_t kMix1 = 0xbf58476d1ce4e5b9ull;
constexpr uint64_t kMix2 = 0x94d049bb133111ebull;

uint64_t draw(uint64_t state, int64_t i) {
  uint64_t z = state + static_cast<uint64_t>(i + 1) * kGamma;
  z = (z ^ (z >> 30)) * kMix1;
  z = (z ^ (z >> 27)) * kMix2;
  return z ^ (z >> 31);
}

#ifdef ST_RANDOM_WEIGHTS_X86
/// a * c modulo 2^64 in each lane.
__attribute__((target("avx2"))) inline __m256i multiply64(__m256i a, uint64_t c) {
  const __m256i cLow = _mm256_set1_epi64x(static_cast<long long>(c & 0xffffffffu));
  const __m256i cHigh = _mm256_set1_epi64x(static_cast<long long>(c >> 32));
  const __m256i low = _mm256_mul_epu32(a, cLow);
  const __m256i cross = _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(a, 32), cLow),
                                         _mm256_mul_epu32(a, cHigh));
  return _mm256_add_epi64(low, _mm256_slli_epi64(cross, 32));
}

/// Draws [first, first + 4 * blocks) into out[2 * (i - first)] (low) and [... + 1] (high): the
/// two 24-bit halves of a draw are its two 32-bit lanes masked, so each vector of draws stores
/// eight values in order.
__attribute__((target("avx2"))) void drawsAvx2(uint64_t state, int64_t first, int64_t blocks,
                                               float unit, float scale, float *out) {
  const auto at = [&](int64_t i) {
    return static_cast<long long>(state + static_cast<uint64_t>(first + i + 1) * kGamma);
  };
  __m256i s = _mm256_set_epi64x(at(3), at(2), at(1), at(0));
  const __m256i step = _mm256_set1_epi64x(static_cast<long long>(4 * kGamma));
  const __m256i mask = _mm256_set1_epi32(0xffffff);
  const __m256 unitV = _mm256_set1_ps(unit), scaleV = _mm256_set1_ps(scale);
  for (int64_t b = 0; b < blocks; ++b, s = _mm256_add_epi64(s, step)) {
    __m256i z = s;
    z = multiply64(_mm256_xor_si256(z, _mm256_srli_epi64(z, 30)), kMix1);
    z = multiply64(_mm256_xor_si256(z, _mm256_srli_epi64(z, 27)), kMix2);
    z = _mm256_xor_si256(z, _mm256_srli_epi64(z, 31));
    // float(v) * unit - scale: a multiply, then a subtract (no fused multiply-add).
    const __m256 v = _mm256_cvtepi32_ps(_mm256_and_si256(z, mask));
    _mm256_storeu_ps(out + 8 * b, _mm256_sub_ps(_mm256_mul_ps(v, unitV), scaleV));
  }
}

bool haveAvx2() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2");
}
#endif

} // namespace

void randomWeightValues(uint64_t state, float scale, bool plusOne, int64_t begin, int64_t count,
                        float *out) {
  const float unit = 2.0f * scale / float(1 << 24); // 24-bit value -> [-scale, scale)
  auto low = [&](uint64_t z) { return float(z & 0xffffff) * unit - scale; };
  auto high = [&](uint64_t z) { return float((z >> 32) & 0xffffff) * unit - scale; };
  int64_t e = begin;
  const int64_t end = begin + count;
  float *o = out;
  if (e < end && e % 2 == 1) // starts on a draw's second element
    *o++ = high(draw(state, e++ / 2));
#ifdef ST_RANDOM_WEIGHTS_X86
  static const bool avx2 = haveAvx2();
  if (avx2 && end - e >= 8) {
    const int64_t blocks = (end - e) / 8;
    drawsAvx2(state, e / 2, blocks, unit, scale, o);
    e += 8 * blocks;
    o += 8 * blocks;
  }
#endif
  for (; e + 1 < end; e += 2) {
    const uint64_t z = draw(state, e / 2);
    *o++ = low(z);
    *o++ = high(z);
  }
  if (e < end)
    *o++ = low(draw(state, e / 2));
  if (plusOne)
    for (int64_t i = 0; i < count; ++i)
      out[i] += 1.0f;
}

} // namespace st::frontend
