//===- ValidationTest.cpp - The checks every API call makes ---------------===//
//
// Run against the mock test driver with the debug layer off: these errors
// come from the API's cheap checks, before the driver is called.
//
//===----------------------------------------------------------------------===//

#include "APIFixture.h"

#include <cstdlib>
#include <cstring>

using cgc::interchange::Interface;

namespace {

class ValidationTest : public cgc::test::APIFixture {
protected:
  ValidationTest() : APIFixture(CGC_DEVICE_FLAG_NONE) {}
};

TEST_F(ValidationTest, NullArgumentsAreNamed) {
  EXPECT_CGC_ERROR(cgcEnumerateAdapters(0, nullptr), CGC_ERROR_INVALID_ARGUMENT,
                   "cgcEnumerateAdapters: out_adapter is null");
  CgcBuffer buffer = nullptr;
  EXPECT_CGC_ERROR(cgcCreateBuffer(nullptr, nullptr, &buffer), CGC_ERROR_INVALID_ARGUMENT,
                   "cgcCreateBuffer: device is null");
  EXPECT_CGC_ERROR(cgcCreateBuffer(device, nullptr, &buffer), CGC_ERROR_INVALID_ARGUMENT,
                   "cgcCreateBuffer: desc is null");
  EXPECT_CGC_ERROR(cgcCheckFeatureSupport(device, CGC_FEATURE_OPTIONS_MLIR, nullptr, 4),
                   CGC_ERROR_INVALID_ARGUMENT, "cgcCheckFeatureSupport: featureData is null");
  EXPECT_CGC_ERROR(cgcSignalFence(nullptr, 1), CGC_ERROR_INVALID_ARGUMENT,
                   "cgcSignalFence: fence is null");
  EXPECT_CGC_ERROR(cgcCommandListDispatchGraph(nullptr, nullptr), CGC_ERROR_INVALID_ARGUMENT,
                   "cgcCommandListDispatchGraph: list is null");
  EXPECT_EQ(cgcGetBufferDeviceAddress(nullptr), 0u);
  cgcReleaseBuffer(nullptr); // releasing null is a no-op
}

TEST_F(ValidationTest, VersionFields) {
  CgcBufferDesc bufferDesc = {CGC_API_VERSION + 1, CGC_HEAP_TYPE_DEFAULT, 16};
  CgcBuffer buffer = nullptr;
  EXPECT_CGC_ERROR(cgcCreateBuffer(device, &bufferDesc, &buffer), CGC_ERROR_INVALID_ARGUMENT,
                   "cgcCreateBuffer: desc->version is 2");
  CgcDeviceDesc deviceDesc = {0, 0, nullptr};
  CgcDevice other = nullptr;
  EXPECT_CGC_ERROR(cgcCreateDevice(adapter, &deviceDesc, &other), CGC_ERROR_INVALID_ARGUMENT,
                   "cgcCreateDevice: desc->version is 0");
  CgcStateObjectDesc stateDesc = {0, 0, 0, nullptr};
  CgcStateObject stateObject = nullptr;
  EXPECT_CGC_ERROR(cgcCreateStateObject(device, &stateDesc, &stateObject),
                   CGC_ERROR_INVALID_ARGUMENT, "cgcCreateStateObject: desc->version");
  CgcCommandList list = createList();
  CgcBarrierDesc barrier = {0, CGC_BARRIER_TYPE_GLOBAL, {}};
  EXPECT_CGC_ERROR(cgcCommandListBarrier(list, &barrier), CGC_ERROR_INVALID_ARGUMENT,
                   "cgcCommandListBarrier: desc->version");
  CgcDispatchGraphDesc dispatch = {0, 0, nullptr};
  EXPECT_CGC_ERROR(cgcCommandListDispatchGraph(list, &dispatch), CGC_ERROR_INVALID_ARGUMENT,
                   "cgcCommandListDispatchGraph: desc->version");
}

TEST_F(ValidationTest, UnknownEnumsAndFlags) {
  CgcBufferDesc bufferDesc = {CGC_API_VERSION, static_cast<CgcHeapType>(9), 16};
  CgcBuffer buffer = nullptr;
  EXPECT_CGC_ERROR(cgcCreateBuffer(device, &bufferDesc, &buffer), CGC_ERROR_INVALID_ARGUMENT,
                   "cgcCreateBuffer: unknown heap type 9");
  CgcDeviceDesc deviceDesc = {CGC_API_VERSION, 0x10, nullptr};
  CgcDevice other = nullptr;
  EXPECT_CGC_ERROR(cgcCreateDevice(adapter, &deviceDesc, &other), CGC_ERROR_INVALID_ARGUMENT,
                   "cgcCreateDevice: desc->flags has unknown bits 0x10");
  char data[16] = {};
  EXPECT_CGC_ERROR(cgcCheckFeatureSupport(device, static_cast<CgcFeature>(12), data, 16),
                   CGC_ERROR_INVALID_ARGUMENT, "cgcCheckFeatureSupport: unknown feature 12");
  CgcCommandList list = createList();
  CgcBarrierDesc barrier = {CGC_API_VERSION, static_cast<CgcBarrierType>(5), {}};
  EXPECT_CGC_ERROR(cgcCommandListBarrier(list, &barrier), CGC_ERROR_INVALID_ARGUMENT,
                   "cgcCommandListBarrier: unknown barrier type 5");
  setRelu(list);
  std::vector<CgcProgramBinding> bindings = reluBindings();
  bindings[1].type = static_cast<CgcBindingType>(3);
  CgcDispatchGraphDesc dispatch = {CGC_API_VERSION, 2, bindings.data()};
  EXPECT_CGC_ERROR(cgcCommandListDispatchGraph(list, &dispatch), CGC_ERROR_INVALID_ARGUMENT,
                   "cgcCommandListDispatchGraph: program 'relu' bind point 1: unknown binding type 3");
  bindings = reluBindings();
  dispatch.bindings = bindings.data();
  bindings[0].flags = 1;
  EXPECT_CGC_ERROR(cgcCommandListDispatchGraph(list, &dispatch), CGC_ERROR_INVALID_ARGUMENT,
                   "program 'relu' bind point 0: flags must be 0");
}

TEST_F(ValidationTest, FeatureDataSizes) {
  CgcFeatureDataMlirInterfaceSupport support = {};
  EXPECT_CGC_ERROR(cgcCheckFeatureSupport(device, CGC_FEATURE_MLIR_INTERFACE_SUPPORT, &support,
                                          sizeof(support) - 1),
                   CGC_ERROR_INVALID_ARGUMENT,
                   "cgcCheckFeatureSupport: CGC_FEATURE_MLIR_INTERFACE_SUPPORT: featureDataSize");
  support.numMlirInterfaces = 2;
  EXPECT_CGC_ERROR(cgcCheckFeatureSupport(device, CGC_FEATURE_MLIR_INTERFACE_SUPPORT, &support,
                                          sizeof(support)),
                   CGC_ERROR_INVALID_ARGUMENT, "numMlirInterfaces is 2");
  CgcFeatureDataMlirExchange exchange = {};
  exchange.mlirInterface = CGC_SUBGRAPH_DECLARATION_REQUEST;
  EXPECT_CGC_ERROR(cgcCheckFeatureSupport(device, CGC_FEATURE_MLIR_EXCHANGE, &exchange,
                                          sizeof(exchange)),
                   CGC_ERROR_INVALID_ARGUMENT, "outputDataSizeInBytes is null");
}

TEST_F(ValidationTest, ExchangeChecksGuidBeforeDriver) {
  size_t size = 0;
  CgcFeatureDataMlirExchange exchange = {};
  exchange.mlirInterface = CGC_INPUT;
  exchange.mlirInterface.data1 ^= 1;
  exchange.outputDataSizeInBytes = &size;
  EXPECT_CGC_ERROR(cgcCheckFeatureSupport(device, CGC_FEATURE_MLIR_EXCHANGE, &exchange,
                                          sizeof(exchange)),
                   CGC_ERROR_INVALID_ARGUMENT, "is not a known MLIR interface");
  // A known interface reaches the driver, which answers in its own words.
  exchange.mlirInterface = CGC_SUBGRAPH_DECLARATION_REQUEST;
  EXPECT_CGC_ERROR(cgcCheckFeatureSupport(device, CGC_FEATURE_MLIR_EXCHANGE, &exchange,
                                          sizeof(exchange)),
                   CGC_ERROR_UNSUPPORTED, "cgcCheckFeatureSupport: the mock driver exchanges no MLIR");
}

TEST_F(ValidationTest, StateObjectContainers) {
  auto create = [&](const std::vector<uint8_t> &bytes, const char *name = "p") {
    CgcMlirProgramDesc program = {name, bytes.data(), bytes.size()};
    CgcStateObjectDesc desc = {CGC_API_VERSION, 0, 1, &program};
    CgcStateObject stateObject = nullptr;
    CgcStatus status = cgcCreateStateObject(device, &desc, &stateObject);
    cgcReleaseStateObject(stateObject);
    return status;
  };
  std::vector<uint8_t> garbage(200, 0x17);
  EXPECT_CGC_ERROR(create(garbage), CGC_ERROR_INVALID_ARGUMENT,
                   "cgcCreateStateObject: program 'p': not a valid container");
  std::vector<uint8_t> partition = cgc::test::makeContainer(cgc::test::kReluPartition);
  std::vector<uint8_t> unsealed = cgc::interchange::writeUnsealedContainer(
      Interface::SubgraphPartition,
      std::span(partition).subspan(cgc::interchange::layout::kHeaderSize));
  EXPECT_CGC_ERROR(create(unsealed), CGC_ERROR_INVALID_ARGUMENT, "program 'p': not a valid container");
  std::vector<uint8_t> damaged = partition;
  damaged.back() ^= 0xff;
  EXPECT_CGC_ERROR(create(damaged), CGC_ERROR_INVALID_ARGUMENT, "program 'p': not a valid container");
  std::vector<uint8_t> input = cgc::test::makeContainer(R"mlir(
cgc.module {
  cgc.entry_point @main(%x: !cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32> {
    %0 = cgc_op.relu(%x) : (!cgc.tensor<4x!cgc.float32>) -> !cgc.tensor<4x!cgc.float32>
    cgc.return %0 : !cgc.tensor<4x!cgc.float32>
  }
}
)mlir",
                                                        Interface::Input);
  EXPECT_CGC_ERROR(create(input), CGC_ERROR_INVALID_ARGUMENT,
                   "program 'p': the container holds CGC_INPUT");
  EXPECT_CGC_ERROR(create(partition, ""), CGC_ERROR_INVALID_ARGUMENT, "programs[0] has no programName");
  EXPECT_EQ(create(partition), CGC_OK) << cgcGetLastErrorMessage();

  CgcStateObjectDesc empty = {CGC_API_VERSION, 0, 0, nullptr};
  CgcStateObject stateObject = nullptr;
  EXPECT_CGC_ERROR(cgcCreateStateObject(device, &empty, &stateObject), CGC_ERROR_INVALID_ARGUMENT,
                   "has no programs");
}

TEST_F(ValidationTest, ProgramNames) {
  std::vector<uint8_t> partition = cgc::test::makeContainer(cgc::test::kReluPartition);
  CgcMlirProgramDesc programs[2] = {{"same", partition.data(), partition.size()},
                                    {"same", partition.data(), partition.size()}};
  CgcStateObjectDesc desc = {CGC_API_VERSION, 0, 2, programs};
  CgcStateObject stateObject = nullptr;
  EXPECT_CGC_ERROR(cgcCreateStateObject(device, &desc, &stateObject), CGC_ERROR_INVALID_ARGUMENT,
                   "cgcCreateStateObject: program 'same': the state object already has a program "
                   "of that name");

  // AddToStateObject: the flag is required and names may not repeat.
  CgcStateObject plain = createReluStateObject("relu", 0);
  CgcMlirProgramDesc addition = {"other", partition.data(), partition.size()};
  CgcStateObjectDesc additionDesc = {CGC_API_VERSION, 0, 1, &addition};
  CgcStateObject grown = nullptr;
  EXPECT_CGC_ERROR(cgcAddToStateObject(device, &additionDesc, plain, &grown),
                   CGC_ERROR_INVALID_ARGUMENT,
                   "cgcAddToStateObject: grownFrom was not created with "
                   "CGC_STATE_OBJECT_FLAG_ALLOW_STATE_OBJECT_ADDITIONS");
  CgcStateObject growable =
      createReluStateObject("relu", CGC_STATE_OBJECT_FLAG_ALLOW_STATE_OBJECT_ADDITIONS);
  addition.programName = "relu";
  EXPECT_CGC_ERROR(cgcAddToStateObject(device, &additionDesc, growable, &grown),
                   CGC_ERROR_INVALID_ARGUMENT,
                   "cgcAddToStateObject: program 'relu': the state object already has");
  CgcProgramIdentifier identifier = {};
  EXPECT_CGC_ERROR(cgcGetProgramIdentifier(plain, "missing", &identifier), CGC_ERROR_NOT_FOUND,
                   "cgcGetProgramIdentifier: program 'missing' is not in the state object");
  CgcProgramBindingProperties properties = {CGC_API_VERSION};
  EXPECT_CGC_ERROR(cgcGetProgramBindingProperties(plain, "missing", &properties),
                   CGC_ERROR_NOT_FOUND, "program 'missing'");
  std::vector<CgcBindPointDesc> tooFew(1);
  properties.numBindPoints = 1;
  properties.bindPoints = tooFew.data();
  EXPECT_CGC_ERROR(cgcGetProgramBindingProperties(plain, "relu", &properties),
                   CGC_ERROR_INVALID_ARGUMENT, "numBindPoints is 1 but the program has 2");
  cgcReleaseStateObject(plain);
  cgcReleaseStateObject(growable);
}

TEST_F(ValidationTest, ListStates) {
  CgcCommandList list = createList();
  ASSERT_CGC_OK(cgcCloseCommandList(list));
  CgcBarrierDesc barrier = {CGC_API_VERSION, CGC_BARRIER_TYPE_GLOBAL, {}};
  EXPECT_CGC_ERROR(cgcCommandListBarrier(list, &barrier), CGC_ERROR_INVALID_STATE,
                   "cgcCommandListBarrier: the command list is closed");
  EXPECT_CGC_ERROR(cgcCloseCommandList(list), CGC_ERROR_INVALID_STATE, "cgcCloseCommandList");
  ASSERT_CGC_OK(cgcResetCommandList(list, allocator));
  EXPECT_CGC_ERROR(cgcExecuteCommandLists(queue, 1, &list), CGC_ERROR_INVALID_STATE,
                   "cgcExecuteCommandLists: lists[0] is open");
  EXPECT_CGC_ERROR(cgcResetCommandList(list, allocator), CGC_ERROR_INVALID_STATE,
                   "cgcResetCommandList: the command list is still open");
}

TEST_F(ValidationTest, ObjectsFromAnotherDevice) {
  CgcDeviceDesc desc = {CGC_API_VERSION, 0, nullptr};
  CgcDevice other = nullptr;
  ASSERT_CGC_OK(cgcCreateDevice(adapter, &desc, &other));
  CgcFence otherFence = nullptr;
  ASSERT_CGC_OK(cgcCreateFence(other, 0, &otherFence));
  EXPECT_CGC_ERROR(cgcQueueSignal(queue, otherFence, 1), CGC_ERROR_INVALID_ARGUMENT,
                   "cgcQueueSignal: fence was created on another device");
  EXPECT_CGC_ERROR(cgcQueueWait(queue, otherFence, 1), CGC_ERROR_INVALID_ARGUMENT,
                   "cgcQueueWait: fence was created on another device");
  CgcBufferDesc bufferDesc = {CGC_API_VERSION, CGC_HEAP_TYPE_DEFAULT, 64};
  CgcBuffer otherBuffer = nullptr;
  ASSERT_CGC_OK(cgcCreateBuffer(other, &bufferDesc, &otherBuffer));
  CgcCommandList list = createList();
  CgcBuffer mine = createBuffer(CGC_HEAP_TYPE_DEFAULT, 64);
  EXPECT_CGC_ERROR(cgcCommandListCopyBufferRegion(list, mine, 0, otherBuffer, 0, 64),
                   CGC_ERROR_INVALID_ARGUMENT,
                   "cgcCommandListCopyBufferRegion: source was created on another device");
  CgcCommandAllocator otherAllocator = nullptr;
  ASSERT_CGC_OK(cgcCreateCommandAllocator(other, &otherAllocator));
  CgcCommandList otherList = nullptr;
  EXPECT_CGC_ERROR(cgcCreateCommandList(device, otherAllocator, &otherList),
                   CGC_ERROR_INVALID_ARGUMENT, "allocator was created on another device");
  ASSERT_CGC_OK(cgcCreateCommandList(other, otherAllocator, &otherList));
  ASSERT_CGC_OK(cgcCloseCommandList(otherList));
  EXPECT_CGC_ERROR(cgcExecuteCommandLists(queue, 1, &otherList), CGC_ERROR_INVALID_ARGUMENT,
                   "cgcExecuteCommandLists: lists[0] was created on another device");
  // A state object of the other device.
  std::vector<uint8_t> partition = cgc::test::makeContainer(cgc::test::kReluPartition);
  CgcMlirProgramDesc program = {"relu", partition.data(), partition.size()};
  CgcStateObjectDesc stateDesc = {CGC_API_VERSION, 0, 1, &program};
  CgcStateObject otherState = nullptr;
  ASSERT_CGC_OK(cgcCreateStateObject(other, &stateDesc, &otherState));
  CgcSetProgramDesc set = {CGC_API_VERSION};
  ASSERT_CGC_OK(cgcGetProgramIdentifier(otherState, "relu", &set.programIdentifier));
  EXPECT_CGC_ERROR(cgcCommandListSetProgram(list, otherState, &set), CGC_ERROR_INVALID_ARGUMENT,
                   "cgcCommandListSetProgram: stateObject was created on another device");
  // Objects keep their device alive: release the handle first.
  cgcReleaseDevice(other);
  cgcReleaseStateObject(otherState);
  cgcReleaseCommandList(otherList);
  cgcReleaseCommandAllocator(otherAllocator);
  cgcReleaseBuffer(otherBuffer);
  cgcReleaseFence(otherFence);
}

TEST_F(ValidationTest, FencesAndMaps) {
  ASSERT_CGC_OK(cgcSignalFence(fence, 10));
  EXPECT_CGC_ERROR(cgcSignalFence(fence, 9), CGC_ERROR_INVALID_ARGUMENT,
                   "cgcSignalFence: value 9 is less than the fence's completed value 10");
  CgcBuffer buffer = createBuffer(CGC_HEAP_TYPE_DEFAULT, 64);
  void *data = nullptr;
  EXPECT_CGC_ERROR(cgcMapBuffer(buffer, &data), CGC_ERROR_INVALID_ARGUMENT,
                   "cgcMapBuffer: a DEFAULT-heap buffer is not host-visible");
}

TEST_F(ValidationTest, CopyRanges) {
  CgcCommandList list = createList();
  CgcBuffer a = createBuffer(CGC_HEAP_TYPE_DEFAULT, 100);
  CgcBuffer b = createBuffer(CGC_HEAP_TYPE_DEFAULT, 50);
  CgcBuffer upload = createBuffer(CGC_HEAP_TYPE_UPLOAD, 100);
  EXPECT_CGC_ERROR(cgcCommandListCopyBufferRegion(list, b, 0, a, 0, 51), CGC_ERROR_INVALID_ARGUMENT,
                   "cgcCommandListCopyBufferRegion: destination region of 51 bytes at offset 0 "
                   "is outside the 50-byte buffer");
  EXPECT_CGC_ERROR(cgcCommandListCopyBufferRegion(list, b, 0, a, 60, 41), CGC_ERROR_INVALID_ARGUMENT,
                   "source region of 41 bytes at offset 60 is outside the 100-byte buffer");
  EXPECT_CGC_ERROR(cgcCommandListCopyBufferRegion(list, b, UINT64_MAX, a, 0, 2),
                   CGC_ERROR_INVALID_ARGUMENT, "destination region");
  EXPECT_CGC_ERROR(cgcCommandListCopyBufferRegion(list, a, 10, a, 0, 20), CGC_ERROR_INVALID_ARGUMENT,
                   "overlap");
  EXPECT_CGC_ERROR(cgcCommandListCopyBufferRegion(list, upload, 0, a, 0, 20),
                   CGC_ERROR_INVALID_ARGUMENT, "UPLOAD");
  ASSERT_CGC_OK(cgcCommandListCopyBufferRegion(list, a, 50, a, 0, 50));
  ASSERT_CGC_OK(cgcCommandListCopyBufferRegion(list, b, 0, a, 50, 50));
}

TEST_F(ValidationTest, DispatchWithoutProgram) {
  CgcCommandList list = createList();
  CgcDispatchGraphDesc dispatch = {CGC_API_VERSION, 0, nullptr};
  EXPECT_CGC_ERROR(cgcCommandListDispatchGraph(list, &dispatch), CGC_ERROR_INVALID_STATE,
                   "cgcCommandListDispatchGraph: no program is set");
}

TEST_F(ValidationTest, DispatchBindings) {
  CgcCommandList list = createList();
  setRelu(list);
  std::vector<CgcProgramBinding> bindings = reluBindings();
  CgcDispatchGraphDesc dispatch = {CGC_API_VERSION, 2, bindings.data()};

  bindings[1].bindPointIndex = 5;
  EXPECT_CGC_ERROR(cgcCommandListDispatchGraph(list, &dispatch), CGC_ERROR_INVALID_ARGUMENT,
                   "cgcCommandListDispatchGraph: program 'relu' bind point 5: the program has 2 "
                   "bind points");
  bindings[1].bindPointIndex = 0;
  EXPECT_CGC_ERROR(cgcCommandListDispatchGraph(list, &dispatch), CGC_ERROR_INVALID_ARGUMENT,
                   "cgcCommandListDispatchGraph: program 'relu' bind point 0: bound twice");
  dispatch.numBindings = 1;
  EXPECT_CGC_ERROR(cgcCommandListDispatchGraph(list, &dispatch), CGC_ERROR_INVALID_ARGUMENT,
                   "cgcCommandListDispatchGraph: program 'relu' bind point 1: not bound");
  bindings = reluBindings();
  dispatch = {CGC_API_VERSION, 2, bindings.data()};
  bindings[1].gpu.sizeInBytes = 64;
  EXPECT_CGC_ERROR(cgcCommandListDispatchGraph(list, &dispatch), CGC_ERROR_INVALID_ARGUMENT,
                   "cgcCommandListDispatchGraph: program 'relu' bind point 1: binding of 64 "
                   "bytes is smaller than the bind point's 4096 bytes");
  // CPU data for the input: exactly the bind point's size.
  std::vector<float> host(1025);
  bindings = reluBindings();
  dispatch.bindings = bindings.data();
  bindings[0].type = CGC_BINDING_TYPE_CPU;
  bindings[0].cpu = {host.data(), 1025 * sizeof(float)};
  EXPECT_CGC_ERROR(cgcCommandListDispatchGraph(list, &dispatch), CGC_ERROR_INVALID_ARGUMENT,
                   "program 'relu' bind point 0: CPU binding of 4100 bytes is larger than the "
                   "bind point's 4096 bytes");
  bindings[0].cpu = {nullptr, 4096};
  EXPECT_CGC_ERROR(cgcCommandListDispatchGraph(list, &dispatch), CGC_ERROR_INVALID_ARGUMENT,
                   "program 'relu' bind point 0: CPU binding data is null");
  bindings[0].cpu = {host.data(), 4096};
  ASSERT_CGC_OK(cgcCommandListDispatchGraph(list, &dispatch));
}

TEST_F(ValidationTest, DispatchBindingsReachDriverSorted) {
  // The mock driver refuses bindings that are not complete and sorted.
  CgcCommandList list = createList();
  setRelu(list);
  std::vector<CgcProgramBinding> bindings = reluBindings();
  std::swap(bindings[0], bindings[1]);
  CgcDispatchGraphDesc dispatch = {CGC_API_VERSION, 2, bindings.data()};
  ASSERT_CGC_OK(cgcCommandListDispatchGraph(list, &dispatch));
}

TEST_F(ValidationTest, CpuBindingOnTier1) {
  setenv("CGC_MOCK_TIER", "10", 1);
  CgcDeviceDesc desc = {CGC_API_VERSION, 0, nullptr};
  CgcDevice tier1 = nullptr;
  CgcStatus status = cgcCreateDevice(adapter, &desc, &tier1);
  unsetenv("CGC_MOCK_TIER");
  ASSERT_CGC_OK(status);
  CgcFeatureDataOptionsMlir options = {};
  ASSERT_CGC_OK(cgcCheckFeatureSupport(tier1, CGC_FEATURE_OPTIONS_MLIR, &options, sizeof options));
  ASSERT_EQ(options.mlirProgramsTier, CGC_MLIR_PROGRAMS_TIER_1_0);
  std::swap(device, tier1);
  CgcCommandAllocator tier1Allocator = nullptr;
  ASSERT_CGC_OK(cgcCreateCommandAllocator(device, &tier1Allocator));
  CgcCommandList list = nullptr;
  ASSERT_CGC_OK(cgcCreateCommandList(device, tier1Allocator, &list));
  setRelu(list);
  std::vector<CgcProgramBinding> bindings = reluBindings();
  std::vector<float> host(1024);
  bindings[0].type = CGC_BINDING_TYPE_CPU;
  bindings[0].cpu = {host.data(), 4096};
  CgcDispatchGraphDesc dispatch = {CGC_API_VERSION, 2, bindings.data()};
  EXPECT_CGC_ERROR(cgcCommandListDispatchGraph(list, &dispatch), CGC_ERROR_INVALID_ARGUMENT,
                   "program 'relu' bind point 0: CPU bindings need MLIR programs tier 2.0; the "
                   "device has tier 1.0");
  cgcReleaseCommandList(list);
  cgcReleaseCommandAllocator(tier1Allocator);
  releaseBuffers(); // made on the tier-1 device
  std::swap(device, tier1);
  cgcReleaseDevice(tier1);
}

TEST_F(ValidationTest, SetProgramResources) {
  CgcCommandList list = createList();
  CgcStateObject stateObject = createReluStateObject("relu", 0);
  CgcSetProgramDesc desc = setProgramDesc(stateObject, "relu");
  desc.temporaryResource.sizeInBytes = 255;
  EXPECT_CGC_ERROR(cgcCommandListSetProgram(list, stateObject, &desc), CGC_ERROR_INVALID_ARGUMENT,
                   "cgcCommandListSetProgram: program 'relu' temporary resource of 255 bytes is "
                   "smaller than the program's 256 bytes");
  desc = setProgramDesc(stateObject, "relu");
  desc.persistentResource = {};
  EXPECT_CGC_ERROR(cgcCommandListSetProgram(list, stateObject, &desc), CGC_ERROR_INVALID_ARGUMENT,
                   "program 'relu' persistent resource of 0 bytes is smaller than the program's "
                   "128 bytes");
  desc = setProgramDesc(stateObject, "relu");
  desc.programIdentifier.opaque[1] ^= 1;
  EXPECT_CGC_ERROR(cgcCommandListSetProgram(list, stateObject, &desc), CGC_ERROR_INVALID_ARGUMENT,
                   "programIdentifier does not name a program of this state object");
  desc = setProgramDesc(stateObject, "relu");
  desc.flags = 4;
  EXPECT_CGC_ERROR(cgcCommandListSetProgram(list, stateObject, &desc), CGC_ERROR_INVALID_ARGUMENT,
                   "flags must be 0");
  cgcReleaseStateObject(stateObject);
}

TEST_F(ValidationTest, ListKeepsStateObjectAlive) {
  CgcCommandList list = createList();
  CgcStateObject stateObject = createReluStateObject("relu", 0);
  CgcSetProgramDesc desc = setProgramDesc(stateObject, "relu");
  ASSERT_CGC_OK(cgcCommandListSetProgram(list, stateObject, &desc));
  cgcReleaseStateObject(stateObject);
  // The program is still there for the dispatch and the execution.
  std::vector<CgcProgramBinding> bindings = reluBindings();
  CgcDispatchGraphDesc dispatch = {CGC_API_VERSION, 2, bindings.data()};
  ASSERT_CGC_OK(cgcCommandListDispatchGraph(list, &dispatch));
  executeAndWait(list);
}

TEST_F(ValidationTest, DebugOnlyChecksAreOff) {
  // Without the debug layer, a binding outside every buffer is the driver's business.
  CgcCommandList list = createList();
  setRelu(list);
  std::vector<CgcProgramBinding> bindings = reluBindings();
  bindings[0].gpu.address += 8; // runs past its buffer's end
  CgcDispatchGraphDesc dispatch = {CGC_API_VERSION, 2, bindings.data()};
  ASSERT_CGC_OK(cgcCommandListDispatchGraph(list, &dispatch));
}

TEST(StatusNames, AllNamed) {
  EXPECT_STREQ(cgcStatusName(CGC_OK), "CGC_OK");
  EXPECT_STREQ(cgcStatusName(CGC_ERROR_INVALID_STATE), "CGC_ERROR_INVALID_STATE");
  EXPECT_STREQ(cgcStatusName(CGC_ERROR_INTERNAL), "CGC_ERROR_INTERNAL");
  EXPECT_STREQ(cgcStatusName(static_cast<CgcStatus>(99)), "CGC_STATUS_UNKNOWN");
}

TEST_F(ValidationTest, QueriesWithoutTheDebugLayer) {
  // The cheap checks hold; resolving a query never ended is allowed (it
  // reads 0), and the heap lives as long as the lists that use it.
  CgcQueryHeapDesc desc = {CGC_API_VERSION, CGC_QUERY_HEAP_TYPE_TIMESTAMP, 2};
  CgcQueryHeap heap = nullptr;
  EXPECT_CGC_ERROR(cgcCreateQueryHeap(nullptr, &desc, &heap), CGC_ERROR_INVALID_ARGUMENT,
                   "cgcCreateQueryHeap: device is null");
  EXPECT_CGC_ERROR(cgcCreateQueryHeap(device, nullptr, &heap), CGC_ERROR_INVALID_ARGUMENT,
                   "cgcCreateQueryHeap: desc is null");
  EXPECT_CGC_ERROR(cgcCreateQueryHeap(device, &desc, nullptr), CGC_ERROR_INVALID_ARGUMENT,
                   "cgcCreateQueryHeap: out_heap is null");
  ASSERT_CGC_OK(cgcCreateQueryHeap(device, &desc, &heap));
  CgcBuffer readback = createBuffer(CGC_HEAP_TYPE_READBACK, 16);
  CgcCommandList list = createList();
  EXPECT_CGC_ERROR(cgcCommandListEndQuery(nullptr, heap, CGC_QUERY_TYPE_TIMESTAMP, 0),
                   CGC_ERROR_INVALID_ARGUMENT, "cgcCommandListEndQuery: list is null");
  ASSERT_CGC_OK(cgcCommandListEndQuery(list, heap, CGC_QUERY_TYPE_TIMESTAMP, 1));
  ASSERT_CGC_OK(cgcCommandListResolveQueryData(list, heap, CGC_QUERY_TYPE_TIMESTAMP, 0, 2,
                                               readback, 0));
  // Resolving no queries records nothing and needs no valid range.
  ASSERT_CGC_OK(cgcCommandListResolveQueryData(list, heap, CGC_QUERY_TYPE_TIMESTAMP, 2, 0,
                                               readback, 16));
  cgcReleaseQueryHeap(heap);
  executeAndWait(list);
  void *data = nullptr;
  ASSERT_CGC_OK(cgcMapBuffer(readback, &data));
  uint64_t slots[2];
  std::memcpy(slots, data, sizeof(slots));
  ASSERT_CGC_OK(cgcUnmapBuffer(readback));
  EXPECT_EQ(slots[0], 0u);
  EXPECT_GT(slots[1], 0u);
}

} // namespace
