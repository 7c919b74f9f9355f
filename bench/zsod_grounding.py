"""zsOD quality of a heads folder (or of the no-head mode) on fb_sample and the held-out half of zsod_coco_dev.

    python -m bench.zsod_grounding [--heads DIR | --no-head] [--sets fb_sample,coco_heldout] [--threads 1]

Per set it prints, for the score that decides present/absent (a phrase's best box
probability): presence AUC (present vs negative phrases of the same image, all
within-image pairs; ties count half), the official F1 of the calibrated decision
(``core.metrics.zsod``), the share of present phrases whose best box hits a gold box at
IoU >= 0.5 ("box top-1"), the grid's proposal recall (share of present phrases with any
proposal at IoU >= 0.5), the whole-image cosine's AUC for reference, images/s and
max RSS. Nothing here fits anything; the held-out half is the one ``plugins.zsod.train``
never trains or calibrates on.
"""

from __future__ import annotations

import argparse
import json
import resource
import time
from pathlib import Path

import numpy as np

import registry

REPO = Path(__file__).resolve().parents[1]


def auc(pairs: list[tuple[np.ndarray, np.ndarray]]) -> float:
    good = total = 0.0
    for pos, neg in pairs:
        if len(pos) and len(neg):
            good += float((pos[:, None] > neg[None]).sum() + 0.5 * (pos[:, None] == neg[None]).sum())
            total += len(pos) * len(neg)
    return good / total if total else float("nan")


def evaluate(set_dir: Path, names: list[str] | None, trunk, verifier, cal, background) -> dict:  # noqa: ANN001
    import torch

    from core.io import read_json_object
    from core.metrics.zsod import f1_counts
    from plugins.zsod.decision import choose_boxes
    from plugins.zsod.pipeline import score_image
    from plugins.zsod.task import ZsodSample, ZsodTask, to_stored, with_grid
    from plugins.zsod.train.fit import labels_for

    gold_all = read_json_object(set_dir / "true" / "zsOD" / "true_zsOD.json")
    task = ZsodTask()
    samples = [s for s in task.discover(set_dir / "input") if isinstance(s, ZsodSample)]
    samples = [s for s in samples if names is None or s.key in names]
    pred, gold, pairs, whole_pairs, top1, recall = {}, {}, [], [], [], []
    g_pairs: list = []
    start = time.perf_counter()
    for s in samples:
        item = with_grid(task.preprocess([s], trunk, None)[0], trunk, task.grid)
        with torch.inference_mode():
            sc = score_image(item, trunk, verifier, background)
            whole = (trunk.embed_texts(list(s.phrases)) @ trunk.encode_images(item.whole[None])[0]).numpy()
            if verifier is not None and verifier.grounding is not None:
                from plugins.zsod.head import image_logit
                from plugins.zsod.pipeline import region_data

                rd = region_data(trunk, item.image.size, item.pixels, item.whole, item.boxes, item.tokens)
                g_image = image_logit(verifier.grounding(rd.pooled, rd.texts), dim=0).numpy()
        geo = item.geometry
        g = gold_all[s.key]
        answers = {}
        best = sc.probs.max(0) if len(sc.boxes) else np.zeros(len(s.phrases))
        labels = labels_for(sc.boxes, s.phrases, g)
        grid_labels = labels_for(item.boxes, s.phrases, g)
        for j, phrase in enumerate(s.phrases):
            answers[phrase] = to_stored(sc.boxes[choose_boxes(sc.boxes, sc.probs[:, j], cal)], geo)
            if g.get(phrase):
                top1.append(float(labels[int(np.argmax(sc.probs[:, j])), j]) if len(sc.boxes) else 0.0)
                recall.append(float(grid_labels[:, j].max()) if len(item.boxes) else 0.0)
        present = np.array([bool(g.get(p)) for p in s.phrases])
        pairs.append((best[present], best[~present]))
        whole_pairs.append((whole[present], whole[~present]))
        if verifier is not None and verifier.grounding is not None:
            g_pairs.append((g_image[present], g_image[~present]))
        pred[s.key] = answers
        gold[s.key] = {k: v for k, v in g.items() if k in answers}
    seconds = time.perf_counter() - start
    f1 = f1_counts(gold, pred)
    return {
        "images": len(samples),
        "presence_auc": round(auc(pairs), 3),
        "whole_image_cos_auc": round(auc(whole_pairs), 3),
        "grounding_image_auc": round(auc(g_pairs), 3) if g_pairs else None,
        "f1": round(f1["f1"], 4),
        "precision": round(f1["precision"], 3),
        "recall": round(f1["recall"], 3),
        "tp_fp_fn": [int(f1["tp"]), int(f1["fp"]), int(f1["fn"])],
        "box_top1": round(float(np.mean(top1)), 3),
        "proposal_recall": round(float(np.mean(recall)), 3),
        "images_per_s": round(len(samples) / seconds, 2),
    }


# The bus in demo/input/zsOD/images/bus.jpg, xyxy in stored pixels: drawn by hand on the photo (it matches the
# box YOLO detectors report for this well-known ultralytics sample to within a few pixels).
BUS_BOX = (17.0, 230.0, 801.0, 768.0)


def bus_iou(trunk, verifier, cal, background) -> dict:  # noqa: ANN001
    """IoU with ``BUS_BOX`` of the box answered for "a blue bus" (0 when answered absent) and of the best box."""
    import torch

    from plugins.zsod.boxes import iou_matrix, xywh_to_xyxy
    from plugins.zsod.decision import choose_boxes
    from plugins.zsod.pipeline import score_image
    from plugins.zsod.task import ZsodSample, ZsodTask, to_stored, with_grid

    task = ZsodTask()
    sample = next(s for s in task.discover(REPO / "demo" / "input") if s.key == "bus.jpg")
    assert isinstance(sample, ZsodSample)
    item = with_grid(task.preprocess([sample], trunk, None)[0], trunk, task.grid)
    with torch.inference_mode():
        sc = score_image(item, trunk, verifier, background)
    j = sample.phrases.index("a blue bus")
    geo = item.geometry
    answered = to_stored(sc.boxes[choose_boxes(sc.boxes, sc.probs[:, j], cal)], geo)
    best = to_stored(sc.boxes[[int(np.argmax(sc.probs[:, j]))]], geo)
    bus = np.array([BUS_BOX])
    iou = [float(iou_matrix(xywh_to_xyxy(np.array(b)), bus)[0, 0]) for b in answered]
    return {
        "answered_boxes": answered,
        "answered_iou": round(max(iou, default=0.0), 3),
        "best_box": best[0] if best else [],
        "best_iou": round(float(iou_matrix(xywh_to_xyxy(np.array(best[0])), bus)[0, 0]), 3) if best else 0.0,
        "p_best": round(float(sc.probs[:, j].max()), 3),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    parser.add_argument("--heads", type=Path, default=REPO / "plugins" / "zsod" / "weights")
    parser.add_argument("--no-head", action="store_true", help="score the no-head mode instead")
    parser.add_argument("--sets", default="fb_sample,coco_heldout,bus", help="also: coco_train (in-sample)")
    parser.add_argument("--trunk", default="default")
    parser.add_argument(
        "--map-deltas", default=None, help="grounding-map boxes: comma-separated deltas, 'none' for the grid alone"
    )
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()

    import torch

    from core.splits import challenge_halves
    from core.trunk import TrunkConfig, load_trunk
    from plugins.zsod.decision import Calibration
    from plugins.zsod.pipeline import background_embeddings
    from plugins.zsod.verifier import load_verifier

    torch.set_num_threads(args.threads)
    if args.map_deltas is not None:
        import plugins.zsod.pipeline as pipeline

        pipeline.MAP_DELTAS = () if args.map_deltas == "none" else tuple(map(float, args.map_deltas.split(",")))
    trunk = load_trunk(TrunkConfig.parse(args.trunk), registry.load())
    if args.no_head:
        verifier, cal, mode = None, Calibration(present=0.5, max_boxes=1), "no-head"
    else:
        verifier = load_verifier(trunk, args.heads / "verifier.safetensors", args.heads / "verifier.json")
        cal, mode = Calibration.load(args.heads / "calibration.json"), f"heads {args.heads}"
    with torch.inference_mode():
        background = background_embeddings(trunk)
    out = {"mode": mode, "trunk": trunk.component_versions}
    for name in args.sets.split(","):
        if name == "fb_sample":
            out[name] = evaluate(args.data / "fb_sample", None, trunk, verifier, cal, background)
        elif name == "coco_heldout":
            held = challenge_halves(args.data / "zsod_coco_dev", "zsOD")[1]
            out[name] = evaluate(args.data / "zsod_coco_dev", held, trunk, verifier, cal, background)
        elif name == "coco_train":
            train = challenge_halves(args.data / "zsod_coco_dev", "zsOD")[0]
            out[name] = evaluate(args.data / "zsod_coco_dev", train, trunk, verifier, cal, background)
        elif name == "bus":
            out[name] = bus_iou(trunk, verifier, cal, background)
        print(name, json.dumps(out[name]), flush=True)
    out["max_rss_mib"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
