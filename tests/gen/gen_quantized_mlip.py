"""Small quantized models for operators of the MLIP's int8 layers that the
quant_* models of gen_quantized.py do not have (issue 11 point 5). Each
is a float model built here with the onnx helper API, quantized by
gen_quantized.py's own steps (pre-processing, calibration over 8 inputs,
QDQ, QOperator), and stored as quant_qdq_<name> and quant_qop_<name> with
onnxruntime-node's outputs; the QuantizedMlip sweep takes every quant_*
model, so these are compared bit for bit with the "c" build on every tile
count and pinning.

- mlip_dense: Conv -> Relu -> Flatten -> MatMul -> Relu -> MatMul, int8
  activations. The MatMuls have no bias, so onnxruntime's optimizer leaves
  them MatMul: the QOperator form is QLinearMatMul with constant int8
  weights (per column) reading a computed tensor, the QDQ form the 1x1
  QLinearConv between Reshapes that passes/fold_qdq makes of it.
- mlip_avgpool: AveragePool 3x3 stride 2, count_include_pad 1 (no pads:
  with pads, onnxruntime's QLinearAveragePool and float AveragePool count
  padded windows differently from each other, and the CPU kernel of mlipc
  differs from the former by more than a step), then AveragePool 2x2
  stride 2 with asymmetric pads (top and left), count_include_pad 0,
  ceil_mode 1 (a last window past the input, no pad there); uint8
  activations. The QOperator form is
  com.microsoft's QLinearAveragePool.
- mlip_mul: Conv 1x1, then Mul by a constant of one value per channel,
  then Mul by a constant scalar, then Mul of two computed tensors of one
  shape; int8 activations (QLinearMul with constant and computed operands).
- mlip_tables: Conv, then Tanh, Sigmoid, HardSigmoid, HardSwish, LeakyRelu
  and SiLU (x * Sigmoid(x)) on its output, concatenated; uint8
  activations: every activation a 256-entry table (a TABLE command on the
  MLIP), SiLU's product a QLinearMul."""
import numpy as np
from onnx import helper, numpy_helper, TensorProto

from gen_quantized import Quantizer, calibrate, preprocess, to_qoperator
from refs import graph_inputs, save_case


def dense_model(rng):
    def w(*shape, s=0.3):
        return (rng.standard_normal(shape) * s).astype(np.float32)

    inits = {"conv_w": w(4, 3, 3, 3), "conv_b": w(4, s=0.1), "fc1_w": w(144, 24, s=0.1), "fc2_w": w(24, 10)}
    N = helper.make_node
    nodes = [
        N("Conv", ["x", "conv_w", "conv_b"], ["conv"], "conv", pads=[1, 1, 1, 1]),
        N("Relu", ["conv"], ["conv_relu"], "conv_relu"),
        N("Flatten", ["conv_relu"], ["flat"], "flatten"),
        N("MatMul", ["flat", "fc1_w"], ["fc1"], "fc1"),
        N("Relu", ["fc1"], ["fc1_relu"], "fc1_relu"),
        N("MatMul", ["fc1_relu", "fc2_w"], ["y"], "fc2"),
    ]
    graph = helper.make_graph(nodes, "mlip_dense", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 6, 6])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])],
                              [numpy_helper.from_array(v, k) for k, v in inits.items()])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])


def avgpool_model(rng):
    del rng  # no weights
    N = helper.make_node
    nodes = [
        N("AveragePool", ["x"], ["avg1"], "avg_include_pad", kernel_shape=[3, 3], strides=[2, 2], count_include_pad=1),
        N("AveragePool", ["avg1"], ["y"], "avg_exclude_pad", kernel_shape=[2, 2], strides=[2, 2],
          pads=[1, 1, 0, 0], count_include_pad=0, ceil_mode=1),
    ]
    graph = helper.make_graph(nodes, "mlip_avgpool", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 10, 10])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8, 3, 3])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])


def mul_model(rng):
    inits = {"conv_w": (rng.standard_normal((4, 3, 1, 1)) * 0.5).astype(np.float32),
             "conv_b": (rng.standard_normal(4) * 0.1).astype(np.float32),
             "per_ch": rng.uniform(-2, 2, (1, 4, 1, 1)).astype(np.float32),
             "scalar": np.array(0.75, np.float32)}
    N = helper.make_node
    nodes = [
        N("Conv", ["x", "conv_w", "conv_b"], ["conv"], "conv"),
        N("Mul", ["conv", "per_ch"], ["m1"], "mul_per_channel"),
        N("Mul", ["m1", "scalar"], ["m2"], "mul_scalar"),
        N("Mul", ["m2", "conv"], ["y"], "mul_tensors"),
    ]
    graph = helper.make_graph(nodes, "mlip_mul", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 6, 6])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 6, 6])],
                              [numpy_helper.from_array(v, k) for k, v in inits.items()])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])


def tables_model(rng):
    inits = {"conv_w": (rng.standard_normal((4, 3, 3, 3)) * 0.4).astype(np.float32),
             "conv_b": (rng.standard_normal(4) * 0.1).astype(np.float32)}
    N = helper.make_node
    nodes = [
        N("Conv", ["x", "conv_w", "conv_b"], ["c"], "conv", pads=[1, 1, 1, 1]),
        N("Tanh", ["c"], ["tanh"], "tanh"),
        N("Sigmoid", ["c"], ["sig"], "sigmoid"),
        N("HardSigmoid", ["c"], ["hsig"], "hardsigmoid", alpha=0.25, beta=0.5),
        N("HardSwish", ["c"], ["hswish"], "hardswish"),
        N("LeakyRelu", ["c"], ["lrelu"], "leakyrelu", alpha=0.2),
        N("Mul", ["c", "sig"], ["silu"], "silu"),
        N("Concat", ["tanh", "sig", "hsig", "hswish", "lrelu", "silu"], ["y"], "concat", axis=1),
    ]
    graph = helper.make_graph(nodes, "mlip_tables", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 6, 6])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 24, 6, 6])],
                              [numpy_helper.from_array(v, k) for k, v in inits.items()])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])


def main():
    # Each model draws from its own generator, so a model added later changes no other.
    cases = [("mlip_dense", dense_model, 2311, TensorProto.INT8,
              "Conv, Relu, Flatten, MatMul, Relu, MatMul (no bias: QLinearMatMul with constant weights)"),
             ("mlip_avgpool", avgpool_model, 2312, TensorProto.UINT8,
              "AveragePool with count_include_pad 1 and 0, ceil_mode, asymmetric pads"),
             ("mlip_mul", mul_model, 2313, TensorProto.INT8,
              "Conv, Mul by a per-channel constant, by a scalar constant, and of two computed tensors"),
             ("mlip_tables", tables_model, 2314, TensorProto.UINT8,
              "Conv, then Tanh, Sigmoid, HardSigmoid, HardSwish, LeakyRelu, SiLU, concatenated")]
    for name, build, seed, act, what in cases:
        rng = np.random.default_rng(seed)
        m = build(rng)
        m = preprocess(m)
        inp = graph_inputs(m)[0]
        shape = [d.dim_value for d in inp.type.tensor_type.shape.dim]
        calib = [{inp.name: rng.standard_normal(shape).astype(np.float32)} for _ in range(8)]
        test = {inp.name: rng.standard_normal(shape).astype(np.float32)}
        qdq = Quantizer(m, calibrate(m, calib), act).run()
        qdq.producer_name = "mlipc tests/gen/gen_quantized_mlip.py"
        tname = "uint8" if act == TensorProto.UINT8 else "int8"
        readme = f"""{name} ({what}), built and quantized by tests/gen/gen_quantized_mlip.py: int8 weights
(symmetric, per output channel or column), {tname} activations (per tensor, asymmetric), ranges from 8
standard-normal inputs; the test input is a ninth. Outputs by onnxruntime-node 1.30 (one thread)."""
        save_case(f"quant_qdq_{name}", qdq, test, readme=readme + "\nForm: QDQ (QuantizeLinear/DequantizeLinear pairs).")
        save_case(f"quant_qop_{name}", to_qoperator(qdq), test,
                  readme=readme + "\nForm: QOperator (QLinearConv, QLinearMatMul, com.microsoft QLinear*).")


if __name__ == "__main__":
    main()
