# Run by ctest after the discovered tests (TEST_INCLUDE_FILES): in the full
# QEMU sweep (MLIPC_QEMU_SWEEP=full: every model of tests/data, three builds
# each, 30 to 40 minutes per case) the sweep's cases get 90 minutes; the
# suite's 600 s limit is the short mode's. A case renamed without this list
# fails ctest loudly (set_tests_properties names a test that does not exist).
if("$ENV{MLIPC_QEMU_SWEEP}" STREQUAL "full")
  foreach(c cortex_m55_c cortex_m55_mrvl cortex_m4_c aarch64_c aarch64_mrvl)
    set_tests_properties("e2e.Models/QemuSweep.OutputsAreTheHostBits/${c}" PROPERTIES TIMEOUT 5400)
  endforeach()
endif()
