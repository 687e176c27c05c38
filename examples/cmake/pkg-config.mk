# examples/cmake/pkg-config.mk: the same host program built by a plain
# Makefile from the installed package, through mlipc.pc (docs/user-guide.md,
# "pkg-config, for a Makefile"): mlipc compiles the model, the tarball's
# generated code and the installed runtime (core and simulator) are compiled
# with `pkg-config --cflags mlipc`.
#   make -f examples/cmake/pkg-config.mk PKG_CONFIG_PATH=<prefix>/lib/pkgconfig [BUILD=build-make]
#   build-make/digits_host
HERE := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
MODEL ?= $(HERE)/../digits/model.onnx
INPUT ?= $(HERE)/../digits/digit.npz
BUILD ?= build-make
CFLAGS ?= -O2
# (make's $(shell) does not see exported variables before make 4.4)
PKG := PKG_CONFIG_PATH='$(PKG_CONFIG_PATH)' pkg-config

MLIPC := $(shell $(PKG) --variable=mlipc mlipc)
ifeq ($(MLIPC),)
$(error pkg-config finds no mlipc: set PKG_CONFIG_PATH=<prefix>/lib/pkgconfig)
endif
RT := $(shell $(PKG) --variable=runtime_srcdir mlipc)
MODEL_DIR := $(BUILD)/model
SRCS = $(MODEL_DIR)/codegen/host/src/default_lib0.c $(MODEL_DIR)/codegen/host/src/default_lib1.c \
       $(wildcard $(RT)/core/*.c) $(RT)/sim/mlip_sim.c \
       $(HERE)/host_main.c $(HERE)/digits_app.c $(BUILD)/digit_input.c
ALL_CFLAGS = -std=c99 $(shell $(PKG) --cflags mlipc) -I$(MODEL_DIR)/codegen/host/include $(CFLAGS)

$(BUILD)/digits_host: $(BUILD)/model.stamp $(BUILD)/digit_input.c $(HERE)/host_main.c $(HERE)/digits_app.c
	$(CC) $(ALL_CFLAGS) -o $@ $(SRCS) -lm

# The model, compiled as examples/cmake's CMakeLists.txt does, and unpacked.
$(BUILD)/model.stamp: $(MODEL)
	rm -rf $(MODEL_DIR) && mkdir -p $(MODEL_DIR)
	$(MLIPC) compile $(MODEL) --target "mrvl, c" --target-mrvl-num_tiles=4 \
	  --target-mrvl-mattr="sim -quantize=fp16 -wb_pin_ocm=1" -o $(BUILD)/model.tar >/dev/null
	tar xf $(BUILD)/model.tar -C $(MODEL_DIR)
	touch $@

$(BUILD)/digit_input.c: $(INPUT) $(HERE)/npz_to_c.cmake
	mkdir -p $(BUILD)
	cmake -DNPZ=$(INPUT) -DARRAY=Input3 -DSYMBOL=digit_input -DOUTPUT=$@ -P $(HERE)/npz_to_c.cmake
