// Engine channel groups (see engine_channel_groups.h).
#include "llm/engine_channel_groups.h"

#include <map>
#include <utility>

namespace st::llm {

std::vector<std::vector<int>> engineChannelGroups(const std::vector<sim::MemoryRead> &reads,
                                                  int64_t channels) {
  // Per channel, the (read, block) pairs drawing on it (block 0 for a read's `channels`, b + 1
  // for its block b's blockChannels).
  using Use = std::pair<size_t, size_t>;
  std::vector<std::vector<Use>> readsOf(static_cast<size_t>(channels));
  auto note = [&](const std::vector<int> &chans, Use use) {
    for (int c : chans)
      if (c >= 0 && c < channels)
        readsOf[static_cast<size_t>(c)].push_back(use);
  };
  for (size_t i = 0; i < reads.size(); ++i) {
    note(reads[i].channels, {i, 0});
    for (size_t b = 0; b < reads[i].blockChannels.size(); ++b)
      note(reads[i].blockChannels[b], {i, b + 1});
  }
  std::map<std::vector<Use>, size_t> groupOf;
  std::vector<std::vector<int>> groups;
  for (int c = 0; c < static_cast<int>(channels); ++c) {
    const auto [it, added] = groupOf.emplace(readsOf[static_cast<size_t>(c)], groups.size());
    if (added)
      groups.emplace_back();
    groups[it->second].push_back(c);
  }
  return groups;
}

} // namespace st::llm
