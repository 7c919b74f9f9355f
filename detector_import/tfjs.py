"""TF.js graph models: the weights their manifest describes, read with numpy alone.

Shared by the importer (``detector_import.nanodet``, in this project's venv) and the
TensorFlow reference (``detector_import.tf_reference``, in a tensorflow-cpu venv).
"""

from __future__ import annotations

import numpy as np


def decode_weights(model: dict, blob: bytes) -> dict[str, np.ndarray]:
    """The manifest's tensors by name; float16-quantised ones as float32."""
    values, offset = {}, 0
    for w in model["weightsManifest"][0]["weights"]:
        n = int(np.prod(w["shape"])) if w["shape"] else 1
        q = w.get("quantization")
        dtype = np.dtype(q["dtype"] if q else w["dtype"])
        values[w["name"]] = np.frombuffer(blob, dtype, n, offset).reshape(w["shape"])
        offset += n * dtype.itemsize
        if q:
            values[w["name"]] = values[w["name"]].astype(np.float32)
    if offset != len(blob):
        raise SystemExit(f"the manifest reads {offset} bytes of a {len(blob)}-byte .bin")
    return values
