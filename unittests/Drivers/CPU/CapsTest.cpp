//===- CapsTest.cpp - feature support and MLIR exchanges of the CPU driver ===//

#include "DriverTestSupport.h"

#include "cgc/Dialect/CGC/IR/CGCOps.h"
#include "cgc/Dialect/CGCPattern/IR/CGCPatternOps.h"
#include "cgc/InitAllDialects.h"
#include "cgc/Interchange/ModuleIO.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/MemoryBufferRef.h"

#include <array>
#include <string>

using namespace cgc::cpu::testing;
using cgc::interchange::Interface;

namespace {

class CPUCapsTest : public CPUDriverTest {};

// Four candidate subgraphs, of which only the first is one fused kernel: a
// convolution + bias + relu + add (accepted); a convolution whose value is
// returned beside its relu (the fused kernel stores one result); a float32
// relu and an int16 product. The last three run on per-layer kernels and are
// rejected all the same: the fallback target takes such layers one by one.
constexpr const char *kSpecializationRequest = R"mlir(
cgc.module {
  cgc.subgraph @conv_bias_relu_add attributes {origin = "cpu"} {
    cgc.functional_definition private @convFunctional(%x: !cgc.tensor<1x2x5x5x!cgc.float32>, %w: !cgc.tensor<constant 4x2x3x3x!cgc.float32>, %b: !cgc.tensor<constant 4x!cgc.float32>, %r: !cgc.tensor<1x4x3x3x!cgc.float32>) -> !cgc.tensor<1x4x3x3x!cgc.float32> {
      %0 = cgc_op.convolution(%x, %w, %b) {start_padding = [0, 0], end_padding = [0, 0], strides = [1, 1], dilations = [1, 1], groups = 1 : i64} : (!cgc.tensor<1x2x5x5x!cgc.float32>, !cgc.tensor<constant 4x2x3x3x!cgc.float32>, !cgc.tensor<constant 4x!cgc.float32>) -> !cgc.tensor<1x4x3x3x!cgc.float32>
      %1 = cgc_op.relu(%0) : (!cgc.tensor<1x4x3x3x!cgc.float32>) -> !cgc.tensor<1x4x3x3x!cgc.float32>
      %2 = cgc_op.add(%1, %r) : (!cgc.tensor<1x4x3x3x!cgc.float32>, !cgc.tensor<1x4x3x3x!cgc.float32>) -> !cgc.tensor<1x4x3x3x!cgc.float32>
      cgc.return %2 : !cgc.tensor<1x4x3x3x!cgc.float32>
    }
  }
  cgc.subgraph @conv_two_results attributes {origin = "cpu"} {
    cgc.functional_definition private @convTwoFunctional(%x: !cgc.tensor<1x1x3x3x!cgc.float32>, %w: !cgc.tensor<1x1x3x3x!cgc.float32>) -> (!cgc.tensor<1x1x1x1x!cgc.float32>, !cgc.tensor<1x1x1x1x!cgc.float32>) {
      %0 = cgc_op.convolution(%x, %w) {start_padding = [0, 0], end_padding = [0, 0], strides = [1, 1], dilations = [1, 1], groups = 1 : i64} : (!cgc.tensor<1x1x3x3x!cgc.float32>, !cgc.tensor<1x1x3x3x!cgc.float32>) -> !cgc.tensor<1x1x1x1x!cgc.float32>
      %1 = cgc_op.relu(%0) : (!cgc.tensor<1x1x1x1x!cgc.float32>) -> !cgc.tensor<1x1x1x1x!cgc.float32>
      cgc.return %0, %1 : !cgc.tensor<1x1x1x1x!cgc.float32>, !cgc.tensor<1x1x1x1x!cgc.float32>
    }
  }
  cgc.subgraph @relu attributes {origin = "cpu"} {
    cgc.functional_definition private @reluFunctional(%x: !cgc.tensor<2x8x!cgc.float32>) -> !cgc.tensor<2x8x!cgc.float32> {
      %0 = cgc_op.relu(%x) : (!cgc.tensor<2x8x!cgc.float32>) -> !cgc.tensor<2x8x!cgc.float32>
      cgc.return %0 : !cgc.tensor<2x8x!cgc.float32>
    }
  }
  cgc.subgraph @product attributes {origin = "cpu"} {
    cgc.functional_definition private @productFunctional(%x: !cgc.tensor<2x8x!cgc.int16>) -> !cgc.tensor<2x8x!cgc.int16> {
      %0 = cgc_op.reduce_prod(%x) {axes = [1], keep_dims = true} : (!cgc.tensor<2x8x!cgc.int16>) -> !cgc.tensor<2x1x!cgc.int16>
      %1 = cgc_op.expand(%0) {shape = [2, 8]} : (!cgc.tensor<2x1x!cgc.int16>) -> !cgc.tensor<2x8x!cgc.int16>
      cgc.return %1 : !cgc.tensor<2x8x!cgc.int16>
    }
  }
}
)mlir";

TEST_F(CPUCapsTest, ProgramsTierTwo) {
  CgcFeatureDataOptionsMlir options{};
  ASSERT_EQ(ddi->getCaps(device, CGC_FEATURE_OPTIONS_MLIR, &options, sizeof(options)), CGC_OK);
  EXPECT_EQ(options.mlirProgramsTier, CGC_MLIR_PROGRAMS_TIER_2_0);
}

TEST_F(CPUCapsTest, InterfaceSupport) {
  std::array<CgcGuid, 7> requested = {CGC_SUBGRAPH_PARTITION,
                                      CGC_SUBGRAPH_SPECIALIZATION_REQUEST,
                                      CGC_SUBGRAPH_SPECIALIZATION,
                                      CGC_SUBGRAPH_DECLARATION_REQUEST,
                                      CGC_SUBGRAPH_DECLARATION,
                                      CGC_INPUT,
                                      CGC_OUTPUT};
  std::array<uint8_t, 7> supported;
  supported.fill(7);
  CgcFeatureDataMlirInterfaceSupport data{static_cast<uint32_t>(requested.size()),
                                          requested.data(), supported.data()};
  ASSERT_EQ(ddi->getCaps(device, CGC_FEATURE_MLIR_INTERFACE_SUPPORT, &data, sizeof(data)),
            CGC_OK);
  EXPECT_EQ(supported, (std::array<uint8_t, 7>{1, 1, 1, 1, 1, 0, 0}));
}

TEST_F(CPUCapsTest, SpecializationAnswersTheFusedSubgraphs) {
  std::vector<uint8_t> request =
      makeContainer(kSpecializationRequest, Interface::SubgraphSpecializationRequest);
  ASSERT_FALSE(request.empty());
  std::vector<uint8_t> reply;
  ASSERT_EQ(exchange(CGC_SUBGRAPH_SPECIALIZATION_REQUEST, request, reply), CGC_OK)
      << messages.take();

  mlir::DialectRegistry registry;
  cgc::registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  Interface interface;
  llvm::StringRef bytes(reinterpret_cast<const char *>(reply.data()), reply.size());
  mlir::OwningOpRef<mlir::Operation *> answer = cgc::interchange::readContainer(
      llvm::MemoryBufferRef(bytes, "reply"), &context, &interface);
  ASSERT_TRUE(answer);
  EXPECT_EQ(interface, Interface::SubgraphSpecialization);
  std::vector<std::string> names;
  for (auto subgraph :
       llvm::cast<cgc::ModuleOp>(*answer).getBodyBlock()->getOps<cgc::SubgraphOp>())
    names.push_back(subgraph.getSymName().str());
  EXPECT_EQ(names, (std::vector<std::string>{"conv_bias_relu_add"}));
}

TEST_F(CPUCapsTest, SpecializationReplyNeedsABufferLargeEnough) {
  std::vector<uint8_t> request =
      makeContainer(kSpecializationRequest, Interface::SubgraphSpecializationRequest);
  size_t size = 0;
  CgcFeatureDataMlirExchange data{};
  data.mlirInterface = CGC_SUBGRAPH_SPECIALIZATION_REQUEST;
  data.inputData = request.data();
  data.inputDataSizeInBytes = request.size();
  data.outputDataSizeInBytes = &size;
  ASSERT_EQ(ddi->getCaps(device, CGC_FEATURE_MLIR_EXCHANGE, &data, sizeof(data)), CGC_OK);
  ASSERT_GT(size, 80u); // a container header and a payload
  size_t needed = size;
  std::vector<uint8_t> small(needed - 1);
  size = small.size();
  data.outputData = small.data();
  EXPECT_EQ(ddi->getCaps(device, CGC_FEATURE_MLIR_EXCHANGE, &data, sizeof(data)),
            CGC_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(size, needed);
  EXPECT_NE(messages.take().find("output buffer"), std::string::npos);
}

TEST_F(CPUCapsTest, SpecializationRequestMustBeOne) {
  // A partition container under the specialization-request interface.
  std::vector<uint8_t> reply;
  std::vector<uint8_t> partition = makeContainer(R"mlir(
cgc.module {
  cgc.subgraph @relu attributes {origin = "cpu"} {
    cgc.functional_definition private @f(%x: !cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32> {
      %0 = cgc_op.relu(%x) : (!cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32>
      cgc.return %0 : !cgc.tensor<4x!cgc.float32>
    }
  }
  cgc.partition @p(%x: !cgc.memref<4x!cgc.float32>, %y: !cgc.memref<4x!cgc.float32>) {
    cgc.invoke @relu(%x, %y) : (!cgc.memref<4x!cgc.float32>, !cgc.memref<4x!cgc.float32>)
    cgc.return
  }
}
)mlir",
                                                 Interface::SubgraphPartition);
  EXPECT_EQ(exchange(CGC_SUBGRAPH_SPECIALIZATION_REQUEST, partition, reply),
            CGC_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(messages.take().find("got CGC_SUBGRAPH_PARTITION"), std::string::npos);
  EXPECT_EQ(exchange(CGC_SUBGRAPH_SPECIALIZATION_REQUEST, {}, reply),
            CGC_ERROR_INVALID_ARGUMENT);
}

TEST_F(CPUCapsTest, DeclarationRequestAnswersThePatterns) {
  // The size query alone.
  size_t size = 0;
  CgcFeatureDataMlirExchange data{};
  data.mlirInterface = CGC_SUBGRAPH_DECLARATION_REQUEST;
  data.outputDataSizeInBytes = &size;
  ASSERT_EQ(ddi->getCaps(device, CGC_FEATURE_MLIR_EXCHANGE, &data, sizeof(data)), CGC_OK)
      << messages.take();
  ASSERT_GT(size, cgc::interchange::layout::kHeaderSize);
  // Too small a buffer says how large it must be.
  std::vector<uint8_t> small(size - 1);
  size_t needed = size;
  size = small.size();
  data.outputData = small.data();
  EXPECT_EQ(ddi->getCaps(device, CGC_FEATURE_MLIR_EXCHANGE, &data, sizeof(data)),
            CGC_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(size, needed);
  EXPECT_NE(messages.take().find("output buffer"), std::string::npos);
  // Then the data, the same size.
  std::vector<uint8_t> reply(needed);
  data.outputData = reply.data();
  ASSERT_EQ(ddi->getCaps(device, CGC_FEATURE_MLIR_EXCHANGE, &data, sizeof(data)), CGC_OK)
      << messages.take();
  EXPECT_EQ(size, needed);

  mlir::DialectRegistry registry;
  cgc::registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  Interface interface;
  llvm::StringRef bytes(reinterpret_cast<const char *>(reply.data()), reply.size());
  mlir::OwningOpRef<mlir::Operation *> declaration = cgc::interchange::readContainer(
      llvm::MemoryBufferRef(bytes, "declaration"), &context, &interface);
  ASSERT_TRUE(declaration);
  EXPECT_EQ(interface, Interface::SubgraphDeclaration);
  auto module = llvm::cast<cgc::ModuleOp>(*declaration);
  // The CPU kernels want no layout: no cgc.preferred_layout (the CUDA
  // driver's asks for channels_last, FusedPatternTest checks it).
  EXPECT_FALSE(module->hasAttr("cgc.preferred_layout"));
  auto pattern = llvm::dyn_cast_or_null<cgc::pattern::PatternOp>(
      mlir::SymbolTable::lookupSymbolIn(module, "conv_bias_epilogue"));
  ASSERT_TRUE(pattern);
  EXPECT_EQ(pattern.getBenefit(), 10u);

  // Its documented shape: float input, weight, optional bias, one
  // convolution, a chain of the layers the fused kernel runs, no native
  // constraints (the cgc_op verifiers already give it what it needs).
  auto ops = llvm::map_to_vector(*pattern.getBodyBlock(), [](mlir::Operation &op) { return &op; });
  ASSERT_EQ(ops.size(), 6u);
  auto input = llvm::dyn_cast<cgc::pattern::InputOp>(ops[0]);
  auto weight = llvm::dyn_cast<cgc::pattern::InputOp>(ops[1]);
  auto bias = llvm::dyn_cast<cgc::pattern::InputOp>(ops[2]);
  auto conv = llvm::dyn_cast<cgc::pattern::LayerOp>(ops[3]);
  auto chain = llvm::dyn_cast<cgc::pattern::ElementwiseChainOp>(ops[4]);
  ASSERT_TRUE(input && weight && bias && conv && chain);
  ASSERT_TRUE(input.getElementTypes());
  EXPECT_EQ(input.getElementTypes()->size(), 3u);
  EXPECT_FALSE(input.getOptional());
  EXPECT_FALSE(weight.getOptional());
  EXPECT_TRUE(bias.getOptional());
  EXPECT_EQ(conv.getOpName(), "cgc_op.convolution");
  EXPECT_EQ(llvm::to_vector(conv.getOperands()),
            (llvm::SmallVector<mlir::Value>{input, weight, bias}));
  EXPECT_EQ(chain.getAnchor(), conv.getResult());
  EXPECT_EQ(chain.getMinLength(), 0u);
  EXPECT_EQ(static_cast<int64_t>(chain.getMaxLength()), -1);
  EXPECT_EQ(chain.getMaxExtraInputs(), 1u);
  ASSERT_TRUE(chain.getLayers());
  EXPECT_TRUE(llvm::is_contained(*chain.getLayers(), mlir::StringAttr::get(&context, "cgc_op.relu")));
  EXPECT_FALSE(llvm::is_contained(*chain.getLayers(), mlir::StringAttr::get(&context, "cgc_op.less")));
  EXPECT_EQ(pattern.getRootValue(), chain.getResult());
  EXPECT_TRUE(pattern.getOps<cgc::pattern::ConstraintOp>().empty());
}

TEST_F(CPUCapsTest, DeclarationRequestTakesNoDataOrARequestContainer) {
  std::vector<uint8_t> reply;
  std::vector<uint8_t> request =
      makeContainer("cgc.module {}", Interface::SubgraphDeclarationRequest);
  ASSERT_FALSE(request.empty());
  EXPECT_EQ(exchange(CGC_SUBGRAPH_DECLARATION_REQUEST, request, reply), CGC_OK)
      << messages.take();
  std::vector<uint8_t> partition = makeContainer(R"mlir(
cgc.module {
  cgc.subgraph @relu attributes {origin = "cpu"} {
    cgc.functional_definition private @f(%x: !cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32> {
      %0 = cgc_op.relu(%x) : (!cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32>
      cgc.return %0 : !cgc.tensor<4x!cgc.float32>
    }
  }
  cgc.partition @p(%x: !cgc.memref<4x!cgc.float32>, %y: !cgc.memref<4x!cgc.float32>) {
    cgc.invoke @relu(%x, %y) : (!cgc.memref<4x!cgc.float32>, !cgc.memref<4x!cgc.float32>)
    cgc.return
  }
}
)mlir",
                                                 Interface::SubgraphPartition);
  EXPECT_EQ(exchange(CGC_SUBGRAPH_DECLARATION_REQUEST, partition, reply),
            CGC_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(messages.take().find("got CGC_SUBGRAPH_PARTITION"), std::string::npos);
}

TEST_F(CPUCapsTest, OtherInterfacesAreNotExchanges) {
  std::vector<uint8_t> reply;
  for (const CgcGuid &guid : {CGC_INPUT, CGC_OUTPUT, CGC_SUBGRAPH_PARTITION,
                              CGC_SUBGRAPH_SPECIALIZATION, CGC_SUBGRAPH_DECLARATION}) {
    EXPECT_EQ(exchange(guid, {}, reply), CGC_ERROR_UNSUPPORTED);
    EXPECT_NE(messages.take().find("not an exchange request"), std::string::npos);
  }
}

} // namespace
