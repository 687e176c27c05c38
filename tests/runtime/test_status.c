/* runtime.status: every status code has its own non-empty string. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "mlip/status.h"

static void test_every_status_has_distinct_string(void** state) {
  (void)state;
  mlip_status a, b;
  for (a = MLIP_OK; a <= MLIP_STATUS_LAST; ++a) {
    const char* sa = mlip_status_str(a);
    assert_non_null(sa);
    assert_true(strlen(sa) > 0);
    assert_string_not_equal(sa, "unknown status");
    for (b = MLIP_OK; b < a; ++b) {
      assert_string_not_equal(sa, mlip_status_str(b));
    }
  }
}

static void test_known_strings(void** state) {
  (void)state;
  assert_string_equal(mlip_status_str(MLIP_OK), "ok");
  assert_string_equal(mlip_status_str(MLIP_ERR_NULL), "null pointer");
}

static void test_unknown_codes(void** state) {
  (void)state;
  const mlip_status unknown[] = {-1, -20, MLIP_STATUS_LAST + 1, 7777, INT32_MIN, INT32_MAX};
  size_t i;
  for (i = 0; i < sizeof unknown / sizeof unknown[0]; ++i) {
    const char* s = mlip_status_str(unknown[i]);
    assert_non_null(s);
    assert_string_equal(s, "unknown status");
  }
}

/* The values are ABI: the compiler and the simulator rely on them. */
static void test_values_are_fixed(void** state) {
  (void)state;
  assert_int_equal(MLIP_ERR_INVALID_ARG, 9);
  assert_int_equal(MLIP_ERR_BAD_MAGIC, 10);
  assert_int_equal(MLIP_ERR_TRUNCATED, 17);
  assert_int_equal(MLIP_ERR_INTERNAL, 20);
  assert_int_equal(MLIP_ERR_STATE, 21);
  assert_int_equal(MLIP_STATUS_LAST, 21);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_every_status_has_distinct_string),
    cmocka_unit_test(test_known_strings),
    cmocka_unit_test(test_unknown_codes),
    cmocka_unit_test(test_values_are_fixed),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
