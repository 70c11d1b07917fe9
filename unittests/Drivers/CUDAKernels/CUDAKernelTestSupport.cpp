//===- CUDAKernelTestSupport.cpp - harness of the CUDA kernel tests -------===//

#include "CUDAKernelTestSupport.h"

#include "drivers/cpu/Kernels.h"

#include "cgc/Dialect/CGC/IR/CGCTypes.h"
#include "cgc/InitAllDialects.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Parser/Parser.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <mutex>
#include <sstream>

namespace cgc::cuda::test {

ScopedEnvironment::ScopedEnvironment(const char *name, std::optional<std::string> value)
    : name(name) {
  if (const char *before = std::getenv(name))
    saved = before;
  if (value)
    ::setenv(name, value->c_str(), 1);
  else
    ::unsetenv(name);
}

ScopedEnvironment::~ScopedEnvironment() {
  if (saved)
    ::setenv(name, saved->c_str(), 1);
  else
    ::unsetenv(name);
}

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

std::string dtypeName(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return "float32";
  case DType::F16:
    return "float16";
  case DType::BF16:
    return "bfloat16";
  case DType::I8:
    return "int8";
  case DType::U8:
    return "uint8";
  case DType::I16:
    return "int16";
  case DType::I32:
    return "int32";
  case DType::I64:
    return "int64";
  case DType::Bool:
    return "bool";
  case DType::F64:
    return "float64";
  case DType::U16:
    return "uint16";
  case DType::U32:
    return "uint32";
  case DType::U64:
    return "uint64";
  }
  return "?";
}

std::string tensorType(const Dims &shape, DType dtype) {
  std::string text = "!cgc.tensor<";
  for (int64_t size : shape)
    text += std::to_string(size) + "x";
  return text + "!cgc." + dtypeName(dtype) + ">";
}

std::string listText(const Dims &values) {
  std::string text = "[";
  for (size_t index = 0; index < values.size(); ++index)
    text += (index ? ", " : "") + std::to_string(values[index]);
  return text + "]";
}

/// float -> binary16 / bfloat16 bits, round to nearest-even (through
/// double arithmetic, independent of the kernels' bit tricks).
static uint16_t encodeSmallFloat(double value, int mantissaBits, int bias, int exponentBits) {
  uint16_t signBit = static_cast<uint16_t>(1u << (mantissaBits + exponentBits));
  uint16_t infinity = static_cast<uint16_t>(((1u << exponentBits) - 1) << mantissaBits);
  if (std::isnan(value))
    return static_cast<uint16_t>(infinity | (1u << (mantissaBits - 1)));
  uint16_t sign = std::signbit(value) ? signBit : 0;
  double magnitude = std::fabs(value);
  int minExponent = 1 - bias;
  int maxExponent = (1 << exponentBits) - 2 - bias;
  double overflow = std::ldexp(1.0, maxExponent + 1);
  if (magnitude >= overflow)
    return sign | infinity;
  int exponent = magnitude < std::ldexp(1.0, minExponent) ? minExponent : std::ilogb(magnitude);
  double quantum = std::ldexp(1.0, exponent - mantissaBits);
  double rounded = std::nearbyint(magnitude / quantum) * quantum;
  if (rounded >= overflow)
    return sign | infinity;
  if (rounded < std::ldexp(1.0, minExponent))
    return sign | static_cast<uint16_t>(rounded / std::ldexp(1.0, minExponent - mantissaBits));
  int roundedExponent = std::ilogb(rounded);
  auto mantissa = static_cast<uint16_t>((rounded / std::ldexp(1.0, roundedExponent) - 1.0) *
                                        std::ldexp(1.0, mantissaBits));
  return sign | static_cast<uint16_t>((roundedExponent + bias) << mantissaBits) | mantissa;
}

static double decodeSmallFloat(uint16_t bits, int mantissaBits, int bias, int exponentBits) {
  int exponentMask = (1 << exponentBits) - 1;
  int exponent = (bits >> mantissaBits) & exponentMask;
  int mantissa = bits & ((1 << mantissaBits) - 1);
  double sign = (bits >> (mantissaBits + exponentBits)) & 1 ? -1.0 : 1.0;
  if (exponent == exponentMask)
    return mantissa ? NAN : sign * INFINITY;
  if (exponent == 0)
    return sign * std::ldexp(static_cast<double>(mantissa), 1 - bias - mantissaBits);
  return sign * std::ldexp(1.0 + std::ldexp(static_cast<double>(mantissa), -mantissaBits),
                           exponent - bias);
}

//===----------------------------------------------------------------------===//
// Host tensors
//===----------------------------------------------------------------------===//

static int64_t countElements(const Dims &shape) {
  int64_t count = 1;
  for (int64_t size : shape)
    count *= size;
  return count;
}

HostTensor::HostTensor(DType dtype, Dims shape)
    : dtype(dtype), shape(std::move(shape)),
      bytes(static_cast<size_t>(countElements(this->shape)) * getByteWidth(dtype)) {}

int64_t HostTensor::size() const { return countElements(shape); }

template <typename T> static T readAs(const std::vector<uint8_t> &bytes, int64_t index) {
  T value;
  std::memcpy(&value, bytes.data() + index * sizeof(T), sizeof(T));
  return value;
}
template <typename T> static void writeAs(std::vector<uint8_t> &bytes, int64_t index, T value) {
  std::memcpy(bytes.data() + index * sizeof(T), &value, sizeof(T));
}

double HostTensor::get(int64_t index) const {
  switch (dtype) {
  case DType::F32:
    return readAs<float>(bytes, index);
  case DType::F16:
    return decodeSmallFloat(readAs<uint16_t>(bytes, index), 10, 15, 5);
  case DType::BF16:
    return decodeSmallFloat(readAs<uint16_t>(bytes, index), 7, 127, 8);
  case DType::I8:
    return readAs<int8_t>(bytes, index);
  case DType::U8:
    return readAs<uint8_t>(bytes, index);
  case DType::I16:
    return readAs<int16_t>(bytes, index);
  case DType::I32:
    return readAs<int32_t>(bytes, index);
  case DType::I64:
    return static_cast<double>(readAs<int64_t>(bytes, index));
  case DType::Bool:
    return readAs<uint8_t>(bytes, index);
  case DType::F64:
    return readAs<double>(bytes, index);
  case DType::U16:
    return readAs<uint16_t>(bytes, index);
  case DType::U32:
    return readAs<uint32_t>(bytes, index);
  case DType::U64:
    return static_cast<double>(readAs<uint64_t>(bytes, index));
  }
  return 0.0;
}

void HostTensor::set(int64_t index, double value) {
  switch (dtype) {
  case DType::F32:
    return writeAs<float>(bytes, index, static_cast<float>(value));
  case DType::F16:
    return writeAs<uint16_t>(bytes, index, encodeSmallFloat(value, 10, 15, 5));
  case DType::BF16:
    return writeAs<uint16_t>(bytes, index, encodeSmallFloat(value, 7, 127, 8));
  case DType::I8:
    return writeAs<int8_t>(bytes, index, static_cast<int8_t>(value));
  case DType::U8:
    return writeAs<uint8_t>(bytes, index, static_cast<uint8_t>(value));
  case DType::I16:
    return writeAs<int16_t>(bytes, index, static_cast<int16_t>(value));
  case DType::I32:
    return writeAs<int32_t>(bytes, index, static_cast<int32_t>(value));
  case DType::I64:
    return writeAs<int64_t>(bytes, index, static_cast<int64_t>(value));
  case DType::Bool:
    return writeAs<uint8_t>(bytes, index, value != 0.0 ? 1 : 0);
  case DType::F64:
    return writeAs<double>(bytes, index, value);
  case DType::U16:
    return writeAs<uint16_t>(bytes, index, static_cast<uint16_t>(value));
  case DType::U32:
    return writeAs<uint32_t>(bytes, index, static_cast<uint32_t>(value));
  case DType::U64:
    return writeAs<uint64_t>(bytes, index, static_cast<uint64_t>(value));
  }
}

//===----------------------------------------------------------------------===//
// Cases and tolerances
//===----------------------------------------------------------------------===//

static bool isFloat(DType dtype) {
  return dtype == DType::F32 || dtype == DType::F16 || dtype == DType::BF16 || dtype == DType::F64;
}

Tolerance elementwiseTolerance(DType dtype) {
  switch (dtype) {
  case DType::F16:
  case DType::BF16:
    return {1e-2, 1e-3};
  case DType::F64:
    return {1e-12, 1e-14};
  default:
    return {1e-5, 1e-6};
  }
}

Tolerance reductionTolerance(DType dtype) {
  switch (dtype) {
  case DType::F16:
  case DType::BF16:
    return {1e-2, 1e-2};
  case DType::F64:
    return {1e-10, 1e-10};
  default:
    return {1e-4, 1e-4};
  }
}

std::string OpCase::describe() const {
  std::string text = op + "(";
  for (size_t index = 0; index < operands.size(); ++index)
    text += (index ? ", " : "") + tensorType(operands[index].shape, operands[index].dtype);
  return text + ") " + attributes;
}

bool hasCudaDevice() {
  static const bool present = [] {
    int count = 0;
    return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
  }();
  return present;
}

//===----------------------------------------------------------------------===//
// Fixture
//===----------------------------------------------------------------------===//

CUDAKernelTest::CUDAKernelTest() {
  mlir::DialectRegistry registry;
  cgc::registerAllDialects(registry);
  context.appendDialectRegistry(registry);
  context.loadAllAvailableDialects();
}

KernelContext *CUDAKernelTest::getDeviceContext() {
  static std::unique_ptr<KernelContext> shared = []() -> std::unique_ptr<KernelContext> {
    auto created = KernelContext::create(0);
    if (!created) {
      ADD_FAILURE() << "KernelContext::create(0): " << llvm::toString(created.takeError());
      return nullptr;
    }
    return std::move(*created);
  }();
  return shared.get();
}

KernelContext::Impl &CUDAKernelTest::getCompileOnlyContext() {
  static std::unique_ptr<KernelContext::Impl> shared = KernelContext::Impl::createCompileOnly(9, 0);
  return *shared;
}

mlir::Operation *CUDAKernelTest::buildOp(const OpCase &opCase) {
  // Parse with placeholder result types, then let the op infer them.
  std::ostringstream text;
  text << "cgc.module {\n  cgc.entry_point @main(";
  std::vector<std::string> types;
  for (const OperandSpec &operand : opCase.operands)
    types.push_back(tensorType(operand.shape, operand.dtype));
  for (size_t index = 0; index < types.size(); ++index)
    text << (index ? ", " : "") << "%a" << index << ": " << types[index];
  text << ") {\n    ";
  if (opCase.results == 1)
    text << "%r = ";
  else
    text << "%r:" << opCase.results << " = ";
  text << opCase.op << "(";
  for (size_t index = 0; index < types.size(); ++index)
    text << (index ? ", " : "") << "%a" << index;
  text << ") " << opCase.attributes << " : (";
  for (size_t index = 0; index < types.size(); ++index)
    text << (index ? ", " : "") << types[index];
  text << ") -> ";
  if (opCase.results == 1) {
    text << types[0];
  } else {
    text << "(";
    for (unsigned index = 0; index < opCase.results; ++index)
      text << (index ? ", " : "") << types[0];
    text << ")";
  }
  text << "\n    cgc.return\n  }\n}\n";
  mlir::ParserConfig config(&context, /*verifyAfterParse=*/false);
  mlir::OwningOpRef<mlir::Operation *> module = mlir::parseSourceString(text.str(), config);
  if (!module) {
    ADD_FAILURE() << "cannot parse:\n" << text.str();
    return nullptr;
  }
  mlir::Operation *found = nullptr;
  module->walk([&](mlir::Operation *op) {
    if (!found && op->getName().getStringRef() == opCase.op)
      found = op;
  });
  modules.push_back(std::move(module));
  if (!found) {
    ADD_FAILURE() << "no " << opCase.op << " in:\n" << text.str();
    return nullptr;
  }
  auto infer = llvm::dyn_cast<mlir::InferTypeOpInterface>(found);
  llvm::SmallVector<mlir::Type> resultTypes;
  if (!infer || mlir::failed(infer.inferReturnTypes(
                    &context, found->getLoc(), found->getOperands(), found->getAttrDictionary(),
                    found->getPropertiesStorage(), found->getRegions(), resultTypes))) {
    ADD_FAILURE() << "cannot infer the result types of " << opCase.describe();
    return nullptr;
  }
  for (auto [result, type] : llvm::zip(found->getResults(), resultTypes))
    result.setType(type);
  if (mlir::failed(mlir::verify(found))) {
    ADD_FAILURE() << "invalid op: " << opCase.describe();
    return nullptr;
  }
  return found;
}

std::vector<HostTensor> CUDAKernelTest::makeInputs(const OpCase &opCase) {
  std::vector<HostTensor> inputs;
  for (const OperandSpec &operand : opCase.operands) {
    HostTensor tensor(operand.dtype, operand.shape);
    if (!operand.values.empty()) {
      // The values repeat to fill the tensor.
      for (int64_t index = 0; index < tensor.size(); ++index)
        tensor.set(index, operand.values[index % operand.values.size()]);
    } else {
      bool isUnsigned = operand.dtype == DType::U8 || operand.dtype == DType::U16 ||
                        operand.dtype == DType::U32 || operand.dtype == DType::U64;
      double low = isUnsigned ? std::max(operand.low, 0.0) : operand.low;
      std::uniform_real_distribution<double> real(operand.low, operand.high);
      std::uniform_int_distribution<int64_t> integer(
          static_cast<int64_t>(std::ceil(low)), static_cast<int64_t>(std::floor(operand.high)));
      std::bernoulli_distribution coin(0.5);
      for (int64_t index = 0; index < tensor.size(); ++index) {
        if (isFloat(operand.dtype))
          tensor.set(index, real(rng));
        else if (operand.dtype == DType::Bool)
          tensor.set(index, coin(rng) ? 1.0 : 0.0);
        else
          tensor.set(index, static_cast<double>(integer(rng)));
      }
    }
    inputs.push_back(std::move(tensor));
  }
  return inputs;
}

std::vector<HostTensor> makeOutputs(mlir::TypeRange types) {
  std::vector<HostTensor> outputs;
  for (mlir::Type type : types) {
    auto tensorType = llvm::cast<cgc::TensorType>(type);
    std::optional<DType> dtype = toDType(tensorType.getElementType());
    EXPECT_TRUE(dtype.has_value());
    outputs.emplace_back(dtype.value_or(DType::F32),
                         Dims(tensorType.getShape().begin(), tensorType.getShape().end()));
    // Poison: unwritten elements show.
    std::fill(outputs.back().bytes.begin(), outputs.back().bytes.end(), 0xA5);
  }
  return outputs;
}

/// Empty tensors of the result types of `op`.
static std::vector<HostTensor> makeOutputs(mlir::Operation *op) {
  return makeOutputs(op->getResultTypes());
}

std::vector<HostTensor> CUDAKernelTest::runCpu(mlir::Operation *op,
                                               const std::vector<HostTensor> &inputs) {
  static cpu::ThreadPool pool(2);
  llvm::Expected<cpu::KernelFn> kernel = cpu::buildKernel(op);
  if (!kernel) {
    ADD_FAILURE() << "CPU buildKernel failed: " << llvm::toString(kernel.takeError());
    return {};
  }
  std::vector<HostTensor> outputs = makeOutputs(op);
  std::vector<const void *> inputPointers;
  for (const HostTensor &input : inputs)
    inputPointers.push_back(input.bytes.data());
  std::vector<void *> outputPointers;
  for (HostTensor &output : outputs)
    outputPointers.push_back(output.bytes.data());
  (*kernel)(inputPointers, outputPointers, pool);
  return outputs;
}

#define CGC_EXPECT_CUDA(call)                                                                      \
  do {                                                                                             \
    cudaError_t error_ = (call);                                                                   \
    if (error_ != cudaSuccess) {                                                                   \
      ADD_FAILURE() << #call << ": " << cudaGetErrorString(error_);                                \
      return {};                                                                                   \
    }                                                                                              \
  } while (false)

std::vector<HostTensor>
CUDAKernelTest::runCuda(mlir::Operation *op, const std::vector<HostTensor> &inputs, bool capture) {
  KernelContext *kernelContext = getDeviceContext();
  if (!kernelContext)
    return {};
  llvm::Expected<Kernel> kernel = buildKernel(op, *kernelContext);
  if (!kernel) {
    ADD_FAILURE() << "CUDA buildKernel failed: " << llvm::toString(kernel.takeError());
    return {};
  }
  return launchOnCuda(*kernel, inputs, makeOutputs(op), capture);
}

std::vector<HostTensor> launchOnCuda(const Kernel &builtKernel,
                                     const std::vector<HostTensor> &inputs,
                                     std::vector<HostTensor> outputs, bool capture) {
  const Kernel *kernel = &builtKernel;
  // Every buffer is allocated (at least 1 byte) so that pointers are valid.
  std::vector<void *> allocations;
  auto allocate = [&](size_t bytes) -> void * {
    void *pointer = nullptr;
    if (cudaMalloc(&pointer, std::max<size_t>(bytes, 1)) != cudaSuccess)
      return nullptr;
    allocations.push_back(pointer);
    return pointer;
  };
  struct Cleanup {
    std::vector<void *> &allocations;
    ~Cleanup() {
      for (void *pointer : allocations)
        cudaFree(pointer);
    }
  } cleanup{allocations};
  std::vector<const void *> inputPointers;
  for (const HostTensor &input : inputs) {
    void *device = allocate(input.bytes.size());
    if (!device) {
      ADD_FAILURE() << "cudaMalloc failed";
      return {};
    }
    CGC_EXPECT_CUDA(
        cudaMemcpy(device, input.bytes.data(), input.bytes.size(), cudaMemcpyHostToDevice));
    inputPointers.push_back(device);
  }
  std::vector<void *> outputPointers;
  for (HostTensor &output : outputs) {
    void *device = allocate(output.bytes.size());
    if (!device) {
      ADD_FAILURE() << "cudaMalloc failed";
      return {};
    }
    CGC_EXPECT_CUDA(cudaMemset(device, 0xA5, output.bytes.size()));
    outputPointers.push_back(device);
  }
  void *workspace = kernel->workspaceSize ? allocate(kernel->workspaceSize) : nullptr;
  // The copies and fills above are queued on the legacy default stream
  // (cudaMemcpy from pageable memory and cudaMemset may return before they
  // land), which a non-blocking stream does not wait for: without this the
  // kernel can read its inputs before they arrive and the 0xA5 fill can
  // land after the kernel wrote its outputs.
  CGC_EXPECT_CUDA(cudaDeviceSynchronize());
  cudaStream_t stream = nullptr;
  CGC_EXPECT_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  LaunchArgs args{inputPointers, outputPointers, workspace, stream};
  std::string message;
  if (capture) {
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t executable = nullptr;
    CGC_EXPECT_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    message = kernel->launch(args);
    cudaError_t ended = cudaStreamEndCapture(stream, &graph);
    EXPECT_EQ(message, "");
    EXPECT_EQ(ended, cudaSuccess) << cudaGetErrorString(ended);
    if (ended == cudaSuccess && message.empty()) {
      CGC_EXPECT_CUDA(cudaGraphInstantiate(&executable, graph, 0));
      CGC_EXPECT_CUDA(cudaGraphLaunch(executable, stream));
    }
    CGC_EXPECT_CUDA(cudaStreamSynchronize(stream));
    if (executable)
      cudaGraphExecDestroy(executable);
    if (graph)
      cudaGraphDestroy(graph);
  } else {
    message = kernel->launch(args);
    EXPECT_EQ(message, "") << "launch failed";
  }
  CGC_EXPECT_CUDA(cudaStreamSynchronize(stream));
  CGC_EXPECT_CUDA(cudaStreamDestroy(stream));
  for (size_t index = 0; index < outputs.size(); ++index)
    CGC_EXPECT_CUDA(cudaMemcpy(outputs[index].bytes.data(), outputPointers[index],
                               outputs[index].bytes.size(), cudaMemcpyDeviceToHost));
  return outputs;
}

std::vector<HostTensor> launchMisaligned(const Kernel &kernel,
                                         const std::vector<HostTensor> &inputs,
                                         std::vector<HostTensor> outputs) {
  std::vector<void *> allocations;
  struct Cleanup {
    std::vector<void *> &allocations;
    ~Cleanup() {
      for (void *pointer : allocations)
        cudaFree(pointer);
    }
  } cleanup{allocations};
  auto allocate = [&](const HostTensor &tensor) -> char * {
    void *pointer = nullptr;
    size_t offset = static_cast<size_t>(getByteWidth(tensor.dtype));
    if (cudaMalloc(&pointer, tensor.bytes.size() + offset) != cudaSuccess)
      return nullptr;
    allocations.push_back(pointer);
    return static_cast<char *>(pointer) + offset;
  };
  std::vector<const void *> inputPointers;
  for (const HostTensor &input : inputs) {
    char *device = allocate(input);
    if (!device || cudaMemcpy(device, input.bytes.data(), input.bytes.size(),
                              cudaMemcpyHostToDevice) != cudaSuccess) {
      ADD_FAILURE() << "cannot copy an input to the device";
      return {};
    }
    inputPointers.push_back(device);
  }
  std::vector<void *> outputPointers;
  for (const HostTensor &output : outputs) {
    char *device = allocate(output);
    if (!device || cudaMemset(device, 0xA5, output.bytes.size()) != cudaSuccess) {
      ADD_FAILURE() << "cannot allocate an output";
      return {};
    }
    outputPointers.push_back(device);
  }
  EXPECT_EQ(kernel.workspaceSize, 0u);
  std::string message = kernel.launch(LaunchArgs{inputPointers, outputPointers, nullptr, nullptr});
  EXPECT_EQ(message, "");
  cudaError_t synchronized = cudaDeviceSynchronize();
  EXPECT_EQ(synchronized, cudaSuccess) << cudaGetErrorString(synchronized);
  for (size_t index = 0; index < outputs.size(); ++index)
    EXPECT_EQ(cudaMemcpy(outputs[index].bytes.data(), outputPointers[index],
                         outputs[index].bytes.size(), cudaMemcpyDeviceToHost),
              cudaSuccess);
  return outputs;
}

void CUDAKernelTest::expectMatchesCpu(const OpCase &opCase) {
  SCOPED_TRACE(opCase.describe());
  mlir::Operation *op = buildOp(opCase);
  if (!op)
    return;
  std::vector<HostTensor> inputs = makeInputs(opCase);
  std::vector<HostTensor> expected = runCpu(op, inputs);
  std::vector<HostTensor> actual = runCuda(op, inputs);
  if (expected.empty() || actual.empty())
    return;
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t index = 0; index < actual.size(); ++index)
    expectClose(actual[index], expected[index], opCase.tolerance,
                opCase.describe() + " result " + std::to_string(index));
}

void CUDAKernelTest::expectCompiles(const OpCase &opCase) {
  SCOPED_TRACE(opCase.describe());
  mlir::Operation *op = buildOp(opCase);
  if (!op)
    return;
  llvm::Expected<Kernel> kernel = buildKernelForContext(op, getCompileOnlyContext());
  if (kernel)
    return;
  std::string message = llvm::toString(kernel.takeError());
  EXPECT_NE(message.find("needs a device"), std::string::npos) << message;
}

void expectClose(const HostTensor &actual, const HostTensor &expected, Tolerance tolerance,
                 const std::string &what) {
  ASSERT_EQ(actual.dtype, expected.dtype) << what;
  ASSERT_EQ(actual.size(), expected.size()) << what;
  bool exact = !isFloat(actual.dtype);
  int mismatches = 0;
  for (int64_t index = 0; index < actual.size(); ++index) {
    double got = actual.get(index), want = expected.get(index);
    bool ok;
    if (exact)
      ok = std::memcmp(actual.bytes.data() + index * getByteWidth(actual.dtype),
                       expected.bytes.data() + index * getByteWidth(expected.dtype),
                       getByteWidth(actual.dtype)) == 0;
    else if (std::isnan(want))
      ok = std::isnan(got);
    else if (std::isinf(want))
      ok = got == want;
    else
      ok = std::fabs(got - want) <= tolerance.atol + tolerance.rtol * std::fabs(want);
    if (!ok && ++mismatches <= 5)
      ADD_FAILURE() << what << " element " << index << ": CUDA " << got << ", CPU " << want;
  }
  EXPECT_EQ(mismatches, 0) << what << ": " << mismatches << " of " << actual.size()
                           << " elements differ";
}

} // namespace cgc::cuda::test
