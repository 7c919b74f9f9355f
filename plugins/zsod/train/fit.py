"""Fit the zsOD heads for one trunk: ``train_heads(...)``, what ``plugins.zsod.train.train_head`` runs.

Heads: the grounding head (``plugins.zsod.head``: region-phrase scorer over the trunk's
stride-32 map), the verifier (``plugins.zsod.verifier``: stage 1 over every proposal,
stage 2 over crops, shipped only when it wins out-of-fold) and the decision's
calibration (``plugins.zsod.decision``). Written into ``req.out_dir``: ``verifier.safetensors``
(all heads, fp16), ``verifier.json`` (the card) and ``calibration.json``.

Data sources (``req.sources``: name -> paths; a name left out defaults to the matching sets under
``req.data_root``, ``../shared/data`` unless ``--data-root`` says otherwise, when they exist):

* ``coco_captions``: captioned images, the weak part (phrases mined from the captions,
  ``plugins.zsod.train.phrases``; multiple-instance learning, ``plugins.zsod.train.weak_fit``). A path
  is a COCO captions JSON (``{"images": [{"id", "file_name"}], "annotations":
  [{"image_id", "caption"}]}``; images under ``coco_images`` or beside the JSON) or a
  folder with ``captions_en.json`` (``{file_name: [caption, ...]}``, optionally
  ``captions_ru_machine.json``) and ``images/``. Default: ``trunk_pairs/coco_val`` and
  ``trunk_pairs/flickr8k`` without the trunk's held-out images (``core.splits.split``).
* ``challenge``: sets in the challenge layout (``input/zsOD`` + ``true/zsOD``). Each set is
  split by the sha1 rule of ``zsod_split``: one half trains (boxes: the strong part) and
  calibrates, the other half is the card's dev score. Default: ``zsod_coco_dev``.
* ``coco_instances`` (+ ``coco_images``): a COCO instances JSON: each image's category
  names are present phrases with their boxes, absent categories (half of them from the
  same supercategory) are negatives, as in ``zsod_coco_dev``. Trains like a challenge
  train half.
* ``vg_regions`` (+ ``vg_images``): Visual Genome ``region_descriptions.json``: each
  region's phrase with its box; phrases of other images are negatives.

Other names (VQA, HTR) are ignored. Trunk features are cached under ``cache`` (default
``req.out_dir/cache``) in resumable shards; with ``req.resume`` a trained grounding head in
``req.out_dir`` is reused. Everything is seeded (``req.seed``).
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import random
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from core.splits import DEFAULT_DATA_ROOT, halves
from plugins.zsod.boxes import as_box_list, iou_matrix
from training import TrainRequest

if TYPE_CHECKING:
    import torch

    from core.trunk import Trunk

log = logging.getLogger("plugins.zsod.train")  # the name its log lines always had

REPO = Path(__file__).resolve().parents[3]
GROUNDING_CKPT = "grounding_checkpoint.pt"
WEAK_EPOCHS = 4
VERIFIER_STEPS = 300


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


class Labelled(NamedTuple):
    """One image with gold boxes per phrase: the strong part and the calibration data."""

    sample: Any  # plugins.zsod.task.ZsodSample
    gold: dict[str, list[list[float]]]  # phrase -> [[x, y, w, h], ...] ([] = absent)
    source: str


def image_key(lab: Labelled) -> str:
    """An image's key across sources: file names repeat between them (a COCO image in the
    instances JSON and in a challenge set), so the source is part of it."""
    return f"{lab.source}/{lab.sample.key}"


def labels_for(boxes: np.ndarray, phrases: Sequence[str], gold: dict[str, Any]) -> np.ndarray:
    labels = np.zeros((len(boxes), len(phrases)), dtype=np.float32)
    for j, phrase in enumerate(phrases):
        g = as_box_list(gold.get(phrase, []))
        if len(g) and len(boxes):
            labels[:, j] = iou_matrix(boxes, g).max(axis=1) >= 0.5
    return labels


# -- data sources ------------------------------------------------------------------------------------
def default_sources(data_root: Path | None = DEFAULT_DATA_ROOT) -> dict[str, list[Path]]:
    """The sets under ``data_root`` (``../shared/data``) each source name defaults to (only those present)."""
    out: dict[str, list[Path]] = {}
    if data_root is None:
        return out
    pairs = [data_root / "trunk_pairs" / n for n in ("coco_val", "flickr8k")]
    if all((p / "captions_en.json").exists() for p in pairs):
        out["coco_captions"] = pairs
    if (data_root / "zsod_coco_dev" / "true" / "zsOD").is_dir():
        out["challenge"] = [data_root / "zsod_coco_dev"]
    return out


def challenge_sets(paths: Sequence[Path]) -> tuple[list[Labelled], list[Labelled]]:
    """(train half, dev half) of every challenge-layout set holding zsOD (``training.challenge_sets``)."""
    from core.io import read_json_object
    from plugins.zsod.task import ZsodSample, ZsodTask
    from training import challenge_sets

    train, dev = [], []
    for path in challenge_sets(paths, ZsodTask.info):
        gold = read_json_object(Path(path) / "true" / "zsOD" / "true_zsOD.json")
        samples = [s for s in ZsodTask().discover(Path(path) / "input") if isinstance(s, ZsodSample)]
        tr, _ = halves([s.key for s in samples])
        for s in samples:
            if s.image_path is None or s.key not in gold:
                continue
            (train if s.key in tr else dev).append(Labelled(s, gold[s.key], f"challenge:{Path(path).name}"))
    return train, dev


def coco_instances(paths: Sequence[Path], images: Sequence[Path], seed: int) -> list[Labelled]:
    """COCO instances JSON -> labelled images: category names with their boxes; absent categories as negatives."""
    from plugins.zsod.task import ZsodSample

    rng = random.Random(seed)
    out = []
    for path in paths:
        js = json.loads(Path(path).read_text(encoding="utf-8"))
        cats = {c["id"]: c for c in js.get("categories", [])}
        boxes: dict[int, dict[str, list]] = {}
        for a in js.get("annotations", []):
            if a.get("iscrowd"):
                continue
            boxes.setdefault(a["image_id"], {}).setdefault(cats[a["category_id"]]["name"], []).append(
                [float(v) for v in a["bbox"]]
            )
        folders = [Path(d) for d in images] or [Path(path).parent]
        for im in js.get("images", []):
            file = next((d / im["file_name"] for d in folders if (d / im["file_name"]).is_file()), None)
            present = boxes.get(im["id"], {})
            if file is None or not present:
                continue
            supers = {cats[c]["supercategory"] for c in cats if cats[c]["name"] in present}
            absent = [c["name"] for c in cats.values() if c["name"] not in present]
            near = [n for n in absent if any(cats[c]["supercategory"] in supers for c in cats if cats[c]["name"] == n)]
            k = max(1, len(present) // 2)
            negs = rng.sample(near, min(k, len(near))) + rng.sample(absent, min(k, len(absent)))
            gold = {**present, **{n: [] for n in negs}}
            out.append(Labelled(ZsodSample(im["file_name"], file, tuple(gold)), gold, "coco_instances"))
    return out


def vg_regions(paths: Sequence[Path], images: Sequence[Path], seed: int, per_image: int = 8) -> list[Labelled]:
    """Visual Genome region_descriptions.json -> labelled images (regions' phrases + other images' phrases)."""
    from plugins.zsod.task import ZsodSample

    rng = random.Random(seed)
    entries = []
    for path in paths:
        js = json.loads(Path(path).read_text(encoding="utf-8"))
        folders = [Path(d) for d in images] or [Path(path).parent]
        for item in js:
            regions = item.get("regions", [])
            if not regions:
                continue
            image_id = regions[0].get("image_id", item.get("id"))
            file = next((d / f"{image_id}.jpg" for d in folders if (d / f"{image_id}.jpg").is_file()), None)
            if file is None:
                continue
            gold: dict[str, list] = {}
            for r in regions:
                phrase = " ".join(str(r.get("phrase", "")).split()).lower()
                if phrase:
                    gold.setdefault(phrase, []).append(
                        [float(r["x"]), float(r["y"]), float(r["width"]), float(r["height"])]
                    )
            entries.append((file, dict(rng.sample(sorted(gold.items()), min(per_image, len(gold))))))
    all_phrases = [p for _, g in entries for p in g]
    out = []
    for file, gold in entries:
        negs = [p for p in rng.sample(all_phrases, min(len(all_phrases), 3 * len(gold))) if p not in gold][: len(gold)]
        gold = {**gold, **{n: [] for n in negs}}
        out.append(Labelled(ZsodSample(file.name, file, tuple(gold)), gold, "vg_regions"))
    return out


def caption_sources(paths: Sequence[Path], images: Sequence[Path]) -> dict[str, dict[str, list[str]]]:
    """Captioned images ``{key: {"en", "ru", "path"}}`` from COCO captions JSONs and trunk_pairs-style folders."""
    from plugins.zsod.train.weak import caption_sets

    out: dict[str, dict[str, list[str]]] = {}
    for path in map(Path, paths):
        if path.is_dir():
            out.update(caption_sets([path]))
            continue
        js = json.loads(path.read_text(encoding="utf-8"))
        names = {im["id"]: im["file_name"] for im in js.get("images", [])}
        folders = [Path(d) for d in images] or [path.parent]
        caps: dict[int, list[str]] = {}
        for a in js.get("annotations", []):
            caps.setdefault(a["image_id"], []).append(str(a["caption"]))
        for image_id, cs in caps.items():
            name = names.get(image_id)
            file = next((d / name for d in folders if name and (d / name).is_file()), None)
            if file is not None:
                out[f"{path.stem}/{name}"] = {"en": cs, "ru": [], "path": [str(file)]}
    return out


def trunk_held_out(keys: Sequence[str]) -> set[str]:
    """The default caption sets' images held out by ``training.trunk`` (kept out of training here too)."""
    from core.splits import HELD_OUT_COCO, HELD_OUT_FLICKR, split

    held: set[str] = set()
    for prefix, n in (("flickr8k/", HELD_OUT_FLICKR), ("coco_val/", HELD_OUT_COCO)):
        names = [k[len(prefix) :] for k in keys if k.startswith(prefix)]
        held |= {prefix + n for n in split(names, n)[1]} if names else set()
    return held


# -- trunk features -------------------------------------------------------------------------------------
def region_cache(items: Sequence[Labelled], trunk: Trunk, cache: Path, progress: bool) -> list[dict[str, Any]]:
    """Per labelled image: grid proposals, the stride-32 map, phrase and image embeddings (cached npz)."""
    import torch
    from tqdm import tqdm

    from plugins.zsod.task import ZsodTask, with_grid

    task = ZsodTask()
    folder = cache / f"regions2-{trunk.version}-{hashlib.sha1(repr(task.grid).encode()).hexdigest()[:8]}"
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for lab in tqdm(items, desc="zsod labelled images", unit="img", disable=not progress):
        s = lab.sample
        name = hashlib.sha1(f"{s.image_path}|{s.phrases}".encode()).hexdigest()[:16]
        path = folder / f"{name}.npz"
        if not path.exists():
            (item,) = task.preprocess([s], trunk, None)
            if item is None:
                continue
            item = with_grid(item, trunk, task.grid)
            with torch.inference_mode():
                fmaps = trunk.image_feature_maps(item.pixels.unsqueeze(0))
                texts = trunk.encode_texts(item.tokens)
                image = trunk.encode_images(item.whole.unsqueeze(0))[0]
            tmp = path.with_suffix(".tmp.npz")
            np.savez(
                tmp,
                boxes=item.boxes,
                fmap=fmaps.maps[-1].numpy().astype(np.float16),
                stride=np.array(fmaps.strides[-1]),
                texts=texts.numpy(),
                image=image.numpy(),
                size=np.array(item.image.size),
            )
            tmp.rename(path)
        z = np.load(path)
        out.append(
            {
                "lab": lab,
                "grid": z["boxes"],
                "fmap": z["fmap"].astype(np.float32),
                "stride": int(z["stride"]),
                "texts": z["texts"],
                "image": z["image"],
                "size": (int(z["size"][0]), int(z["size"][1])),
            }
        )
    return out


def with_regions(trunk: Trunk, cached: Sequence[dict[str, Any]], grounding: Any = None) -> list[dict[str, Any]]:
    """Add boxes (grid, + grounding-map boxes with a head), pooled features, embeddings and labels."""
    import torch

    from plugins.zsod.pipeline import regions_of

    out = []
    for r in cached:
        with torch.inference_mode():
            boxes, pooled, regions = regions_of(
                trunk,
                torch.from_numpy(r["fmap"]),
                r["stride"],
                r["size"],
                r["grid"],
                torch.from_numpy(r["texts"]),
                grounding,
            )
        s = r["lab"].sample
        out.append(
            {
                **r,
                "boxes": boxes,
                "pooled": pooled.numpy(),
                "regions": regions.numpy(),
                "labels": labels_for(boxes, s.phrases, r["lab"].gold),
                "present": np.array([1.0 if r["lab"].gold.get(p) else 0.0 for p in s.phrases], np.float32),
            }
        )
    return out


def text_embedder(trunk: Trunk, cache: Path) -> Any:
    """``embed(texts) -> [n, D] fp16``, with a persistent cache (texts sorted by length: less padding)."""
    import torch

    path = cache / f"texts-{trunk.version}.npz"
    table: dict[str, np.ndarray] = {}
    if path.exists():
        z = np.load(path)
        table = dict(zip((str(t) for t in z["texts"]), z["emb"], strict=True))

    def embed(texts: Sequence[str]) -> np.ndarray:
        todo = sorted({t for t in texts if t not in table}, key=len)
        with torch.inference_mode():
            for i in range(0, len(todo), 128):
                part = todo[i : i + 128]
                for t, e in zip(part, trunk.embed_texts(part).numpy().astype(np.float16), strict=True):
                    table[t] = e
        if todo:
            tmp = path.with_suffix(".tmp.npz")
            np.savez(tmp, texts=np.array(list(table)), emb=np.stack(list(table.values())))
            tmp.rename(path)
        return np.stack([table[t] for t in texts]) if texts else np.zeros((0, trunk.embed_dim), np.float16)

    return embed


# -- stage-1/2 data and the verifier --------------------------------------------------------------------
def stage1_data(regions: Sequence[dict[str, Any]], grounding: Any) -> list[ImageData]:
    """Stage-1 features (with the grounding head's logits) and labels of every labelled image."""
    import torch

    from plugins.zsod.verifier import pair_features

    out = []
    for r in regions:
        lab = r["lab"]
        sims = r["regions"] @ r["texts"].T
        image_sims = r["texts"] @ r["image"]
        with torch.inference_mode():
            g = grounding(torch.from_numpy(r["pooled"]), torch.from_numpy(r["texts"])).numpy()
        feats = pair_features(sims, image_sims, r["boxes"], r["size"], lab.sample.phrases, g)
        out.append(
            ImageData(
                image_key(lab),
                lab.sample.phrases,
                r["size"],
                r["boxes"],
                feats,
                r["labels"],
                lab.gold,
                {"sims": sims, "image_sims": image_sims, "texts": r["texts"]},
            )
        )
    return out


def stage2(items: Sequence[Labelled], data: Sequence[ImageData], head1: Any, trunk: Trunk, progress: bool) -> list:
    """Crop re-scoring of each image's stage-1 candidates (as at inference).

    ``head1``: the stage-1 head, or a mapping image key -> head (training images: the fold head that
    never saw the image, so the stage-1 logits stage 2 learns from are out-of-sample, as at test time).
    """
    import torch
    from tqdm import tqdm

    from plugins.zsod.pipeline import PairData, crop_stage
    from plugins.zsod.task import ZsodTask, with_grid
    from plugins.zsod.verifier import run_head

    task = ZsodTask()
    out = []
    for lab, d in tqdm(list(zip(items, data, strict=True)), desc="zsod stage 2", unit="img", disable=not progress):
        (item,) = task.preprocess([lab.sample], trunk, None)
        item = with_grid(item, trunk, task.grid)
        logits1 = run_head(head1[d.key] if isinstance(head1, Mapping) else head1, d.feats)
        pair = PairData(d.boxes, d.feats, d.extra["sims"], d.extra["image_sims"], torch.from_numpy(d.extra["texts"]))
        with torch.inference_mode():
            cands, feats2 = crop_stage(item, trunk, pair, logits1)
        out.append(ImageData(d.key, d.phrases, d.size, d.boxes[cands], feats2, d.labels[cands], d.gold, {}))
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


def out_of_fold(
    data: Sequence[ImageData], seed: int, steps: int, folds: int = 3, heads: dict[str, Any] | None = None
) -> list[np.ndarray]:
    """Probabilities of each image from a head that never saw it (``folds``-fold); ``heads`` gets
    each image's fold head (key -> head)."""
    probs: dict[str, np.ndarray] = {}
    for i in range(folds):
        held = data[i::folds]
        rest = [d for j in range(folds) if j != i for d in data[j::folds]]
        head = fit_head(rest, seed + i, steps)
        probs.update({d.key: p for d, p in zip(held, probabilities(head, held), strict=True)})
        if heads is not None:
            heads.update({d.key: head for d in held})
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
    stages: str, train: list, dev: list, seed: int, provenance: dict, fold_heads: dict[str, Any] | None = None
) -> tuple[Any, Any, dict]:
    """Calibrate out-of-fold on ``train``, fit the head on all of it, report F1 on both splits."""
    oof = out_of_fold(train, seed, VERIFIER_STEPS, heads=fold_heads)
    cal = calibrate(train, oof, dict(provenance, stages=stages))
    head = fit_head(train, seed, VERIFIER_STEPS)
    scores = {"train_oof": f1_of(train, oof, cal)}
    if dev:
        scores["dev"] = f1_of(dev, probabilities(head, dev), cal)
    for name, s in scores.items():
        show(f"stage{stages} {name}", s)
    return head, cal, scores


def train_grounding(
    trunk: Trunk,
    captions: Mapping[str, Mapping[str, list[str]]],
    strong: Sequence[dict[str, Any]],
    cache: Path,
    *,
    seed: int,
    epochs: int,
    max_images: int | None,
    progress: bool,
    scale: float = 1.0,
    use_default_held_out: bool = True,
) -> tuple[Any, dict[str, Any]]:
    """Cache caption images' maps, mine phrases, train the grounding head (weak MIL + strong boxes)."""

    from core.splits import hash_order
    from plugins.zsod.train import weak_fit as wt
    from plugins.zsod.train.weak import cache_dir_for, cache_features

    groups: dict[str, list[str]] = {}
    for k in captions:  # per source, in the order given, each in hash order: a stable shard layout
        groups.setdefault(k.split("/", 1)[0], []).append(k)
    order = [k for g in groups.values() for k in hash_order(g)]
    if not max_images and scale < 1.0:
        max_images = max(1, math.ceil(len(order) * scale))
    order = order[:max_images] if max_images else order
    images = [(k, Path(captions[k]["path"][0])) for k in order]
    shards = cache_features(trunk, images, cache_dir_for(cache, trunk), progress=progress)
    held = trunk_held_out(order) if use_default_held_out else set()
    cached = {str(k) for s in shards for k in np.load(s)["keys"]}
    keys = [k for k in order if k in cached and k not in held]
    embed = text_embedder(trunk, cache)
    if keys:
        weak, text_emb, _ = wt.build_phrases(captions, keys, embed, seed)
        fmaps = wt.load_fmaps(shards, keys)
    else:
        log.warning("zsod: no captioned images to train on; the grounding head learns from labelled boxes alone")
        weak, text_emb, fmaps = [], None, None
    strong_images = [
        wt.StrongImage(image_key(r["lab"]), r["pooled"], r["texts"], r["labels"], r["present"]) for r in strong
    ]
    # dev: presence AUC on held-out captioned images (their own phrases vs the negatives built for them)
    dev_keys = [k for k in order if k in cached and k in held][:400]
    dev = wt.build_phrases(captions, dev_keys, embed, seed + 1) if dev_keys else None
    dev_maps = wt.load_fmaps(shards, dev_keys) if dev_keys else None
    dev_auc: list[float] = []

    def on_epoch(epoch: int, head: Any) -> None:
        if dev is not None:
            head.eval()
            dev_auc.append(round(wt.weak_auc(head, dev_maps, dev[0], dev[1].astype(np.float32))["weak_auc"], 4))
            log.info("grounding epoch %d: held-out caption presence AUC %.4f", epoch + 1, dev_auc[-1])
            head.train()

    head = wt.fit_grounding(
        fmaps,
        weak,
        None if text_emb is None else text_emb.astype(np.float32),
        strong_images,
        epochs=epochs,
        seed=seed,
        progress=progress,
        on_epoch=on_epoch,
    )
    info = {
        "caption_dev_images": len(dev_keys),
        "caption_dev_auc_per_epoch": dev_auc,
        "caption_images": len(keys),
        "phrases": int(sum(sum(w.labels) for w in weak)),
        "negatives": int(sum(len(w.labels) - sum(w.labels) for w in weak)),
        "epochs": epochs,
        "strong_images": len(strong_images),
    }
    return head, info


def _digest(names: Sequence[str]) -> str:
    return hashlib.sha1("\n".join(names).encode()).hexdigest()[:16]


def _tensor_json(value: Any) -> Any:
    """JSON as a uint8 tensor: what ``torch.load(weights_only=True)`` reads back."""
    import torch

    return torch.tensor(list(json.dumps(value, sort_keys=True).encode()), dtype=torch.uint8)


def _json_tensor(tensor: Any) -> Any:
    return None if tensor is None else json.loads(bytes(tensor.tolist()).decode())


def train_heads(
    req: TrainRequest,
    *,
    cache: Path | None = None,
    epochs: int = WEAK_EPOCHS,
    max_caption_images: int | None = None,
    strong_in_grounding: bool = True,
) -> Path:
    """Train the zsOD heads for ``req.trunk`` from ``req.sources`` (see the module doc) into
    ``req.out_dir``; returns the card's path.

    ``req.device`` is not used: these heads are small and train on the CPU (said in the log when
    another device is asked for). ``strong_in_grounding``: the grounding head also trains on the
    labelled boxes (default). Off, only the verifier sees them (its grounding features are then
    out-of-sample on them, as at test time), which measured worse on the held-out half (README.md).
    ``req.scale`` (train.py's ``--scale``) keeps that share of the captioned images (the labelled
    boxes, scarce, are all kept).
    """
    trunk, data, out_dir = req.trunk, req.sources.as_dict(), req.out_dir
    seed, device, resume, progress, scale = req.seed, req.device, req.resume, req.progress, req.scale
    data_root = req.data_root
    import torch

    from core.heads import write_card
    from plugins.zsod.decision import CALIBRATION_FILE
    from plugins.zsod.verifier import CARD_FILE, FEATURE_NAMES, GROUNDING_FEATURES, STAGE2_FEATURES, WEIGHTS_FILE

    start = time.time()
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    cache = Path(cache) if cache else out_dir / "cache"
    cache.mkdir(parents=True, exist_ok=True)
    np.random.seed(seed)
    torch.manual_seed(seed)
    if device != "cpu":
        log.info("zsod heads train on the CPU (small heads over cached features); device %s not used", device)
    sources = {**default_sources(data_root), **{k: [Path(p) for p in v] for k, v in data.items()}}
    used = {
        k: [str(p) for p in v]
        for k, v in sources.items()
        if k in {"coco_captions", "challenge", "coco_instances", "vg_regions"}
    }
    train_l, dev_l = challenge_sets(sources.get("challenge", []))
    train_l += coco_instances(sources.get("coco_instances", []), sources.get("coco_images", []), seed)
    train_l += vg_regions(sources.get("vg_regions", []), sources.get("vg_images", []), seed)
    if not train_l:
        raise ValueError("zsod needs labelled boxes: a 'challenge' set, 'coco_instances' or 'vg_regions'")
    train_c = region_cache(train_l, trunk, cache, progress)
    dev_c = region_cache(dev_l, trunk, cache, progress)

    captions = caption_sources(sources.get("coco_captions", []), sources.get("coco_images", []))
    ckpt = out_dir / GROUNDING_CKPT
    recipe = {
        "seed": seed,
        "epochs": epochs,
        "max_caption_images": max_caption_images,
        "scale": scale,
        "strong_in_grounding": strong_in_grounding,
        "caption_images": _digest(sorted(captions)),
        "labelled_images": _digest(sorted(image_key(lab) for lab in train_l)),
        "trunk": trunk.version,
    }
    saved = torch.load(ckpt, weights_only=True) if resume and ckpt.exists() else None
    if saved is not None and _json_tensor(saved.get("recipe")) != recipe:
        log.info("zsod: %s was trained for another run; training the grounding head for this one", ckpt)
        saved = None
    if saved is not None:
        from plugins.zsod.head import build_grounding_head

        grounding = build_grounding_head(*saved["dims"].tolist()).eval()
        grounding.load_state_dict(saved["state"])
        ginfo = _json_tensor(saved["info"])
        log.info("zsod: reusing the grounding head in %s", ckpt)
    else:
        grounding, ginfo = train_grounding(
            trunk,
            captions,
            with_regions(trunk, train_c) if strong_in_grounding else [],
            cache,
            seed=seed,
            epochs=epochs,
            max_images=max_caption_images,
            scale=scale,
            progress=progress,
            use_default_held_out="coco_captions" not in data,
        )
        dims = [grounding.wf.in_features, grounding.wt.in_features, grounding.code, grounding.out.in_features]
        torch.save(
            {
                "state": grounding.state_dict(),
                "dims": torch.tensor(dims),
                "info": _tensor_json(ginfo),
                "recipe": _tensor_json(recipe),
            },
            ckpt,
        )
    train = stage1_data(with_regions(trunk, train_c, grounding), grounding)
    dev = stage1_data(with_regions(trunk, dev_c, grounding), grounding)
    provenance = {
        "data": {k: len(v) for k, v in used.items()},
        "labelled_train_images": len(train),
        "dev_images": len(dev),
        "trunk": trunk.component_versions,
        "grid": "plugins.zsod.proposals.GridSpec()",
        "seed": seed,
    }
    fold_heads: dict[str, Any] = {}
    head1, cal1, scores1 = fit_stage("1", train, dev, seed, provenance, fold_heads)
    train2 = stage2(train_l[: len(train)], train, fold_heads, trunk, progress)
    dev2 = stage2(dev_l[: len(dev)], dev, head1, trunk, progress)
    head2, cal2, scores2 = fit_stage("1+2", train2, dev2, seed, provenance)
    use2 = scores2["train_oof"]["f1"] > scores1["train_oof"]["f1"]  # chosen on training data only
    cal, scores = (cal2, scores2) if use2 else (cal1, scores1)
    heads = {"grounding": grounding, "stage1": head1, **({"stage2": head2} if use2 else {})}
    card = {
        "task": "zsod",
        "what": "grounding head (region-phrase scorer over the stride-32 map), stage-1 verifier over grid boxes"
        + (", stage-2 verifier over crops" if use2 else ""),
        "features": list(FEATURE_NAMES + GROUNDING_FEATURES),
        "stage2_features": list(STAGE2_FEATURES) if use2 else [],
        "stages": "1+2" if use2 else "1",
        "trunk": trunk.component_versions,
        "data": {**provenance["data"], "used": used, "grounding": ginfo, "labelled_train_images": len(train)},
        "steps": {"verifier": VERIFIER_STEPS, "grounding_epochs": ginfo.get("epochs")},
        "seed": seed,
        "dev_scores": {k: {m: round(float(v), 4) for m, v in s.items()} for k, s in scores.items()},
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "seconds": round(time.time() - start, 1),
    }
    save_verifier(heads, card, out_dir / WEIGHTS_FILE.name, out_dir / "verifier.tmp.json")
    (out_dir / "verifier.tmp.json").unlink()
    cal.save(out_dir / CALIBRATION_FILE.name)
    path = write_card(out_dir / CARD_FILE.name, card, weights=(out_dir / WEIGHTS_FILE.name,))
    print(f"wrote {out_dir}/{WEIGHTS_FILE.name}, {CARD_FILE.name}, {CALIBRATION_FILE.name}")
    return path


def save_verifier(
    heads: Mapping[str, torch.nn.Module],
    card: Mapping[str, Any],
    weights: Path,
    card_path: Path,
) -> None:
    """Write the heads (one fp16 safetensors file, keys ``grounding.*``/``stage1.*``/``stage2.*``) and the card."""
    import torch

    from core.heads import save_head

    state = {
        f"{stage}.{k}": v.detach().to(torch.float16)
        for stage, head in heads.items()
        for k, v in head.state_dict().items()
    }
    save_head(weights, state, card_path, card)
