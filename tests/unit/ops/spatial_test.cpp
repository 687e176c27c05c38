// Window geometry shared by Conv and the pooling operators (ops/spatial).
#include "ops/spatial.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/error.h"

namespace mlipc::ops::unit_ops_spatial {
namespace {

using ::testing::HasSubstr;
using ints = std::vector<int64_t>;

std::string error_of(const Attrs& a, const ints& in, const ints& kernel, GeometryRules rules = {}) {
  try {
    resolve_geometry(a, in, kernel, rules);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(Spatial, OutputSizeFloorAndCeil) {
  // test_maxpool_2d_ceil: 4 cells, kernel 3, stride 2.
  EXPECT_EQ(window_output_size(4, 3, 2, 1, 0, 0, false), 1);
  EXPECT_EQ(window_output_size(4, 3, 2, 1, 0, 0, true), 2);
  // Dilation widens the window: kernel 2, dilation 2 covers 3 cells.
  EXPECT_EQ(window_output_size(4, 2, 1, 2, 0, 0, false), 2);
  EXPECT_EQ(window_output_size(5, 3, 1, 1, 1, 1, false), 5);
}

TEST(Spatial, CeilModeDropsAWindowStartingInTheRightPadding) {
  // 3 cells, pads 1 and 1, kernel 2, stride 2: ceil((3+2-2)/2)+1 = 3, but the
  // third window would start at padded position 4, in the right padding.
  EXPECT_EQ(window_output_size(3, 2, 2, 1, 1, 1, true), 2);
  // A window that starts inside the input and overhangs the end is kept.
  EXPECT_EQ(window_output_size(5, 2, 2, 1, 0, 0, true), 3);
  // One starting in the left padding is kept too.
  EXPECT_EQ(window_output_size(1, 2, 2, 1, 1, 0, true), 1);
}

TEST(Spatial, WindowLargerThanPaddedInputIsAnError) {
  EXPECT_THROW(window_output_size(2, 3, 1, 1, 0, 0, false), Error);
  EXPECT_EQ(window_output_size(2, 3, 1, 1, 1, 0, false), 1);
  Attrs a;
  a.set("kernel_shape", ints{3, 3});
  EXPECT_THAT(error_of(a, {2, 8}, {}), HasSubstr("larger than the padded input"));
}

TEST(Spatial, SamePads) {
  // 5 cells, kernel 3, stride 2: output 3, total pad 2.
  EXPECT_EQ(same_pads(5, 3, 2, 1, true), (std::array<int64_t, 2>{1, 1}));
  // 4 cells: output 2, total 1; the odd cell goes to the end (UPPER) or the beginning (LOWER).
  EXPECT_EQ(same_pads(4, 3, 2, 1, true), (std::array<int64_t, 2>{0, 1}));
  EXPECT_EQ(same_pads(4, 3, 2, 1, false), (std::array<int64_t, 2>{1, 0}));
  // Dilation 2 makes kernel 3 span 5 cells.
  EXPECT_EQ(same_pads(5, 3, 1, 2, true), (std::array<int64_t, 2>{2, 2}));
  // Kernel smaller than the stride needs no padding.
  EXPECT_EQ(same_pads(5, 1, 2, 1, true), (std::array<int64_t, 2>{0, 0}));
}

TEST(Spatial, ResolveDefaultsAndExplicitPads) {
  Attrs a;
  a.set("kernel_shape", ints{3, 2});
  a.set("pads", ints{1, 0, 1, 1});
  a.set("strides", ints{2, 1});
  Geometry g = resolve_geometry(a, {7, 5}, {}, {});
  EXPECT_EQ(g.dilations, (ints{1, 1}));
  EXPECT_EQ(g.out, (ints{4, 5}));
  EXPECT_EQ(g.pad_begin(0), 1);
  EXPECT_EQ(g.pad_end(1), 1);
}

TEST(Spatial, ResolveAutoPadAndStoreExplicitForm) {
  for (const char* mode : {"SAME_UPPER", "SAME_LOWER", "VALID"}) {
    Attrs a;
    a.set("kernel_shape", ints{3, 3});
    a.set("strides", ints{2, 2});
    a.set("auto_pad", std::string(mode));
    GeometryRules rules{true, true};
    Geometry g = resolve_geometry(a, {4, 5}, {}, rules);
    if (std::string(mode) == "VALID") {
      EXPECT_EQ(g.out, (ints{1, 2}));
      EXPECT_EQ(g.pads, (ints{0, 0, 0, 0}));
    } else {
      EXPECT_EQ(g.out, (ints{2, 3}));  // ceil(in / stride)
      EXPECT_EQ(g.pads, std::string(mode) == "SAME_UPPER" ? (ints{0, 1, 1, 1}) : (ints{1, 1, 0, 1}));
    }
    store_geometry(a, g, rules);
    EXPECT_FALSE(a.has("auto_pad"));
    Geometry again = resolve_geometry(a, {4, 5}, {}, rules);
    EXPECT_EQ(again.out, g.out);
    EXPECT_EQ(again.pads, g.pads);
  }
}

TEST(Spatial, KernelFromWeights) {
  Attrs a;
  Geometry g = resolve_geometry(a, {6}, {3}, {});
  EXPECT_EQ(g.kernel, (ints{3}));
  EXPECT_EQ(g.out, (ints{4}));
  a.set("kernel_shape", ints{2});
  EXPECT_THAT(error_of(a, {6}, {3}), HasSubstr("does not match the weights"));
}

TEST(Spatial, ResolveErrors) {
  Attrs none;
  EXPECT_THAT(error_of(none, {4, 4}, {}), HasSubstr("kernel_shape is required"));
  Attrs a;
  a.set("kernel_shape", ints{2, 2});
  a.set("strides", ints{1});
  EXPECT_THAT(error_of(a, {4, 4}, {}), HasSubstr("strides has 1 values; the input has 2 spatial axes"));
  a.set("strides", ints{0, 1});
  EXPECT_THAT(error_of(a, {4, 4}, {}), HasSubstr("must be positive"));
  a.erase("strides");
  a.set("pads", ints{1, 1});
  EXPECT_THAT(error_of(a, {4, 4}, {}), HasSubstr("pads has 2 values"));
  a.set("pads", ints{1, 1, -1, 0});
  EXPECT_THAT(error_of(a, {4, 4}, {}), HasSubstr("must not be negative"));
  a.set("pads", ints{1, 1, 1, 1});
  a.set("auto_pad", std::string("SAME_UPPER"));
  EXPECT_THAT(error_of(a, {4, 4}, {}), HasSubstr("cannot be used together with auto_pad"));
  a.set("pads", ints{0, 0, 0, 0});  // all-zero pads alongside auto_pad are accepted
  EXPECT_EQ(error_of(a, {4, 4}, {}), "");
  a.set("auto_pad", std::string("SAME"));
  EXPECT_THAT(error_of(a, {4, 4}, {}), HasSubstr("auto_pad 'SAME' is not one of"));
  Attrs d;
  d.set("kernel_shape", ints{2});
  d.set("dilations", ints{2});
  EXPECT_THAT(error_of(d, {4}, {}, {/*dilations=*/false, false}), HasSubstr("dilations is not supported"));
  Attrs c;
  c.set("kernel_shape", ints{2});
  c.set("ceil_mode", int64_t{2});
  EXPECT_THAT(error_of(c, {4}, {}, {true, /*ceil_mode=*/true}), HasSubstr("ceil_mode is 2"));
}

TEST(Spatial, To3dAddsLeadingUnitAxes) {
  Attrs a;
  a.set("kernel_shape", ints{3});
  a.set("pads", ints{1, 2});
  a.set("strides", ints{2});
  Geometry3 g = to_3d(resolve_geometry(a, {9}, {}, {}));
  EXPECT_EQ(g.in[0], 1);
  EXPECT_EQ(g.in[1], 1);
  EXPECT_EQ(g.in[2], 9);
  EXPECT_EQ(g.kernel[1], 1);
  EXPECT_EQ(g.pad_begin[2], 1);
  EXPECT_EQ(g.pad_end[2], 2);
  EXPECT_EQ(g.out[2], 5);
  EXPECT_EQ(g.out[0], 1);
}

}  // namespace
}  // namespace mlipc::ops::unit_ops_spatial
