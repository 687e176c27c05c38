// CONVERT_IN and CONVERT_OUT: the region borders that change the layout. A
// region reads and writes fp32 NCHW tensors (the CPU's) and works on fp16
// NHWC ones. The fp32 <-> fp16 conversion is the DMA's (a float region's
// border bindings convert on every DMA, LayerPlanner::dma), so a border
// whose element order is the same on both sides (one position per image, or
// a row-major tensor) needs no layer at all: the layers that read or write
// it address the border binding themselves (LowerContext::convert_in/out).
// What remains here is the transposition NCHW <-> NHWC, by rows split
// across tiles (an int8 region's borders move their int8/uint8 bytes the
// same way, without conversion), and the copy of a border tensor that the
// layers cannot address in place (an output that is a region input, or a
// view). The lowering makes these layers itself, so they have no ONNX
// operator.
#include <algorithm>

#include <fmt/format.h>

#include "mlip/layer_kind.h"
#include "mlip/layers/rules.h"
#include "mlip/lower.h"
#include "mlip/plan.h"
#include "support/error.h"

namespace mlipc::mlip::layers {

namespace convert_layer {

// [N, C] (one position): `elems` elements of `eb` bytes in OCM, one buffer
// (the DMA in converts, the DMA out does not, or the other way round).
uint64_t flat_bytes(int64_t eb, int64_t elems) { return ocm_round(elems * eb); }

// R rows of W positions of `channels` channels: planar and NHWC, each `eb`
// bytes an element in OCM.
uint64_t rows_bytes(int64_t eb, int64_t R, int64_t W, int64_t channels) {
  return 2 * ocm_round(channels * R * W * eb);
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
// it is read (CONVERT_IN) or written (CONVERT_OUT). Offsets are in the
// region's elements (fp16, or the int8 bytes) on both sides: the planar
// side's DMA converts (and doubles them) in a float region.
void plan_convert(LayerPlanner& p, bool inward) {
  const RTensor& src = p.in();
  const RTensor& dst = p.out();
  const RTensor& planar = inward ? src : dst;
  const int64_t eb = (inward ? dst : src).elem_bytes();
  const int64_t H = planar.h, W = planar.w, C = planar.c;
  if (H * W == 1 || planar.rowmajor) {  // [N, C] or row-major: the same element order on both sides
    const int64_t E = planar.elems();
    const auto parts = split_range(E, p.num_tiles(), 64);
    p.set_split(Split::Elements, parts);
    const int64_t chunk = largest(E, [&](int64_t v) { return flat_bytes(eb, v) <= p.work_limit(); });
    for (size_t t = 0; t < parts.size(); ++t) {
      const int tile = static_cast<int>(t);
      Ocm ocm(p.work_limit());
      const int64_t n = std::min(chunk, parts[t].second - parts[t].first);
      const uint32_t buf = ocm.take(n * eb);
      p.note_ocm(tile, ocm);
      for (int64_t e0 = parts[t].first; e0 < parts[t].second; e0 += n) {
        const int64_t en = std::min(n, parts[t].second - e0);
        p.count_pass();
        p.dma_in(tile, p.binding(src), p.ddr_base(src) + e0 * eb, buf, en * eb);
        p.dma_out(tile, p.binding(dst), p.ddr_base(dst) + e0 * eb, buf, en * eb);
      }
    }
    return;
  }
  const auto parts = split_range(H, p.num_tiles());
  p.set_split(Split::Rows, parts);
  for (int64_t img = 0; img < planar.n; ++img) {
    const int64_t ib = img * C * H * W * eb;  // the image's offset, planar and NHWC alike
    const int64_t src_b = p.ddr_base(src) + ib, dst_b = p.ddr_base(dst) + ib;
    for (size_t t = 0; t < parts.size(); ++t) {
      const int tile = static_cast<int>(t);
      const int64_t r0 = parts[t].first, r1 = parts[t].second;
      const int64_t cc = largest(C, [&](int64_t v) { return rows_bytes(eb, 1, W, v) <= p.work_limit(); });
      if (cc == 0) fail("region border tensor '{}' is too wide for OCM", planar.name);
      const int64_t R = largest(r1 - r0, [&](int64_t v) { return rows_bytes(eb, v, W, cc) <= p.work_limit(); });
      Ocm ocm(p.work_limit());
      const uint32_t pl = ocm.take(cc * R * W * eb), hwc = ocm.take(cc * R * W * eb);
      p.note_ocm(tile, ocm);
      for (int64_t cs = 0; cs < C; cs += cc) {
        const int64_t cn = std::min(cc, C - cs);
        for (int64_t p0 = r0; p0 < r1; p0 += R) {
          const int64_t rn = std::min(R, r1 - p0);
          const int64_t n = rn * W;  // positions in this pass
          p.count_pass();
          if (inward) {
            p.dma_in(tile, p.binding(src), src_b + (cs * H * W + p0 * W) * eb, pl, cn, n * eb, H * W * eb, n * eb);
            layout(p, tile, pl, hwc, cn, n, eb);
          } else if (cn == C) {
            p.dma_in(tile, p.binding(src), src_b + p0 * W * C * eb, hwc, n * C * eb);
          } else {
            p.dma_in(tile, p.binding(src), src_b + (p0 * W * C + cs) * eb, hwc, n, cn * eb, C * eb, cn * eb);
          }
          if (inward) {
            if (cn == C) p.dma_out(tile, p.binding(dst), dst_b + p0 * W * C * eb, hwc, n * C * eb);
            else p.dma_out(tile, p.binding(dst), dst_b + (p0 * W * C + cs) * eb, hwc, n, cn * eb, C * eb, cn * eb);
          } else {
            layout(p, tile, hwc, pl, n, cn, eb);
            p.dma_out(tile, p.binding(dst), dst_b + (cs * H * W + p0 * W) * eb, pl, cn, n * eb, H * W * eb, n * eb);
          }
        }
      }
    }
  }
}

void plan_in(LayerPlanner& p) { plan_convert(p, true); }
void plan_out(LayerPlanner& p) { plan_convert(p, false); }

}  // namespace convert_layer

std::string border_reason(const Value& v, uint32_t work_bytes) {
  const Shape& s = v.shape;
  if (s.size() != 2 && s.size() != 4) return "";  // the layer's own rule decides
  const int64_t W = s.size() == 4 ? s[3] : 1;
  const bool one_position = s.size() == 2 || s[2] * s[3] == 1;
  const uint64_t need =
      one_position ? convert_layer::flat_bytes(kF16Bytes, 1) : convert_layer::rows_bytes(kF16Bytes, 1, W, 1);
  if (need > work_bytes)
    return fmt::format("tensor '{}' {} is too wide to convert at a region border: one row of one channel needs {} "
                       "bytes of OCM, more than the {} available",
                       v.name, shape_str(s), need, work_bytes);
  return "";
}

extern const LayerKind kConvertIn = {MLIP_LAYER_CONVERT_IN, "convert_in", "Layout_transform_NCHW2NHWC",
                                     "mrvl.layout_transform_nchw2nhwc", {}, /*fuses_activation=*/false,
                                     nullptr, nullptr, convert_layer::plan_in, nullptr, nullptr};
extern const LayerKind kConvertOut = {MLIP_LAYER_CONVERT_OUT, "convert_out", "Layout_transform_NHWC2NCHW",
                                      "mrvl.layout_transform_nhwc2nchw", {}, /*fuses_activation=*/false,
                                      nullptr, nullptr, convert_layer::plan_out, nullptr, nullptr};

}  // namespace mlipc::mlip::layers
