// Token-id files: the text a user evaluates a model on (`streamtensor eval --fidelity
// --text-ids FILE`), already tokenized by the model's own tokenizer (the compiler has none).
// Accepted forms, told apart by the first non-blank character:
//   JSON  {"sequences": [[ids...], ...]}   (the form of a fixture's calibration.json)
//   JSON  [[ids...], ...] or [ids...]       (several sequences, or one)
//   text  ids separated by commas and/or white space: one sequence (e.g. a tokenizer's dump)
// Sequences longer than a window are cut into consecutive windows, each evaluated from
// position 0 (the model's context is finite).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace st::frontend {

/// `item` as a token id: a whole decimal integer >= 0, else nullopt.
std::optional<int64_t> parseTokenId(const std::string &item);

/// Reads `file`. Throws st::Error naming the file and the field (or the position of a bad id)
/// for a missing or malformed file, an empty sequence or an id outside [0, vocabSize).
std::vector<std::vector<int64_t>> readTokenIdFile(const std::string &file, int64_t vocabSize);

/// Cuts every sequence into consecutive windows of at most `window` tokens; a last piece shorter
/// than two tokens (nothing to predict from it) is dropped. Throws st::Error when `window` < 2.
std::vector<std::vector<int64_t>>
windowSequences(const std::vector<std::vector<int64_t>> &sequences, int64_t window);

} // namespace st::frontend
