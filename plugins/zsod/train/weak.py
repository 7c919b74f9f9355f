"""Weak supervision for zsOD: captioned images -> cached trunk features + mined phrases.

Captioned images (``trunk_pairs``: Flickr8k and COCO with 5 English captions, COCO
also with machine Russian ones; or any COCO captions JSON) carry no boxes, but
every noun phrase of an image's captions is present *somewhere* in it. The head
(``plugins.zsod.head``) learns from that by multiple-instance learning over the
cells of the trunk's stride-32 map, so this module caches, once per trunk, each
image's stride-32 map at ``TRAIN_SIDE`` x ``TRAIN_SIDE`` (the captioned images
are 224 px squares; 320 px puts objects nearer the scale of the task's 512 px
feature pass) in shards of ``SHARD`` images (resumable: a shard is written
atomically and skipped when present).
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from core.trunk import Trunk

log = logging.getLogger(__name__)

TRAIN_SIDE = 320
SHARD = 128


def cache_dir_for(root: Path, trunk: Trunk) -> Path:
    return Path(root) / f"weak-{trunk.version}-{TRAIN_SIDE}"


def shard_holds(path: Path, wanted: Sequence[str]) -> bool:
    """True when the shard at ``path`` was made for ``wanted`` (unreadable images may be missing from it)."""
    keys = [str(k) for k in np.load(path)["keys"]]
    return set(keys) <= set(wanted) and len(keys) >= len(wanted) // 2 and (not keys or keys[0] in wanted[:8])


def cache_features(
    trunk: Trunk, images: Sequence[tuple[str, Path]], folder: Path, *, progress: bool = True, batch: int = 8
) -> list[Path]:
    """Cache ``(key, path)`` images' stride-32 maps (fp16) in shards under ``folder``; returns the shards.

    Shard ``i`` holds ``images[i * SHARD : (i + 1) * SHARD]``: the order must be stable across
    resumed runs (callers pass a hash order). Each shard: ``keys``, ``fmap`` ``[n, C, h, w]``.
    """
    import torch
    from PIL import Image
    from tqdm import tqdm

    folder.mkdir(parents=True, exist_ok=True)
    n_shards = (len(images) + SHARD - 1) // SHARD
    out = []
    bar = tqdm(total=len(images), desc="zsod weak features", unit="img", disable=not progress)
    for s in range(n_shards):
        part = images[s * SHARD : (s + 1) * SHARD]
        path = folder / f"shard_{s:04d}.npz"
        out.append(path)
        if path.exists() and shard_holds(path, [k for k, _ in part]):
            bar.update(len(part))
            continue
        keys, maps = [], []
        for b in range(0, len(part), batch):
            pix, names = [], []
            for key, p in part[b : b + batch]:
                try:
                    with Image.open(p) as im:
                        rgb = im.convert("RGB").resize((TRAIN_SIDE, TRAIN_SIDE), Image.Resampling.BICUBIC)
                except OSError as exc:
                    log.warning("zsod weak: %s unreadable (%s); skipped", p, exc)
                    continue
                pix.append(trunk.normalize_pixels(np.asarray(rgb)))
                names.append(key)
            if not pix:
                continue
            with torch.inference_mode():
                fmap = trunk.image_feature_maps(torch.stack(pix)).maps[-1]
            maps.append(fmap.to(torch.float16).numpy())
            keys.extend(names)
            bar.update(len(part[b : b + batch]))
        tmp = path.with_suffix(".tmp.npz")
        np.savez(tmp, keys=np.array(keys), fmap=np.concatenate(maps) if maps else np.zeros((0, 1, 1, 1), np.float16))
        os.replace(tmp, path)
    bar.close()
    return out


def caption_sets(roots: Sequence[Path]) -> dict[str, dict[str, list[str]]]:
    """``{key: {"en": [...], "ru": [...], "path": [str]}}`` from trunk_pairs-style folders.

    A folder holds ``captions_en.json`` (``{image: [caption, ...]}``), optionally
    ``captions_ru_machine.json``/``captions_ru.json``, and ``images/``.
    """
    out: dict[str, dict[str, list[str]]] = {}
    for root in roots:
        root = Path(root)
        en = json.loads((root / "captions_en.json").read_text(encoding="utf-8"))
        ru: dict[str, list[str]] = {}
        for name in ("captions_ru_machine.json", "captions_ru.json"):
            if (root / name).exists():
                ru.update(json.loads((root / name).read_text(encoding="utf-8")))
        images = root / "images" if (root / "images").is_dir() else root
        for name, caps in en.items():
            path = images / name
            if path.is_file():
                out[f"{root.name}/{name}"] = {"en": list(caps), "ru": list(ru.get(name, [])), "path": [str(path)]}
    return out
