// Converter buffer inference: the shared-loop walk over canonical stream forms and the buffer
// footprint (docs/itensor.md, "The converter buffer").
//
// Why the rule is sound. Fix one iteration of the shared loops. Every shared mapped loop fixes
// the same tile of width e_j (the common element size) in its data dim j on both sides; the
// inner loops of each side then stream exactly the block B = (that tile in each shared dim) x
// (the whole extent of every other dim), possibly several times (inner reuse loops). So the
// producer writes all of B, and only B, before either side moves to the next shared iteration,
// and the consumer reads all of B, and only B: a ping-pong buffer of |B| elements, swapped once
// per shared iteration, converts the streams. A shared reuse loop is sound for the same reason:
// on both sides each of its trips streams the same block again, so the converter refills the
// buffer from the producer's repeated tokens on each trip instead of keeping data across trips
// (a converter that dropped the producer's repeats would need the whole reused footprint).
#include "ir/converter_buffer.h"

#include <algorithm>

#include "support/error.h"

namespace st::ir {

namespace {

bool shareable(const ITensorType &p, const ITensorType &c, unsigned k) {
  if (p.loops[k].tripCount != c.loops[k].tripCount)
    return false;
  std::optional<unsigned> dp = p.dataDimOfLoop(k), dc = c.dataDimOfLoop(k);
  if (!dp && !dc)
    return true; // a reuse loop on both sides
  return dp && dc && *dp == *dc && p.loops[k].step == c.loops[k].step;
}

/// Extent of data dim j that `t`'s loops inside the first `shared` ones touch in one iteration.
int64_t innerFootprint(const ITensorType &t, unsigned shared, unsigned j) {
  if (!t.iterMap[j] || *t.iterMap[j] < shared)
    return t.elementShape[j];
  const ITensorLoop &l = t.loops[*t.iterMap[j]];
  return l.tripCount * l.step;
}

} // namespace

int64_t ConverterBufferShape::phases() const {
  int64_t n = 1;
  for (const auto &l : sharedLoops)
    n *= l.tripCount;
  return n;
}

ConverterBufferShape inferConverterBuffer(const ITensorType &producer,
                                          const ITensorType &consumer) {
  producer.verify();
  consumer.verify();
  ConverterBufferShape r;
  r.tensorShape = producer.tensorShape();
  r.elementType = producer.elementType;
  std::vector<int64_t> consumerShape = consumer.tensorShape();
  if (consumerShape != r.tensorShape || consumer.elementType != producer.elementType)
    throw Error("converter from " + producer.toString(), "consumer type " + consumer.toString(),
                "an itensor over the producer's tensor " +
                    tensorTypeString(r.tensorShape, r.elementType) + ", got one over " +
                    tensorTypeString(consumerShape, consumer.elementType));

  std::vector<std::vector<unsigned>> pOrigin, cOrigin;
  ITensorType p = canonicalStream(producer, &pOrigin);
  ITensorType c = canonicalStream(consumer, &cOrigin);
  if (p == c)
    return r; // the same stream: a FIFO, no converter

  r.converterNeeded = true;
  unsigned shared = 0;
  while (shared < p.numLoops() && shared < c.numLoops() && shareable(p, c, shared)) {
    SharedLoop l;
    l.tripCount = p.loops[shared].tripCount;
    l.step = p.loops[shared].step;
    l.dataDim = p.dataDimOfLoop(shared);
    l.producerLoops = pOrigin[shared];
    l.consumerLoops = cOrigin[shared];
    r.sharedLoops.push_back(l);
    ++shared;
  }
  r.elements = 1;
  for (unsigned j = 0; j < p.rank(); ++j) {
    r.shape.push_back(std::max(innerFootprint(p, shared, j), innerFootprint(c, shared, j)));
    r.elements *= r.shape.back();
  }
  return r;
}

} // namespace st::ir
