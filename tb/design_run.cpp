// DesignRun: the design manifest and binary data files of a generated testbench.
#include "design_run.h"

#include <stdexcept>

namespace st::tb {

std::vector<uint8_t> readBinaryFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw TestFailure("cannot read " + path);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

void writeBinaryFile(const std::string &path, const std::vector<uint8_t> &bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char *>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!out)
    throw TestFailure("cannot write " + path);
}

DesignManifest loadDesignManifest(const std::string &path) {
  std::ifstream in(path);
  if (!in)
    throw std::runtime_error("cannot read the design manifest " + path);
  nlohmann::json j = nlohmann::json::parse(in);
  std::string dir = path.find('/') == std::string::npos ? "." : path.substr(0, path.rfind('/'));
  DesignManifest m;
  m.top = j.at("top").get<std::string>();
  m.kernelClockMhz = j.at("kernel_clock_mhz").get<double>();
  for (const auto &b : j.at("buffers"))
    m.buffers.push_back(
        {b.at("name").get<std::string>(), b.at("role").get<std::string>() == "input",
         b.at("address").get<uint64_t>(), b.at("bytes").get<uint64_t>(),
         b.at("arg_offset").get<unsigned>(), dir + "/" + b.at("file").get<std::string>(),
         b.at("role").get<std::string>()});
  return m;
}

void applyArgRegisters(DesignManifest &manifest, const std::vector<ArgRegister> &registers) {
  if (registers.size() != manifest.buffers.size())
    throw TestFailure("the kernel header lists " + std::to_string(registers.size()) +
                      " arguments, the manifest " + std::to_string(manifest.buffers.size()) +
                      " buffers");
  for (DesignBuffer &b : manifest.buffers) {
    bool found = false;
    for (const ArgRegister &r : registers)
      if (r.name == b.name) {
        b.argOffset = r.offset;
        found = true;
      }
    if (!found)
      throw TestFailure("buffer '" + b.name +
                        "' of the manifest has no argument in the kernel "
                        "header");
  }
}

} // namespace st::tb
