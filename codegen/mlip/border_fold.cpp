#include "mlip/border_fold.h"

#include <algorithm>
#include <optional>

#include "mlip/cycles.h"

namespace mlipc::mlip {

namespace {

// A DMA_OUT of the NHWC tensor as a block of `npos` consecutive positions
// (from `pos` of image `img`) and `cn` channels (from `ch`), [npos][cn]
// contiguous at `ocm` in OCM.
struct Block {
  int64_t img = 0, pos = 0, npos = 0, ch = 0, cn = 0;
  uint32_t ocm = 0;
};

// DMA_OUT `a` of the bytes of `t` (at offset `rel` in them) as a Block, or
// nullopt when it is not one.
std::optional<Block> block_of(const mlip_dma_args& a, const RTensor& t, int64_t rel) {
  const int64_t eb = t.elem_bytes(), C = t.c, P = t.h * t.w;
  const int64_t rows = a.rows, row = a.row_bytes;
  if (rel % eb != 0 || row % eb != 0 || (rows > 1 && a.ocm_stride != a.row_bytes)) return std::nullopt;
  Block b;
  const int64_t e = rel / eb;
  b.img = e / (P * C);
  b.pos = e % (P * C) / C;
  b.ch = e % C;
  b.ocm = a.ocm_offset;
  if (rows == 1 || a.ddr_stride == a.row_bytes) {  // contiguous bytes: whole positions
    const int64_t bytes = rows * row;
    if (b.ch != 0 || bytes % (C * eb) != 0) return std::nullopt;
    b.npos = bytes / (C * eb);
    b.cn = C;
  } else if (a.ddr_stride == static_cast<uint32_t>(C * eb)) {  // one position per row, a run of channels
    b.npos = rows;
    b.cn = row / eb;
    if (b.ch + b.cn > C) return std::nullopt;
  } else {
    return std::nullopt;
  }
  if (b.npos == 0 || b.pos + b.npos > P) return std::nullopt;
  return b;
}

// The writer of tensor `src` when it is the only layer that writes it and
// `reader` the only one that reads it (no view shares its bytes), or -1.
int sole_writer(const LoweredRegion& r, int src, int reader) {
  for (const RTensor& t : r.tensors)
    if (t.alias_of == src) return -1;
  if (r.tensors[static_cast<size_t>(src)].alias_of >= 0) return -1;
  int writer = -1;
  for (int i = 0; i < static_cast<int>(r.layers.size()); ++i) {
    const RLayer& l = r.layers[static_cast<size_t>(i)];
    if (i != reader && std::find(l.inputs.begin(), l.inputs.end(), src) != l.inputs.end()) return -1;
    if (l.output == src) {
      if (writer >= 0) return -1;
      writer = i;
    }
  }
  return writer;
}

// Layer `w`'s plan with its DMA_OUTs of `src` rewritten as LAYOUT + DMA_OUT
// into the output tensor `dst`, or nullopt when one of them is not a block
// or the transposed blocks do not fit the working area.
std::optional<LayerPlan> folded(const PlanContext& ctx, const LayerPlan& plan, int w, int src, int dst) {
  const LoweredRegion& r = ctx.region;
  const RTensor& s = r.tensors[static_cast<size_t>(src)];
  const RTensor& d = r.tensors[static_cast<size_t>(dst)];
  const int64_t eb = s.elem_bytes(), C = s.c, P = s.h * s.w;
  const uint32_t scratch = scratch_binding(r);
  // Each tile's transposed block goes after the writer's own buffers.
  std::vector<uint32_t> tmp(plan.ocm_used.size());
  for (size_t t = 0; t < tmp.size(); ++t) tmp[t] = static_cast<uint32_t>(ocm_round(plan.ocm_used[t]));
  LayerPlan out = plan;
  out.commands.clear();
  for (const RCommand& c : plan.commands) {
    mlip_decoded_cmd dc;
    mlip_cmd_decode(&c.cmd, &dc);
    if (c.cmd.opcode != MLIP_OP_DMA_OUT || dc.u.dma.binding != scratch || dc.u.dma.ddr_offset < s.offset ||
        dc.u.dma.ddr_offset >= s.offset + s.bytes()) {
      out.commands.push_back(c);
      continue;
    }
    const std::optional<Block> b = block_of(dc.u.dma, s, dc.u.dma.ddr_offset - s.offset);
    if (!b) return std::nullopt;
    const int tile = c.cmd.tile;
    const uint64_t need = static_cast<uint64_t>(tmp[static_cast<size_t>(tile)]) + ocm_round(b->npos * b->cn * eb);
    if (need > ctx.work_limit) return std::nullopt;
    out.ocm_used[static_cast<size_t>(tile)] = std::max(out.ocm_used[static_cast<size_t>(tile)], static_cast<uint32_t>(need));
    uint32_t from = b->ocm;
    if (b->npos > 1 && b->cn > 1) {  // [npos][cn] -> [cn][npos]; a single row or column is its own transpose
      mlip_layout_args l{};
      l.src = b->ocm;
      l.dst = tmp[static_cast<size_t>(tile)];
      l.outer = 1;
      l.a = u32(b->npos);
      l.b = u32(b->cn);
      l.elem_bytes = u32(eb);
      out.commands.push_back(make_command(MLIP_OP_LAYOUT, tile, w, l));
      from = l.dst;
    }
    // Channel ch + k of the block is row k: positions pos .. pos + npos of that plane.
    LayerPlanner p(ctx, w, plan.split.how, nullptr);
    const int64_t at = p.ddr_base(d) + ((b->img * C + b->ch) * P + b->pos) * eb;
    p.dma_out(tile, p.binding(d), at, from, b->cn, b->npos * eb, P * eb, b->npos * eb);
    out.commands.push_back(p.finish().commands.front());  // the DMA_OUT (then the finishing barrier)
  }
  out.est_cycles = layer_cycles(out.commands, ctx.target);
  return out;
}

}  // namespace

void fold_border_transposes(const PlanContext& ctx, std::vector<LayerPlan>& plans) {
  const LoweredRegion& r = ctx.region;
  for (int i = 0; i < static_cast<int>(r.layers.size()); ++i) {
    const RLayer& l = r.layers[static_cast<size_t>(i)];
    if (l.kind != MLIP_LAYER_CONVERT_OUT || l.inputs.size() != 1) continue;
    const int src = l.inputs[0];
    const RTensor& s = r.tensors[static_cast<size_t>(src)];
    const RTensor& d = r.tensors[static_cast<size_t>(l.output)];
    // int8 only: an fp16 region's output DMA converts, and its borders are
    // fp16 commands' business. A transposition only: NHWC of more than one
    // position into the planar output.
    if (!s.q8() || s.rowmajor || d.rowmajor || s.h * s.w == 1 || s.home != RTensor::Scratch) continue;
    const int w = sole_writer(r, src, i);
    if (w < 0) continue;
    std::optional<LayerPlan> f = folded(ctx, plans[static_cast<size_t>(w)], w, src, l.output);
    if (!f || f->est_cycles >= plans[static_cast<size_t>(w)].est_cycles + plans[static_cast<size_t>(i)].est_cycles)
      continue;
    plans[static_cast<size_t>(w)] = std::move(*f);
    LayerPlan& c = plans[static_cast<size_t>(i)];
    c.commands.erase(c.commands.begin(), c.commands.end() - 1);  // its barrier stays
    c.est_cycles = layer_cycles(c.commands, ctx.target);
    c.passes = 0;
    std::fill(c.ocm_used.begin(), c.ocm_used.end(), 0u);
  }
}

}  // namespace mlipc::mlip
