// fp32 reference ops (see float_reference.h). Sums accumulate in float, as a PyTorch fp32 model.
#include "float_reference.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace st::numerics {

std::vector<float> linearFloat(const std::vector<float> &x, const std::vector<float> &weights,
                               size_t rows, size_t cols, const std::vector<float> &bias) {
  if (x.size() != cols || weights.size() != rows * cols)
    throw std::invalid_argument("linearFloat: shape mismatch");
  std::vector<float> y(rows);
  for (size_t r = 0; r < rows; ++r) {
    float acc = bias.empty() ? 0.0f : bias[r];
    for (size_t k = 0; k < cols; ++k)
      acc += weights[r * cols + k] * x[k];
    y[r] = acc;
  }
  return y;
}

std::vector<float> layerNormFloat(const std::vector<float> &x, const std::vector<float> &gamma,
                                  const std::vector<float> &beta, float epsilon) {
  const float n = static_cast<float>(x.size());
  float mean = 0;
  for (float v : x)
    mean += v;
  mean /= n;
  float variance = 0;
  for (float v : x)
    variance += (v - mean) * (v - mean);
  variance /= n;
  const float inverse = 1.0f / std::sqrt(variance + epsilon);
  std::vector<float> y(x.size());
  for (size_t i = 0; i < x.size(); ++i)
    y[i] = (x[i] - mean) * inverse * gamma[i] + (beta.empty() ? 0.0f : beta[i]);
  return y;
}

std::vector<float> rmsNormFloat(const std::vector<float> &x, const std::vector<float> &gamma,
                                float epsilon) {
  float meanSquare = 0;
  for (float v : x)
    meanSquare += v * v;
  meanSquare /= static_cast<float>(x.size());
  const float inverse = 1.0f / std::sqrt(meanSquare + epsilon);
  std::vector<float> y(x.size());
  for (size_t i = 0; i < x.size(); ++i)
    y[i] = x[i] * inverse * gamma[i];
  return y;
}

std::vector<float> gemmaRmsNormFloat(const std::vector<float> &x, const std::vector<float> &w,
                                     float epsilon) {
  std::vector<float> gamma(w.size());
  for (size_t i = 0; i < w.size(); ++i)
    gamma[i] = 1.0f + w[i];
  return rmsNormFloat(x, gamma, epsilon);
}

std::vector<float> softmaxFloat(const std::vector<float> &x) {
  const float maximum = *std::max_element(x.begin(), x.end());
  std::vector<float> y(x.size());
  float sum = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    y[i] = std::exp(x[i] - maximum);
    sum += y[i];
  }
  for (float &v : y)
    v /= sum;
  return y;
}

float geluFloat(float x, GeluForm form) {
  if (form == GeluForm::Erf)
    return 0.5f * x * (1.0f + std::erf(x / std::sqrt(2.0f)));
  const float c = std::sqrt(2.0f / static_cast<float>(M_PI));
  return 0.5f * x * (1.0f + std::tanh(c * (x + 0.044715f * x * x * x)));
}

float siluFloat(float x) {
  return x / (1.0f + std::exp(-x));
}

std::vector<float> geluFloat(const std::vector<float> &x, GeluForm form) {
  std::vector<float> y(x.size());
  std::transform(x.begin(), x.end(), y.begin(), [form](float v) { return geluFloat(v, form); });
  return y;
}

std::vector<float> siluFloat(const std::vector<float> &x) {
  std::vector<float> y(x.size());
  std::transform(x.begin(), x.end(), y.begin(), [](float v) { return siluFloat(v); });
  return y;
}

std::vector<float> swigluFloat(const std::vector<float> &gate, const std::vector<float> &up) {
  std::vector<float> y(gate.size());
  for (size_t i = 0; i < gate.size(); ++i)
    y[i] = siluFloat(gate[i]) * up[i];
  return y;
}

std::vector<float> gegluFloat(const std::vector<float> &gate, const std::vector<float> &up,
                              GeluForm form) {
  std::vector<float> y(gate.size());
  for (size_t i = 0; i < gate.size(); ++i)
    y[i] = geluFloat(gate[i], form) * up[i];
  return y;
}

std::vector<float> ropeFloat(const std::vector<float> &x, uint64_t position,
                             const std::vector<double> &inverseFrequencies) {
  const size_t half = x.size() / 2;
  if (inverseFrequencies.size() != half)
    throw std::invalid_argument("ropeFloat: need headDim/2 frequencies");
  std::vector<float> y(x.size());
  for (size_t j = 0; j < half; ++j) {
    // Angle reduced modulo 2pi in double: an fp32 product alone loses ~1e-2 rad at 1e5.
    const float angle = static_cast<float>(
        std::fmod(static_cast<double>(position) * inverseFrequencies[j], 2 * M_PI));
    const float c = std::cos(angle), s = std::sin(angle);
    y[j] = x[j] * c - x[j + half] * s;
    y[j + half] = x[j + half] * c + x[j] * s;
  }
  return y;
}

std::vector<float> residualAddFloat(const std::vector<float> &a, const std::vector<float> &b) {
  std::vector<float> y(a.size());
  for (size_t i = 0; i < a.size(); ++i)
    y[i] = a[i] + b[i];
  return y;
}

size_t argmaxFloat(const std::vector<float> &x) {
  return static_cast<size_t>(std::max_element(x.begin(), x.end()) - x.begin());
}

} // namespace st::numerics
