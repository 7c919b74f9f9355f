"""Train the zsOD verifier and calibrate the decision: ``python -m plugins.zsod.train``.

Data: the train half of ``../shared/data/zsod_coco_dev`` (the same split as
``core.train_trunk.zsod_split``, whose other half is held out for reporting).
Steps, all seeded:

1. stage-1 features of every (grid box, phrase) pair with the frozen trunk
   (cached under ``--cache``, keyed by the trunk version and the grid);
2. the stage-1 head on the whole train half; its best boxes per phrase are
   re-scored from crops (stage-2 features);
3. 3-fold out-of-fold stage-2 probabilities on the train half, on which the
   decision thresholds are chosen to maximise the official F1
   (``core.metrics.zsod``); then the stage-2 head on the whole train half.

Writes ``plugins/zsod/data/{verifier.safetensors, verifier.json, calibration.json}``
and prints F1 of the held-out half and of ``fb_sample`` (evaluation only; never
used for fitting or calibration).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import time
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from plugins.zsod.boxes import as_box_list, iou_matrix

log = logging.getLogger("plugins.zsod.train")

REPO = Path(__file__).resolve().parents[2]
DATA = REPO.parent / "shared" / "data"


class ImageData(NamedTuple):
    """Pair data of one image at one stage (boxes are all proposals or the candidates)."""

    key: str
    phrases: tuple[str, ...]
    size: tuple[int, int]  # (width, height)
    boxes: np.ndarray  # [N, 4] xyxy pixels (these sets have no EXIF rotation)
    feats: np.ndarray  # [N, P, F]
    labels: np.ndarray  # [N, P] 1 where IoU >= 0.5 with a gold box of the phrase
    gold: dict[str, list[list[float]]]
    extra: dict[str, np.ndarray]  # stage-1 sims / image_sims for stage 2


def zsod_split(data: Path) -> tuple[list[str], list[str]]:
    """(train, held_out) images of ``zsod_coco_dev``: core.train_trunk's rule (sha1 order, first half held out)."""
    gold = json.loads((data / "zsod_coco_dev" / "true" / "zsOD" / "true_zsOD.json").read_text(encoding="utf-8"))
    order = sorted(gold, key=lambda n: hashlib.sha1(n.encode()).hexdigest())
    n_held = len(order) // 2 + len(order) % 2
    return sorted(order[n_held:]), sorted(order[:n_held])


def labels_for(boxes: np.ndarray, phrases: Sequence[str], gold: dict[str, Any]) -> np.ndarray:
    labels = np.zeros((len(boxes), len(phrases)), dtype=np.float32)
    for j, phrase in enumerate(phrases):
        g = as_box_list(gold.get(phrase, []))
        if len(g) and len(boxes):
            labels[:, j] = iou_matrix(boxes, g).max(axis=1) >= 0.5
    return labels


def samples_of(set_dir: Path, names: Sequence[str] | None, task: Any) -> list[Any]:
    from plugins.zsod.task import ZsodSample

    samples = [s for s in task.discover(set_dir / "input") if isinstance(s, ZsodSample)]
    return [s for s in samples if names is None or s.key in names]


def extract(set_dir: Path, names: Sequence[str] | None, task: Any, trunk: Any, cache: Path) -> list[ImageData]:
    """Stage-1 features and labels of the images ``names`` (all when None) of one set."""
    import torch
    from tqdm import tqdm

    from plugins.zsod.task import pair_data

    gold_all = json.loads((set_dir / "true" / "zsOD" / "true_zsOD.json").read_text(encoding="utf-8"))
    from plugins.zsod.verifier import FEATURE_NAMES

    key = f"{trunk.version}|{task.grid}|{task.version}|{FEATURE_NAMES}"
    tag = hashlib.sha1(key.encode()).hexdigest()[:10]
    folder = cache / tag / set_dir.name
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for sample in tqdm(samples_of(set_dir, names, task), desc=f"stage 1 {set_dir.name}", unit="img"):
        path = folder / f"{sample.key}.npz"
        if not path.exists():
            (item,) = task.preprocess([sample], trunk)
            if item is None:
                continue
            with torch.inference_mode():
                pair = pair_data(item, trunk)
            np.savez(
                path,
                boxes=pair.boxes,
                feats=pair.feats,
                sims=pair.sims,
                image_sims=pair.image_sims,
                size=np.array(item.image.size),
            )
        z = np.load(path)
        gold = gold_all[sample.key]
        out.append(
            ImageData(
                sample.key,
                sample.phrases,
                (int(z["size"][0]), int(z["size"][1])),
                z["boxes"],
                z["feats"],
                labels_for(z["boxes"], sample.phrases, gold),
                gold,
                {"sims": z["sims"], "image_sims": z["image_sims"]},
            )
        )
    return out


def stage2(set_dir: Path, data: Sequence[ImageData], head1: Any, task: Any, trunk: Any) -> list[ImageData]:
    """Crop re-scoring of each image's stage-1 candidates (as at inference)."""
    import torch
    from tqdm import tqdm

    from plugins.zsod.task import PairData, crop_stage
    from plugins.zsod.verifier import run_head

    by_key = {s.key: s for s in samples_of(set_dir, [d.key for d in data], task)}
    out = []
    for d in tqdm(data, desc=f"stage 2 {set_dir.name}", unit="img"):
        (item,) = task.preprocess([by_key[d.key]], trunk)
        logits1 = run_head(head1, d.feats)
        pair = PairData(d.boxes, d.feats, d.extra["sims"], d.extra["image_sims"])
        with torch.inference_mode():
            cands, feats2 = crop_stage(item, trunk, pair, logits1)
        boxes = d.boxes[cands]
        out.append(ImageData(d.key, d.phrases, d.size, boxes, feats2, d.labels[cands], d.gold, {}))
    return out


def fit_head(data: Sequence[ImageData], seed: int, steps: int) -> Any:
    """Train a verifier head on the pairs of ``data`` (full batch, Adam, weighted BCE)."""
    import torch

    from plugins.zsod.verifier import build_head

    torch.manual_seed(seed)
    x = torch.from_numpy(np.concatenate([d.feats.reshape(-1, d.feats.shape[-1]) for d in data]))
    y = torch.from_numpy(np.concatenate([d.labels.reshape(-1) for d in data]))
    head = build_head(x.shape[1])
    head.mean.copy_(x.mean(0))
    head.std.copy_(x.std(0).clamp(min=1e-4))
    opt = torch.optim.Adam(head.net.parameters(), lr=3e-3, weight_decay=1e-4)
    pos = float(y.sum())
    weight = torch.tensor(min(50.0, (len(y) - pos) / max(pos, 1.0)))  # positives are rare
    for _ in range(steps):
        opt.zero_grad()
        loss = torch.nn.functional.binary_cross_entropy_with_logits(head(x), y, pos_weight=weight)
        loss.backward()
        opt.step()
    log.info("head trained: %d pairs, %d positive, final loss %.4f", len(y), int(pos), loss.item())
    return head.eval()


def probabilities(head: Any, data: Sequence[ImageData]) -> list[np.ndarray]:
    from plugins.zsod.verifier import run_head, sigmoid

    return [sigmoid(run_head(head, d.feats)) for d in data]


def out_of_fold(data: Sequence[ImageData], seed: int, steps: int, folds: int = 3) -> list[np.ndarray]:
    """Probabilities of each image from a head that never saw it (``folds``-fold)."""
    probs: dict[str, np.ndarray] = {}
    for i in range(folds):
        held = data[i::folds]
        rest = [d for j in range(folds) if j != i for d in data[j::folds]]
        head = fit_head(rest, seed + i, steps)
        probs.update({d.key: p for d, p in zip(held, probabilities(head, held), strict=True)})
    return [probs[d.key] for d in data]


def f1_of(data: Sequence[ImageData], probs: Sequence[np.ndarray], cal: Any) -> dict[str, float]:
    """Official F1 (``core.metrics.zsod``) of the decision ``cal``."""
    from core.metrics.zsod import f1_counts
    from plugins.zsod.boxes import to_output_boxes
    from plugins.zsod.decision import choose_boxes

    pred, gold = {}, {}
    for d, p in zip(data, probs, strict=True):
        pred[d.key] = {
            phrase: to_output_boxes(d.boxes[choose_boxes(d.boxes, p[:, j], cal)], *d.size)
            for j, phrase in enumerate(d.phrases)
        }
        gold[d.key] = {k: v for k, v in d.gold.items() if k in pred[d.key]}
    return f1_counts(gold, pred)


def calibrate(data: Sequence[ImageData], probs: Sequence[np.ndarray], provenance: dict[str, Any]) -> Any:
    """Grid-search the thresholds that maximise F1 on ``data`` with out-of-fold ``probs``."""
    from plugins.zsod.decision import Calibration

    tops = np.concatenate([p.max(axis=0) for p in probs if p.size])
    present_grid = sorted({0.0, *np.quantile(tops, np.linspace(0.0, 0.97, 50)).round(4).tolist()})
    best: tuple[float, Any] = (-1.0, None)
    for present in present_grid:
        cal = Calibration(present=present, extra=1.01, max_boxes=1)
        score = f1_of(data, probs, cal)["f1"]
        if score > best[0]:
            best = (score, cal)
    present = best[1].present
    for max_boxes in (2, 3):  # Visual Genome phrases (the test set) rarely have more boxes
        for extra in sorted({*np.quantile(tops, np.linspace(0.5, 0.99, 20)).round(4).tolist()}):
            cal = Calibration(present=present, extra=max(extra, present), max_boxes=max_boxes)
            score = f1_of(data, probs, cal)["f1"]
            if score > best[0] + 1e-9:
                best = (score, cal)
    cal = best[1]
    prov = dict(
        provenance,
        objective="max official F1 (core.metrics.zsod) over out-of-fold probabilities",
        calibration_f1=round(best[0], 4),
    )
    return Calibration(cal.present, cal.extra, cal.max_boxes, cal.nms_iou, prov)


def show(name: str, s: dict[str, float]) -> None:
    print(
        f"{name:24s} F1 {s['f1']:.4f}  P {s['precision']:.3f} R {s['recall']:.3f}  "
        f"tp {s['tp']} fp {s['fp']} fn {s['fn']}"
    )


def fit_stage(
    stages: str, train: list, held: list, fb: list, provenance: dict, args: argparse.Namespace
) -> tuple[Any, Any, dict[str, dict[str, float]]]:
    """Calibrate out-of-fold on ``train``, fit the head on all of it, report F1 on every split."""
    oof = out_of_fold(train, args.seed, args.steps)
    cal = calibrate(train, oof, dict(provenance, stages=stages))
    head = fit_head(train, args.seed, args.steps)
    held_probs = probabilities(head, held)
    scores = {
        "coco_train_oof": f1_of(train, oof, cal),
        "coco_heldout": f1_of(held, held_probs, cal),
        "coco_all": f1_of(train + held, oof + held_probs, cal),
        "fb_sample": f1_of(fb, probabilities(head, fb), cal),
    }
    for name, s in scores.items():
        show(f"stage{stages[-1]} " + name, s)
    return head, cal, scores


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--cache", type=Path, default=Path("/tmp/zsod/cache"))
    parser.add_argument("--trunk", default="default", help="run.py --trunk spec")
    parser.add_argument("--ablate-trunk", default="none", help="'random' for the ablation run (never saved)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--out", type=Path, default=Path(__file__).with_name("data"))
    parser.add_argument("--no-save", action="store_true", help="report only, write nothing")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")

    import torch

    from core.trunk import TrunkConfig, load_trunk
    from plugins.zsod.decision import Calibration
    from plugins.zsod.task import ZsodTask
    from plugins.zsod.verifier import FEATURE_NAMES, STAGE2_FEATURES, save_verifier

    torch.set_num_threads(args.threads)
    np.random.seed(args.seed)
    start = time.time()
    trunk = load_trunk(TrunkConfig.parse(args.trunk, ablation=args.ablate_trunk))
    task = ZsodTask(calibration=Calibration())
    task.setup(trunk)
    train_names, held_names = zsod_split(args.data)
    coco, fb_dir = args.data / "zsod_coco_dev", args.data / "fb_sample"
    train = extract(coco, train_names, task, trunk, args.cache)
    held = extract(coco, held_names, task, trunk, args.cache)
    fb = extract(fb_dir, None, task, trunk, args.cache)
    provenance = {
        "set": "zsod_coco_dev",
        "split": f"train half ({len(train)} images; core.train_trunk.zsod_split rule), 3-fold out-of-fold",
        "trunk_versions": trunk.component_versions,
        "grid": repr(task.grid),
        "seed": args.seed,
    }

    # Stage 1 alone: its own out-of-fold calibration, the baseline stage 2 must beat.
    head1, cal1, scores1 = fit_stage("1", train, held, fb, provenance, args)
    # Stage 2: crops of the stage-1 candidates.
    train2 = stage2(coco, train, head1, task, trunk)
    held2 = stage2(coco, held, head1, task, trunk)
    fb2 = stage2(fb_dir, fb, head1, task, trunk)
    head2, cal2, scores2 = fit_stage("1+2", train2, held2, fb2, provenance, args)
    for name, d2 in (("coco held-out", held2), ("fb_sample", fb2)):
        pos = [
            (d.labels[:, j].max() if len(d.boxes) else 0.0)
            for d in d2
            for j, ph in enumerate(d.phrases)
            if d.gold.get(ph)
        ]
        print(
            f"candidate recall {name}: {np.mean(pos):.3f} of positive phrases; "
            f"{np.mean([len(d.boxes) for d in d2]):.1f} candidates/image"
        )
    # Model selection on training data only: keep stage 2 when its out-of-fold F1 is higher.
    use2 = scores2["coco_train_oof"]["f1"] > scores1["coco_train_oof"]["f1"]
    cal, scores = (cal2, scores2) if use2 else (cal1, scores1)
    heads = {"stage1": head1, "stage2": head2} if use2 else {"stage1": head1}
    print(
        "shipping stages",
        "1+2" if use2 else "1",
        "calibration:",
        {k: v for k, v in asdict(cal).items() if k != "provenance"},
    )
    if args.no_save or args.ablate_trunk != "none":
        return 0
    card = {
        "what": "zsod region-phrase verifier: stage 1 over grid boxes (pooled features), stage 2 over crops",
        "features": list(FEATURE_NAMES),
        "stage2_features": list(STAGE2_FEATURES) if use2 else [],
        "stages": "1+2" if use2 else "1",
        "data": provenance["split"] + " of zsod_coco_dev",
        "steps": args.steps,
        "seed": args.seed,
        "dev_scores": {k: {m: round(float(v), 4) for m, v in s.items()} for k, s in scores.items()},
        "trunk_versions": {k: trunk.component_versions[k] for k in ("image", "text", "joint")},
        "seconds": round(time.time() - start, 1),
    }
    args.out.mkdir(parents=True, exist_ok=True)
    save_verifier(heads, card, args.out / "verifier.safetensors", args.out / "verifier.json")
    cal.save(args.out / "calibration.json")
    print(f"wrote {args.out}/verifier.safetensors, verifier.json, calibration.json")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
