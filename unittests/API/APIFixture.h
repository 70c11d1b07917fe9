//===- APIFixture.h - A device of the mock test driver, for API tests -*- C++ -*-===//

#ifndef CGC_UNITTESTS_API_APIFIXTURE_H
#define CGC_UNITTESTS_API_APIFIXTURE_H

#include "APITestSupport.h"

namespace cgc::test {

/// A device, allocator, queue and fence of the mock driver, plus helpers to
/// set up the relu partition (bind points: 4096-byte input, 4096-byte written
/// output; the mock asks for 256 temporary and 128 persistent bytes).
class APIFixture : public ::testing::Test {
protected:
  explicit APIFixture(uint32_t deviceFlags) : deviceFlags(deviceFlags) {}

  void SetUp() override {
    addDriverDirectory(CGC_TEST_DRIVERS_DIR "/mock");
    std::string loaded;
    adapter = findAdapter("mock", &loaded);
    ASSERT_NE(adapter, nullptr) << "the mock test driver is not loaded; drivers: [" << loaded
                                << "]; " << cgcGetLastErrorMessage();
    CgcDeviceDesc desc = {CGC_API_VERSION, deviceFlags, nullptr};
    ASSERT_CGC_OK(cgcCreateDevice(adapter, &desc, &device));
    ASSERT_CGC_OK(cgcCreateCommandAllocator(device, &allocator));
    ASSERT_CGC_OK(cgcCreateCommandQueue(device, &queue));
    ASSERT_CGC_OK(cgcCreateFence(device, 0, &fence));
    relu = makeContainer(kReluPartition);
  }

  void TearDown() override {
    // The queue first: releasing it finishes its pending work, which may
    // still signal the fence or read the lists and buffers.
    cgcReleaseCommandQueue(queue);
    for (CgcCommandList list : lists)
      cgcReleaseCommandList(list);
    releaseBuffers();
    cgcReleaseFence(fence);
    cgcReleaseCommandAllocator(allocator);
    cgcReleaseDevice(device);
  }

  void releaseBuffers() {
    for (CgcBuffer buffer : buffers)
      cgcReleaseBuffer(buffer);
    buffers.clear();
  }

  CgcBuffer createBuffer(CgcHeapType heapType, uint64_t size) {
    CgcBufferDesc desc = {CGC_API_VERSION, heapType, size};
    CgcBuffer buffer = nullptr;
    EXPECT_EQ(cgcCreateBuffer(device, &desc, &buffer), CGC_OK) << cgcGetLastErrorMessage();
    if (buffer)
      buffers.push_back(buffer);
    return buffer;
  }

  CgcCommandList createList() {
    CgcCommandList list = nullptr;
    EXPECT_EQ(cgcCreateCommandList(device, allocator, &list), CGC_OK) << cgcGetLastErrorMessage();
    if (list)
      lists.push_back(list);
    return list;
  }

  CgcStateObject createReluStateObject(const char *name, uint32_t flags) {
    CgcMlirProgramDesc program = {name, relu.data(), relu.size()};
    CgcStateObjectDesc desc = {CGC_API_VERSION, flags, 1, &program};
    CgcStateObject stateObject = nullptr;
    EXPECT_EQ(cgcCreateStateObject(device, &desc, &stateObject), CGC_OK)
        << cgcGetLastErrorMessage();
    return stateObject;
  }

  /// A SetProgram description with fresh temporary and persistent buffers.
  CgcSetProgramDesc setProgramDesc(CgcStateObject stateObject, const char *name) {
    CgcSetProgramDesc desc = {CGC_API_VERSION};
    EXPECT_EQ(cgcGetProgramIdentifier(stateObject, name, &desc.programIdentifier), CGC_OK);
    CgcBuffer temporary = createBuffer(CGC_HEAP_TYPE_DEFAULT, 256);
    CgcBuffer persistent = createBuffer(CGC_HEAP_TYPE_DEFAULT, 128);
    desc.temporaryResource = {cgcGetBufferDeviceAddress(temporary), 256};
    desc.persistentResource = {cgcGetBufferDeviceAddress(persistent), 128};
    return desc;
  }

  /// Sets program 'relu' on `list` (the list holds the state object).
  void setRelu(CgcCommandList list) {
    CgcStateObject stateObject = createReluStateObject("relu", 0);
    CgcSetProgramDesc desc = setProgramDesc(stateObject, "relu");
    ASSERT_CGC_OK(cgcCommandListSetProgram(list, stateObject, &desc));
    cgcReleaseStateObject(stateObject);
  }

  /// Valid GPU bindings for the relu partition, on fresh DEFAULT buffers.
  std::vector<CgcProgramBinding> reluBindings() {
    std::vector<CgcProgramBinding> bindings(2);
    for (uint32_t i = 0; i < 2; ++i) {
      CgcBuffer buffer = createBuffer(CGC_HEAP_TYPE_DEFAULT, 4096);
      bindings[i].bindPointIndex = i;
      bindings[i].type = CGC_BINDING_TYPE_GPU;
      bindings[i].gpu = {cgcGetBufferDeviceAddress(buffer), 4096};
    }
    return bindings;
  }

  void executeAndWait(CgcCommandList list) {
    ASSERT_CGC_OK(cgcCloseCommandList(list));
    ASSERT_CGC_OK(cgcExecuteCommandLists(queue, 1, &list));
    ++fenceValue;
    ASSERT_CGC_OK(cgcQueueSignal(queue, fence, fenceValue));
    ASSERT_CGC_OK(cgcWaitFence(fence, fenceValue, 30'000'000'000ull));
  }

  uint32_t deviceFlags;
  CgcAdapter adapter = nullptr;
  CgcDevice device = nullptr;
  CgcCommandAllocator allocator = nullptr;
  CgcCommandQueue queue = nullptr;
  CgcFence fence = nullptr;
  uint64_t fenceValue = 0;
  std::vector<uint8_t> relu;
  std::vector<CgcBuffer> buffers;
  std::vector<CgcCommandList> lists;
};

} // namespace cgc::test

#endif // CGC_UNITTESTS_API_APIFIXTURE_H
