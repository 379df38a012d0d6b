"""A real ONNX model with the query encoder's inputs and output, that is not MiniLM.

It loads and runs in onnxruntime like the real export, so only the probe check can
tell it apart: the stand-in for an export of another model (or one replaced by hand).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

__all__ = ["write_wrong_model"]


def write_wrong_model(path: Path, dim: int = 384) -> Path:
    """Hidden state = token id x a fixed random vector: valid shapes, meaningless vectors."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    names = ["input_ids", "attention_mask", "token_type_ids"]
    inputs = [helper.make_tensor_value_info(n, TensorProto.INT64, ["batch", "sequence"]) for n in names]
    output = helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch", "sequence", dim])
    weights = numpy_helper.from_array(np.random.default_rng(7).standard_normal((1, 1, dim)).astype(np.float32), "w")
    axes = numpy_helper.from_array(np.array([-1], dtype=np.int64), "axes")
    nodes = [
        helper.make_node("Cast", ["input_ids"], ["ids_f"], to=TensorProto.FLOAT),
        helper.make_node("Unsqueeze", ["ids_f", "axes"], ["ids_3d"]),
        helper.make_node("Mul", ["ids_3d", "w"], ["last_hidden_state"]),
    ]
    graph = helper.make_graph(nodes, "not-minilm", inputs, [output], initializer=[weights, axes])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
    return path
