// The FloatExecutor's multi-column linear layer (see float_linear.h).
#include "frontend/float_linear.h"

#include <algorithm>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define ST_FLOAT_LINEAR_X86 1
#endif

#include "support/int_math.h"
#include "support/parallel.h"
#include "support/scratch_buffer.h"

namespace st::frontend {

namespace {

/// Output rows of one register block: 6 rows x 8 columns are 12 independent accumulator chains,
/// enough to cover the FMA latency, in 12 of the 16 AVX2 registers.
constexpr size_t kRowBlock = 6;
/// Columns of one register block (two vectors of 4 doubles).
constexpr size_t kColumnBlock = 8;
/// Output rows per task: 11 register blocks; their accumulators (66 x 64 doubles for 64
/// columns, 33 KiB) stay in L1/L2 while the task runs.
constexpr size_t kRowChunk = 11 * kRowBlock;
/// Reduction rows per pass: the input panel's kKBlock x padded columns doubles (128 KiB for 64
/// columns) stay in L2 while every row of the task passes over them.
constexpr size_t kKBlock = 256;

/// The inputs as a panel of doubles, xt[k * cp + c], columns padded with zeros to cp.
std::vector<double> inputPanel(const float *x, size_t cols, size_t columns, size_t cp) {
  std::vector<double> xt(cols * cp, 0.0);
  for (size_t c = 0; c < columns; ++c)
    for (size_t k = 0; k < cols; ++k)
      xt[k * cp + c] = static_cast<double>(x[c * cols + k]);
  return xt;
}

/// acc[i][c] += sum over k < kb of wd[i][k] * xt[k][c], k increasing, for kRowBlock rows and
/// cp columns (portable).
void accumulatePortable(const double *wd, const double *xt, size_t cp, size_t kb, double *acc) {
  for (size_t i = 0; i < kRowBlock; ++i) {
    double *a = acc + i * cp;
    for (size_t k = 0; k < kb; ++k) {
      const double w = wd[i * kKBlock + k];
      const double *xk = xt + k * cp;
      for (size_t c = 0; c < cp; ++c)
        a[c] += w * xk[c];
    }
  }
}

#ifdef ST_FLOAT_LINEAR_X86
/// accumulatePortable with AVX2/FMA: kRowBlock rows x kColumnBlock columns per register block.
__attribute__((target("avx2,fma"))) void accumulateAvx2(const double *wd, const double *xt,
                                                        size_t cp, size_t kb, double *acc) {
  for (size_t c = 0; c < cp; c += kColumnBlock) {
    // The i loops are unrolled so that the 12 accumulators stay in registers (GCC keeps an
    // array indexed by a rolled loop on the stack: a load and a store around every FMA).
    __m256d a[kRowBlock][2];
#pragma GCC unroll 6
    for (size_t i = 0; i < kRowBlock; ++i) {
      a[i][0] = _mm256_loadu_pd(acc + i * cp + c);
      a[i][1] = _mm256_loadu_pd(acc + i * cp + c + 4);
    }
    const double *xk = xt + c;
    for (size_t k = 0; k < kb; ++k, xk += cp) {
      const __m256d x0 = _mm256_loadu_pd(xk), x1 = _mm256_loadu_pd(xk + 4);
#pragma GCC unroll 6
      for (size_t i = 0; i < kRowBlock; ++i) {
        const __m256d w = _mm256_broadcast_sd(wd + i * kKBlock + k);
        a[i][0] = _mm256_fmadd_pd(w, x0, a[i][0]);
        a[i][1] = _mm256_fmadd_pd(w, x1, a[i][1]);
      }
    }
#pragma GCC unroll 6
    for (size_t i = 0; i < kRowBlock; ++i) {
      _mm256_storeu_pd(acc + i * cp + c, a[i][0]);
      _mm256_storeu_pd(acc + i * cp + c + 4, a[i][1]);
    }
  }
}
#endif

bool detectAvx2() {
#ifdef ST_FLOAT_LINEAR_X86
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
  return false;
#endif
}

} // namespace

bool floatLinearHasAvx2() {
  static const bool avx2 = detectAvx2();
  return avx2;
}

void floatLinearColumns(const numerics::WeightRowReader &weights, size_t rows, size_t cols,
                        const float *bias, const float *x, size_t columns, float *y,
                        FloatLinearKernel kernel) {
  if (rows == 0 || columns == 0)
    return;
  const size_t cp = roundUp(columns, kColumnBlock);
  const std::vector<double> xt = inputPanel(x, cols, columns, cp);
  const bool avx2 = kernel == FloatLinearKernel::Best && floatLinearHasAvx2();
  parallelForChunks(rows, kRowChunk, [&](size_t r0, size_t r1) {
    ScratchBuffer scratch;                           // pooled: no fresh pages per task
    const float *w = weights(r0, r1, scratch.get()); // rows r0 .. r1 - 1
    const size_t n = r1 - r0;
    // Rows past n (the last block's padding) have zero weights; their sums are dropped.
    std::vector<double> acc(roundUp(n, kRowBlock) * cp, 0.0);
    std::vector<double> wd(kRowBlock * kKBlock);
    for (size_t k0 = 0; k0 < cols; k0 += kKBlock) {
      const size_t kb = std::min(kKBlock, cols - k0);
      for (size_t b = 0; b < n; b += kRowBlock) {
        for (size_t i = 0; i < kRowBlock; ++i) {
          double *d = wd.data() + i * kKBlock;
          if (b + i < n) {
            const float *row = w + (b + i) * cols + k0;
            for (size_t k = 0; k < kb; ++k)
              d[k] = static_cast<double>(row[k]);
          } else {
            std::fill(d, d + kb, 0.0);
          }
        }
        const double *panel = xt.data() + k0 * cp;
#ifdef ST_FLOAT_LINEAR_X86
        if (avx2) {
          accumulateAvx2(wd.data(), panel, cp, kb, acc.data() + b * cp);
          continue;
        }
#endif
        accumulatePortable(wd.data(), panel, cp, kb, acc.data() + b * cp);
      }
    }
    for (size_t i = 0; i < n; ++i)
      for (size_t c = 0; c < columns; ++c)
        y[c * rows + r0 + i] = static_cast<float>(acc[i * cp + c]) + (bias ? bias[r0 + i] : 0.0f);
  });
  static_cast<void>(avx2); // unused without the x86 kernel
}

void floatLinearColumns(const float *weights, size_t rows, size_t cols, const float *bias,
                        const float *x, size_t columns, float *y, FloatLinearKernel kernel) {
  floatLinearColumns(numerics::inMemoryRows(weights, cols), rows, cols, bias, x, columns, y,
                     kernel);
}

} // namespace st::frontend
