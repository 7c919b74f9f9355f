"""LiT-style alignment of the default trunk: learn image tower -> USE text space.

Both towers stay locked. The only thing learned is the joint projection that
maps the image tower's pooled 1280-d feature (plus the class-name bridge's
512-d output, which carries the ImageNet classifier's knowledge) into USE's
multilingual 512-d sentence space, with a symmetric contrastive loss on

* ``../shared/data/trunk_pairs/flickr8k``: 7,091 images x 5 English captions,
* ``../shared/data/trunk_pairs/coco_val``: 850 images, English + machine Russian captions,
* region crops of ``../shared/data/zsod_coco_dev`` with their class names (ru/en).

Held out, never trained on (``bench/trunk_probe.py`` evaluates on them):
1,000 Flickr8k images, 250 COCO caption images and half of ``zsod_coco_dev``'s
images (split by a hash of the file name); ``fb_sample`` is evaluation only.

Tower features are computed once and cached (``--cache``, default
``/tmp/trunk/cache``), so a training epoch costs seconds. Usage::

    python -m training.trunk --extract-only   # fill the feature cache (resumable, chunked;
                                                # mirrored copies last, optional)
    python -m training.trunk --texts-only     # fill the text-embedding cache
    python -m training.trunk            # train + save the shipped projection (+ JSON card)
    python -m training.trunk --no-save --kind mlp   # an experiment, dev metrics only

Measured choices (held-out dev splits): linear head over an MLP adapter, spatial
mean over mean|max pooling, bridge term kept (gate), crop loss weight 3; see the
card next to the weights for the shipped run's numbers.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from core.splits import DEFAULT_DATA_ROOT as DATA
from core.splits import HELD_OUT_COCO, HELD_OUT_FLICKR, challenge_halves, hash_order, split

log = logging.getLogger(__name__)

CACHE = Path("/tmp/trunk/cache")
MIN_CROP = 8  # boxes thinner than this many pixels are skipped (no usable crop)


# -- crops ----------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Crop:
    image: str
    phrase: str
    box: tuple[float, float, float, float]  # x, y, w, h in pixels


def gold_crops(gold: dict[str, dict[str, list]], images: Sequence[str]) -> list[Crop]:
    """Every gold box of the listed images with its phrase."""
    out = []
    for name in images:
        for phrase, boxes in gold[name].items():
            for box in boxes:
                if box[2] >= MIN_CROP and box[3] >= MIN_CROP:
                    out.append(Crop(name, phrase, tuple(float(v) for v in box)))
    return out


def crop_image(image, box: Sequence[float]):  # type: ignore[no-untyped-def]
    """The box's pixels (clipped to the image)."""
    x, y, w, h = box
    left, top = max(0, int(round(x))), max(0, int(round(y)))
    right, bottom = min(image.width, int(round(x + w))), min(image.height, int(round(y + h)))
    return image.crop((left, top, max(right, left + 1), max(bottom, top + 1)))


# -- feature cache ------------------------------------------------------------------------
def _backend(tower: str):  # type: ignore[no-untyped-def]
    from core.backends.default import build_default_backend
    from core.trunk import TrunkConfig

    backend = build_default_backend(TrunkConfig(model_name=tower, pretrained="bridge"))
    backend.eval().requires_grad_(False)
    return backend


def pooled_features(
    backend, items: Sequence, load: Callable, *, flip: bool = False, batch: int = 32, desc: str = ""
) -> np.ndarray:  # type: ignore[no-untyped-def]
    """Pooled tower features ``[N, 2 * 1280]`` float32 (spatial mean | spatial max) of ``load(item)`` images."""
    import torch
    from tqdm import tqdm

    out = np.zeros((len(items), 2 * backend.tower.feature_dim), dtype=np.float32)
    with torch.inference_mode():
        for start in tqdm(range(0, len(items), batch), desc=desc, unit="batch", mininterval=5):
            chunk = items[start : start + batch]
            pixels = torch.stack([backend.image_transform(load(it)) for it in chunk])
            if flip:
                pixels = pixels.flip(-1)
            head = backend.tower(pixels)[-1]
            out[start : start + len(chunk)] = torch.cat([head.mean(dim=(2, 3)), head.amax(dim=(2, 3))], 1).numpy()
    return out


def cached(path: Path, compute: Callable[[], dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """Load ``path`` (npz) or compute, save and return it."""
    if path.exists():
        with np.load(path, allow_pickle=False) as z:
            return {k: z[k] for k in z.files}
    arrays = compute()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp.npz")
    np.savez(tmp, **arrays)
    tmp.replace(path)
    return arrays


def _open(path: Path):  # type: ignore[no-untyped-def]
    from PIL import Image

    with Image.open(path) as im:
        return im.convert("RGB")


def image_set_features(backend, folder: Path, names: Sequence[str], cache: Path, *, flip: bool = False) -> dict:  # type: ignore[no-untyped-def]
    """``{"names", "feat"}`` of whole images (``flip``: of their mirror images)."""

    def compute() -> dict[str, np.ndarray]:
        feat = pooled_features(backend, names, lambda n: _open(folder / n), flip=flip, desc=cache.stem)
        return {"names": np.array(names), "feat": feat}

    return cached(cache, compute)


CHUNK = 256


def chunked_image_features(backend, folder: Path, names: Sequence[str], cache: Path, *, flip: bool = False) -> dict:  # type: ignore[no-untyped-def]
    """Like ``image_set_features`` for big sets, cached in chunks of ``CHUNK`` images.

    Interrupting loses at most one chunk, and ``read_chunks`` can serve the
    chunks done so far (the caller orders ``names`` most-needed first).
    """
    for i, start in enumerate(range(0, len(names), CHUNK)):
        part = list(names[start : start + CHUNK])
        image_set_features(backend, folder, part, cache / f"chunk_{i:04d}.npz", flip=flip)
    return read_chunks(cache)


def read_chunks(cache: Path) -> dict[str, np.ndarray]:
    """``{"names", "feat"}`` of every finished chunk under ``cache``."""
    parts = [cached(p, dict) for p in sorted(cache.glob("chunk_*.npz")) if not p.name.endswith(".tmp.npz")]
    if not parts:
        return {"names": np.array([], dtype=str), "feat": np.zeros((0, 1280), np.float32)}
    return {"names": np.concatenate([p["names"] for p in parts]), "feat": np.concatenate([p["feat"] for p in parts])}


ROI_LONG_SIDE = 512  # the zsOD plugin's feature-pass input (plugins/zsod/task.py FEATURE_LONG_SIDE)


def roi_features(backend, image, boxes: Sequence[Sequence[float]], long_side: int = ROI_LONG_SIDE):  # type: ignore[no-untyped-def]
    """``[N, 1280]`` box features pooled from ONE pass over the whole image, as zsOD does it.

    The image is resized (aspect kept, sides multiples of 32) to ``long_side``;
    each ``x, y, w, h`` box is ``roi_align``-ed (2x2 bins, 2 samples) on the
    stride-32 head map and averaged.
    """
    import torch
    from PIL import Image as PILImage
    from torchvision.ops import roi_align

    w, h = image.size
    f = long_side / max(w, h)
    nw, nh = (max(32, int(round(v * f / 32)) * 32) for v in (w, h))
    arr = np.asarray(image.resize((nw, nh), PILImage.Resampling.BICUBIC), dtype=np.float32)
    pixels = torch.from_numpy(((arr / 255.0 - 0.5) / 0.5).transpose(2, 0, 1).copy())[None]
    with torch.inference_mode():
        head = backend.tower(pixels)[-1]
        rois = torch.tensor(
            [[0, x * nw / w, y * nh / h, (x + bw) * nw / w, (y + bh) * nh / h] for x, y, bw, bh in boxes],
            dtype=torch.float32,
        )
        pooled = roi_align(
            head.contiguous(), rois, output_size=(2, 2), spatial_scale=1 / 32, sampling_ratio=2, aligned=True
        )
        return pooled.mean(dim=(2, 3)).numpy()


def roi_set_features(backend, folder: Path, crops: Sequence[Crop], cache: Path) -> dict:  # type: ignore[no-untyped-def]
    """``{"images", "phrases", "feat"}`` of gold boxes pooled from whole-image feature maps."""
    from tqdm import tqdm

    def compute() -> dict[str, np.ndarray]:
        feat = np.zeros((len(crops), backend.tower.feature_dim), np.float32)
        by_image: dict[str, list[int]] = {}
        for i, c in enumerate(crops):
            by_image.setdefault(c.image, []).append(i)
        for name, idx in tqdm(by_image.items(), desc=cache.stem, mininterval=5):
            feat[idx] = roi_features(backend, _open(folder / name), [crops[i].box for i in idx])
        return {
            "images": np.array([c.image for c in crops]),
            "phrases": np.array([c.phrase for c in crops]),
            "feat": feat,
        }

    return cached(cache, compute)


def crop_set_features(backend, folder: Path, crops: Sequence[Crop], cache: Path, *, flip: bool = False) -> dict:  # type: ignore[no-untyped-def]
    """``{"images", "phrases", "feat"}`` of gold-box crops (``flip``: mirrored)."""

    def load(c: Crop):  # type: ignore[no-untyped-def]
        return crop_image(_open(folder / c.image), c.box)

    def compute() -> dict[str, np.ndarray]:
        return {
            "images": np.array([c.image for c in crops]),
            "phrases": np.array([c.phrase for c in crops]),
            "feat": pooled_features(backend, crops, load, flip=flip, desc=cache.stem),
        }

    return cached(cache, compute)


def extract_all(
    tower: str, cache_dir: Path, data: Path = DATA, *, flip: bool = True, flickr: bool = True
) -> dict[str, dict]:
    """Fill (or read) the tower-feature cache of every set train/probe need."""
    backend = _backend(tower)
    root = cache_dir / tower
    pairs = data / "trunk_pairs"
    out: dict[str, dict] = {}
    zsod = {}
    # Evaluation sets first: small, and the probe needs them; flipped copies last.
    for name in ("fb_sample", "zsod_coco_dev"):
        folder = data / name / "input" / "zsOD" / "images"
        gold = json.loads((data / name / "true" / "zsOD" / "true_zsOD.json").read_text())
        images = sorted(gold)
        zsod[name] = (folder, gold_crops(gold, images))
        out[f"{name}_images"] = image_set_features(backend, folder, images, root / f"{name}_images.npz")
        out[f"{name}_crops"] = crop_set_features(backend, folder, zsod[name][1], root / f"{name}_crops.npz")
        out[f"{name}_rois"] = roi_set_features(backend, folder, zsod[name][1], root / f"{name}_rois.npz")
    captioned = {}
    for name, n_held in (("coco_val", HELD_OUT_COCO), ("flickr8k", HELD_OUT_FLICKR))[: 2 if flickr else 1]:
        folder = pairs / name / "images"
        # Hash order puts the held-out images first, then the training images
        # in a fixed random order: a partial cache is a usable random subset.
        names = hash_order(json.loads((pairs / name / "captions_en.json").read_text()))
        captioned[name] = (folder, names[n_held:])
        out[name] = chunked_image_features(backend, folder, names, root / name)
    if flip:
        folder, crops = zsod["zsod_coco_dev"]
        out["zsod_coco_dev_crops_flip"] = crop_set_features(
            backend, folder, crops, root / "zsod_coco_dev_crops_flip.npz", flip=True
        )
        for name, (folder, names) in captioned.items():  # training images only
            out[f"{name}_flip"] = chunked_image_features(backend, folder, names, root / f"{name}_flip", flip=True)
    return out


# -- text cache ---------------------------------------------------------------------------
def text_embeddings(texts: Sequence[str], cache: Path) -> dict[str, np.ndarray]:
    """``{"emb": [N, 512]}`` unit USE embeddings of ``texts`` (the locked text tower).

    One cache file (``cache/texts.npz``) maps every text ever embedded to its
    vector; only unseen texts are encoded, then the file is rewritten.
    """
    import torch

    path = cache / "texts.npz"
    known: dict[str, np.ndarray] = {}
    if path.exists():
        with np.load(path, allow_pickle=False) as z:
            known = dict(zip(z["texts"].tolist(), z["emb"], strict=True))
    missing = sorted({t for t in texts if t not in known}, key=len)
    if missing:
        from tqdm import tqdm

        from core.backends._use import UseTextTower

        tower = UseTextTower().eval()
        with torch.inference_mode():
            for s in tqdm(range(0, len(missing), 256), desc="texts", mininterval=5):
                chunk = missing[s : s + 256]
                known.update(zip(chunk, tower(tower.tokenize(chunk)).numpy(), strict=True))
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp.npz")
        np.savez(tmp, texts=np.array(list(known)), emb=np.stack(list(known.values())))
        tmp.replace(path)
    return {"emb": np.stack([known[t] for t in texts]) if texts else np.zeros((0, 512), np.float32)}


# -- labels for region crops --------------------------------------------------------------
# The 80 COCO class names with a Russian name each: crop labels in either
# language map to one class, so a crop's Russian name is never trained as a
# negative of its English one.
COCO_RU = {
    "person": "человек",
    "bicycle": "велосипед",
    "car": "машина",
    "motorcycle": "мотоцикл",
    "airplane": "самолет",
    "bus": "автобус",
    "train": "поезд",
    "truck": "грузовик",
    "boat": "лодка",
    "traffic light": "светофор",
    "fire hydrant": "пожарный гидрант",
    "stop sign": "знак стоп",
    "parking meter": "паркомат",
    "bench": "скамейка",
    "bird": "птица",
    "cat": "кошка",
    "dog": "собака",
    "horse": "лошадь",
    "sheep": "овца",
    "cow": "корова",
    "elephant": "слон",
    "bear": "медведь",
    "zebra": "зебра",
    "giraffe": "жираф",
    "backpack": "рюкзак",
    "umbrella": "зонт",
    "handbag": "сумка",
    "tie": "галстук",
    "suitcase": "чемодан",
    "frisbee": "фрисби",
    "skis": "лыжи",
    "snowboard": "сноуборд",
    "sports ball": "мяч",
    "kite": "воздушный змей",
    "baseball bat": "бейсбольная бита",
    "baseball glove": "бейсбольная перчатка",
    "skateboard": "скейтборд",
    "surfboard": "доска для серфинга",
    "tennis racket": "теннисная ракетка",
    "bottle": "бутылка",
    "wine glass": "бокал",
    "cup": "чашка",
    "fork": "вилка",
    "knife": "нож",
    "spoon": "ложка",
    "bowl": "миска",
    "banana": "банан",
    "apple": "яблоко",
    "sandwich": "сэндвич",
    "orange": "апельсин",
    "broccoli": "брокколи",
    "carrot": "морковь",
    "hot dog": "хот-дог",
    "pizza": "пицца",
    "donut": "пончик",
    "cake": "торт",
    "chair": "стул",
    "couch": "диван",
    "potted plant": "растение в горшке",
    "bed": "кровать",
    "dining table": "обеденный стол",
    "toilet": "унитаз",
    "tv": "телевизор",
    "laptop": "ноутбук",
    "mouse": "компьютерная мышь",
    "remote": "пульт",
    "keyboard": "клавиатура",
    "cell phone": "мобильный телефон",
    "microwave": "микроволновка",
    "oven": "духовка",
    "toaster": "тостер",
    "sink": "раковина",
    "refrigerator": "холодильник",
    "book": "книга",
    "clock": "часы",
    "vase": "ваза",
    "scissors": "ножницы",
    "teddy bear": "плюшевый мишка",
    "hair drier": "фен",
    "toothbrush": "зубная щетка",
}
COCO_CLASSES = list(COCO_RU)


def coco_class(phrase: str) -> int:
    """Class index of an English or Russian COCO class name; -1 if unknown."""
    for i, (en, ru) in enumerate(COCO_RU.items()):
        if phrase in (en, ru):
            return i
    return -1


# -- metrics (shared with bench/trunk_probe.py) -------------------------------------------------
def unit(x: np.ndarray) -> np.ndarray:
    return x / np.maximum(np.linalg.norm(x, axis=-1, keepdims=True), 1e-12)


def recall_at(
    text_emb: np.ndarray, image_emb: np.ndarray, text_image: np.ndarray, ks: Sequence[int] = (1, 5)
) -> dict[str, float]:
    """Text -> image retrieval: share of texts whose image ranks within the top k."""
    sims = unit(text_emb) @ unit(image_emb).T
    own = sims[np.arange(len(text_image)), text_image]
    rank = (sims > own[:, None]).sum(1)
    return {f"R@{k}": float((rank < k).mean()) for k in ks}


def presence_auc(
    image_emb: np.ndarray, gold: dict[str, dict[str, list]], images: Sequence[str], phrase_emb: dict[str, np.ndarray]
) -> float:
    """Pairwise AUC within each image: present phrase scored above a negative one (ties half)."""
    good = total = 0.0
    for img, e in zip(images, unit(image_emb), strict=True):
        pos = [float(phrase_emb[p] @ e) for p, b in gold[img].items() if b]
        neg = [float(phrase_emb[p] @ e) for p, b in gold[img].items() if not b]
        for sp in pos:
            for sn in neg:
                good += 1.0 if sp > sn else 0.5 if sp == sn else 0.0
                total += 1
    return good / total if total else float("nan")


def crop_top1(
    crop_emb: np.ndarray,
    crop_images: Sequence[str],
    crop_phrases: Sequence[str],
    gold: dict[str, dict[str, list]],
    phrase_emb: dict[str, np.ndarray],
) -> float:
    """Share of gold-box crops whose own phrase ranks first among its image's phrases."""
    hits = []
    for e, img, phrase in zip(unit(crop_emb), crop_images, crop_phrases, strict=True):
        scores = {p: float(phrase_emb[p] @ e) for p in gold[img]}
        best = max(scores.values())
        hits.append(scores[phrase] >= best and sum(v >= best for v in scores.values()) == 1)
    return float(np.mean(hits)) if hits else float("nan")


# -- training ----------------------------------------------------------------------------------
def bridge_outputs(backend, feat: np.ndarray):  # type: ignore[no-untyped-def]
    import torch

    with torch.inference_mode():
        pooled = torch.from_numpy(np.ascontiguousarray(feat[:, : backend.tower.feature_dim]))
        return backend.joint(pooled, backend.tower.classify(pooled)).clone()


def select_pool(x: np.ndarray, pool: str, dim: int = 1280) -> np.ndarray:
    """The training input for ``pool`` from cached (mean | max) features."""
    if pool == "mean":
        return np.ascontiguousarray(x[:, :dim])
    if x.shape[1] < 2 * dim:
        raise SystemExit("this feature cache has no max-pooled features: re-extract with a fresh --cache")
    return x


def load_sets(tower: str, cache_dir: Path, data: Path = DATA, *, flickr: bool = True) -> dict:
    """Everything training and its dev evaluation need, from the caches."""
    root = cache_dir / tower
    needed = ["fb_sample_images", "fb_sample_crops", "zsod_coco_dev_images", "zsod_coco_dev_crops"]
    if (
        not all((root / f"{n}.npz").exists() for n in needed)
        or not (root / ("flickr8k" if flickr else "coco_val")).is_dir()
    ):
        extract_all(tower, cache_dir, data, flip=False, flickr=flickr)
    feats = {}
    for n in needed:
        feats[n] = cached(root / f"{n}.npz", dict)
    for n in ("fb_sample_rois", "zsod_coco_dev_rois"):
        if (root / f"{n}.npz").exists():
            feats[n] = cached(root / f"{n}.npz", dict)
    flipped = root / "zsod_coco_dev_crops_flip.npz"
    feats["zsod_coco_dev_crops_flip"] = cached(flipped, dict) if flipped.exists() else feats["zsod_coco_dev_crops"]
    # Caption images come in chunks (a partial cache trains on the chunks done);
    # mirrored copies are optional: an image without one is used unflipped.
    for n in ("coco_val", "flickr8k"):
        feats[n] = read_chunks(root / n)
        feats[f"{n}_flip"] = read_chunks(root / f"{n}_flip")
    pairs = data / "trunk_pairs"
    out = {"feats": feats}
    for name in ("flickr8k", "coco_val"):
        out[f"{name}_en"] = json.loads((pairs / name / "captions_en.json").read_text())
    out["coco_val_ru"] = json.loads((pairs / "coco_val" / "captions_ru_machine.json").read_text())
    out["zsod_gold"] = json.loads((data / "zsod_coco_dev" / "true" / "zsOD" / "true_zsOD.json").read_text())
    out["fb_gold"] = json.loads((data / "fb_sample" / "true" / "zsOD" / "true_zsOD.json").read_text())
    return out


def train(args: argparse.Namespace) -> dict[str, float]:
    """Train the projection on the cached features; returns held-out dev metrics."""
    import torch
    from tqdm import tqdm

    from core.backends._joint import ProjectionJoint

    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    sets = load_sets(args.tower, args.cache, flickr=not args.no_flickr)
    feats = sets["feats"]
    backend = _backend(args.tower)
    bridge = backend.joint  # the class-name bridge (built with pretrained="bridge")
    bridge.temperature = args.bridge_temperature

    # ---- caption pairs: (image row in X, caption texts) ----
    rows, captions = [], []
    x_parts, xf_parts = [], []
    offset = 0
    held = {}
    for name, n_held in (("flickr8k", HELD_OUT_FLICKR), ("coco_val", HELD_OUT_COCO)):
        train_names, held[name] = split(sets[f"{name}_en"], n_held)
        if name == "flickr8k" and args.no_flickr:
            train_names = []
        keep = set(train_names)
        names = [str(n) for n in feats[name]["names"]]
        idx = [i for i, n in enumerate(names) if n in keep]
        flip_row = {str(n): i for i, n in enumerate(feats[f"{name}_flip"]["names"])}
        x_parts.append(feats[name]["feat"][idx])
        mirrored = [
            feats[f"{name}_flip"]["feat"][flip_row[names[i]]] if names[i] in flip_row else feats[name]["feat"][i]
            for i in idx
        ]
        xf_parts.append(np.stack(mirrored) if mirrored else np.zeros((0, feats[name]["feat"].shape[1]), np.float32))
        log.info(
            "%s: %d of %d training images cached (%d mirrored)",
            name,
            len(idx),
            len(train_names),
            sum(names[i] in flip_row for i in idx),
        )
        for j, i in enumerate(idx):
            texts = list(sets[f"{name}_en"][names[i]])
            if name == "coco_val":
                texts += list(sets["coco_val_ru"].get(names[i], []))
            rows.append(offset + j)
            captions.append(texts)
        offset += len(idx)
    x_img = select_pool(np.concatenate([x for x in x_parts if len(x)]), args.pool)
    xf_img = select_pool(np.concatenate([x for x in xf_parts if len(x)]), args.pool)
    flat_caps = [c for cs in captions for c in cs]
    cap_emb = text_embeddings(flat_caps, args.cache)["emb"]
    cap_start = np.cumsum([0] + [len(c) for c in captions])

    # ---- region crops with class names (train half of zsod_coco_dev) ----
    zs_train, zs_held = challenge_halves(DATA / "zsod_coco_dev", "zsOD")
    crops = feats["zsod_coco_dev_crops"]
    crop_keep = [i for i, img in enumerate(crops["images"]) if str(img) in set(zs_train)]
    crop_cls = np.array([coco_class(str(crops["phrases"][i])) for i in crop_keep])
    ok = crop_cls >= 0
    crop_keep, crop_cls = [crop_keep[i] for i in np.flatnonzero(ok)], crop_cls[ok]
    x_crop = select_pool(feats["zsod_coco_dev_crops"]["feat"][crop_keep], args.pool)
    xf_crop = select_pool(feats["zsod_coco_dev_crops_flip"]["feat"][crop_keep], args.pool)
    if args.rois and "zsod_coco_dev_rois" in feats:
        # The same boxes pooled from whole-image maps (how zsOD embeds regions); no mirrored copy.
        x_roi = select_pool(feats["zsod_coco_dev_rois"]["feat"][crop_keep], "mean")
        x_crop, xf_crop = np.concatenate([x_crop, x_roi]), np.concatenate([xf_crop, x_roi])
        crop_cls = np.concatenate([crop_cls, crop_cls])
    cls_texts = list(COCO_RU) + list(COCO_RU.values())
    cls_emb = torch.from_numpy(text_embeddings(cls_texts, args.cache)["emb"]).view(2, len(COCO_RU), -1)

    log.info("training pairs: %d images, %d captions; %d crops", len(x_img), len(flat_caps), len(x_crop))

    # ---- model ----
    mean = torch.from_numpy(x_img.mean(0))
    std = torch.from_numpy(x_img.std(0) + 1e-3)
    joint = ProjectionJoint(
        x_img.shape[1], 512, kind=args.kind, hidden=args.hidden, bridge=bridge, version="", pool=args.pool
    )
    joint.mean.copy_(mean)
    joint.std.copy_(std)
    with torch.no_grad():  # start at the bridge: the learned head adds to it
        last = joint.head if args.kind == "linear" else joint.head[-1]
        last.weight.mul_(0.1)
        last.bias.zero_()
    if args.no_bridge:  # ablation: the learned head alone
        joint.gate.data.zero_()
    params = [
        p for n, p in joint.named_parameters() if not n.startswith("bridge.") and not (args.no_bridge and n == "gate")
    ]
    for p in params:
        p.requires_grad_(True)
    logit_scale = torch.nn.Parameter(torch.tensor(np.log(1 / 0.07), dtype=torch.float32))
    opt = torch.optim.AdamW(
        [{"params": params, "weight_decay": args.wd}, {"params": [logit_scale], "weight_decay": 0.0}], lr=args.lr
    )

    x_img_t, xf_img_t = torch.from_numpy(x_img), torch.from_numpy(xf_img)
    b_img, bf_img = bridge_outputs(backend, x_img), bridge_outputs(backend, xf_img)
    x_crop_t, xf_crop_t = torch.from_numpy(x_crop), torch.from_numpy(xf_crop)
    b_crop, bf_crop = bridge_outputs(backend, x_crop), bridge_outputs(backend, xf_crop)
    cap_emb_t = torch.from_numpy(cap_emb)
    crop_cls_t = torch.from_numpy(crop_cls)

    def project(x: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return joint.gate * b + joint.head((x - joint.mean) / joint.std)

    ckpt = args.cache / f"ckpt_{args.tower}_{args.kind}_{args.seed}.pt"
    start_epoch = 0
    if args.resume and ckpt.exists():
        state = torch.load(ckpt, weights_only=False)
        joint.load_state_dict(state["joint"])
        logit_scale.data.copy_(state["logit_scale"])
        opt.load_state_dict(state["opt"])
        start_epoch = state["epoch"]
        rng = state["rng"]
        log.info("resumed from %s at epoch %d", ckpt, start_epoch)
    steps_per_epoch = max(1, len(x_img) // args.batch)
    total = steps_per_epoch * args.epochs
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / 50) * 0.5 * (1 + np.cos(np.pi * min(s, total) / total))
    )
    for _ in range(start_epoch * steps_per_epoch):
        sched.step()

    joint.train()
    bar = tqdm(range(start_epoch, args.epochs), desc="epochs", unit="epoch")
    for epoch in bar:
        order = rng.permutation(len(x_img))
        losses = []
        for step in range(steps_per_epoch):
            idx = order[step * args.batch : (step + 1) * args.batch]
            flip = torch.from_numpy(rng.random(len(idx)) < 0.5)[:, None]
            ti = torch.from_numpy(idx)
            x = torch.where(flip, xf_img_t[ti], x_img_t[ti])
            b = torch.where(flip, bf_img[ti], b_img[ti])
            cap = np.array([rng.integers(cap_start[rows[i]], cap_start[rows[i] + 1]) for i in idx])
            t = cap_emb_t[torch.from_numpy(cap)]
            z = torch.nn.functional.normalize(project(x, b), dim=-1)
            logits = logit_scale.exp().clamp(max=100) * z @ t.T
            target = torch.arange(len(idx))
            loss = 0.5 * (
                torch.nn.functional.cross_entropy(logits, target) + torch.nn.functional.cross_entropy(logits.T, target)
            )
            if args.crop_weight > 0 and len(x_crop):
                ci = torch.from_numpy(rng.integers(0, len(x_crop), args.crop_batch))
                cflip = torch.from_numpy(rng.random(len(ci)) < 0.5)[:, None]
                cx = torch.where(cflip, xf_crop_t[ci], x_crop_t[ci])
                cb = torch.where(cflip, bf_crop[ci], b_crop[ci])
                lang = torch.from_numpy(rng.integers(0, 2, len(ci)))
                cz = torch.nn.functional.normalize(project(cx, cb), dim=-1)
                clog = logit_scale.exp().clamp(max=100) * torch.einsum("bd,bkd->bk", cz, cls_emb[lang])
                loss = loss + args.crop_weight * torch.nn.functional.cross_entropy(clog, crop_cls_t[ci])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            losses.append(float(loss))
        bar.set_postfix(loss=f"{np.mean(losses):.3f}", scale=f"{float(logit_scale.exp()):.1f}")
        torch.save(
            {
                "joint": joint.state_dict(),
                "logit_scale": logit_scale.data,
                "opt": opt.state_dict(),
                "epoch": epoch + 1,
                "rng": rng,
            },
            ckpt,
        )
    joint.eval()
    joint.requires_grad_(False)
    metrics = dev_metrics(joint, backend, sets, held, zs_held, args.cache)
    log.info("dev metrics: %s", metrics)
    if args.out:
        save_projection(joint, backend, args, metrics)
    return metrics


def dev_metrics(joint, backend, sets: dict, held: dict, zs_held: Sequence[str], cache: Path) -> dict[str, float]:  # type: ignore[no-untyped-def]
    """Held-out retrieval (Flickr en, COCO en/ru), COCO crop top-1 and presence AUCs from cached features."""
    import torch

    feats = sets["feats"]

    def embed(x: np.ndarray) -> np.ndarray:
        with torch.inference_mode():
            pooled = torch.from_numpy(select_pool(x, joint.pool))
            return joint(pooled, backend.tower.classify(pooled[:, : backend.tower.feature_dim])).numpy()

    out: dict[str, float] = {}
    for name, lang, key in (
        ("flickr8k", "en", "flickr8k_en"),
        ("coco_val", "en", "coco_val_en"),
        ("coco_val", "ru", "coco_val_ru"),
    ):
        names = [str(n) for n in feats[name]["names"]]
        pos = {n: i for i, n in enumerate(names)}
        imgs = held[name]
        if any(n not in pos for n in imgs):
            log.warning("held-out %s images not all cached yet: no %s metrics", name, name)
            continue
        emb = embed(feats[name]["feat"][[pos[n] for n in imgs]])
        texts, owner = [], []
        for j, n in enumerate(imgs):
            for c in sets[key].get(n, []):
                texts.append(c)
                owner.append(j)
        temb = text_embeddings(texts, cache)["emb"]
        for k, v in recall_at(temb, emb, np.array(owner)).items():
            out[f"{name}_{lang}_{k}"] = v
    for setname, gold_key, images in (("zsod_coco_dev", "zsod_gold", list(zs_held)), ("fb_sample", "fb_gold", None)):
        gold = sets[gold_key]
        imgf = feats[f"{setname}_images"]
        names = [str(n) for n in imgf["names"]]
        images = images if images is not None else names
        phrases = sorted({p for img in images for p in gold[img]})
        pemb = dict(zip(phrases, text_embeddings(phrases, cache)["emb"], strict=True))
        pos = {n: i for i, n in enumerate(names)}
        out[f"{setname}_presence_auc"] = presence_auc(embed(imgf["feat"][[pos[n] for n in images]]), gold, images, pemb)
        wanted = set(images)
        keep = [i for i, img in enumerate(feats[f"{setname}_crops"]["images"]) if str(img) in wanted]
        # ROI features are stored in the crops' order, so one index list serves both.
        for kind, metric in (("crops", "crop_top1"), ("rois", "roi_top1")):
            if f"{setname}_{kind}" not in feats:
                continue
            f = feats[f"{setname}_{kind}"]
            out[f"{setname}_{metric}"] = crop_top1(
                embed(f["feat"][keep]),
                [str(f["images"][i]) for i in keep],
                [str(f["phrases"][i]) for i in keep],
                gold,
                pemb,
            )
    return out


def save_projection(joint, backend, args: argparse.Namespace, metrics: dict[str, float]) -> None:  # type: ignore[no-untyped-def]
    """Write the fp16 projection + its JSON card next to it (with the file's sha256 and size, which
    every load checks: ``core.weights``)."""
    from safetensors.torch import save_file

    from core.weights import file_record

    state = {k: v.detach().half().contiguous() for k, v in joint.learned_state().items()}
    digest = hashlib.sha1(b"".join(v.numpy().tobytes() for _, v in sorted(state.items()))).hexdigest()[:8]
    version = f"lit-{args.kind}-{args.pool}-{digest}"
    meta = {
        "version": version,
        "kind": args.kind,
        "hidden": json.dumps(args.hidden),
        "pool": args.pool,
        "tower": backend.tower.version,
        "bridge_temperature": str(args.bridge_temperature),
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    save_file(state, str(out), metadata=meta)
    out.chmod(0o644)  # safetensors writes 0600; the file ships in the repo
    card = {
        **meta,
        "data": "trunk_pairs flickr8k (train split, en) + coco_val (train split, en + machine ru) + "
        "zsod_coco_dev gold boxes of the train half (crops, mirrored crops, ROI-pooled) with ru/en class names",
        "held_out": {"flickr8k": HELD_OUT_FLICKR, "coco_val": HELD_OUT_COCO, "zsod_coco_dev": "half by name hash"},
        "args": {k: str(v) for k, v in vars(args).items()},
        "dev_metrics": metrics,
        "files": {out.name: file_record(out)},
    }
    out.with_suffix(".json").write_text(json.dumps(card, indent=2, ensure_ascii=False) + "\n")
    log.info("saved %s (%s, %.0f KB)", out, version, out.stat().st_size / 1024)


def embed_all_texts(cache: Path, data: Path = DATA) -> None:
    """Fill the text cache with every caption, zsOD phrase and class name."""
    pairs = data / "trunk_pairs"
    texts = list(COCO_RU) + list(COCO_RU.values())
    for f in (
        pairs / "flickr8k" / "captions_en.json",
        pairs / "coco_val" / "captions_en.json",
        pairs / "coco_val" / "captions_ru_machine.json",
    ):
        texts += [c for cs in json.loads(f.read_text()).values() for c in cs]
    for name in ("fb_sample", "zsod_coco_dev"):
        gold = json.loads((data / name / "true" / "zsOD" / "true_zsOD.json").read_text())
        texts += [p for d in gold.values() for p in d]
    text_embeddings(texts, cache)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.trunk", description=__doc__.split("\n\n")[0])
    parser.add_argument("--tower", default="efficientnet_lite0")
    parser.add_argument("--cache", type=Path, default=CACHE)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--no-flip", action="store_true", help="skip flipped-image features")
    parser.add_argument("--no-flickr", action="store_true", help="extract without Flickr8k (quick tower comparisons)")
    parser.add_argument("--extract-only", action="store_true")
    parser.add_argument("--texts-only", action="store_true", help="just embed every caption/phrase into the cache")
    parser.add_argument("--kind", choices=("linear", "mlp"), default="linear")
    parser.add_argument("--hidden", type=int, default=1024)
    parser.add_argument(
        "--pool", choices=("mean", "meanmax"), default="mean", help="projection input: spatial mean, or mean | max"
    )
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--crop-batch", type=int, default=64)
    parser.add_argument("--crop-weight", type=float, default=3.0)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--wd", type=float, default=0.05)
    parser.add_argument("--bridge-temperature", type=float, default=0.5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--no-rois", dest="rois", action="store_false", help="skip gold boxes pooled from whole-image maps in training"
    )
    parser.add_argument(
        "--no-bridge", action="store_true", help="ablation: gate fixed at 0 (no class-name bridge term)"
    )
    parser.add_argument("--resume", action="store_true", help="continue from the last epoch checkpoint in --cache")
    parser.add_argument("--out", default=None, help="projection file (default: the shipped one for --tower)")
    parser.add_argument("--no-save", action="store_true")
    args = parser.parse_args(argv)
    import torch

    torch.set_num_threads(args.threads)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if args.texts_only:
        embed_all_texts(args.cache)
        return 0
    if args.extract_only:
        start = time.time()
        extract_all(args.tower, args.cache, flip=not args.no_flip, flickr=not args.no_flickr)
        log.info("features ready in %.0fs", time.time() - start)
        return 0
    if args.no_save:
        args.out = None
    elif args.out is None:
        from core.backends.default import shipped_projection

        args.out = str(shipped_projection(args.tower))
    metrics = train(args)
    print(json.dumps(metrics, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
