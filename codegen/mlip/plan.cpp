#include "mlip/plan.h"

#include <algorithm>
#include <cstring>
#include <functional>

#include <fmt/format.h>

#include "mlip/cycles.h"
#include "support/error.h"

namespace mlipc::mlip {

namespace {

uint64_t a128(uint64_t v) { return (v + MLIP_OCM_ALIGN - 1) / MLIP_OCM_ALIGN * MLIP_OCM_ALIGN; }

uint32_t u32(int64_t v) {
  if (v < 0 || v > 0xFFFFFFFFLL) fail("internal: MLIP operand {} out of range", v);
  return static_cast<uint32_t>(v);
}

uint32_t float_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

// Even split of [0, n) into at most `parts` non-empty ranges.
std::vector<std::pair<int64_t, int64_t>> split_range(int64_t n, int parts, int64_t granule = 1) {
  std::vector<std::pair<int64_t, int64_t>> r;
  int64_t units = (n + granule - 1) / granule;
  int64_t p = std::min<int64_t>(parts, std::max<int64_t>(units, 1));
  for (int64_t i = 0; i < p; ++i) {
    int64_t b = units * i / p * granule, e = std::min(n, units * (i + 1) / p * granule);
    if (e > b) r.emplace_back(b, e);
  }
  return r;
}

// Largest v in [1, hi] with fits(v), or 0.
int64_t largest(int64_t hi, const std::function<bool(int64_t)>& fits) {
  if (hi < 1 || !fits(1)) return 0;
  int64_t lo = 1;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo + 1) / 2;
    if (fits(mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

// Bump allocation in one tile's OCM working area for one pass group.
class Ocm {
 public:
  explicit Ocm(uint32_t limit) : limit_(limit) {}
  uint32_t take(uint64_t bytes) {
    uint32_t off = static_cast<uint32_t>(top_);
    top_ += a128(bytes);
    if (top_ > limit_) fail("internal: OCM plan exceeds the {}-byte working area", limit_);
    used_ = std::max(used_, top_);
    return off;
  }
  void reset() { top_ = 0; }
  uint32_t used() const { return static_cast<uint32_t>(used_); }

 private:
  uint64_t limit_;
  uint64_t top_ = 0, used_ = 0;
};

class Builder {
 public:
  Builder(const PlanContext& ctx, int index, const PinnedWeights* pinned)
      : ctx_(ctx), r_(ctx.region), l_(r_.layers[index]), index_(index), pinned_(pinned) {
    plan_.ocm_used.assign(static_cast<size_t>(ctx.num_tiles), 0);
  }

  LayerPlan build(const std::string& split) {
    plan_.split.how = split;
    switch (l_.kind) {
      case MLIP_LAYER_CONV2D: window(true, split); break;
      case MLIP_LAYER_MAXPOOL:
      case MLIP_LAYER_AVGPOOL: window(false, split); break;
      case MLIP_LAYER_FC: fc(); break;
      case MLIP_LAYER_GLOBAL_AVGPOOL:
      case MLIP_LAYER_GLOBAL_MAXPOOL: global_pool(); break;
      case MLIP_LAYER_ADD: add(); break;
      case MLIP_LAYER_CONCAT: concat(); break;
      case MLIP_LAYER_CONVERT_IN: convert(true); break;
      case MLIP_LAYER_CONVERT_OUT: convert(false); break;
      default: fail("internal: layer kind {} cannot be planned", l_.kind);
    }
    RCommand barrier;
    barrier.cmd.opcode = MLIP_OP_BARRIER;
    barrier.cmd.layer = static_cast<uint16_t>(index_);
    plan_.commands.push_back(barrier);
    plan_.est_cycles = layer_cycles(plan_.commands, ctx_.target);
    plan_.pinned = pinned_ && pinned_->any();
    return std::move(plan_);
  }

 private:
  const RTensor& in(int k = 0) const { return r_.tensors[l_.inputs[static_cast<size_t>(k)]]; }
  const RTensor& out() const { return r_.tensors[l_.output]; }

  uint32_t binding(const RTensor& t) const {
    if (t.home == RTensor::Input) return static_cast<uint32_t>(t.index);
    if (t.home == RTensor::Output) return static_cast<uint32_t>(r_.inputs.size() + t.index);
    return scratch_binding(r_);
  }
  uint32_t ddr_base(const RTensor& t) const { return t.home == RTensor::Scratch ? t.offset : 0; }

  RCommand& cmd(uint8_t opcode, int tile) {
    RCommand c;
    c.cmd.opcode = opcode;
    c.cmd.tile = static_cast<uint8_t>(tile);
    c.cmd.layer = static_cast<uint16_t>(index_);
    plan_.commands.push_back(c);
    return plan_.commands.back();
  }

  void dma(bool in_dir, int tile, uint32_t bind, int64_t ddr, uint32_t ocm, int64_t rows, int64_t row_bytes,
           int64_t ddr_stride, int64_t ocm_stride) {
    RCommand& c = cmd(in_dir ? MLIP_OP_DMA_IN : MLIP_OP_DMA_OUT, tile);
    c.cmd.w[MLIP_DMA_BINDING] = bind;
    c.cmd.w[MLIP_DMA_DDR_OFFSET] = u32(ddr);
    c.cmd.w[MLIP_DMA_OCM_OFFSET] = ocm;
    c.cmd.w[MLIP_DMA_ROWS] = u32(rows);
    c.cmd.w[MLIP_DMA_ROW_BYTES] = u32(row_bytes);
    c.cmd.w[MLIP_DMA_DDR_STRIDE] = u32(rows > 1 ? ddr_stride : row_bytes);
    c.cmd.w[MLIP_DMA_OCM_STRIDE] = u32(rows > 1 ? ocm_stride : row_bytes);
  }

  void set_act(uint32_t* w, int kind_word) {
    w[kind_word] = l_.act.kind;
    w[kind_word + 1] = float_bits(l_.act.lo);
    w[kind_word + 2] = float_bits(l_.act.hi);
  }

  bool pinned(int tile) const { return pinned_ && pinned_->weight_rel[static_cast<size_t>(tile)] >= 0; }

  void note_ocm(int tile, const Ocm& o) {
    plan_.ocm_used[static_cast<size_t>(tile)] = std::max(plan_.ocm_used[static_cast<size_t>(tile)], o.used());
  }

  // Conv and pools: NHWC blocks of input rows, output rows [p0, p1) per pass.
  void window(bool conv, const std::string& split) {
    const RTensor& x = in();
    const RTensor& y = out();
    const int64_t H = x.h, W = x.w, C = x.c, OH = y.h, OW = y.w, OC = y.c;
    const int64_t cg = conv ? C / l_.groups : 1, ocpg = conv ? OC / l_.groups : 1;
    const int64_t wper = l_.kh * l_.kw * cg;
    const bool bias = conv && l_.bias_offset >= 0;
    const bool by_channels = split == "channels";
    auto rows_for = [&](int64_t R) { return std::min(H, (R - 1) * l_.sh + (l_.kh - 1) * l_.dh + 1); };
    std::vector<std::pair<int64_t, int64_t>> parts = split_range(by_channels ? OC : OH, ctx_.num_tiles);
    plan_.split.ranges = parts;
    const uint64_t limit = ctx_.work_limit;
    // Images one after another; each image's rows (or channels) split across tiles.
    for (int64_t img = 0; img < x.n; ++img) {
    const int64_t xb = ddr_base(x) + img * H * W * C * 2, yb = ddr_base(y) + img * OH * OW * OC * 2;
    for (size_t t = 0; t < parts.size(); ++t) {
      const int tile = static_cast<int>(t);
      const int64_t r0 = by_channels ? 0 : parts[t].first, r1 = by_channels ? OH : parts[t].second;
      const int64_t c0 = by_channels ? parts[t].first : 0, c1 = by_channels ? parts[t].second : OC;
      const bool pin = conv && pinned(tile);
      // Working bytes for R output rows of occ channels. Pools chunk channels
      // on both sides; conv reads every input channel.
      auto bytes = [&](int64_t R, int64_t occ) {
        uint64_t b = a128(rows_for(R) * W * (conv ? C : occ) * 2) + a128(R * OW * occ * 2);
        if (conv && !pin) b += a128(occ * wper * 2) + (bias ? a128(occ * 4) : 0);
        return b;
      };
      int64_t occ = largest(c1 - c0, [&](int64_t v) { return bytes(1, v) <= limit; });
      if (occ == 0) fail("layer '{}' does not fit OCM even one row and channel at a time", l_.name);
      int64_t R = largest(r1 - r0, [&](int64_t v) { return bytes(v, occ) <= limit; });
      for (int64_t cs = c0; cs < c1; cs += occ) {
        const int64_t cn = std::min(occ, c1 - cs);
        Ocm ocm(ctx_.work_limit);
        uint32_t w_off = 0, b_off = MLIP_NO_OFFSET;
        std::vector<int> w_pinned_words;
        if (conv) {
          if (pin) {
            w_off = u32(pinned_->weight_rel[t] + (cs - c0) * wper * 2);
            if (bias) b_off = u32(pinned_->bias_rel[t] + (cs - c0) * 4);
          } else {
            w_off = ocm.take(cn * wper * 2);
            dma(true, tile, weights_binding(r_), l_.weight_offset + cs * wper * 2, w_off, 1, cn * wper * 2, 0, 0);
            if (bias) {
              b_off = ocm.take(cn * 4);
              dma(true, tile, weights_binding(r_), l_.bias_offset + cs * 4, b_off, 1, cn * 4, 0, 0);
            }
          }
        }
        const int64_t in_c = conv ? C : cn;
        const uint32_t in_off = ocm.take(rows_for(R) * W * in_c * 2);
        const uint32_t out_off = ocm.take(R * OW * cn * 2);
        note_ocm(tile, ocm);
        for (int64_t p0 = r0; p0 < r1; p0 += R) {
          const int64_t p1 = std::min(r1, p0 + R);
          const int64_t top = p0 * l_.sh - l_.pt;
          int64_t ir0 = std::max<int64_t>(0, top);
          int64_t ir1 = std::min(H, (p1 - 1) * l_.sh - l_.pt + (l_.kh - 1) * l_.dh + 1);
          ir0 = std::min(ir0, H - 1);  // a pass whose windows are all padding still loads one real row
          ir1 = std::max(ir1, ir0 + 1);
          ++plan_.passes;
          if (in_c == C)
            dma(true, tile, binding(x), xb + ir0 * W * C * 2, in_off, 1, (ir1 - ir0) * W * C * 2, 0, 0);
          else
            dma(true, tile, binding(x), xb + (ir0 * W * C + cs) * 2, in_off, (ir1 - ir0) * W, cn * 2, C * 2, cn * 2);
          if (conv) {
            RCommand& c = cmd(MLIP_OP_CONV2D, tile);
            uint32_t* w = c.cmd.w;
            w[MLIP_CONV_IN] = in_off;
            w[MLIP_CONV_IN_H] = u32(ir1 - ir0);
            w[MLIP_CONV_IN_W] = u32(W);
            w[MLIP_CONV_IN_C] = u32(C);
            w[MLIP_CONV_WEIGHTS] = w_off;
            w[MLIP_CONV_BIAS] = b_off;
            w[MLIP_CONV_OUT] = out_off;
            w[MLIP_CONV_OUT_H] = u32(p1 - p0);
            w[MLIP_CONV_OUT_W] = u32(OW);
            w[MLIP_CONV_OUT_C] = u32(cn);
            w[MLIP_CONV_KH] = u32(l_.kh);
            w[MLIP_CONV_KW] = u32(l_.kw);
            w[MLIP_CONV_STRIDE_H] = u32(l_.sh);
            w[MLIP_CONV_STRIDE_W] = u32(l_.sw);
            w[MLIP_CONV_DIL_H] = u32(l_.dh);
            w[MLIP_CONV_DIL_W] = u32(l_.dw);
            w[MLIP_CONV_PAD_TOP] = u32(ir0 - top);
            w[MLIP_CONV_PAD_LEFT] = u32(l_.pl);
            w[MLIP_CONV_GROUPS] = u32(l_.groups);
            w[MLIP_CONV_IC_PER_GROUP] = u32(cg);
            w[MLIP_CONV_OC_PER_GROUP] = u32(ocpg);
            w[MLIP_CONV_OC_BASE] = u32(cs);
            w[MLIP_CONV_IC_BASE] = 0;
            set_act(w, MLIP_CONV_ACT);
            if (pin) {
              c.pinned_words.push_back(MLIP_CONV_WEIGHTS);
              if (bias) c.pinned_words.push_back(MLIP_CONV_BIAS);
            }
          } else {
            RCommand& c = cmd(l_.kind == MLIP_LAYER_MAXPOOL ? MLIP_OP_MAXPOOL : MLIP_OP_AVGPOOL, tile);
            uint32_t* w = c.cmd.w;
            w[MLIP_POOL_IN] = in_off;
            w[MLIP_POOL_IN_H] = u32(ir1 - ir0);
            w[MLIP_POOL_IN_W] = u32(W);
            w[MLIP_POOL_C] = u32(cn);
            w[MLIP_POOL_OUT] = out_off;
            w[MLIP_POOL_OUT_H] = u32(p1 - p0);
            w[MLIP_POOL_OUT_W] = u32(OW);
            w[MLIP_POOL_KH] = u32(l_.kh);
            w[MLIP_POOL_KW] = u32(l_.kw);
            w[MLIP_POOL_STRIDE_H] = u32(l_.sh);
            w[MLIP_POOL_STRIDE_W] = u32(l_.sw);
            w[MLIP_POOL_PAD_TOP] = u32(ir0 - top);
            w[MLIP_POOL_PAD_LEFT] = u32(l_.pl);
            w[MLIP_POOL_COUNT_INCLUDE_PAD] = l_.count_include_pad ? 1u : 0u;
            w[MLIP_POOL_PADDED_TOP] = static_cast<uint32_t>(static_cast<int32_t>(-l_.pt - ir0));
            w[MLIP_POOL_PADDED_BOTTOM] = static_cast<uint32_t>(static_cast<int32_t>(H + l_.pb - ir0));
            w[MLIP_POOL_PADDED_LEFT] = static_cast<uint32_t>(static_cast<int32_t>(-l_.pl));
            w[MLIP_POOL_PADDED_RIGHT] = static_cast<uint32_t>(static_cast<int32_t>(W + l_.pr));
          }
          if (cn == OC)
            dma(false, tile, binding(y), yb + p0 * OW * OC * 2, out_off, 1, (p1 - p0) * OW * OC * 2, 0, 0);
          else
            dma(false, tile, binding(y), yb + (p0 * OW * OC + cs) * 2, out_off, (p1 - p0) * OW, cn * 2, OC * 2, cn * 2);
        }
      }
    }
    }
  }

  void fc() {
    const RTensor& x = in();
    const RTensor& y = out();
    const int64_t K = x.image_elems(), O = y.c, N = x.n;
    const bool bias = l_.bias_offset >= 0;
    std::vector<std::pair<int64_t, int64_t>> parts = split_range(O, ctx_.num_tiles);
    plan_.split.how = "channels";
    plan_.split.ranges = parts;
    for (size_t t = 0; t < parts.size(); ++t) {
      const int tile = static_cast<int>(t);
      const int64_t c0 = parts[t].first, c1 = parts[t].second;
      const bool pin = pinned(tile);
      auto bytes = [&](int64_t occ, int64_t kc) {
        return a128(N * kc * 2) + (pin ? 0 : a128(occ * kc * 2) + (bias ? a128(occ * 4) : 0)) + a128(N * occ * 4) +
               a128(N * occ * 2);
      };
      int64_t occ = largest(c1 - c0, [&](int64_t v) { return bytes(v, K) <= ctx_.work_limit; });
      int64_t kc = K;
      if (occ == 0) {  // even one output needs the reduction split into passes
        if (pin) fail("internal: pinned dense weights need the whole reduction in one pass");
        occ = 1;
        kc = largest(K, [&](int64_t v) { return bytes(1, v) <= ctx_.work_limit; });
        if (kc == 0) fail("layer '{}' does not fit OCM", l_.name);
      }
      for (int64_t cs = c0; cs < c1; cs += occ) {
        const int64_t cn = std::min(occ, c1 - cs);
        Ocm ocm(ctx_.work_limit);
        const uint32_t in_off = ocm.take(N * kc * 2);
        const uint32_t w_off = pin ? 0 : ocm.take(cn * kc * 2);
        const uint32_t b_off = bias && !pin ? ocm.take(cn * 4) : MLIP_NO_OFFSET;
        const uint32_t acc_off = ocm.take(N * cn * 4);
        const uint32_t out_off = ocm.take(N * cn * 2);
        note_ocm(tile, ocm);
        if (bias && !pin) dma(true, tile, weights_binding(r_), l_.bias_offset + cs * 4, b_off, 1, cn * 4, 0, 0);
        for (int64_t k0 = 0; k0 < K; k0 += kc) {
          const int64_t kn = std::min(kc, K - k0);
          ++plan_.passes;
          dma(true, tile, binding(x), ddr_base(x) + k0 * 2, in_off, N, kn * 2, K * 2, kn * 2);
          if (!pin) dma(true, tile, weights_binding(r_), l_.weight_offset + (cs * K + k0) * 2, w_off, cn, kn * 2, K * 2, kn * 2);
          RCommand& c = cmd(MLIP_OP_FC, tile);
          uint32_t* w = c.cmd.w;
          w[MLIP_FC_IN] = in_off;
          w[MLIP_FC_WEIGHTS] = pin ? u32(pinned_->weight_rel[t] + (cs - c0) * K * 2) : w_off;
          w[MLIP_FC_BIAS] = bias ? (pin ? u32(pinned_->bias_rel[t] + (cs - c0) * 4) : b_off) : MLIP_NO_OFFSET;
          w[MLIP_FC_ACC] = acc_off;
          w[MLIP_FC_OUT] = out_off;
          w[MLIP_FC_N] = u32(N);
          w[MLIP_FC_K] = u32(kn);
          w[MLIP_FC_OUT_C] = u32(cn);
          w[MLIP_FC_FIRST] = k0 == 0;
          w[MLIP_FC_LAST] = k0 + kn >= K;
          set_act(w, MLIP_FC_ACT);
          if (pin) {
            c.pinned_words.push_back(MLIP_FC_WEIGHTS);
            if (bias) c.pinned_words.push_back(MLIP_FC_BIAS);
          }
        }
        dma(false, tile, binding(y), ddr_base(y) + cs * 2, out_off, N, cn * 2, O * 2, cn * 2);
      }
    }
  }

  void global_pool() {
    const RTensor& x = in();
    const RTensor& y = out();
    const int64_t HW = x.h * x.w, C = x.c;
    std::vector<std::pair<int64_t, int64_t>> parts = split_range(C, ctx_.num_tiles);
    plan_.split.how = "channels";
    plan_.split.ranges = parts;
    for (int64_t img = 0; img < x.n; ++img) {
    const int64_t xb = ddr_base(x) + img * HW * C * 2, yb = ddr_base(y) + img * C * 2;
    for (size_t t = 0; t < parts.size(); ++t) {
      const int tile = static_cast<int>(t);
      const int64_t c0 = parts[t].first, c1 = parts[t].second;
      int64_t cc = largest(c1 - c0, [&](int64_t v) { return a128(HW * v * 2) + a128(v * 2) <= ctx_.work_limit; });
      if (cc == 0) fail("layer '{}' does not fit OCM", l_.name);
      for (int64_t cs = c0; cs < c1; cs += cc) {
        const int64_t cn = std::min(cc, c1 - cs);
        Ocm ocm(ctx_.work_limit);
        const uint32_t in_off = ocm.take(HW * cn * 2), out_off = ocm.take(cn * 2);
        note_ocm(tile, ocm);
        ++plan_.passes;
        if (cn == C) dma(true, tile, binding(x), xb, in_off, 1, HW * C * 2, 0, 0);
        else dma(true, tile, binding(x), xb + cs * 2, in_off, HW, cn * 2, C * 2, cn * 2);
        RCommand& c = cmd(l_.kind == MLIP_LAYER_GLOBAL_AVGPOOL ? MLIP_OP_GLOBAL_AVGPOOL : MLIP_OP_GLOBAL_MAXPOOL, tile);
        c.cmd.w[MLIP_GPOOL_IN] = in_off;
        c.cmd.w[MLIP_GPOOL_OUT] = out_off;
        c.cmd.w[MLIP_GPOOL_HW] = u32(HW);
        c.cmd.w[MLIP_GPOOL_C] = u32(cn);
        dma(false, tile, binding(y), yb + cs * 2, out_off, 1, cn * 2, 0, 0);
      }
    }
    }
  }

  void add() {
    const RTensor& a = in(0);
    const RTensor& b = in(1);
    const RTensor& y = out();
    const int64_t E = y.elems();
    std::vector<std::pair<int64_t, int64_t>> parts = split_range(E, ctx_.num_tiles, 64);
    plan_.split.how = "elements";
    plan_.split.ranges = parts;
    int64_t chunk = largest(E, [&](int64_t v) { return 3 * a128(v * 2) <= ctx_.work_limit; });
    for (size_t t = 0; t < parts.size(); ++t) {
      const int tile = static_cast<int>(t);
      Ocm ocm(ctx_.work_limit);
      const int64_t n = std::min(chunk, parts[t].second - parts[t].first);
      const uint32_t a_off = ocm.take(n * 2), b_off = ocm.take(n * 2), o_off = ocm.take(n * 2);
      note_ocm(tile, ocm);
      for (int64_t e0 = parts[t].first; e0 < parts[t].second; e0 += n) {
        const int64_t en = std::min(n, parts[t].second - e0);
        ++plan_.passes;
        dma(true, tile, binding(a), ddr_base(a) + e0 * 2, a_off, 1, en * 2, 0, 0);
        dma(true, tile, binding(b), ddr_base(b) + e0 * 2, b_off, 1, en * 2, 0, 0);
        RCommand& c = cmd(MLIP_OP_ADD, tile);
        c.cmd.w[MLIP_ADD_A] = a_off;
        c.cmd.w[MLIP_ADD_B] = b_off;
        c.cmd.w[MLIP_ADD_OUT] = o_off;
        c.cmd.w[MLIP_ADD_COUNT] = u32(en);
        set_act(c.cmd.w, MLIP_ADD_ACT);
        dma(false, tile, binding(y), ddr_base(y) + e0 * 2, o_off, 1, en * 2, 0, 0);
      }
    }
  }

  // Concatenation on channels: every input's positions copied into its
  // channel range of the NHWC output (DMA only).
  void concat() {
    const RTensor& y = out();
    const int64_t P = y.n * y.h * y.w, C = y.c;  // NHWC: the images' positions follow each other
    std::vector<std::pair<int64_t, int64_t>> parts = split_range(P, ctx_.num_tiles);
    plan_.split.how = "positions";
    plan_.split.ranges = parts;
    int64_t choff = 0;
    for (size_t i = 0; i < l_.inputs.size(); ++i) {
      const RTensor& x = in(static_cast<int>(i));
      const int64_t Ci = x.c;
      int64_t pc = largest(P, [&](int64_t v) { return a128(v * Ci * 2) <= ctx_.work_limit; });
      if (pc == 0) fail("layer '{}' does not fit OCM", l_.name);
      for (size_t t = 0; t < parts.size(); ++t) {
        const int tile = static_cast<int>(t);
        Ocm ocm(ctx_.work_limit);
        const uint32_t off = ocm.take(std::min(pc, parts[t].second - parts[t].first) * Ci * 2);
        note_ocm(tile, ocm);
        for (int64_t p0 = parts[t].first; p0 < parts[t].second; p0 += pc) {
          const int64_t pn = std::min(pc, parts[t].second - p0);
          ++plan_.passes;
          dma(true, tile, binding(x), ddr_base(x) + p0 * Ci * 2, off, 1, pn * Ci * 2, 0, 0);
          dma(false, tile, binding(y), ddr_base(y) + (p0 * C + choff) * 2, off, pn, Ci * 2, C * 2, Ci * 2);
        }
      }
      choff += Ci;
    }
  }

  // Region borders: fp32 NCHW <-> fp16 NHWC, by rows (or by elements when
  // there is only one position).
  void convert(bool inward) {
    const RTensor& src = in();
    const RTensor& dst = out();
    const RTensor& planar = inward ? src : dst;
    const int64_t H = planar.h, W = planar.w, C = planar.c;
    if (H * W == 1) {  // [N, C]: the same element order in NCHW and NHWC
      const int64_t E = planar.elems();
      std::vector<std::pair<int64_t, int64_t>> parts = split_range(E, ctx_.num_tiles, 64);
      plan_.split.how = "elements";
      plan_.split.ranges = parts;
      int64_t chunk = largest(E, [&](int64_t v) { return a128(v * 4) + a128(v * 2) <= ctx_.work_limit; });
      for (size_t t = 0; t < parts.size(); ++t) {
        const int tile = static_cast<int>(t);
        Ocm ocm(ctx_.work_limit);
        const int64_t n = std::min(chunk, parts[t].second - parts[t].first);
        const uint32_t f32 = ocm.take(n * 4), f16 = ocm.take(n * 2);
        note_ocm(tile, ocm);
        for (int64_t e0 = parts[t].first; e0 < parts[t].second; e0 += n) {
          const int64_t en = std::min(n, parts[t].second - e0);
          ++plan_.passes;
          if (inward) dma(true, tile, binding(src), ddr_base(src) + e0 * 4, f32, 1, en * 4, 0, 0);
          else dma(true, tile, binding(src), ddr_base(src) + e0 * 2, f16, 1, en * 2, 0, 0);
          RCommand& c = cmd(MLIP_OP_CONVERT, tile);
          c.cmd.w[MLIP_CVT_SRC] = inward ? f32 : f16;
          c.cmd.w[MLIP_CVT_DST] = inward ? f16 : f32;
          c.cmd.w[MLIP_CVT_COUNT] = u32(en);
          c.cmd.w[MLIP_CVT_MODE] = inward ? MLIP_CVT_F32_TO_F16 : MLIP_CVT_F16_TO_F32;
          if (inward) dma(false, tile, binding(dst), ddr_base(dst) + e0 * 2, f16, 1, en * 2, 0, 0);
          else dma(false, tile, binding(dst), ddr_base(dst) + e0 * 4, f32, 1, en * 4, 0, 0);
        }
      }
      return;
    }
    std::vector<std::pair<int64_t, int64_t>> parts = split_range(H, ctx_.num_tiles);
    plan_.split.how = "rows";
    plan_.split.ranges = parts;
    auto bytes = [&](int64_t R, int64_t cc) { return a128(cc * R * W * 4) + 2 * a128(cc * R * W * 2); };
    for (int64_t img = 0; img < planar.n; ++img) {
    const int64_t pb = img * C * H * W * 4, hb = img * H * W * C * 2;  // image offsets, planar and NHWC
    const int64_t src_b = ddr_base(src) + (inward ? pb : hb), dst_b = ddr_base(dst) + (inward ? hb : pb);
    for (size_t t = 0; t < parts.size(); ++t) {
      const int tile = static_cast<int>(t);
      const int64_t r0 = parts[t].first, r1 = parts[t].second;
      int64_t cc = largest(C, [&](int64_t v) { return bytes(1, v) <= ctx_.work_limit; });
      if (cc == 0) fail("region border tensor '{}' is too wide for OCM", planar.name);
      int64_t R = largest(r1 - r0, [&](int64_t v) { return bytes(v, cc) <= ctx_.work_limit; });
      Ocm ocm(ctx_.work_limit);
      const uint32_t f32 = ocm.take(cc * R * W * 4), f16 = ocm.take(cc * R * W * 2), hwc = ocm.take(cc * R * W * 2);
      note_ocm(tile, ocm);
      for (int64_t cs = 0; cs < C; cs += cc) {
        const int64_t cn = std::min(cc, C - cs);
        for (int64_t p0 = r0; p0 < r1; p0 += R) {
          const int64_t rn = std::min(R, r1 - p0);
          const int64_t n = rn * W;  // positions in this pass
          ++plan_.passes;
          RCommand* c = nullptr;
          if (inward) {
            dma(true, tile, binding(src), src_b + (cs * H * W + p0 * W) * 4, f32, cn, n * 4, H * W * 4, n * 4);
            c = &cmd(MLIP_OP_CONVERT, tile);
            c->cmd.w[MLIP_CVT_SRC] = f32;
            c->cmd.w[MLIP_CVT_DST] = f16;
            c->cmd.w[MLIP_CVT_COUNT] = u32(cn * n);
            c->cmd.w[MLIP_CVT_MODE] = MLIP_CVT_F32_TO_F16;
            c = &cmd(MLIP_OP_LAYOUT, tile);
            c->cmd.w[MLIP_LAY_SRC] = f16;
            c->cmd.w[MLIP_LAY_DST] = hwc;
            c->cmd.w[MLIP_LAY_OUTER] = 1;
            c->cmd.w[MLIP_LAY_A] = u32(cn);
            c->cmd.w[MLIP_LAY_B] = u32(n);
            c->cmd.w[MLIP_LAY_ELEM] = 2;
            if (cn == C) dma(false, tile, binding(dst), dst_b + p0 * W * C * 2, hwc, 1, n * C * 2, 0, 0);
            else dma(false, tile, binding(dst), dst_b + (p0 * W * C + cs) * 2, hwc, n, cn * 2, C * 2, cn * 2);
          } else {
            if (cn == C) dma(true, tile, binding(src), src_b + p0 * W * C * 2, hwc, 1, n * C * 2, 0, 0);
            else dma(true, tile, binding(src), src_b + (p0 * W * C + cs) * 2, hwc, n, cn * 2, C * 2, cn * 2);
            c = &cmd(MLIP_OP_LAYOUT, tile);
            c->cmd.w[MLIP_LAY_SRC] = hwc;
            c->cmd.w[MLIP_LAY_DST] = f16;
            c->cmd.w[MLIP_LAY_OUTER] = 1;
            c->cmd.w[MLIP_LAY_A] = u32(n);
            c->cmd.w[MLIP_LAY_B] = u32(cn);
            c->cmd.w[MLIP_LAY_ELEM] = 2;
            c = &cmd(MLIP_OP_CONVERT, tile);
            c->cmd.w[MLIP_CVT_SRC] = f16;
            c->cmd.w[MLIP_CVT_DST] = f32;
            c->cmd.w[MLIP_CVT_COUNT] = u32(cn * n);
            c->cmd.w[MLIP_CVT_MODE] = MLIP_CVT_F16_TO_F32;
            dma(false, tile, binding(dst), dst_b + (cs * H * W + p0 * W) * 4, f32, cn, n * 4, H * W * 4, n * 4);
          }
        }
      }
    }
    }
  }

  const PlanContext& ctx_;
  const LoweredRegion& r_;
  const RLayer& l_;
  int index_;
  const PinnedWeights* pinned_;
  LayerPlan plan_;
};

std::vector<std::string> candidate_splits(const RLayer& l, const LoweredRegion& r) {
  if (l.kind == MLIP_LAYER_CONV2D && r.tensors[l.output].c > 1) return {"rows", "channels"};
  if (l.kind == MLIP_LAYER_CONV2D || l.kind == MLIP_LAYER_MAXPOOL || l.kind == MLIP_LAYER_AVGPOOL) return {"rows"};
  return {""};
}

}  // namespace

uint32_t scratch_binding(const LoweredRegion& r) { return static_cast<uint32_t>(r.inputs.size() + r.outputs.size()); }
uint32_t weights_binding(const LoweredRegion& r) { return scratch_binding(r) + 1; }

LayerPlan plan_layer(const PlanContext& ctx, int index, const std::string& split, const PinnedWeights* pinned) {
  const RLayer& l = ctx.region.layers[static_cast<size_t>(index)];
  if (!split.empty()) return Builder(ctx, index, pinned).build(split);
  LayerPlan best;
  bool have = false;
  for (const std::string& s : candidate_splits(l, ctx.region)) {
    LayerPlan p = Builder(ctx, index, pinned).build(s);
    if (!have || p.est_cycles < best.est_cycles) {
      best = std::move(p);
      have = true;
    }
  }
  return best;
}

WeightSlice weight_slice(const PlanContext& ctx, int index, const LayerPlan& plan, int tile) {
  const RLayer& l = ctx.region.layers[static_cast<size_t>(index)];
  WeightSlice s;
  if (l.weight_offset < 0 || static_cast<size_t>(tile) >= plan.split.ranges.size()) return s;
  const RTensor& y = ctx.region.tensors[l.output];
  const int64_t oc = y.c;
  const int64_t per = l.weight_bytes / oc;  // bytes of one output channel's weights
  int64_t c0 = 0, c1 = oc;
  if (plan.split.how == "channels") {
    c0 = plan.split.ranges[tile].first;
    c1 = plan.split.ranges[tile].second;
  }
  s.w_off = l.weight_offset + c0 * per;
  s.w_bytes = (c1 - c0) * per;
  if (l.bias_offset >= 0) {
    s.b_off = l.bias_offset + c0 * 4;
    s.b_bytes = (c1 - c0) * 4;
  }
  return s;
}

}  // namespace mlipc::mlip
