#include "mlip/encoder.h"

#include <algorithm>
#include <cstring>

#include "mlip/region.h"
#include "support/error.h"

namespace mlipc::mlip {

namespace {

class Writer {
 public:
  size_t size() const { return bytes_.size(); }
  void align(size_t a) {
    while (bytes_.size() % a) bytes_.push_back(0);
  }
  template <class T>
  void put(const T& v) {
    const auto* p = reinterpret_cast<const uint8_t*>(&v);
    bytes_.insert(bytes_.end(), p, p + sizeof(T));
  }
  void put_bytes(const std::vector<uint8_t>& b) { bytes_.insert(bytes_.end(), b.begin(), b.end()); }
  std::vector<uint8_t>& bytes() { return bytes_; }

 private:
  std::vector<uint8_t> bytes_;
};

uint32_t size_u32(size_t v) {
  if (v > 0xFFFFFFFFu) fail("MLIP command buffer larger than 4 GiB");
  return static_cast<uint32_t>(v);
}

}  // namespace

std::vector<uint8_t> encode(const EncodeInput& in) {
  const LoweredRegion& r = *in.region;
  std::string strings(1, '\0');
  auto intern = [&](const std::string& s) {
    uint32_t off = size_u32(strings.size());
    strings += s;
    strings.push_back('\0');
    return off;
  };

  Writer w;
  w.bytes().resize(MLIP_HEADER_SIZE, 0);
  mlip_header h{};
  auto begin = [&](int sec, size_t count) {
    w.align(16);
    h.sections[sec].offset = size_u32(w.size());
    h.sections[sec].count = size_u32(count);
  };
  auto end = [&](int sec) { h.sections[sec].size = size_u32(w.size() - h.sections[sec].offset); };

  // BINDINGS: inputs, outputs, scratch, weights.
  begin(MLIP_SEC_BINDINGS, r.inputs.size() + r.outputs.size() + 2);
  for (int t : r.inputs) w.put(mlip_binding{MLIP_BIND_INPUT, size_u32(r.tensors[t].index), size_u32(r.tensors[t].bytes()), 0});
  for (int t : r.outputs) w.put(mlip_binding{MLIP_BIND_OUTPUT, size_u32(r.tensors[t].index), size_u32(r.tensors[t].bytes()), 0});
  w.put(mlip_binding{MLIP_BIND_SCRATCH, 0, in.scratch_size, 0});
  w.put(mlip_binding{MLIP_BIND_WEIGHTS, 0, size_u32(r.weights.size()), 0});
  end(MLIP_SEC_BINDINGS);

  begin(MLIP_SEC_LAYERS, in.layers.size());
  for (const EncodedLayer& l : in.layers) {
    mlip_layer rec{};
    rec.kind = l.kind;
    rec.name = intern(l.name);
    rec.macs_lo = static_cast<uint32_t>(l.macs);
    rec.macs_hi = static_cast<uint32_t>(l.macs >> 32);
    rec.est_cycles = size_u32(l.est_cycles);
    w.put(rec);
  }
  end(MLIP_SEC_LAYERS);

  begin(MLIP_SEC_INIT, in.init.size());
  for (const mlip_cmd& c : in.init) w.put(c);
  end(MLIP_SEC_INIT);
  begin(MLIP_SEC_MAIN, in.main.size());
  for (const mlip_cmd& c : in.main) w.put(c);
  end(MLIP_SEC_MAIN);
  begin(MLIP_SEC_FINISH, 0);
  end(MLIP_SEC_FINISH);

  begin(MLIP_SEC_IO, r.inputs.size() + r.outputs.size());
  for (const std::vector<int>* list : {&r.inputs, &r.outputs})
    for (int t : *list) {
      const RTensor& x = r.tensors[t];
      mlip_io_desc d{};
      d.name = intern(x.name);
      d.type = x.dtype == MLIP_DT_INT8    ? MLIP_IO_INT8
               : x.dtype == MLIP_DT_UINT8 ? MLIP_IO_UINT8
               : x.dtype == MLIP_DT_INT16 ? MLIP_IO_INT16
                                          : MLIP_IO_FP32;
      d.layout = MLIP_LAYOUT_NCHW;
      if (x.h * x.w == 1 && !x.flat) {
        d.ndim = 2;
        d.shape[0] = size_u32(x.n);
        d.shape[1] = size_u32(x.c);
      } else {
        d.ndim = 4;
        d.shape[0] = size_u32(x.n);
        d.shape[1] = size_u32(x.c);
        d.shape[2] = size_u32(x.h);
        d.shape[3] = size_u32(x.w);
      }
      d.size = size_u32(x.bytes());
      float one = 1.0f;
      std::memcpy(&d.qscale_bits, &one, sizeof one);
      w.put(d);
    }
  end(MLIP_SEC_IO);

  begin(MLIP_SEC_WEIGHTS, r.weights.size());
  w.put_bytes(r.weights);
  end(MLIP_SEC_WEIGHTS);
  h.sections[MLIP_SEC_WEIGHTS].count = size_u32(r.weights.size());

  begin(MLIP_SEC_STRINGS, strings.size());
  w.put_bytes(std::vector<uint8_t>(strings.begin(), strings.end()));
  end(MLIP_SEC_STRINGS);
  w.align(16);

  std::memcpy(h.magic, MLIP_MAGIC, 4);
  h.version = MLIP_FORMAT_VERSION;
  h.target_arch = MLIP_TARGET_ARCH;
  h.mcpu = in.target->mcpu_code;
  h.header_size = MLIP_HEADER_SIZE;
  h.total_size = size_u32(w.size());
  h.num_tiles = size_u32(in.num_tiles);
  h.ocm_size = in.ocm_size;
  h.ocm_pinned_offset = in.pinned_offset;
  h.quantize = std::any_of(r.tensors.begin(), r.tensors.end(), [](const RTensor& t) { return t.q8(); })
                   ? MLIP_QUANT_INT8
                   : MLIP_QUANT_FP16;
  h.flags = (in.pinned ? uint32_t{MLIP_FLAG_WB_PIN_OCM} : 0u) | (in.hardware ? uint32_t{MLIP_FLAG_HW} : 0u);
  h.num_inputs = size_u32(r.inputs.size());
  h.num_outputs = size_u32(r.outputs.size());
  h.macs_per_cycle = in.target->macs_per_cycle;
  h.dma_bytes_per_cycle = in.target->dma_bytes_per_cycle;
  h.eltwise_per_cycle = in.target->eltwise_per_cycle;
  h.cmd_overhead_cycles = in.target->cmd_overhead_cycles;
  h.clock_mhz = in.target->clock_mhz;
  std::strncpy(reinterpret_cast<char*>(h.name), r.name.c_str(), sizeof h.name - 1);
  std::vector<uint8_t>& bytes = w.bytes();
  h.payload_crc32c = mlip_crc32c(0, bytes.data() + MLIP_HEADER_SIZE, bytes.size() - MLIP_HEADER_SIZE);
  std::memcpy(bytes.data(), &h, sizeof h);
  h.header_crc32c = mlip_crc32c(0, bytes.data(), offsetof(mlip_header, header_crc32c));
  std::memcpy(bytes.data(), &h, sizeof h);
  return bytes;
}

}  // namespace mlipc::mlip
