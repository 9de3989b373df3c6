// The fp32 reference of every golden op (docs/numerics.md §7): the float model that the golden
// datapath is measured against for fidelity. Never part of the bit-exact contract.
#pragma once

#include "nonlinear_functions.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace st::numerics {

/// y = W x + b, W rows x cols row-major; bias may be empty.
std::vector<float> linearFloat(const std::vector<float> &x, const std::vector<float> &weights,
                               size_t rows, size_t cols, const std::vector<float> &bias = {});
/// (x - mean) / sqrt(var + eps) * gamma + beta (beta may be empty).
std::vector<float> layerNormFloat(const std::vector<float> &x, const std::vector<float> &gamma,
                                  const std::vector<float> &beta, float epsilon);
/// x / sqrt(mean(x^2) + eps) * gamma (Llama, Qwen2).
std::vector<float> rmsNormFloat(const std::vector<float> &x, const std::vector<float> &gamma,
                                float epsilon);
/// x / sqrt(mean(x^2) + eps) * (1 + w) (Gemma).
std::vector<float> gemmaRmsNormFloat(const std::vector<float> &x, const std::vector<float> &w,
                                     float epsilon);
/// exp(x - max) / sum.
std::vector<float> softmaxFloat(const std::vector<float> &x);
float geluFloat(float x, GeluForm form);
float siluFloat(float x);
std::vector<float> geluFloat(const std::vector<float> &x, GeluForm form);
std::vector<float> siluFloat(const std::vector<float> &x);
std::vector<float> swigluFloat(const std::vector<float> &gate, const std::vector<float> &up);
std::vector<float> gegluFloat(const std::vector<float> &gate, const std::vector<float> &up,
                              GeluForm form);
/// Rotate-half RoPE with angle position * inverseFrequencies[j] (reduced mod 2pi in double).
std::vector<float> ropeFloat(const std::vector<float> &x, uint64_t position,
                             const std::vector<double> &inverseFrequencies);
std::vector<float> residualAddFloat(const std::vector<float> &a, const std::vector<float> &b);
/// Ties go to the lowest index.
size_t argmaxFloat(const std::vector<float> &x);

} // namespace st::numerics
