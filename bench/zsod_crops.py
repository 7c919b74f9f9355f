"""zsOD: can the trunk's crops of the detections single out the object a described phrase names?

``python -m bench.zsod_crops [--set fb_sample] [--crop-side 128] [--context 1.0]``

For every *described* phrase that maps to a detector class ("a man in a yellow jacket",
"the tv on the table by the couch"), the class's detections scoring >= 0.1 (at most 24,
best first) are cropped from the feature-pass input and embedded by the trunk's image
tower. Two questions, each with the official F1 where it applies:

1. **Choice**: of the present phrases with a gold box among the candidates (IoU >= 0.5),
   how often the first candidate is one, ranked by: the detector's score; the crop-phrase
   cosine; its *class contrast* (cosine with the phrase minus cosine with the class's
   prompts); the detector score + 0.1 x the cosine's z-score over the candidates; the
   *request contrast* (softmax at temperature 0.03 of each crop over the phrase, the image's
   other phrases of the same class and the class prompts, times their number) times the score.
2. **Gate**: F1 of the whole set when a described phrase's answer (the task's own choice) is
   kept only if its best class contrast reaches tau, or its request contrast on the chosen box
   reaches 1 (the phrase at least as likely as the average alternative); every other phrase as
   the task answers it.

The detector's boxes are cached by image hash (``bench.zsod_detector.CachedDetector``).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import registry
from bench.zsod_detector import DATA, CachedDetector
from core.task import SetupContext

CANDIDATE = 0.1  # detections cropped for a described phrase
MAX_CANDIDATES = 24
TEMPERATURE = 0.03
GATES = (-1.0, 0.0, 0.04, 0.08, 0.12)


def described_rows(name: str, args: argparse.Namespace) -> tuple[list[dict[str, Any]], dict[str, Any], Any, list]:
    """Per described mapped phrase: its candidates' scores, hits and trunk cosines; plus the task's
    own predictions (gold, predictions, samples) to gate."""
    import numpy as np
    import torch

    from core.detector import DetectorConfig
    from core.detector.loader import load_detector
    from core.metrics.zsod import iou
    from core.trunk import TrunkConfig, load_trunk
    from plugins.zsod.detected import is_class_name
    from plugins.zsod.features import FEATURE_LONG_SIDE, feature_input, image_crop_embeddings
    from plugins.zsod.task import ZsodTask, to_stored

    torch.set_num_threads(args.threads)
    trunk = load_trunk(TrunkConfig(), registry.load())
    task = ZsodTask()
    loaded = task.setup(
        SetupContext.with_detector(
            trunk, CachedDetector(load_detector(DetectorConfig(), registry.load()), args.cache / "detections.pkl")
        )
    )
    rule, classes = task.rule, loaded.classes
    gold = json.loads((DATA / name / "true" / "zsOD" / "true_zsOD.json").read_text(encoding="utf-8"))
    samples = task.discover(DATA / name / "input")
    rows: list[dict[str, Any]] = []
    predictions: dict[str, Any] = {}
    with torch.inference_mode():
        for sample in samples:
            (item,) = task.preprocess([sample], trunk, loaded)
            (scored,) = task.predict([item], trunk, loaded)
            predictions[sample.key] = task.postprocess([scored], [sample], loaded)[0].value
            if item is None or scored is None or scored.detected is None:
                continue
            det, texts = scored.detected, trunk.encode_texts(item.tokens)
            pixels = feature_input(item.image, trunk, FEATURE_LONG_SIDE)  # the task builds it only for the grid
            mapped = [m.accepted(rule.mapping) for m in det.matches]
            for j, phrase in enumerate(item.phrases):
                if not mapped[j] or is_class_name(det, j, rule):
                    continue
                label = det.matches[j].label
                own = np.flatnonzero((det.labels == label) & (det.scores >= CANDIDATE))[:MAX_CANDIDATES]
                if len(own) == 0:
                    continue
                boxes = det.boxes[own]
                if args.context != 1.0:
                    centre, half = (boxes[:, :2] + boxes[:, 2:]) / 2, (boxes[:, 2:] - boxes[:, :2]) * args.context / 2
                    size = np.array(item.image.size * 2, dtype=np.float32)
                    boxes = np.clip(np.concatenate([centre - half, centre + half], 1), 0, size)
                crops = image_crop_embeddings(trunk, item.image.size, pixels, boxes, args.crop_side)
                same = [k for k in range(len(item.phrases)) if mapped[k] and det.matches[k].label == label]
                alternatives = torch.cat([texts[same], classes[label : label + 1]])
                probs = torch.softmax(crops @ alternatives.T / TEMPERATURE, dim=1)[:, same.index(j)] * len(alternatives)
                truth = gold[sample.key].get(phrase, [])
                stored = to_stored(det.boxes[own], scored.geometry)
                rows.append(
                    {
                        "key": sample.key,
                        "phrase": phrase,
                        "own": own,
                        "score": det.scores[own].astype(np.float64),
                        "hit": np.array([any(iou(b, t) >= 0.5 for t in truth) for b in stored]),
                        "cos": (crops @ texts[j]).numpy().astype(np.float64),
                        "contrast": (crops @ texts[j] - crops @ classes[label]).numpy().astype(np.float64),
                        "request": probs.numpy().astype(np.float64),
                    }
                )
    return rows, gold, predictions, samples


def main() -> int:
    import numpy as np

    from core.metrics.zsod import f1_counts

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--set", dest="name", default="fb_sample")
    parser.add_argument("--crop-side", type=int, default=128)
    parser.add_argument("--context", type=float, default=1.0, help="crop this many times the box's width and height")
    parser.add_argument("--cache", type=Path, default=Path("/tmp/zsod_detector_cache"))
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    args.cache.mkdir(parents=True, exist_ok=True)
    rows, gold, predictions, _ = described_rows(args.name, args)

    def z(x: np.ndarray) -> np.ndarray:
        return (x - x.mean()) / (x.std() + 1e-6) if len(x) > 1 else np.zeros_like(x)

    rankings = {
        "detector score": lambda r: r["score"],
        "crop-phrase cosine": lambda r: r["cos"],
        "class contrast": lambda r: r["contrast"],
        "score + 0.1 z(cosine)": lambda r: r["score"] + 0.1 * z(r["cos"]),
        "request contrast x score": lambda r: r["request"] * r["score"],
    }
    findable = [r for r in rows if r["hit"].any()]
    present = sum(1 for r in rows if gold[r["key"]][r["phrase"]])
    print(
        f"{args.name}: {len(rows)} described mapped phrases ({present} present, {len(findable)} with a gold box "
        f"among the candidates); crops {args.crop_side} px, context x{args.context}"
    )
    for what, key in rankings.items():
        first = sum(bool(r["hit"][int(np.argmax(key(r)))]) for r in findable)
        print(f"  choice by {what:26s}: a gold box first for {first} of {len(findable)}")

    def gated(keep: Any) -> dict[str, float]:
        pred = {k: dict(v) for k, v in predictions.items()}
        for r in rows:
            if pred[r["key"]][r["phrase"]] and not keep(r):
                pred[r["key"]][r["phrase"]] = []
        return f1_counts(gold, pred)

    def show(label: str, counts: dict[str, float]) -> None:
        print(
            f"  {label:44s} F1 {counts['f1']:.3f} (TP {counts['tp']:.0f} FP {counts['fp']:.0f} FN {counts['fn']:.0f})"
        )

    show("gate: none (the task as shipped)", gated(lambda r: True))
    for tau in GATES[1:]:
        show(f"gate: best class contrast >= {tau}", gated(lambda r, t=tau: r["contrast"].max() >= t))
    show(
        "gate: request contrast of the chosen box >= 1", gated(lambda r: r["request"][int(np.argmax(r["score"]))] >= 1)
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
