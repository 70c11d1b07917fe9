//===- DeviceCode.cpp - pieces of generated CUDA C++ ----------------------===//
//
// The preamble converts float16 with PTX cvt (exact widening; rn narrowing
// keeps subnormals) and bfloat16 with the CPU kernels' bit arithmetic, so
// no CUDA header is needed. Integer helpers compute in unsigned 64-bit
// arithmetic and truncate: the low bits of a two's complement sum, product
// or negation are the same at every width, and nothing overflows.
//
//===----------------------------------------------------------------------===//

#include "DeviceCode.h"

#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdio>
#include <limits>

namespace cgc::cuda {

static const char kPreamble[] = R"cuda(// OpenCGC generated kernel
#define CGC_DEVICE static __device__ __forceinline__

CGC_DEVICE float cgc_f16_to_float(unsigned short bits) {
  float value;
  asm("cvt.f32.f16 %0, %1;" : "=f"(value) : "h"(bits));
  return value;
}
CGC_DEVICE unsigned short cgc_float_to_f16(float value) {
  unsigned short bits;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(bits) : "f"(value));
  return bits;
}
CGC_DEVICE float cgc_bf16_to_float(unsigned short bits) {
  return __uint_as_float(((unsigned int)bits) << 16);
}
CGC_DEVICE unsigned short cgc_float_to_bf16(float value) {
  unsigned int bits = __float_as_uint(value);
  if ((bits & 0x7fffffffu) > 0x7f800000u)
    return (unsigned short)((bits >> 16) | 0x40u);
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return (unsigned short)(bits >> 16);
}

// Integer arithmetic that wraps.
template <typename T> CGC_DEVICE T cgc_wrap_add(T a, T b) {
  return (T)((unsigned long long)a + (unsigned long long)b);
}
template <typename T> CGC_DEVICE T cgc_wrap_sub(T a, T b) {
  return (T)((unsigned long long)a - (unsigned long long)b);
}
template <typename T> CGC_DEVICE T cgc_wrap_mul(T a, T b) {
  return (T)((unsigned long long)a * (unsigned long long)b);
}
template <typename T> CGC_DEVICE T cgc_wrap_neg(T a) {
  return (T)(0ull - (unsigned long long)a);
}
template <typename T> CGC_DEVICE bool cgc_is_signed() { return (T)-1 < (T)0; }
// Truncating division; x / 0 is 0 and MIN / -1 wraps.
template <typename T> CGC_DEVICE T cgc_int_div(T a, T b) {
  if (b == (T)0)
    return (T)0;
  if (cgc_is_signed<T>() && b == (T)-1)
    return cgc_wrap_neg(a);
  return (T)(a / b);
}
// Power by squaring; negative exponents give 1 / a^-b truncated.
template <typename T> CGC_DEVICE T cgc_int_pow(T base, T exponent) {
  if (exponent < (T)0) {
    if (base == (T)1)
      return (T)1;
    if (base == (T)-1)
      return (exponent % (T)2 == (T)0) ? (T)1 : (T)-1;
    return (T)0;
  }
  T result = (T)1;
  while (exponent > (T)0) {
    if (exponent & (T)1)
      result = cgc_wrap_mul(result, base);
    base = cgc_wrap_mul(base, base);
    exponent = (T)(exponent >> 1);
  }
  return result;
}
// Remainder with the dividend's sign (C fmod); by 0 (and MIN by -1): 0.
template <typename T> CGC_DEVICE T cgc_int_fmod(T a, T b) {
  if (b == (T)0)
    return (T)0;
  if (cgc_is_signed<T>() && b == (T)-1)
    return (T)0;
  return (T)(a % b);
}
// Remainder with the divisor's sign (Python, numpy).
template <typename T> CGC_DEVICE T cgc_int_mod(T a, T b) {
  if (b == (T)0)
    return (T)0;
  if (cgc_is_signed<T>()) {
    if (b == (T)-1)
      return (T)0;
    T r = (T)(a % b);
    return (r != (T)0 && ((r < (T)0) != (b < (T)0))) ? (T)(r + b) : r;
  }
  return (T)(a % b);
}
// Logical shifts of the bits read as U (unsigned, T's width); amounts of
// the width or more (negative ones included) give 0.
template <typename T, typename U> CGC_DEVICE T cgc_shift_left(T a, T b) {
  U x = (U)a, y = (U)b;
  if (y >= (U)(sizeof(T) * 8))
    return (T)0;
  return (T)(U)((unsigned long long)x << y);
}
template <typename T, typename U> CGC_DEVICE T cgc_shift_right(T a, T b) {
  U x = (U)a, y = (U)b;
  if (y >= (U)(sizeof(T) * 8))
    return (T)0;
  return (T)(U)((unsigned long long)x >> y);
}

// std::max / std::min (the first argument wins ties and NaN comparisons).
template <typename T> CGC_DEVICE T cgc_std_max(T a, T b) { return (a < b) ? b : a; }
template <typename T> CGC_DEVICE T cgc_std_min(T a, T b) { return (b < a) ? b : a; }
// 16 bytes to global memory as one store: NVVM splits a store of a vector
// assembled from registers (a uint4, 16-bit halves) into narrower ones.
CGC_DEVICE void cgc_store_16(void *to, unsigned int w0, unsigned int w1, unsigned int w2,
                             unsigned int w3) {
  asm volatile("st.global.v4.b32 [%0], {%1, %2, %3, %4};" ::"l"(__cvta_generic_to_global(to)),
               "r"(w0), "r"(w1), "r"(w2), "r"(w3)
               : "memory");
}
// numpy.maximum / minimum: NaN propagates.
template <typename T> CGC_DEVICE T cgc_max(T a, T b) {
  if (b != b)
    return b;
  return a < b ? b : a;
}
template <typename T> CGC_DEVICE T cgc_min(T a, T b) {
  if (b != b)
    return b;
  return b < a ? b : a;
}
template <typename T> CGC_DEVICE T cgc_clip(T x, T low, T high) {
  x = x < low ? low : x;
  return x > high ? high : x;
}
// Relu: below zero gives zero, NaN stays NaN.
template <typename T> CGC_DEVICE T cgc_relu(T x) { return x < (T)0 ? (T)0 : x; }
#if __CUDA_ARCH__ >= 800
// One instruction instead of a compare and a select (max.NaN; -0 gives +0).
CGC_DEVICE float cgc_relu(float x) {
  float y;
  asm("max.NaN.f32 %0, %1, 0f00000000;" : "=f"(y) : "f"(x));
  return y;
}
#endif
// Exact (erf) GELU for float16 and bfloat16 storage, in float32: x·Φ(x)
// with Φ(x) = 1 - h or h, h = Φ(-|x|) = erfc(|x|/√2)/2 from Abramowitz and
// Stegun's 7.1.26 (|error| <= 1.5e-7; an approximate reciprocal and ex2),
// half the instructions of 1 + erff(): within the 16-bit types' rounding
// (on a 1/4096 grid over [-12, 12], fewer outputs differ from the exactly
// rounded GELU than with erff, which cancels in 1 + erf for x < 0). The
// formula's 1/√2 is folded into its first coefficient and its exponent's,
// and the halving into the polynomial's coefficients (exact), which leaves
// 14 instructions a value where the written-out form took 17; outputs
// rounded to float16 or bfloat16 differ from it on that grid as rarely.
CGC_DEVICE float cgc_gelu16(float x) {
  float t, e;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(t) : "f"(fmaf(0.23164188827f, fabsf(x), 1.0f)));
  const float p = fmaf(fmaf(fmaf(fmaf(0.5307027145f, t, -0.7265760135f), t, 0.7107068705f), t,
                           -0.142248368f), t, 0.127414796f) * t;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(e) : "f"(x * x * -0.72134752044448170f));
  const float h = p * e;
  return x * (x >= 0.0f ? 1.0f - h : h);
}
// Round half to even, as the CPU kernels compute it.
CGC_DEVICE float cgc_round_even(float x) {
  float lower = floorf(x);
  float difference = x - lower;
  if (difference > 0.5f)
    return lower + 1.0f;
  if (difference < 0.5f)
    return lower;
  return fmodf(lower, 2.0f) == 0.0f ? lower : lower + 1.0f;
}
CGC_DEVICE double cgc_round_even(double x) {
  double lower = floor(x);
  double difference = x - lower;
  if (difference > 0.5)
    return lower + 1.0;
  if (difference < 0.5)
    return lower;
  return fmod(lower, 2.0) == 0.0 ? lower : lower + 1.0;
}
// ONNX Cast of a float to an integer: truncate, saturate to int64, wrap.
template <typename T> CGC_DEVICE T cgc_float_to_int(double value) {
  if (value != value)
    return (T)0;
  double truncated = trunc(value);
  long long wide;
  if (truncated >= 9223372036854775807.0)
    wide = 9223372036854775807LL;
  else if (truncated <= -9223372036854775808.0)
    wide = -9223372036854775807LL - 1;
  else
    wide = (long long)truncated;
  return (T)(unsigned long long)wide;
}

// Reduces `value` over the block with `combine`; every thread gets the
// result. Blocks have at most 1024 threads.
template <typename T, typename Combine>
CGC_DEVICE T cgc_block_reduce(T value, Combine combine, T identity) {
  __shared__ T partial[32];
  for (int offset = 16; offset > 0; offset >>= 1)
    value = combine(value, (T)__shfl_xor_sync(0xffffffffu, value, offset));
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  __syncthreads();
  if (lane == 0)
    partial[warp] = value;
  __syncthreads();
  int warps = (blockDim.x + 31) >> 5;
  value = threadIdx.x < warps ? partial[threadIdx.x] : identity;
  if (warp == 0)
    for (int offset = 16; offset > 0; offset >>= 1)
      value = combine(value, (T)__shfl_xor_sync(0xffffffffu, value, offset));
  if (threadIdx.x == 0)
    partial[0] = value;
  __syncthreads();
  value = partial[0];
  __syncthreads();
  return value;
}
struct cgc_sum_op {
  template <typename T> __device__ T operator()(T a, T b) const { return a + b; }
};
struct cgc_wrap_sum_op {
  template <typename T> __device__ T operator()(T a, T b) const { return cgc_wrap_add(a, b); }
};
struct cgc_prod_op {
  template <typename T> __device__ T operator()(T a, T b) const { return a * b; }
};
struct cgc_wrap_prod_op {
  template <typename T> __device__ T operator()(T a, T b) const { return cgc_wrap_mul(a, b); }
};
struct cgc_max_op {
  template <typename T> __device__ T operator()(T a, T b) const { return cgc_max(a, b); }
};
struct cgc_min_op {
  template <typename T> __device__ T operator()(T a, T b) const { return cgc_min(a, b); }
};
struct cgc_std_max_op {
  template <typename T> __device__ T operator()(T a, T b) const { return cgc_std_max(a, b); }
};

)cuda";

const char *getDevicePreamble() { return kPreamble; }

std::string getTensorCoreHelpers(DType dtype) {
  std::string helpers = R"cuda(
CGC_DEVICE unsigned int cgc_shared_address(const void *pointer) {
  return (unsigned int)__cvta_generic_to_shared(pointer);
}
// 16 bytes from global to shared memory, not through registers: `bytes` of
// them read from `from` (16-byte aligned), the rest zero-filled.
CGC_DEVICE void cgc_copy_async(unsigned short *to, const unsigned short *from,
                               unsigned int bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n"
               :
               : "r"(cgc_shared_address(to)), "l"(__cvta_generic_to_global(from)), "r"(bytes)
               : "memory");
}
// Closes the group of this thread's copies issued since the last commit.
CGC_DEVICE void cgc_copy_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
// Waits for every copy this thread has committed (others' need a barrier).
CGC_DEVICE void cgc_copy_wait() { asm volatile("cp.async.wait_group 0;\n" ::: "memory"); }
// Waits for all but the group this thread committed last.
CGC_DEVICE void cgc_copy_wait_but_last() {
  asm volatile("cp.async.wait_group 1;\n" ::: "memory");
}
// Four 8x8 matrices of 16-bit elements; lanes 8m..8m+7 give the rows of
// matrix m, lane 4g+t receives row g, columns 2t and 2t+1 of each (or,
// transposed, rows 2t and 2t+1 of column g).
CGC_DEVICE void cgc_load_matrices(unsigned int (&r)[4], const unsigned short *row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(cgc_shared_address(row))
               : "memory");
}
// The same from a shared-memory address (cgc_shared_address), so that a
// lane's base address plus literal offsets folds into the instruction.
CGC_DEVICE void cgc_load_matrices(unsigned int (&r)[4], unsigned int address) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(address)
               : "memory");
}
CGC_DEVICE void cgc_load_matrices_transposed(unsigned int (&r)[4], const unsigned short *row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(cgc_shared_address(row))
               : "memory");
}
// d += a·b for a 16x16 A (row-major fragments), a 16x8 B (column-major).
CGC_DEVICE void cgc_mma(float (&d)[4], const unsigned int (&a)[4], unsigned int b0,
                        unsigned int b1) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.TYPE.TYPE.f32 {%0, %1, %2, %3}, "
      "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
// Two floats rounded to nearest even, `low` in the low half.
CGC_DEVICE unsigned int cgc_pack(float low, float high) {
  unsigned int bits;
  asm("cvt.rn.TYPEx2.f32 %0, %1, %2;\n" : "=r"(bits) : "f"(high), "f"(low));
  return bits;
}

)cuda";
  // TYPE: the PTX name of the element type.
  std::string type = dtype == DType::BF16 ? "bf16" : "f16";
  for (size_t at = helpers.find("TYPE"); at != std::string::npos; at = helpers.find("TYPE", at))
    helpers.replace(at, 4, type);
  return helpers;
}

const char *getIndexTypedef(bool narrow) {
  return narrow ? "typedef int cgc_index;\n" : "typedef long long cgc_index;\n";
}

std::string getStorageType(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return "float";
  case DType::F16:
  case DType::BF16:
  case DType::U16:
    return "unsigned short";
  case DType::F64:
    return "double";
  case DType::I8:
    return "signed char";
  case DType::U8:
  case DType::Bool:
    return "unsigned char";
  case DType::I16:
    return "short";
  case DType::I32:
    return "int";
  case DType::U32:
    return "unsigned int";
  case DType::I64:
    return "long long";
  case DType::U64:
    return "unsigned long long";
  }
  return "float";
}

std::string getBitsType(DType dtype) {
  switch (getByteWidth(dtype)) {
  case 1:
    return "unsigned char";
  case 2:
    return "unsigned short";
  case 4:
    return "unsigned int";
  default:
    return "unsigned long long";
  }
}

std::string getComputeType(DType dtype) {
  switch (dtype) {
  case DType::F16:
  case DType::BF16:
    return "float";
  case DType::Bool:
    return "bool";
  default:
    return getStorageType(dtype);
  }
}

std::string loadValue(DType dtype, const std::string &value) {
  switch (dtype) {
  case DType::F16:
    return "cgc_f16_to_float(" + value + ")";
  case DType::BF16:
    return "cgc_bf16_to_float(" + value + ")";
  case DType::Bool:
    return "(" + value + " != 0)";
  default:
    return value;
  }
}

std::string storeValue(DType dtype, const std::string &value) {
  switch (dtype) {
  case DType::F16:
    return "cgc_float_to_f16(" + value + ")";
  case DType::BF16:
    return "cgc_float_to_bf16(" + value + ")";
  case DType::Bool:
    return "(unsigned char)((" + value + ") ? 1 : 0)";
  default:
    return "(" + getStorageType(dtype) + ")(" + value + ")";
  }
}

std::string floatLiteral(double value, const std::string &type) {
  std::string text;
  if (std::isnan(value)) {
    text = "__longlong_as_double(0x7ff8000000000000LL)";
  } else if (std::isinf(value)) {
    text = value > 0 ? "__longlong_as_double(0x7ff0000000000000LL)"
                     : "__longlong_as_double((long long)0xfff0000000000000ULL)";
  } else {
    char buffer[64];
    std::snprintf(buffer, sizeof(buffer), "%a", value);
    text = buffer;
  }
  return "((" + type + ")(" + text + "))";
}

std::string signedLiteral(int64_t value, const std::string &type) {
  if (value == std::numeric_limits<int64_t>::min())
    return "((" + type + ")(-9223372036854775807LL - 1))";
  return "((" + type + ")(" + std::to_string(value) + "LL))";
}

std::string unsignedLiteral(uint64_t value, const std::string &type) {
  return "((" + type + ")(" + std::to_string(value) + "ULL))";
}

std::string offsetFunction(llvm::StringRef name, llvm::StringRef params, llvm::StringRef sizes,
                           llvm::StringRef strides, size_t rank) {
  std::string text = ("CGC_DEVICE long long " + name + "(long long index, const " + params +
                      " &p) {\n  long long offset = 0;\n")
                         .str();
  for (size_t dim = rank; dim-- > 0;) {
    std::string at = std::to_string(dim);
    if (dim > 0)
      text += ("  offset += (index % p." + sizes + "[" + at + "]) * p." + strides + "[" + at +
               "];\n  index /= p." + sizes + "[" + at + "];\n")
                  .str();
    else
      text += ("  offset += index * p." + strides + "[0];\n").str();
  }
  return text + "  return offset;\n}\n";
}

std::string mathFunction(llvm::StringRef name, DType dtype) {
  return dtype == DType::F64 ? name.str() : (name + "f").str();
}

std::string getWgmmaFunction(llvm::StringRef name, DType dtype, int64_t n, bool registerA) {
  std::string type = dtype == DType::BF16 ? "bf16" : "f16";
  int64_t count = n / 2;
  // Operands: the sums, then A (four registers or a descriptor), B and
  // `accumulate`.
  int64_t aOperands = registerA ? 4 : 1;
  int64_t b = count + aOperands, accumulate = b + 1;
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "CGC_DEVICE void " << name << "(float (&d)[" << n / 8 << "][4], "
     << (registerA ? "const unsigned int (&a)[4]" : "unsigned long long a")
     << ", unsigned long long b, int accumulate) {\n"
     << "  asm volatile(\"{\\n.reg .pred p;\\nsetp.ne.b32 p, %" << accumulate << ", 0;\\n\"\n"
     << "               \"wgmma.mma_async.sync.aligned.m64n" << n << "k16.f32." << type << "."
     << type << " {";
  for (int64_t i = 0; i < count; ++i)
    os << (i ? ", %" : "%") << i;
  os << "}, ";
  if (registerA)
    os << "{%" << count << ", %" << count + 1 << ", %" << count + 2 << ", %" << count + 3 << "}";
  else
    os << "%" << count;
  // Scale d by `accumulate`, A and B by 1; B (and a shared A) K-major.
  os << ", %" << b << ", p, 1, 1, 0" << (registerA ? "" : ", 0") << ";\\n}\\n\"\n"
     << "               : ";
  for (int64_t i = 0; i < count; ++i)
    os << (i ? ", " : "") << "\"+f\"(d[" << i / 4 << "][" << i % 4 << "])";
  os << "\n               : ";
  if (registerA)
    os << "\"r\"(a[0]), \"r\"(a[1]), \"r\"(a[2]), \"r\"(a[3])";
  else
    os << "\"l\"(a)";
  os << ", \"l\"(b), \"r\"(accumulate));\n"
     << "}\n";
  return text;
}

const char *getWgmmaDescriptorFunction() {
  return "CGC_DEVICE unsigned long long cgc_descriptor(unsigned int address, unsigned int "
         "stride) {\n"
         "  return (unsigned long long)((address & 0x3FFFFu) >> 4) | (128ull >> 4) << 16 | "
         "(unsigned long long)(stride >> 4) << 32;\n"
         "}\n";
}

} // namespace cgc::cuda
