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
// (overlaps resolve by benefit). And the declaration the driver answers
// (getFusedTarget) carries its preferred layout.
//
//===----------------------------------------------------------------------===//

#include "drivers/cuda/FusedKernels.h"

#include "cgc/Compiler/Compiler.h"
#include "cgc/Dialect/CGC/IR/CGCOps.h"
#include "cgc/Dialect/CGCPattern/IR/CGCPatternOps.h"
#include "cgc/InitAllDialects.h"
#include "cgc/Interchange/ModuleIO.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/MemoryBufferRef.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

namespace {

namespace fs = std::filesystem;

const char *const kFamilies[] = {"convolution",   "matmul",      "attention",
                                 "normalization", "elementwise", "pooling"};

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

  /// `target`'s answer to a declaration request (the two calls of the
  /// exchange), read back through every check of the container reader.
  mlir::OwningOpRef<cgc::ModuleOp> declare(const cgc::drivers::FusedTarget &target) {
    size_t size = 0;
    CgcFeatureDataMlirExchange exchange{};
    exchange.mlirInterface = CGC_SUBGRAPH_DECLARATION_REQUEST;
    exchange.outputDataSizeInBytes = &size;
    cgc::drivers::CompileFailure failure = cgc::drivers::exchangeMlir(exchange, target);
    EXPECT_EQ(failure.status, CGC_OK) << failure.message;
    std::vector<uint8_t> reply(size);
    exchange.outputData = reply.data();
    failure = cgc::drivers::exchangeMlir(exchange, target);
    EXPECT_EQ(failure.status, CGC_OK) << failure.message;
    if (failure.status != CGC_OK)
      return nullptr;
    cgc::interchange::Interface interface;
    llvm::StringRef bytes(reinterpret_cast<const char *>(reply.data()), reply.size());
    mlir::OwningOpRef<mlir::Operation *> declaration = cgc::interchange::readContainer(
        llvm::MemoryBufferRef(bytes, "declaration"), &context, &interface);
    EXPECT_TRUE(declaration);
    if (!declaration)
      return nullptr;
    EXPECT_EQ(interface, cgc::interchange::Interface::SubgraphDeclaration);
    auto module = llvm::dyn_cast<cgc::ModuleOp>(declaration.get());
    EXPECT_TRUE(module) << "the declaration is no cgc.module";
    if (!module)
      return nullptr;
    declaration.release();
    return mlir::OwningOpRef<cgc::ModuleOp>(module);
  }

  mlir::MLIRContext context;
};

TEST_F(FusedPatternTest, DeclarationPrefersChannelsLast) {
  // The declaration the driver answers (embedded patterns, no GPU needed)
  // asks the compiler for channels-last convolutions, and has the pattern
  // that runs them, above the NCHW one.
  mlir::OwningOpRef<cgc::ModuleOp> declaration = declare(cgc::cuda::getFusedTarget());
  ASSERT_TRUE(declaration);
  auto layout =
      (*declaration)->getAttrOfType<mlir::StringAttr>(cgc::drivers::kPreferredLayoutAttrName);
  ASSERT_TRUE(layout) << "no " << cgc::drivers::kPreferredLayoutAttrName.str();
  EXPECT_EQ(layout.getValue(), "channels_last");
  auto lookup = [&](llvm::StringRef name) {
    return llvm::dyn_cast_or_null<cgc::pattern::PatternOp>(
        mlir::SymbolTable::lookupSymbolIn(*declaration, name));
  };
  cgc::pattern::PatternOp nhwc = lookup("conv_nhwc_bias_activation");
  cgc::pattern::PatternOp nchw = lookup("conv_bias_activation");
  ASSERT_TRUE(nhwc && nchw);
  EXPECT_EQ(nhwc.getBenefit(), 12u);
  EXPECT_GT(nhwc.getBenefit(), nchw.getBenefit());

  // A target without a preferred layout declares none (the CPU driver's;
  // CGCCPUDriverTests checks it through the plugin).
  cgc::drivers::FusedTarget plain = cgc::cuda::getFusedTarget();
  plain.preferredLayout = nullptr;
  mlir::OwningOpRef<cgc::ModuleOp> without = declare(plain);
  ASSERT_TRUE(without);
  EXPECT_FALSE((*without)->hasAttr(cgc::drivers::kPreferredLayoutAttrName));
}

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
