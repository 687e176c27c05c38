/* runtime.platform: the weak default hooks link and can be called (all but
   abort, whose default never returns). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "mlip/compiler.h"
#include "mlip/platform.h"

static void test_default_hooks(void** state) {
  (void)state;
  assert_true(mlip_platform_time_ns() == 0);
  mlip_platform_layer_begin(0);
  mlip_platform_layer_end(0);
  mlip_platform_layer_begin(-1);
  mlip_platform_layer_end(12345);
}

/* The attribute macros must compile in the positions generated code uses. */
MLIP_SECTION(".bss.noinit.mlip") MLIP_ALIGNED(16) static uint8_t mlip_test_workspace[64];
MLIP_ALIGNED(32) static const uint8_t mlip_test_const[4] = {1, 2, 3, 4};
static int mlip_test_helper(int x) MLIP_UNUSED;
static int mlip_test_helper(int x) { return x; }

static void test_attribute_macros(void** state) {
  (void)state;
  assert_true(((uintptr_t)mlip_test_workspace & 15u) == 0);
  assert_true(((uintptr_t)mlip_test_const & 31u) == 0);
  assert_int_equal(mlip_test_const[3], 4);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_default_hooks),
    cmocka_unit_test(test_attribute_macros),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
