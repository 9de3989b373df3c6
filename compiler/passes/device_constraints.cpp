// loadDeviceConstraints: reads constraints/<device>.yaml (the device facts live there, not in
// code) into DeviceConstraints.
#include <yaml-cpp/yaml.h>

#include "passes/compile_state.h"
#include "support/error.h"

namespace st::passes {

namespace {

/// <section>.<key> as a number, or 0 when the YAML does not give it.
double optionalDouble(const YAML::Node &root, const std::string &section, const std::string &key,
                      const std::string &file) {
  const YAML::Node n = root[section] ? root[section][key] : YAML::Node();
  if (!n)
    return 0;
  try {
    return n.as<double>();
  } catch (const YAML::Exception &) {
    throw Error(file, section + "." + key,
                "a number, got '" + (n.IsScalar() ? n.Scalar() : std::string()) + "'");
  }
}

int64_t requireInt(const YAML::Node &root, const std::string &path, const std::string &file) {
  YAML::Node node = YAML::Clone(root);
  std::string walked;
  size_t start = 0;
  while (start <= path.size()) {
    size_t dot = path.find('.', start);
    std::string key =
        path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    walked += (walked.empty() ? "" : ".") + key;
    if (!node.IsMap() || !node[key])
      throw Error(file, walked, "a key '" + key + "'");
    node = node[key];
    if (dot == std::string::npos)
      break;
    start = dot + 1;
  }
  try {
    return node.as<int64_t>();
  } catch (const YAML::Exception &) {
    throw Error(file, path, "an integer");
  }
}

/// slrs: (bottom first) and slr_boundaries: (one per pair of neighbours), the floorplan's
/// device (plan/floorplan); a device file without slrs: has no floorplan.
void readSlrs(const YAML::Node &root, const std::string &path, DeviceConstraints &d) {
  if (!root["slrs"])
    return;
  if (!root["slrs"].IsSequence())
    throw Error(path, "slrs", "a list of {name, lut, ff, dsp, bram36, uram, hbm}");
  for (size_t i = 0; i < root["slrs"].size(); ++i) {
    const YAML::Node slr = root["slrs"][i];
    const std::string where = "slrs[" + std::to_string(i) + "]";
    if (!slr.IsMap() || !slr["name"])
      throw Error(path, where, "a map with a 'name'");
    DeviceConstraints::Slr s;
    s.name = slr["name"].as<std::string>();
    s.lut = requireInt(slr, "lut", path + " " + where);
    s.ff = requireInt(slr, "ff", path + " " + where);
    s.dsp = requireInt(slr, "dsp", path + " " + where);
    s.bram36 = requireInt(slr, "bram36", path + " " + where);
    s.uram = requireInt(slr, "uram", path + " " + where);
    s.hbm = slr["hbm"] && slr["hbm"].as<bool>();
    d.slrs.push_back(s);
  }
  const YAML::Node b = root["slr_boundaries"];
  if (!b || !b.IsSequence() || b.size() + 1 != d.slrs.size())
    throw Error(path, "slr_boundaries",
                "one {name, sll} per pair of neighbouring SLRs (" +
                    std::to_string(d.slrs.empty() ? 0 : d.slrs.size() - 1) + ")");
  for (size_t i = 0; i < b.size(); ++i)
    d.sllPerBoundary.push_back(
        requireInt(b[i], "sll", path + " slr_boundaries[" + std::to_string(i) + "]"));
}

YAML::Node loadYaml(const std::string &path) {
  try {
    return YAML::LoadFile(path);
  } catch (const YAML::BadFile &) {
    throw Error(path, "file", "a readable device constraints YAML file");
  } catch (const YAML::Exception &e) {
    throw Error(path, "line " + std::to_string(e.mark.line + 1), "valid YAML (" + e.msg + ")");
  }
}

/// The hbm: section's pseudo-channels, their bytes, the burst boundary and the peak bandwidth.
void readHbm(const YAML::Node &root, const std::string &path, DeviceConstraints &d) {
  d.hbmPseudoChannels = requireInt(root, "hbm.pseudo_channels", path);
  d.hbmPseudoChannelBytes = requireInt(root, "hbm.pseudo_channel_bytes", path);
  d.hbmAlignmentBytes = requireInt(root, "hbm.axi_4k_boundary_bytes", path);
  d.hbmTotalPeakGBps = optionalDouble(root, "hbm", "total_peak_gbps", path);
  d.hbmMiniSwitchChannels =
      static_cast<int64_t>(optionalDouble(root, "hbm", "mini_switch_pseudo_channels", path));
  if (d.hbmPseudoChannels < 1 || d.hbmPseudoChannelBytes < 1 || d.hbmAlignmentBytes < 1 ||
      d.hbmTotalPeakGBps < 0)
    throw Error(path, "hbm",
                "positive pseudo_channels, pseudo_channel_bytes, axi_4k_boundary_bytes and a "
                "non-negative total_peak_gbps");
}

} // namespace

DeviceConstraints loadHbmConstraints(const std::string &path) {
  DeviceConstraints d;
  readHbm(loadYaml(path), path, d);
  return d;
}

DeviceConstraints loadDeviceConstraints(const std::string &path) {
  const YAML::Node root = loadYaml(path);
  DeviceConstraints d;
  if (!root["device"] || !root["device"]["name"] || !root["device"]["part"])
    throw Error(path, "device", "a map with 'name' and 'part'");
  d.name = root["device"]["name"].as<std::string>();
  d.part = root["device"]["part"].as<std::string>();
  if (!root["device"]["vitis_platform"])
    throw Error(path, "device.vitis_platform", "the Vitis platform name (v++ --platform)");
  d.vitisPlatform = root["device"]["vitis_platform"].as<std::string>();
  d.kernelClockMhz = requireInt(root, "device.default_kernel_clock_mhz", path);
  d.onChipMemoryBits = requireInt(root, "resources_available.bram36", path) *
                           requireInt(root, "memories.bram36_bits", path) +
                       requireInt(root, "resources_available.uram", path) *
                           requireInt(root, "memories.uram_bits", path);
  readHbm(root, path, d);
  d.kernelAxiDataBits = requireInt(root, "hbm.kernel_axi_data_bits", path);
  d.availableLut = requireInt(root, "resources_available.lut", path);
  d.availableFf = requireInt(root, "resources_available.ff", path);
  d.availableDsp = requireInt(root, "resources_available.dsp", path);
  d.availableBram36 = requireInt(root, "resources_available.bram36", path);
  d.availableUram = requireInt(root, "resources_available.uram", path);
  readSlrs(root, path, d);
  return d;
}

} // namespace st::passes
