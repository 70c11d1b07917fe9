/*===- runtime.h - the OpenCGC runtime (Session), in C ------------*- C -*-===//
 *
 * Runs a model through the device API: load (Input IR is compiled for the
 * device: its driver's patterns, partitions, a planned scratch buffer),
 * compile every partition, bind weights from a
 * safetensors file, run on host tensors. The C face of
 * cgc/Runtime/Session.h, for bindings to other languages.
 *
 *   CgcSessionDesc desc = {CGC_RUNTIME_VERSION, "model.mlir", NULL, "cpu", 0};
 *   CgcSession session;
 *   if (cgcCreateSession(&desc, &session) != CGC_OK)
 *     fprintf(stderr, "%s\n", cgcRuntimeGetLastErrorMessage());
 *
 * Conventions as in api.h: CgcStatus results, versioned description structs,
 * out_ parameters, explicit release. Failures leave a message, naming the
 * file, constant, partition or bind point at fault, that
 * cgcRuntimeGetLastErrorMessage() returns on the failing thread.
 *
 *===----------------------------------------------------------------------===*/

#ifndef CGC_RUNTIME_H
#define CGC_RUNTIME_H

#include "cgc/api.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CGC_RUNTIME_VERSION 1u

typedef struct CgcSession_T *CgcSession;

/** Element types of CGC IR. */
typedef enum CgcDataType {
  CGC_DATA_TYPE_FLOAT32 = 0,
  CGC_DATA_TYPE_FLOAT16 = 1,
  CGC_DATA_TYPE_BFLOAT16 = 2,
  CGC_DATA_TYPE_INT8 = 3,
  CGC_DATA_TYPE_UINT8 = 4,
  CGC_DATA_TYPE_INT16 = 5,
  CGC_DATA_TYPE_INT32 = 6,
  CGC_DATA_TYPE_INT64 = 7,
  CGC_DATA_TYPE_BOOL = 8,
  CGC_DATA_TYPE_FLOAT64 = 9,
  CGC_DATA_TYPE_UINT16 = 10,
  CGC_DATA_TYPE_UINT32 = 11,
  CGC_DATA_TYPE_UINT64 = 12,
} CgcDataType;

typedef enum CgcSessionFlags {
  CGC_SESSION_FLAG_NONE = 0,
  CGC_SESSION_FLAG_DEBUG_LAYER = 1u << 0, /* validate every device API call */
  /* Compile Input IR with the baseline pipeline (one subgraph per layer, one
   * partition, no memory reuse): the reference the compiler is checked against. */
  CGC_SESSION_FLAG_BASELINE_COMPILER = 1u << 1,
  /* Let the compiler place inputs in the scratch buffer (less device memory). */
  CGC_SESSION_FLAG_INPUTS_IN_SCRATCH = 1u << 2,
  /* One partition per subgraph instead of one per run of the device's subgraphs. */
  CGC_SESSION_FLAG_PARTITION_PER_SUBGRAPH = 1u << 3,
} CgcSessionFlags;

typedef struct CgcSessionDesc {
  uint32_t version;        /* CGC_RUNTIME_VERSION */
  const char *modelPath;   /* MLIR text/bytecode or a CGC_INPUT/CGC_OUTPUT container */
  const char *weightsPath; /* NULL: model.safetensors beside the model */
  const char *device;      /* NULL or "cpu", "cuda", "cuda:N" */
  uint32_t flags;          /* CgcSessionFlags */
} CgcSessionDesc;

/** A dense row-major host tensor. `shape` has `rank` entries. */
typedef struct CgcTensor {
  CgcDataType dataType;
  uint32_t rank;
  const int64_t *shape;
  void *data;
  uint64_t sizeInBytes;
} CgcTensor;

/** The message of the last failed runtime call on this thread ("" if none). */
const char *cgcRuntimeGetLastErrorMessage(void);

CgcStatus cgcCreateSession(const CgcSessionDesc *desc, CgcSession *out_session);
void cgcReleaseSession(CgcSession session);

uint32_t cgcSessionGetInputCount(CgcSession session);
uint32_t cgcSessionGetOutputCount(CgcSession session);
/** The dtype and shape of input/output `index`; `data` is NULL and `shape`
 *  points into the session (valid while it lives). */
CgcStatus cgcSessionGetInputDesc(CgcSession session, uint32_t index, CgcTensor *out_desc);
CgcStatus cgcSessionGetOutputDesc(CgcSession session, uint32_t index, CgcTensor *out_desc);

/** Runs the model. `inputs` must match the input descriptions exactly;
 *  `outputs` are caller-allocated: dataType, shape and sizeInBytes must
 *  match the output descriptions, and `data` receives the result. */
CgcStatus cgcSessionRun(CgcSession session, uint32_t numInputs, const CgcTensor *inputs,
                        uint32_t numOutputs, const CgcTensor *outputs);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* CGC_RUNTIME_H */
