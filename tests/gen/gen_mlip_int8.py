"""int8 versions of issue 30's networks (item 9): three of the torch_mlip_*
models of tests/data quantized two ways, stored as int8_<source>: not
quant_*, whose suites assume all-integer models (an arena a quarter of
fp32's, onnxruntime's bits with --requant ort) where these keep float
operators between their pairs; tests/e2e/models.cpp's int8_network_cases()
gives them to QuantizedMlip (bit-identical to the "c" build on every tile
count and weight placement, within an output step of onnxruntime) and
Quantized, and MlipInt8Networks checks the issue's acceptance with
`--target "mrvl, c"` and no other flag.

- int8_torch_mlip_tcn, int8_torch_mlip_convt_decoder: mlipc's own
  post-training quantization, `mlipc compile --quantize int8 --calibration
  calib.npz --emit-qdq model.onnx` (build/bin/mlipc: build it first), minmax
  calibration on 8 standard-normal inputs (mlipc writes opset 18; stored at
  17, ReduceMean's axes input back to its attribute, for Debian's onnx);
- int8_torch_mlip_kws_opset13: a small keyword transformer exported at
  opset 13 (LayerNorm decomposed), in the same onnxruntime layout: the
  variance quantized, the epsilon's Add a QLinearAdd, the scale a
  QLinearMul of one value per column (the 8-bit NORM's mode 1);
- int8_torch_mlip_kws_transformer: the layout onnxruntime's
  quantize_static writes (gen_quantized.py's Quantizer: Q/DQ pairs around
  every quantizable operator, weights int8 per output column, int32 biases
  behind a DequantizeLinear, activations int8 per tensor), calibrated on the
  same kind of inputs after onnxruntime's basic optimizations; MatMul,
  Gemm, Add, Mul, Reshape and Transpose get Q/DQ pairs (a Reshape's and a
  Transpose's output keeps its input's), LayerNormalization,
  Softmax, Erf, Div, Pow and ReduceMean stay float between them (as
  onnxruntime's quantizer leaves the ones its registry lacks).

- int8_mlip_rnn_family: issue 30 item 8's recurrent layers of a quantized
  model, small (onnx helper API, time-major): Linear, a forward LSTM (bias,
  non-zero constant initial_h and initial_c), a reverse GRU
  (linear_before_reset 0), a bidirectional GRU (linear_before_reset 1, no
  bias, a constant initial_h), a bidirectional LSTM, Linear; between them
  Squeeze, Transpose and Reshape as torch exports them. In the layout
  onnxruntime's quantize_static writes: the recurrent nodes stay float
  between a DequantizeLinear and a QuantizeLinear (onnxruntime's QDQ
  quantizer has no LSTM or GRU), MatMul, Add, Squeeze, Transpose and
  Reshape get Q/DQ pairs (the moves keep their input's).

The test input is a ninth standard-normal draw; outputs by onnxruntime-node
1.30 (one thread)."""
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import gen_quantized
from gen_quantized import Quantizer, calibrate, preprocess
from refs import MODELS, ROOT, graph_inputs, save_case

MLIPC = os.path.join(ROOT, "build", "bin", "mlipc")


def draws(model, rng, count):
    inp = graph_inputs(model)[0]
    shape = [d.dim_value for d in inp.type.tensor_type.shape.dim]
    return inp.name, [rng.standard_normal(shape).astype(np.float32) for _ in range(count)]


def to_opset17(m):
    """mlipc writes opset 18; Debian's onnx (1.12) checks up to 17. The only opset-18 form these models
    take is ReduceMean's axes as an input: back to the attribute (the same operator)."""
    consts = {i.name: onnx.numpy_helper.to_array(i) for i in m.graph.initializer}
    for n in m.graph.node:
        if n.op_type == "ReduceMean" and len(n.input) == 2:
            n.attribute.append(onnx.helper.make_attribute("axes", [int(a) for a in consts[n.input[1]]]))
            del n.input[1]
    used = {i for n in m.graph.node for i in n.input}
    for i in list(m.graph.initializer):
        if i.name not in used:
            m.graph.initializer.remove(i)
    for o in m.opset_import:
        if o.domain in ("", "ai.onnx"):
            o.version = 17
    return m


def mlipc_ptq(name, rng):
    src = os.path.join(MODELS, name, "model.onnx")
    m = onnx.load(src)
    x, samples = draws(m, rng, 9)
    tmp = tempfile.mkdtemp()
    calib, qdq = os.path.join(tmp, "calib.npz"), os.path.join(tmp, "qdq.onnx")
    np.savez(calib, **{x: np.stack(samples[:8])})
    subprocess.run([MLIPC, "compile", src, "--target", "c", "--quantize", "int8", "--calibration", calib,
                    "--emit-qdq", qdq, "-o", os.path.join(tmp, "m.tar")], check=True, stdout=subprocess.DEVNULL)
    readme = f"""{name} (tests/data/models/{name}) quantized by mlipc's own post-training quantization
(`mlipc compile --quantize int8 --calibration --emit-qdq`, minmax on 8 standard-normal inputs), written
by tests/gen/gen_mlip_int8.py (at opset 17: ReduceMean's axes as its attribute); the test input is a ninth. Outputs by onnxruntime-node 1.30 (one thread).
Form: QDQ (QuantizeLinear/DequantizeLinear pairs)."""
    save_case(f"int8_{name}", to_opset17(onnx.load(qdq)), {x: samples[8]}, readme=readme)


class SharedConstQuantizer(Quantizer):
    """A constant read by several nodes (the attention scale of both heads' Muls) quantized once."""

    def quantize_const(self, name):
        done = getattr(self, "const_dq", {})
        self.const_dq = done
        if name not in done:
            done[name] = super().quantize_const(name)
        return done[name]


def kws_opset13():
    """A small keyword transformer (8 frames, 16 wide, 1 block of 4 heads) exported at opset 13, where
    torch writes LayerNorm decomposed (ReduceMean, Sub, Pow, ReduceMean, Add, Sqrt, Div, Mul, Add)."""
    import torch
    from gen_mlip_transformers import KwsTransformer
    from refs import export_torch
    torch.manual_seed(3004)
    return export_torch(KwsTransformer(frames=8, d=16, depth=1, classes=4), (torch.randn(1, 8, 10),), 13,
                        ["frames"], ["logits"])


def ort_layout(name, rng, ops, model=None, source=None):
    # onnxruntime's quantizer gives a Transpose its input's scale and zero point, as a Reshape.
    gen_quantized.SHARED_PARAMS.add("Transpose")
    m = preprocess(model() if model else onnx.load(os.path.join(MODELS, name, "model.onnx")))
    x, samples = draws(m, rng, 9)
    qdq = SharedConstQuantizer(m, calibrate(m, [{x: s} for s in samples[:8]]), TensorProto.INT8, ops).run()
    qdq.producer_name = "mlipc tests/gen/gen_mlip_int8.py"
    readme = f"""{source or f"{name} (tests/data/models/{name})"} quantized in the layout onnxruntime's quantize_static
writes, by tests/gen/gen_mlip_int8.py (gen_quantized.py's Quantizer): int8 weights (symmetric, per
output column), int32 biases, int8 activations (per tensor, asymmetric) around {", ".join(sorted(ops))};
ranges from 8 standard-normal inputs after onnxruntime's basic optimizations; the test input is a ninth.
Outputs by onnxruntime-node 1.30 (one thread).
Form: QDQ (QuantizeLinear/DequantizeLinear pairs)."""
    save_case(f"int8_{name}", qdq, {x: samples[8]}, readme=readme)


def rnn_family(rng):
    """The float model of int8_mlip_rnn_family: x [T, B, I] time-major."""
    T, B, I = 7, 2, 6
    inits, nodes = [], []

    def const(name, a):
        inits.append(numpy_helper.from_array(np.asarray(a, np.float32) if a.dtype != np.int64 else a, name))
        return name

    def w(name, *shape, scale=0.5):
        return const(name, (rng.standard_normal(shape) * scale).astype(np.float32))

    def rnn(op, x, y, dirs, hidden, inp, bias=True, h0=False, c0=False, **attrs):
        g = 4 if op == "LSTM" else 3
        ins = [x, w(y + "_W", dirs, g * hidden, inp), w(y + "_R", dirs, g * hidden, hidden)]
        ins.append(w(y + "_B", dirs, 2 * g * hidden, scale=0.2) if bias else "")
        ins.append("")  # sequence_lens
        ins.append(w(y + "_h0", dirs, B, hidden) if h0 else "")
        if op == "LSTM":
            ins.append(w(y + "_c0", dirs, B, hidden) if c0 else "")
        while ins[-1] == "":
            ins.pop()
        nodes.append(helper.make_node(op, ins, [y + "_Y"], y, hidden_size=hidden, **attrs))
        return y + "_Y"

    def squeeze(x, y):
        nodes.append(helper.make_node("Squeeze", [x, const(y + "_axes", np.array([1], np.int64))], [y], y))
        return y

    def merge(x, y, hidden):
        """[T, 2, B, H] -> [T, B, 2 * H], as torch exports a bidirectional output."""
        nodes.append(helper.make_node("Transpose", [x], [y + "_t"], y + "_t", perm=[0, 2, 1, 3]))
        nodes.append(helper.make_node("Reshape", [y + "_t", const(y + "_shape", np.array([T, B, 2 * hidden], np.int64))],
                                      [y], y))
        return y

    def linear(x, y, k, n):
        nodes.append(helper.make_node("MatMul", [x, w(y + "_w", k, n)], [y + "_mm"], y + "_mm"))
        nodes.append(helper.make_node("Add", [y + "_mm", w(y + "_b", n, scale=0.2)], [y], y))
        return y

    a = linear("x", "proj", I, 6)
    a = squeeze(rnn("LSTM", a, "lstm_fwd", 1, 5, 6, h0=True, c0=True), "sq1")
    a = squeeze(rnn("GRU", a, "gru_rev", 1, 4, 5, direction="reverse"), "sq2")
    a = merge(rnn("GRU", a, "gru_bi", 2, 3, 4, bias=False, h0=True, direction="bidirectional", linear_before_reset=1),
              "m1", 3)
    a = merge(rnn("LSTM", a, "lstm_bi", 2, 4, 6, direction="bidirectional"), "m2", 4)
    linear(a, "y", 8, 3)
    graph = helper.make_graph(nodes, "int8_mlip_rnn_family",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [T, B, I])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [T, B, 3])], inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="mlipc tests/gen")
    m.ir_version = 8
    return m


def rnn_family_case(rng):
    # onnxruntime's quantizer gives a Squeeze and a Transpose their input's scale and zero point.
    gen_quantized.SHARED_PARAMS.update({"Transpose", "Squeeze"})
    gen_quantized.DATA_INPUT0_ONLY.add("Squeeze")
    m = rnn_family(rng)
    samples = [rng.standard_normal((7, 2, 6)).astype(np.float32) for _ in range(9)]
    ops = {"MatMul", "Add", "Squeeze", "Transpose", "Reshape"}
    qdq = Quantizer(m, calibrate(m, [{"x": s} for s in samples[:8]]), TensorProto.INT8, ops).run()
    qdq.producer_name = "mlipc tests/gen/gen_mlip_int8.py"
    readme = """A small quantized recurrent network (issue 30 item 8), written by tests/gen/gen_mlip_int8.py with
the onnx helper API: x [7, 2, 6] time-major, Linear, a forward LSTM (hidden 5, bias, constant non-zero
initial_h and initial_c), a reverse GRU (hidden 4, linear_before_reset 0), a bidirectional GRU (hidden 3,
linear_before_reset 1, no bias, a constant initial_h), a bidirectional LSTM (hidden 4), Linear; Squeeze,
Transpose and Reshape between them as torch exports them. Quantized in the layout onnxruntime's
quantize_static writes (gen_quantized.py's Quantizer): the LSTM and GRU nodes stay float between a
DequantizeLinear and a QuantizeLinear; int8 weights per output column for MatMul, int8 activations per
tensor (Squeeze, Transpose, Reshape keep their input's); ranges from 8 standard-normal inputs; the test
input is a ninth. Outputs by onnxruntime-node 1.30 (one thread).
Form: QDQ (QuantizeLinear/DequantizeLinear pairs)."""
    save_case("int8_mlip_rnn_family", qdq, {"x": samples[8]}, readme=readme)


ORT_OPS = {"MatMul", "Gemm", "Add", "Mul", "Reshape", "Transpose"}


def main():
    # Each model draws from its own generator, so a model added later changes no other.
    cases = [("torch_mlip_tcn", 3001, mlipc_ptq, None),
             ("torch_mlip_convt_decoder", 3002, mlipc_ptq, None),
             ("torch_mlip_kws_transformer", 3003, ort_layout, ORT_OPS)]
    only = set(sys.argv[1:])
    if not only or "mlip_rnn_family" in only:
        rnn_family_case(np.random.default_rng(3004))
    for name, seed, how, ops in cases:
        if only and name not in only:
            continue
        rng = np.random.default_rng(seed)
        if ops is None:
            how(name, rng)
        else:
            how(name, rng, ops)
    # The opset-13 decomposed LayerNorm in onnxruntime's layout (its variance quantized, the epsilon a
    # QLinearAdd, the scale a QLinearMul per column): the 8-bit NORM's mode 1.
    if not only or "torch_mlip_kws_opset13" in only:
        ort_layout("torch_mlip_kws_opset13", np.random.default_rng(3004), ORT_OPS, kws_opset13,
                   "a small keyword transformer (8 frames, 16 wide, 1 block of 4 heads, opset 13: LayerNorm "
                   "decomposed; tests/gen/gen_mlip_int8.py's kws_opset13)")


if __name__ == "__main__":
    main()
