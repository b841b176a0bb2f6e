"""The ONNX twin of a value or belief network file, for programs outside Python.

The graph is the network's layers as they are (Gemm, then Relu between layers):
input `x` (float32, [batch, input size]), output `y` (float32, [batch, outputs]).
A value network's `y` times the file's `scale` is every seat's return, seats in
turn order from the player the input was encoded for (search.value); a belief
network's `y` is logits, places x kinds row by row, to be masked and normalised
over places for each kind (search.belief). The network file's metadata is
copied into the model's metadata_props. The twin is checked against the numpy
network on random inputs before it is kept.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from search.netfile import NetFile, load

OPSET = 17


def write_twin(net: NetFile, out: str | os.PathLike, *, check_rows: int = 64, tolerance: float = 1e-4) -> Path:
    """Writes `out` (an .onnx file) for a loaded network file and checks it; returns its path.
    Raises RuntimeError where onnxruntime and numpy disagree by more than `tolerance`."""
    import onnx
    import onnxruntime
    from onnx import TensorProto, helper, numpy_helper

    layers = net.mlp.layers
    nodes, inits = [], []
    current = "x"
    for i, (w, b) in enumerate(layers):
        inits += [numpy_helper.from_array(np.asarray(w, np.float32), f"w{i}"),
                  numpy_helper.from_array(np.asarray(b, np.float32), f"b{i}")]
        last = i == len(layers) - 1
        gemm = "y" if last else f"h{i}"
        nodes.append(helper.make_node("Gemm", [current, f"w{i}", f"b{i}"], [gemm], transB=1))
        if not last:
            nodes.append(helper.make_node("Relu", [gemm], [f"r{i}"]))
            current = f"r{i}"
    graph = helper.make_graph(
        nodes, f"cardarena_{net.kind}",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", net.mlp.input_size])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", int(np.prod(net.output_shape))])],
        inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="cardarena")
    for key, value in net.metadata.items():
        model.metadata_props.add(key=key, value=value)
    onnx.checker.check_model(model)
    out = Path(out)
    tmp = out.with_name(f".{out.name}.tmp{os.getpid()}")
    try:
        onnx.save(model, str(tmp))
        session = onnxruntime.InferenceSession(str(tmp), providers=["CPUExecutionProvider"])
        x = np.random.default_rng(0).random((check_rows, net.mlp.input_size), dtype=np.float32)
        got = session.run(["y"], {"x": x})[0]
        want = net.mlp(x)
        if not np.allclose(got, want, atol=tolerance, rtol=tolerance):
            raise RuntimeError(f"{out}: the ONNX twin differs from the network by {np.abs(got - want).max():.2e}")
        os.replace(tmp, out)
    finally:
        if tmp.exists():
            tmp.unlink()
    return out


def twin_of(path: str | os.PathLike, kind: str) -> Path:
    """Writes the twin of the network file at `path` beside it (same name, .onnx)."""
    path = Path(path)
    return write_twin(load(path, kind=kind), path.with_suffix(".onnx"))
