// Conv: one template for 1-D, 2-D and 3-D (as 3-D with size-1 leading axes),
// all geometry baked in. Constant weights (and bias) are packed at compile
// time into the order the tiled kernel reads (conv_tiled.c, which reads and
// writes either layout, c/layout.h; a depthwise one between row-major
// tensors conv_dw_rows.c, between channels-last ones conv_dw_cl.c, with the
// same packing); weights computed at run time go through
// conv.c, row-major only. Both sum in the reference's order, so they give
// its bits.
#include <algorithm>
#include <cmath>
#include <memory>

#include "c/kernels/kernels.h"
#include "ops/activation.h"
#include "ops/conv.h"
#include "ops/spatial.h"

namespace mlipc::c::kernels {

namespace {

// Output channels per vector block: the widest of 16, 8, 4 that divides
// the group's channels, else the one that pads least.
int64_t block_width(int64_t channels) {
  for (int64_t mb : {16, 8, 4})
    if (channels % mb == 0) return mb;
  return channels > 8 ? 16 : channels > 4 ? 8 : 4;
}

// A dense layer's block: 16 from 9 channels on, the last block padded,
// rather than 4 where 4 divides them (a vector of 4 lanes where AVX2 has 8:
// ShuffleNetV2's 1x1 layers of 116 channels 129-136 -> 65-87 us, stop 50),
// or 8 where 8 does and 16 pads at most an eighth of the lanes (64
// channels or more) over 64 taps or more: each input value then feeds two
// vectors (SqueezeNet's 512 -> 1000 1x1 2959 -> 2112 us, ShuffleNetV2's
// 232 -> 232 1x1 108 -> 89). Over fewer taps or with more padding 8 stays
// (MobileNetV3's 24 -> 72 1x1 150 -> 184, MnasNet's 24-channel layers
// 154 -> 183 with 16).
int64_t dense_block_width(int64_t channels, int64_t taps) {
  if (channels % 16 == 0 || channels <= 8) return block_width(channels);
  if (channels % 8 == 0 && (channels < 64 || taps < 64)) return 8;
  return 16;
}

// The weights [M, ICG, K...] as [group][block][ic][k...][MB] (dense) or,
// depthwise (ICG = OCG = 1), [block][k...][MB]: both are one formula with
// `groups` = 1 and `ocg` = M for depthwise. Lanes past the group's channels
// are 0.
std::shared_ptr<const TensorData> pack_weights(const TensorData& w, int64_t groups, int64_t ocg, int64_t mb) {
  const int64_t per_oc = numel(w.shape()) / w.shape()[0];  // ICG * K...
  const int64_t nb = (ocg + mb - 1) / mb;
  auto t = std::make_shared<TensorData>(DType::Float32, Shape{groups * nb * per_oc * mb});
  const float* src = w.data<float>();
  float* dst = t->data<float>();
  for (int64_t g = 0; g < groups; ++g)
    for (int64_t b = 0; b < nb; ++b)
      for (int64_t q = 0; q < mb && b * mb + q < ocg; ++q)
        for (int64_t i = 0; i < per_oc; ++i)
          dst[((g * nb + b) * per_oc + i) * mb + q] = src[(g * ocg + b * mb + q) * per_oc + i];
  return t;
}

// Depthwise weights for conv_dw_cl.c: pack_weights' blocks and, where MB
// does not divide the C channels (C >= MB), one block more holding channels
// C - MB to C - 1, from which the last vector of a pixel (ending with the
// channels, maybe across two blocks) takes its weights.
std::shared_ptr<const TensorData> pack_depthwise_cl(const TensorData& w, int64_t c, int64_t mb) {
  std::shared_ptr<const TensorData> blocks = pack_weights(w, 1, c, mb);
  if (c % mb == 0) return blocks;
  const int64_t k = numel(w.shape()) / c, n = blocks->numel();
  auto t = std::make_shared<TensorData>(DType::Float32, Shape{n + k * mb});
  float* dst = t->data<float>();
  std::copy(blocks->data<float>(), blocks->data<float>() + n, dst);
  for (int64_t i = 0; i < k; ++i)
    for (int64_t q = 0; q < mb; ++q) dst[n + i * mb + q] = w.data<float>()[(c - mb + q) * k + i];
  return t;
}

std::shared_ptr<const TensorData> pack_bias(const TensorData& b, int64_t groups, int64_t ocg, int64_t mb) {
  const int64_t nb = (ocg + mb - 1) / mb;
  auto t = std::make_shared<TensorData>(DType::Float32, Shape{groups * nb * mb});
  for (int64_t g = 0; g < groups; ++g)
    for (int64_t i = 0; i < ocg; ++i) t->data<float>()[(g * nb + i / mb) * mb + i % mb] = b.data<float>()[g * ocg + i];
  return t;
}

// Positions per tile, at most `most`: the count that covers the largest run
// of output positions with one window in the fewest tile slots, counting
// each tile's own work as two positions. With `rows`, a tile that wraps
// from one output row to the next (its positions then each need a pointer
// of their own, conv_tiled.c's XG, which spill from the general registers)
// counts four positions more (conv_tiled.c's row1 test: a tile starting at
// column c of rows of W interior positions keeps to its row if c + p <= W;
// none wraps where p divides W). Two-block tiles on
// ResNet-34's 14 x 14 and 7 x 7 planes: 7 positions, not 11 and 10, -6%
// and -7%; 12 stays on rows of 56.
int64_t tile_positions(const ops::Geometry3& geo, int64_t most, bool rows = false) {
  int64_t cnt = 1, width = 1;  // the interior: the whole output less the border bands; its rows
  for (int a = 0; a < ops::kMaxSpatial; ++a) {
    int64_t inside = 0;
    for (int64_t o = 0; o < geo.out[a]; ++o) {
      const int64_t first = o * geo.stride[a] - geo.pad_begin[a];
      inside += first >= 0 && first + (geo.kernel[a] - 1) * geo.dilation[a] < geo.in[a];
    }
    cnt *= std::max<int64_t>(inside, 1);
    if (a == ops::kMaxSpatial - 1) width = std::max<int64_t>(inside, 1);
  }
  int64_t best = most, best_cost = -1;
  for (int64_t p = most; p >= 1; --p) {
    const int64_t tiles = (cnt + p - 1) / p;
    int64_t wraps = 0;
    for (int64_t s = 0; rows && s < cnt; s += p) wraps += s % width + p > width;
    const int64_t cost = tiles * (p + 2) + 4 * wraps;
    if (best_cost < 0 || cost < best_cost) best = p, best_cost = cost;
  }
  return best;
}

// The scratch of conv_dw_rows.c and conv_few_rows.c: `planes` zero-padded
// input planes with each row split into SW phases of QW floats (room for a
// last register block of up to 16 lanes past OW). Sets IDP, IHP, QW and
// SP_ELEMS and the scratch's size.
void set_phase_planes(KernelSpec& spec, const ops::Geometry3& geo, int64_t planes) {
  const int64_t idp = geo.in[0] + geo.pad_begin[0] + geo.pad_end[0];
  const int64_t ihp = geo.in[1] + geo.pad_begin[1] + geo.pad_end[1];
  const int64_t iwp = geo.in[2] + geo.pad_begin[2] + geo.pad_end[2];
  const int64_t sw = geo.stride[2];
  const int64_t qw = std::max((iwp + sw - 1) / sw, geo.out[2] + 16 + (geo.kernel[2] - 1) * geo.dilation[2] / sw);
  spec.set("IDP", idp);
  spec.set("IHP", ihp);
  spec.set("QW", qw);
  spec.set("SP_ELEMS", planes * idp * ihp * sw * qw);
  spec.scratch_bytes = static_cast<size_t>(planes * idp * ihp * sw * qw) * sizeof(float);
  spec.set_flag("has_scratch", true);
}

// The operands of the kernels that read packed constants (conv_tiled.c,
// conv_dw_rows.c, conv_dw_cl.c, conv_few_rows.c): x, the packed weights and
// bias, and a fused residual, read with y's strides, each element just
// before the same element of y is written, so y may take over its bytes.
void set_packed_operands(KernelSpec& spec, std::shared_ptr<const TensorData> wpk,
                         std::shared_ptr<const TensorData> bias, bool has_res) {
  spec.packed.push_back(std::move(wpk));
  if (bias) spec.packed.push_back(std::move(bias));
  spec.layouts = {{0}, {}, true};
  spec.set("y_restrict", has_res ? "" : "restrict ");
  spec.args = {0};
  if (has_res) {
    spec.args.push_back(3);
    spec.layouts.tied.push_back(3);
    spec.in_place.push_back(3);
  }
}

// PBX and PBX2: the tile's positions at most for one block's accumulators
// and for two blocks' (12: 24 of the 32 registers; 14 was slower on 7x7).
// Dense kernels of several taps keep their tiles to one row where that is
// cheaper, up to 12 positions for one block too (ic_resnet8's 16-channel
// layers on rows of 30: 10 positions, not 8, -12%). Depthwise ones keep
// at most 8 for one block, and 1x1 kernels, whose tap is one input channel,
// the count that fills the most slots: there the loads per FMA (2 + p per
// 2p) weigh more than the pointers (MobileNetV2's 1x1 layers on 14 x 14
// and 7 x 7 planes took 8 to 13% longer in tiles of 7).
void set_tile_positions(KernelSpec& spec, const ops::Geometry3& geo, bool depthwise) {
  const bool rows = geo.kernel[0] * geo.kernel[1] * geo.kernel[2] > 1;
  spec.set("PBX", rows && !depthwise ? tile_positions(geo, 12, true) : tile_positions(geo, 8));
  spec.set("PBX2", tile_positions(geo, 12, rows));
}

// conv_dw_cl.c's own values: the geometry, the interior columns [OWA, OWB)
// of an output row, whose windows are inside the input along W (empty when
// there are none), and the sigmoid's form.
void prepare_depthwise_cl(KernelSpec& spec, const ops::Geometry3& geo, const Activation& act) {
  const int64_t sw = geo.stride[2], pw = geo.pad_begin[2], reach = (geo.kernel[2] - 1) * geo.dilation[2];
  const int64_t owa = std::min((pw + sw - 1) / sw, geo.out[2]);
  const int64_t last = geo.in[2] - 1 + pw - reach;  // the last interior column's first tap, times SW
  const int64_t owb = last < 0 ? 0 : std::min(last / sw + 1, geo.out[2]);
  spec.set("OWA", owa);
  spec.set("OWB", std::max(owa, owb));
  // A fused Sigmoid or SiLU: on each finished output row, its vectors
  // MLIP__CT_G at a time (mlip/kvec_sigmoid.h's mlip__ct_sigmoid_<MB>).
  spec.set_flag("act_lanes", act.kind == Activation::Sigmoid || act.kind == Activation::Silu);
  spec.set("act_silu", act.kind == Activation::Silu ? 1 : 0);
}

// conv_few_rows.c's own values: conv_dw_rows.c's phase-split scratch, for
// the ICG input channels of a group, and MM output channels per register
// block (2 where they pair up).
void prepare_few_rows(KernelSpec& spec, const ops::Geometry3& geo, const Shape& x, const Shape& y, int64_t groups,
                      int64_t icg, int64_t ocg, int64_t mb) {
  spec.template_name = "conv_few_rows.c";
  spec.includes.push_back("mlip/kvec.h");
  set_strides(spec, "X", x, false);
  set_strides(spec, "Y", y, false);
  spec.set("C", x[1]);
  spec.set("G", groups);
  spec.set("ICG", icg);
  spec.set("OCG", ocg);
  spec.set("MB", mb);
  spec.set("NB", (ocg + mb - 1) / mb);
  spec.set("MM", ocg % 2 == 0 ? 2 : 1);
  set_phase_planes(spec, geo, icg);
}

}  // namespace

void prepare_Conv(const Graph& g, const Node& n, KernelSpec& spec) {
  expect_float(g, n, 0);
  expect_float(g, n, 1);
  const bool has_bias = n.has_input(2);
  if (has_bias) expect_float(g, n, 2);
  const Shape& x = g.value(n.inputs[0]).shape;
  const Shape& w = g.value(n.inputs[1]).shape;
  const Shape& y = g.value(n.outputs[0]).shape;
  const ops::Geometry3 geo = ops::to_3d(ops::resolve_geometry(n.attrs, ops::spatial_of(x), ops::spatial_of(w),
                                                              {/*dilations=*/true, /*ceil_mode=*/false}));
  const int64_t group = n.attrs.get_int("group", 1);
  const int64_t icg = x[1] / group, ocg = w[0] / group;
  const bool has_res = n.has_input(3);  // passes/fuse_residual
  spec.set("N", x[0]);
  set_window(spec, geo);
  spec.set_flag("has_bias", has_bias);
  spec.set_flag("has_res", has_res);

  const Value& wv = g.value(n.inputs[1]);
  const bool packable = wv.is_constant() && (!has_bias || g.value(n.inputs[2]).is_constant()) && numel(y) > 0;
  if (packable) {
    const bool depthwise = icg == 1 && ocg == 1;
    const int64_t groups = depthwise ? 1 : group, per_group = depthwise ? w[0] : ocg;
    const int64_t taps_per_output = icg * geo.kernel[0] * geo.kernel[1] * geo.kernel[2];
    const int64_t mb = spec.cpu && spec.cpu->float_conv_block() ? spec.cpu->float_conv_block()
                       : depthwise                              ? block_width(per_group)
                                                                : dense_block_width(per_group, taps_per_output);
    const int64_t nb = (per_group + mb - 1) / mb;
    const bool x_cl = spec.input_cl(0), y_cl = spec.output_cl(0);
    const bool pool = ops::has_fused_pool(n.attrs);
    std::shared_ptr<const TensorData> wpk = pack_weights(*wv.constant, groups, per_group, mb);
    const std::shared_ptr<const TensorData> bias =
        has_bias ? pack_bias(*g.value(n.inputs[2]).constant, groups, per_group, mb) : nullptr;
    // A zero-padded copy of the input in the scratch, channels-last: every
    // position then sees every tap, so there is one rectangle and no border
    // tile wastes lanes. Bit-exact only with finite weights: a padding tap
    // then adds x * w = +-0, which leaves every sum as it is (a sum that
    // starts at +0 is never -0). Offered for small planes, where the
    // border's share is large and the copy cheap; the backend decides.
    const int64_t padded_in = (geo.in[0] + geo.pad_begin[0] + geo.pad_end[0]) * (geo.in[1] + geo.pad_begin[1] + geo.pad_end[1]) *
                              (geo.in[2] + geo.pad_begin[2] + geo.pad_end[2]);
    const int64_t pad_channels = depthwise ? x[1] : icg;
    // The copy's pixels one 64-byte line apart more than their channels
    // where those are a multiple of 1 KiB: at 1 or 2 KiB apart every pixel of
    // a tile's windows falls in 4 or 2 of the 64 sets of a 32 KiB 8-way L1
    // (each way 4 KiB), more lines than their ways, so the broadcasts missed
    // L1 on every channel (ResNet-18's 3x3 layers of 512 channels on 7x7:
    // 4990 -> 2770 us, docs/benchmarks.md, stop 49). 512-byte pixels (128
    // channels) took 3% longer with the line: not there.
    const int64_t pixel_stride = pad_channels % 256 == 0 ? pad_channels + 16 : pad_channels;
    bool finite = true;
    for (int64_t i = 0; i < wpk->numel() && finite; ++i) finite = std::isfinite(wpk->data<float>()[i]);
    const bool has_pads = geo.pad_begin[0] + geo.pad_begin[1] + geo.pad_begin[2] + geo.pad_end[0] + geo.pad_end[1] +
                              geo.pad_end[2] >
                          0;
    // Few input channels per group (a stem, small grouped layers) between
    // row-major tensors: conv_dw_rows.c's vectors along the output rows,
    // each input vector feeding MM output channels (conv_few_rows.c),
    // rather than 16 channels' lanes stored at the plane's stride. For up
    // to 32 taps per output, where those stores weigh most (9 to 27: 15 to
    // 50% less time); ConvNeXt's 4x4/4 stem of 3 channels (48 taps) took
    // 35% longer, its input loads (one per MM FMAs) outweighing them. Not
    // for 1x1 kernels: no window to pad, and the kernel's copy of the input
    // would only grow the arena.
    const int64_t window = geo.kernel[0] * geo.kernel[1] * geo.kernel[2], taps = icg * window;
    if (!depthwise && icg <= 4 && window > 1 && taps <= 32 && !x_cl && !y_cl && !pool && finite && geo.out[2] >= 16) {
      prepare_few_rows(spec, geo, x, y, groups, icg, per_group, mb);
      set_packed_operands(spec, wpk, bias, has_res);
      return;
    }
    // Depthwise between row-major tensors: vectors along the output rows
    // (conv_dw_rows.c) rather than across channels, which from row-major
    // planes are gathered lane by lane. Not for planes under one widest
    // vector (16) per row that the channels-last padded copy below takes.
    // Between channels-last tensors: register blocks of a row's positions,
    // each input vector loaded once for all the kernel's columns
    // (conv_dw_cl.c), vectors of the widest block (16) from 16 channels on,
    // the last one overlapping the one before where the vector's width does
    // not divide them (ShuffleNetV2's 58 channels took conv_tiled.c's lane
    // by lane loads, 42x the time; docs/benchmarks.md, stop 50), else of
    // whole blocks of MB.
    const int64_t out_plane = geo.out[0] * geo.out[1] * geo.out[2];
    const int64_t mb_cl = spec.cpu && spec.cpu->float_conv_block() ? mb : x[1] >= 16 ? 16 : mb;
    const bool dw_rows = depthwise && !x_cl && !y_cl && !pool && finite && (geo.out[2] >= 16 || out_plane > 400);
    const bool dw_cl = depthwise && x_cl && y_cl && !pool && (x[1] % mb_cl == 0 || x[1] >= mb_cl);
    if (dw_rows || dw_cl) {
      spec.template_name = dw_rows ? "conv_dw_rows.c" : "conv_dw_cl.c";
      spec.includes.push_back("mlip/kvec.h");
      spec.set("C", x[1]);
      spec.set("MB", dw_rows ? mb : mb_cl);
      set_strides(spec, "X", x, dw_cl);
      set_strides(spec, "Y", y, dw_cl);
      if (dw_rows) {
        set_phase_planes(spec, geo, 1);
        set_packed_operands(spec, wpk, bias, has_res);
      } else {
        prepare_depthwise_cl(spec, geo, activation_of(n.attrs));
        // the bias as packed above: channel c at bp[c] whatever the block
        set_packed_operands(spec, pack_depthwise_cl(*wv.constant, x[1], mb_cl), bias, has_res);
      }
      return;
    }
    // Dense layers of two blocks or more: a tile of KB = 2 blocks where the
    // C's vector type holds a whole block in one of 32 registers (AVX-512),
    // each input value then feeding two FMAs. With a pool, both blocks' rows
    // go to the scratch, so not where no variant takes two (Cortex-M).
    const int64_t kb = !depthwise && nb > 1 && (!pool || !spec.cpu || spec.cpu->float_conv_pool_blocks()) ? 2 : 1;
    // A fused MaxPool (passes/fuse_pool): 2-D, so the pool's axes are H, W;
    // the scratch keeps the last SR convolution rows of KB blocks.
    ops::Geometry3 pg{};
    int64_t sr = 0;
    if (pool) {
      Shape conv_out = {x[0], w[0]};
      conv_out.insert(conv_out.end(), geo.out + 1, geo.out + 3);
      pg = ops::to_3d(ops::maxpool_geometry(ops::fused_pool_attrs(n.attrs), conv_out));
      sr = (pg.kernel[1] - 1) * pg.dilation[1] + 1;
    }
    const int64_t pool_rows = kb * sr * geo.out[2] * mb;
    // With a fused pool also for larger planes: the pool's bands cut every
    // border rectangle into pieces of a few rows (a 1-column one into
    // tiles of one or two positions), which the copy's one rectangle avoids.
    // The bytes offered are the whole scratch with the copy (the pool's rows
    // after it), so the backend's test counts both.
    const int64_t rows_at = (padded_in * pixel_stride + 15) / 16 * 16;  // at a whole 64-byte line
    const bool pad_small = finite && has_pads && out_plane <= (pool ? 4096 : 400);
    // A row-major input of 16 channels a group or more whose planes are a
    // multiple of 1 KiB (32x32, 16x16 ...) also gets the copy, unpadded or
    // not, where granted: a tile reads every input channel, one plane apart,
    // and at 1, 2 or 4 KiB apart those lines fall in 4, 2 or 1 of the L1's
    // 64 sets, more than their ways, so they missed L1 from tile to tile.
    // MobileViT's 32x32 layers: 1x1 96->64 282 -> 245 us, 3x3 64->64 and
    // 128->64 5%; on 28x28 planes a 1x1 layer's copy cost 18% (no conflict
    // to remove), docs/benchmarks.md, stop 50. Not on a Cortex-M (no such
    // cache to spare; the copy's pass and its arena would remain).
    // So do planes of 16 to 256 positions read by 12 blocks of output
    // channels or more (a Concat's output read by a wide 1x1 layer): the
    // copy costs one pass over the input, the strided reads of a row-major
    // one cost as much again for every block (ShuffleNetV2's conv5 464 ->
    // 1024 on 7x7 725-760 -> 550 us, GoogLeNet's 832 -> 384 on 7x7 505 ->
    // 373, SqueezeNet's 512 -> 1000 on 13x13 2031 -> 1845; with 4 to 8
    // blocks the copy lost 10 to 15%, docs/benchmarks.md, stop 50). Under
    // 16 positions (64 bytes) a channel's plane shares its cache line with
    // the next, so the reads are near contiguous already (MobileNetV3's
    // squeeze-and-excitation 1x1 layers on 1x1 planes took 12% longer).
    const int64_t in_plane = geo.in[0] * geo.in[1] * geo.in[2];
    const bool cortex_m = spec.cpu && spec.cpu->family == CpuTarget::Family::CortexM;
    const bool aligned_or_wide = in_plane % 256 == 0 || (in_plane >= 16 && in_plane <= 256 && nb >= 12);
    const bool cl_copy =
        finite && !x_cl && !depthwise && !pool && !pad_small && icg >= 16 && aligned_or_wide && !cortex_m;
    const bool pad_ok = pad_small || cl_copy;
    // A row-major output (2-D or 1-D, no pool, no residual, not for a
    // Cortex-M; of more than one position, whose channels are contiguous
    // already; no padded copy offered: a small plane's stores weigh little)
    // is staged: a band of output rows goes to the scratch channels-last, as
    // whole vectors (a Sigmoid or SiLU on the tile's vectors, as for a
    // channels-last output), then to y one channel's rows at a time. Stored
    // at the plane's stride, a position's channels fell in one L1 set where
    // planes are a multiple of 4 KiB apart (32x32), and every store missed:
    // MobileViT's 1x1 layer to 96 channels 388 -> 157 us. The band: as many
    // rows as 32 KiB of the stage hold, at least one. Offered as the copy is
    // (the backend grants it where it keeps the step within the arena's
    // lower bound).
    const bool small_weights = wpk->numel() * static_cast<int64_t>(sizeof(float)) <= (64 << 10);
    const bool stage_ok = !y_cl && !pool && !has_res && !pad_small && geo.out[0] == 1 && out_plane > 1 && !cortex_m;
    const int64_t stage_ch = ((depthwise ? x_cl : small_weights) ? nb : kb) * mb;  // "bi" below
    const int64_t row_floats = geo.out[2] * stage_ch;
    const int64_t stage_rows = std::min<int64_t>(geo.out[1], std::max<int64_t>(1, (8 << 10) / row_floats));
    if (pad_ok)
      spec.pad_scratch_bytes = static_cast<size_t>(pool ? rows_at + pool_rows : padded_in * pixel_stride) * sizeof(float);
    const int64_t stage_at = cl_copy ? rows_at : 0;
    if (stage_ok) spec.pad_scratch_bytes = static_cast<size_t>(stage_at + stage_rows * row_floats) * sizeof(float);
    const bool padx = spec.pad_input && pad_ok;
    const bool stage = spec.pad_input && stage_ok;
    spec.set_flag("padx", padx);
    spec.set_flag("stage", stage);
    spec.template_name = "conv_tiled.c";
    spec.includes.push_back("mlip/kvec.h");
    // Depthwise: one group of C channels, each lane reading its own.
    spec.set_flag("dw", depthwise);
    // Dense layers of over 32 taps per output whose windows overlap along W
    // keep the loop over a window's columns a loop on 16 vector registers
    // (mlip/kvec.h's MLIP_VNOUNROLL16: ResNet-18's 3x3 layers 22 to 27% and
    // its 7x7/2 stem 16% faster). Fewer taps unroll whole (EfficientNet-B0's
    // 27-tap stem took 8 to 20% longer with the loop), and so do windows
    // side by side (ConvNeXt's 4x4/4 stem, 48 taps: 23 to 31% longer).
    // The same layers give each tap's input offset to MLIP_VNOSHARE16: GCC
    // unrolled 3 columns whole even so (ResNet-18's 3x3/2 layers -25%);
    // the 27-tap stems measured moved -4 to +8%, so not there.
    const bool overlap_w = (geo.kernel[2] - 1) * geo.dilation[2] + 1 > geo.stride[2];
    const bool many_taps = !depthwise && overlap_w && taps > 32;
    spec.set_flag("many_taps", many_taps);
    // The same layers, where the two blocks' packed weights take at most
    // 384 KiB (three quarters of Zen 3's L2), may take conv_tiled.c's tile
    // of 3 positions x 2 blocks on 16 registers (HX; AVX2): ResNet-18's 3x3
    // layers 2 to 6% and crnn_bilstm's pooled ones 2 to 13% faster. Not 1x1
    // layers (ResNet-50's 64 -> 256 on 56 x 56 took 12 to 16% longer), 3x3
    // stems of one channel (crnn_bilstm's, 9 taps: 22%), nor 512-channel
    // 3x3 layers, whose 590 KiB of two blocks' weights leave the L2 at every
    // tile (ResNet's 7 x 7 layers 3 to 14%). docs/benchmarks.md, stop 51.
    const int64_t wblock = taps * mb;  // one block's packed weights (floats)
    spec.set_flag("tile3", many_taps && 2 * wblock * static_cast<int64_t>(sizeof(float)) <= (384 << 10));
    // The blocks inside the tile loop, so each pixel's channels are read and
    // written in order: depthwise on channels-last input, and dense layers
    // whose packed weights (all blocks) stay in L1/L2 from tile to tile
    // (MobileNetV2: -6% and -5%); the pool's bands need the blocks outside.
    spec.set_flag("bi", !pool && (depthwise ? x_cl || padx : small_weights));
    spec.set("G", groups);
    spec.set("C", x[1]);
    spec.set("ICG", icg);
    spec.set("OCG", per_group);
    spec.set("MB", mb);
    spec.set("NB", nb);
    spec.set("WBLOCK", wblock);
    spec.set_flag("padded", !stage && per_group % mb != 0);  // the stage holds whole blocks
    spec.set("KB", kb);
    spec.set_flag("vector_load", (x_cl || padx) && per_group % mb == 0);
    set_strides(spec, "Y", y, y_cl);
    spec.set("SBR", geo.out[1]);
    spec.set("NBAND", 1);
    if (stage) {
      // The kernel writes the stage (Y*: its strides), the band's flush y (YR*).
      set_strides(spec, "YR", y, false);
      spec.set("YC", 1);
      spec.set("YW", stage_ch);
      spec.set("YH", row_floats);
      spec.set("YD", 0);
      spec.set("SCH", stage_ch);
      spec.set("SBR", stage_rows);
      spec.set("NBAND", (geo.out[1] + stage_rows - 1) / stage_rows);
      spec.set("STAGE_AT", stage_at);
      spec.scratch_bytes = spec.pad_scratch_bytes;
    }
    if (padx) {
      // The kernel reads the copy: the geometry of the padded input without
      // pads; the real input's strides and pads (XR*, RP*) for the copy.
      ops::Geometry3 gp = geo;
      const char* axes[] = {"D", "H", "W"};
      for (int a = 0; a < ops::kMaxSpatial; ++a) {
        spec.set(std::string("RI") + axes[a], geo.in[a]);
        spec.set(std::string("RP") + axes[a], geo.pad_begin[a]);
        gp.in[a] = geo.in[a] + geo.pad_begin[a] + geo.pad_end[a];
        gp.pad_begin[a] = gp.pad_end[a] = 0;
      }
      set_window(spec, gp);
      set_strides(spec, "XR", x, x_cl);
      Shape padded = {1, pixel_stride, gp.in[0], gp.in[1], gp.in[2]};  // XW: the pixel stride
      set_strides(spec, "X", padded, true);
      spec.set("PCN", pad_channels);
      spec.set("PXS", pixel_stride);
      spec.set("PAD_ELEMS", padded_in * pixel_stride);
      spec.set_flag("copy_pads", has_pads);  // else every float of the copy is written
      spec.set_flag("copy_rows", !x_cl);
      set_rectangles(spec, gp);
      set_tile_positions(spec, gp, depthwise);
      spec.scratch_bytes = spec.pad_scratch_bytes;
    } else {
      set_strides(spec, "X", x, x_cl);
      set_rectangles(spec, geo);
      set_tile_positions(spec, geo, depthwise);
    }
    spec.set_flag("pool", pool);
    if (pool) {
      spec.set("NBAND", pg.out[1]);
      spec.set("SR", sr);
      spec.set("POW", pg.out[2]);
      for (const char* a : {"H", "W"}) {
        const int i = a[0] == 'H' ? 1 : 2;
        spec.set(std::string("PK") + a, pg.kernel[i]);
        spec.set(std::string("PS") + a, pg.stride[i]);
        spec.set(std::string("PP") + a, pg.pad_begin[i]);
        spec.set(std::string("PD") + a, pg.dilation[i]);
      }
      spec.set("SRB", sr * geo.out[2] * mb);  // one block's rows
      spec.set("POOL_AT", padx ? rows_at : 0);
      spec.scratch_bytes = static_cast<size_t>((padx ? rows_at : 0) + pool_rows) * sizeof(float);
    }
    spec.set_flag("has_scratch", spec.scratch_bytes > 0);
    // A fused Sigmoid or SiLU: applied to a tile's vectors together
    // (mlip/kvec_sigmoid.h's mlip__ct_sigmoid_<MB>, mlip/kmath_f.h's bits).
    const Activation act = activation_of(n.attrs);
    const bool sigmoid = act.kind == Activation::Sigmoid || act.kind == Activation::Silu;
    spec.set_flag("act_lanes", sigmoid);
    spec.set("act_silu", act.kind == Activation::Silu ? 1 : 0);
    set_packed_operands(spec, wpk, bias, has_res);
    return;
  }

  spec.template_name = "conv.c";
  spec.includes.push_back("mlip/kfma.h");
  spec.set("C", x[1]);
  spec.set("M", w[0]);
  spec.set("ICG", icg);
  spec.set("OCG", ocg);
  spec.set("WSIZE", x[1] / group * geo.kernel[0] * geo.kernel[1] * geo.kernel[2]);
  // Output channels per pass: up to 4 of one group share each input read.
  const int64_t mb = ocg % 4 == 0 ? 4 : ocg % 2 == 0 ? 2 : 1;  // 8 measured no faster
  spec.set("MB", mb);
  spec.set("MOSIZE", mb * geo.out[0] * geo.out[1] * geo.out[2]);
  spec.args = {0, 1};
  if (has_bias) spec.args.push_back(2);
  if (has_res) spec.args.push_back(3);
}

}  // namespace mlipc::c::kernels
