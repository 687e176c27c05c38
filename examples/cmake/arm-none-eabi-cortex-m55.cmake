# A toolchain file for bare-metal Cortex-M55 (Arm MPS3 AN547, QEMU's
# mps3-an547) with Debian's arm-none-eabi-gcc: the flags of the tarball's
# firmware template (templates/firmware/Makefile).
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_C_COMPILER arm-none-eabi-gcc)
# No operating system to link a test program against.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
set(CMAKE_C_FLAGS_INIT "-mcpu=cortex-m55 -mfloat-abi=hard -mthumb -ffunction-sections -fdata-sections")
# startup.c is the reset handler; unused sections (the model's and the
# runtime's) go.
set(CMAKE_EXE_LINKER_FLAGS_INIT "-nostartfiles -Wl,--gc-sections")
