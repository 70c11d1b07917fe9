//===- DeviceCode.h - pieces of generated CUDA C++ --------------*- C++ -*-===//
//
// Every generated kernel starts with the same preamble: float16/bfloat16
// conversions (round to nearest-even, as the CPU kernels store), integer
// arithmetic that wraps, numpy's NaN-propagating maximum, ONNX's
// float-to-integer cast. The helpers here name the C++ types a DType is
// stored and computed as inside kernels and print constants exactly.
//
//===----------------------------------------------------------------------===//

#ifndef CGC_DRIVERS_CUDA_KERNELS_DEVICECODE_H
#define CGC_DRIVERS_CUDA_KERNELS_DEVICECODE_H

#include "KernelSupport.h"

#include <string>

namespace cgc::cuda {

/// The preamble every generated source starts with.
const char *getDevicePreamble();

/// The PTX helpers of float16's or bfloat16's tensor-core operations
/// (sm_80 and later): cgc_shared_address, cgc_copy_async / _commit / _wait
/// (cp.async), cgc_load_matrices(_transposed) (ldmatrix .x4), cgc_mma
/// (mma.sync m16n8k16, float32 accumulators) and cgc_pack (two floats
/// rounded into one register).
std::string getTensorCoreHelpers(DType dtype);

/// Hopper's wgmma over float16 or bfloat16 with float32 sums (sm_90a), as
/// a device function `name`: `void name(float (&d)[n / 8][4], A, unsigned
/// long long b, int accumulate)`, d += A · B for one m64 × n × 16 step
/// (d = A · B where `accumulate` is 0), B a shared-memory descriptor; A is
/// `const unsigned int (&a)[4]`, the lanes' registers in mma.sync's A
/// fragment layout, with `registerA`, else a descriptor `unsigned long
/// long a`. d's layout is mma.sync's C fragments, 8 columns a row of d.
std::string getWgmmaFunction(llvm::StringRef name, DType dtype, int64_t n, bool registerA);

/// `unsigned long long cgc_descriptor(unsigned int address, unsigned int
/// stride)`: the wgmma descriptor of a no-swizzle K-major matrix in shared
/// memory at `address`: 8 × 8 core matrices of 128 contiguous bytes, the
/// next 8 elements of depth 128 bytes on, the next 8 rows `stride` bytes
/// on.
const char *getWgmmaDescriptorFunction();

/// The typedef of `cgc_index`, the integer type generated kernels compute
/// element offsets in: `int` when the caller has checked that every offset
/// fits (`narrow`; half the registers and instructions), else `long long`.
const char *getIndexTypedef(bool narrow);

/// The C++ type elements of `dtype` are stored as in device memory
/// (float16/bfloat16: `unsigned short` bits, bool: `unsigned char`).
std::string getStorageType(DType dtype);
/// The unsigned integer type of `dtype`'s width: data movement copies bits.
std::string getBitsType(DType dtype);
/// The C++ type kernels compute `dtype` in: float for the 16-bit floats and
/// float32, double for float64, the integer type itself, bool.
std::string getComputeType(DType dtype);

/// `value` (stored as `dtype`) read into its compute type.
std::string loadValue(DType dtype, const std::string &value);
/// A compute-type `value` converted to `dtype`'s storage.
std::string storeValue(DType dtype, const std::string &value);

/// `value` as a constant of the floating-point compute type `type`
/// ("float" or "double"), exactly as a C++ cast of the double would give.
std::string floatLiteral(double value, const std::string &type);
/// An integer constant of type `type`.
std::string signedLiteral(int64_t value, const std::string &type);
std::string unsignedLiteral(uint64_t value, const std::string &type);

/// A device function `long long <name>(long long index, const <params> &p)`
/// giving the element offset of row-major index `index` over `rank`
/// dimensions whose sizes and strides are the arrays `p.<sizes>` and
/// `p.<strides>`.
std::string offsetFunction(llvm::StringRef name, llvm::StringRef params, llvm::StringRef sizes,
                           llvm::StringRef strides, size_t rank);

/// A math function for the compute type: `expf` for float, `exp` for double.
std::string mathFunction(llvm::StringRef name, DType dtype);

} // namespace cgc::cuda

#endif // CGC_DRIVERS_CUDA_KERNELS_DEVICECODE_H
