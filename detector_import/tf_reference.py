"""The TensorFlow reference of a TF.js graph model: run ``model.json`` + its ``.bin`` with TensorFlow.

Runs in a separate environment that has ``tensorflow-cpu`` and numpy (not torch), from the
repository root::

    python -m detector_import.tf_reference MODEL_DIR NAME INPUT.npy OUT.npz

``MODEL_DIR/NAME.json`` is read as a GraphDef; its Const values come from the weights
manifest (float16-quantised weights are widened to float32, as TF.js does on load); the
graph runs on ``INPUT.npy`` (``[1, 3, H, W]`` float32) and every signature output is saved.
"""

from __future__ import annotations

import json
import sys

import numpy as np

from detector_import.tfjs import decode_weights


def main(model_dir: str, name: str, input_path: str, out_path: str) -> None:
    import tensorflow as tf
    from google.protobuf import json_format

    with open(f"{model_dir}/{name}.json") as f:
        model = json.load(f)
    with open(f"{model_dir}/{name}.bin", "rb") as f:
        values = decode_weights(model, f.read())
    graph_def = tf.compat.v1.GraphDef()
    json_format.ParseDict(model["modelTopology"], graph_def, ignore_unknown_fields=True)
    for node in graph_def.node:
        if node.op == "Const" and node.name in values:
            want = tf.as_dtype(node.attr["dtype"].type).as_numpy_dtype
            node.attr["value"].tensor.CopyFrom(tf.make_tensor_proto(values[node.name].astype(want)))
    graph = tf.Graph()
    with graph.as_default():
        tf.compat.v1.import_graph_def(graph_def, name="")
    inputs = model["signature"]["inputs"]
    outputs = sorted(model["signature"]["outputs"])
    with tf.compat.v1.Session(graph=graph) as session:
        got = session.run(outputs, {next(iter(inputs)): np.load(input_path)})
    np.savez(out_path, **{name.split(":")[0]: value for name, value in zip(outputs, got, strict=True)})


if __name__ == "__main__":
    main(*sys.argv[1:5])
