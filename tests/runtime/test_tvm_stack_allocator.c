/* runtime.tvm_stack_allocator: TVM's stack allocator as the tarball's TVM
 * adapter has it (runtime/tvm/stack_allocator.c): aligned blocks, refusal
 * when full, frees last-first, and with the LIFO check no other free. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tvm/runtime/crt/stack_allocator.h"

static uint8_t memory[16 * 8 + 16];

static void test_init_aligns(void** state) {
  tvm_workspace_t ws;
  uint8_t* odd = memory;
  (void)state;
  while ((uintptr_t)odd % 16u != 3u) ++odd;
  assert_int_equal(StackMemoryManager_Init(&ws, odd, 100), kTvmErrorNoError);
  assert_int_equal((uintptr_t)ws.workspace % 16u, 0);
  assert_ptr_equal(ws.workspace, odd + 13);
  assert_ptr_equal(ws.next_alloc, ws.workspace);
  assert_int_equal(ws.workspace_size, 87);
  assert_int_equal(StackMemoryManager_Init(&ws, odd, 12), kTvmErrorPlatformNoMemory);
  assert_int_equal(StackMemoryManager_Init(NULL, odd, 12), kTvmErrorFunctionCallInvalidArg);
}

static void test_blocks_are_aligned_until_full(void** state) {
  tvm_workspace_t ws;
  void *a, *b, *c = (void*)memory;
  (void)state;
  assert_int_equal(StackMemoryManager_Init(&ws, memory, 16 * 8), kTvmErrorNoError);
  assert_int_equal(StackMemoryManager_Allocate_Body(&ws, 1, &a, 0), kTvmErrorNoError);
  assert_int_equal(StackMemoryManager_Allocate_Body(&ws, 17, &b, 0), kTvmErrorNoError);
  assert_ptr_equal(b, (uint8_t*)a + 16);
  assert_int_equal((uintptr_t)b % 16u, 0);
  /* 80 of 128 bytes left: 81 does not fit, and the output is NULL. */
  assert_int_equal(StackMemoryManager_Allocate_Body(&ws, 81, &c, 0), kTvmErrorPlatformNoMemory);
  assert_null(c);
  assert_int_equal(StackMemoryManager_Allocate_Body(&ws, 80, &c, 0), kTvmErrorNoError);
  assert_ptr_equal(c, (uint8_t*)a + 48);
  assert_int_equal(StackMemoryManager_Allocate_Body(&ws, 0, &c, 0), kTvmErrorNoError);
  assert_int_equal(StackMemoryManager_Allocate_Body(&ws, 1, &c, 0), kTvmErrorPlatformNoMemory);
  assert_int_equal(StackMemoryManager_Allocate_Body(&ws, -1, &c, 0), kTvmErrorFunctionCallInvalidArg);
  assert_int_equal(StackMemoryManager_Allocate_Body(&ws, 1, NULL, 0), kTvmErrorFunctionCallInvalidArg);
}

static void test_free_without_check_releases_what_follows(void** state) {
  tvm_workspace_t ws;
  void *a, *b, *c;
  (void)state;
  assert_int_equal(StackMemoryManager_Init(&ws, memory, 16 * 8), kTvmErrorNoError);
  assert_int_equal(StackMemoryManager_Allocate_Body(&ws, 10, &a, 0), kTvmErrorNoError);
  assert_int_equal(StackMemoryManager_Allocate_Body(&ws, 10, &b, 0), kTvmErrorNoError);
  assert_int_equal(StackMemoryManager_Free_Body(&ws, a, 0), kTvmErrorNoError);
  assert_ptr_equal(ws.next_alloc, a);
  assert_int_equal(StackMemoryManager_Allocate_Body(&ws, 10, &c, 0), kTvmErrorNoError);
  assert_ptr_equal(c, a);
  /* Not an allocated block: past the top, before the start, NULL. */
  assert_int_equal(StackMemoryManager_Free_Body(&ws, b, 0), kTvmErrorPlatformStackAllocBadFree);
  assert_int_equal(StackMemoryManager_Free_Body(&ws, memory + sizeof memory - 1, 0), kTvmErrorPlatformStackAllocBadFree);
  assert_int_equal(StackMemoryManager_Free_Body(&ws, NULL, 0), kTvmErrorFunctionCallInvalidArg);
}

static void test_lifo_check_refuses_another_block(void** state) {
  tvm_workspace_t ws;
  void *a, *b;
  (void)state;
  assert_int_equal(StackMemoryManager_Init(&ws, memory, 16 * 8), kTvmErrorNoError);
  /* 12 bytes and the 4-byte tag fill one 16-byte block; 13 need two. */
  assert_int_equal(StackMemoryManager_Allocate(&ws, 12, &a), kTvmErrorNoError);
  assert_int_equal(StackMemoryManager_Allocate(&ws, 13, &b), kTvmErrorNoError);
  assert_ptr_equal(b, (uint8_t*)a + 16);
  assert_ptr_equal(ws.next_alloc, (uint8_t*)b + 32);
  assert_int_equal(StackMemoryManager_Free(&ws, a), kTvmErrorPlatformStackAllocBadFree);
  assert_ptr_equal(ws.next_alloc, (uint8_t*)b + 32);
  assert_int_equal(StackMemoryManager_Free(&ws, b), kTvmErrorNoError);
  assert_int_equal(StackMemoryManager_Free(&ws, a), kTvmErrorNoError);
  assert_ptr_equal(ws.next_alloc, ws.workspace);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_init_aligns),
      cmocka_unit_test(test_blocks_are_aligned_until_full),
      cmocka_unit_test(test_free_without_check_releases_what_follows),
      cmocka_unit_test(test_lifo_check_refuses_another_block),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
