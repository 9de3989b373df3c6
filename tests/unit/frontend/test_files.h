// Test helpers: a scratch directory per test and a minimal safetensors writer, so malformed
// files can be made byte by byte.
#pragma once

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace st::frontend::testing {

inline std::filesystem::path scratchDir() {
  const auto *info = ::testing::UnitTest::GetInstance()->current_test_info();
  auto dir = std::filesystem::temp_directory_path() /
             (std::string("st_frontend_") + info->test_suite_name() + "_" + info->name());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

inline void writeText(const std::filesystem::path &p, const std::string &text) {
  std::ofstream(p, std::ios::binary) << text;
}

/// A safetensors file from a header JSON text and raw data bytes.
inline std::string safetensorsBytes(const std::string &header, const std::string &data) {
  std::string out(8, '\0');
  uint64_t n = header.size();
  for (int i = 0; i < 8; ++i)
    out[i] = static_cast<char>((n >> (8 * i)) & 0xff);
  return out + header + data;
}

inline std::string floatBytes(const std::vector<float> &v) {
  std::string s(v.size() * 4, '\0');
  std::memcpy(s.data(), v.data(), s.size());
  return s;
}

/// Expects `f` to throw st::Error whose message contains every one of `parts`.
template <typename F> void expectError(F f, const std::vector<std::string> &parts) {
  try {
    f();
    ADD_FAILURE() << "expected an st::Error";
  } catch (const st::Error &e) {
    for (const auto &p : parts)
      EXPECT_NE(std::string(e.what()).find(p), std::string::npos)
          << "message '" << e.what() << "' lacks '" << p << "'";
  }
}

} // namespace st::frontend::testing
