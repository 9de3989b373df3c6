// Unit tests of the kernel templates' descriptors (model/kernel_templates): every parameter name
// a descriptor writes is a parameter of the template's SystemVerilog source, a node's
// parameters decode back to the Params they were encoded from, and optional parameters are left
// out exactly when the template's default holds.
#include "model/kernel_templates.h"

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "support/error.h"

namespace st::model {
namespace {

namespace fs = std::filesystem;

/// The parameter names the module's source declares (`parameter <type> Name = ...`).
std::set<std::string> declaredParameters(const std::string &module) {
  for (const auto &dir : fs::directory_iterator(ST_RTL_TEMPLATES_DIR)) {
    const fs::path file = dir.path() / (module + ".sv");
    if (!fs::exists(file))
      continue;
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    const std::string source = text.str();
    std::set<std::string> names;
    const std::regex declaration(R"(\bparameter\b[^=;()]*?\b([A-Za-z_]\w*)\s*=)");
    for (auto it = std::sregex_iterator(source.begin(), source.end(), declaration);
         it != std::sregex_iterator(); ++it)
      names.insert((*it)[1]);
    return names;
  }
  ADD_FAILURE() << "no rtl_templates/*/" << module << ".sv";
  return {};
}

template <typename P> void expectNamesDeclared(const TemplateDescriptor<P> &d) {
  const std::set<std::string> declared = declaredParameters(d.module());
  std::set<std::string> seen;
  for (const std::string &name : d.names()) {
    EXPECT_TRUE(declared.count(name)) << d.module() << " declares no parameter " << name;
    EXPECT_TRUE(seen.insert(name).second) << d.module() << " lists " << name << " twice";
  }
}

TEST(TemplateDescriptors, EveryNameIsAParameterOfTheTemplateSource) {
  expectNamesDeclared(linearTemplate());
  expectNamesDeclared(normTemplate());
  expectNamesDeclared(ropeTemplate());
  expectNamesDeclared(attentionTemplate());
  expectNamesDeclared(embeddingTemplate());
  expectNamesDeclared(activationTemplate());
  expectNamesDeclared(gatedActivationTemplate());
  expectNamesDeclared(residualAddTemplate());
  expectNamesDeclared(argmaxTemplate());
  expectNamesDeclared(widthConverterTemplate());
  expectNamesDeclared(gemvEngineTemplate());
  // gemvCallTemplate() is left out: a call node is joined into the engine before emission, and
  // its K, NOut, NDeliver and GroupSize are the call's own, not the template's.
  expectNamesDeclared(matmulTemplate());
  expectNamesDeclared(reduceTemplate());
  expectNamesDeclared(forkTemplate());
  expectNamesDeclared(layerLoopTemplate());
  expectNamesDeclared(layoutConverterTemplate());
}

ir::DataflowNode nodeWith(const char *module, std::vector<ir::NodeParam> params) {
  ir::DataflowNode n;
  n.name = "k0";
  n.module = module;
  n.params = std::move(params);
  return n;
}

TEST(TemplateDescriptors, LinearRoundTripsInTheLoweringsOrder) {
  LinearParams p;
  p.k = 896;
  p.nOut = 4864;
  p.rows = 2;
  p.kLanes = 64;
  p.lanes = 2;
  p.weightBits = 4;
  p.activationBits = 8;
  p.groupSize = 128;
  p.outputBits = 16;
  p.wordBits = 512;
  const std::vector<ir::NodeParam> params = linearTemplate().encode(p);
  ASSERT_EQ(params.size(), 10u);
  EXPECT_EQ(params.front().name, "K");
  EXPECT_EQ(params.front().value, 896);
  EXPECT_EQ(params.back().name, "WordBits");
  const LinearParams back = linearTemplate().decode(nodeWith("st_linear", params));
  EXPECT_EQ(back.nOut, 4864);
  EXPECT_EQ(back.groupSize, 128);
  EXPECT_EQ(back.wordBits, 512);
}

TEST(TemplateDescriptors, OptionalParametersAreLeftOutAtTheirDefault) {
  AttentionParams p;
  EXPECT_EQ(attentionTemplate().encode(p).size(), 7u); // two-pass, position-major, no rounding
  p.blockMajor = true;
  p.cacheRound = 2;
  p.onePass = true;
  p.tilePositions = 64; // the template's default, written anyway in one-pass designs
  const std::vector<ir::NodeParam> params = attentionTemplate().encode(p);
  ASSERT_EQ(params.size(), 11u);
  EXPECT_EQ(params[10].name, "TilePositions");
  const AttentionParams back = attentionTemplate().decode(nodeWith("st_attention", params));
  EXPECT_TRUE(back.blockMajor);
  EXPECT_EQ(back.cacheRound, 2);
  EXPECT_TRUE(back.onePass);
  // A node without the optional parameters has the template's defaults.
  std::vector<ir::NodeParam> bare = params;
  bare.resize(7);
  const AttentionParams plain = attentionTemplate().decode(nodeWith("st_attention", bare));
  EXPECT_FALSE(plain.blockMajor);
  EXPECT_EQ(plain.cacheRound, 1);
  EXPECT_FALSE(plain.onePass);
}

TEST(TemplateDescriptors, AMissingRequiredParameterIsNamed) {
  std::vector<ir::NodeParam> params = residualAddTemplate().encode(ResidualAddParams{});
  params.erase(params.begin() + 2); // BBits
  try {
    residualAddTemplate().decode(nodeWith("st_residual_add", params));
    FAIL() << "expected an error";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("BBits"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("k0"), std::string::npos) << e.what();
  }
}

} // namespace
} // namespace st::model
