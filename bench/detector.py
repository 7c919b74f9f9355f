"""The shared detector (``core.detector``): speed per image and COCO-class quality on ``zsod_coco_dev``.

    python -m bench.detector [--threads 1,2] [--sizes 416,320,256] [--batch 8] [--images 16]
    python -m bench.detector --quality [--sizes 416,320]     # AP50 / recall on zsod_coco_dev's gold boxes

Speed: ms an image through ``Detector.detect`` (letterbox, forward pass, decode and NMS), the
forward pass alone beside it, each thread count in a fresh process (torch keeps its first
thread pool). Quality: the gold boxes of ``zsod_coco_dev`` (COCO class names in English or
Russian, matched to the detector's table by name) against the detections of that class:
AP at IoU 0.5 (all-point interpolation, averaged over the classes present) and recall of
the gold boxes among all detections. These images are COCO train2017, which NanoDet was
trained on: the figure checks the import and the recipe, not generalisation.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import registry

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"


def _images(n: int) -> list:
    from PIL import Image

    folder = DATA / "zsod_coco_dev" / "input" / "zsOD" / "images"
    paths = sorted(folder.iterdir())[:n] if folder.is_dir() else []
    if not paths:
        paths = sorted((REPO / "demo" / "input" / "zsOD" / "images").iterdir())
    return [Image.open(p).convert("RGB") for p in paths]


def speed(threads: int, sizes: list[int], batch: int, n: int) -> list[dict]:
    import torch

    from core.detector import DetectorConfig
    from core.detector.loader import load_detector

    torch.set_num_threads(threads)
    images = _images(n)
    rows = []
    for size in sizes:
        det = load_detector(DetectorConfig(input_size=size, batch_size=batch), registry.load())
        det.detect(images[:batch])  # warm-up
        start = time.perf_counter()
        det.detect(images)
        total = (time.perf_counter() - start) / len(images) * 1000
        x = torch.zeros(batch, 3, size, size)
        with torch.inference_mode():
            det._net(x)
            start = time.perf_counter()
            det._net(x)
        forward = (time.perf_counter() - start) / batch * 1000
        rows.append(
            {"threads": threads, "size": size, "ms_per_image": round(total, 1), "forward_ms": round(forward, 1)}
        )
    return rows


def _iou(a, b):  # noqa: ANN001, ANN202 - xyxy arrays [N,4] x [M,4]
    import numpy as np

    lt = np.maximum(a[:, None, :2], b[None, :, :2])
    rb = np.minimum(a[:, None, 2:], b[None, :, 2:])
    inter = np.clip(rb - lt, 0, None).prod(-1)
    area = lambda x: (x[:, 2] - x[:, 0]) * (x[:, 3] - x[:, 1])  # noqa: E731
    return inter / (area(a)[:, None] + area(b)[None, :] - inter + 1e-9)


def quality(sizes: list[int]) -> list[dict]:
    import numpy as np
    from PIL import Image

    from core.detector import DetectorConfig, coco_classes
    from core.detector.loader import load_detector

    root = DATA / "zsod_coco_dev"
    gold = json.loads((root / "true" / "zsOD" / "true_zsOD.json").read_text(encoding="utf-8"))
    names = coco_classes()
    fold = lambda s: s.lower().replace("ё", "е").strip()  # noqa: E731
    index = {fold(n): i for i in range(len(names)) for n in (names.en[i], names.ru[i])}
    rows = []
    for size in sizes:
        det = load_detector(DetectorConfig(input_size=size), registry.load())
        per_class: dict[int, list[tuple[float, bool]]] = {}
        n_gold: dict[int, int] = {}
        found_any = total = 0
        for image_name, phrases in gold.items():
            image = Image.open(root / "input" / "zsOD" / "images" / image_name).convert("RGB")
            d = det.detect([image])[0]
            for phrase, boxes in phrases.items():
                label = index.get(fold(phrase))
                if label is None or not boxes:
                    continue
                g = np.array([[x, y, x + w, y + h] for x, y, w, h in boxes], dtype=np.float32)
                n_gold[label] = n_gold.get(label, 0) + len(g)
                total += len(g)
                if len(d.boxes):
                    found_any += int((_iou(g, d.boxes).max(1) >= 0.5).sum())
                mine = d.labels == label
                taken = np.zeros(len(g), bool)
                for box, score in zip(d.boxes[mine], d.scores[mine], strict=True):
                    ious = _iou(box[None], g)[0]
                    j = int(ious.argmax())
                    hit = ious[j] >= 0.5 and not taken[j]
                    taken[j] |= hit
                    per_class.setdefault(label, []).append((float(score), bool(hit)))
        aps = []
        for label, count in n_gold.items():
            hits = sorted(per_class.get(label, []), key=lambda t: -t[0])
            tp = np.cumsum([h for _, h in hits]) if hits else np.zeros(0)
            precision = tp / np.arange(1, len(hits) + 1) if hits else np.zeros(0)
            recall = tp / count if hits else np.zeros(0)
            ap, prev_r = 0.0, 0.0
            for i in range(len(hits)):
                ap += (recall[i] - prev_r) * precision[i:].max()
                prev_r = recall[i]
            aps.append(ap)
        rows.append(
            {
                "size": size,
                "classes": len(aps),
                "gold_boxes": total,
                "AP50": round(float(np.mean(aps)), 3),
                "recall_any_class": round(found_any / max(total, 1), 3),
            }
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--threads", default="1,2")
    p.add_argument("--sizes", default="416,320,256")
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--images", type=int, default=16)
    p.add_argument("--quality", action="store_true")
    p.add_argument("--one", type=int, help=argparse.SUPPRESS)  # a child: this thread count only
    args = p.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    if args.quality:
        for row in quality(sizes):
            print(json.dumps(row))
        return 0
    if args.one:
        print(json.dumps(speed(args.one, sizes, args.batch, args.images)))
        return 0
    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    for threads in (int(t) for t in args.threads.split(",")):
        cmd = [
            sys.executable,
            "-m",
            "bench.detector",
            "--one",
            str(threads),
            "--sizes",
            args.sizes,
            "--batch",
            str(args.batch),
            "--images",
            str(args.images),
        ]
        out = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, check=True).stdout
        for row in json.loads(out.strip().splitlines()[-1]):
            print(
                f"threads {row['threads']}  size {row['size']}: {row['ms_per_image']} ms/image "
                f"({row['forward_ms']} ms forward pass)"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
