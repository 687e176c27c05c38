"""Each bad input raises the documented exception (docs/python.md, "Errors")
with the command line's one-line message, the node named where there is one."""

import numpy as np
import pytest

import mlipc
from conftest import DIGITS


def test_missing_model_file(tmp_path):
    with pytest.raises(mlipc.CompileError) as e:
        mlipc.compile(tmp_path / "nothing.onnx")
    assert "nothing.onnx" in str(e.value) and e.value.node is None and "\n" not in str(e.value)
    with pytest.raises(mlipc.CompileError, match="nothing.tar"):
        mlipc.load(tmp_path / "nothing.tar")


def test_unsupported_operator_names_the_node_and_op():
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper

    g = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["r"], name="first_relu"),
         helper.make_node("Bernoulli", ["r"], ["y"], name="my_bernoulli")],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])],
    )
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 15)])
    with pytest.raises(mlipc.CompileError) as e:
        mlipc.compile(model)
    assert isinstance(e.value, mlipc.Error)
    assert (e.value.node, e.value.op) == ("my_bernoulli", "Bernoulli")
    assert "node 'my_bernoulli' (Bernoulli)" in str(e.value) and "not supported" in str(e.value)


def test_unknown_keyword_and_bad_value_give_the_command_lines_message():
    with pytest.raises(mlipc.CompileError, match=r"unknown option '--num-tile' for mlipc compile"):
        mlipc.compile(DIGITS, num_tile=4)
    with pytest.raises(mlipc.CompileError, match="num_tiles"):
        mlipc.compile(DIGITS, num_tiles=3)
    with pytest.raises(mlipc.CompileError, match="--memory-planner|planner"):
        mlipc.compile(DIGITS, memory_planner="best")


@pytest.fixture(scope="module")
def module():
    return mlipc.compile(DIGITS, target="c")


def test_wrong_input_name(module):
    with pytest.raises(mlipc.RunError, match=r"array 'image' is not an input of .*\(its inputs: Input3\)"):
        module.run({"image": np.zeros((1, 1, 28, 28), np.float32)})
    with pytest.raises(mlipc.RunError, match=r"no array 'Input3'"):
        module.run({})


def test_wrong_shape(module):
    with pytest.raises(mlipc.RunError, match=r"array 'Input3' has shape \[1,28,28\], but the input 'Input3'"):
        module.run({"Input3": np.zeros((1, 28, 28), np.float32)})


def test_wrong_dtype(module):
    with pytest.raises(mlipc.RunError, match=r"array 'Input3' is float64, but the input 'Input3' .* is float32"):
        module.run({"Input3": np.zeros((1, 1, 28, 28))})
