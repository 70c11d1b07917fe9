//===- FusedPatternTest.cpp - the CUDA patterns agree with the fused kernels ===//
//
// The CUDA driver declares its fused target's patterns (drivers/cuda/
// patterns/*.mlir) and accepts a match only when a fused kernel implements
// it (checkFusedKernel). A pattern that promises more than its kernel does
// would make the driver reject its own matches and send them to the fallback
// target. These tests match every family's patterns together, as the driver
// declares them, over the model-shaped Input IR of the lit tests
// (test/Drivers/cuda-patterns-*.mlir), accepting every candidate, and
// expect each resulting subgraph of the fused target to be accepted by a
// fused kernel — so the families' patterns also hold up against each other
// (overlaps resolve by benefit).
//
//===----------------------------------------------------------------------===//

#include "drivers/cuda/FusedKernels.h"

#include "cgc/Compiler/Compiler.h"
#include "cgc/Dialect/CGC/IR/CGCOps.h"
#include "cgc/Dialect/CGCPattern/IR/CGCPatternOps.h"
#include "cgc/InitAllDialects.h"
#include "cgc/Interchange/ModuleIO.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace {

namespace fs = std::filesystem;

const char *const kFamilies[] = {"convolution", "matmul", "attention", "normalization",
                                 "elementwise"};

std::string readFile(const fs::path &path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

class FusedPatternTest : public ::testing::Test {
protected:
  FusedPatternTest() {
    mlir::DialectRegistry registry;
    cgc::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// Every family's patterns in one cgc.module, as the driver declares them.
  /// The source tree (the tests read the patterns and inputs from it); the
  /// tests skip where it is not present (a bundle of the test programs).
  static bool hasSources() {
    return fs::exists(fs::path(CGC_SOURCE_DIR) / "drivers/cuda/patterns");
  }

  mlir::OwningOpRef<cgc::ModuleOp> loadDeclaration() {
    mlir::OwningOpRef<cgc::ModuleOp> merged;
    for (const char *family : kFamilies) {
      fs::path path = fs::path(CGC_SOURCE_DIR) / "drivers/cuda/patterns" / (std::string(family) + ".mlir");
      mlir::OwningOpRef<cgc::ModuleOp> module =
          mlir::parseSourceString<cgc::ModuleOp>(readFile(path), &context, path.string());
      EXPECT_TRUE(module) << path;
      if (!module)
        return nullptr;
      if (!merged) {
        merged = std::move(module);
        continue;
      }
      mlir::Block &into = *merged->getBodyBlock();
      into.getOperations().splice(into.end(), module->getBodyBlock()->getOperations());
    }
    EXPECT_TRUE(mlir::succeeded(
        cgc::interchange::verifyInterface(*merged, cgc::interchange::Interface::SubgraphDeclaration)));
    return merged;
  }

  mlir::MLIRContext context;
};

TEST_F(FusedPatternTest, EveryFamilyDeclaresPatternsThatParse) {
  if (!hasSources())
    GTEST_SKIP() << "no source tree at " << CGC_SOURCE_DIR;
  mlir::OwningOpRef<cgc::ModuleOp> declaration = loadDeclaration();
  ASSERT_TRUE(declaration);
  for (const char *family : kFamilies) {
    fs::path path = fs::path(CGC_SOURCE_DIR) / "drivers/cuda/patterns" / (std::string(family) + ".mlir");
    EXPECT_NE(readFile(path).find("cgc_pattern.pattern"), std::string::npos)
        << family << " declares no pattern";
  }
}

TEST_F(FusedPatternTest, EveryMatchOfTheModelShapesHasAFusedKernel) {
  if (!hasSources())
    GTEST_SKIP() << "no source tree at " << CGC_SOURCE_DIR;
  mlir::OwningOpRef<cgc::ModuleOp> declaration = loadDeclaration();
  ASSERT_TRUE(declaration);
  cgc::compiler::Target target;
  target.name = "cuda";
  target.declaration = std::move(declaration);
  cgc::compiler::MatchOptions options;
  options.fallbackTarget = "cuda.fallback";

  unsigned numInputs = 0, numFused = 0;
  std::error_code error;
  for (const fs::directory_entry &entry :
       fs::directory_iterator(fs::path(CGC_SOURCE_DIR) / "test/Drivers", error)) {
    std::string name = entry.path().filename().string();
    if (name.rfind("cuda-patterns-", 0) != 0 || entry.path().extension() != ".mlir")
      continue;
    std::string text = readFile(entry.path());
    size_t start = 0;
    for (unsigned chunk = 0; start <= text.size(); ++chunk) {
      size_t split = text.find("// -----", start);
      std::string part = text.substr(start, split == std::string::npos ? std::string::npos
                                                                      : split - start);
      start = split == std::string::npos ? text.size() + 1 : split + 8;
      if (part.find("cgc.entry_point") == std::string::npos ||
          part.find("expected-error") != std::string::npos)
        continue;
      SCOPED_TRACE(name + " part " + std::to_string(chunk));
      mlir::OwningOpRef<cgc::ModuleOp> module =
          mlir::parseSourceString<cgc::ModuleOp>(part, &context, name);
      ASSERT_TRUE(module);
      ++numInputs;
      const cgc::compiler::Target *targets[] = {&target};
      ASSERT_TRUE(mlir::succeeded(cgc::compiler::matchSubgraphs(*module, targets, options)));
      for (cgc::SubgraphOp subgraph : module->getBodyBlock()->getOps<cgc::SubgraphOp>()) {
        if (subgraph.getOrigin() != "cuda")
          continue;
        ++numFused;
        cgc::FunctionalDefinitionOp definition = subgraph.getDefinition();
        std::optional<llvm::Error> fused = cgc::cuda::checkFusedKernel(definition);
        ASSERT_TRUE(fused.has_value())
            << "no fused kernel recognizes pattern subgraph @" << subgraph.getSymName().str();
        EXPECT_FALSE(static_cast<bool>(*fused)) << llvm::toString(std::move(*fused));
      }
    }
  }
  EXPECT_GT(numInputs, 0u) << "no model-shaped inputs in test/Drivers/cuda-patterns-*.mlir";
  EXPECT_GT(numFused, 0u) << "no pattern matched the model-shaped inputs";
}

} // namespace
