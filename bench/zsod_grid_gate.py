"""When does the grid pipeline earn its boxes for a class-like name the detector has no class for?

``python -m bench.zsod_grid_gate --coco DIR [--out OUT]``

Stand-in for names outside the detector's classes: the COCO128 images that are not in
``zsod_coco_dev`` (the grid's heads were fitted on some of those), each with its present
classes' names and as many absent ones (English on even images, Russian on odd ones), gold
boxes from the annotations (crowd boxes left out), every phrase sent to the grid pipeline
(no phrase maps to a detector class). Prints, per presence threshold and number of boxes,
the official F1 and the precision of the grid's boxes: answering beats ``[]`` in a set only
when the boxes are right more often than about half the set's F1 (a right box on a present
phrase is worth two, any other box costs one in F1's denominator), so the gate is the
threshold where precision clears 0.5, or none at all.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
from collections import defaultdict
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def build(coco: Path, out: Path) -> None:
    from core.detector import coco_classes

    names = coco_classes()
    ru_of = dict(zip(names.en, names.ru, strict=True))
    data = json.loads((coco / "annotations" / "instances_train2017.json").read_text())
    cats = {c["id"]: c["name"] for c in data["categories"]}
    dev = set(json.loads((DATA / "zsod_coco_dev" / "input" / "zsOD" / "requests.json").read_text()))
    anns: dict[int, list[Any]] = defaultdict(list)
    for a in data["annotations"]:
        if not a["iscrowd"]:
            anns[a["image_id"]].append(a)
    images = out / "input" / "zsOD" / "images"
    images.mkdir(parents=True, exist_ok=True)
    (out / "true" / "zsOD").mkdir(parents=True, exist_ok=True)
    requests, true = {}, {}
    rng = random.Random(0)
    kept = [i for i in sorted(data["images"], key=lambda i: i["file_name"]) if i["file_name"] not in dev]
    for n, img in enumerate(kept):
        boxes: dict[str, list[Any]] = defaultdict(list)
        for a in anns[img["id"]]:
            boxes[cats[a["category_id"]]].append(a["bbox"])
        absent = rng.sample(sorted(set(names.en) - set(boxes)), k=min(len(boxes), 6))
        ru = n % 2 == 1
        gold = {(ru_of[c] if ru else c): boxes.get(c, []) for c in [*boxes, *absent]}
        link = images / img["file_name"]
        if not link.exists():
            link.hardlink_to((coco / "train2017" / img["file_name"]).resolve())
        requests[img["file_name"]] = list(gold)
        true[img["file_name"]] = gold
    (out / "input" / "zsOD" / "requests.json").write_text(json.dumps(requests, ensure_ascii=False))
    (out / "true" / "zsOD" / "true_zsOD.json").write_text(json.dumps(true, ensure_ascii=False))


def raw_outputs(root: Path, cache: Path, threads: int) -> tuple[list[Any], list[Any], float]:
    """(samples, raw outputs, seconds) of the task's stages on the set, no phrase given a class; cached."""
    from bench.zsod_detector import RAW_FORMAT, stage_outputs
    from core.detector.phrases import MappingRule
    from plugins.zsod.detected import DetectionRule

    rule = DetectionRule(mapping=MappingRule(min_cos=2.0), grid_names=0.0)  # no phrase has a class; the grid runs
    return stage_outputs(root / "input", cache / f"grid{RAW_FORMAT}-{root.name}.pkl", rule, cache, threads)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--coco", type=Path, required=True)
    parser.add_argument("--out", type=Path, default=Path("/work/data-zsod/grid_standin"))
    parser.add_argument("--cache", type=Path, default=Path("/tmp/zsod_detector_cache"))
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    if not (args.out / "true").is_dir():
        build(args.coco, args.out)
    args.cache.mkdir(parents=True, exist_ok=True)
    samples, raw, seconds = raw_outputs(args.out, args.cache, args.threads)
    gold = json.loads((args.out / "true" / "zsOD" / "true_zsOD.json").read_text(encoding="utf-8"))

    from bench.zsod_detector import decide
    from core.detector.phrases import MappingRule
    from core.metrics.zsod import f1_counts
    from plugins.zsod.decision import Calibration
    from plugins.zsod.detected import DetectionRule
    from plugins.zsod.task import Scorer, ZsodTask

    shipped = Calibration.load()
    print(f"{len(samples)} images, {sum(map(len, gold.values()))} phrases, stages {seconds:.0f} s")
    print(f"shipped calibration: present {shipped.present}, extra {shipped.extra}, max_boxes {shipped.max_boxes}")
    for present in (None, shipped.present, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9):
        for max_boxes in (1, shipped.max_boxes):
            cal = dataclasses.replace(shipped, present=present if present is not None else 1.01, max_boxes=max_boxes)
            task = ZsodTask()
            loaded = Scorer(None, cal, None)  # type: ignore[arg-type]
            pred = decide(task, loaded, samples, raw, DetectionRule(mapping=MappingRule(min_cos=2.0), grid_names=0.0))
            c = f1_counts(gold, pred)
            boxes = c["tp"] + c["fp"]
            precision = c["tp"] / boxes if boxes else float("nan")
            label = "never" if present is None else f"{present:.3f}"
            print(f"present {label:>6} boxes<={max_boxes}: F1 {c['f1']:.3f} (TP {c['tp']:.0f} FP {c['fp']:.0f}) "
                  f"precision {precision:.2f}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
