// Params: the parameter overrides of one Verilated configuration, as the testbench sees them.
#pragma once

#include <initializer_list>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>

namespace st::tb {

class Params {
public:
  Params(std::initializer_list<std::pair<const std::string, long long>> values) : values_(values) {}

  /// The value of `name`; throws if the configuration does not set it.
  long long operator[](const std::string &name) const {
    auto it = values_.find(name);
    if (it == values_.end())
      throw std::invalid_argument("configuration does not set parameter '" + name + "'");
    return it->second;
  }
  long long get(const std::string &name, long long fallback) const {
    auto it = values_.find(name);
    return it == values_.end() ? fallback : it->second;
  }
  std::string toString() const {
    std::string s;
    for (const auto &[k, v] : values_)
      s += (s.empty() ? "" : ",") + k + "=" + std::to_string(v);
    return s;
  }

private:
  std::map<std::string, long long> values_;
};

} // namespace st::tb
