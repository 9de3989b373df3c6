// RoPE settings of config.json in the transformers 4.x and 5.x forms (see rope_config.h).
#include "frontend/rope_config.h"

#include <cstdio>
#include <optional>

#include "support/error.h"

namespace st::frontend {

using nlohmann::json;

bool RopeScaling::operator==(const RopeScaling &o) const {
  if (type != o.type)
    return false;
  switch (type) {
  case Type::None:
    return true;
  case Type::Linear:
    return factor == o.factor;
  case Type::Llama3:
    return factor == o.factor && lowFreqFactor == o.lowFreqFactor &&
           highFreqFactor == o.highFreqFactor && originalMaxPositions == o.originalMaxPositions;
  }
  return false;
}

namespace {

std::string number(double v) {
  char text[40];
  std::snprintf(text, sizeof text, "%.17g", v);
  return text;
}

} // namespace

std::string toString(const RopeScaling &s) {
  switch (s.type) {
  case RopeScaling::Type::None:
    return "default (no scaling)";
  case RopeScaling::Type::Linear:
    return "linear factor " + number(s.factor);
  case RopeScaling::Type::Llama3:
    return "llama3 factor " + number(s.factor) + ", low_freq_factor " + number(s.lowFreqFactor) +
           ", high_freq_factor " + number(s.highFreqFactor) +
           ", original_max_position_embeddings " + std::to_string(s.originalMaxPositions);
  }
  return "?";
}

namespace {

constexpr const char *kFull = "full_attention";
constexpr const char *kSliding = "sliding_attention";

/// A setting and the key it was read from ("rope_parameters.full_attention.rope_theta").
template <typename T> struct Given {
  std::optional<T> value;
  std::string key;
};

/// What one form says about one kind of layer.
struct RopeEntry {
  Given<double> theta;
  Given<RopeScaling> scaling;
};

class RopeReader {
public:
  RopeReader(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const std::string &key, const std::string &expected) const {
    throw Error(file_, key, expected);
  }

  static std::string keyOf(const std::string &path, const char *key) {
    return path.empty() ? std::string(key) : path + "." + key;
  }

  double positive(const json &d, const std::string &path, const char *key) const {
    const json &v = d[key];
    if (!v.is_number() || !(v.get<double>() > 0))
      fail(keyOf(path, key), "a positive number, got " + v.dump());
    return v.get<double>();
  }

  double required(const json &d, const std::string &path, const char *key,
                  const std::string &type) const {
    if (!d.contains(key) || d[key].is_null())
      fail(keyOf(path, key), "a positive number (rope_type " + type +
                                 " needs it; transformers versions disagree on a default)");
    return positive(d, path, key);
  }

  void partialRotaryFactor(const json &d, const std::string &path) const {
    const std::string key = keyOf(path, "partial_rotary_factor");
    if (!d.contains("partial_rotary_factor") || d["partial_rotary_factor"].is_null())
      return;
    const json &v = d["partial_rotary_factor"];
    if (!v.is_number() || v.get<double>() != 1.0)
      fail(key, "1 (rotation of the whole head; partial rotary embedding is not supported), got " +
                    v.dump());
  }

  /// One dict of RoPE parameters at `path` (rope_parameters, rope_parameters.<layer type> or
  /// rope_scaling). A missing rope_type means "default" where transformers says so
  /// (rope_parameters) and is an error where it has no meaning (rope_scaling).
  RopeEntry entry(const json &d, const std::string &path, bool typeRequired) const {
    if (!d.is_object())
      fail(path, "an object of RoPE parameters, got " + d.dump());
    RopeEntry e;
    std::string type;
    const bool hasType = d.contains("rope_type") && !d["rope_type"].is_null();
    const bool hasLegacyType = d.contains("type") && !d["type"].is_null();
    if (hasType && !d["rope_type"].is_string())
      fail(path + ".rope_type", "a string, got " + d["rope_type"].dump());
    if (hasLegacyType && !d["type"].is_string())
      fail(path + ".type", "a string, got " + d["type"].dump());
    if (hasType && hasLegacyType && d["rope_type"] != d["type"])
      fail(path + ".type", "the same RoPE type as rope_type (" + d["rope_type"].dump() + "), got " +
                               d["type"].dump());
    if (hasType)
      type = d["rope_type"].get<std::string>();
    else if (hasLegacyType)
      type = d["type"].get<std::string>();
    else if (typeRequired)
      fail(path + ".rope_type", "default, linear or llama3 (the key is missing)");
    else
      type = "default";
    const std::string typeKey = path + (hasType || !hasLegacyType ? ".rope_type" : ".type");
    RopeScaling s;
    if (type == "default") {
      s.type = RopeScaling::Type::None;
    } else if (type == "linear") {
      s.type = RopeScaling::Type::Linear;
      s.factor = required(d, path, "factor", type);
    } else if (type == "llama3") {
      s.type = RopeScaling::Type::Llama3;
      s.factor = required(d, path, "factor", type);
      s.lowFreqFactor = required(d, path, "low_freq_factor", type);
      s.highFreqFactor = required(d, path, "high_freq_factor", type);
      const double original = required(d, path, "original_max_position_embeddings", type);
      if (original != static_cast<double>(static_cast<int64_t>(original)))
        fail(path + ".original_max_position_embeddings",
             "an integer, got " + d["original_max_position_embeddings"].dump());
      s.originalMaxPositions = static_cast<int64_t>(original);
      if (s.highFreqFactor <= s.lowFreqFactor)
        fail(path + ".high_freq_factor", "a value above low_freq_factor (" +
                                             number(s.lowFreqFactor) + "), got " +
                                             number(s.highFreqFactor));
    } else {
      fail(typeKey, "default, linear or llama3 (the RoPE types streamtensor implements), got '" +
                        type + "'");
    }
    e.scaling = {s, typeKey};
    if (d.contains("rope_theta") && !d["rope_theta"].is_null())
      e.theta = {positive(d, path, "rope_theta"), path + ".rope_theta"};
    partialRotaryFactor(d, path);
    return e;
  }

  /// rope_parameters: flat, or one entry per layer type.
  void newForm(const json &p, bool perLayerType, RopeEntry &full, RopeEntry &sliding) const {
    if (!p.is_object())
      fail("rope_parameters",
           "an object (RoPE parameters, or one object per layer type), got " + p.dump());
    size_t layerKeys = 0;
    for (const auto &[key, value] : p.items())
      layerKeys += key == kFull || key == kSliding;
    if (layerKeys > 0 && layerKeys != p.size()) {
      for (const auto &[key, value] : p.items())
        if (key != kFull && key != kSliding)
          fail("rope_parameters." + key,
               "either RoPE parameters or one object per layer type (full_attention, "
               "sliding_attention), not both; got the key '" +
                   key + "' beside a layer type");
    }
    if (layerKeys == 0) {
      for (const auto &[key, value] : p.items())
        if (value.is_object())
          fail("rope_parameters." + key,
               "a RoPE parameter, or a layer type full_attention or sliding_attention holding "
               "an object; got the layer type '" +
                   key + "'");
      if (perLayerType)
        fail("rope_parameters",
             "one object per layer type ({\"full_attention\": {...}, \"sliding_attention\": "
             "{...}}, as transformers writes for Gemma 3), got a flat object " +
                 p.dump());
      full = entry(p, "rope_parameters", false);
      return;
    }
    for (const char *type : {kFull, kSliding}) {
      if (!p.contains(type) || p[type].is_null())
        continue;
      (type == std::string(kFull) ? full : sliding) =
          entry(p[type], std::string("rope_parameters.") + type, false);
    }
  }

  /// rope_theta + rope_scaling (+ rope_local_base_freq).
  void legacyForm(const json &c, bool perLayerType, RopeEntry &full, RopeEntry &sliding) const {
    if (c.contains("rope_scaling")) {
      if (c["rope_scaling"].is_null())
        full.scaling = {RopeScaling{}, "rope_scaling"};
      else
        full = entry(c["rope_scaling"], "rope_scaling", true);
    }
    if (c.contains("rope_theta") && !c["rope_theta"].is_null()) {
      const double theta = positive(c, "", "rope_theta");
      if (full.theta.value && *full.theta.value != theta)
        fail(full.theta.key, "the same value as rope_theta (" + number(theta) + "), got " +
                                 number(*full.theta.value));
      full.theta = {theta, "rope_theta"};
    }
    if (perLayerType && c.contains("rope_local_base_freq") && !c["rope_local_base_freq"].is_null())
      sliding.theta = {positive(c, "", "rope_local_base_freq"), "rope_local_base_freq"};
    partialRotaryFactor(c, "");
  }

  template <typename T>
  T merge(const Given<T> &fromNew, const Given<T> &fromLegacy, const T &fallback,
          const std::string &(*describe)(const T &, std::string &)) const {
    if (fromNew.value && fromLegacy.value && !(*fromNew.value == *fromLegacy.value)) {
      std::string a, b;
      fail(fromNew.key, "the same value as " + fromLegacy.key + " (" +
                            describe(*fromLegacy.value, a) + "): the config carries both forms " +
                            "and they must agree; got " + describe(*fromNew.value, b));
    }
    if (fromNew.value)
      return *fromNew.value;
    if (fromLegacy.value)
      return *fromLegacy.value;
    return fallback;
  }

private:
  std::string file_;
};

const std::string &describeTheta(const double &v, std::string &out) {
  return out = number(v);
}
const std::string &describeScaling(const RopeScaling &s, std::string &out) {
  return out = toString(s);
}

} // namespace

RopeConfig readRopeConfig(const json &c, const std::string &file, const RopeDefaults &defaults) {
  RopeReader r(file);
  RopeEntry newFull, newSliding, oldFull, oldSliding;
  if (c.contains("rope_parameters") && !c["rope_parameters"].is_null())
    r.newForm(c["rope_parameters"], defaults.perLayerType, newFull, newSliding);
  r.legacyForm(c, defaults.perLayerType, oldFull, oldSliding);
  RopeConfig rope;
  rope.full.theta = r.merge(newFull.theta, oldFull.theta, defaults.fullTheta, describeTheta);
  rope.full.scaling = r.merge(newFull.scaling, oldFull.scaling, RopeScaling{}, describeScaling);
  rope.sliding.theta =
      r.merge(newSliding.theta, oldSliding.theta, defaults.slidingTheta, describeTheta);
  rope.sliding.scaling =
      r.merge(newSliding.scaling, oldSliding.scaling, RopeScaling{}, describeScaling);
  return rope;
}

} // namespace st::frontend
