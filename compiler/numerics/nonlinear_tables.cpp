// Table generation and integer interpolation for the non-linear functions (see
// nonlinear_tables.h). Generation uses double precision once, at compile time.
#include "nonlinear_tables.h"

#include "fixed_point.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace st::numerics {

int64_t interpolate(const PiecewiseLinearTable &table, uint64_t offset) {
  if (offset > table.inputSpan())
    throw std::out_of_range("interpolate(" + table.function + "): offset " +
                            std::to_string(offset) + " beyond " +
                            std::to_string(table.inputSpan()));
  const uint64_t index = offset >> table.fractionBits;
  if (index == table.segments())
    return table.entries.back();
  const int64_t remainder =
      static_cast<int64_t>(offset & ((uint64_t(1) << table.fractionBits) - 1));
  const int64_t base = table.entries[index];
  const int64_t slope = static_cast<int64_t>(table.entries[index + 1]) - base;
  return base + roundShiftRight(slope * remainder, table.fractionBits);
}

PiecewiseLinearTable makePiecewiseLinearTable(const std::string &name,
                                              const std::function<double(double)> &f,
                                              double domainStart, double domainEnd,
                                              unsigned segments, unsigned fractionBits,
                                              unsigned entryFracBits, unsigned entryBits) {
  PiecewiseLinearTable table;
  table.function = name;
  table.domainStart = domainStart;
  table.domainEnd = domainEnd;
  table.fractionBits = fractionBits;
  table.entryFracBits = entryFracBits;
  table.entryBits = entryBits;
  table.entries.reserve(segments + 1);
  for (unsigned i = 0; i <= segments; ++i) {
    const double x = domainStart + (domainEnd - domainStart) * i / segments;
    const int64_t entry = roundHalfAwayFromZero(std::ldexp(f(x), entryFracBits));
    if (entry < 0 || entry >= (int64_t(1) << entryBits))
      throw std::logic_error("table " + name + ": entry " + std::to_string(i) + " does not fit " +
                             std::to_string(entryBits) + " bits");
    table.entries.push_back(static_cast<uint32_t>(entry));
  }
  return table;
}

namespace {

double standardNormalCdf(double x) {
  return 0.5 * std::erfc(-x / std::sqrt(2.0));
}
double geluTanhGate(double x) {
  const double c = std::sqrt(2.0 / M_PI);
  return 0.5 * (1.0 + std::tanh(c * (x + 0.044715 * x * x * x)));
}

} // namespace

const PiecewiseLinearTable &exp2NegativeFractionTable() {
  static const PiecewiseLinearTable table = makePiecewiseLinearTable(
      "exp2(-f)", [](double f) { return std::exp2(-f); }, 0.0, 1.0, 128, 9, 20, 21);
  return table;
}

const PiecewiseLinearTable &reciprocalTable() {
  static const PiecewiseLinearTable table = makePiecewiseLinearTable(
      "1/m", [](double m) { return 1.0 / m; }, 1.0, 2.0, 256, 8, 17, 18);
  return table;
}

const PiecewiseLinearTable &rsqrtTable() {
  static const PiecewiseLinearTable table = makePiecewiseLinearTable(
      "1/sqrt(m)", [](double m) { return 1.0 / std::sqrt(m); }, 1.0, 4.0, 384, 9, 17, 18);
  return table;
}

const PiecewiseLinearTable &geluErfResidualTable() {
  static const PiecewiseLinearTable table = makePiecewiseLinearTable(
      "a*Phi(-a)", [](double a) { return a * standardNormalCdf(-a); }, 0.0, 8.0, 256, 6, 16, 16);
  return table;
}

const PiecewiseLinearTable &geluTanhResidualTable() {
  static const PiecewiseLinearTable table = makePiecewiseLinearTable(
      "a*(1-T(a))", [](double a) { return a * geluTanhGate(-a); }, 0.0, 8.0, 256, 6, 16, 16);
  return table;
}

const PiecewiseLinearTable &siluResidualTable() {
  static const PiecewiseLinearTable table = makePiecewiseLinearTable(
      "a*sigmoid(-a)", [](double a) { return a / (1.0 + std::exp(a)); }, 0.0, 16.0, 512, 6, 16, 16);
  return table;
}

const PiecewiseLinearTable &quarterSineTable() {
  static const PiecewiseLinearTable table = makePiecewiseLinearTable(
      "sin(pi/2*w)", [](double w) { return std::sin(M_PI / 2 * w); }, 0.0, 1.0, 256, 22, 17, 18);
  return table;
}

RopeTable makeRopeTableFromInverseFrequencies(const std::vector<double> &inverseFrequencies) {
  RopeTable table;
  table.headDim = inverseFrequencies.size() * 2;
  for (double frequency : inverseFrequencies) {
    if (!(frequency >= 0) || frequency >= 2 * M_PI)
      throw std::invalid_argument("RoPE inverse frequency must be in [0, 2pi), got " +
                                  std::to_string(frequency));
    const double turns = frequency / (2 * M_PI);
    table.phaseIncrement.push_back(
        static_cast<uint64_t>(roundHalfAwayFromZero(std::ldexp(turns, kRopePhaseBits))));
  }
  return table;
}

RopeTable makeRopeTable(double base, size_t headDim) {
  if (headDim == 0 || headDim % 2 != 0)
    throw std::invalid_argument("RoPE head dim must be even and positive, got " +
                                std::to_string(headDim));
  std::vector<double> frequencies;
  for (size_t j = 0; j < headDim / 2; ++j)
    frequencies.push_back(std::pow(base, -2.0 * static_cast<double>(j) / headDim));
  return makeRopeTableFromInverseFrequencies(frequencies);
}

} // namespace st::numerics
