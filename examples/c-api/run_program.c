/*===- run_program.c - a two-layer network on the OpenCGC device API ------===//
 *
 * A complete program on the public C API (cgc/api.h) alone, no MLIR: it
 * finds the CPU adapter, creates a device, compiles a partition (a sealed
 * CGC_SUBGRAPH_PARTITION container that cgc-opt made from dense.mlir) into a
 * state object, reads the program's binding properties, and records one
 * command list that uploads an input and two layers' weights, dispatches the
 * program twice (layer 1 writes `hidden`, layer 2 reads it) with barriers
 * between dependent commands, and copies the result to a readback buffer.
 * A fence says when the queue is done; the result is checked against the same
 * network computed here in double precision.
 *
 *   run_program dense.cgc
 *
 * Exits with 0 when the device's result matches, 1 otherwise.
 *
 *===----------------------------------------------------------------------===*/

#include "cgc/api.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The program's shapes (dense.mlir): x and y are kRows x kFeatures, W is
 * kFeatures x kFeatures, b has kFeatures elements. */
enum { kRows = 4, kFeatures = 8 };
/* Its bind points, in the partition's argument order. */
enum { kBindX, kBindW, kBindB, kBindY, kNumBindPoints };
static const char kProgramName[] = "dense";

/* The tensors, in the order they are laid out in the device buffer. The
 * first five are uploaded; `hidden` and `y` are written by the program. */
enum { kX, kW1, kB1, kW2, kB2, kHidden, kY, kNumTensors };
enum { kNumUploaded = kHidden };

/* Bytes of one tensor at a byte offset of the device buffer. */
typedef struct Region {
  uint64_t offset;
  uint64_t size;
} Region;

/* Prints the failed call, its status and the API's message; returns 0 then. */
static int succeeded(CgcStatus status, const char *call) {
  if (status == CGC_OK)
    return 1;
  fprintf(stderr, "run_program: %s failed with %s: %s\n", call, cgcStatusName(status),
          cgcGetLastErrorMessage());
  return 0;
}
/* Runs an API call; on failure reports it and jumps to the cleanup. */
#define CHECK(call)                                                            \
  do {                                                                         \
    if (!succeeded((call), #call))                                             \
      goto cleanup;                                                            \
  } while (0)

/* The whole of `path`, malloc'ed; NULL (and a message) when it cannot be read. */
static void *readFile(const char *path, size_t *out_size) {
  FILE *file = fopen(path, "rb");
  if (!file) {
    perror(path);
    return NULL;
  }
  void *data = NULL;
  long size = -1;
  if (fseek(file, 0, SEEK_END) == 0 && (size = ftell(file)) > 0 && fseek(file, 0, SEEK_SET) == 0)
    data = malloc((size_t)size);
  if (data && fread(data, 1, (size_t)size, file) != (size_t)size) {
    free(data);
    data = NULL;
  }
  if (!data)
    fprintf(stderr, "run_program: %s: cannot read the file (or it is empty)\n", path);
  fclose(file);
  *out_size = data ? (size_t)size : 0;
  return data;
}

/* Deterministic, exactly representable test values in [-1, 1]. */
static float pattern(unsigned index, unsigned multiplier, unsigned modulus) {
  return (float)((int)((index * multiplier + 3) % modulus) - (int)(modulus / 2)) /
         (float)(modulus / 2);
}

/* y = relu(x · W + b) in double precision: the reference. */
static void denseRelu(const double *x, const float *w, const float *b, double *y) {
  for (unsigned row = 0; row < kRows; ++row)
    for (unsigned column = 0; column < kFeatures; ++column) {
      double sum = b[column];
      for (unsigned k = 0; k < kFeatures; ++k)
        sum += x[row * kFeatures + k] * (double)w[k * kFeatures + column];
      y[row * kFeatures + column] = sum > 0 ? sum : 0;
    }
}

/* The adapter whose driver is named `driverName`, or NULL with the reason. */
static CgcAdapter findAdapter(const char *driverName) {
  CgcAdapter adapter = NULL;
  for (uint32_t index = 0;; ++index) {
    CgcStatus status = cgcEnumerateAdapters(index, &adapter);
    if (status == CGC_ERROR_NOT_FOUND) {
      /* Past the last adapter: the message lists the drivers loaded and
       * those skipped, and why. */
      fprintf(stderr, "run_program: no adapter of driver '%s': %s\n", driverName,
              cgcGetLastErrorMessage());
      return NULL;
    }
    if (!succeeded(status, "cgcEnumerateAdapters"))
      return NULL;
    CgcAdapterDesc desc;
    memset(&desc, 0, sizeof desc);
    desc.version = CGC_API_VERSION;
    if (!succeeded(cgcGetAdapterDesc(adapter, &desc), "cgcGetAdapterDesc"))
      return NULL;
    printf("adapter %u: %s (driver '%s')\n", index, desc.name, desc.driverName);
    if (strcmp(desc.driverName, driverName) == 0)
      return adapter;
  }
}

static uint64_t alignUp(uint64_t value, uint64_t alignment) {
  return alignment > 1 ? (value + alignment - 1) / alignment * alignment : value;
}

/* A buffer-range barrier over one region of `buffer`. */
static CgcBarrierDesc rangeBarrier(CgcBuffer buffer, uint64_t offset, uint64_t size) {
  CgcBarrierDesc barrier;
  memset(&barrier, 0, sizeof barrier);
  barrier.version = CGC_API_VERSION;
  barrier.type = CGC_BARRIER_TYPE_BUFFER_RANGE;
  barrier.range.address = cgcGetBufferDeviceAddress(buffer) + offset;
  barrier.range.sizeInBytes = size;
  return barrier;
}

/* A GPU binding of `region` of `buffer` to bind point `index`. */
static CgcProgramBinding bind(uint32_t index, CgcBuffer buffer, Region region) {
  CgcProgramBinding binding;
  memset(&binding, 0, sizeof binding);
  binding.bindPointIndex = index;
  binding.type = CGC_BINDING_TYPE_GPU;
  binding.gpu.address = cgcGetBufferDeviceAddress(buffer) + region.offset;
  binding.gpu.sizeInBytes = region.size;
  return binding;
}

static CgcStatus createBuffer(CgcDevice device, CgcHeapType heapType, uint64_t size,
                              CgcBuffer *out_buffer) {
  CgcBufferDesc desc;
  memset(&desc, 0, sizeof desc);
  desc.version = CGC_API_VERSION;
  desc.heapType = heapType;
  desc.sizeInBytes = size;
  return cgcCreateBuffer(device, &desc, out_buffer);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s PARTITION.cgc (dense.mlir sealed by cgc-opt "
                    "--emit-container=partition)\n", argv[0]);
    return 1;
  }
  int passed = 0;
  void *container = NULL;
  CgcDevice device = NULL;
  CgcStateObject stateObject = NULL;
  CgcBuffer deviceBuffer = NULL, upload = NULL, readback = NULL;
  CgcBuffer temporary = NULL, persistent = NULL;
  CgcCommandAllocator allocator = NULL;
  CgcCommandList list = NULL;
  CgcCommandQueue queue = NULL;
  CgcFence fence = NULL;

  size_t containerSize = 0;
  container = readFile(argv[1], &containerSize);
  if (!container)
    goto cleanup;

  /* The CPU adapter and a device on it. */
  CgcAdapter adapter = findAdapter("cpu");
  if (!adapter)
    goto cleanup;
  CgcDeviceDesc deviceDesc;
  memset(&deviceDesc, 0, sizeof deviceDesc);
  deviceDesc.version = CGC_API_VERSION;
  CHECK(cgcCreateDevice(adapter, &deviceDesc, &device));
  CgcFeatureDataOptionsMlir options;
  memset(&options, 0, sizeof options);
  CHECK(cgcCheckFeatureSupport(device, CGC_FEATURE_OPTIONS_MLIR, &options, sizeof options));
  printf("MLIR programs tier %d.%d\n", options.mlirProgramsTier / 10,
         options.mlirProgramsTier % 10);

  /* The partition, compiled by the driver into a state object. */
  CgcMlirProgramDesc program = {kProgramName, container, containerSize};
  CgcStateObjectDesc stateObjectDesc;
  memset(&stateObjectDesc, 0, sizeof stateObjectDesc);
  stateObjectDesc.version = CGC_API_VERSION;
  stateObjectDesc.numPrograms = 1;
  stateObjectDesc.programs = &program;
  CHECK(cgcCreateStateObject(device, &stateObjectDesc, &stateObject));

  /* What the program needs bound: first the count, then the bind points. */
  CgcBindPointDesc bindPoints[kNumBindPoints];
  CgcProgramBindingProperties properties;
  memset(&properties, 0, sizeof properties);
  properties.version = CGC_API_VERSION;
  CHECK(cgcGetProgramBindingProperties(stateObject, kProgramName, &properties));
  if (properties.numBindPoints != kNumBindPoints) {
    fprintf(stderr, "run_program: program '%s' has %u bind points; dense.mlir has %d\n",
            kProgramName, properties.numBindPoints, kNumBindPoints);
    goto cleanup;
  }
  properties.bindPoints = bindPoints;
  CHECK(cgcGetProgramBindingProperties(stateObject, kProgramName, &properties));
  const uint64_t expectedSizes[kNumBindPoints] = {
      kRows * kFeatures * sizeof(float), kFeatures * kFeatures * sizeof(float),
      kFeatures * sizeof(float), kRows * kFeatures * sizeof(float)};
  for (unsigned i = 0; i < kNumBindPoints; ++i) {
    printf("bind point %u: %llu bytes, %llu-byte aligned%s%s\n", i,
           (unsigned long long)bindPoints[i].sizeInBytes,
           (unsigned long long)bindPoints[i].alignment,
           bindPoints[i].flags & CGC_BIND_POINT_FLAG_CONSTANT ? ", constant" : "",
           bindPoints[i].flags & CGC_BIND_POINT_FLAG_WRITTEN ? ", written" : "");
    if (bindPoints[i].sizeInBytes != expectedSizes[i]) {
      fprintf(stderr, "run_program: bind point %u of '%s' has %llu bytes; dense.mlir's has %llu\n",
              i, kProgramName, (unsigned long long)bindPoints[i].sizeInBytes,
              (unsigned long long)expectedSizes[i]);
      goto cleanup;
    }
  }
  printf("temporary resource %llu bytes, persistent resource %llu bytes\n",
         (unsigned long long)properties.temporaryResourceSize,
         (unsigned long long)properties.persistentResourceSize);

  /* One DEFAULT buffer holds every tensor, each at an offset whose device
   * address has its bind point's alignment; the UPLOAD buffer mirrors the
   * layout of the uploaded ones, so that one copy moves them all. */
  const uint32_t bindPointOf[kNumTensors] = {kBindX, kBindW, kBindB, kBindW,
                                             kBindB, kBindY, kBindY};
  uint64_t capacity = 0;
  for (unsigned t = 0; t < kNumTensors; ++t)
    capacity += bindPoints[bindPointOf[t]].sizeInBytes + bindPoints[bindPointOf[t]].alignment;
  CHECK(createBuffer(device, CGC_HEAP_TYPE_DEFAULT, capacity, &deviceBuffer));
  Region regions[kNumTensors];
  CgcDeviceAddress base = cgcGetBufferDeviceAddress(deviceBuffer);
  uint64_t cursor = 0;
  for (unsigned t = 0; t < kNumTensors; ++t) {
    const CgcBindPointDesc *bindPoint = &bindPoints[bindPointOf[t]];
    regions[t].offset = alignUp(base + cursor, bindPoint->alignment) - base;
    regions[t].size = bindPoint->sizeInBytes;
    cursor = regions[t].offset + regions[t].size;
  }
  const uint64_t uploadedBytes = regions[kNumUploaded - 1].offset + regions[kNumUploaded - 1].size;
  CHECK(createBuffer(device, CGC_HEAP_TYPE_UPLOAD, uploadedBytes, &upload));
  CHECK(createBuffer(device, CGC_HEAP_TYPE_READBACK, regions[kY].size, &readback));
  if (properties.temporaryResourceSize)
    CHECK(createBuffer(device, CGC_HEAP_TYPE_DEFAULT, properties.temporaryResourceSize,
                       &temporary));
  if (properties.persistentResourceSize)
    CHECK(createBuffer(device, CGC_HEAP_TYPE_DEFAULT, properties.persistentResourceSize,
                       &persistent));

  /* The input and the weights of both layers, written through a mapping. */
  float x[kRows * kFeatures], w1[kFeatures * kFeatures], b1[kFeatures];
  float w2[kFeatures * kFeatures], b2[kFeatures];
  for (unsigned i = 0; i < kRows * kFeatures; ++i)
    x[i] = pattern(i, 5, 9);
  for (unsigned i = 0; i < kFeatures * kFeatures; ++i) {
    w1[i] = pattern(i, 7, 11) * 0.5f;
    w2[i] = pattern(i, 3, 13) * 0.5f;
  }
  for (unsigned i = 0; i < kFeatures; ++i) {
    b1[i] = pattern(i, 2, 5) * 0.25f;
    b2[i] = pattern(i, 3, 7) * 0.25f;
  }
  const float *uploaded[kNumUploaded] = {x, w1, b1, w2, b2};
  unsigned char *mapped = NULL;
  CHECK(cgcMapBuffer(upload, (void **)&mapped));
  for (unsigned t = 0; t < kNumUploaded; ++t)
    memcpy(mapped + regions[t].offset, uploaded[t], regions[t].size);
  CHECK(cgcUnmapBuffer(upload));

  /* The command list. Commands run asynchronously unless a barrier orders
   * them: each barrier makes later work touching its range wait for earlier
   * work touching it. */
  CHECK(cgcCreateCommandAllocator(device, &allocator));
  CHECK(cgcCreateCommandList(device, allocator, &list));
  CHECK(cgcCommandListCopyBufferRegion(list, deviceBuffer, 0, upload, 0, uploadedBytes));
  CgcBarrierDesc barrier = rangeBarrier(deviceBuffer, 0, uploadedBytes);
  CHECK(cgcCommandListBarrier(list, &barrier));

  CgcSetProgramDesc setProgram;
  memset(&setProgram, 0, sizeof setProgram);
  setProgram.version = CGC_API_VERSION;
  CHECK(cgcGetProgramIdentifier(stateObject, kProgramName, &setProgram.programIdentifier));
  if (temporary) {
    setProgram.temporaryResource.address = cgcGetBufferDeviceAddress(temporary);
    setProgram.temporaryResource.sizeInBytes = properties.temporaryResourceSize;
  }
  if (persistent) {
    setProgram.persistentResource.address = cgcGetBufferDeviceAddress(persistent);
    setProgram.persistentResource.sizeInBytes = properties.persistentResourceSize;
  }
  CHECK(cgcCommandListSetProgram(list, stateObject, &setProgram));

  /* Layer 1: hidden = relu(x · W1 + b1). */
  CgcProgramBinding layer1[kNumBindPoints] = {
      bind(kBindX, deviceBuffer, regions[kX]), bind(kBindW, deviceBuffer, regions[kW1]),
      bind(kBindB, deviceBuffer, regions[kB1]), bind(kBindY, deviceBuffer, regions[kHidden])};
  CgcDispatchGraphDesc dispatch;
  memset(&dispatch, 0, sizeof dispatch);
  dispatch.version = CGC_API_VERSION;
  dispatch.numBindings = kNumBindPoints;
  dispatch.bindings = layer1;
  CHECK(cgcCommandListDispatchGraph(list, &dispatch));

  /* Layer 2 reads what layer 1 wrote, and both dispatches use the program's
   * temporary resource: wait for layer 1 on both ranges. */
  barrier = rangeBarrier(deviceBuffer, regions[kHidden].offset, regions[kHidden].size);
  CHECK(cgcCommandListBarrier(list, &barrier));
  if (temporary) {
    barrier = rangeBarrier(temporary, 0, properties.temporaryResourceSize);
    CHECK(cgcCommandListBarrier(list, &barrier));
  }

  /* Layer 2: y = relu(hidden · W2 + b2). */
  CgcProgramBinding layer2[kNumBindPoints] = {
      bind(kBindX, deviceBuffer, regions[kHidden]), bind(kBindW, deviceBuffer, regions[kW2]),
      bind(kBindB, deviceBuffer, regions[kB2]), bind(kBindY, deviceBuffer, regions[kY])};
  dispatch.bindings = layer2;
  CHECK(cgcCommandListDispatchGraph(list, &dispatch));

  barrier = rangeBarrier(deviceBuffer, regions[kY].offset, regions[kY].size);
  CHECK(cgcCommandListBarrier(list, &barrier));
  CHECK(cgcCommandListCopyBufferRegion(list, readback, 0, deviceBuffer, regions[kY].offset,
                                       regions[kY].size));
  CHECK(cgcCloseCommandList(list));

  /* Execute, then have the queue signal a fence the host waits on. */
  CHECK(cgcCreateCommandQueue(device, &queue));
  CHECK(cgcCreateFence(device, 0, &fence));
  CHECK(cgcExecuteCommandLists(queue, 1, &list));
  CHECK(cgcQueueSignal(queue, fence, 1));
  CHECK(cgcWaitFence(fence, 1, 10ull * 1000 * 1000 * 1000));

  /* The reference, in double precision, and the comparison. The float32
   * result of 8-term dot products is within a few ulps of it. */
  double input[kRows * kFeatures], hidden[kRows * kFeatures], expected[kRows * kFeatures];
  for (unsigned i = 0; i < kRows * kFeatures; ++i)
    input[i] = x[i];
  denseRelu(input, w1, b1, hidden);
  denseRelu(hidden, w2, b2, expected);
  const double kTolerance = 1e-5;
  const float *result = NULL;
  CHECK(cgcMapBuffer(readback, (void **)&result));
  unsigned mismatches = 0, positive = 0;
  double maxError = 0;
  for (unsigned i = 0; i < kRows * kFeatures; ++i) {
    double error = fabs((double)result[i] - expected[i]);
    maxError = error > maxError ? error : maxError;
    positive += expected[i] > 0;
    if (!(error <= kTolerance * (1 + fabs(expected[i]))) && mismatches++ < 5)
      fprintf(stderr, "run_program: y[%u][%u] is %.9g, expected %.9g\n", i / kFeatures,
              i % kFeatures, result[i], expected[i]);
  }
  CHECK(cgcUnmapBuffer(readback));
  printf("y: %u of %u values positive; largest difference from the reference %.3g\n", positive,
         kRows * kFeatures, maxError);
  if (mismatches) {
    fprintf(stderr, "run_program: %u of %d values differ by more than %g (relative)\n",
            mismatches, kRows * kFeatures, kTolerance);
  } else if (positive == 0) {
    /* An all-zero result would pass trivially: the data must exercise relu. */
    fprintf(stderr, "run_program: the reference is all zeros; the test data is not useful\n");
  } else {
    printf("run_program: ok\n");
    passed = 1;
  }

cleanup:
  /* Releasing a queue or list waits for its submitted work. */
  if (fence)
    cgcReleaseFence(fence);
  if (queue)
    cgcReleaseCommandQueue(queue);
  if (list)
    cgcReleaseCommandList(list);
  if (allocator)
    cgcReleaseCommandAllocator(allocator);
  if (persistent)
    cgcReleaseBuffer(persistent);
  if (temporary)
    cgcReleaseBuffer(temporary);
  if (readback)
    cgcReleaseBuffer(readback);
  if (upload)
    cgcReleaseBuffer(upload);
  if (deviceBuffer)
    cgcReleaseBuffer(deviceBuffer);
  if (stateObject)
    cgcReleaseStateObject(stateObject);
  if (device)
    cgcReleaseDevice(device);
  free(container);
  return passed ? 0 : 1;
}
