"""Writes test cases in the ONNX backend-test layout that the suite reads:
tests/data/models/<name>/model.onnx and test_data_set_0/{input_K.pb,
output_K.pb}, the outputs computed by onnxruntime-node (one thread).

Generators (tests/gen/gen_*.py) build a model with torch or the onnx helper
API and call save_case(). Run them through tests/gen/make.sh, which installs
what they need. Development time only: the suite reads tests/data alone."""
import json
import os
import shutil
import subprocess
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
MODELS = os.path.join(ROOT, "tests", "data", "models")


def ort_run(model_path, inputs):
    """onnxruntime's outputs for `inputs` (name -> ndarray), as [(name, ndarray)]."""
    tmp = tempfile.mkdtemp()
    try:
        manifest = {"inputs": []}
        for k, (name, a) in enumerate(inputs.items()):
            a = np.ascontiguousarray(a)
            path = os.path.join(tmp, f"in{k}.bin")
            a.tofile(path)
            manifest["inputs"].append({"name": name, "dtype": str(a.dtype), "dims": list(a.shape), "file": path})
        with open(os.path.join(tmp, "manifest.json"), "w") as f:
            json.dump(manifest, f)
        out = os.path.join(tmp, "out")
        subprocess.run(["node", os.path.join(HERE, "ort_run.js"), model_path, os.path.join(tmp, "manifest.json"), out],
                       check=True)
        with open(os.path.join(out, "outputs.json")) as f:
            meta = json.load(f)
        result = []
        for k, o in enumerate(meta):
            a = np.fromfile(os.path.join(out, f"output_{k}.bin"), dtype=np.dtype(o["dtype"]))
            result.append((o["name"], a.reshape(o["dims"])))
        return result
    finally:
        shutil.rmtree(tmp)


def graph_inputs(model):
    """The model's run-time inputs (graph inputs that are not initializers)."""
    inits = {i.name for i in model.graph.initializer}
    return [i for i in model.graph.input if i.name not in inits]


def random_inputs(model, seed=2024, low=None, high=None):
    """Standard-normal float inputs (uniform in [low, high) when given) for every run-time input."""
    rng = np.random.default_rng(seed)
    arrays = {}
    for i in graph_inputs(model):
        dims = [d.dim_value for d in i.type.tensor_type.shape.dim]
        dtype = np.dtype(onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[i.type.tensor_type.elem_type])
        if dtype.kind == "f":
            a = rng.standard_normal(dims) if low is None else rng.uniform(low, high, dims)
        elif dtype == np.bool_:
            a = rng.integers(0, 2, dims)
        else:
            a = rng.integers(0 if low is None else low, 10 if high is None else high, dims)
        arrays[i.name] = np.asarray(a).astype(dtype)
    return arrays


def save_case(name, model, inputs=None, readme=None):
    """Checks `model` (an onnx.ModelProto), stores it with `inputs` (default: random) and onnxruntime's outputs."""
    onnx.checker.check_model(model)
    if inputs is None:
        inputs = random_inputs(model)
    dst = os.path.join(MODELS, name)
    if os.path.isdir(dst):
        shutil.rmtree(dst)
    data = os.path.join(dst, "test_data_set_0")
    os.makedirs(data)
    model_path = os.path.join(dst, "model.onnx")
    onnx.save(model, model_path)
    for k, (n, a) in enumerate(inputs.items()):
        with open(os.path.join(data, f"input_{k}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(np.ascontiguousarray(a), n).SerializeToString())
    outputs = ort_run(model_path, inputs)
    for k, (n, a) in enumerate(outputs):
        with open(os.path.join(data, f"output_{k}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(a, n).SerializeToString())
    if readme:
        with open(os.path.join(dst, "README.md"), "w") as f:
            f.write(readme.strip() + "\n")
    print(f"{name}: {[(n, a.shape) for n, a in inputs.items()]} -> {[(n, a.shape, str(a.dtype)) for n, a in outputs]}")


def export_torch(module, args, opset, input_names, output_names, dynamic_axes=None, grad=False):
    """A torch.nn.Module exported to an onnx.ModelProto (eval mode, constants folded). grad=True
    exports with autograd on: torch's nn.TransformerEncoderLayer then takes its composite path
    (nn.MultiheadAttention as exporters write it), not its fused kernel, which has no ONNX form."""
    import contextlib
    import io
    import torch
    module.eval()
    buf = io.BytesIO()
    with contextlib.nullcontext() if grad else torch.no_grad():
        torch.onnx.export(module, args, buf, opset_version=opset, input_names=input_names,
                          output_names=output_names, dynamic_axes=dynamic_axes, do_constant_folding=True)
    return onnx.load_from_string(buf.getvalue())
