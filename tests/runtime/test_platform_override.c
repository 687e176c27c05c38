/* runtime.platform_override: a port's strong definitions replace the weak
   defaults while the hooks it does not define keep the default. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "mlip/platform.h"

static mlip_status last_abort = -1;
static uint64_t fake_clock = 1000;

/* A hosted port's abort may return control to the test instead of spinning. */
void mlip_platform_abort(mlip_status s) {
  last_abort = s;
}

uint64_t mlip_platform_time_ns(void) {
  fake_clock += 500;
  return fake_clock;
}

static void test_overrides_win(void** state) {
  (void)state;
  assert_true(mlip_platform_time_ns() == 1500);
  assert_true(mlip_platform_time_ns() == 2000);
  mlip_platform_abort(MLIP_ERR_CRC);
  assert_int_equal(last_abort, MLIP_ERR_CRC);
}

static void test_defaults_remain(void** state) {
  (void)state;
  /* Not overridden here: the weak no-ops from runtime/core/platform.c. */
  mlip_platform_layer_begin(3);
  mlip_platform_layer_end(3);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_overrides_win),
    cmocka_unit_test(test_defaults_remain),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
