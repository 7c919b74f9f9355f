"""zsOD with the shared detector: calibrate ``DetectionRule`` and show where F1 comes from.

``python -m bench.zsod_detector --set zsod_coco_dev --set fb_sample [--ablate-trunk random] [--sweep]``

Runs the task's stages once per set (the detector's boxes cached by image hash under
``--cache``, the stages' raw output too, computed with a rule that runs the grid pipeline
for every image, so that every rule of the sweep can be decided from it: a phrase's class
match is kept with its cosine and margin, and accepted or not at decision time), then
decides and scores with the official F1:
the shipped ``DetectionRule``, and with ``--sweep`` a grid of thresholds, printed with
the F1 of each set and their mean (the rule is chosen on that mean, never per phrase).
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import itertools
import json
import pickle
import time
from pathlib import Path
from typing import Any

import registry
from core.task import SetupContext

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"
RAW_FORMAT = 4  # in the raw outputs' cache file names: 4 since ``Scored.routes`` holds ``detected.Route``s


class CachedDetector:
    """A detector whose answers are kept by image hash (tuning runs the same photos again and again)."""

    def __init__(self, inner: Any, path: Path) -> None:
        self.inner, self.path, self.classes = inner, path, inner.classes
        self.cache: dict[str, Any] = pickle.loads(path.read_bytes()) if path.is_file() else {}

    def detect(self, images: Any) -> list[Any]:
        import numpy as np

        keys = [hashlib.sha1(np.asarray(im).tobytes()).hexdigest() for im in images]
        todo = [i for i, k in enumerate(keys) if k not in self.cache]
        if todo:
            for i, found in zip(todo, self.inner.detect([images[i] for i in todo]), strict=True):
                self.cache[keys[i]] = found
            self.path.write_bytes(pickle.dumps(self.cache))
        return [self.cache[k] for k in keys]


def raw_outputs(name: str, ablation: str, cache: Path, threads: int) -> tuple[list[Any], list[Any], float]:
    """(samples, raw outputs, seconds) of the task on set ``name``; cached in ``cache``."""
    from core.detector.phrases import MappingRule
    from plugins.zsod.detected import DetectionRule

    # no phrase maps at predict time and the grid may answer any, so the grid pipeline runs for every image
    rule = DetectionRule(mapping=MappingRule(min_cos=2.0), grid_names=0.0, grid_described=0.0)
    path = cache / f"raw{RAW_FORMAT}-{name}-{ablation}.pkl"
    return stage_outputs(DATA / name / "input", path, rule, cache, threads, ablation=ablation)


def stage_outputs(
    input_dir: Path, path: Path, rule: Any, cache: Path, threads: int, *, ablation: str = "none"
) -> tuple[list[Any], list[Any], float]:
    """(samples, raw outputs, seconds) of zsOD's stages up to ``predict`` on ``input_dir`` with the
    detection ``rule``, the detector's answers cached in ``cache``; the whole result kept in ``path``."""
    if path.is_file():
        return pickle.loads(path.read_bytes())
    import torch

    from core.detector import DetectorConfig
    from core.detector.loader import load_detector
    from core.trunk import TrunkConfig, load_trunk
    from plugins.zsod.task import ZsodTask

    torch.set_num_threads(threads)
    trunk = load_trunk(TrunkConfig(ablation=ablation), registry.load())
    detector = CachedDetector(load_detector(DetectorConfig(), registry.load()), cache / "detections.pkl")
    task = ZsodTask(rule=rule)
    loaded = task.setup(SetupContext.with_detector(trunk, detector))
    samples = task.discover(input_dir)
    raw: list[Any] = []
    t0 = time.perf_counter()
    with torch.inference_mode():
        for i in range(0, len(samples), task.info.batch_size):
            chunk = samples[i : i + task.info.batch_size]
            raw += task.predict(task.preprocess(chunk, trunk, loaded), trunk, loaded)
    seconds = time.perf_counter() - t0
    path.write_bytes(pickle.dumps((samples, raw, seconds)))
    return samples, raw, seconds


def decide(task: Any, loaded: Any, samples: list[Any], raw: list[Any], rule: Any) -> dict[str, Any]:
    """The task's answers from cached raw outputs under another ``rule``: each phrase routed again
    (``detected.routes``, at the loaded calibration), then ``postprocess``. The raw outputs must hold
    grid scores for every image a rule sends to the grid (``raw_outputs`` runs the grid everywhere)."""
    from plugins.zsod.detected import routes

    task.rule = rule
    cal = loaded.calibration
    again = [s if s is None else s._replace(routes=routes(s.detected, len(s.routes), rule, cal)) for s in raw]
    return {p.key: p.value for p in task.postprocess(again, samples, loaded)}


def f1_of(name: str, samples: list[Any], raw: list[Any], rule: Any, task: Any, loaded: Any) -> dict[str, float]:
    from core.metrics.zsod import f1_counts

    pred = decide(task, loaded, samples, raw, rule)
    gold = json.loads((DATA / name / "true" / "zsOD" / "true_zsOD.json").read_text(encoding="utf-8"))
    return f1_counts(gold, pred)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--set", action="append", dest="sets", default=None)
    parser.add_argument("--ablate-trunk", default="none", choices=("none", "random"))
    parser.add_argument("--cache", type=Path, default=Path("/tmp/zsod_detector_cache"))
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--sweep", action="store_true")
    args = parser.parse_args()
    args.cache.mkdir(parents=True, exist_ok=True)
    sets = args.sets or ["zsod_coco_dev", "fb_sample"]

    from core.detector.phrases import MappingRule
    from plugins.zsod.detected import DetectionRule
    from plugins.zsod.task import ZsodTask

    runs = {name: raw_outputs(name, args.ablate_trunk, args.cache, args.threads) for name in sets}
    task = ZsodTask()
    loaded = _loaded_for_decisions(args.ablate_trunk)

    def show(rule: DetectionRule) -> float:
        scores = {name: f1_of(name, s, r, rule, task, loaded) for name, (s, r, _) in runs.items()}
        mean = sum(v["f1"] for v in scores.values()) / len(scores)
        parts = "  ".join(
            f"{k} F1 {v['f1']:.3f} (TP {v['tp']:.0f} FP {v['fp']:.0f} FN {v['fn']:.0f})" for k, v in scores.items()
        )
        print(f"mean {mean:.3f}  {parts}")
        return mean

    for name, (_, raw, seconds) in runs.items():
        print(f"{name}: {len(raw)} images, stages {seconds:.1f} s ({len(raw) / max(seconds, 1e-9):.2f} images/s)")
    print("shipped rule:", end=" ")
    show(DetectionRule())
    if not args.sweep:
        return 0
    best = (-1.0, None)
    grid = itertools.product(
        (0.4, 0.45),
        (0.02, 0.05),
        (0.2, 0.25, 0.3),
        (0.25, 0.3, 0.35),
        (0.2, 0.25, 0.3),
        (0.5, 0.55, 0.6),
        (None, 0.6, 0.9),
    )
    for min_cos, margin, present, extra, described, bare_cos, grid_described in grid:
        rule = DetectionRule(
            mapping=MappingRule(min_cos, margin),
            present=present,
            extra=max(extra, present),
            described_present=described,
            bare_cos=bare_cos,
            grid_described=grid_described,
        )
        scores = [f1_of(name, s, r, rule, task, loaded)["f1"] for name, (s, r, _) in runs.items()]
        mean = sum(scores) / len(scores)
        if mean > best[0]:
            best = (mean, rule)
            print(f"{mean:.4f}", [round(x, 3) for x in scores], dataclasses.astuple(rule))
    return 0


def _loaded_for_decisions(ablation: str) -> Any:
    """What ``postprocess`` reads of the loaded task: the grid pipeline's calibration."""
    from plugins.zsod.decision import Calibration
    from plugins.zsod.task import Scorer

    return Scorer(None, Calibration.load(), None)  # type: ignore[arg-type]


if __name__ == "__main__":
    raise SystemExit(main())
