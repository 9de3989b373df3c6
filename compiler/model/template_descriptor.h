// One RTL template's parameters in one place: the module (the template file
// rtl_templates/<dir>/<module>.sv), and for each SystemVerilog parameter its name and the field
// of the model's Params struct that holds it. The lowerings encode a Params struct into a
// dataflow node's parameters with it; the timing and resource models, the FIFO sizing, the plan
// and the emitter decode a node with it. A parameter's name is written once, in the template's
// descriptor (next to its Params struct), and unit.model.TemplateDescriptors checks every name
// against the template's own `parameter` list.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ir/dataflow_graph.h"
#include "support/error.h"

namespace st::model {

/// One template parameter of a Params struct P.
template <typename P> struct TemplateParam {
  const char *name; ///< the SystemVerilog parameter
  std::function<int64_t(const P &)> get;
  std::function<void(P &, int64_t)> set;
  /// The value a node without the parameter has (the template's default); nullopt: required.
  std::optional<int64_t> absent;
  /// When the lowering leaves the parameter out (the template's default then holds). Unset: left
  /// out when it equals `absent`.
  std::function<bool(const P &)> omitWhen;

  bool omitted(const P &p) const {
    if (omitWhen)
      return omitWhen(p);
    return absent && get(p) == *absent;
  }
};

/// A required parameter held in `member` (an integer, bool or enum field).
template <typename P, typename T> TemplateParam<P> templateParam(const char *name, T P::*member) {
  return {name, [member](const P &p) { return static_cast<int64_t>(p.*member); },
          [member](P &p, int64_t v) { p.*member = static_cast<T>(v); }, std::nullopt, nullptr};
}

/// An optional parameter: a node without it has `absent`; the lowering leaves it out when
/// `omitWhen` holds (by default: when it equals `absent`), so designs that never set it keep
/// their text.
template <typename P, typename T>
TemplateParam<P> optionalTemplateParam(const char *name, T P::*member, int64_t absent) {
  TemplateParam<P> t = templateParam(name, member);
  t.absent = absent;
  return t;
}
template <typename P, typename T, typename OmitWhen>
TemplateParam<P> optionalTemplateParam(const char *name, T P::*member, int64_t absent,
                                       OmitWhen omitWhen) {
  TemplateParam<P> t = optionalTemplateParam(name, member, absent);
  t.omitWhen = std::move(omitWhen);
  return t;
}

/// A template: its module and its parameters in the order a node lists them.
template <typename P> class TemplateDescriptor {
public:
  TemplateDescriptor(const char *module, std::vector<TemplateParam<P>> params)
      : module_(module), params_(std::move(params)) {}

  const char *module() const { return module_; }
  const std::vector<TemplateParam<P>> &params() const { return params_; }

  /// The node parameters of `p`, in the descriptor's order, optional ones left out as they say.
  std::vector<ir::NodeParam> encode(const P &p) const {
    std::vector<ir::NodeParam> out;
    for (const TemplateParam<P> &t : params_)
      if (!t.omitted(p))
        out.push_back({t.name, t.get(p), std::nullopt});
    return out;
  }

  /// `base` with every parameter of `node` read into its field (absent optional ones take their
  /// default). Throws st::Error naming the node and the first required parameter it lacks.
  P decode(const ir::DataflowNode &node, P base = {}) const {
    for (const TemplateParam<P> &t : params_) {
      if (auto v = node.param(t.name))
        t.set(base, *v);
      else if (t.absent)
        t.set(base, *t.absent);
      else
        throw Error("kernel parameters", "kernel '" + node.name + "' (" + node.module + ")",
                    std::string("a template parameter ") + t.name);
    }
    return base;
  }

  /// The names, in order (for the checks against the template's source).
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const TemplateParam<P> &t : params_)
      out.push_back(t.name);
    return out;
  }

private:
  const char *module_;
  std::vector<TemplateParam<P>> params_;
};

} // namespace st::model
