"""zsOD approach 3, measured against the shipped pipeline: boxes from dense phrase maps, no proposals.

    python -m bench.zsod_dense [--data ../shared/data] [--threads 2] [--ablate-trunk random]

The shipped task scores ~680 grid proposals per image with two verifiers
(``plugins/zsod/README.md``). This benchmark tries the other classic road to
open-vocabulary boxes from a CLIP-style trunk (CAM / MaskCLIP style): project
every cell of the trunk's coarsest feature map into the joint space, so each
phrase gets a similarity map; z-score each cell against a fixed generic
vocabulary (the 1,000 ImageNet class names that timm ships) so that cells
which match *anything* well do not win; then

* presence: the phrase is answered when its best cell's z-score >= ``theta``;
* box: the 4-connected component of cells within ``delta`` of that best score
  that contains the best cell, as one box.

``theta`` and ``delta`` are chosen by grid search for the official F1
(``core.metrics.zsod``) on the training half of ``zsod_coco_dev`` (the rule of
``core.splits.challenge_halves``); the held-out half and ``fb_sample`` are
scored once with the chosen pair. Nothing here is shipped: it answers whether
dense maps beat proposals + verifiers on this trunk.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

import registry
from core.metrics.zsod import f1_counts
from plugins.zsod.pipeline import component_box

REPO = Path(__file__).resolve().parents[1]

LONG_SIDE = 512
THETAS = (1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 10.0)
DELTAS = (0.5, 1.0, 2.0, 3.0, 4.0, 6.0, 8.0)


class PhraseMaps(NamedTuple):
    """One image: per-phrase z-score maps over the feature grid, and how to map cells to stored pixels."""

    phrases: list[str]
    z: np.ndarray  # [P, h, w]
    cell: tuple[float, float]  # loaded-image pixels per cell (x, y)
    geometry: Any  # plugins.zsod.task.Geometry


def phrase_maps(trunk, image_path: Path, phrases: Sequence[str], reference) -> PhraseMaps:  # noqa: ANN001
    import torch

    from core.io import load_image_and_info
    from plugins.zsod.features import feature_input
    from plugins.zsod.task import geometry_of

    image, stored = load_image_and_info(image_path)
    pixels = feature_input(image, trunk, LONG_SIDE)
    fmap = trunk.image_feature_maps(pixels.unsqueeze(0)).maps[-1][0]  # [C, h, w]
    c, h, w = fmap.shape
    cells = trunk.project_pooled(fmap.permute(1, 2, 0).reshape(h * w, c))  # [h*w, D] unit
    texts = trunk.embed_texts(list(phrases)) if phrases else torch.zeros(0, cells.shape[1])
    ref = cells @ reference.T  # [h*w, V]
    z = (cells @ texts.T - ref.mean(1, keepdim=True)) / ref.std(1, keepdim=True).clamp(min=1e-6)
    z = z.T.reshape(len(phrases), h, w).float().numpy()
    geometry = geometry_of(stored.size, stored.orientation, image.size)
    return PhraseMaps(list(phrases), z, (image.size[0] / w, image.size[1] / h), geometry)


def predict(maps: Mapping[str, PhraseMaps], theta: float, delta: float) -> dict[str, dict[str, list]]:
    from plugins.zsod.task import to_stored

    out: dict[str, dict[str, list]] = {}
    for key, m in maps.items():
        answers: dict[str, list] = {}
        for j, phrase in enumerate(m.phrases):
            if m.z[j].max() < theta:
                answers[phrase] = []
                continue
            x0, y0, x1, y1 = component_box(m.z[j], delta)
            box = np.array([[x0 * m.cell[0], y0 * m.cell[1], x1 * m.cell[0], y1 * m.cell[1]]])
            answers[phrase] = to_stored(box, m.geometry)
        out[key] = answers
    return out


def load_set(set_dir: Path, names: Sequence[str] | None, trunk, reference) -> tuple[dict, dict]:  # noqa: ANN001
    from core.io import find_task_dir, read_json_object, read_request

    gold = read_json_object(set_dir / "true" / "zsOD" / "true_zsOD.json")
    task_dir = find_task_dir(set_dir / "input", "zsOD", "OD")
    requests = read_request(task_dir, "requests.json")
    image_dir = task_dir / "images" if (task_dir / "images").is_dir() else task_dir
    keys = [k for k in requests if names is None or k in names]
    maps = {k: phrase_maps(trunk, image_dir / k, list(dict.fromkeys(requests[k])), reference) for k in keys}
    return maps, {k: gold[k] for k in keys}


def main() -> int:
    import torch

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--ablate-trunk", default="none", choices=("none", "random"))
    args = parser.parse_args()
    torch.set_num_threads(args.threads)

    from core.splits import challenge_halves
    from core.trunk import TrunkConfig, load_trunk
    from plugins.vqa.answerer import imagenet_names

    trunk = load_trunk(TrunkConfig(ablation=args.ablate_trunk), registry.load())
    start = time.perf_counter()
    with torch.inference_mode():
        reference = trunk.embed_texts(imagenet_names())
        train_names, held_names = challenge_halves(args.data / "zsod_coco_dev", "zsOD")
        coco = args.data / "zsod_coco_dev"
        train_maps, train_gold = load_set(coco, train_names, trunk, reference)
        held_maps, held_gold = load_set(coco, held_names, trunk, reference)
        fb_maps, fb_gold = load_set(args.data / "fb_sample", None, trunk, reference)
    n_images = len(train_maps) + len(held_maps) + len(fb_maps)
    seconds = time.perf_counter() - start

    grid = [(f1_counts(train_gold, predict(train_maps, t, d))["f1"], t, d) for t in THETAS for d in DELTAS]
    f1, theta, delta = max(grid)
    print(f"trunk ablation: {args.ablate_trunk}; {n_images} images in {seconds:.1f} s (incl. phrase embedding)")
    print(f"chosen on zsod_coco_dev train half: theta {theta}, delta {delta} (train F1 {f1:.3f})")
    results = {"theta": theta, "delta": delta, "train_f1": f1}
    for name, maps, gold in (("coco_heldout", held_maps, held_gold), ("fb_sample", fb_maps, fb_gold)):
        s = f1_counts(gold, predict(maps, theta, delta))
        results[name] = s
        print(
            f"{name:<13} F1 {s['f1']:.3f}  P {s['precision']:.3f}  R {s['recall']:.3f}  "
            f"TP {s['tp']:.0f} FP {s['fp']:.0f} FN {s['fn']:.0f}"
        )
    print(json.dumps(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
