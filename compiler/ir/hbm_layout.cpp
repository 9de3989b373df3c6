// HbmTensorLayout: an itensor's DMA loops and the packing of tensors into that layout.
#include "ir/hbm_layout.h"

#include "ir/dataflow_graph.h"
#include "support/error.h"

namespace st::ir {

namespace {

/// The stream with its reuse loops removed: the order in which distinct tokens are stored.
ITensorType storedOrder(const ITensorType &canonical) {
  ITensorType t = canonical;
  t.loops.clear();
  t.iterMap.assign(canonical.iterMap.size(), std::nullopt);
  std::vector<int> newIndex(canonical.numLoops(), -1);
  for (unsigned k = 0; k < canonical.numLoops(); ++k)
    if (canonical.dataDimOfLoop(k)) {
      newIndex[k] = static_cast<int>(t.loops.size());
      t.loops.push_back(canonical.loops[k]);
    }
  for (size_t j = 0; j < canonical.iterMap.size(); ++j)
    if (canonical.iterMap[j])
      t.iterMap[j] = static_cast<unsigned>(newIndex[*canonical.iterMap[j]]);
  return t;
}

} // namespace

int64_t HbmTensorLayout::wordsStreamed() const {
  int64_t n = 1;
  for (const DmaLoop &l : loops)
    n *= l.tripCount;
  return n;
}

std::vector<int64_t> HbmTensorLayout::burstLengths(int64_t maxBurstLen) const {
  constexpr int64_t kPageBytes = 4096;
  const int64_t wordBytes = wordBits / 8;
  std::vector<int64_t> bursts;
  std::vector<int64_t> index(loops.size(), 0);
  int64_t previous = -1, current = 0;
  const int64_t total = wordsStreamed();
  for (int64_t n = 0; n < total; ++n) {
    int64_t address = 0;
    for (size_t i = 0; i < loops.size(); ++i)
      address += index[i] * loops[i].strideBytes;
    const bool continues = current > 0 && address == previous + wordBytes &&
                           current < maxBurstLen && address % kPageBytes != 0;
    if (continues) {
      ++current;
    } else {
      if (current > 0)
        bursts.push_back(current);
      current = 1;
    }
    previous = address;
    for (size_t i = loops.size(); i-- > 0;) { // the next point, innermost loop first
      if (++index[i] < loops[i].tripCount)
        break;
      index[i] = 0;
    }
  }
  if (current > 0)
    bursts.push_back(current);
  return bursts;
}

int64_t readDmaWordsPerChannel(const DataflowNode &node) {
  const ITensorType &type = node.outputs.at(0).type;
  const auto slices = node.attributes.find(kAttrKvSlices);
  if (slices != node.attributes.end() && slices->second > 1)
    return type.numTokens();
  return hbmLayoutOf(type).wordsStreamed();
}

HbmTensorLayout hbmLayoutOf(const ITensorType &stream, int64_t wordBits) {
  HbmTensorLayout L;
  L.stream = stream;
  L.wordBits = wordBits;
  L.tokenBits = stream.elementsPerToken() * elementBits(stream.elementType);
  L.paddedTokenBits = 8;
  while (L.paddedTokenBits < L.tokenBits)
    L.paddedTokenBits *= 2;
  if (L.paddedTokenBits > wordBits)
    throw Error("hbm layout", stream.toString(),
                "tokens of at most " + std::to_string(wordBits) + " bits, got " +
                    std::to_string(L.tokenBits));
  const ITensorType c = canonicalStream(stream);
  int innermostReuse = -1;
  for (unsigned k = 0; k < c.numLoops(); ++k)
    if (!c.dataDimOfLoop(k))
      innermostReuse = static_cast<int>(k);
  L.tokensPerRun = 1;
  for (unsigned k = static_cast<unsigned>(innermostReuse + 1); k < c.numLoops(); ++k)
    L.tokensPerRun *= c.loops[k].tripCount;
  const int64_t tokensPerWord = wordBits / L.paddedTokenBits;
  L.wordsPerRun = (L.tokensPerRun + tokensPerWord - 1) / tokensPerWord;
  const int64_t runBytes = L.wordsPerRun * wordBits / 8;
  // Outer loops (up to the innermost reuse loop): reuse loops stride 0, the others step over
  // the runs of the non-reuse loops inside them.
  std::vector<DmaLoop> outer;
  L.runs = 1;
  for (int k = innermostReuse; k >= 0; --k) {
    const auto &loop = c.loops[static_cast<unsigned>(k)];
    if (!c.dataDimOfLoop(static_cast<unsigned>(k))) {
      outer.insert(outer.begin(), {loop.tripCount, 0});
      continue;
    }
    outer.insert(outer.begin(), {loop.tripCount, L.runs * runBytes});
    L.runs *= loop.tripCount;
  }
  // Merge a loop into the one inside it when they walk memory contiguously.
  for (size_t i = outer.size(); i-- > 1;) {
    DmaLoop &in = outer[i];
    DmaLoop &out = outer[i - 1];
    if (out.strideBytes != 0 && in.strideBytes != 0 &&
        out.strideBytes == in.tripCount * in.strideBytes) {
      in.tripCount *= out.tripCount;
      outer.erase(outer.begin() + static_cast<long>(i - 1));
    }
  }
  L.loops = outer;
  if (!L.loops.empty() && L.loops.back().strideBytes == runBytes && L.loops.back().tripCount > 0) {
    // The run loop continues the innermost outer loop: one longer contiguous walk.
    L.loops.back() = {L.loops.back().tripCount * L.wordsPerRun, wordBits / 8};
  } else {
    L.loops.push_back({L.wordsPerRun, wordBits / 8});
  }
  if (L.loops.size() > 6)
    throw Error("hbm layout", stream.toString(),
                "a DMA iteration space of at most 6 loops, needs " +
                    std::to_string(L.loops.size()));
  return L;
}

namespace {

/// Calls visit(index, bit) for every element in the order `layout` packs them: its index into
/// the tensor's values and the packed bit of its LSB.
template <typename Visit>
void forEachPackedElement(const HbmTensorLayout &layout, const ITensorType &stored, Visit visit) {
  const unsigned bits = elementBits(layout.stream.elementType);
  const int64_t runBits = layout.wordsPerRun * layout.wordBits;
  int64_t token = 0;
  for (const auto &offsets : enumerateTokenOffsets(stored)) {
    int64_t bit = (token / layout.tokensPerRun) * runBits +
                  (token % layout.tokensPerRun) * layout.paddedTokenBits;
    for (int64_t index : tokenElements(stored, offsets)) {
      visit(static_cast<size_t>(index), bit);
      bit += bits;
    }
    ++token;
  }
}

} // namespace

std::vector<uint8_t> packTensor(const HbmTensorLayout &layout, const std::vector<int64_t> &values) {
  const ITensorType stored = storedOrder(canonicalStream(layout.stream));
  const unsigned bits = elementBits(layout.stream.elementType);
  std::vector<uint8_t> bytes(static_cast<size_t>(layout.bytes()), 0);
  forEachPackedElement(layout, stored, [&](size_t index, int64_t bit) {
    const uint64_t v = static_cast<uint64_t>(values.at(index));
    for (unsigned b = 0; b < bits; ++b, ++bit)
      if ((v >> b) & 1)
        bytes[static_cast<size_t>(bit / 8)] |= static_cast<uint8_t>(1u << (bit % 8));
  });
  return bytes;
}

std::vector<int64_t> unpackTensor(const HbmTensorLayout &layout, const std::vector<uint8_t> &bytes,
                                  bool isSigned) {
  const ITensorType stored = storedOrder(canonicalStream(layout.stream));
  const unsigned bits = elementBits(layout.stream.elementType);
  int64_t elements = 1;
  for (int64_t d : stored.tensorShape())
    elements *= d;
  std::vector<int64_t> values(static_cast<size_t>(elements), 0);
  forEachPackedElement(layout, stored, [&](size_t index, int64_t bit) {
    uint64_t v = 0;
    for (unsigned b = 0; b < bits; ++b, ++bit)
      if ((bytes.at(static_cast<size_t>(bit / 8)) >> (bit % 8)) & 1)
        v |= uint64_t{1} << b;
    if (isSigned && bits < 64 && ((v >> (bits - 1)) & 1))
      v |= ~uint64_t{0} << bits;
    values[index] = static_cast<int64_t>(v);
  });
  return values;
}

} // namespace st::ir
