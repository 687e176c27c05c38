"""A small QDQ model with int16 activations (16x8: int16
QuantizeLinear/DequantizeLinear, int8 weights per output channel, float
biases) and onnxruntime-node's outputs: tests/data/models/q16_qdq_cnn (not
quant_*: the int8 model suites, MLIP ones among them, take those).

Conv 3x3 (pads 1) -> Relu -> MaxPool 2x2 -> depthwise Conv 3x3 (pads 1) ->
Relu -> Flatten -> Gemm (transB) -> output, on a batch of 4. Every
activation is int16, symmetric: scale max|x| / 32767 over 8 calibration
inputs (a float run of the same model through onnxruntime, its intermediate
tensors as outputs), zero point 0; Relu, MaxPool and Flatten keep their
input's scale. The biases stay float constants (onnxruntime adds them in float;
mlipc's fold_qdq makes them int64 at x_scale * w_scale).

ONNX has int16 QuantizeLinear/DequantizeLinear from opset 21, which
python3-onnx 1.12 here (opset 17) cannot check and mlipc does not read (it
reads opsets up to 19); onnxruntime's quantizer writes them below opset 21
as its com.microsoft QuantizeLinear/DequantizeLinear (the same definition
with 16-bit types), and so does this model (opset 17): mlipc reads those,
and writes them so with --emit-qdq.

A second model, tests/data/models/q16_qdq_pool, the same way (its own
weights and inputs): Conv 3x3 (pads 1) -> Relu -> AveragePool 3x3 (stride
2, pads 1, count_include_pad 0) -> Conv 1x1 -> AveragePool 2x2 (stride 2,
pads 1 above, ceil_mode 1, count_include_pad 1: a last window half past
the input, a first one half padding) -> output, on a batch of 2.
Each AveragePool has a scale of its own (onnxruntime computes the group
in float: DequantizeLinear, AveragePool, QuantizeLinear).

A third, tests/data/models/q16_qdq_attn: attention's products in 16x8 on
x [2, 6, 8]: q, k, v = x Wq, x Wk, x Wv (constant int8 matrices), s = q
k^T (a Transpose at k's scale; two computed int16 operands), o = s v (two
computed), y = o W3 with W3 a constant int8 batch of matrices [2, 8, 4]."""
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import refs

MS = "com.microsoft"  # int16 QuantizeLinear/DequantizeLinear below opset 21: onnxruntime's


class Spec:
    """One model: its input shape, float weights, the float chain ((op, inputs, output, attrs); each computed
    tensor is quantized in the QDQ form), the outputs that keep their input's scale, the output's shape."""

    def __init__(self, name, x_shape, params, chain, shared, y_shape):
        self.name, self.x_shape, self.params, self.chain = name, x_shape, params, chain
        self.shared, self.y_shape = shared, y_shape


def cnn_spec():
    rng = np.random.default_rng(16)
    w1 = (rng.standard_normal((6, 2, 3, 3)) * 0.4).astype(np.float32)
    b1 = (rng.standard_normal(6) * 0.2).astype(np.float32)
    w2 = (rng.standard_normal((6, 1, 3, 3)) * 0.5).astype(np.float32)
    b2 = (rng.standard_normal(6) * 0.1).astype(np.float32)
    w3 = (rng.standard_normal((16, 150)) * 0.1).astype(np.float32)
    b3 = (rng.standard_normal(16) * 0.1).astype(np.float32)
    chain = [
        ("Conv", ["x", "w1", "b1"], "c1", {"pads": [1, 1, 1, 1]}),
        ("Relu", ["c1"], "r1", {}),
        ("MaxPool", ["r1"], "p1", {"kernel_shape": [2, 2], "strides": [2, 2]}),
        ("Conv", ["p1", "w2", "b2"], "c2", {"pads": [1, 1, 1, 1], "group": 6}),
        ("Relu", ["c2"], "r2", {}),
        ("Flatten", ["r2"], "f", {}),
        ("Gemm", ["f", "w3", "b3"], "y", {"transB": 1}),
    ]
    # Relu, MaxPool and Flatten keep their input's scale (as onnxruntime's quantizer shares them): on the integers
    # they are a clamp, a max and a view.
    shared = (("r1", "c1"), ("p1", "r1"), ("r2", "c2"), ("f", "r2"))
    return Spec("q16_qdq_cnn", [4, 2, 10, 10], {"w1": w1, "b1": b1, "w2": w2, "b2": b2, "w3": w3, "b3": b3}, chain,
                shared, [4, 16])


def pool_spec():
    rng = np.random.default_rng(1616)
    w1 = (rng.standard_normal((4, 3, 3, 3)) * 0.4).astype(np.float32)
    b1 = (rng.standard_normal(4) * 0.2).astype(np.float32)
    w2 = (rng.standard_normal((6, 4, 1, 1)) * 0.5).astype(np.float32)
    b2 = (rng.standard_normal(6) * 0.1).astype(np.float32)
    chain = [
        ("Conv", ["x", "w1", "b1"], "c1", {"pads": [1, 1, 1, 1]}),
        ("Relu", ["c1"], "r1", {}),
        ("AveragePool", ["r1"], "a1", {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]}),
        ("Conv", ["a1", "w2", "b2"], "c2", {}),
        ("AveragePool", ["c2"], "y", {"kernel_shape": [2, 2], "strides": [2, 2], "pads": [1, 0, 0, 0],
                                      "ceil_mode": 1, "count_include_pad": 1}),
    ]
    # [2, 3, 11, 9] -> c1 [2, 4, 11, 9] -> a1 [2, 4, 6, 5] -> c2 [2, 6, 6, 5] -> y [2, 6, 4, 3]; the output is the
    # second pool's, so that its comparison with onnxruntime is not blurred by a layer after it.
    shared = (("r1", "c1"),)
    return Spec("q16_qdq_pool", [2, 3, 11, 9], {"w1": w1, "b1": b1, "w2": w2, "b2": b2}, chain, shared, [2, 6, 4, 3])


def attn_spec():
    rng = np.random.default_rng(1617)
    params = {n: (rng.standard_normal((8, 8)) * 0.4).astype(np.float32) for n in ("wq", "wk", "wv")}
    params["w3"] = (rng.standard_normal((2, 8, 4)) * 0.3).astype(np.float32)
    chain = [
        ("MatMul", ["x", "wq"], "q", {}),
        ("MatMul", ["x", "wk"], "k", {}),
        ("MatMul", ["x", "wv"], "v", {}),
        ("Transpose", ["k"], "kt", {"perm": [0, 2, 1]}),
        ("MatMul", ["q", "kt"], "s", {}),
        ("MatMul", ["s", "v"], "o", {}),
        ("MatMul", ["o", "w3"], "y", {}),
    ]
    return Spec("q16_qdq_attn", [2, 6, 8], params, chain, (("kt", "k"),), [2, 6, 4])


def build_float(spec, extra_outputs):
    nodes = [helper.make_node(op, ins, [out], name=out + "_" + op, **attrs) for op, ins, out, attrs in spec.chain]
    inits = [numpy_helper.from_array(v, k) for k, v in spec.params.items()]
    outs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in extra_outputs]
    g = helper.make_graph(nodes, "q16_float", [helper.make_tensor_value_info("x", TensorProto.FLOAT, spec.x_shape)],
                          outs, inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])


def calibrate(spec):
    names = ["x"] + [out for _, _, out, _ in spec.chain]
    m = build_float(spec, names[1:])
    path = "/tmp/q16_float.onnx"
    onnx.save(m, path)
    amax = {n: 0.0 for n in names}
    for s in range(8):
        x = np.random.default_rng(100 + s).standard_normal(spec.x_shape).astype(np.float32)
        amax["x"] = max(amax["x"], float(np.abs(x).max()))
        for n, a in refs.ort_run(path, {"x": x}):
            amax[n] = max(amax[n], float(np.abs(a).max()))
    s = {n: np.float32(v / 32767.0) for n, v in amax.items()}
    for out, src in spec.shared:
        s[out] = s[src]
    return s


def build_qdq(spec, scales):
    nodes, inits = [], []

    def const(name, a):
        inits.append(numpy_helper.from_array(a, name))
        return name

    def qdq(t):  # t -> Q int16 -> DQ: returns the dequantized name
        s = const(t + "_scale", np.array(scales[t], np.float32))
        z = const(t + "_zero_point", np.array(0, np.int16))
        nodes.append(helper.make_node("QuantizeLinear", [t, s, z], [t + "_q"], name=t + "_Q", domain=MS))
        nodes.append(helper.make_node("DequantizeLinear", [t + "_q", s, z], [t + "_dq"], name=t + "_DQ", domain=MS))
        return t + "_dq"

    matmul_b = {ins[1] for op, ins, _, _ in spec.chain if op == "MatMul"}

    def weight(name):  # int8 per output channel (a MatMul's B: per tensor), symmetric /127
        w = spec.params[name]
        if name in matmul_b:
            s = np.float32(np.abs(w).max() / 127.0)
            const(name + "_q", np.clip(np.rint(w / s), -127, 127).astype(np.int8))
            const(name + "_scale", np.array(s, np.float32))
            const(name + "_zero_point", np.array(0, np.int8))
            nodes.append(helper.make_node("DequantizeLinear", [name + "_q", name + "_scale", name + "_zero_point"],
                                          [name + "_dq"], name=name + "_DQ"))
            return name + "_dq"
        axis = 0
        amax = np.abs(w.reshape(w.shape[0], -1)).max(axis=1)
        s = (amax / 127.0).astype(np.float32)
        shape = [-1] + [1] * (w.ndim - 1)
        q = np.clip(np.rint(w / s.reshape(shape)), -127, 127).astype(np.int8)
        const(name + "_q", q)
        const(name + "_scale", s)
        const(name + "_zero_point", np.zeros(w.shape[0], np.int8))
        nodes.append(helper.make_node("DequantizeLinear", [name + "_q", name + "_scale", name + "_zero_point"],
                                      [name + "_dq"], name=name + "_DQ", axis=axis))
        return name + "_dq"

    cur = {"x": qdq("x")}
    for op, ins, out, attrs in spec.chain:
        args = []
        for i in ins:
            if i in cur:
                args.append(cur[i])
            elif i.startswith("w"):
                args.append(weight(i))
            else:  # a bias: a float constant
                args.append(const(i, spec.params[i]))
        nodes.append(helper.make_node(op, args, [out], name=out + "_" + op, **attrs))
        cur[out] = qdq(out) if out != "y" else None
    # The output: y quantized to int16 and dequantized (its DequantizeLinear's output is the graph output).
    cur["y"] = qdq("y")
    g = helper.make_graph(nodes, "q16_" + spec.name[len("q16_qdq_"):],
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, spec.x_shape)],
                          [helper.make_tensor_value_info("y_dq", TensorProto.FLOAT, spec.y_shape)], inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(MS, 1)])


def main():
    for spec, seed in ((cnn_spec(), 7), (pool_spec(), 77), (attn_spec(), 777)):
        model = build_qdq(spec, calibrate(spec))
        x = np.random.default_rng(seed).standard_normal(spec.x_shape).astype(np.float32)
        refs.save_case(spec.name, model, {"x": x}, readme=__doc__)


if __name__ == "__main__":
    main()
