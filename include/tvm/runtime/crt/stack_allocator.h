/*
 * tvm/runtime/crt/stack_allocator.h - TVM's stack allocator, with which
 * firmware written for TVM implements TVMPlatformMemoryAllocate/Free over
 * one static array (runtime/src/runtime/crt/memory/stack_allocator.c,
 * written for mlipc). Blocks are TVM_RUNTIME_ALLOC_ALIGNMENT_BYTES-aligned
 * and freed in reverse order (the last allocation first, or a block and
 * everything allocated after it); with TVM_CRT_STACK_ALLOCATOR_ENABLE_LIFO_CHECK
 * in crt_config.h each block carries a tag, and freeing another than the
 * last is refused (kTvmErrorPlatformStackAllocBadFree).
 */
#ifndef TVM_RUNTIME_CRT_STACK_ALLOCATOR_H_
#define TVM_RUNTIME_CRT_STACK_ALLOCATOR_H_

#include <stddef.h>
#include <stdint.h>

#include "crt_config.h"
#include "tvm/runtime/crt/error_codes.h"

#define STACK_ALLOCATOR_TAG 0xabcd1234u
#define STACK_ALLOCATOR_TAG_SIZE_BYTES 4

#ifndef TVM_RUNTIME_ALLOC_ALIGNMENT_BYTES
#define TVM_RUNTIME_ALLOC_ALIGNMENT_BYTES 16
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  uint8_t* next_alloc;   /* the next free byte (aligned) */
  uint8_t* workspace;    /* the first aligned byte of the array */
  size_t workspace_size; /* bytes from workspace to the end of the array */
} tvm_workspace_t;

tvm_crt_error_t StackMemoryManager_Init(tvm_workspace_t* tvm_runtime_workspace, uint8_t* g_aot_memory,
                                        size_t workspace_size);
tvm_crt_error_t StackMemoryManager_Allocate(tvm_workspace_t* tvm_runtime_workspace, int32_t nbytes, void** out);
tvm_crt_error_t StackMemoryManager_Free(tvm_workspace_t* tvm_runtime_workspace, void* ptr);
/* The same, with the LIFO check on (do_lifo_check != 0) or off. */
tvm_crt_error_t StackMemoryManager_Allocate_Body(tvm_workspace_t* tvm_runtime_workspace, int32_t nbytes, void** out,
                                                 uint8_t do_lifo_check);
tvm_crt_error_t StackMemoryManager_Free_Body(tvm_workspace_t* tvm_runtime_workspace, void* ptr,
                                             uint8_t do_lifo_check);

#ifdef __cplusplus
}
#endif

#endif /* TVM_RUNTIME_CRT_STACK_ALLOCATOR_H_ */
