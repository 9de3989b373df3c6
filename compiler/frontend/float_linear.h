// FloatLinear: the FloatExecutor's linear layer y = W x (+ b) for many input columns at once (the
// tokens of teacher-forced calibration, or one token of a decode step). Each output is
//   y[c][r] = float( sum over k = 0, 1, ..., K-1 of double(W[r][k]) * double(x[c][k]) ) + b[r]
// accumulated in double in increasing k, exactly the scalar loop's arithmetic: a float x float
// product is exact in double, so a fused multiply-add rounds once at the add as the scalar loop
// does, and the result has the same bits whatever the vector width, the blocking, the number of
// columns or of threads. One pass over W serves every column; W is read a block of rows at a
// time (numerics/weight_rows.h: in place, or made on demand for streamed weights). The work is
// blocked for the caches (a panel of 256 reduction rows of the inputs in double, 66 output rows
// of accumulators), vectorized across columns with AVX2/FMA when the CPU has them (a portable
// loop otherwise) and spread over the cores by blocks of output rows.
#pragma once

#include <cstddef>

#include "numerics/weight_rows.h"

namespace st::frontend {

/// The inner loops: AVX2/FMA when the CPU has them (Best), or the portable loop (a test checks
/// that both give the same bits).
enum class FloatLinearKernel { Best, Portable };

/// W: rows x cols, read through `weights`; bias: rows values or null; x: `columns` inputs of
/// `cols` values, column c at x + c * cols; y: `columns` outputs of `rows` values, column c at
/// y + c * rows.
void floatLinearColumns(const numerics::WeightRowReader &weights, size_t rows, size_t cols,
                        const float *bias, const float *x, size_t columns, float *y,
                        FloatLinearKernel kernel = FloatLinearKernel::Best);

/// The same with W in memory, row-major at `weights`.
void floatLinearColumns(const float *weights, size_t rows, size_t cols, const float *bias,
                        const float *x, size_t columns, float *y,
                        FloatLinearKernel kernel = FloatLinearKernel::Best);

/// True when FloatLinearKernel::Best is the AVX2/FMA kernel (the CPU has AVX2 and FMA).
bool floatLinearHasAvx2();

} // namespace st::frontend
