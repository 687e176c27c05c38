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
  MLIP), SiLU's product a QLinearMul.
- mlip_upsample: a small decoder, Conv -> Relu -> Resize nearest x2
  (asymmetric, floor: PyTorch's) -> Conv -> Relu -> Resize nearest to
  sizes 13x11 (half_pixel, round_prefer_floor) -> Conv; int8
  activations. Each Resize keeps its input's scale and zero point, so it
  runs on the integers (an int8 RESIZE on the MLIP); QOperator: Resize on
  the integers.
- mlip_pad: TF/Keras 'same' padding written as explicit Pads of zeros:
  Pad (bottom and right) -> Conv stride 2 -> Relu -> Pad (all sides) ->
  depthwise Conv -> Relu -> Conv 1x1; uint8 activations. Each Pad keeps its
  input's scale and zero point (QDQ: DQ -> Pad -> Q; QOperator: Pad on the
  integers with the zero point as its value, as onnxruntime's quantizer
  writes it), so it folds into the QLinearConv's padding. (This model
  skips the pre-processing: onnxruntime's basic optimizations would merge
  the float Pads into the Convs.)
- unet_up: a U-Net up block, Conv -> Relu (skip) -> Conv stride 2 -> Relu ->
  ConvTranspose 2x2 stride 2 -> Relu, and beside it ConvTranspose 3x3
  stride 2 with pads 1, output_padding 1 and 2 groups, concatenated with
  the skip -> Conv 1x1; int8 activations, ConvTranspose weights per
  channel on axis 1 (onnxruntime's quantizer's axis for them). The
  QOperator form keeps the ConvTransposes in QDQ form (there is no
  QOperator ConvTranspose); onnxruntime 1.30 runs them as DequantizeLinear,
  float ConvTranspose, QuantizeLinear.
- mlip_conv1d: 1-D convolutions (issue 30, item 7): a dilated causal Conv1d
  (kernel 3, dilation 2, pads 4 before), Relu, a grouped Conv1d (2 groups)
  of stride 2, Relu, a depthwise Conv1d, Relu, a ConvTranspose1d (kernel 4,
  stride 2, pads 1), Relu, a pointwise Conv1d; int8 activations. The QDQ
  form's ConvTranspose folds into mlipc.QLinearConvTranspose; with
  unet_up's 2-D ones both run on the MLIP as int8 layers."""
import sys

import numpy as np
from onnx import helper, numpy_helper, TensorProto

from gen_quantized import QUANT_OPS, UPSAMPLING_OPS, Quantizer, calibrate, preprocess, to_qoperator
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


def upsample_model(rng):
    def w(*shape, s=0.3):
        return (rng.standard_normal(shape) * s).astype(np.float32)

    inits = {"c1_w": w(8, 3, 3, 3), "c1_b": w(8, s=0.1), "c2_w": w(6, 8, 3, 3, s=0.2), "c2_b": w(6, s=0.1),
             "c3_w": w(4, 6, 1, 1), "c3_b": w(4, s=0.1),
             "x2": np.array([1, 1, 2, 2], np.float32), "sizes": np.array([1, 6, 13, 11], np.int64)}
    N = helper.make_node
    nodes = [
        N("Conv", ["x", "c1_w", "c1_b"], ["c1"], "c1", pads=[1, 1, 1, 1]),
        N("Relu", ["c1"], ["c1_relu"], "c1_relu"),
        N("Resize", ["c1_relu", "", "x2"], ["up1"], "up1", mode="nearest",
          coordinate_transformation_mode="asymmetric", nearest_mode="floor"),
        N("Conv", ["up1", "c2_w", "c2_b"], ["c2"], "c2", pads=[1, 1, 1, 1]),
        N("Relu", ["c2"], ["c2_relu"], "c2_relu"),
        N("Resize", ["c2_relu", "", "", "sizes"], ["up2"], "up2", mode="nearest"),
        N("Conv", ["up2", "c3_w", "c3_b"], ["y"], "c3"),
    ]
    graph = helper.make_graph(nodes, "mlip_upsample", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 4, 5])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 13, 11])],
                              [numpy_helper.from_array(v, k) for k, v in inits.items()])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def pad_model(rng):
    def w(*shape, s=0.3):
        return (rng.standard_normal(shape) * s).astype(np.float32)

    inits = {"c1_w": w(8, 3, 3, 3), "c1_b": w(8, s=0.1), "dw_w": w(8, 1, 3, 3), "dw_b": w(8, s=0.1),
             "pw_w": w(4, 8, 1, 1), "pw_b": w(4, s=0.1),
             "pads_br": np.array([0, 0, 0, 0, 0, 0, 1, 1], np.int64),
             "pads_all": np.array([0, 0, 1, 1, 0, 0, 1, 1], np.int64), "zero": np.array(0.0, np.float32)}
    N = helper.make_node
    nodes = [
        N("Pad", ["x", "pads_br", "zero"], ["x_pad"], "pad_same_s2"),
        N("Conv", ["x_pad", "c1_w", "c1_b"], ["c1"], "c1", strides=[2, 2]),
        N("Relu", ["c1"], ["c1_relu"], "c1_relu"),
        N("Pad", ["c1_relu", "pads_all", "zero"], ["c1_pad"], "pad_same_dw"),
        N("Conv", ["c1_pad", "dw_w", "dw_b"], ["dw"], "dw", group=8),
        N("Relu", ["dw"], ["dw_relu"], "dw_relu"),
        N("Conv", ["dw_relu", "pw_w", "pw_b"], ["y"], "pw"),
    ]
    graph = helper.make_graph(nodes, "mlip_pad", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 10, 10])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 5, 5])],
                              [numpy_helper.from_array(v, k) for k, v in inits.items()])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def unet_up_model(rng):
    def w(*shape, s=0.3):
        return (rng.standard_normal(shape) * s).astype(np.float32)

    inits = {"e1_w": w(8, 4, 3, 3), "e1_b": w(8, s=0.1), "d_w": w(16, 8, 3, 3, s=0.2), "d_b": w(16, s=0.1),
             "up_w": w(16, 8, 2, 2, s=0.2), "up_b": w(8, s=0.1),
             "up3_w": w(16, 4, 3, 3, s=0.2), "up3_b": w(8, s=0.1),
             "out_w": w(4, 24, 1, 1, s=0.2), "out_b": w(4, s=0.1)}
    N = helper.make_node
    nodes = [
        N("Conv", ["x", "e1_w", "e1_b"], ["e1"], "enc1", pads=[1, 1, 1, 1]),
        N("Relu", ["e1"], ["skip"], "enc1_relu"),
        N("Conv", ["skip", "d_w", "d_b"], ["d"], "down", strides=[2, 2], pads=[1, 1, 1, 1]),
        N("Relu", ["d"], ["d_relu"], "down_relu"),
        N("ConvTranspose", ["d_relu", "up_w", "up_b"], ["up"], "up2x2", strides=[2, 2]),
        N("Relu", ["up"], ["up_relu"], "up2x2_relu"),
        N("ConvTranspose", ["d_relu", "up3_w", "up3_b"], ["up3"], "up3x3_grouped", strides=[2, 2],
          pads=[1, 1, 1, 1], output_padding=[1, 1], group=2),
        N("Concat", ["up_relu", "up3", "skip"], ["cat"], "concat", axis=1),
        N("Conv", ["cat", "out_w", "out_b"], ["y"], "out"),
    ]
    graph = helper.make_graph(nodes, "unet_up", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 8, 8])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 8, 8])],
                              [numpy_helper.from_array(v, k) for k, v in inits.items()])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def conv1d_model(rng):
    def w(*shape, s=0.3):
        return (rng.standard_normal(shape) * s).astype(np.float32)

    inits = {"c1_w": w(16, 8, 3), "c1_b": w(16, s=0.1), "c2_w": w(16, 8, 3, s=0.2), "c2_b": w(16, s=0.1),
             "dw_w": w(16, 1, 5), "dw_b": w(16, s=0.1), "up_w": w(16, 8, 4, s=0.2), "up_b": w(8, s=0.1),
             "out_w": w(4, 8, 1, s=0.3), "out_b": w(4, s=0.1)}
    N = helper.make_node
    nodes = [
        N("Conv", ["x", "c1_w", "c1_b"], ["c1"], "causal", dilations=[2], pads=[4, 0]),
        N("Relu", ["c1"], ["r1"], "causal_relu"),
        N("Conv", ["r1", "c2_w", "c2_b"], ["c2"], "grouped_s2", group=2, strides=[2], pads=[1, 1]),
        N("Relu", ["c2"], ["r2"], "grouped_relu"),
        N("Conv", ["r2", "dw_w", "dw_b"], ["dw"], "depthwise", group=16, pads=[2, 2]),
        N("Relu", ["dw"], ["r3"], "depthwise_relu"),
        N("ConvTranspose", ["r3", "up_w", "up_b"], ["up"], "up1d", strides=[2], pads=[1, 1]),
        N("Relu", ["up"], ["r4"], "up1d_relu"),
        N("Conv", ["r4", "out_w", "out_b"], ["y"], "out"),
    ]
    graph = helper.make_graph(nodes, "conv1d", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 32])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 32])],
                              [numpy_helper.from_array(v, k) for k, v in inits.items()])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def main():
    # Each model draws from its own generator, so a model added later changes no other.
    cases = [("mlip_dense", dense_model, 2311, TensorProto.INT8,
              "Conv, Relu, Flatten, MatMul, Relu, MatMul (no bias: QLinearMatMul with constant weights)"),
             ("mlip_avgpool", avgpool_model, 2312, TensorProto.UINT8,
              "AveragePool with count_include_pad 1 and 0, ceil_mode, asymmetric pads"),
             ("mlip_mul", mul_model, 2313, TensorProto.INT8,
              "Conv, Mul by a per-channel constant, by a scalar constant, and of two computed tensors"),
             ("mlip_tables", tables_model, 2314, TensorProto.UINT8,
              "Conv, then Tanh, Sigmoid, HardSigmoid, HardSwish, LeakyRelu, SiLU, concatenated"),
             ("mlip_upsample", upsample_model, 2315, TensorProto.INT8,
              "a decoder: Conv, Relu, nearest Resize x2, Conv, Relu, nearest Resize to 13x11, Conv"),
             ("mlip_pad", pad_model, 2316, TensorProto.UINT8,
              "TF-style explicit zero Pads before a stride-2 Conv and a depthwise Conv"),
             ("unet_up", unet_up_model, 2317, TensorProto.INT8,
              "a U-Net up block: ConvTranspose 2x2 stride 2 and a grouped 3x3 one beside a skip connection"),
             ("mlip_conv1d", conv1d_model, 2318, TensorProto.INT8,
              "Conv1d dilated causal, grouped of stride 2, depthwise, ConvTranspose1d stride 2, pointwise")]
    only = set(sys.argv[1:])  # model names to write (default: every one)
    for name, build, seed, act, what in cases:
        if only and name not in only:
            continue
        rng = np.random.default_rng(seed)
        m = build(rng)
        # onnxruntime's basic optimizations merge a zero Pad into its Conv: mlip_pad keeps its Pads.
        if name != "mlip_pad":
            m = preprocess(m)
        inp = graph_inputs(m)[0]
        shape = [d.dim_value for d in inp.type.tensor_type.shape.dim]
        calib = [{inp.name: rng.standard_normal(shape).astype(np.float32)} for _ in range(8)]
        test = {inp.name: rng.standard_normal(shape).astype(np.float32)}
        qdq = Quantizer(m, calibrate(m, calib), act, QUANT_OPS | UPSAMPLING_OPS).run()
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
