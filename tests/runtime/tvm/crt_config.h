/* crt_config.h of runtime.tvm_stack_allocator: the LIFO check on for
 * StackMemoryManager_Allocate/Free. */
#ifndef TVM_RUNTIME_CRT_CRT_CONFIG_H_
#define TVM_RUNTIME_CRT_CRT_CONFIG_H_
#define TVM_CRT_STACK_ALLOCATOR_ENABLE_LIFO_CHECK
#endif
