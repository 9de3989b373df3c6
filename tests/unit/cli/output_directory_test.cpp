// Unit tests of cli/output_directory (issue 19): every case in which an output path is refused
// leaves the user's files exactly as they were and nothing beside them; the cases that replace
// (a new path, an empty directory, a directory the tool wrote, --force on a foreign one) swap
// the new directory in whole, and a run that fails keeps the previous one.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "cli/output_directory.h"
#include "support/error.h"

namespace st::cli {
namespace {

namespace fs = std::filesystem;

std::string readFile(const fs::path &p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void writeFile(const fs::path &p, const std::string &text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

/// Every test works in a fresh directory and returns to the original working directory.
class OutputDirectoryTest : public ::testing::Test {
protected:
  void SetUp() override {
    original_ = fs::current_path();
    const char *tmp = std::getenv("TMPDIR");
    root_ = fs::path(tmp && *tmp ? tmp : "/tmp") /
            ("st_output_directory_test_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
    root_ = fs::canonical(root_);
  }
  void TearDown() override {
    fs::current_path(original_);
    fs::remove_all(root_);
  }

  OutputRequest request(const fs::path &path, OutputKind kind = OutputKind::Design,
                        bool force = false) const {
    OutputRequest r;
    r.path = path.string();
    r.option = "-o";
    r.command = "streamtensor compile";
    r.kind = kind;
    r.force = force;
    return r;
  }

  /// Writes a design through the staging directory, as `compile` does.
  void writeDesign(const fs::path &target, const std::string &report,
                   OutputKind kind = OutputKind::Design, bool force = false) {
    StagedOutputDirectory out(request(target, kind, force));
    writeFile(out.staging() / "report.json", report);
    writeFile(out.staging() / "rtl" / "top.sv", "module top; endmodule\n");
    EXPECT_EQ(out.publish(), "");
  }

  /// The names in `dir`, sorted (to see that nothing was left beside a target).
  static std::vector<std::string> names(const fs::path &dir) {
    std::vector<std::string> n;
    for (const auto &e : fs::directory_iterator(dir))
      n.push_back(e.path().filename().string());
    std::sort(n.begin(), n.end());
    return n;
  }

  /// Expects the request to be refused with one st::Error whose message holds every `parts`.
  void expectRefused(const OutputRequest &r, const std::vector<std::string> &parts) {
    try {
      StagedOutputDirectory out(r);
      ADD_FAILURE() << "expected '" << r.path << "' to be refused";
    } catch (const Error &e) {
      for (const std::string &p : parts)
        EXPECT_NE(std::string(e.what()).find(p), std::string::npos)
            << "message: " << e.what() << "\nexpected to contain: " << p;
    }
  }

  fs::path original_;
  fs::path root_;
};

TEST_F(OutputDirectoryTest, NewPathGetsTheDirectoryAndItsMarker) {
  const fs::path target = root_ / "out" / "design";
  writeDesign(target, "one");
  EXPECT_EQ(readFile(target / "report.json"), "one");
  EXPECT_TRUE(fs::is_regular_file(target / kOutputMarker));
  EXPECT_EQ(outputKindOf(target), OutputKind::Design);
  EXPECT_TRUE(foreignEntries(target, OutputKind::Design).empty());
  EXPECT_EQ(names(root_ / "out"), std::vector<std::string>{"design"}); // no staging left
}

TEST_F(OutputDirectoryTest, TrailingSlashNamesTheSameDirectory) {
  writeDesign(root_ / "d", "one");
  writeDesign(root_.string() + "/d/", "two");
  EXPECT_EQ(readFile(root_ / "d" / "report.json"), "two");
  EXPECT_EQ(names(root_), std::vector<std::string>{"d"});
}

TEST_F(OutputDirectoryTest, ForeignDirectoryIsRefusedAndKept) {
  const fs::path dir = root_ / "mine";
  writeFile(dir / "notes.txt", "my notes");
  writeFile(dir / "src" / "main.c", "int main() {}");
  expectRefused(request(dir),
                {dir.string(), "-o", "notes.txt", "src", "--force", "nothing was changed"});
  EXPECT_EQ(readFile(dir / "notes.txt"), "my notes");
  EXPECT_EQ(readFile(dir / "src" / "main.c"), "int main() {}");
  EXPECT_EQ(names(dir), (std::vector<std::string>{"notes.txt", "src"}));
  EXPECT_EQ(names(root_), std::vector<std::string>{"mine"});
}

TEST_F(OutputDirectoryTest, ForceReplacesAForeignDirectory) {
  const fs::path dir = root_ / "mine";
  writeFile(dir / "notes.txt", "my notes");
  writeDesign(dir, "forced", OutputKind::Design, /*force=*/true);
  EXPECT_EQ(readFile(dir / "report.json"), "forced");
  EXPECT_FALSE(fs::exists(dir / "notes.txt"));
  EXPECT_EQ(names(root_), std::vector<std::string>{"mine"});
}

TEST_F(OutputDirectoryTest, RegularFileIsRefusedEvenWithForce) {
  const fs::path file = root_ / "notes.txt";
  writeFile(file, "my notes");
  for (bool force : {false, true})
    expectRefused(request(file, OutputKind::Design, force),
                  {file.string(), "an existing regular file", "nothing was changed"});
  EXPECT_TRUE(fs::is_regular_file(file));
  EXPECT_EQ(readFile(file), "my notes");
  EXPECT_EQ(names(root_), std::vector<std::string>{"notes.txt"});
}

TEST_F(OutputDirectoryTest, SymbolicLinksToFilesAndToNothingAreRefused) {
  writeFile(root_ / "notes.txt", "my notes");
  fs::create_symlink(root_ / "notes.txt", root_ / "link");
  fs::create_symlink(root_ / "nowhere", root_ / "dangling");
  expectRefused(request(root_ / "link", OutputKind::Design, true), {"regular file"});
  expectRefused(request(root_ / "dangling", OutputKind::Design, true), {"does not exist"});
  EXPECT_EQ(readFile(root_ / "notes.txt"), "my notes");
  EXPECT_FALSE(fs::exists(root_ / "nowhere"));
}

TEST_F(OutputDirectoryTest, SymbolicLinkToADesignReplacesTheDesignAndKeepsTheLink) {
  writeDesign(root_ / "real", "one");
  fs::create_symlink(root_ / "real", root_ / "link");
  writeDesign(root_ / "link", "two");
  EXPECT_TRUE(fs::is_symlink(root_ / "link"));
  EXPECT_EQ(readFile(root_ / "link" / "report.json"), "two");
  EXPECT_EQ(names(root_), (std::vector<std::string>{"link", "real"}));
}

TEST_F(OutputDirectoryTest, CurrentDirectoryIsRefusedEvenWithForce) {
  writeFile(root_ / "work" / "notes.txt", "my notes");
  fs::current_path(root_ / "work");
  for (const std::string &path : {std::string("."), std::string("./"), std::string(".."),
                                  (root_ / "work").string(), root_.string()})
    expectRefused(request(path, OutputKind::Design, true),
                  {"the current directory", "never replaced, even with --force"});
  EXPECT_EQ(readFile(root_ / "work" / "notes.txt"), "my notes");
  EXPECT_EQ(names(root_ / "work"), std::vector<std::string>{"notes.txt"});
}

TEST_F(OutputDirectoryTest, EmptyCurrentDirectoryIsRefusedToo) {
  fs::create_directories(root_ / "empty");
  fs::current_path(root_ / "empty");
  expectRefused(request("."), {"the current directory"});
  EXPECT_TRUE(fs::is_directory(root_ / "empty"));
}

TEST_F(OutputDirectoryTest, RootIsRefusedEvenWithForce) {
  expectRefused(request("/", OutputKind::Design, true), {"the root directory"});
  expectRefused(request("/..", OutputKind::HbmImage, true), {"the root directory"});
}

TEST_F(OutputDirectoryTest, HomeDirectoryAndItsParentsAreRefusedEvenWithForce) {
  const fs::path home = root_ / "home" / "user";
  writeFile(home / "projects" / "notes.txt", "my notes");
  const char *saved = std::getenv("HOME");
  const std::string savedHome = saved ? saved : "";
  ::setenv("HOME", home.c_str(), 1);
  expectRefused(request(home, OutputKind::Design, true), {"the home directory"});
  expectRefused(request(root_ / "home", OutputKind::Design, true), {"the home directory"});
  // Below the home directory the usual rules apply: a foreign directory needs --force.
  expectRefused(request(home / "projects"), {"notes.txt", "--force"});
  if (saved)
    ::setenv("HOME", savedHome.c_str(), 1);
  else
    ::unsetenv("HOME");
  EXPECT_EQ(readFile(home / "projects" / "notes.txt"), "my notes");
}

TEST_F(OutputDirectoryTest, AnInputIsNeverReplaced) {
  writeFile(root_ / "models" / "tiny" / "config.json", "{}");
  for (const fs::path &target : {root_ / "models" / "tiny", root_ / "models"}) {
    OutputRequest r = request(target, OutputKind::Design, true);
    r.inputs = {(root_ / "models" / "tiny").string()};
    expectRefused(r, {"the input", "never replaced"});
  }
  EXPECT_EQ(readFile(root_ / "models" / "tiny" / "config.json"), "{}");
}

TEST_F(OutputDirectoryTest, EmptyDirectoryIsReplaced) {
  fs::create_directories(root_ / "empty");
  writeDesign(root_ / "empty", "one");
  EXPECT_EQ(readFile(root_ / "empty" / "report.json"), "one");
}

TEST_F(OutputDirectoryTest, OwnDesignIsReplacedOnlyWhenPublished) {
  const fs::path target = root_ / "design";
  writeDesign(target, "one");
  {
    StagedOutputDirectory out(request(target));
    writeFile(out.staging() / "report.json", "two");
    EXPECT_EQ(readFile(target / "report.json"), "one"); // written beside, not in place
    EXPECT_EQ(out.publish(), "");
  }
  EXPECT_EQ(readFile(target / "report.json"), "two");
  EXPECT_FALSE(fs::exists(target / "rtl")); // the old directory is gone, not merged
  EXPECT_EQ(names(root_), std::vector<std::string>{"design"});
}

TEST_F(OutputDirectoryTest, FailedRunKeepsThePreviousDesignAndRemovesItsStaging) {
  const fs::path target = root_ / "design";
  writeDesign(target, "one");
  try {
    StagedOutputDirectory out(request(target));
    writeFile(out.staging() / "report.json", "half");
    throw std::runtime_error("the compiler failed");
  } catch (const std::runtime_error &) {
  }
  EXPECT_EQ(readFile(target / "report.json"), "one");
  EXPECT_TRUE(fs::is_regular_file(target / "rtl" / "top.sv"));
  EXPECT_EQ(names(root_), std::vector<std::string>{"design"});
}

TEST_F(OutputDirectoryTest, FailedRunRemovesTheParentsItCreated) {
  {
    StagedOutputDirectory out(request(root_ / "a" / "b" / "design"));
    writeFile(out.staging() / "report.json", "half");
  }
  EXPECT_TRUE(names(root_).empty());
}

TEST_F(OutputDirectoryTest, OwnDesignHoldingAUserFileIsRefused) {
  const fs::path target = root_ / "design";
  writeDesign(target, "one");
  writeFile(target / "notes.txt", "my notes");
  fs::create_directories(target / "sim"); // written by `streamtensor sim`: the tool's
  expectRefused(request(target), {"design directory", "notes.txt", "--force"});
  EXPECT_EQ(readFile(target / "notes.txt"), "my notes");
  EXPECT_EQ(readFile(target / "report.json"), "one");
}

TEST_F(OutputDirectoryTest, DirectoryOfTheOtherKindIsRefused) {
  writeDesign(root_ / "design", "one");
  expectRefused(request(root_ / "design", OutputKind::HbmImage),
                {"a design directory written by 'streamtensor compile'", "--force"});
  writeDesign(root_ / "image", "img", OutputKind::HbmImage);
  EXPECT_EQ(outputKindOf(root_ / "image"), OutputKind::HbmImage);
  expectRefused(request(root_ / "image"), {"an HBM image directory"});
  EXPECT_EQ(readFile(root_ / "design" / "report.json"), "one");
}

TEST_F(OutputDirectoryTest, DirectoriesWrittenBeforeTheMarkerAreRecognised) {
  // An LLM design: design.json with the tool's format.
  writeFile(root_ / "llm" / "design.json", R"({"format": "streamtensor-llm-design-1"})");
  writeFile(root_ / "llm" / "hbm" / "manifest.json", "{}");
  EXPECT_EQ(outputKindOf(root_ / "llm"), OutputKind::Design);
  writeDesign(root_ / "llm", "new");
  EXPECT_EQ(readFile(root_ / "llm" / "report.json"), "new");
  // A graph design: tb/design.json with its top and buffers, and report.json.
  writeFile(root_ / "graph" / "tb" / "design.json", R"({"top": "t_top", "buffers": []})");
  writeFile(root_ / "graph" / "report.json", "{}");
  writeFile(root_ / "graph" / "dataflow.txt", "");
  EXPECT_EQ(outputKindOf(root_ / "graph"), OutputKind::Design);
  writeFile(root_ / "graph" / "notes.txt", "my notes");
  expectRefused(request(root_ / "graph"), {"notes.txt"});
  EXPECT_EQ(readFile(root_ / "graph" / "notes.txt"), "my notes");
  // An HBM image.
  writeFile(root_ / "img" / "manifest.json", R"({"format": "streamtensor-hbm-image-1"})");
  writeFile(root_ / "img" / "hbm_pc00.bin", "");
  writeFile(root_ / "img" / "rope_block_rope_q.mem", "");
  EXPECT_EQ(outputKindOf(root_ / "img"), OutputKind::HbmImage);
  EXPECT_TRUE(foreignEntries(root_ / "img", OutputKind::HbmImage).empty());
  // A look-alike is not enough: another tool's design.json.
  writeFile(root_ / "other" / "design.json", R"({"format": "something-else"})");
  EXPECT_EQ(outputKindOf(root_ / "other"), std::nullopt);
  expectRefused(request(root_ / "other"), {"did not write", "design.json"});
}

TEST_F(OutputDirectoryTest, TargetThatChangesDuringTheRunIsNotReplaced) {
  const fs::path target = root_ / "design";
  {
    StagedOutputDirectory out(request(target));
    writeFile(out.staging() / "report.json", "new");
    writeFile(target / "notes.txt", "written meanwhile");
    EXPECT_THROW(out.publish(), Error);
  }
  EXPECT_EQ(readFile(target / "notes.txt"), "written meanwhile");
  EXPECT_EQ(names(target), std::vector<std::string>{"notes.txt"});
  EXPECT_EQ(names(root_), std::vector<std::string>{"design"});
}

TEST_F(OutputDirectoryTest, StagingOfAKilledRunIsRemovedByTheNextRun) {
  // A process that has exited: its pid names no process (until reused, not within this test).
  const pid_t child = ::fork();
  if (child == 0)
    ::_exit(0);
  ASSERT_GT(child, 0);
  ::waitpid(child, nullptr, 0);
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  const std::string marker = std::string(R"({"tool": "streamtensor", "pid": )") +
                             std::to_string(child) + R"(, "host": ")" + host + "\"}";
  writeFile(root_ / "design.partial-1" / ".streamtensor-staging", marker);
  writeFile(root_ / "design.partial-1" / "report.json", "half");
  // The same name without the marker, or a live process's, is not the tool's to remove.
  writeFile(root_ / "design.partial-2" / "notes.txt", "my notes");
  writeFile(root_ / "design.partial-3" / ".streamtensor-staging",
            std::string(R"({"tool": "streamtensor", "pid": )") + std::to_string(::getpid()) +
                R"(, "host": ")" + host + "\"}");
  writeDesign(root_ / "design", "one");
  EXPECT_EQ(names(root_),
            (std::vector<std::string>{"design", "design.partial-2", "design.partial-3"}));
  EXPECT_EQ(names(root_ / "design"),
            (std::vector<std::string>{".streamtensor-output", "report.json", "rtl"}));
}

TEST_F(OutputDirectoryTest, EmptyPathIsRefused) {
  expectRefused(request(""), {"-o", "a directory path"});
}

TEST_F(OutputDirectoryTest, OutputFilesAreOverwrittenOnlyWhenTheToolWroteThem) {
  const auto ours = [](const fs::path &p) { return readFile(p) == "ours"; };
  const fs::path file = root_ / "trace.fst";
  EXPECT_NO_THROW(checkOutputFile(file, "--trace", "an FST waveform", ours)); // absent
  writeFile(file, "ours");
  EXPECT_NO_THROW(checkOutputFile(file, "--trace", "an FST waveform", ours));
  writeFile(file, "my waveform");
  EXPECT_THROW(checkOutputFile(file, "--trace", "an FST waveform", ours), Error);
  fs::create_directories(root_ / "dir.fst");
  EXPECT_THROW(checkOutputFile(root_ / "dir.fst", "--trace", "an FST waveform", ours), Error);
  EXPECT_EQ(readFile(file), "my waveform");
}

} // namespace
} // namespace st::cli
