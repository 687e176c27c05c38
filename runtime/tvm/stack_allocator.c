/* TVM's stack allocator (tvm/runtime/crt/stack_allocator.h), written for
 * mlipc: firmware written for TVM's standalone CRT builds this file and
 * implements TVMPlatformMemoryAllocate/Free with it over one static array.
 * mlipc's generated code does not use it (its workspace is a static array).
 * Every block starts TVM_RUNTIME_ALLOC_ALIGNMENT_BYTES-aligned; with the
 * LIFO check, the block's last 4 bytes hold its size xor
 * STACK_ALLOCATOR_TAG, which a free must find at the top of the stack. */
#include "mlip/strict_fp.h" /* first: no contraction, same bits everywhere */

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "tvm/runtime/crt/stack_allocator.h"

#define ALIGN_BYTES ((size_t)TVM_RUNTIME_ALLOC_ALIGNMENT_BYTES)

tvm_crt_error_t StackMemoryManager_Init(tvm_workspace_t* ws, uint8_t* g_aot_memory, size_t workspace_size) {
  size_t skip;
  if (ws == NULL || g_aot_memory == NULL) {
    return kTvmErrorFunctionCallInvalidArg;
  }
  skip = (ALIGN_BYTES - (size_t)((uintptr_t)g_aot_memory % ALIGN_BYTES)) % ALIGN_BYTES;
  if (skip > workspace_size) {
    return kTvmErrorPlatformNoMemory;
  }
  ws->workspace = g_aot_memory + skip;
  ws->next_alloc = ws->workspace;
  ws->workspace_size = workspace_size - skip;
  return kTvmErrorNoError;
}

tvm_crt_error_t StackMemoryManager_Allocate_Body(tvm_workspace_t* ws, int32_t nbytes, void** out,
                                                 uint8_t do_lifo_check) {
  size_t need, used;
  if (out != NULL) {
    *out = NULL;
  }
  if (ws == NULL || out == NULL || nbytes < 0) {
    return kTvmErrorFunctionCallInvalidArg;
  }
  /* At most 2^31 + 19 bytes before rounding: no size_t of 32 bits or more wraps. */
  need = (size_t)nbytes + (do_lifo_check ? (size_t)STACK_ALLOCATOR_TAG_SIZE_BYTES : 0u);
  need = (need + ALIGN_BYTES - 1u) / ALIGN_BYTES * ALIGN_BYTES;
  used = (size_t)(ws->next_alloc - ws->workspace);
  if (need > ws->workspace_size - used) {
    return kTvmErrorPlatformNoMemory;
  }
  if (do_lifo_check) {
    const uint32_t tag = (uint32_t)need ^ STACK_ALLOCATOR_TAG;
    memcpy(ws->next_alloc + need - STACK_ALLOCATOR_TAG_SIZE_BYTES, &tag, sizeof tag);
  }
  *out = ws->next_alloc;
  ws->next_alloc += need;
  return kTvmErrorNoError;
}

tvm_crt_error_t StackMemoryManager_Free_Body(tvm_workspace_t* ws, void* ptr, uint8_t do_lifo_check) {
  uint8_t* p = (uint8_t*)ptr;
  if (ws == NULL || p == NULL) {
    return kTvmErrorFunctionCallInvalidArg;
  }
  /* Not inside what is allocated (compared as addresses: p may point anywhere). */
  if ((uintptr_t)p < (uintptr_t)ws->workspace || (uintptr_t)p >= (uintptr_t)ws->next_alloc) {
    return kTvmErrorPlatformStackAllocBadFree;
  }
  if (do_lifo_check) {
    uint32_t tag;
    memcpy(&tag, ws->next_alloc - STACK_ALLOCATOR_TAG_SIZE_BYTES, sizeof tag);
    if ((size_t)(tag ^ STACK_ALLOCATOR_TAG) != (size_t)(ws->next_alloc - p)) {
      return kTvmErrorPlatformStackAllocBadFree;
    }
  }
  ws->next_alloc = p;
  return kTvmErrorNoError;
}

#ifdef TVM_CRT_STACK_ALLOCATOR_ENABLE_LIFO_CHECK
#define LIFO_CHECK 1u
#else
#define LIFO_CHECK 0u
#endif

tvm_crt_error_t StackMemoryManager_Allocate(tvm_workspace_t* ws, int32_t nbytes, void** out) {
  return StackMemoryManager_Allocate_Body(ws, nbytes, out, LIFO_CHECK);
}

tvm_crt_error_t StackMemoryManager_Free(tvm_workspace_t* ws, void* ptr) {
  return StackMemoryManager_Free_Body(ws, ptr, LIFO_CHECK);
}
