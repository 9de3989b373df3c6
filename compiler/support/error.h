// st::Error: the one exception type of the compiler. It carries where the problem is (`file`: a
// file, a text being parsed or an IR object), which field is wrong (`field`) and what was
// expected there (`expected`, which may end in ", got ..."). what() reads
// "<file>: <field>: expected <expected>".
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

namespace st {

class Error : public std::runtime_error {
public:
  Error(std::string file, std::string field, std::string expected)
      : std::runtime_error(file + ": " + field + ": expected " + expected), file_(std::move(file)),
        field_(std::move(field)), expected_(std::move(expected)) {}

  /// The file, text or IR object the error is about.
  const std::string &file() const { return file_; }
  /// The field (column, key, operand, ...) that is wrong.
  const std::string &field() const { return field_; }
  /// What was expected there.
  const std::string &expected() const { return expected_; }

private:
  std::string file_;
  std::string field_;
  std::string expected_;
};

} // namespace st
