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
and writes them so with --emit-qdq."""
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import refs

rng = np.random.default_rng(16)
X_SHAPE = [4, 2, 10, 10]
MS = "com.microsoft"  # int16 QuantizeLinear/DequantizeLinear below opset 21: onnxruntime's


def float_model():
    w1 = (rng.standard_normal((6, 2, 3, 3)) * 0.4).astype(np.float32)
    b1 = (rng.standard_normal(6) * 0.2).astype(np.float32)
    w2 = (rng.standard_normal((6, 1, 3, 3)) * 0.5).astype(np.float32)
    b2 = (rng.standard_normal(6) * 0.1).astype(np.float32)
    w3 = (rng.standard_normal((16, 150)) * 0.1).astype(np.float32)
    b3 = (rng.standard_normal(16) * 0.1).astype(np.float32)
    return {"w1": w1, "b1": b1, "w2": w2, "b2": b2, "w3": w3, "b3": b3}


P = float_model()
# (op, inputs, output, attrs): the float chain; each computed tensor is quantized in the QDQ form.
CHAIN = [
    ("Conv", ["x", "w1", "b1"], "c1", {"pads": [1, 1, 1, 1]}),
    ("Relu", ["c1"], "r1", {}),
    ("MaxPool", ["r1"], "p1", {"kernel_shape": [2, 2], "strides": [2, 2]}),
    ("Conv", ["p1", "w2", "b2"], "c2", {"pads": [1, 1, 1, 1], "group": 6}),
    ("Relu", ["c2"], "r2", {}),
    ("Flatten", ["r2"], "f", {}),
    ("Gemm", ["f", "w3", "b3"], "y", {"transB": 1}),
]
WEIGHT_AXIS = {"w1": 0, "w2": 0, "w3": 0}


def build_float(extra_outputs):
    nodes = [helper.make_node(op, ins, [out], name=out + "_" + op, **attrs) for op, ins, out, attrs in CHAIN]
    inits = [numpy_helper.from_array(v, k) for k, v in P.items()]
    outs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in extra_outputs]
    g = helper.make_graph(nodes, "q16_float", [helper.make_tensor_value_info("x", TensorProto.FLOAT, X_SHAPE)], outs,
                          inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])


def calibrate():
    names = ["x", "c1", "r1", "p1", "c2", "r2", "f", "y"]
    m = build_float(names[1:])
    path = "/tmp/q16_float.onnx"
    onnx.save(m, path)
    amax = {n: 0.0 for n in names}
    for s in range(8):
        x = np.random.default_rng(100 + s).standard_normal(X_SHAPE).astype(np.float32)
        amax["x"] = max(amax["x"], float(np.abs(x).max()))
        for n, a in refs.ort_run(path, {"x": x}):
            amax[n] = max(amax[n], float(np.abs(a).max()))
    s = {n: np.float32(v / 32767.0) for n, v in amax.items()}
    # Relu, MaxPool and Flatten keep their input's scale (as onnxruntime's quantizer shares them): on the integers
    # they are a clamp, a max and a view.
    for out, src in (("r1", "c1"), ("p1", "r1"), ("r2", "c2"), ("f", "r2")):
        s[out] = s[src]
    return s


def build_qdq(scales):
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

    def weight(name):  # int8 per output channel, symmetric /127
        w = P[name]
        axis = WEIGHT_AXIS[name]
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
    for op, ins, out, attrs in CHAIN:
        args = []
        for i in ins:
            if i in cur:
                args.append(cur[i])
            elif i.startswith("w"):
                args.append(weight(i))
            else:  # a bias: a float constant
                args.append(const(i, P[i]))
        nodes.append(helper.make_node(op, args, [out], name=out + "_" + op, **attrs))
        cur[out] = qdq(out) if out != "y" else None
    # The output: y quantized to int16 and dequantized (its DequantizeLinear's output is the graph output).
    cur["y"] = qdq("y")
    g = helper.make_graph(nodes, "q16_cnn", [helper.make_tensor_value_info("x", TensorProto.FLOAT, X_SHAPE)],
                          [helper.make_tensor_value_info("y_dq", TensorProto.FLOAT, [4, 16])], inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(MS, 1)])


def main():
    scales = calibrate()
    model = build_qdq(scales)
    x = np.random.default_rng(7).standard_normal(X_SHAPE).astype(np.float32)
    refs.save_case("q16_qdq_cnn", model, {"x": x}, readme=__doc__)


if __name__ == "__main__":
    main()
