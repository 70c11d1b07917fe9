//===- ConformanceTest.cpp - One device API suite, run on every driver ----===//
//
// Instantiated for each driver name in kDrivers; a driver that is not loaded
// (no GPU in CI for "cuda") skips with the names of the drivers that are.
// "mock" is the API tests' own driver: it passes everything but the cases
// that need a program to compute.
//
//===----------------------------------------------------------------------===//

#include "APITestSupport.h"

#include "cgc/Dialect/CGCPattern/IR/CGCPatternOps.h"
#include "cgc/InitAllDialects.h"
#include "cgc/Interchange/ModuleIO.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/MemoryBufferRef.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <random>

using cgc::interchange::Interface;

namespace {

constexpr std::array<const char *, 3> kDrivers = {"cpu", "cuda", "mock"};
constexpr uint64_t kSecond = 1'000'000'000;

class ConformanceTest : public ::testing::TestWithParam<const char *> {
protected:
  void SetUp() override {
    cgc::test::addDriverDirectory(CGC_TEST_DRIVERS_DIR "/mock");
    std::string loaded;
    adapter = cgc::test::findAdapter(GetParam(), &loaded);
    if (!adapter)
      GTEST_SKIP() << "no '" << GetParam() << "' adapter: the loaded drivers are [" << loaded
                   << "]";
    CgcDeviceDesc desc = {CGC_API_VERSION, CGC_DEVICE_FLAG_DEBUG_LAYER, nullptr};
    ASSERT_CGC_OK(cgcCreateDevice(adapter, &desc, &device));
    ASSERT_CGC_OK(cgcCreateCommandAllocator(device, &allocator));
    ASSERT_CGC_OK(cgcCreateCommandQueue(device, &queue));
    ASSERT_CGC_OK(cgcCreateFence(device, 0, &fence));
  }

  void TearDown() override {
    for (CgcBuffer buffer : buffers)
      cgcReleaseBuffer(buffer);
    cgcReleaseFence(fence);
    cgcReleaseCommandQueue(queue);
    cgcReleaseCommandAllocator(allocator);
    cgcReleaseDevice(device);
  }

  bool runsPrograms() const { return std::string_view(GetParam()) != "mock"; }

  CgcBuffer createBuffer(CgcHeapType heapType, uint64_t size) {
    CgcBufferDesc desc = {CGC_API_VERSION, heapType, size};
    CgcBuffer buffer = nullptr;
    CgcStatus status = cgcCreateBuffer(device, &desc, &buffer);
    EXPECT_EQ(status, CGC_OK) << cgcGetLastErrorMessage();
    if (buffer)
      buffers.push_back(buffer);
    return buffer;
  }

  /// An UPLOAD buffer holding `bytes`.
  CgcBuffer upload(const void *bytes, uint64_t size) {
    CgcBuffer buffer = createBuffer(CGC_HEAP_TYPE_UPLOAD, size);
    void *data = nullptr;
    EXPECT_EQ(cgcMapBuffer(buffer, &data), CGC_OK) << cgcGetLastErrorMessage();
    if (data)
      std::memcpy(data, bytes, size);
    EXPECT_EQ(cgcUnmapBuffer(buffer), CGC_OK);
    return buffer;
  }

  template <typename T>
  std::vector<T> read(CgcBuffer readback, size_t count) {
    std::vector<T> values(count);
    void *data = nullptr;
    EXPECT_EQ(cgcMapBuffer(readback, &data), CGC_OK) << cgcGetLastErrorMessage();
    if (data)
      std::memcpy(values.data(), data, count * sizeof(T));
    EXPECT_EQ(cgcUnmapBuffer(readback), CGC_OK);
    return values;
  }

  /// Closes `list`, executes it, and waits for the queue to finish it.
  void executeAndWait(CgcCommandList list) {
    ASSERT_CGC_OK(cgcCloseCommandList(list));
    ASSERT_CGC_OK(cgcExecuteCommandLists(queue, 1, &list));
    ++fenceValue;
    ASSERT_CGC_OK(cgcQueueSignal(queue, fence, fenceValue));
    ASSERT_CGC_OK(cgcWaitFence(fence, fenceValue, 30 * kSecond));
  }

  CgcStateObject createStateObject(const std::vector<uint8_t> &container, const char *name,
                                   uint32_t flags = CGC_STATE_OBJECT_FLAG_NONE) {
    CgcMlirProgramDesc program = {name, container.data(), container.size()};
    CgcStateObjectDesc desc = {CGC_API_VERSION, flags, 1, &program};
    CgcStateObject stateObject = nullptr;
    CgcStatus status = cgcCreateStateObject(device, &desc, &stateObject);
    EXPECT_EQ(status, CGC_OK) << cgcGetLastErrorMessage();
    return stateObject;
  }

  /// Records SetProgram with temporary and persistent buffers of the sizes the
  /// program asks for.
  void setProgram(CgcCommandList list, CgcStateObject stateObject, const char *name) {
    CgcProgramBindingProperties properties = {CGC_API_VERSION};
    ASSERT_CGC_OK(cgcGetProgramBindingProperties(stateObject, name, &properties));
    CgcSetProgramDesc desc = {CGC_API_VERSION};
    ASSERT_CGC_OK(cgcGetProgramIdentifier(stateObject, name, &desc.programIdentifier));
    if (properties.temporaryResourceSize) {
      CgcBuffer temporary = createBuffer(CGC_HEAP_TYPE_DEFAULT, properties.temporaryResourceSize);
      desc.temporaryResource = {cgcGetBufferDeviceAddress(temporary),
                                properties.temporaryResourceSize};
    }
    if (properties.persistentResourceSize) {
      CgcBuffer persistent = createBuffer(CGC_HEAP_TYPE_DEFAULT, properties.persistentResourceSize);
      desc.persistentResource = {cgcGetBufferDeviceAddress(persistent),
                                 properties.persistentResourceSize};
    }
    ASSERT_CGC_OK(cgcCommandListSetProgram(list, stateObject, &desc));
  }

  static CgcProgramBinding gpuBinding(uint32_t index, CgcBuffer buffer) {
    CgcProgramBinding binding = {};
    binding.bindPointIndex = index;
    binding.type = CGC_BINDING_TYPE_GPU;
    binding.gpu = {cgcGetBufferDeviceAddress(buffer), cgcGetBufferSize(buffer)};
    return binding;
  }

  static void globalBarrier(CgcCommandList list) {
    CgcBarrierDesc barrier = {CGC_API_VERSION, CGC_BARRIER_TYPE_GLOBAL, {}};
    ASSERT_CGC_OK(cgcCommandListBarrier(list, &barrier));
  }

  CgcAdapter adapter = nullptr;
  CgcDevice device = nullptr;
  CgcCommandAllocator allocator = nullptr;
  CgcCommandQueue queue = nullptr;
  CgcFence fence = nullptr;
  uint64_t fenceValue = 0;
  std::vector<CgcBuffer> buffers;
};

TEST_P(ConformanceTest, AdapterDesc) {
  CgcAdapterDesc desc = {};
  desc.version = CGC_API_VERSION;
  ASSERT_CGC_OK(cgcGetAdapterDesc(adapter, &desc));
  EXPECT_STREQ(desc.driverName, GetParam());
  EXPECT_GT(std::strlen(desc.name), 0u);
  EXPECT_LT(std::strlen(desc.name), sizeof(desc.name));
  CgcAdapterDesc unversioned = {};
  EXPECT_CGC_ERROR(cgcGetAdapterDesc(adapter, &unversioned), CGC_ERROR_INVALID_ARGUMENT,
                   "cgcGetAdapterDesc", "version");
}

TEST_P(ConformanceTest, CreateSecondDevice) {
  CgcDeviceDesc desc = {CGC_API_VERSION, CGC_DEVICE_FLAG_NONE, nullptr};
  CgcDevice second = nullptr;
  ASSERT_CGC_OK(cgcCreateDevice(adapter, &desc, &second));
  EXPECT_NE(second, device);
  cgcReleaseDevice(second);
}

TEST_P(ConformanceTest, OptionsMlirTier) {
  CgcFeatureDataOptionsMlir options = {};
  ASSERT_CGC_OK(cgcCheckFeatureSupport(device, CGC_FEATURE_OPTIONS_MLIR, &options,
                                       sizeof(options)));
  EXPECT_TRUE(options.mlirProgramsTier == CGC_MLIR_PROGRAMS_TIER_1_0 ||
              options.mlirProgramsTier == CGC_MLIR_PROGRAMS_TIER_2_0)
      << options.mlirProgramsTier;
  EXPECT_CGC_ERROR(cgcCheckFeatureSupport(device, CGC_FEATURE_OPTIONS_MLIR, &options, 1),
                   CGC_ERROR_INVALID_ARGUMENT, "cgcCheckFeatureSupport", "featureDataSize");
}

TEST_P(ConformanceTest, InterfaceSupport) {
  std::vector<CgcGuid> requested;
  for (Interface interface : cgc::interchange::kAllInterfaces)
    requested.push_back(cgc::interchange::getGuid(interface));
  std::vector<uint8_t> supported(requested.size(), 0xcc);
  CgcFeatureDataMlirInterfaceSupport support = {static_cast<uint32_t>(requested.size()),
                                                requested.data(), supported.data()};
  ASSERT_CGC_OK(cgcCheckFeatureSupport(device, CGC_FEATURE_MLIR_INTERFACE_SUPPORT, &support,
                                       sizeof(support)));
  for (size_t i = 0; i < supported.size(); ++i)
    EXPECT_TRUE(supported[i] == 0 || supported[i] == 1) << i << ": " << int(supported[i]);
  // Every driver runs partitions.
  EXPECT_EQ(supported[static_cast<size_t>(Interface::SubgraphPartition)], 1);
}

TEST_P(ConformanceTest, ExchangeProtocol) {
  size_t outputSize = 0;
  CgcFeatureDataMlirExchange exchange = {};
  exchange.mlirInterface = {0x12345678, 0x1234, 0x5678, {1, 2, 3, 4, 5, 6, 7, 8}};
  exchange.outputDataSizeInBytes = &outputSize;
  EXPECT_CGC_ERROR(cgcCheckFeatureSupport(device, CGC_FEATURE_MLIR_EXCHANGE, &exchange,
                                          sizeof(exchange)),
                   CGC_ERROR_INVALID_ARGUMENT, "cgcCheckFeatureSupport",
                   "{12345678-1234-5678-0102-030405060708}");

  std::vector<CgcGuid> requested;
  for (Interface interface : cgc::interchange::kAllInterfaces)
    requested.push_back(cgc::interchange::getGuid(interface));
  std::vector<uint8_t> supported(requested.size());
  CgcFeatureDataMlirInterfaceSupport support = {static_cast<uint32_t>(requested.size()),
                                                requested.data(), supported.data()};
  ASSERT_CGC_OK(cgcCheckFeatureSupport(device, CGC_FEATURE_MLIR_INTERFACE_SUPPORT, &support,
                                       sizeof(support)));
  // An interface the driver lacks is UNSUPPORTED, from the driver.
  auto lacking = std::find(supported.begin(), supported.end(), 0);
  if (lacking != supported.end()) {
    exchange.mlirInterface = requested[lacking - supported.begin()];
    EXPECT_CGC_ERROR(cgcCheckFeatureSupport(device, CGC_FEATURE_MLIR_EXCHANGE, &exchange,
                                            sizeof(exchange)),
                     CGC_ERROR_UNSUPPORTED, "cgcCheckFeatureSupport");
  }
  // Two-call protocol for the declaration request, where supported.
  if (!supported[static_cast<size_t>(Interface::SubgraphDeclarationRequest)])
    return;
  exchange.mlirInterface = CGC_SUBGRAPH_DECLARATION_REQUEST;
  outputSize = 0;
  ASSERT_CGC_OK(cgcCheckFeatureSupport(device, CGC_FEATURE_MLIR_EXCHANGE, &exchange,
                                       sizeof(exchange)));
  ASSERT_GT(outputSize, cgc::interchange::layout::kHeaderSize);
  std::vector<uint8_t> output(outputSize);
  exchange.outputData = output.data();
  ASSERT_CGC_OK(cgcCheckFeatureSupport(device, CGC_FEATURE_MLIR_EXCHANGE, &exchange,
                                       sizeof(exchange)));
  EXPECT_EQ(outputSize, output.size());
  auto view = cgc::interchange::parseContainer(output);
  ASSERT_TRUE(view.ok()) << view.error().message;
  EXPECT_EQ(view->interface, Interface::SubgraphDeclaration);
}

TEST_P(ConformanceTest, ExchangeDeclarationRequest) {
  CgcGuid requested[] = {CGC_SUBGRAPH_DECLARATION_REQUEST, CGC_SUBGRAPH_DECLARATION};
  uint8_t supported[2] = {};
  CgcFeatureDataMlirInterfaceSupport support = {2, requested, supported};
  ASSERT_CGC_OK(cgcCheckFeatureSupport(device, CGC_FEATURE_MLIR_INTERFACE_SUPPORT, &support,
                                       sizeof(support)));
  // The two interfaces of the exchange come together.
  EXPECT_EQ(supported[0], supported[1]);
  if (!supported[0])
    GTEST_SKIP() << "the '" << GetParam() << "' driver declares no subgraph patterns";
  // The request has no input data (the spec's inputData = null).
  size_t outputSize = 0;
  CgcFeatureDataMlirExchange exchange = {CGC_SUBGRAPH_DECLARATION_REQUEST, nullptr, 0, nullptr,
                                         &outputSize};
  ASSERT_CGC_OK(cgcCheckFeatureSupport(device, CGC_FEATURE_MLIR_EXCHANGE, &exchange,
                                       sizeof(exchange)));
  std::vector<uint8_t> output(outputSize);
  exchange.outputData = output.data();
  ASSERT_CGC_OK(cgcCheckFeatureSupport(device, CGC_FEATURE_MLIR_EXCHANGE, &exchange,
                                       sizeof(exchange)));
  // The reply reads back, through every check of the reader, as one or more
  // patterns naming only constraints the compiler knows.
  mlir::DialectRegistry registry;
  cgc::registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  std::string errors;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &diagnostic) {
    errors += diagnostic.str() + "\n";
    return mlir::success();
  });
  cgc::interchange::Interface interface;
  llvm::StringRef bytes(reinterpret_cast<const char *>(output.data()), output.size());
  mlir::OwningOpRef<mlir::Operation *> declaration = cgc::interchange::readContainer(
      llvm::MemoryBufferRef(bytes, "declaration"), &context, &interface);
  ASSERT_TRUE(declaration) << errors;
  EXPECT_EQ(interface, Interface::SubgraphDeclaration);
  unsigned patterns = 0;
  declaration->walk([&](cgc::pattern::PatternOp) { ++patterns; });
  EXPECT_GE(patterns, 1u);
}

TEST_P(ConformanceTest, ExchangeSpecializationTwoCall) {
  CgcGuid requested = CGC_SUBGRAPH_SPECIALIZATION_REQUEST;
  uint8_t supported = 0;
  CgcFeatureDataMlirInterfaceSupport support = {1, &requested, &supported};
  ASSERT_CGC_OK(cgcCheckFeatureSupport(device, CGC_FEATURE_MLIR_INTERFACE_SUPPORT, &support,
                                       sizeof(support)));
  if (!supported)
    GTEST_SKIP() << "the '" << GetParam() << "' driver answers no specialization requests";
  std::vector<uint8_t> request = cgc::test::makeContainer(R"mlir(
cgc.module {
  cgc.subgraph @relu attributes {origin = "cpu"} {
    cgc.functional_definition private @reluFunctional(%x: !cgc.tensor<64x!cgc.float32>) -> !cgc.tensor<64x!cgc.float32> {
      %0 = cgc_op.relu(%x) : (!cgc.tensor<64x!cgc.float32>) -> !cgc.tensor<64x!cgc.float32>
      cgc.return %0 : !cgc.tensor<64x!cgc.float32>
    }
  }
}
)mlir",
                                                          Interface::SubgraphSpecializationRequest);
  ASSERT_FALSE(request.empty());
  size_t outputSize = 0;
  CgcFeatureDataMlirExchange exchange = {CGC_SUBGRAPH_SPECIALIZATION_REQUEST, request.data(),
                                         request.size(), nullptr, &outputSize};
  ASSERT_CGC_OK(cgcCheckFeatureSupport(device, CGC_FEATURE_MLIR_EXCHANGE, &exchange,
                                       sizeof(exchange)));
  ASSERT_GT(outputSize, cgc::interchange::layout::kHeaderSize);
  std::vector<uint8_t> output(outputSize);
  exchange.outputData = output.data();
  ASSERT_CGC_OK(cgcCheckFeatureSupport(device, CGC_FEATURE_MLIR_EXCHANGE, &exchange,
                                       sizeof(exchange)));
  EXPECT_EQ(outputSize, output.size());
  auto view = cgc::interchange::parseContainer(output);
  ASSERT_TRUE(view.ok()) << view.error().message;
  EXPECT_EQ(view->interface, Interface::SubgraphSpecialization);
}

TEST_P(ConformanceTest, Buffers) {
  CgcBuffer a = createBuffer(CGC_HEAP_TYPE_DEFAULT, 1000);
  CgcBuffer b = createBuffer(CGC_HEAP_TYPE_UPLOAD, 4096);
  CgcBuffer c = createBuffer(CGC_HEAP_TYPE_READBACK, 1);
  ASSERT_TRUE(a && b && c);
  EXPECT_EQ(cgcGetBufferSize(a), 1000u);
  EXPECT_EQ(cgcGetBufferSize(c), 1u);
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  for (CgcBuffer buffer : {a, b, c}) {
    EXPECT_NE(cgcGetBufferDeviceAddress(buffer), 0u);
    ranges.emplace_back(cgcGetBufferDeviceAddress(buffer),
                        cgcGetBufferDeviceAddress(buffer) + cgcGetBufferSize(buffer));
  }
  std::sort(ranges.begin(), ranges.end());
  for (size_t i = 1; i < ranges.size(); ++i)
    EXPECT_LE(ranges[i - 1].second, ranges[i].first) << "buffers overlap";

  void *data = nullptr;
  EXPECT_CGC_ERROR(cgcMapBuffer(a, &data), CGC_ERROR_INVALID_ARGUMENT, "cgcMapBuffer", "DEFAULT");
  ASSERT_CGC_OK(cgcMapBuffer(b, &data));
  ASSERT_NE(data, nullptr);
  std::memset(data, 0x5a, 4096);
  ASSERT_CGC_OK(cgcUnmapBuffer(b));
  ASSERT_CGC_OK(cgcMapBuffer(b, &data));
  EXPECT_EQ(static_cast<uint8_t *>(data)[4095], 0x5a);
  ASSERT_CGC_OK(cgcUnmapBuffer(b));
  EXPECT_CGC_ERROR(cgcUnmapBuffer(b), CGC_ERROR_INVALID_STATE, "cgcUnmapBuffer", "not mapped");
}

TEST_P(ConformanceTest, CopyRoundTrip) {
  std::vector<uint32_t> values(4096);
  std::iota(values.begin(), values.end(), 0xabc00000u);
  uint64_t size = values.size() * sizeof(uint32_t);
  CgcBuffer source = upload(values.data(), size);
  CgcBuffer middle = createBuffer(CGC_HEAP_TYPE_DEFAULT, size);
  CgcBuffer readback = createBuffer(CGC_HEAP_TYPE_READBACK, size);
  CgcCommandList list = nullptr;
  ASSERT_CGC_OK(cgcCreateCommandList(device, allocator, &list));
  ASSERT_CGC_OK(cgcCommandListCopyBufferRegion(list, middle, 0, source, 0, size));
  globalBarrier(list);
  // Two halves, swapped, to check offsets.
  ASSERT_CGC_OK(cgcCommandListCopyBufferRegion(list, readback, size / 2, middle, 0, size / 2));
  ASSERT_CGC_OK(cgcCommandListCopyBufferRegion(list, readback, 0, middle, size / 2, size / 2));
  executeAndWait(list);
  std::vector<uint32_t> back = read<uint32_t>(readback, values.size());
  std::rotate(values.begin(), values.begin() + values.size() / 2, values.end());
  EXPECT_EQ(back, values);

  // The list can be reset and reused once it has completed.
  ASSERT_CGC_OK(cgcResetCommandAllocator(allocator));
  ASSERT_CGC_OK(cgcResetCommandList(list, allocator));
  ASSERT_CGC_OK(cgcCommandListCopyBufferRegion(list, readback, 0, source, 0, size));
  executeAndWait(list);
  std::rotate(values.begin(), values.begin() + values.size() / 2, values.end());
  EXPECT_EQ(read<uint32_t>(readback, values.size()), values);
  cgcReleaseCommandList(list);
}

TEST_P(ConformanceTest, AllocatorAndListWaitForExecution) {
  CgcFence gate = nullptr;
  ASSERT_CGC_OK(cgcCreateFence(device, 0, &gate));
  CgcBuffer source = createBuffer(CGC_HEAP_TYPE_UPLOAD, 256);
  CgcBuffer destination = createBuffer(CGC_HEAP_TYPE_READBACK, 256);
  CgcCommandList list = nullptr;
  ASSERT_CGC_OK(cgcCreateCommandList(device, allocator, &list));
  ASSERT_CGC_OK(cgcCommandListCopyBufferRegion(list, destination, 0, source, 0, 256));
  ASSERT_CGC_OK(cgcCloseCommandList(list));
  // The queue holds the list back until the host opens the gate.
  ASSERT_CGC_OK(cgcQueueWait(queue, gate, 1));
  ASSERT_CGC_OK(cgcExecuteCommandLists(queue, 1, &list));
  EXPECT_CGC_ERROR(cgcResetCommandAllocator(allocator), CGC_ERROR_INVALID_STATE,
                   "cgcResetCommandAllocator", "not completed");
  EXPECT_CGC_ERROR(cgcResetCommandList(list, allocator), CGC_ERROR_INVALID_STATE,
                   "cgcResetCommandList", "executing");
  EXPECT_CGC_ERROR(cgcExecuteCommandLists(queue, 1, &list), CGC_ERROR_INVALID_STATE,
                   "cgcExecuteCommandLists", "still executing");
  ASSERT_CGC_OK(cgcSignalFence(gate, 1));
  ASSERT_CGC_OK(cgcQueueSignal(queue, fence, 1));
  ASSERT_CGC_OK(cgcWaitFence(fence, 1, 30 * kSecond));
  ASSERT_CGC_OK(cgcResetCommandAllocator(allocator));
  ASSERT_CGC_OK(cgcResetCommandList(list, allocator));
  cgcReleaseCommandList(list);
  cgcReleaseFence(gate);
}

TEST_P(ConformanceTest, HostFence) {
  EXPECT_EQ(cgcGetFenceCompletedValue(fence), 0u);
  ASSERT_CGC_OK(cgcSignalFence(fence, 5));
  EXPECT_EQ(cgcGetFenceCompletedValue(fence), 5u);
  ASSERT_CGC_OK(cgcWaitFence(fence, 5, 0));
  ASSERT_CGC_OK(cgcWaitFence(fence, 3, 0));
  EXPECT_CGC_ERROR(cgcWaitFence(fence, 6, 1'000'000), CGC_ERROR_TIMEOUT, "cgcWaitFence");
  EXPECT_CGC_ERROR(cgcSignalFence(fence, 4), CGC_ERROR_INVALID_ARGUMENT, "cgcSignalFence",
                   "backwards");
  CgcFence started = nullptr;
  ASSERT_CGC_OK(cgcCreateFence(device, 7, &started));
  EXPECT_EQ(cgcGetFenceCompletedValue(started), 7u);
  cgcReleaseFence(started);
}

TEST_P(ConformanceTest, QueueSignalWaitAcrossQueues) {
  CgcCommandQueue second = nullptr;
  ASSERT_CGC_OK(cgcCreateCommandQueue(device, &second));
  CgcFence done = nullptr;
  ASSERT_CGC_OK(cgcCreateFence(device, 0, &done));
  // second: wait for fence = 1, then signal done = 1.
  ASSERT_CGC_OK(cgcQueueWait(second, fence, 1));
  ASSERT_CGC_OK(cgcQueueSignal(second, done, 1));
  EXPECT_CGC_ERROR(cgcWaitFence(done, 1, 20'000'000), CGC_ERROR_TIMEOUT, "cgcWaitFence");
  EXPECT_EQ(cgcGetFenceCompletedValue(done), 0u);
  // first: signal fence = 1, which releases the second queue.
  ASSERT_CGC_OK(cgcQueueSignal(queue, fence, 1));
  ASSERT_CGC_OK(cgcWaitFence(done, 1, 30 * kSecond));
  EXPECT_EQ(cgcGetFenceCompletedValue(fence), 1u);
  cgcReleaseFence(done);
  cgcReleaseCommandQueue(second);
}

TEST_P(ConformanceTest, StateObjects) {
  std::vector<uint8_t> relu = cgc::test::makeContainer(cgc::test::kReluPartition);
  CgcStateObject stateObject =
      createStateObject(relu, "relu", CGC_STATE_OBJECT_FLAG_ALLOW_STATE_OBJECT_ADDITIONS);
  ASSERT_NE(stateObject, nullptr);
  CgcProgramIdentifier identifier = {};
  ASSERT_CGC_OK(cgcGetProgramIdentifier(stateObject, "relu", &identifier));
  EXPECT_TRUE(identifier.opaque[0] || identifier.opaque[1]);
  EXPECT_CGC_ERROR(cgcGetProgramIdentifier(stateObject, "nothing", &identifier),
                   CGC_ERROR_NOT_FOUND, "cgcGetProgramIdentifier", "'nothing'");

  CgcProgramBindingProperties properties = {CGC_API_VERSION};
  ASSERT_CGC_OK(cgcGetProgramBindingProperties(stateObject, "relu", &properties));
  ASSERT_EQ(properties.numBindPoints, 2u);
  std::vector<CgcBindPointDesc> bindPoints(2);
  properties.bindPoints = bindPoints.data();
  ASSERT_CGC_OK(cgcGetProgramBindingProperties(stateObject, "relu", &properties));
  for (const CgcBindPointDesc &bindPoint : bindPoints) {
    EXPECT_EQ(bindPoint.sizeInBytes, 4096u);
    EXPECT_GE(bindPoint.alignment, 1u);
    EXPECT_EQ(4u % bindPoint.alignment, 0u) << "f32 needs at most 4-byte alignment";
  }
  EXPECT_FALSE(bindPoints[0].flags & CGC_BIND_POINT_FLAG_WRITTEN);
  EXPECT_FALSE(bindPoints[0].flags & CGC_BIND_POINT_FLAG_CONSTANT);
  EXPECT_TRUE(bindPoints[1].flags & CGC_BIND_POINT_FLAG_WRITTEN);

  // AddToStateObject: the grown object has both programs; the old identifier holds.
  std::vector<uint8_t> reluB = cgc::test::makeContainer(cgc::test::kReluPartitionB);
  CgcMlirProgramDesc addition = {"reluB", reluB.data(), reluB.size()};
  CgcStateObjectDesc additionDesc = {CGC_API_VERSION, 0, 1, &addition};
  CgcStateObject grown = nullptr;
  ASSERT_CGC_OK(cgcAddToStateObject(device, &additionDesc, stateObject, &grown));
  CgcProgramIdentifier inGrown = {}, added = {};
  ASSERT_CGC_OK(cgcGetProgramIdentifier(grown, "relu", &inGrown));
  ASSERT_CGC_OK(cgcGetProgramIdentifier(grown, "reluB", &added));
  EXPECT_EQ(std::memcmp(&inGrown, &identifier, sizeof identifier), 0);
  EXPECT_NE(std::memcmp(&added, &identifier, sizeof identifier), 0);
  EXPECT_CGC_ERROR(cgcGetProgramIdentifier(stateObject, "reluB", &added), CGC_ERROR_NOT_FOUND,
                   "reluB");
  // `grown` was created without the flag, so it cannot grow further.
  CgcStateObject again = nullptr;
  addition.programName = "reluC";
  EXPECT_CGC_ERROR(cgcAddToStateObject(device, &additionDesc, grown, &again),
                   CGC_ERROR_INVALID_ARGUMENT, "cgcAddToStateObject",
                   "ALLOW_STATE_OBJECT_ADDITIONS");
  // The grown object outlives the one it grew from.
  cgcReleaseStateObject(stateObject);
  ASSERT_CGC_OK(cgcGetProgramBindingProperties(grown, "relu", &properties));
  cgcReleaseStateObject(grown);
}

TEST_P(ConformanceTest, DispatchRelu) {
  if (!runsPrograms())
    GTEST_SKIP() << "the mock driver does not run programs";
  std::vector<uint8_t> relu = cgc::test::makeContainer(cgc::test::kReluPartition);
  CgcStateObject stateObject = createStateObject(relu, "partition0");
  ASSERT_NE(stateObject, nullptr);

  std::vector<float> input(1024);
  std::mt19937 random(7);
  std::uniform_real_distribution<float> distribution(-10.0f, 10.0f);
  for (float &value : input)
    value = distribution(random);
  uint64_t size = input.size() * sizeof(float);
  CgcBuffer staging = upload(input.data(), size);
  CgcBuffer x = createBuffer(CGC_HEAP_TYPE_DEFAULT, size);
  CgcBuffer y = createBuffer(CGC_HEAP_TYPE_DEFAULT, size);
  CgcBuffer readback = createBuffer(CGC_HEAP_TYPE_READBACK, size);

  CgcCommandList list = nullptr;
  ASSERT_CGC_OK(cgcCreateCommandList(device, allocator, &list));
  ASSERT_CGC_OK(cgcCommandListCopyBufferRegion(list, x, 0, staging, 0, size));
  globalBarrier(list);
  setProgram(list, stateObject, "partition0");
  std::array<CgcProgramBinding, 2> bindings = {gpuBinding(0, x), gpuBinding(1, y)};
  CgcDispatchGraphDesc dispatch = {CGC_API_VERSION, 2, bindings.data()};
  ASSERT_CGC_OK(cgcCommandListDispatchGraph(list, &dispatch));
  globalBarrier(list);
  ASSERT_CGC_OK(cgcCommandListCopyBufferRegion(list, readback, 0, y, 0, size));
  // The list keeps the state object alive until it is released.
  cgcReleaseStateObject(stateObject);
  executeAndWait(list);

  std::vector<float> output = read<float>(readback, input.size());
  for (size_t i = 0; i < input.size(); ++i)
    ASSERT_EQ(output[i], std::max(0.0f, input[i])) << "element " << i;
  cgcReleaseCommandList(list);
}

/// The spec's partition: y = add(relu(conv3x3(x, w, b)), x), applied twice.
std::vector<float> convReluAdd(const std::vector<float> &in, const std::vector<float> &w,
                               float bias) {
  std::vector<float> out(16);
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) {
      float sum = bias;
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
          int rr = r + i - 1, cc = c + j - 1;
          if (rr >= 0 && rr < 4 && cc >= 0 && cc < 4)
            sum += in[rr * 4 + cc] * w[i * 3 + j];
        }
      out[r * 4 + c] = std::max(0.0f, sum) + in[r * 4 + c];
    }
  return out;
}

TEST_P(ConformanceTest, DispatchSpecPartition) {
  if (!runsPrograms())
    GTEST_SKIP() << "the mock driver does not run programs";
  std::string text =
      cgc::test::readFile(CGC_SOURCE_DIR "/test/Dialect/CGC/spec-isolated-partition.mlir");
  ASSERT_FALSE(text.empty());
  std::vector<uint8_t> container = cgc::test::makeContainer(text);
  CgcStateObject stateObject = createStateObject(container, "driverPartition");
  ASSERT_NE(stateObject, nullptr);
  CgcProgramBindingProperties properties = {CGC_API_VERSION};
  ASSERT_CGC_OK(cgcGetProgramBindingProperties(stateObject, "driverPartition", &properties));
  ASSERT_EQ(properties.numBindPoints, 7u);
  std::vector<CgcBindPointDesc> bindPoints(7);
  properties.bindPoints = bindPoints.data();
  ASSERT_CGC_OK(cgcGetProgramBindingProperties(stateObject, "driverPartition", &properties));
  const uint64_t expectedSizes[7] = {64, 36, 4, 36, 4, 64, 64};
  for (int i = 0; i < 7; ++i)
    EXPECT_EQ(bindPoints[i].sizeInBytes, expectedSizes[i]) << "bind point " << i;
  for (int i : {1, 2, 3, 4})
    EXPECT_TRUE(bindPoints[i].flags & CGC_BIND_POINT_FLAG_CONSTANT) << "bind point " << i;
  for (int i : {5, 6})
    EXPECT_TRUE(bindPoints[i].flags & CGC_BIND_POINT_FLAG_WRITTEN) << "bind point " << i;

  std::vector<float> in(16), w1(9), w2(9);
  for (int i = 0; i < 16; ++i)
    in[i] = static_cast<float>((i * 7) % 11) - 5.0f;
  for (int i = 0; i < 9; ++i) {
    w1[i] = 0.25f * static_cast<float>(i % 3) - 0.2f;
    w2[i] = 0.1f * static_cast<float>(4 - i);
  }
  float b1 = 0.5f, b2 = -1.0f;
  std::vector<float> expected = convReluAdd(convReluAdd(in, w1, b1), w2, b2);

  std::vector<CgcBuffer> arguments;
  auto addInput = [&](const void *data, uint64_t size) {
    CgcBuffer staging = upload(data, size);
    CgcBuffer buffer = createBuffer(CGC_HEAP_TYPE_DEFAULT, size);
    arguments.push_back(buffer);
    return std::pair(buffer, staging);
  };
  std::vector<std::pair<CgcBuffer, CgcBuffer>> staged = {
      addInput(in.data(), 64), addInput(w1.data(), 36), addInput(&b1, 4),
      addInput(w2.data(), 36), addInput(&b2, 4)};
  arguments.push_back(createBuffer(CGC_HEAP_TYPE_DEFAULT, 64)); // output
  arguments.push_back(createBuffer(CGC_HEAP_TYPE_DEFAULT, 64)); // scratch
  CgcBuffer readback = createBuffer(CGC_HEAP_TYPE_READBACK, 64);

  CgcCommandList list = nullptr;
  ASSERT_CGC_OK(cgcCreateCommandList(device, allocator, &list));
  for (auto [buffer, staging] : staged)
    ASSERT_CGC_OK(cgcCommandListCopyBufferRegion(list, buffer, 0, staging, 0,
                                                 cgcGetBufferSize(buffer)));
  globalBarrier(list);
  setProgram(list, stateObject, "driverPartition");
  std::vector<CgcProgramBinding> bindings;
  for (uint32_t i = 7; i-- > 0;) // in reverse: the API sorts them for the driver
    bindings.push_back(gpuBinding(i, arguments[i]));
  CgcDispatchGraphDesc dispatch = {CGC_API_VERSION, 7, bindings.data()};
  ASSERT_CGC_OK(cgcCommandListDispatchGraph(list, &dispatch));
  globalBarrier(list);
  ASSERT_CGC_OK(cgcCommandListCopyBufferRegion(list, readback, 0, arguments[5], 0, 64));
  executeAndWait(list);
  std::vector<float> output = read<float>(readback, 16);
  for (int i = 0; i < 16; ++i)
    EXPECT_NEAR(output[i], expected[i], 1e-5f) << "element " << i;
  cgcReleaseCommandList(list);
  cgcReleaseStateObject(stateObject);
}

//===----------------------------------------------------------------------===//
// Timestamp queries
//===----------------------------------------------------------------------===//

/// Whether the device has timestamp queries (CGC_FEATURE_TIMESTAMP_QUERIES).
bool supportsTimestamps(CgcDevice device) {
  CgcFeatureDataTimestampQueries data = {0xcc};
  EXPECT_EQ(cgcCheckFeatureSupport(device, CGC_FEATURE_TIMESTAMP_QUERIES, &data, sizeof(data)),
            CGC_OK)
      << cgcGetLastErrorMessage();
  EXPECT_TRUE(data.timestampQueriesSupported == 0 || data.timestampQueriesSupported == 1)
      << data.timestampQueriesSupported;
  return data.timestampQueriesSupported == 1;
}

/// A TIMESTAMP heap of `count` queries on `device`, or null after a failure.
CgcQueryHeap createTimestampHeap(CgcDevice device, uint32_t count) {
  CgcQueryHeapDesc desc = {CGC_API_VERSION, CGC_QUERY_HEAP_TYPE_TIMESTAMP, count};
  CgcQueryHeap heap = nullptr;
  EXPECT_EQ(cgcCreateQueryHeap(device, &desc, &heap), CGC_OK) << cgcGetLastErrorMessage();
  return heap;
}

TEST_P(ConformanceTest, TimestampFeatureMatchesTheCalls) {
  CgcQueryHeapDesc desc = {CGC_API_VERSION, CGC_QUERY_HEAP_TYPE_TIMESTAMP, 4};
  CgcQueryHeap heap = nullptr;
  uint64_t frequency = 0;
  EXPECT_CGC_ERROR(cgcCheckFeatureSupport(device, CGC_FEATURE_TIMESTAMP_QUERIES, &frequency, 1),
                   CGC_ERROR_INVALID_ARGUMENT, "CGC_FEATURE_TIMESTAMP_QUERIES: featureDataSize");
  if (!supportsTimestamps(device)) {
    EXPECT_CGC_ERROR(cgcCreateQueryHeap(device, &desc, &heap), CGC_ERROR_UNSUPPORTED,
                     "cgcCreateQueryHeap", "no timestamp queries");
    EXPECT_CGC_ERROR(cgcGetTimestampFrequency(queue, &frequency), CGC_ERROR_UNSUPPORTED,
                     "cgcGetTimestampFrequency");
    return;
  }
  ASSERT_CGC_OK(cgcCreateQueryHeap(device, &desc, &heap));
  ASSERT_CGC_OK(cgcGetTimestampFrequency(queue, &frequency));
  EXPECT_GE(frequency, 1'000'000u) << "ticks of at most a microsecond";
  cgcReleaseQueryHeap(heap);
}

TEST_P(ConformanceTest, TimestampsRiseThroughAList) {
  if (!supportsTimestamps(device))
    GTEST_SKIP() << "the '" << GetParam() << "' driver has no timestamp queries";
  constexpr uint32_t kQueries = 6;
  CgcQueryHeap heap = createTimestampHeap(device, kQueries);
  ASSERT_NE(heap, nullptr);
  std::vector<uint32_t> values(1 << 16, 0x5a5a5a5au);
  uint64_t size = values.size() * sizeof(uint32_t);
  CgcBuffer source = upload(values.data(), size);
  CgcBuffer middle = createBuffer(CGC_HEAP_TYPE_DEFAULT, size);
  CgcBuffer copied = createBuffer(CGC_HEAP_TYPE_READBACK, size);
  CgcBuffer readback = createBuffer(CGC_HEAP_TYPE_READBACK, kQueries * sizeof(uint64_t));
  CgcCommandList list = nullptr;
  ASSERT_CGC_OK(cgcCreateCommandList(device, allocator, &list));
  // Queries in recorded order around copies; the copies stay ordered by
  // their own barrier, and a timestamp orders them too.
  ASSERT_CGC_OK(cgcCommandListEndQuery(list, heap, CGC_QUERY_TYPE_TIMESTAMP, 0));
  ASSERT_CGC_OK(cgcCommandListCopyBufferRegion(list, middle, 0, source, 0, size));
  ASSERT_CGC_OK(cgcCommandListEndQuery(list, heap, CGC_QUERY_TYPE_TIMESTAMP, 1));
  globalBarrier(list);
  ASSERT_CGC_OK(cgcCommandListCopyBufferRegion(list, copied, 0, middle, 0, size));
  ASSERT_CGC_OK(cgcCommandListEndQuery(list, heap, CGC_QUERY_TYPE_TIMESTAMP, 2));
  ASSERT_CGC_OK(cgcCommandListEndQuery(list, heap, CGC_QUERY_TYPE_TIMESTAMP, 3));
  // Queries need not be ended in index order.
  ASSERT_CGC_OK(cgcCommandListEndQuery(list, heap, CGC_QUERY_TYPE_TIMESTAMP, 5));
  ASSERT_CGC_OK(cgcCommandListEndQuery(list, heap, CGC_QUERY_TYPE_TIMESTAMP, 4));
  ASSERT_CGC_OK(cgcCommandListResolveQueryData(list, heap, CGC_QUERY_TYPE_TIMESTAMP, 0, kQueries,
                                               readback, 0));
  executeAndWait(list);
  std::vector<uint64_t> ticks = read<uint64_t>(readback, kQueries);
  EXPECT_GT(ticks[0], 0u) << "a query that was ended holds the clock";
  const uint32_t endedInOrder[] = {0, 1, 2, 3, 5, 4};
  for (size_t i = 1; i < std::size(endedInOrder); ++i)
    EXPECT_LE(ticks[endedInOrder[i - 1]], ticks[endedInOrder[i]])
        << "query " << endedInOrder[i] << " was ended after query " << endedInOrder[i - 1];
  uint64_t frequency = 0;
  ASSERT_CGC_OK(cgcGetTimestampFrequency(queue, &frequency));
  EXPECT_LT(double(ticks[4] - ticks[0]) / double(frequency), 60.0) << "seconds";
  EXPECT_EQ(read<uint32_t>(copied, values.size()), values);

  // A second execution takes new, later timestamps.
  ASSERT_CGC_OK(cgcResetCommandAllocator(allocator));
  ASSERT_CGC_OK(cgcResetCommandList(list, allocator));
  ASSERT_CGC_OK(cgcCommandListEndQuery(list, heap, CGC_QUERY_TYPE_TIMESTAMP, 0));
  ASSERT_CGC_OK(cgcCommandListResolveQueryData(list, heap, CGC_QUERY_TYPE_TIMESTAMP, 0, 1,
                                               readback, 0));
  executeAndWait(list);
  EXPECT_GE(read<uint64_t>(readback, 1)[0], ticks[4]);
  cgcReleaseCommandList(list);
  cgcReleaseQueryHeap(heap);
}

TEST_P(ConformanceTest, TimestampsTimeADispatch) {
  if (!runsPrograms())
    GTEST_SKIP() << "the mock driver does not run programs";
  if (!supportsTimestamps(device))
    GTEST_SKIP() << "the '" << GetParam() << "' driver has no timestamp queries";
  std::vector<uint8_t> relu = cgc::test::makeContainer(cgc::test::kReluPartition);
  CgcStateObject stateObject = createStateObject(relu, "partition0");
  ASSERT_NE(stateObject, nullptr);
  std::vector<float> input(1024);
  for (size_t i = 0; i < input.size(); ++i)
    input[i] = static_cast<float>(i % 17) - 8.0f;
  uint64_t size = input.size() * sizeof(float);
  CgcBuffer staging = upload(input.data(), size);
  CgcBuffer x = createBuffer(CGC_HEAP_TYPE_DEFAULT, size);
  CgcBuffer y = createBuffer(CGC_HEAP_TYPE_DEFAULT, size);
  CgcBuffer output = createBuffer(CGC_HEAP_TYPE_READBACK, size);
  CgcBuffer readback = createBuffer(CGC_HEAP_TYPE_READBACK, 4 * sizeof(uint64_t));
  CgcQueryHeap heap = createTimestampHeap(device, 4);
  ASSERT_NE(heap, nullptr);

  CgcCommandList list = nullptr;
  ASSERT_CGC_OK(cgcCreateCommandList(device, allocator, &list));
  ASSERT_CGC_OK(cgcCommandListCopyBufferRegion(list, x, 0, staging, 0, size));
  globalBarrier(list);
  setProgram(list, stateObject, "partition0");
  std::array<CgcProgramBinding, 2> forward = {gpuBinding(0, x), gpuBinding(1, y)};
  std::array<CgcProgramBinding, 2> backward = {gpuBinding(0, y), gpuBinding(1, x)};
  // Work long enough for any device clock to advance: 64 dependent
  // dispatches, between two timestamps; and one dispatch timed alone.
  ASSERT_CGC_OK(cgcCommandListEndQuery(list, heap, CGC_QUERY_TYPE_TIMESTAMP, 0));
  for (int i = 0; i < 64; ++i) {
    CgcDispatchGraphDesc dispatch = {CGC_API_VERSION, 2, (i % 2 ? backward : forward).data()};
    ASSERT_CGC_OK(cgcCommandListDispatchGraph(list, &dispatch));
    globalBarrier(list);
  }
  ASSERT_CGC_OK(cgcCommandListEndQuery(list, heap, CGC_QUERY_TYPE_TIMESTAMP, 1));
  ASSERT_CGC_OK(cgcCommandListEndQuery(list, heap, CGC_QUERY_TYPE_TIMESTAMP, 2));
  CgcDispatchGraphDesc dispatch = {CGC_API_VERSION, 2, forward.data()};
  ASSERT_CGC_OK(cgcCommandListDispatchGraph(list, &dispatch));
  ASSERT_CGC_OK(cgcCommandListEndQuery(list, heap, CGC_QUERY_TYPE_TIMESTAMP, 3));
  // The timestamp orders the readback after the dispatch; no barrier needed.
  ASSERT_CGC_OK(cgcCommandListCopyBufferRegion(list, output, 0, y, 0, size));
  ASSERT_CGC_OK(cgcCommandListResolveQueryData(list, heap, CGC_QUERY_TYPE_TIMESTAMP, 0, 4,
                                               readback, 0));
  executeAndWait(list);

  std::vector<uint64_t> ticks = read<uint64_t>(readback, 4);
  EXPECT_GT(ticks[1], ticks[0]) << "64 dispatches took no time";
  EXPECT_LE(ticks[1], ticks[2]);
  EXPECT_LE(ticks[2], ticks[3]);
  // relu is idempotent: however many ran, y = relu(input), unless a dispatch
  // ran outside the order the timestamps impose.
  std::vector<float> result = read<float>(output, input.size());
  for (size_t i = 0; i < input.size(); ++i)
    ASSERT_EQ(result[i], std::max(0.0f, input[i])) << "element " << i;
  cgcReleaseCommandList(list);
  cgcReleaseQueryHeap(heap);
  cgcReleaseStateObject(stateObject);
}

TEST_P(ConformanceTest, ResolveAtAnOffsetAcrossLists) {
  if (!supportsTimestamps(device))
    GTEST_SKIP() << "the '" << GetParam() << "' driver has no timestamp queries";
  CgcQueryHeap heap = createTimestampHeap(device, 3);
  ASSERT_NE(heap, nullptr);
  CgcBuffer readback = createBuffer(CGC_HEAP_TYPE_READBACK, 6 * sizeof(uint64_t));
  void *data = nullptr;
  ASSERT_CGC_OK(cgcMapBuffer(readback, &data));
  std::memset(data, 0xee, 6 * sizeof(uint64_t));
  ASSERT_CGC_OK(cgcUnmapBuffer(readback));

  // One list ends the queries, a later one resolves them; releasing the heap
  // after recording leaves it to the lists.
  CgcCommandList first = nullptr, second = nullptr;
  ASSERT_CGC_OK(cgcCreateCommandList(device, allocator, &first));
  ASSERT_CGC_OK(cgcCreateCommandList(device, allocator, &second));
  for (uint32_t index : {2, 0, 1})
    ASSERT_CGC_OK(cgcCommandListEndQuery(first, heap, CGC_QUERY_TYPE_TIMESTAMP, index));
  ASSERT_CGC_OK(cgcCommandListResolveQueryData(second, heap, CGC_QUERY_TYPE_TIMESTAMP, 1, 2,
                                               readback, 2 * sizeof(uint64_t)));
  ASSERT_CGC_OK(cgcCommandListResolveQueryData(second, heap, CGC_QUERY_TYPE_TIMESTAMP, 0, 1,
                                               readback, 5 * sizeof(uint64_t)));
  cgcReleaseQueryHeap(heap);
  ASSERT_CGC_OK(cgcCloseCommandList(first));
  ASSERT_CGC_OK(cgcCloseCommandList(second));
  CgcCommandList both[] = {first, second};
  ASSERT_CGC_OK(cgcExecuteCommandLists(queue, 2, both));
  ASSERT_CGC_OK(cgcQueueSignal(queue, fence, ++fenceValue));
  ASSERT_CGC_OK(cgcWaitFence(fence, fenceValue, 30 * kSecond));

  std::vector<uint64_t> slots = read<uint64_t>(readback, 6);
  const uint64_t untouched = 0xeeeeeeeeeeeeeeeeull;
  for (int slot : {0, 1, 4})
    EXPECT_EQ(slots[slot], untouched) << "slot " << slot << " lies outside both resolves";
  // Slots 2, 3: queries 1 and 2; slot 5: query 0. Ended in the order 2, 0, 1.
  EXPECT_NE(slots[2], untouched);
  EXPECT_LE(slots[3], slots[5]) << "query 2 before query 0";
  EXPECT_LE(slots[5], slots[2]) << "query 0 before query 1";
  EXPECT_GT(slots[3], 0u);
  cgcReleaseCommandList(first);
  cgcReleaseCommandList(second);
}

TEST_P(ConformanceTest, QueryNeverEndedReadsZero) {
  if (!supportsTimestamps(device))
    GTEST_SKIP() << "the '" << GetParam() << "' driver has no timestamp queries";
  // The debug layer refuses such a resolve: a device without it.
  CgcDeviceDesc desc = {CGC_API_VERSION, CGC_DEVICE_FLAG_NONE, nullptr};
  CgcDevice plain = nullptr;
  ASSERT_CGC_OK(cgcCreateDevice(adapter, &desc, &plain));
  CgcCommandAllocator plainAllocator = nullptr;
  CgcCommandQueue plainQueue = nullptr;
  CgcFence plainFence = nullptr;
  CgcCommandList list = nullptr;
  CgcBuffer readback = nullptr;
  CgcBufferDesc bufferDesc = {CGC_API_VERSION, CGC_HEAP_TYPE_READBACK, 2 * sizeof(uint64_t)};
  ASSERT_CGC_OK(cgcCreateCommandAllocator(plain, &plainAllocator));
  ASSERT_CGC_OK(cgcCreateCommandQueue(plain, &plainQueue));
  ASSERT_CGC_OK(cgcCreateFence(plain, 0, &plainFence));
  ASSERT_CGC_OK(cgcCreateBuffer(plain, &bufferDesc, &readback));
  CgcQueryHeap heap = createTimestampHeap(plain, 2);
  ASSERT_NE(heap, nullptr);
  ASSERT_CGC_OK(cgcCreateCommandList(plain, plainAllocator, &list));
  ASSERT_CGC_OK(cgcCommandListEndQuery(list, heap, CGC_QUERY_TYPE_TIMESTAMP, 1));
  ASSERT_CGC_OK(cgcCommandListResolveQueryData(list, heap, CGC_QUERY_TYPE_TIMESTAMP, 0, 2,
                                               readback, 0));
  ASSERT_CGC_OK(cgcCloseCommandList(list));
  ASSERT_CGC_OK(cgcExecuteCommandLists(plainQueue, 1, &list));
  ASSERT_CGC_OK(cgcQueueSignal(plainQueue, plainFence, 1));
  ASSERT_CGC_OK(cgcWaitFence(plainFence, 1, 30 * kSecond));
  void *data = nullptr;
  ASSERT_CGC_OK(cgcMapBuffer(readback, &data));
  uint64_t slots[2];
  std::memcpy(slots, data, sizeof(slots));
  ASSERT_CGC_OK(cgcUnmapBuffer(readback));
  EXPECT_EQ(slots[0], 0u) << "query 0 was never ended";
  EXPECT_GT(slots[1], 0u);
  cgcReleaseCommandList(list);
  cgcReleaseQueryHeap(heap);
  cgcReleaseBuffer(readback);
  cgcReleaseFence(plainFence);
  cgcReleaseCommandQueue(plainQueue);
  cgcReleaseCommandAllocator(plainAllocator);
  cgcReleaseDevice(plain);
}

TEST_P(ConformanceTest, QueryErrors) {
  CgcQueryHeapDesc desc = {CGC_API_VERSION, CGC_QUERY_HEAP_TYPE_TIMESTAMP, 0};
  CgcQueryHeap heap = nullptr;
  EXPECT_CGC_ERROR(cgcCreateQueryHeap(device, &desc, &heap), CGC_ERROR_INVALID_ARGUMENT,
                   "cgcCreateQueryHeap: count is 0");
  desc = {CGC_API_VERSION, static_cast<CgcQueryHeapType>(9), 4};
  EXPECT_CGC_ERROR(cgcCreateQueryHeap(device, &desc, &heap), CGC_ERROR_INVALID_ARGUMENT,
                   "cgcCreateQueryHeap: unknown query heap type 9");
  desc = {0, CGC_QUERY_HEAP_TYPE_TIMESTAMP, 4};
  EXPECT_CGC_ERROR(cgcCreateQueryHeap(device, &desc, &heap), CGC_ERROR_INVALID_ARGUMENT,
                   "cgcCreateQueryHeap: desc->version is 0");
  if (!supportsTimestamps(device))
    GTEST_SKIP() << "the '" << GetParam() << "' driver has no timestamp queries";
  heap = createTimestampHeap(device, 4);
  ASSERT_NE(heap, nullptr);
  CgcBuffer readback = createBuffer(CGC_HEAP_TYPE_READBACK, 64);
  CgcBuffer upload = createBuffer(CGC_HEAP_TYPE_UPLOAD, 64);
  CgcCommandList list = nullptr;
  ASSERT_CGC_OK(cgcCreateCommandList(device, allocator, &list));
  constexpr CgcQueryType kTimestamp = CGC_QUERY_TYPE_TIMESTAMP;
  EXPECT_CGC_ERROR(cgcCommandListEndQuery(list, heap, kTimestamp, 4), CGC_ERROR_INVALID_ARGUMENT,
                   "cgcCommandListEndQuery: query 4 is outside the heap's 4 queries");
  EXPECT_CGC_ERROR(cgcCommandListEndQuery(list, heap, static_cast<CgcQueryType>(0), 0),
                   CGC_ERROR_INVALID_ARGUMENT, "cgcCommandListEndQuery: unknown query type 0");
  EXPECT_CGC_ERROR(cgcCommandListEndQuery(list, nullptr, kTimestamp, 0),
                   CGC_ERROR_INVALID_ARGUMENT, "cgcCommandListEndQuery: heap is null");
  for (uint32_t index = 0; index < 4; ++index)
    ASSERT_CGC_OK(cgcCommandListEndQuery(list, heap, kTimestamp, index));
  EXPECT_CGC_ERROR(cgcCommandListResolveQueryData(list, heap, kTimestamp, 3, 2, readback, 0),
                   CGC_ERROR_INVALID_ARGUMENT,
                   "cgcCommandListResolveQueryData: queries [3, 5) are outside the heap's 4");
  EXPECT_CGC_ERROR(cgcCommandListResolveQueryData(list, heap, kTimestamp, 5, 0, readback, 0),
                   CGC_ERROR_INVALID_ARGUMENT, "queries [5, 5) are outside");
  EXPECT_CGC_ERROR(cgcCommandListResolveQueryData(list, heap, kTimestamp, 0, 2, readback, 4),
                   CGC_ERROR_INVALID_ARGUMENT, "destinationOffset 4 is not a multiple of 8");
  EXPECT_CGC_ERROR(cgcCommandListResolveQueryData(list, heap, kTimestamp, 0, 4, readback, 40),
                   CGC_ERROR_INVALID_ARGUMENT,
                   "4 queries (32 bytes) at offset 40 run past the 64-byte destination");
  EXPECT_CGC_ERROR(cgcCommandListResolveQueryData(list, heap, kTimestamp, 0, 1, upload, 0),
                   CGC_ERROR_INVALID_ARGUMENT, "destination is an UPLOAD-heap buffer");
  EXPECT_CGC_ERROR(cgcCommandListResolveQueryData(list, heap, kTimestamp, 0, 1, nullptr, 0),
                   CGC_ERROR_INVALID_ARGUMENT, "destination is null");
  // Another device's heap.
  CgcDeviceDesc deviceDesc = {CGC_API_VERSION, CGC_DEVICE_FLAG_NONE, nullptr};
  CgcDevice other = nullptr;
  ASSERT_CGC_OK(cgcCreateDevice(adapter, &deviceDesc, &other));
  CgcQueryHeap foreign = createTimestampHeap(other, 1);
  ASSERT_NE(foreign, nullptr);
  EXPECT_CGC_ERROR(cgcCommandListEndQuery(list, foreign, kTimestamp, 0),
                   CGC_ERROR_INVALID_ARGUMENT, "heap was created on another device");
  cgcReleaseQueryHeap(foreign);
  cgcReleaseDevice(other);
  // A closed list records nothing.
  ASSERT_CGC_OK(cgcCommandListResolveQueryData(list, heap, kTimestamp, 0, 4, readback, 0));
  ASSERT_CGC_OK(cgcCloseCommandList(list));
  EXPECT_CGC_ERROR(cgcCommandListEndQuery(list, heap, kTimestamp, 0), CGC_ERROR_INVALID_STATE,
                   "cgcCommandListEndQuery: the command list is closed");
  uint64_t frequency = 0;
  EXPECT_CGC_ERROR(cgcGetTimestampFrequency(queue, nullptr), CGC_ERROR_INVALID_ARGUMENT,
                   "out_frequency is null");
  EXPECT_CGC_ERROR(cgcGetTimestampFrequency(nullptr, &frequency), CGC_ERROR_INVALID_ARGUMENT,
                   "queue is null");
  cgcReleaseCommandList(list);
  cgcReleaseQueryHeap(heap);
}

/// Counts what the API allocates through the application's callbacks.
struct CountingAllocator {
  int allocations = 0, frees = 0;
  static void *allocate(void *self, size_t size, size_t alignment) {
    ++static_cast<CountingAllocator *>(self)->allocations;
    return std::aligned_alloc(alignment, (size + alignment - 1) / alignment * alignment);
  }
  static void free(void *self, void *memory) {
    ++static_cast<CountingAllocator *>(self)->frees;
    std::free(memory);
  }
};

TEST_P(ConformanceTest, AllocationCallbacksServeEveryObject) {
  CountingAllocator counts;
  CgcAllocationCallbacks callbacks = {&counts, &CountingAllocator::allocate,
                                      &CountingAllocator::free};
  CgcDeviceDesc desc = {CGC_API_VERSION, CGC_DEVICE_FLAG_NONE, &callbacks};
  CgcDevice own = nullptr;
  ASSERT_CGC_OK(cgcCreateDevice(adapter, &desc, &own));
  CgcBufferDesc bufferDesc = {CGC_API_VERSION, CGC_HEAP_TYPE_DEFAULT, 256};
  CgcBuffer buffer = nullptr;
  CgcFence ownFence = nullptr;
  CgcCommandQueue ownQueue = nullptr;
  CgcCommandAllocator ownAllocator = nullptr;
  CgcCommandList list = nullptr;
  ASSERT_CGC_OK(cgcCreateBuffer(own, &bufferDesc, &buffer));
  ASSERT_CGC_OK(cgcCreateFence(own, 0, &ownFence));
  ASSERT_CGC_OK(cgcCreateCommandQueue(own, &ownQueue));
  ASSERT_CGC_OK(cgcCreateCommandAllocator(own, &ownAllocator));
  ASSERT_CGC_OK(cgcCreateCommandList(own, ownAllocator, &list));
  // The device, buffer, fence, queue, allocator and list at least.
  EXPECT_GE(counts.allocations, 6);
  EXPECT_EQ(counts.frees, 0);
  cgcReleaseCommandList(list);
  cgcReleaseCommandAllocator(ownAllocator);
  cgcReleaseCommandQueue(ownQueue);
  cgcReleaseFence(ownFence);
  cgcReleaseBuffer(buffer);
  cgcReleaseDevice(own);
  EXPECT_EQ(counts.frees, counts.allocations);
}

INSTANTIATE_TEST_SUITE_P(Drivers, ConformanceTest, ::testing::ValuesIn(kDrivers),
                         [](const ::testing::TestParamInfo<const char *> &info) {
                           return std::string(info.param);
                         });

} // namespace
