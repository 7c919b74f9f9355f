"""Described phrases: does zsOD box the instance a phrase describes, and reject what is not there?

``python -m bench.zsod_described --set DIR [--pred OUT] [--sweep]``

``DIR`` is a set made by ``bench.zsod_described_set`` (its ``kinds.json`` gives each phrase's
kind and language). With ``--pred`` the prediction file of any version of the code is scored
(``OUT/prediction_zsOD.json``); without, the task's stages run here (the detector's boxes and
the stages' raw output cached under ``--cache``) and the shipped ``DetectionRule`` decides.

Per kind and language: a present phrase is *right* when one of its boxes has IoU >= 0.5 with
the gold box, *wrong* when it has boxes and none does, *empty* when it has none; an absent
phrase is *rejected* when it has none. Then the official F1 per language, and how many boxes
overlap another box of the same phrase at IoU >= 0.5 (boxes on an object already boxed).

``--ablations`` also decides with the crop embedding weighed in, or with the detector's score alone.
``--overlaps OUT...`` only counts those boxes in any prediction files.

``--sweep`` decides again from the cached raw output with a grid of ``DescribedRule`` weights,
and for the best weights the rejection thresholds per language, on the official F1 of each
language (English and Russian are calibrated apart, on the same weights).
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

RAW_FORMAT = 2  # 2 since ``Scored.routes`` holds ``detected.Route``s


def doubled_boxes(pred: dict[str, Any]) -> int:
    """How many boxes overlap another box of the same phrase at IoU >= 0.5 (an object boxed twice)."""
    import numpy as np

    from plugins.zsod.boxes import iou_matrix, xywh_to_xyxy

    count = 0
    for per in pred.values():
        for boxes in per.values():
            if len(boxes) > 1:
                a = xywh_to_xyxy(np.asarray(boxes))
                count += int(((iou_matrix(a, a) >= 0.5).sum(1) > 1).sum())
    return count


def report(pred: dict[str, Any], gold: dict[str, Any], kinds: dict[str, Any]) -> dict[str, Any]:
    """Counts per ``kind/lang`` and the official F1 per language."""
    import numpy as np

    from core.metrics.zsod import f1_counts
    from plugins.zsod.boxes import iou_matrix, xywh_to_xyxy

    table: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    by_lang: dict[str, tuple[dict[str, Any], dict[str, Any]]] = defaultdict(lambda: ({}, {}))
    for image, per in kinds.items():
        for phrase, (kind, lang) in per.items():
            answer = pred.get(image, {}).get(phrase, [])
            truth = gold[image][phrase]
            g, p = by_lang[lang]
            g.setdefault(image, {})[phrase] = truth
            p.setdefault(image, {})[phrase] = answer
            row = table[f"{kind}/{lang}"]
            row["n"] += 1
            if not truth:
                row["rejected"] += not answer
            elif not answer:
                row["empty"] += 1
            elif (iou_matrix(xywh_to_xyxy(np.asarray(answer)), xywh_to_xyxy(np.asarray(truth))) >= 0.5).any():
                row["right"] += 1
            else:
                row["wrong"] += 1
    f1 = {lang: f1_counts(g, p) for lang, (g, p) in sorted(by_lang.items())}
    return {"kinds": {k: dict(v) for k, v in sorted(table.items())}, "f1": f1, "doubled": doubled_boxes(pred)}


def show(result: dict[str, Any]) -> None:
    print(f"{'kind/lang':24} {'n':>4} {'right':>6} {'wrong':>6} {'empty':>6} {'rejected':>9}")
    for key, row in result["kinds"].items():
        n = row["n"]
        if key.startswith("absent"):
            print(f"{key:24} {n:4d} {'':>6} {'':>6} {'':>6} {row.get('rejected', 0) / n:9.2f}")
        else:
            cells = [row.get(c, 0) / n for c in ("right", "wrong", "empty")]
            print(f"{key:24} {n:4d} " + " ".join(f"{c:6.2f}" for c in cells))
    for lang, v in result["f1"].items():
        print(f"F1 {lang}: {v['f1']:.3f} (TP {v['tp']:.0f} FP {v['fp']:.0f} FN {v['fn']:.0f})")
    print(f"boxes overlapping another box of their phrase at IoU >= 0.5: {result['doubled']}")


def raw_outputs(root: Path, cache: Path, threads: int) -> tuple[list[Any], list[Any], float]:
    """(samples, raw outputs, seconds) of the task's stages on the set, crops included; cached."""
    from bench.zsod_detector import stage_outputs
    from plugins.zsod.detected import DetectionRule

    base = DetectionRule()
    rule = dataclasses.replace(base, described=dataclasses.replace(base.described, embed_weight=1.0))
    return stage_outputs(root / "input", cache / f"described{RAW_FORMAT}-{root.name}.pkl", rule, cache, threads)


def decide(task: Any, loaded: Any, samples: list[Any], raw: list[Any], rule: Any) -> dict[str, Any]:
    from bench.zsod_detector import decide as routed

    return routed(task, loaded, samples, raw, rule)


def ablations(
    task: Any, loaded: Any, samples: list[Any], raw: list[Any], gold: dict[str, Any], kinds: dict[str, Any]
) -> None:
    """F1 per language and the right share per kind: the crop embedding added, or the cues taken away."""
    from plugins.zsod.described import DescribedRule
    from plugins.zsod.detected import DetectionRule

    shipped = DescribedRule()
    no_cues = dataclasses.replace(shipped, colour_weight=0, position_weight=0, size_weight=0, relation_weight=0)
    rules = {f"shipped, embedding weight {w}": dataclasses.replace(shipped, embed_weight=w) for w in (0.05, 0.15, 0.5)}
    rules["detector score + embedding 0.15 (same rejection)"] = dataclasses.replace(no_cues, embed_weight=0.15)
    rules["detector score only (same rejection)"] = no_cues
    for name, rule in rules.items():
        result = report(decide(task, loaded, samples, raw, DetectionRule(described=rule)), gold, kinds)
        f1 = " / ".join(f"{v['f1']:.3f}" for v in result["f1"].values())
        right = {k: round(v.get("right", 0) / v["n"], 2) for k, v in result["kinds"].items() if "absent" not in k}
        print(f"{name}: F1 {' / '.join(result['f1'])} {f1}; right {right}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--set", type=Path, default=Path("/work/data-zsod/described"))
    parser.add_argument("--pred", type=Path, default=None)
    parser.add_argument("--cache", type=Path, default=Path("/tmp/zsod_detector_cache"))
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--sweep", action="store_true")
    parser.add_argument("--ablations", action="store_true", help="the shipped rule with the embedding, or without cues")
    parser.add_argument("--overlaps", type=Path, nargs="+", help="only count the doubled boxes of these OUT dirs")
    args = parser.parse_args()
    if args.overlaps:
        for out in args.overlaps:
            pred = json.loads((out / "prediction_zsOD.json").read_text(encoding="utf-8"))
            print(f"{out}: {doubled_boxes(pred)} boxes overlap another box of their phrase at IoU >= 0.5")
        return 0
    gold = json.loads((args.set / "true" / "zsOD" / "true_zsOD.json").read_text(encoding="utf-8"))
    kinds = json.loads((args.set / "kinds.json").read_text(encoding="utf-8"))
    if args.pred is not None:
        pred = json.loads((args.pred / "prediction_zsOD.json").read_text(encoding="utf-8"))
        show(report(pred, gold, kinds))
        return 0

    from bench.zsod_detector import _loaded_for_decisions
    from plugins.zsod.described import DescribedRule
    from plugins.zsod.detected import DetectionRule
    from plugins.zsod.task import ZsodTask

    args.cache.mkdir(parents=True, exist_ok=True)
    samples, raw, seconds = raw_outputs(args.set, args.cache, args.threads)
    print(f"{len(raw)} images, stages {seconds:.1f} s")
    task = ZsodTask()
    loaded = _loaded_for_decisions("none")
    print("shipped rule:")
    show(report(decide(task, loaded, samples, raw, DetectionRule()), gold, kinds))
    if args.ablations:
        ablations(task, loaded, samples, raw, gold, kinds)
    if not args.sweep:
        return 0

    def f1s(described: DescribedRule) -> dict[str, float]:
        result = report(decide(task, loaded, samples, raw, DetectionRule(described=described)), gold, kinds)
        return {lang: v["f1"] for lang, v in result["f1"].items()}

    open_rule = dict(colour_min=(("en", 0.0), ("ru", 0.0)), relation_min=0.0)
    best = (-1.0, DescribedRule())
    for colour, position, size, relation, embed in itertools.product(
        (0.5, 1.0, 2.0), (0.3, 1.0, 2.0), (0.2, 0.5, 1.0, 2.0), (0.5, 1.0), (0.0,)
    ):
        rule = DescribedRule(
            colour_weight=colour, position_weight=position, size_weight=size, relation_weight=relation,
            embed_weight=embed, **open_rule,  # type: ignore[arg-type]
        )  # fmt: skip
        scores = f1s(rule)
        mean = sum(scores.values()) / len(scores)
        if mean > best[0]:
            best = (mean, rule)
            print(f"weights {mean:.4f} {scores} {dataclasses.astuple(rule)}")
    rule = best[1]
    for relation_score in (0.1, 0.15, 0.2, 0.3):
        print(f"relation_score {relation_score}: {f1s(dataclasses.replace(rule, relation_score=relation_score))}")
    for relation_min in (0.0, 0.1, 0.2, 0.3, 0.5):
        print(f"relation_min {relation_min}: {f1s(dataclasses.replace(rule, relation_min=relation_min))}")
    for colour_min in (0.0, 0.03, 0.05, 0.08, 0.1, 0.15, 0.2, 0.3):
        cm = (("en", colour_min), ("ru", colour_min))
        print(f"colour_min {colour_min}: {f1s(dataclasses.replace(rule, colour_min=cm))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
