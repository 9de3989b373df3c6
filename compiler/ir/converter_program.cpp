// ConverterProgram: the address tables and counts of the layout-converter RTL (see
// converter_program.h and docs/itensor.md).
#include "ir/converter_program.h"

#include <cstdio>
#include <fstream>

#include "support/error.h"

namespace st::ir {

namespace {

const char *kWhat = "layout converter";

/// Buffer addresses of every element of the first `tokens` tokens of `type`.
std::vector<std::vector<int64_t>> phaseAddresses(const ITensorType &type, int64_t tokens,
                                                 const std::vector<int64_t> &bufferShape) {
  const std::vector<int64_t> tensorShape = type.tensorShape();
  std::vector<std::vector<int64_t>> table;
  forEachToken(type, [&](int64_t index, const std::vector<int64_t> &offsets) {
    if (index >= tokens)
      return;
    std::vector<int64_t> addresses;
    for (int64_t linear : tokenElements(type, offsets)) {
      // Unravel the row-major tensor index, then ravel (i_j mod shape_j) over the buffer shape.
      std::vector<int64_t> idx(tensorShape.size());
      for (size_t j = tensorShape.size(); j-- > 0;) {
        idx[j] = linear % tensorShape[j];
        linear /= tensorShape[j];
      }
      int64_t address = 0;
      for (size_t j = 0; j < tensorShape.size(); ++j)
        address = address * bufferShape[j] + idx[j] % bufferShape[j];
      addresses.push_back(address);
    }
    table.push_back(std::move(addresses));
  });
  return table;
}

std::string hexLine(const std::vector<int64_t> &lanes, int64_t laneCount, int64_t laneBits) {
  // Pack into 4-bit digits, most significant first.
  const int64_t totalBits = laneCount * laneBits;
  const int64_t digits = (totalBits + 3) / 4;
  std::vector<int> bits(static_cast<size_t>(digits * 4), 0);
  for (size_t l = 0; l < lanes.size(); ++l)
    for (int64_t b = 0; b < laneBits; ++b)
      bits[static_cast<size_t>(static_cast<int64_t>(l) * laneBits + b)] =
          static_cast<int>((lanes[l] >> b) & 1);
  std::string line;
  for (int64_t d = digits - 1; d >= 0; --d) {
    int v = 0;
    for (int b = 3; b >= 0; --b)
      v = v * 2 + bits[static_cast<size_t>(d * 4 + b)];
    line += "0123456789abcdef"[v];
  }
  return line + "\n";
}

void checkLimit(const char *field, int64_t value, int64_t limit) {
  if (value > limit)
    throw Error(kWhat, field,
                "at most " + std::to_string(limit) + " (the instance's limit), got " +
                    std::to_string(value));
}

void checkFits(const ConverterProgram &p, const ConverterLimits &l) {
  if (l.elementBits != p.elementBits)
    throw Error(kWhat, "ElemBits",
                std::to_string(p.elementBits) + " bits per element, got " +
                    std::to_string(l.elementBits));
  checkLimit("MaxProdElems", p.producerTokenElements, l.maxProducerElements);
  checkLimit("MaxConsElems", p.consumerTokenElements, l.maxConsumerElements);
  checkLimit("MaxBufferElems", p.bufferElements, l.maxBufferElements);
  checkLimit("MaxProdTokens", p.producerTokensPerPhase, l.maxProducerTokens);
  checkLimit("MaxConsTokens", p.consumerTokensPerPhase, l.maxConsumerTokens);
}

std::string tableMem(const std::vector<std::vector<int64_t>> &table, int64_t lanes,
                     int64_t addressBits) {
  std::string text;
  for (const auto &row : table)
    text += hexLine(row, lanes, addressBits);
  return text;
}

} // namespace

ConverterProgram buildConverterProgram(const ITensorType &producer, const ITensorType &consumer,
                                       const ConverterBufferShape &buffer) {
  if (!buffer.converterNeeded)
    throw Error(kWhat, "buffer",
                "a converter between different streams, got two types streaming the same tokens "
                "(connect them by a FIFO)");
  ConverterProgram p;
  p.elementBits = elementBits(buffer.elementType);
  p.producerTokenElements = producer.elementsPerToken();
  p.consumerTokenElements = consumer.elementsPerToken();
  p.bufferElements = buffer.elements;
  p.phases = buffer.phases();
  if (p.phases < 1 || producer.numTokens() % p.phases != 0 || consumer.numTokens() % p.phases != 0)
    throw Error(kWhat, "phases",
                "token counts divisible by the " + std::to_string(p.phases) +
                    " phases, got producer " + std::to_string(producer.numTokens()) +
                    " and consumer " + std::to_string(consumer.numTokens()));
  p.producerTokensPerPhase = producer.numTokens() / p.phases;
  p.consumerTokensPerPhase = consumer.numTokens() / p.phases;
  p.producerAddresses = phaseAddresses(producer, p.producerTokensPerPhase, buffer.shape);
  p.consumerAddresses = phaseAddresses(consumer, p.consumerTokensPerPhase, buffer.shape);
  return p;
}

ConverterLimits converterLimitsOf(const ConverterProgram &p) {
  ConverterLimits l;
  l.elementBits = p.elementBits;
  l.maxProducerElements = p.producerTokenElements;
  l.maxConsumerElements = p.consumerTokenElements;
  l.maxBufferElements = p.bufferElements;
  l.maxProducerTokens = p.producerTokensPerPhase;
  l.maxConsumerTokens = p.consumerTokensPerPhase;
  return l;
}

int64_t converterAddressBits(const ConverterLimits &limits) {
  int64_t bits = 1;
  while ((int64_t{1} << bits) < limits.maxBufferElements)
    ++bits;
  return bits;
}

std::string converterCountsMem(const ConverterProgram &p, const ConverterLimits &l) {
  checkFits(p, l);
  std::string text;
  char line[32];
  for (int64_t v : {p.producerTokensPerPhase, p.consumerTokensPerPhase, p.producerTokenElements,
                    p.consumerTokenElements}) {
    std::snprintf(line, sizeof line, "%08llx\n", static_cast<unsigned long long>(v));
    text += line;
  }
  return text;
}

std::string converterProducerTableMem(const ConverterProgram &p, const ConverterLimits &l) {
  checkFits(p, l);
  return tableMem(p.producerAddresses, l.maxProducerElements, converterAddressBits(l));
}

std::string converterConsumerTableMem(const ConverterProgram &p, const ConverterLimits &l) {
  checkFits(p, l);
  return tableMem(p.consumerAddresses, l.maxConsumerElements, converterAddressBits(l));
}

void writeConverterTables(const ConverterProgram &program, const ConverterLimits &limits,
                          const std::string &countsPath, const std::string &producerPath,
                          const std::string &consumerPath) {
  const std::pair<const std::string *, std::string> files[] = {
      {&countsPath, converterCountsMem(program, limits)},
      {&producerPath, converterProducerTableMem(program, limits)},
      {&consumerPath, converterConsumerTableMem(program, limits)}};
  for (const auto &[path, text] : files) {
    std::ofstream out(*path, std::ios::trunc);
    out << text;
    out.close();
    if (!out)
      throw Error(*path, "file", "a writable path for a converter table");
  }
}

std::vector<int64_t> simulateConverterProgram(const ConverterProgram &p,
                                              const std::vector<int64_t> &producerElements) {
  const int64_t perPhase = p.producerTokensPerPhase * p.producerTokenElements;
  if (perPhase == 0 || producerElements.size() % static_cast<size_t>(perPhase) != 0)
    throw Error(kWhat, "producer elements",
                "a whole number of phases of " + std::to_string(perPhase) + " elements, got " +
                    std::to_string(producerElements.size()));
  for (const auto *table : {&p.producerAddresses, &p.consumerAddresses})
    for (const auto &token : *table)
      for (int64_t a : token)
        if (a < 0 || a >= p.bufferElements)
          throw Error(kWhat, table == &p.producerAddresses ? "producer table" : "consumer table",
                      "addresses in 0.." + std::to_string(p.bufferElements - 1) + ", got " +
                          std::to_string(a));
  std::vector<int64_t> out;
  size_t next = 0;
  while (next < producerElements.size()) {
    std::vector<int64_t> bank(static_cast<size_t>(p.bufferElements), -1);
    std::vector<char> written(static_cast<size_t>(p.bufferElements), 0);
    for (const auto &token : p.producerAddresses)
      for (int64_t a : token) {
        bank[static_cast<size_t>(a)] = producerElements[next++];
        written[static_cast<size_t>(a)] = 1;
      }
    for (const auto &token : p.consumerAddresses)
      for (int64_t a : token) {
        if (!written[static_cast<size_t>(a)])
          throw Error(kWhat, "consumer table",
                      "reads of addresses written in the same phase, got a read of address " +
                          std::to_string(a) + " that no producer token of the phase writes");
        out.push_back(bank[static_cast<size_t>(a)]);
      }
  }
  return out;
}

} // namespace st::ir
