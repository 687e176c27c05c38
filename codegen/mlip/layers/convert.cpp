// CONVERT_IN and CONVERT_OUT: the region borders. A region reads and writes
// fp32 NCHW tensors (the CPU's) and works on fp16 NHWC ones: each input is
// converted and transposed on the way in, each output on the way out, by
// rows split across tiles (by elements when there is one position per image,
// where NCHW and NHWC agree). The lowering makes these layers itself
// (LowerContext::convert_in/out), so they have no ONNX operator.
#include <algorithm>

#include <fmt/format.h>

#include "mlip/layer_kind.h"
#include "mlip/layers/rules.h"
#include "mlip/lower.h"
#include "mlip/plan.h"
#include "support/error.h"

namespace mlipc::mlip::layers {

namespace {

// [N, C] (one position): `elems` elements, fp32 and fp16.
uint64_t flat_bytes(int64_t elems) { return ocm_round(elems * kF32Bytes) + ocm_round(elems * kF16Bytes); }

// R rows of W positions of `channels` channels: fp32 planar, fp16 planar and
// fp16 interleaved.
uint64_t rows_bytes(int64_t R, int64_t W, int64_t channels) {
  return ocm_round(channels * R * W * kF32Bytes) + 2 * ocm_round(channels * R * W * kF16Bytes);
}

// An int8 region's border: the CPU's int8/uint8 NCHW tensor and the
// region's NHWC one have the same values, so only the layout changes (a
// LAYOUT of 1-byte elements; nothing at all for one position per image).
// R rows of W positions of `channels` channels: NCHW and NHWC bytes.
uint64_t q8_rows_bytes(int64_t R, int64_t W, int64_t channels) { return 2 * ocm_round(channels * R * W); }

void plan_convert_q8(LayerPlanner& p, bool inward) {
  const RTensor& src = p.in();
  const RTensor& dst = p.out();
  const RTensor& planar = inward ? src : dst;
  const int64_t H = planar.h, W = planar.w, C = planar.c;
  if (H * W == 1) {  // [N, C]: a copy through OCM
    const int64_t E = planar.elems();
    const auto parts = split_range(E, p.num_tiles(), 64);
    p.set_split(Split::Elements, parts);
    const int64_t chunk = largest(E, [&](int64_t v) { return ocm_round(v) <= p.work_limit(); });
    for (size_t t = 0; t < parts.size(); ++t) {
      const int tile = static_cast<int>(t);
      Ocm ocm(p.work_limit());
      const int64_t n = std::min(chunk, parts[t].second - parts[t].first);
      const uint32_t buf = ocm.take(n);
      p.note_ocm(tile, ocm);
      for (int64_t e0 = parts[t].first; e0 < parts[t].second; e0 += n) {
        const int64_t en = std::min(n, parts[t].second - e0);
        p.count_pass();
        p.dma_in(tile, p.binding(src), p.ddr_base(src) + e0, buf, en);
        p.dma_out(tile, p.binding(dst), p.ddr_base(dst) + e0, buf, en);
      }
    }
    return;
  }
  const auto parts = split_range(H, p.num_tiles());
  p.set_split(Split::Rows, parts);
  for (int64_t img = 0; img < planar.n; ++img) {
    const int64_t ib = img * C * H * W;  // the same image offset in both layouts
    const int64_t src_b = p.ddr_base(src) + ib, dst_b = p.ddr_base(dst) + ib;
    for (size_t t = 0; t < parts.size(); ++t) {
      const int tile = static_cast<int>(t);
      const int64_t r0 = parts[t].first, r1 = parts[t].second;
      const int64_t cc = largest(C, [&](int64_t v) { return q8_rows_bytes(1, W, v) <= p.work_limit(); });
      if (cc == 0) fail("region border tensor '{}' is too wide for OCM", planar.name);
      const int64_t R = largest(r1 - r0, [&](int64_t v) { return q8_rows_bytes(v, W, cc) <= p.work_limit(); });
      Ocm ocm(p.work_limit());
      const uint32_t chw = ocm.take(cc * R * W), hwc = ocm.take(cc * R * W);
      p.note_ocm(tile, ocm);
      for (int64_t cs = 0; cs < C; cs += cc) {
        const int64_t cn = std::min(cc, C - cs);
        for (int64_t p0 = r0; p0 < r1; p0 += R) {
          const int64_t rn = std::min(R, r1 - p0);
          const int64_t n = rn * W;  // positions in this pass
          p.count_pass();
          if (inward) p.dma_in(tile, p.binding(src), src_b + cs * H * W + p0 * W, chw, cn, n, H * W, n);
          else if (cn == C) p.dma_in(tile, p.binding(src), src_b + p0 * W * C, hwc, n * C);
          else p.dma_in(tile, p.binding(src), src_b + p0 * W * C + cs, hwc, n, cn, C, cn);
          RCommand& lay = p.cmd(MLIP_OP_LAYOUT, tile);
          lay.cmd.w[MLIP_LAY_SRC] = inward ? chw : hwc;
          lay.cmd.w[MLIP_LAY_DST] = inward ? hwc : chw;
          lay.cmd.w[MLIP_LAY_OUTER] = 1;
          lay.cmd.w[MLIP_LAY_A] = u32(inward ? cn : n);
          lay.cmd.w[MLIP_LAY_B] = u32(inward ? n : cn);
          lay.cmd.w[MLIP_LAY_ELEM] = 1;
          if (!inward) p.dma_out(tile, p.binding(dst), dst_b + cs * H * W + p0 * W, chw, cn, n, H * W, n);
          else if (cn == C) p.dma_out(tile, p.binding(dst), dst_b + p0 * W * C, hwc, n * C);
          else p.dma_out(tile, p.binding(dst), dst_b + p0 * W * C + cs, hwc, n, cn, C, cn);
        }
      }
    }
  }
}

// Both directions: `planar` is the region's fp32 NCHW tensor, `inward` says
// whether it is read (CONVERT_IN) or written (CONVERT_OUT).
void plan_convert(LayerPlanner& p, bool inward) {
  const RTensor& src = p.in();
  const RTensor& dst = p.out();
  if (src.q8()) return plan_convert_q8(p, inward);
  const RTensor& planar = inward ? src : dst;
  const int64_t H = planar.h, W = planar.w, C = planar.c;
  if (H * W == 1) {  // [N, C]: the same element order in NCHW and NHWC
    const int64_t E = planar.elems();
    const auto parts = split_range(E, p.num_tiles(), 64);
    p.set_split(Split::Elements, parts);
    const int64_t chunk = largest(E, [&](int64_t v) { return flat_bytes(v) <= p.work_limit(); });
    for (size_t t = 0; t < parts.size(); ++t) {
      const int tile = static_cast<int>(t);
      Ocm ocm(p.work_limit());
      const int64_t n = std::min(chunk, parts[t].second - parts[t].first);
      const uint32_t f32 = ocm.take(n * kF32Bytes), f16 = ocm.take(n * kF16Bytes);
      p.note_ocm(tile, ocm);
      for (int64_t e0 = parts[t].first; e0 < parts[t].second; e0 += n) {
        const int64_t en = std::min(n, parts[t].second - e0);
        p.count_pass();
        if (inward) p.dma_in(tile, p.binding(src), p.ddr_base(src) + e0 * kF32Bytes, f32, en * kF32Bytes);
        else p.dma_in(tile, p.binding(src), p.ddr_base(src) + e0 * kF16Bytes, f16, en * kF16Bytes);
        RCommand& c = p.cmd(MLIP_OP_CONVERT, tile);
        c.cmd.w[MLIP_CVT_SRC] = inward ? f32 : f16;
        c.cmd.w[MLIP_CVT_DST] = inward ? f16 : f32;
        c.cmd.w[MLIP_CVT_COUNT] = u32(en);
        c.cmd.w[MLIP_CVT_MODE] = inward ? MLIP_CVT_F32_TO_F16 : MLIP_CVT_F16_TO_F32;
        if (inward) p.dma_out(tile, p.binding(dst), p.ddr_base(dst) + e0 * kF16Bytes, f16, en * kF16Bytes);
        else p.dma_out(tile, p.binding(dst), p.ddr_base(dst) + e0 * kF32Bytes, f32, en * kF32Bytes);
      }
    }
    return;
  }
  const auto parts = split_range(H, p.num_tiles());
  p.set_split(Split::Rows, parts);
  for (int64_t img = 0; img < planar.n; ++img) {
    const int64_t pb = img * C * H * W * kF32Bytes, hb = img * H * W * C * kF16Bytes;  // image offsets, planar and NHWC
    const int64_t src_b = p.ddr_base(src) + (inward ? pb : hb), dst_b = p.ddr_base(dst) + (inward ? hb : pb);
    for (size_t t = 0; t < parts.size(); ++t) {
      const int tile = static_cast<int>(t);
      const int64_t r0 = parts[t].first, r1 = parts[t].second;
      const int64_t cc = largest(C, [&](int64_t v) { return rows_bytes(1, W, v) <= p.work_limit(); });
      if (cc == 0) fail("region border tensor '{}' is too wide for OCM", planar.name);
      const int64_t R = largest(r1 - r0, [&](int64_t v) { return rows_bytes(v, W, cc) <= p.work_limit(); });
      Ocm ocm(p.work_limit());
      const uint32_t f32 = ocm.take(cc * R * W * kF32Bytes), f16 = ocm.take(cc * R * W * kF16Bytes),
                     hwc = ocm.take(cc * R * W * kF16Bytes);
      p.note_ocm(tile, ocm);
      for (int64_t cs = 0; cs < C; cs += cc) {
        const int64_t cn = std::min(cc, C - cs);
        for (int64_t p0 = r0; p0 < r1; p0 += R) {
          const int64_t rn = std::min(R, r1 - p0);
          const int64_t n = rn * W;  // positions in this pass
          p.count_pass();
          if (inward) {
            p.dma_in(tile, p.binding(src), src_b + (cs * H * W + p0 * W) * kF32Bytes, f32, cn, n * kF32Bytes,
                     H * W * kF32Bytes, n * kF32Bytes);
            RCommand& cvt = p.cmd(MLIP_OP_CONVERT, tile);
            cvt.cmd.w[MLIP_CVT_SRC] = f32;
            cvt.cmd.w[MLIP_CVT_DST] = f16;
            cvt.cmd.w[MLIP_CVT_COUNT] = u32(cn * n);
            cvt.cmd.w[MLIP_CVT_MODE] = MLIP_CVT_F32_TO_F16;
            RCommand& lay = p.cmd(MLIP_OP_LAYOUT, tile);
            lay.cmd.w[MLIP_LAY_SRC] = f16;
            lay.cmd.w[MLIP_LAY_DST] = hwc;
            lay.cmd.w[MLIP_LAY_OUTER] = 1;
            lay.cmd.w[MLIP_LAY_A] = u32(cn);
            lay.cmd.w[MLIP_LAY_B] = u32(n);
            lay.cmd.w[MLIP_LAY_ELEM] = u32(kF16Bytes);
            if (cn == C)
              p.dma_out(tile, p.binding(dst), dst_b + p0 * W * C * kF16Bytes, hwc, n * C * kF16Bytes);
            else
              p.dma_out(tile, p.binding(dst), dst_b + (p0 * W * C + cs) * kF16Bytes, hwc, n, cn * kF16Bytes,
                        C * kF16Bytes, cn * kF16Bytes);
          } else {
            if (cn == C)
              p.dma_in(tile, p.binding(src), src_b + p0 * W * C * kF16Bytes, hwc, n * C * kF16Bytes);
            else
              p.dma_in(tile, p.binding(src), src_b + (p0 * W * C + cs) * kF16Bytes, hwc, n, cn * kF16Bytes,
                       C * kF16Bytes, cn * kF16Bytes);
            RCommand& lay = p.cmd(MLIP_OP_LAYOUT, tile);
            lay.cmd.w[MLIP_LAY_SRC] = hwc;
            lay.cmd.w[MLIP_LAY_DST] = f16;
            lay.cmd.w[MLIP_LAY_OUTER] = 1;
            lay.cmd.w[MLIP_LAY_A] = u32(n);
            lay.cmd.w[MLIP_LAY_B] = u32(cn);
            lay.cmd.w[MLIP_LAY_ELEM] = u32(kF16Bytes);
            RCommand& cvt = p.cmd(MLIP_OP_CONVERT, tile);
            cvt.cmd.w[MLIP_CVT_SRC] = f16;
            cvt.cmd.w[MLIP_CVT_DST] = f32;
            cvt.cmd.w[MLIP_CVT_COUNT] = u32(cn * n);
            cvt.cmd.w[MLIP_CVT_MODE] = MLIP_CVT_F16_TO_F32;
            p.dma_out(tile, p.binding(dst), dst_b + (cs * H * W + p0 * W) * kF32Bytes, f32, cn, n * kF32Bytes,
                      H * W * kF32Bytes, n * kF32Bytes);
          }
        }
      }
    }
  }
}

void plan_in(LayerPlanner& p) { plan_convert(p, true); }
void plan_out(LayerPlanner& p) { plan_convert(p, false); }

}  // namespace

std::string border_reason(const Value& v, uint32_t work_bytes) {
  const Shape& s = v.shape;
  if (s.size() != 2 && s.size() != 4) return "";  // the layer's own rule decides
  const int64_t W = s.size() == 4 ? s[3] : 1;
  const bool one_position = s.size() == 2 || s[2] * s[3] == 1;
  const uint64_t need = one_position ? flat_bytes(1) : rows_bytes(1, W, 1);
  if (need > work_bytes)
    return fmt::format("tensor '{}' {} is too wide to convert at a region border: one row of one channel needs {} "
                       "bytes of OCM, more than the {} available",
                       v.name, shape_str(s), need, work_bytes);
  return "";
}

extern const LayerKind kConvertIn = {MLIP_LAYER_CONVERT_IN, "convert_in", "Layout_transform_NCHW2NHWC",
                                     "mrvl.layout_transform_nchw2nhwc", {}, /*fuses_activation=*/false,
                                     nullptr, nullptr, plan_in, nullptr, nullptr};
extern const LayerKind kConvertOut = {MLIP_LAYER_CONVERT_OUT, "convert_out", "Layout_transform_NHWC2NCHW",
                                      "mrvl.layout_transform_nhwc2nchw", {}, /*fuses_activation=*/false,
                                      nullptr, nullptr, plan_out, nullptr, nullptr};

}  // namespace mlipc::mlip::layers
