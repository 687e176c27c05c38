"""Quantized models (issue 11): fp32 models turned into QDQ and QOperator
models the way onnxruntime's static quantizer writes them, with the onnx
Python API only (onnxruntime's Python package is not in Debian).

- Pre-processing: onnxruntime-node's basic graph optimizations (constant
  folding, Identity removal, Conv+BatchNormalization) through
  ort_optimize.js, then Gemm+BatchNormalization folded here.
- Calibration: every float tensor's min and max over a small set of inputs
  (onnxruntime-node runs the model with each tensor as an output).
- QDQ: weights int8, symmetric, per output channel (Conv, Gemm; MatMul per
  column), scale max|w| / 127; biases int32 with scale x_scale * w_scale;
  activations per tensor, asymmetric, uint8 or int8 (scale (max - min) /
  255 over a range holding 0); a Relu or Clip after Conv/Gemm/MatMul/Add
  sits inside the pair (DQ -> Conv -> Relu -> Q); MaxPool, Flatten and
  Reshape keep their input's scale and zero point.
- QOperator: the QDQ model with each DQ -> op -> Q group written as
  QLinearConv, QLinearMatMul and com.microsoft's QLinearAdd, QLinearMul,
  QLinearGlobalAveragePool, QLinearAveragePool, QLinearConcat,
  QLinearLeakyRelu, QLinearSigmoid (a Relu after QLinearConv is dropped: its
  output zero point is the type's minimum, so saturation is the Relu);
  MaxPool, Flatten and Reshape run on the integers; what has no QOperator
  form (Gemm, HardSwish) stays in QDQ form, as onnxruntime's quantizer
  leaves it.

Sources: the four MLPerf Tiny models of tests/data, seed_digits_cnn (the
project's examples/digits), and a depthwise/SE/residual block built here
(stored as float32 too, dw_se_residual_block). Each is stored as
quant_qdq_<name> and quant_qop_<name> with onnxruntime-node's outputs."""
import os
import subprocess
import tempfile

import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto

from refs import MODELS, ROOT, HERE, ort_run, graph_inputs, save_case

DIGITS = os.path.join(ROOT, "examples", "digits")

# Operators that get Q/DQ pairs on their float activations (the models
# of this file; gen_quantized_mlip.py adds UPSAMPLING_OPS for its own).
QUANT_OPS = {"Conv", "Gemm", "MatMul", "Add", "Mul", "MaxPool", "AveragePool", "GlobalAveragePool", "Concat",
             "Sigmoid", "HardSwish", "LeakyRelu", "Flatten", "Reshape"}
UPSAMPLING_OPS = {"Resize", "Pad", "ConvTranspose"}
# Their output keeps the input's scale and zero point.
SHARED_PARAMS = {"MaxPool", "Flatten", "Reshape", "Resize", "Pad"}
# Only their input 0 is data (the others: shape, roi and scales, pads and the pad value).
DATA_INPUT0_ONLY = {"Reshape", "Resize", "Pad"}
# Weights (input 1) per output channel on this axis, and a bias (input 2).
WEIGHT_AXIS = {"Conv": 0, "ConvTranspose": 1}
# An activation after these rides inside the Q/DQ pair.
FUSES_ACT = {"Conv", "ConvTranspose", "Gemm", "MatMul", "Add"}
NP_OF = {TensorProto.UINT8: np.uint8, TensorProto.INT8: np.int8}


def preprocess(model):
    tmp = tempfile.mkdtemp()
    src, dst = os.path.join(tmp, "in.onnx"), os.path.join(tmp, "out.onnx")
    onnx.save(model, src)
    subprocess.run(["node", os.path.join(HERE, "ort_optimize.js"), src, dst], check=True)
    m = onnx.load(dst)
    fold_gemm_bn(m)
    return m


def fold_gemm_bn(m):
    """Gemm(transB=1, alpha=beta=1) -> BatchNormalization folded into the Gemm."""
    g = m.graph
    inits = {i.name: i for i in g.initializer}
    users = {}
    for n in g.node:
        for i in n.input:
            users.setdefault(i, []).append(n)
    for n in list(g.node):
        if n.op_type != "BatchNormalization":
            continue
        prod = [p for p in g.node if n.input[0] in p.output]
        if not prod or prod[0].op_type != "Gemm" or len(users.get(n.input[0], [])) != 1:
            continue
        gemm = prod[0]
        attrs = {a.name: helper.get_attribute_value(a) for a in gemm.attribute}
        assert attrs.get("transB", 0) == 1 and attrs.get("alpha", 1.0) == 1.0 and attrs.get("beta", 1.0) == 1.0
        eps = next((helper.get_attribute_value(a) for a in n.attribute if a.name == "epsilon"), 1e-5)
        gamma, beta, mean, var = (numpy_helper.to_array(inits[k]).astype(np.float64) for k in n.input[1:5])
        k = gamma / np.sqrt(var + eps)
        w = numpy_helper.to_array(inits[gemm.input[1]]).astype(np.float64)
        b = numpy_helper.to_array(inits[gemm.input[2]]).astype(np.float64) if len(gemm.input) > 2 else 0.0
        inits[gemm.input[1]].CopyFrom(numpy_helper.from_array((w * k[:, None]).astype(np.float32), gemm.input[1]))
        nb = ((b - mean) * k + beta).astype(np.float32)
        if len(gemm.input) > 2:
            inits[gemm.input[2]].CopyFrom(numpy_helper.from_array(nb, gemm.input[2]))
        else:
            g.initializer.append(numpy_helper.from_array(nb, gemm.output[0] + "_bias"))
            gemm.input.append(gemm.output[0] + "_bias")
        gemm.output[0] = n.output[0]
        g.node.remove(n)


def calibrate(model, inputs_list):
    """{tensor name: (min, max)} over the inputs for every float tensor a node writes."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    outs = {o.name for o in m.graph.output}
    for n in m.graph.node:
        for o in n.output:
            if o and o not in outs:
                m.graph.output.append(helper.make_tensor_value_info(o, TensorProto.FLOAT, None))
                outs.add(o)
    # Only float tensors: ask onnxruntime for types by dropping what it refuses is costly, so keep
    # outputs of nodes whose output is float (every node these models have).
    tmp = tempfile.mkdtemp()
    path = os.path.join(tmp, "calib.onnx")
    onnx.save(m, path)
    ranges = {}
    for inputs in inputs_list:
        for name, a in list(inputs.items()) + ort_run(path, inputs):
            if a.dtype != np.float32:
                continue
            lo, hi = float(a.min()), float(a.max())
            if name in ranges:
                lo, hi = min(lo, ranges[name][0]), max(hi, ranges[name][1])
            ranges[name] = (lo, hi)
    return ranges


def act_params(lo, hi, qtype):
    lo, hi = min(lo, 0.0), max(hi, 0.0)
    scale = (hi - lo) / 255.0
    if scale == 0.0:
        scale = 1.0
    qmin = 0 if qtype == TensorProto.UINT8 else -128
    zp = int(np.clip(np.round(qmin - lo / scale), qmin, qmin + 255))
    return np.float32(scale), zp


class Quantizer:
    def __init__(self, model, ranges, act_type, ops=QUANT_OPS):
        self.m = model
        self.g = model.graph
        self.ranges = ranges
        self.act_type = act_type
        self.ops = ops
        self.inits = {i.name: i for i in self.g.initializer}
        self.params = {}  # float tensor -> (scale, zp) of its Q/DQ pair
        self.dq_of = {}   # float tensor -> its DQ output
        self.new_nodes = []
        self.new_inits = []

    def init_array(self, name):
        return numpy_helper.to_array(self.inits[name])

    def add_init(self, array, name):
        self.new_inits.append(numpy_helper.from_array(array, name))
        return name

    def consumers(self, t):
        return [n for n in self.g.node if t in n.input]

    def quantize_activation(self, t, params=None):
        """Inserts Q -> DQ on float tensor t (once); returns the DQ output."""
        if t in self.dq_of:
            return self.dq_of[t]
        if params is None:
            params = act_params(*self.ranges[t], self.act_type)
        scale, zp = params
        self.params[t] = params
        np_t = NP_OF[self.act_type]
        s = self.add_init(np.array(scale, np.float32), t + "_scale")
        z = self.add_init(np.array(zp, np_t), t + "_zero_point")
        self.new_nodes.append(helper.make_node("QuantizeLinear", [t, s, z], [t + "_quantized"], t + "_QuantizeLinear"))
        self.new_nodes.append(helper.make_node("DequantizeLinear", [t + "_quantized", s, z], [t + "_dequantized"],
                                               t + "_DequantizeLinear"))
        self.dq_of[t] = t + "_dequantized"
        return self.dq_of[t]

    def quantize_weight(self, name, axis):
        w = self.init_array(name).astype(np.float64)
        moved = np.moveaxis(w, axis, 0).reshape(w.shape[axis], -1)
        amax = np.abs(moved).max(axis=1)
        scale = np.where(amax > 0, amax / 127.0, 1.0).astype(np.float32)
        shape = [1] * w.ndim
        shape[axis] = -1
        q = np.clip(np.round(w / scale.reshape(shape)), -127, 127).astype(np.int8)
        qn = self.add_init(q, name + "_quantized")
        s = self.add_init(scale, name + "_scale")
        z = self.add_init(np.zeros(scale.shape, np.int8), name + "_zero_point")
        out = name + "_dequantized"
        self.new_nodes.append(helper.make_node("DequantizeLinear", [qn, s, z], [out], name + "_DequantizeLinear",
                                               axis=axis))
        return out, scale

    def quantize_bias(self, name, x_scale, w_scale):
        b = self.init_array(name).astype(np.float64).reshape(-1)
        # A grouped ConvTranspose has M/group weight scales for M outputs: output m takes m % (M/group).
        w_scale = np.tile(w_scale, b.size // w_scale.size) if w_scale.size > 1 else w_scale
        scale = (np.float64(x_scale) * w_scale.astype(np.float64)).astype(np.float32)
        q = np.clip(np.round(b / scale.astype(np.float64)), -2**31, 2**31 - 1).astype(np.int32)
        qn = self.add_init(q, name + "_quantized")
        s = self.add_init(scale, name + "_scale")
        z = self.add_init(np.zeros(scale.shape, np.int32), name + "_zero_point")
        out = name + "_dequantized"
        self.new_nodes.append(helper.make_node("DequantizeLinear", [qn, s, z], [out], name + "_DequantizeLinear",
                                               axis=0))
        return out

    def quantize_const(self, name):
        a = self.init_array(name).astype(np.float32)
        scale, zp = act_params(float(a.min()), float(a.max()), self.act_type)
        np_t = NP_OF[self.act_type]
        info = np.iinfo(np_t)
        q = np.clip(np.round(a / scale) + zp, info.min, info.max).astype(np_t)
        qn = self.add_init(q, name + "_quantized")
        s = self.add_init(np.array(scale, np.float32), name + "_scale")
        z = self.add_init(np.array(zp, np_t), name + "_zero_point")
        out = name + "_dequantized"
        self.new_nodes.append(helper.make_node("DequantizeLinear", [qn, s, z], [out], name + "_DequantizeLinear"))
        return out

    def run(self):
        g = self.g
        graph_outputs = {o.name for o in g.output}
        # Graph outputs written by a quantized group are renamed so the final DQ keeps the name.
        order = list(g.node)
        for n in order:
            if n.op_type not in self.ops:
                continue
            attrs = {a.name: helper.get_attribute_value(a) for a in n.attribute}
            new_inputs = list(n.input)
            x_scale = None
            for k, t in enumerate(n.input):
                if not t:
                    continue
                if n.op_type in DATA_INPUT0_ONLY and k >= 1:
                    continue
                if t in self.inits:
                    if n.op_type in ("Conv", "ConvTranspose", "Gemm", "MatMul") and k == 1:
                        axis = WEIGHT_AXIS.get(n.op_type, 0 if attrs.get("transB", 0) == 1 else 1)
                        new_inputs[k], w_scale = self.quantize_weight(t, axis)
                    elif n.op_type in ("Conv", "ConvTranspose", "Gemm") and k == 2:
                        new_inputs[k] = None  # after the weight's scale is known
                    else:
                        new_inputs[k] = self.quantize_const(t)
                    continue
                src = next((f for f, d in self.dq_of.items() if d == t), None)
                if src is None:
                    src = t
                    new_inputs[k] = self.quantize_activation(t)
                if k == 0:
                    x_scale = self.params[src][0]
                    x_src = src
            if n.op_type in ("Conv", "ConvTranspose", "Gemm") and len(n.input) > 2 and n.input[2]:
                new_inputs[2] = self.quantize_bias(n.input[2], x_scale, w_scale)
            for k in range(len(n.input)):
                n.input[k] = new_inputs[k]
            # The output pair: after a fused activation, with shared parameters, or from the range.
            out = n.output[0]
            users = self.consumers(out)
            if n.op_type in FUSES_ACT and len(users) == 1 and users[0].op_type in ("Relu", "Clip") \
                    and out not in graph_outputs:
                out = users[0].output[0]
            params = self.params[x_src] if n.op_type in SHARED_PARAMS else None
            self.quantize_output(out, params, graph_outputs)
        # Insert each new node after its input's producer: a topological sort does it.
        self.g.initializer.extend(self.new_inits)
        nodes = list(g.node) + self.new_nodes
        del g.node[:]
        g.node.extend(toposort(nodes, [i.name for i in g.input] + list(self.inits) +
                               [i.name for i in self.new_inits]))
        # Drop float initializers nothing reads any more.
        used = {i for n in g.node for i in n.input}
        for i in list(g.initializer):
            if i.name not in used:
                g.initializer.remove(i)
        return self.m

    def quantize_output(self, out, params, graph_outputs):
        users = self.consumers(out)
        if out in graph_outputs:
            # Producer writes out_float; Q/DQ bring it back to the output's name.
            f = out + "_float"
            for n in self.g.node:
                for k, o in enumerate(n.output):
                    if o == out:
                        n.output[k] = f
            if params is None:
                params = act_params(*self.ranges[out], self.act_type)
            self.ranges[f] = self.ranges[out]
            dq = self.quantize_activation(f, params)
            for n in self.new_nodes:
                for k, o in enumerate(n.output):
                    if o == dq:
                        n.output[k] = out
            self.dq_of[f] = out
            return
        dq = self.quantize_activation(out, params)
        for n in users:
            for k, i in enumerate(n.input):
                if i == out:
                    n.input[k] = dq


def toposort(nodes, available):
    have = set(available)
    have.add("")
    done, result = set(), []
    pending = list(nodes)
    while pending:
        rest = []
        for n in pending:
            if all(i in have for i in n.input):
                result.append(n)
                have.update(n.output)
            else:
                rest.append(n)
        if len(rest) == len(pending):
            raise RuntimeError(f"cycle or missing input at {[n.name for n in rest][:3]}")
        pending = rest
    return result


def to_qoperator(qdq):
    """The QDQ model with each DQ -> op -> Q group as one QOperator node."""
    m = onnx.ModelProto()
    m.CopyFrom(qdq)
    g = m.graph
    producer = {o: n for n in g.node for o in n.output}
    users = {}
    for n in g.node:
        for i in n.input:
            users.setdefault(i, []).append(n)
    inits = {i.name: i for i in g.initializer}
    graph_outputs = {o.name for o in g.output}

    def dq_src(t):
        p = producer.get(t)
        return p if p is not None and p.op_type == "DequantizeLinear" else None

    def same_params(x, q):
        """DequantizeLinear x and QuantizeLinear q have one scale and zero point."""
        return all(np.array_equal(numpy_helper.to_array(inits[a]), numpy_helper.to_array(inits[b]))
                   for a, b in zip(x.input[1:3], q.input[1:3]))

    def out_q(n):
        """The Q that quantizes n's output (through a Relu it drops), and whether a Relu was dropped."""
        us = users.get(n.output[0], [])
        if len(us) != 1 or n.output[0] in graph_outputs:
            return None, None
        u = us[0]
        if u.op_type == "QuantizeLinear":
            return u, None
        if u.op_type == "Relu" and n.op_type == "Conv":
            us2 = users.get(u.output[0], [])
            if len(us2) == 1 and us2[0].op_type == "QuantizeLinear":
                q = us2[0]
                zp = numpy_helper.to_array(inits[q.input[2]])
                if int(zp) == np.iinfo(zp.dtype).min:
                    return q, u
        return None, None

    ms = "com.microsoft"
    remove, add = [], []
    for n in list(g.node):
        if n.op_type in ("QuantizeLinear", "DequantizeLinear"):
            continue
        q, relu = out_q(n)
        if q is None:
            continue
        dqs = [dq_src(i) if i else None for i in n.input]
        y = [q.input[1], q.input[2]]
        attrs = list(n.attribute)
        new = None
        if n.op_type == "Conv" and all(dqs[k] is not None for k in range(len(n.input))):
            x, w = dqs[0], dqs[1]
            ins = [x.input[0], x.input[1], x.input[2], w.input[0], w.input[1], w.input[2]] + y
            if len(n.input) > 2:
                ins.append(dqs[2].input[0])
            new = helper.make_node("QLinearConv", ins, [q.output[0]], n.name + "_quant")
            new.attribute.extend(attrs)
        elif n.op_type == "MatMul" and all(dqs):
            a, b = dqs
            new = helper.make_node("QLinearMatMul", [a.input[0], a.input[1], a.input[2], b.input[0], b.input[1],
                                                     b.input[2]] + y, [q.output[0]], n.name + "_quant")
        elif n.op_type in ("Add", "Mul") and all(dqs):
            a, b = dqs
            new = helper.make_node("QLinear" + n.op_type, [a.input[0], a.input[1], a.input[2], b.input[0],
                                                           b.input[1], b.input[2]] + y, [q.output[0]],
                                   n.name + "_quant", domain=ms)
        elif n.op_type == "GlobalAveragePool" and dqs[0]:
            x = dqs[0]
            new = helper.make_node("QLinearGlobalAveragePool", list(x.input[:3]) + y, [q.output[0]],
                                   n.name + "_quant", domain=ms, channels_last=0)
        elif n.op_type == "AveragePool" and dqs[0]:
            x = dqs[0]
            new = helper.make_node("QLinearAveragePool", list(x.input[:3]) + y, [q.output[0]], n.name + "_quant",
                                   domain=ms)
            new.attribute.extend(attrs)
        elif n.op_type in ("Sigmoid", "LeakyRelu") and dqs[0]:
            x = dqs[0]
            new = helper.make_node("QLinear" + n.op_type, list(x.input[:3]) + y, [q.output[0]], n.name + "_quant",
                                   domain=ms)
            new.attribute.extend(attrs)
        elif n.op_type == "Concat" and all(dqs):
            ins = list(y)
            for d in dqs:
                ins += list(d.input[:3])
            new = helper.make_node("QLinearConcat", ins, [q.output[0]], n.name + "_quant", domain=ms)
            new.attribute.extend(attrs)
        elif n.op_type == "Pad" and dqs[0] and same_params(dqs[0], q):
            # On the integers, padded with the zero point (a real 0), as onnxruntime's QOperator Pad.
            x = dqs[0]
            new = helper.make_node("Pad", [x.input[0], n.input[1], x.input[2]], [q.output[0]], n.name + "_quant")
            new.attribute.extend(attrs)
        elif n.op_type in SHARED_PARAMS and dqs[0]:
            x = dqs[0]
            new = helper.make_node(n.op_type, [x.input[0]] + list(n.input[1:]), [q.output[0]], n.name + "_quant")
            new.attribute.extend(attrs)
        if new is None:
            continue
        add.append(new)
        remove += [n, q] + ([relu] if relu else [])
    for n in remove:
        g.node.remove(n)
    g.node.extend(add)
    # DQ nodes nobody reads any more.
    while True:
        used = {i for n in g.node for i in n.input} | graph_outputs
        dead = [n for n in g.node if n.op_type == "DequantizeLinear" and n.output[0] not in used]
        if not dead:
            break
        for n in dead:
            g.node.remove(n)
    used = {i for n in g.node for i in n.input}
    for i in list(g.initializer):
        if i.name not in used:
            g.initializer.remove(i)
    nodes = list(g.node)
    del g.node[:]
    g.node.extend(toposort(nodes, [i.name for i in g.input] + [i.name for i in g.initializer]))
    if any(n.domain == ms for n in g.node):
        m.opset_import.append(helper.make_opsetid(ms, 1))
    return m


def block_model():
    """Depthwise, squeeze-excitation and residual block with the activations and pools quantizers meet."""
    rng = np.random.default_rng(11)

    def w(*shape, s=0.3):
        return (rng.standard_normal(shape) * s).astype(np.float32)

    inits = {
        "pw1_w": w(16, 8, 1, 1), "pw1_b": w(16, s=0.1),
        "dw_w": w(16, 1, 3, 3), "dw_b": w(16, s=0.1),
        "se1_w": w(4, 16, 1, 1), "se1_b": w(4, s=0.1),
        "se2_w": w(16, 4, 1, 1), "se2_b": w(16, s=0.1),
        "pw2_w": w(8, 16, 1, 1), "pw2_b": w(8, s=0.1),
        "clip_lo": np.array(0.0, np.float32), "clip_hi": np.array(6.0, np.float32),
        "fc_w": w(256, 10, s=0.1), "fc_b": w(10, s=0.1),
    }
    N = helper.make_node
    nodes = [
        N("Conv", ["x", "pw1_w", "pw1_b"], ["pw1"], "pw1"),
        N("Clip", ["pw1", "clip_lo", "clip_hi"], ["pw1_relu6"], "pw1_relu6"),
        N("Conv", ["pw1_relu6", "dw_w", "dw_b"], ["dw"], "dw", group=16, pads=[1, 1, 1, 1]),
        N("Relu", ["dw"], ["dw_relu"], "dw_relu"),
        N("GlobalAveragePool", ["dw_relu"], ["se_pool"], "se_pool"),
        N("Conv", ["se_pool", "se1_w", "se1_b"], ["se1"], "se1"),
        N("Relu", ["se1"], ["se1_relu"], "se1_relu"),
        N("Conv", ["se1_relu", "se2_w", "se2_b"], ["se2"], "se2"),
        N("Sigmoid", ["se2"], ["se_gate"], "se_gate"),
        N("Mul", ["dw_relu", "se_gate"], ["se_out"], "se_mul"),
        N("Conv", ["se_out", "pw2_w", "pw2_b"], ["pw2"], "pw2"),
        N("Add", ["pw2", "x"], ["res"], "residual"),
        N("HardSwish", ["res"], ["hs"], "hardswish"),
        N("LeakyRelu", ["res"], ["lr"], "leakyrelu", alpha=0.1),
        N("Concat", ["hs", "lr"], ["cat"], "concat", axis=1),
        N("AveragePool", ["cat"], ["avg"], "avgpool", kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]),
        N("MaxPool", ["avg"], ["max"], "maxpool", kernel_shape=[2, 2], strides=[2, 2]),
        N("Flatten", ["max"], ["flat"], "flatten"),
        N("MatMul", ["flat", "fc_w"], ["fc"], "fc"),
        N("Add", ["fc", "fc_b"], ["y"], "fc_bias"),
    ]
    graph = helper.make_graph(nodes, "dw_se_residual_block",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 16, 16])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])],
                              [numpy_helper.from_array(v, k) for k, v in inits.items()])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])


def load_case(folder):
    m = onnx.load(os.path.join(folder, "model.onnx"))
    tin = onnx.load_tensor(os.path.join(folder, "test_data_set_0", "input_0.pb"))
    return m, numpy_helper.to_array(tin)


def main():
    rng = np.random.default_rng(1111)
    cases = []
    for name, act in [("mlperf_tiny_kws_dscnn", TensorProto.UINT8), ("mlperf_tiny_vww_mobilenet_v1_025", TensorProto.INT8),
                      ("mlperf_tiny_ic_resnet8", TensorProto.INT8), ("mlperf_tiny_ad_fc_autoencoder", TensorProto.UINT8)]:
        m, x = load_case(os.path.join(MODELS, name))
        cases.append((name, m, act, "standard-normal", lambda shape: rng.standard_normal(shape).astype(np.float32)))
    m, _ = load_case(DIGITS)
    cases.append(("seed_digits_cnn", m, TensorProto.UINT8, "uniform [0, 1)",
                  lambda shape: rng.uniform(0, 1, shape).astype(np.float32)))
    cases.append(("dw_se_residual_block", block_model(), TensorProto.INT8, "standard-normal",
                  lambda shape: rng.standard_normal(shape).astype(np.float32)))
    for name, m, act, dist, draw in cases:
        m = preprocess(m)
        inp = graph_inputs(m)[0]
        shape = [d.dim_value for d in inp.type.tensor_type.shape.dim]
        calib = [{inp.name: draw(shape)} for _ in range(8)]
        test = {inp.name: draw(shape)}
        ranges = calibrate(m, calib)
        if name == "dw_se_residual_block":
            # The float source the others have in tests/data (or examples/), for the size and cycle comparisons.
            save_case(name, m, test, readme=f"""{name}: the float32 depthwise/SE/residual block that
tests/gen/gen_quantized.py builds (after its pre-processing) and quantizes into quant_qdq_{name} and
quant_qop_{name}; the same test input. Outputs by onnxruntime-node 1.30 (one thread).""")
        qdq = Quantizer(m, ranges, act).run()
        qdq.producer_name = "mlipc tests/gen/gen_quantized.py"
        tname = "uint8" if act == TensorProto.UINT8 else "int8"
        readme = f"""{name} quantized by tests/gen/gen_quantized.py: int8 weights (symmetric, per output
channel), {tname} activations (per tensor, asymmetric), ranges from 8 {dist} inputs; the test input is
a ninth. Outputs by onnxruntime-node 1.30 (one thread)."""
        save_case(f"quant_qdq_{name}", qdq, test, readme=readme + "\nForm: QDQ (QuantizeLinear/DequantizeLinear pairs).")
        qop = to_qoperator(qdq)
        save_case(f"quant_qop_{name}", qop, test,
                  readme=readme + "\nForm: QOperator (QLinearConv, QLinearMatMul, com.microsoft QLinear*; "
                                  "Gemm and HardSwish stay in QDQ form).")


if __name__ == "__main__":
    main()
