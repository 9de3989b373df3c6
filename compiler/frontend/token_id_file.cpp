// Token-id file reader (see token_id_file.h).
#include "frontend/token_id_file.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "support/error.h"

namespace st::frontend {

namespace {

int64_t checkedId(const std::string &file, const std::string &where, const nlohmann::json &t,
                  int64_t vocabSize) {
  if (!t.is_number_integer() || t.get<int64_t>() < 0 || t.get<int64_t>() >= vocabSize)
    throw Error(file, where,
                "token ids in [0, " + std::to_string(vocabSize) + "), got " + t.dump());
  return t.get<int64_t>();
}

std::vector<int64_t> jsonSequence(const std::string &file, const std::string &where,
                                  const nlohmann::json &s, int64_t vocabSize) {
  if (!s.is_array() || s.empty())
    throw Error(file, where, "a non-empty array of token ids");
  std::vector<int64_t> ids;
  for (const auto &t : s)
    ids.push_back(checkedId(file, where, t, vocabSize));
  return ids;
}

std::vector<std::vector<int64_t>> jsonSequences(const std::string &file, const std::string &field,
                                                const nlohmann::json &list, int64_t vocabSize) {
  if (!list.is_array() || list.empty())
    throw Error(file, field, "a non-empty array of token-id arrays");
  std::vector<std::vector<int64_t>> sequences;
  for (const auto &s : list)
    sequences.push_back(
        jsonSequence(file, field + "[" + std::to_string(sequences.size()) + "]", s, vocabSize));
  return sequences;
}

/// Plain text: integers separated by commas and/or white space.
std::vector<int64_t> textSequence(const std::string &file, const std::string &text,
                                  int64_t vocabSize) {
  std::vector<int64_t> ids;
  size_t i = 0;
  while (i < text.size()) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (std::isspace(c) || c == ',') {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < text.size() && !std::isspace(static_cast<unsigned char>(text[end])) &&
           text[end] != ',')
      ++end;
    const std::string item = text.substr(i, end - i);
    const std::optional<int64_t> v = parseTokenId(item);
    if (!v || *v >= vocabSize)
      throw Error(file, "token " + std::to_string(ids.size()),
                  "an integer token id in [0, " + std::to_string(vocabSize) + "), got '" + item +
                      "'");
    ids.push_back(*v);
    i = end;
  }
  if (ids.empty())
    throw Error(file, "text", "token ids separated by commas or white space (the file is empty)");
  return ids;
}

} // namespace

std::optional<int64_t> parseTokenId(const std::string &item) {
  size_t used = 0;
  long long v = -1;
  try {
    v = std::stoll(item, &used);
  } catch (const std::exception &) {
    return std::nullopt;
  }
  if (item.empty() || used != item.size() || v < 0)
    return std::nullopt;
  return v;
}

std::vector<std::vector<int64_t>> readTokenIdFile(const std::string &file, int64_t vocabSize) {
  std::ifstream in(file);
  if (!in)
    throw Error(file, "file", "a readable token-id file");
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos || (text[first] != '{' && text[first] != '['))
    return {textSequence(file, text, vocabSize)};
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const std::exception &e) {
    throw Error(file, "JSON", std::string("valid JSON (") + e.what() + ")");
  }
  if (j.is_object()) {
    if (!j.contains("sequences"))
      throw Error(file, "sequences", "a non-empty array of token-id arrays (the key is missing)");
    return jsonSequences(file, "sequences", j["sequences"], vocabSize);
  }
  if (!j.empty() && j[0].is_array())
    return jsonSequences(file, "sequences", j, vocabSize);
  return {jsonSequence(file, "ids", j, vocabSize)};
}

std::vector<std::vector<int64_t>>
windowSequences(const std::vector<std::vector<int64_t>> &sequences, int64_t window) {
  if (window < 2)
    throw Error("--window", std::to_string(window), "at least 2 tokens");
  std::vector<std::vector<int64_t>> out;
  for (const auto &s : sequences)
    for (size_t begin = 0; begin < s.size(); begin += static_cast<size_t>(window)) {
      const size_t end = std::min(s.size(), begin + static_cast<size_t>(window));
      if (end - begin >= 2)
        out.emplace_back(s.begin() + static_cast<long>(begin), s.begin() + static_cast<long>(end));
    }
  return out;
}

} // namespace st::frontend
