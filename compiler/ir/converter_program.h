// ConverterProgram: everything the layout-converter RTL (rtl_templates/stream/
// st_layout_converter.sv) needs to turn a producer's stream into a consumer's (docs/itensor.md,
// "The converter RTL"): token sizes, element width, buffer size, tokens per phase on each side,
// and the address tables that say, for every token of one phase, at which buffer address each
// of its elements is written (producer) or read (consumer). Every phase (one iteration of the
// shared loops around the buffer) uses the same tables. Also here: the $readmemh files the RTL
// loads, and a C++ simulation of the program used by the tests.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/converter_buffer.h"
#include "ir/itensor_type.h"

namespace st::ir {

struct ConverterProgram {
  /// Bits of one scalar element (from the element type: i1 -> 1, f16 -> 16, ...).
  int64_t elementBits = 0;
  /// Scalar elements per producer / consumer token (the lanes of data_i / data_o).
  int64_t producerTokenElements = 0;
  int64_t consumerTokenElements = 0;
  /// Elements one bank of the ping-pong buffer holds (ConverterBufferShape::elements).
  int64_t bufferElements = 0;
  /// Tokens of one phase on each side (a side's token count divided by the phases).
  int64_t producerTokensPerPhase = 0;
  int64_t consumerTokensPerPhase = 0;
  /// Phases of one tensor (ConverterBufferShape::phases).
  int64_t phases = 0;
  /// producerAddresses[t][e]: the buffer address (row-major over the buffer shape) of element e
  /// (row-major within the token) of producer token t of a phase. A producer reuse loop inside
  /// the phase writes the same addresses again (with identical data).
  std::vector<std::vector<int64_t>> producerAddresses;
  /// consumerAddresses[t][e]: the same for the consumer; a consumer reuse loop re-reads.
  std::vector<std::vector<int64_t>> consumerAddresses;
};

/// Builds the program of the converter `buffer` = inferConverterBuffer(producer, consumer).
/// The buffer address of tensor element (i_0, ..., i_{r-1}) is row-major over the buffer shape
/// of (i_j mod shape_j): a dim whose loop is shared holds one tile (shape_j = its step), every
/// other dim holds the full tensor extent. Throws st::Error if no converter is needed or the
/// streams do not split into `phases` equal phases.
ConverterProgram buildConverterProgram(const ITensorType &producer, const ITensorType &consumer,
                                       const ConverterBufferShape &buffer);


/// The size parameters of one st_layout_converter instance: the largest program its tables may
/// hold. A compiled design sets them to its program's figures (converterLimitsOf).
struct ConverterLimits {
  int64_t elementBits = 8;         ///< ElemBits
  int64_t maxProducerElements = 1; ///< MaxProdElems: lanes of data_i
  int64_t maxConsumerElements = 1; ///< MaxConsElems: lanes of data_o
  int64_t maxBufferElements = 1;   ///< MaxBufferElems: words of one bank
  int64_t maxProducerTokens = 1;   ///< MaxProdTokens: producer tokens per phase
  int64_t maxConsumerTokens = 1;   ///< MaxConsTokens: consumer tokens per phase
};

/// The limits that fit `program` exactly.
ConverterLimits converterLimitsOf(const ConverterProgram &program);

/// Address width of the tables: clog2(maxBufferElements), at least 1.
int64_t converterAddressBits(const ConverterLimits &limits);

/// The three $readmemh files (text) of a program under `limits` (docs/itensor.md):
/// counts: 4 lines of 8 hex digits: producer tokens per phase, consumer tokens per phase,
///   producer token elements, consumer token elements.
/// producer/consumer table: one line per token of a phase, the addresses of its lanes packed
///   (lane 0 in the least significant AddrBits bits, MaxProdElems / MaxConsElems lanes, unused
///   lanes 0), in hex. Throws st::Error naming the limit a program exceeds.
std::string converterCountsMem(const ConverterProgram &program, const ConverterLimits &limits);
std::string converterProducerTableMem(const ConverterProgram &program,
                                      const ConverterLimits &limits);
std::string converterConsumerTableMem(const ConverterProgram &program,
                                      const ConverterLimits &limits);
/// Writes the three files; throws st::Error naming a file that cannot be written.
void writeConverterTables(const ConverterProgram &program, const ConverterLimits &limits,
                          const std::string &countsPath, const std::string &producerPath,
                          const std::string &consumerPath);

/// Runs the program on a producer's element stream (element values in producer element order,
/// a whole number of phases) the way the RTL does: per phase, writes the producer's tokens into
/// a cleared bank, then reads the consumer's tokens. Returns the consumer's element stream.
/// Throws st::Error if an address lies outside the buffer or a read hits an address not
/// written in that phase.
std::vector<int64_t> simulateConverterProgram(const ConverterProgram &program,
                                              const std::vector<int64_t> &producerElements);

} // namespace st::ir
