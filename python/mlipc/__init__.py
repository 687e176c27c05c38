"""mlipc from Python: compile an ONNX model, run it on numpy arrays, inspect it.

The same compiler as the ``mlipc`` command line (the same C++ libraries, no
subprocess of it); docs/python.md has the walk-through::

    import mlipc
    module = mlipc.compile("model.onnx", target="mrvl, c", num_tiles=4)
    outputs = module.run({"Input3": image})
    module.export("model.tar")

Errors are :class:`CompileError` and :class:`RunError` (both :class:`Error`),
with the command line's one-line message and, for an error at a node of the
model, its name and op (``.node``, ``.op``).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from . import _mlipc

__all__ = ["Error", "CompileError", "RunError", "Module", "ProfileRow", "compile", "load"]

PathLike = Union[str, "os.PathLike[str]"]
Inputs = Union[Mapping[str, np.ndarray], Sequence[np.ndarray], np.ndarray]


class Error(Exception):
    """An error of mlipc: ``str(e)`` is the command line's one-line message.

    ``node`` and ``op`` name the ONNX node (its name and operator) when the
    error is at one, else they are None.
    """

    def __init__(self, message: str, node: Optional[str] = None, op: Optional[str] = None):
        super().__init__(message)
        self.message = message
        self.node = node
        self.op = op


class CompileError(Error):
    """compile() or load() failed: a missing or malformed model, an unsupported
    operator, an unknown keyword or a bad option value."""


class RunError(Error):
    """run(), run_many() or profile() failed: an input missing, unknown, or of
    another shape or dtype than the model's, or the model's run itself."""


def _raise(kind: type, failure: BaseException) -> None:
    message, node, op = failure.args
    raise kind(message, node, op) from None


@dataclass
class ProfileRow:
    """One row of ``mlipc run --profile``: a CPU layer or an MLIP layer."""

    region: str  #: "cpu", or the MLIP region's name
    layer: str  #: the CPU layer's op, the MLIP layer's kind, or "load_weights"
    onnx_nodes: List[str]  #: the ONNX nodes it computes
    macs: Optional[int]  #: None when not recorded (or load_weights)
    cycles: Optional[int]  #: MLIP layers: the simulator's cycles; None on the CPU
    host_us: float  #: measured host time of one run, microseconds


def _tokens(value: Any) -> List[str]:
    """A keyword's value as the command line's tokens."""
    if isinstance(value, bool):
        raise TypeError("mlipc options take no True/False: give the value the command line takes")
    if isinstance(value, Mapping):  # input_shapes={"x": (1, 3, 96, 96)}
        return [f"{name}:[{','.join(str(int(d)) for d in shape)}]" for name, shape in value.items()]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _tokens(v)]
    return [os.fspath(value) if isinstance(value, os.PathLike) else str(value)]


def _arrays(named: Mapping[str, np.ndarray]) -> List[Tuple[str, str, List[int], bytes]]:
    out = []
    for name, a in named.items():
        a = np.ascontiguousarray(a)
        out.append((str(name), a.dtype.name, list(a.shape), a.tobytes()))
    return out


def _numpy(arrays: Sequence[Tuple[str, str, List[int], bytes]]) -> Dict[str, np.ndarray]:
    return {name: np.frombuffer(data, dtype=np.dtype(dtype)).reshape(shape).copy() for name, dtype, shape, data in arrays}


def _calibration(data: Mapping[str, Any]) -> Dict[str, np.ndarray]:
    """calibration={name: array [N, ...] or a list of samples}: one array per input."""
    out = {}
    for name, v in data.items():
        if isinstance(v, (list, tuple)):
            v = np.stack([np.asarray(s) for s in v])
        out[name] = np.asarray(v)
    return out


class Module:
    """A compiled model: the Model Library Format tarball ``mlipc compile`` writes.

    Made by :func:`compile` or :func:`load`; :meth:`export` writes the tarball.
    """

    def __init__(self, tarball: PathLike, name: str, summary: str = "", _owned: Optional[tempfile.TemporaryDirectory] = None):
        tarball = os.fspath(tarball)
        try:  # checked where it is, before it is copied
            self._inspect = json.loads(_mlipc.inspect_json(tarball, name))
            self._mesh = _mlipc.is_mesh(tarball)
        except _mlipc.Failure as e:
            _raise(CompileError, e)
        # The module's own copy: export() and run() read it, whatever happens to the file.
        self._dir = _owned or tempfile.TemporaryDirectory(prefix="mlipc-")
        self._path = os.path.join(self._dir.name, "module.tar")
        if os.path.abspath(tarball) != self._path:
            shutil.copyfile(tarball, self._path)
        self.name = name  #: how messages name the tarball
        self.summary = summary  #: what ``mlipc compile`` prints about it
        self._runners: Dict[Tuple[str, str], Any] = {}

    # -- what it is -------------------------------------------------------
    @property
    def is_pipeline(self) -> bool:
        """True for a model pipelined across processing elements (pes=N)."""
        return self._mesh

    @property
    def input_names(self) -> List[str]:
        """The model's inputs, in order (positional run() arguments follow it)."""
        return [i["name"] for i in self._io("inputs")]

    @property
    def output_names(self) -> List[str]:
        return [o["name"] for o in self._io("outputs")]

    def _io(self, kind: str) -> List[Dict[str, Any]]:
        d = self._inspect  # a mesh lists its inputs and outputs as indices into its tensors
        return [d["tensors"][i] for i in d[kind]] if d["kind"] == "mesh" else d[kind]

    def inspect(self) -> Dict[str, Any]:
        """The partition, regions, per-layer MACs and cycles, memory plan and
        quantization report: ``mlipc inspect --json``'s object (docs/inspect-json.md)."""
        return json.loads(json.dumps(self._inspect))

    def export(self, path: PathLike) -> None:
        """Writes the tarball to ``path`` (atomically: a file beside it, renamed)."""
        path = os.fspath(path)
        fd, tmp = tempfile.mkstemp(prefix=".mlipc-", suffix=".tar", dir=os.path.dirname(os.path.abspath(path)))
        try:
            with os.fdopen(fd, "wb") as out, open(self._path, "rb") as src:
                shutil.copyfileobj(src, out)
            os.replace(tmp, path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise

    # -- running it -------------------------------------------------------
    def _named(self, inputs: Inputs) -> Dict[str, np.ndarray]:
        if isinstance(inputs, np.ndarray):
            inputs = [inputs]
        if isinstance(inputs, Mapping):
            return dict(inputs)
        names = self.input_names
        if len(inputs) != len(names):
            raise RunError(f"{self.name}: {len(inputs)} positional input(s) for {len(names)} input(s): {', '.join(names)}")
        return dict(zip(names, inputs))

    def run(self, inputs: Inputs, *, timeout: int = _mlipc.DEFAULT_RUN_SECONDS, remote: Optional[str] = None,
            token_file: Optional[PathLike] = None) -> Dict[str, np.ndarray]:
        """Runs the model once in host emulation (``mlipc run``: its build
        cache, its checks) on ``inputs``, a dict of arrays by input name or
        the arrays in input order; returns the outputs by name.

        ``remote="host:port"`` runs it on ``mlipc serve`` there instead, as
        ``mlipc run --remote`` does: the runner ``compile`` built with
        ``cross_compiler=...`` (or ``mlipc compile --cross-compiler``) on this
        machine; ``token_file`` holds the server's shared token.

        Names, shapes and dtypes are checked first: :class:`RunError` names the input.
        """
        return self._execute(self._named(inputs), timeout, remote, token_file)

    def run_many(self, batches: Sequence[Inputs], *, timeout: int = _mlipc.DEFAULT_RUN_SECONDS,
                 remote: Optional[str] = None, token_file: Optional[PathLike] = None) -> List[Dict[str, np.ndarray]]:
        """Runs each set of inputs; the build is made once, and the sets run
        in one process (on a server: one job each). A pipeline (pes=N)
        streams them all through one run. ``timeout`` is each set's;
        ``remote`` and ``token_file`` as for :meth:`run`."""
        named = [self._named(b) for b in batches]
        if self._mesh and remote:
            raise RunError(f"{self.name}: a pipeline runs here only (mlipc run --remote takes no mesh tarball)")
        if self._mesh and named:
            keys = list(named[0])
            stacked = {k: np.stack([np.asarray(b[k]) for b in named]) for k in keys}
            out = self._run_mesh(stacked, timeout)
            return [{k: v[i] for k, v in out.items()} for i in range(len(named))]
        if self._mesh:
            return []
        try:
            outs = self._host(remote, token_file).run_each([_arrays(b) for b in named], timeout)
        except _mlipc.Failure as e:
            _raise(RunError, e)
        return [_numpy(o) for o in outs]

    def profile(self, inputs: Inputs, *, timeout: int = _mlipc.DEFAULT_RUN_SECONDS) -> List[ProfileRow]:
        """Runs once and returns ``mlipc run --profile``'s rows."""
        if self._mesh:
            raise RunError(f"{self.name}: a pipeline has no per-layer profile (mlipc run --profile takes no mesh tarball)")
        try:
            rows, _ = self._host().profile(_arrays(self._named(inputs)), timeout)
        except _mlipc.Failure as e:
            _raise(RunError, e)
        return [ProfileRow(**r) for r in rows]

    def _host(self, remote: Optional[str] = None, token_file: Optional[PathLike] = None) -> Any:
        key = (remote or "", os.fspath(token_file) if token_file else "")
        if key not in self._runners:
            try:
                self._runners[key] = _mlipc.Runner(self._path, self.name, *key)
            except _mlipc.Failure as e:
                _raise(RunError, e)
        return self._runners[key]

    def _execute(self, named: Dict[str, np.ndarray], timeout: int, remote: Optional[str] = None,
                 token_file: Optional[PathLike] = None) -> Dict[str, np.ndarray]:
        if self._mesh and remote:
            raise RunError(f"{self.name}: a pipeline runs here only (mlipc run --remote takes no mesh tarball)")
        if self._mesh:
            shapes = {i["name"]: list(i["shape"]) for i in self._io("inputs")}
            one = all(list(np.shape(a)) == shapes.get(k) for k, a in named.items())
            out = self._run_mesh(named, timeout)
            return {k: v[0] for k, v in out.items()} if one else out
        try:
            return _numpy(self._host(remote, token_file).run(_arrays(named), timeout))
        except _mlipc.Failure as e:
            _raise(RunError, e)

    def _run_mesh(self, named: Dict[str, np.ndarray], timeout: int) -> Dict[str, np.ndarray]:
        with tempfile.TemporaryDirectory(prefix="mlipc-run-") as d:
            try:
                return _numpy(_mlipc.run_mesh(self._path, _arrays(named), d, timeout))
            except _mlipc.Failure as e:
                _raise(RunError, e)


def _model_path(model: Any, folder: str) -> Tuple[str, str]:
    """The model as a file (bytes and ModelProtos written to `folder`), and its name."""
    if isinstance(model, (str, os.PathLike)):
        path = os.fspath(model)
        return path, os.path.splitext(os.path.basename(path))[0] or "model"
    if isinstance(model, (bytes, bytearray, memoryview)):
        data = bytes(model)
    elif hasattr(model, "SerializeToString"):  # onnx.ModelProto, without importing onnx
        data = model.SerializeToString()
    else:
        raise TypeError(f"model: a path, bytes or an onnx.ModelProto, not {type(model).__name__}")
    path = os.path.join(folder, "model.onnx")
    with open(path, "wb") as f:
        f.write(data)
    return path, "model"


def compile(model: Union[PathLike, bytes, Any], target: str = "mrvl, c", **options: Any) -> Module:
    """Compiles an ONNX model (a path, its bytes, or an ``onnx.ModelProto``) for ``target``.

    ``options`` are ``mlipc compile``'s, as keywords: the long option's name
    with underscores (``workspace_byte_alignment=16``, ``quantize="int8"``,
    ``pes=2``), and the ``--target-mrvl-*`` ones by their last part
    (``num_tiles=4``, ``mcpu="cn10ka"``, ``mattr="sim -quantize=fp16"``).
    ``input_shapes={"x": (1, 3, 96, 96)}``; ``calibration={name: array}``
    (a leading sample axis, or a list of samples) or a .npz path. An unknown
    keyword or a bad value raises :class:`CompileError` with the command
    line's message.
    """
    if "output" in options or "o" in options:
        raise TypeError("compile() takes no output: module.export(path) writes the tarball")
    folder = tempfile.TemporaryDirectory(prefix="mlipc-")
    path, name = _model_path(model, folder.name)
    calibration = options.pop("calibration", None)
    arrays = None
    keywords = [("target", [target])]
    if isinstance(calibration, Mapping):
        arrays = _arrays(_calibration(calibration))
    elif calibration is not None:
        keywords.append(("calibration", _tokens(calibration)))
    keywords += [(k, _tokens(v)) for k, v in options.items()]
    out = os.path.join(folder.name, "module.tar")
    try:
        summary = _mlipc.compile(path, out, keywords, arrays)
    except _mlipc.Failure as e:
        _raise(CompileError, e)
    return Module(out, name + ".tar", summary, _owned=folder)


def load(path: PathLike) -> Module:
    """Loads a tarball ``mlipc compile`` (or :meth:`Module.export`) wrote."""
    path = os.fspath(path)
    return Module(path, path)
