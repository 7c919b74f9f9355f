"""How well the default trunk ties images to text: shipped joint space vs the class-name bridge.

    python -m bench.trunk_probe [--tower efficientnet_lite0] [--projection PATH] [--threads 2]

Prints, for the shipped trunk (``TrunkConfig()``) and the ImageNet class-name
bridge (``TrunkConfig(pretrained="bridge")``), on data never used for training:

* zsOD ``fb_sample`` (evaluation only) and the held-out half of ``zsod_coco_dev``:
  presence AUC (whole-image embedding; present vs negative phrases of the same
  image, all within-image pairs) and crop top-1 (the gold box's crop, encoded as
  an image: its own phrase ranks first among its image's phrases); ROI top-1 is
  the same with the box pooled from one whole-image pass at long side 512
  (``roi_align`` on the stride-32 map, as the zsOD plugin embeds regions);
* text -> image R@1/R@5 on 1,000 held-out Flickr8k images (English captions)
  and on 250 held-out COCO images (machine Russian captions, and the same
  images' English captions for comparison).

Both trunks share the image tower, so each image's pooled tower feature is
computed once and projected by each trunk's joint space (``encode_images`` is
exactly ``project(pooled_features)``; checked on a few images). Also prints the
trunk's encoding speed on this machine.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import torch

import registry
from core.splits import DEFAULT_DATA_ROOT as DATA
from core.splits import HELD_OUT_COCO, HELD_OUT_FLICKR, challenge_halves, split
from core.trunk import Trunk, TrunkConfig, load_trunk
from training.trunk import (
    _open,
    cached,
    crop_image,
    crop_top1,
    gold_crops,
    presence_auc,
    read_chunks,
    recall_at,
    roi_features,
)


def pooled(trunk: Trunk, images: list, batch: int = 32) -> torch.Tensor:
    """Pooled tower features of PIL images (through the trunk's own transform)."""
    backend = trunk._backend  # noqa: SLF001 - the probe splits encode_images into tower + joint
    out = []
    with torch.inference_mode():
        for s in range(0, len(images), batch):
            pixels = torch.stack([trunk.image_transform(im) for im in images[s : s + batch]])
            out.append(backend.pooled_features(pixels))
    return torch.cat(out) if out else torch.zeros(0, backend.tower.feature_dim)


def project(trunk: Trunk, feats: torch.Tensor) -> np.ndarray:
    with torch.inference_mode():
        return torch.nn.functional.normalize(trunk._backend.project(feats), dim=-1).numpy()  # noqa: SLF001


def embed_texts(trunk: Trunk, texts: list[str]) -> np.ndarray:
    with torch.inference_mode():
        return torch.cat([trunk.embed_texts(texts[s : s + 256]) for s in range(0, len(texts), 256)]).numpy()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tower", default="")
    parser.add_argument("--projection", default="", help="joint projection file (default: the shipped one)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--cache",
        type=Path,
        default=None,
        help="reuse the tower features training.trunk cached (e.g. /tmp/trunk/cache); spot-checked against the trunk",
    )
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    if not DATA.is_dir():
        print(f"needs {DATA}", file=sys.stderr)
        return 2

    t0 = time.perf_counter()
    shipped = load_trunk(TrunkConfig(model_name=args.tower, pretrained=args.projection), registry.load())
    load_s = time.perf_counter() - t0
    base = shipped._backend  # noqa: SLF001
    from core.backends.default import DefaultBackend, build_joint

    bridge = Trunk(
        DefaultBackend(base.tower, base.text, build_joint("bridge", base.tower, base.text)),
        TrunkConfig(pretrained="bridge"),
    )
    trunks = {"shipped": shipped, "bridge": bridge}
    print(f"shipped trunk: {shipped.component_versions} (load {load_s:.1f}s)")

    # ---- features of every evaluation image (tower once) ----
    t0 = time.perf_counter()
    n_images = 0
    root = args.cache / base.tower.name if args.cache else None
    pool = getattr(base.joint, "pool", "mean")
    dim = base.tower.feature_dim

    def from_cache(feat: np.ndarray) -> torch.Tensor:
        feat = feat if pool == "meanmax" else feat[:, :dim]
        if feat.shape[1] != (2 * dim if pool == "meanmax" else dim):
            raise SystemExit(f"cache {root} lacks the features this projection needs (pool={pool})")
        return torch.from_numpy(np.ascontiguousarray(feat))

    zs = {}
    for setname, images in (
        ("fb_sample", None),
        ("zsod_coco_dev", challenge_halves(DATA / "zsod_coco_dev", "zsOD")[1]),
    ):
        folder = DATA / setname / "input" / "zsOD" / "images"
        gold = json.loads((DATA / setname / "true" / "zsOD" / "true_zsOD.json").read_text())
        images = sorted(images or gold)
        crops = gold_crops(gold, images)
        if root and (root / f"{setname}_crops.npz").exists():
            w, c = cached(root / f"{setname}_images.npz", dict), cached(root / f"{setname}_crops.npz", dict)
            wpos = {str(n): i for i, n in enumerate(w["names"])}
            # crops are cached in gold order (every image of the set)
            keys = [(str(a), str(b)) for a, b in zip(c["images"], c["phrases"], strict=True)]
            wanted = [(x.image, x.phrase) for x in gold_crops(gold, sorted(gold))]
            assert keys == wanted, "crop cache does not match the gold boxes"
            pick = [i for i, k in enumerate(keys) if k[0] in set(images)]
            zs[setname] = (
                gold,
                images,
                crops,
                from_cache(w["feat"][[wpos[n] for n in images]]),
                from_cache(c["feat"][pick]),
            )
        else:
            whole = [_open(folder / n) for n in images]
            crop_ims = [crop_image(whole[images.index(x.image)], x.box) for x in crops]
            zs[setname] = (gold, images, crops, pooled(shipped, whole), pooled(shipped, crop_ims))
            n_images += len(whole) + len(crop_ims)
    # Boxes pooled from one whole-image pass (how zsOD embeds regions): always fresh.
    rois = {}
    for setname, (_, images, crops, _, _) in zs.items():
        folder = DATA / setname / "input" / "zsOD" / "images"
        parts = []
        for name in images:
            boxes = [c.box for c in crops if c.image == name]
            if boxes:
                parts.append(torch.from_numpy(roi_features(base, _open(folder / name), boxes)))
        rois[setname] = torch.cat(parts)
        n_images += len(images)
    ret = {}
    pairs = DATA / "trunk_pairs"
    for name, n_held in (("flickr8k", HELD_OUT_FLICKR), ("coco_val", HELD_OUT_COCO)):
        caps = json.loads((pairs / name / "captions_en.json").read_text())
        held = split(caps, n_held)[1]
        chunks = read_chunks(root / name) if root else {"names": np.array([])}
        cpos = {str(n): i for i, n in enumerate(chunks["names"])}
        if held and all(n in cpos for n in held):
            ret[name] = (held, from_cache(chunks["feat"][[cpos[n] for n in held]]))
        else:
            ret[name] = (held, pooled(shipped, [_open(pairs / name / "images" / n) for n in held]))
            n_images += len(held)
    tower_s = time.perf_counter() - t0

    # encode_images == project(pooled features): the probe's shortcut (and any cache) is exact
    for name in ("flickr8k", "coco_val"):
        check = torch.stack([shipped.image_transform(_open(pairs / name / "images" / n)) for n in ret[name][0][:4]])
        with torch.inference_mode():
            fresh = shipped.encode_images(check).numpy()
        assert np.allclose(fresh, project(shipped, ret[name][1][:4]), atol=1e-3), (
            f"{name}: cached features differ from the trunk"
        )
    gold, images, crops, _, crop_f = zs["zsod_coco_dev"]
    folder = DATA / "zsod_coco_dev" / "input" / "zsOD" / "images"
    check = torch.stack([shipped.image_transform(crop_image(_open(folder / x.image), x.box)) for x in crops[:4]])
    with torch.inference_mode():
        assert np.allclose(shipped.encode_images(check).numpy(), project(shipped, crop_f[:4]), atol=1e-3), (
            "crop features differ"
        )

    # ---- metrics ----
    ru = json.loads((pairs / "coco_val" / "captions_ru_machine.json").read_text())
    en = {n: json.loads((pairs / n / "captions_en.json").read_text()) for n in ("flickr8k", "coco_val")}
    rows: dict[str, dict[str, float]] = {}
    for label, trunk in trunks.items():
        r: dict[str, float] = {}
        for setname, (gold, images, crops, whole_f, crop_f) in zs.items():
            phrases = sorted({p for img in images for p in gold[img]})
            pemb = dict(zip(phrases, embed_texts(trunk, phrases), strict=True))
            r[f"{setname} presence AUC"] = presence_auc(project(trunk, whole_f), gold, images, pemb)
            r[f"{setname} crop top-1"] = crop_top1(
                project(trunk, crop_f), [c.image for c in crops], [c.phrase for c in crops], gold, pemb
            )
            r[f"{setname} ROI top-1"] = crop_top1(
                project(trunk, rois[setname]), [c.image for c in crops], [c.phrase for c in crops], gold, pemb
            )
        for name, lang, caps in (
            ("flickr8k", "en", en["flickr8k"]),
            ("coco_val", "en", en["coco_val"]),
            ("coco_val", "ru", ru),
        ):
            held, feats = ret[name]
            texts, owner = [], []
            for j, n in enumerate(held):
                for c in caps.get(n, []):
                    texts.append(c)
                    owner.append(j)
            rec = recall_at(embed_texts(trunk, texts), project(trunk, feats), np.array(owner))
            for k, v in rec.items():
                r[f"{name} {lang} t->i {k} ({len(held)} imgs)"] = v
        rows[label] = r

    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        keys = list(rows["shipped"])
        width = max(map(len, keys))
        print(f"{'metric':<{width}}  {'bridge':>7}  {'shipped':>7}")
        for k in keys:
            print(f"{k:<{width}}  {rows['bridge'][k]:7.3f}  {rows['shipped'][k]:7.3f}")
        print(
            f"fresh tower passes (ROI passes at long side 512 + anything not in --cache): {n_images} images "
            f"in {tower_s:.1f}s on {args.threads} threads (wall clock, includes JPEG decoding)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
