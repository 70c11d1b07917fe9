//===- DebugLayerTest.cpp - What the debug layer adds ---------------------===//
//
// A device of the mock driver created with CGC_DEVICE_FLAG_DEBUG_LAYER: every
// range a command names must lie in a live buffer of the device, bind point
// addresses must be aligned, written bind points must be writable, queue
// signals may not move a fence backwards, a resolve reads only queries some
// EndQuery has recorded. Each message names the call, and
// for bindings the program and bind point.
//
//===----------------------------------------------------------------------===//

#include "APIFixture.h"

#include <cstdlib>

namespace {

class DebugLayerTest : public cgc::test::APIFixture {
protected:
  DebugLayerTest() : APIFixture(CGC_DEVICE_FLAG_DEBUG_LAYER) {}

  CgcStatus dispatch(CgcCommandList list, std::vector<CgcProgramBinding> &bindings) {
    CgcDispatchGraphDesc desc = {CGC_API_VERSION, static_cast<uint32_t>(bindings.size()),
                                 bindings.data()};
    return cgcCommandListDispatchGraph(list, &desc);
  }
};

TEST_F(DebugLayerTest, ValidDispatchPasses) {
  CgcCommandList list = createList();
  setRelu(list);
  std::vector<CgcProgramBinding> bindings = reluBindings();
  ASSERT_CGC_OK(dispatch(list, bindings));
  executeAndWait(list);
}

TEST_F(DebugLayerTest, BindingOutsideBuffers) {
  CgcCommandList list = createList();
  setRelu(list);
  std::vector<CgcProgramBinding> bindings = reluBindings();
  bindings[1].gpu.address += 4; // the last 4 bytes run past the buffer
  EXPECT_CGC_ERROR(dispatch(list, bindings), CGC_ERROR_INVALID_ARGUMENT,
                   "cgcCommandListDispatchGraph: program 'relu' bind point 1: range ",
                   "of 4096 bytes is not inside any live buffer of this device");
  bindings = reluBindings();
  bindings[0].gpu.address = 64; // no buffer at all
  EXPECT_CGC_ERROR(dispatch(list, bindings), CGC_ERROR_INVALID_ARGUMENT,
                   "program 'relu' bind point 0: range [0x40, 0x1040)");
}

TEST_F(DebugLayerTest, BindingInReleasedBuffer) {
  CgcCommandList list = createList();
  setRelu(list);
  std::vector<CgcProgramBinding> bindings = reluBindings();
  cgcReleaseBuffer(buffers.back());
  buffers.pop_back();
  EXPECT_CGC_ERROR(dispatch(list, bindings), CGC_ERROR_INVALID_ARGUMENT,
                   "program 'relu' bind point 1", "not inside any live buffer");
}

TEST_F(DebugLayerTest, MisalignedBinding) {
  CgcCommandList list = createList();
  setRelu(list);
  std::vector<CgcProgramBinding> bindings = reluBindings();
  CgcBuffer large = createBuffer(CGC_HEAP_TYPE_DEFAULT, 8192);
  bindings[0].gpu.address = cgcGetBufferDeviceAddress(large) + 2;
  EXPECT_CGC_ERROR(dispatch(list, bindings), CGC_ERROR_INVALID_ARGUMENT,
                   "cgcCommandListDispatchGraph: program 'relu' bind point 0: address 0x",
                   "is not aligned to the bind point's 4 bytes");
  bindings[0].gpu.address = cgcGetBufferDeviceAddress(large) + 4; // aligned, inside
  ASSERT_CGC_OK(dispatch(list, bindings));
}

TEST_F(DebugLayerTest, WrittenBindPointMustBeWritable) {
  CgcCommandList list = createList();
  setRelu(list);
  std::vector<CgcProgramBinding> bindings = reluBindings();
  CgcBuffer upload = createBuffer(CGC_HEAP_TYPE_UPLOAD, 4096);
  bindings[1].gpu.address = cgcGetBufferDeviceAddress(upload);
  EXPECT_CGC_ERROR(dispatch(list, bindings), CGC_ERROR_INVALID_ARGUMENT,
                   "program 'relu' bind point 1: the program writes this bind point but it is "
                   "bound to an UPLOAD-heap buffer");
  // An input may come from an upload buffer.
  bindings = reluBindings();
  bindings[0].gpu.address = cgcGetBufferDeviceAddress(upload);
  ASSERT_CGC_OK(dispatch(list, bindings));
  std::vector<float> host(1024);
  bindings = reluBindings();
  bindings[1].type = CGC_BINDING_TYPE_CPU;
  bindings[1].cpu = {host.data(), 4096};
  EXPECT_CGC_ERROR(dispatch(list, bindings), CGC_ERROR_INVALID_ARGUMENT,
                   "program 'relu' bind point 1: the program writes this bind point, so it "
                   "cannot take a CPU binding");
}

TEST_F(DebugLayerTest, SetProgramRangesOutsideBuffers) {
  CgcCommandList list = createList();
  CgcStateObject stateObject = createReluStateObject("relu", 0);
  CgcSetProgramDesc desc = setProgramDesc(stateObject, "relu");
  desc.temporaryResource.sizeInBytes = 300; // the buffer holds 256
  EXPECT_CGC_ERROR(cgcCommandListSetProgram(list, stateObject, &desc), CGC_ERROR_INVALID_ARGUMENT,
                   "cgcCommandListSetProgram: program 'relu' temporary resource: range ",
                   "is not inside any live buffer");
  desc = setProgramDesc(stateObject, "relu");
  desc.persistentResource.address = 16;
  EXPECT_CGC_ERROR(cgcCommandListSetProgram(list, stateObject, &desc), CGC_ERROR_INVALID_ARGUMENT,
                   "program 'relu' persistent resource: range [0x10, 0x90)");
  desc = setProgramDesc(stateObject, "relu");
  ASSERT_CGC_OK(cgcCommandListSetProgram(list, stateObject, &desc));
  cgcReleaseStateObject(stateObject);
}

TEST_F(DebugLayerTest, BarrierRange) {
  CgcCommandList list = createList();
  CgcBuffer buffer = createBuffer(CGC_HEAP_TYPE_DEFAULT, 1024);
  CgcBarrierDesc barrier = {CGC_API_VERSION, CGC_BARRIER_TYPE_BUFFER_RANGE,
                            {cgcGetBufferDeviceAddress(buffer) + 512, 513}};
  EXPECT_CGC_ERROR(cgcCommandListBarrier(list, &barrier), CGC_ERROR_INVALID_ARGUMENT,
                   "cgcCommandListBarrier: barrier: range ", "of 513 bytes is not inside");
  barrier.range.sizeInBytes = 512;
  ASSERT_CGC_OK(cgcCommandListBarrier(list, &barrier));
}

TEST_F(DebugLayerTest, QueueSignalBackwards) {
  ASSERT_CGC_OK(cgcQueueSignal(queue, fence, 5));
  EXPECT_CGC_ERROR(cgcQueueSignal(queue, fence, 4), CGC_ERROR_INVALID_ARGUMENT,
                   "cgcQueueSignal: value 4 is less than the fence's highest signaled value 5");
  ASSERT_CGC_OK(cgcQueueSignal(queue, fence, 5));
  ASSERT_CGC_OK(cgcWaitFence(fence, 5, 30'000'000'000ull));
}

TEST_F(DebugLayerTest, ResolveOfQueriesNeverEnded) {
  CgcQueryHeapDesc desc = {CGC_API_VERSION, CGC_QUERY_HEAP_TYPE_TIMESTAMP, 4};
  CgcQueryHeap heap = nullptr;
  ASSERT_CGC_OK(cgcCreateQueryHeap(device, &desc, &heap));
  CgcBuffer readback = createBuffer(CGC_HEAP_TYPE_READBACK, 32);
  CgcCommandList first = createList();
  ASSERT_CGC_OK(cgcCommandListEndQuery(first, heap, CGC_QUERY_TYPE_TIMESTAMP, 0));
  ASSERT_CGC_OK(cgcCommandListEndQuery(first, heap, CGC_QUERY_TYPE_TIMESTAMP, 2));
  EXPECT_CGC_ERROR(cgcCommandListResolveQueryData(first, heap, CGC_QUERY_TYPE_TIMESTAMP, 0, 3,
                                                  readback, 0),
                   CGC_ERROR_INVALID_ARGUMENT,
                   "cgcCommandListResolveQueryData: query 1 of the heap has not been ended by "
                   "any command list");
  ASSERT_CGC_OK(cgcCommandListResolveQueryData(first, heap, CGC_QUERY_TYPE_TIMESTAMP, 0, 1,
                                               readback, 0));
  // An EndQuery of another list counts: lists may execute one after another.
  CgcCommandList second = createList();
  ASSERT_CGC_OK(cgcCommandListEndQuery(second, heap, CGC_QUERY_TYPE_TIMESTAMP, 1));
  ASSERT_CGC_OK(cgcCommandListResolveQueryData(first, heap, CGC_QUERY_TYPE_TIMESTAMP, 0, 3,
                                               readback, 0));
  EXPECT_CGC_ERROR(cgcCommandListResolveQueryData(first, heap, CGC_QUERY_TYPE_TIMESTAMP, 2, 2,
                                                  readback, 16),
                   CGC_ERROR_INVALID_ARGUMENT, "query 3 of the heap has not been ended");
  cgcReleaseQueryHeap(heap);
}

/// The environment turns the debug layer on for a device created without the flag.
class DebugLayerFromEnvironmentTest : public cgc::test::APIFixture {
protected:
  DebugLayerFromEnvironmentTest() : APIFixture(CGC_DEVICE_FLAG_NONE) {}
  void SetUp() override {
    setenv("CGC_DEBUG_LAYER", "1", 1);
    APIFixture::SetUp();
    unsetenv("CGC_DEBUG_LAYER");
  }
};

TEST_F(DebugLayerFromEnvironmentTest, Enabled) {
  CgcCommandList list = createList();
  setRelu(list);
  std::vector<CgcProgramBinding> bindings = reluBindings();
  bindings[0].gpu.address += 4;
  CgcDispatchGraphDesc desc = {CGC_API_VERSION, 2, bindings.data()};
  EXPECT_CGC_ERROR(cgcCommandListDispatchGraph(list, &desc), CGC_ERROR_INVALID_ARGUMENT,
                   "program 'relu' bind point 0", "not inside any live buffer");
}

} // namespace
