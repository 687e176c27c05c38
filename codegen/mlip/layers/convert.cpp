// CONVERT_IN and CONVERT_OUT: the region borders. A region reads and writes
// fp32 NCHW tensors (the CPU's) and works on fp16 NHWC ones: each input is
// converted and transposed on the way in, each output on the way out (an
// int8 region's borders only transpose its int8/uint8 bytes), by
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

// A region border's element sizes: the CPU's NCHW tensor (fp32, or the int8
// region's int8/uint8) and the region's NHWC one (fp16, or the same bytes).
// An fp32 border converts (CONVERT) and changes the layout (LAYOUT); an int8
// border has the same values on both sides, so only the layout changes (and
// nothing at all for one position per image).
struct BorderElems {
  int64_t planar, nhwc;
  bool convert() const { return planar != nhwc; }
};
constexpr BorderElems kFloatBorder{kF32Bytes, kF16Bytes};
constexpr BorderElems kByteBorder{1, 1};

// [N, C] (one position): `elems` elements, planar (and converted).
uint64_t flat_bytes(const BorderElems& e, int64_t elems) {
  return ocm_round(elems * e.planar) + (e.convert() ? ocm_round(elems * e.nhwc) : 0);
}

// R rows of W positions of `channels` channels: planar (and converted
// planar), and NHWC.
uint64_t rows_bytes(const BorderElems& e, int64_t R, int64_t W, int64_t channels) {
  const int64_t n = channels * R * W;
  return ocm_round(n * e.planar) + (e.convert() ? 2 : 1) * ocm_round(n * e.nhwc);
}

// One CONVERT of `count` elements between OCM buffers.
void convert(LayerPlanner& p, int tile, uint32_t src, uint32_t dst, int64_t count, bool to_f16) {
  mlip_convert_args a{};
  a.src = src;
  a.dst = dst;
  a.count = u32(count);
  a.mode = to_f16 ? MLIP_CVT_F32_TO_F16 : MLIP_CVT_F16_TO_F32;
  p.emit(MLIP_OP_CONVERT, tile, a);
}

// One LAYOUT: an [a, b] matrix of `elem`-byte elements transposed.
void layout(LayerPlanner& p, int tile, uint32_t src, uint32_t dst, int64_t a, int64_t b, int64_t elem) {
  mlip_layout_args l{};
  l.src = src;
  l.dst = dst;
  l.outer = 1;
  l.a = u32(a);
  l.b = u32(b);
  l.elem_bytes = u32(elem);
  p.emit(MLIP_OP_LAYOUT, tile, l);
}

// Both directions: `planar` is the CPU's NCHW tensor, `inward` says whether
// it is read (CONVERT_IN) or written (CONVERT_OUT).
void plan_convert(LayerPlanner& p, bool inward) {
  const RTensor& src = p.in();
  const RTensor& dst = p.out();
  // int16 (16x8): two bytes on both sides
  const BorderElems e = src.dtype == MLIP_DT_INT16 ? BorderElems{2, 2} : src.q8() ? kByteBorder : kFloatBorder;
  const int64_t pe = e.planar, he = e.nhwc;
  const RTensor& planar = inward ? src : dst;
  const int64_t H = planar.h, W = planar.w, C = planar.c;
  if (H * W == 1 || planar.rowmajor) {  // [N, C] or row-major: the same element order on both sides
    const int64_t E = planar.elems();
    const auto parts = split_range(E, p.num_tiles(), 64);
    p.set_split(Split::Elements, parts);
    const int64_t chunk = largest(E, [&](int64_t v) { return flat_bytes(e, v) <= p.work_limit(); });
    for (size_t t = 0; t < parts.size(); ++t) {
      const int tile = static_cast<int>(t);
      Ocm ocm(p.work_limit());
      const int64_t n = std::min(chunk, parts[t].second - parts[t].first);
      const uint32_t pl = ocm.take(n * pe), mid = e.convert() ? ocm.take(n * he) : pl;
      p.note_ocm(tile, ocm);
      for (int64_t e0 = parts[t].first; e0 < parts[t].second; e0 += n) {
        const int64_t en = std::min(n, parts[t].second - e0);
        p.count_pass();
        if (inward) p.dma_in(tile, p.binding(src), p.ddr_base(src) + e0 * pe, pl, en * pe);
        else p.dma_in(tile, p.binding(src), p.ddr_base(src) + e0 * he, mid, en * he);
        if (e.convert()) convert(p, tile, inward ? pl : mid, inward ? mid : pl, en, inward);
        if (inward) p.dma_out(tile, p.binding(dst), p.ddr_base(dst) + e0 * he, mid, en * he);
        else p.dma_out(tile, p.binding(dst), p.ddr_base(dst) + e0 * pe, pl, en * pe);
      }
    }
    return;
  }
  const auto parts = split_range(H, p.num_tiles());
  p.set_split(Split::Rows, parts);
  for (int64_t img = 0; img < planar.n; ++img) {
    const int64_t pb = img * C * H * W * pe, hb = img * H * W * C * he;  // image offsets, planar and NHWC
    const int64_t src_b = p.ddr_base(src) + (inward ? pb : hb), dst_b = p.ddr_base(dst) + (inward ? hb : pb);
    for (size_t t = 0; t < parts.size(); ++t) {
      const int tile = static_cast<int>(t);
      const int64_t r0 = parts[t].first, r1 = parts[t].second;
      const int64_t cc = largest(C, [&](int64_t v) { return rows_bytes(e, 1, W, v) <= p.work_limit(); });
      if (cc == 0) fail("region border tensor '{}' is too wide for OCM", planar.name);
      const int64_t R = largest(r1 - r0, [&](int64_t v) { return rows_bytes(e, v, W, cc) <= p.work_limit(); });
      Ocm ocm(p.work_limit());
      const uint32_t pl = ocm.take(cc * R * W * pe), mid = e.convert() ? ocm.take(cc * R * W * he) : pl,
                     hwc = ocm.take(cc * R * W * he);
      p.note_ocm(tile, ocm);
      for (int64_t cs = 0; cs < C; cs += cc) {
        const int64_t cn = std::min(cc, C - cs);
        for (int64_t p0 = r0; p0 < r1; p0 += R) {
          const int64_t rn = std::min(R, r1 - p0);
          const int64_t n = rn * W;  // positions in this pass
          p.count_pass();
          if (inward) {
            p.dma_in(tile, p.binding(src), src_b + (cs * H * W + p0 * W) * pe, pl, cn, n * pe, H * W * pe, n * pe);
            if (e.convert()) convert(p, tile, pl, mid, cn * n, true);
            layout(p, tile, mid, hwc, cn, n, he);
          } else if (cn == C) {
            p.dma_in(tile, p.binding(src), src_b + p0 * W * C * he, hwc, n * C * he);
          } else {
            p.dma_in(tile, p.binding(src), src_b + (p0 * W * C + cs) * he, hwc, n, cn * he, C * he, cn * he);
          }
          if (inward) {
            if (cn == C) p.dma_out(tile, p.binding(dst), dst_b + p0 * W * C * he, hwc, n * C * he);
            else p.dma_out(tile, p.binding(dst), dst_b + (p0 * W * C + cs) * he, hwc, n, cn * he, C * he, cn * he);
          } else {
            layout(p, tile, hwc, mid, n, cn, he);
            if (e.convert()) convert(p, tile, mid, pl, cn * n, false);
            p.dma_out(tile, p.binding(dst), dst_b + (cs * H * W + p0 * W) * pe, pl, cn, n * pe, H * W * pe, n * pe);
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
  const uint64_t need = one_position ? flat_bytes(kFloatBorder, 1) : rows_bytes(kFloatBorder, 1, W, 1);
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
