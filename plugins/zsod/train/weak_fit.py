"""Train the grounding head (``plugins.zsod.head``): weak MIL from captions + strong COCO boxes.

Weak part (captioned images, ``plugins.zsod.train.weak``): for each image, phrases mined
from its own captions are present somewhere (label 1 for the soft maximum of the
phrase's logits over the image's regions: the 10 x 10 cells of its cached
stride-32 map and 169 boxes of 2-10 cells); absent (label 0) are

* attribute swaps ("a black dog" -> "a purple dog") and object swaps ("a white
  dog" -> "a white bench"), with words none of the image's captions use;
* same-scene phrases: phrases of the 15 images whose captions are nearest in the
  text space, whose head noun the image's captions never mention (Russian: whose
  text embedding is far from every phrase of the image);
* phrases of random other images, under the same filter.

Strong part (optional): images with gold boxes per phrase at the task's own
feature pass (``StrongImage``): per-proposal BCE (IoU >= 0.5 is positive) and the
image-level BCE over all proposals. All seeded; the caller saves the head.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from plugins.zsod.train import phrases as ph

if TYPE_CHECKING:
    import torch

log = logging.getLogger(__name__)

POSITIVES = 8  # phrases kept per image (up to 2 of them Russian)
SWAPS = 4
SCENE_NEG = 6
RANDOM_NEG = 6
PER_STEP_POS = 4
PER_STEP_NEG = 12
MIN_STRONG_STEPS = 100  # steps an epoch when only labelled boxes train the grounding head


@dataclass
class WeakImage:
    key: str
    phrases: list[int]  # indices into the text table
    labels: list[int]


@dataclass
class StrongImage:
    """One image with gold boxes: pooled stride-32 features of every proposal and its labels."""

    key: str
    pooled: np.ndarray  # [N, C] float32
    texts: np.ndarray  # [P, D] phrase embeddings
    labels: np.ndarray  # [N, P] 1 where IoU >= 0.5 with a gold box of the phrase
    present: np.ndarray  # [P] 1 where the phrase has gold boxes


def build_phrases(
    captions: Mapping[str, Mapping[str, Sequence[str]]], keys: Sequence[str], embed: Callable, seed: int
) -> tuple[list[WeakImage], np.ndarray, list[str]]:
    """Mine positives and build negatives for ``keys``; returns (images, text embeddings, texts)."""
    rng = random.Random(seed)
    pos: dict[str, list[str]] = {}
    vocab: dict[str, set[str]] = {}
    head_count: dict[str, int] = {}
    for k in keys:
        mined = ph.mine(captions[k]["en"], captions[k].get("ru", ()))
        rng.shuffle(mined)
        en = [p for p in mined if not is_cyrillic(p)][: POSITIVES - 2]
        ru = [p for p in mined if is_cyrillic(p)][:2]
        pos[k] = en + ru
        vocab[k] = ph.caption_vocabulary(captions[k]["en"])
        for p in en:
            h = ph.head_noun(p)
            head_count[h] = head_count.get(h, 0) + 1
    nouns = sorted(h for h, c in head_count.items() if c >= 20 and len(h) > 2)
    swaps: dict[str, list[str]] = {}
    for k in keys:
        out = []
        for p in pos[k]:
            if is_cyrillic(p):
                continue
            s = ph.swap_attribute(p, vocab[k], rng) if rng.random() < 0.6 else None
            s = s or ph.swap_object(p, nouns, vocab[k], rng)
            if s and s not in pos[k]:
                out.append(s)
        swaps[k] = out[:SWAPS]
    texts = sorted({t for k in keys for t in pos[k] + swaps[k]})
    index = {t: i for i, t in enumerate(texts)}
    emb = embed(texts)
    # image descriptor: mean of its positive phrases; nearest images give same-scene candidates
    desc = np.stack([emb[[index[t] for t in pos[k]]].mean(0) for k in keys])
    desc /= np.linalg.norm(desc, axis=1, keepdims=True) + 1e-9
    sims = desc @ desc.T
    np.fill_diagonal(sims, -1)
    near = np.argsort(-sims, axis=1)[:, :15]
    images = []
    for i, k in enumerate(keys):
        own = emb[[index[t] for t in pos[k]]]

        def valid(t: str, k: str = k, own: np.ndarray = own) -> bool:
            if t in pos[k]:
                return False
            e = emb[index[t]]
            if float((own @ e).max()) > (0.55 if is_cyrillic(t) else 0.8):
                return False
            return is_cyrillic(t) or ph.head_noun(t) not in vocab[k]

        scene = [t for j in near[i] for t in pos[keys[j]] if valid(t)]
        rng.shuffle(scene)
        rand = []
        for _ in range(4 * RANDOM_NEG):
            j = rng.randrange(len(keys))
            t = rng.choice(pos[keys[j]]) if pos[keys[j]] else None
            if t and valid(t):
                rand.append(t)
            if len(rand) >= RANDOM_NEG:
                break
        negs = list(dict.fromkeys(swaps[k] + scene[:SCENE_NEG] + rand))
        images.append(
            WeakImage(k, [index[t] for t in pos[k]] + [index[t] for t in negs], [1] * len(pos[k]) + [0] * len(negs))
        )
    return images, emb, texts


def is_cyrillic(text: str) -> bool:
    return any("\u0400" <= c <= "\u04ff" for c in text)


def box_pool_matrix(h: int, w: int) -> np.ndarray:
    """``[M, h * w]`` averaging weights: every cell, then boxes of 2, 4, 6 and ``h`` x ``w`` cells at stride 2."""
    rows = [np.eye(h * w, dtype=np.float32)]
    sizes = sorted({2, 4, 6, min(h, w)})
    for bh in sizes:
        for bw in sizes:
            for y in range(0, h - bh + 1, 2):
                for x in range(0, w - bw + 1, 2):
                    m = np.zeros((h, w), np.float32)
                    m[y : y + bh, x : x + bw] = 1.0 / (bh * bw)
                    rows.append(m.reshape(1, -1))
    return np.concatenate(rows)


def fit_grounding(
    fmaps: torch.Tensor | None,
    weak: Sequence[WeakImage],
    text_emb: np.ndarray | None,
    strong: Sequence[StrongImage],
    *,
    epochs: int,
    seed: int,
    batch: int = 32,
    lr: float = 2e-3,
    progress: bool = True,
    on_epoch: Callable[[int, Any], None] | None = None,
) -> torch.nn.Module:
    """Train a grounding head. ``fmaps`` ``[n, C, h, w]`` (fp16) in ``weak`` order, with the phrase
    embeddings ``text_emb`` the weak images index; without captioned images (``fmaps`` None, ``weak``
    empty) the head learns from the labelled boxes of ``strong`` alone, an epoch being a pass of
    four-image steps over them (at least ``MIN_STRONG_STEPS``, so a few dozen images still train)."""
    import torch
    from tqdm import tqdm

    from plugins.zsod.head import build_grounding_head, image_logit

    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    if fmaps is not None and text_emb is not None and len(weak):
        n, c, h, w = fmaps.shape
        text_dim = text_emb.shape[1]
        sample = fmaps[rng.choice(n, size=min(n, 512), replace=False)].float().permute(0, 2, 3, 1).reshape(-1, c)
        pool = torch.from_numpy(box_pool_matrix(h, w))  # [M, h*w]
        texts = torch.from_numpy(text_emb.astype(np.float32))
        steps_per_epoch = (n + batch - 1) // batch
    elif strong:
        n, c, text_dim = 0, strong[0].pooled.shape[1], strong[0].texts.shape[1]
        sample = torch.from_numpy(np.concatenate([im.pooled for im in strong])).float()
        steps_per_epoch = max(MIN_STRONG_STEPS, (len(strong) + 3) // 4)
    else:
        raise ValueError("no images to learn grounding from: neither captioned images nor labelled boxes")
    head = build_grounding_head(c, text_dim)
    head.mean.copy_(sample.mean(0))
    head.std.copy_(sample.std(0).clamp(min=1e-3))
    img_bias = torch.nn.Parameter(torch.zeros(()))
    params = [*head.parameters(), img_bias]
    opt = torch.optim.AdamW(params, lr=lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=epochs * steps_per_epoch, pct_start=0.1)
    bce = torch.nn.functional.binary_cross_entropy_with_logits

    def weak_loss(idx: np.ndarray) -> torch.Tensor:
        """Multiple-instance loss of a batch of captioned images: each phrase's best region decides."""
        f = fmaps[idx].float().permute(0, 2, 3, 1).reshape(len(idx), h * w, c)
        u = pool @ head.region_codes(f)  # [B, M, k]
        ids, labels = [], []
        for i in idx:
            im = weak[i]
            p = [j for j, y in zip(im.phrases, im.labels, strict=True) if y]
            q = [j for j, y in zip(im.phrases, im.labels, strict=True) if not y]
            p = list(rng.choice(p, size=min(PER_STEP_POS, len(p)), replace=False)) if p else []
            q = list(rng.choice(q, size=min(PER_STEP_NEG, len(q)), replace=False)) if q else []
            sel = (p + q + [p[0] if p else 0] * (PER_STEP_POS + PER_STEP_NEG))[: PER_STEP_POS + PER_STEP_NEG]
            lab = ([1.0] * len(p) + [0.0] * len(q) + [-1.0] * (PER_STEP_POS + PER_STEP_NEG))[: len(sel)]
            ids.append(sel)
            labels.append(lab)
        v = head.text_codes(texts[torch.tensor(ids)])  # [B, P, k]
        score = image_logit(head.logits(u, v), dim=1) + img_bias  # [B, P]
        y = torch.tensor(labels)
        mask = y >= 0
        return bce(score[mask], y[mask], pos_weight=torch.tensor(2.0))

    for epoch in range(epochs):
        order = rng.permutation(n)
        bar = tqdm(range(steps_per_epoch), desc=f"grounding epoch {epoch + 1}/{epochs}", disable=not progress)
        total = 0.0
        for s in bar:
            loss = weak_loss(order[s * batch : (s + 1) * batch]) if n else torch.zeros(())
            if strong:
                part = [strong[j] for j in rng.choice(len(strong), size=min(4, len(strong)), replace=False)]
                for im in part:
                    lg = head(torch.from_numpy(im.pooled), torch.from_numpy(im.texts))  # [N, P]
                    yl = torch.from_numpy(im.labels)
                    pw = torch.tensor(float(min(50.0, (yl.numel() - yl.sum()) / max(float(yl.sum()), 1.0))))
                    loss = loss + 0.5 * bce(lg, yl, pos_weight=pw) / len(part)
                    sc = image_logit(lg, dim=0) + img_bias
                    loss = loss + 0.5 * bce(sc, torch.from_numpy(im.present)) / len(part)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach())
            bar.set_postfix(loss=f"{total / (s + 1):.4f}")
        log.info("grounding epoch %d: mean loss %.4f", epoch + 1, total / steps_per_epoch)
        if on_epoch is not None:
            on_epoch(epoch, head)
    head.image_bias = float(img_bias.detach())
    return head.eval()


def weak_auc(head: torch.nn.Module, fmaps: torch.Tensor, weak: Sequence[WeakImage], text_emb: np.ndarray) -> dict:
    """Presence AUC on captioned images (within-image pairs: positive vs negative phrase), all negatives
    and per kind is not tracked: one figure."""
    import torch

    from plugins.zsod.head import image_logit

    n, c, h, w = fmaps.shape
    pool = torch.from_numpy(box_pool_matrix(h, w))
    good = total = 0.0
    with torch.inference_mode():
        for i, im in enumerate(weak):
            f = fmaps[i : i + 1].float().permute(0, 2, 3, 1).reshape(1, h * w, c)
            u = pool @ head.region_codes(f)
            v = head.text_codes(torch.from_numpy(text_emb[im.phrases].astype(np.float32)))[None]
            s = image_logit(head.logits(u, v), dim=1)[0].numpy()
            y = np.array(im.labels)
            pos, neg = s[y == 1], s[y == 0]
            if len(pos) and len(neg):
                good += float((pos[:, None] > neg[None]).sum() + 0.5 * (pos[:, None] == neg[None]).sum())
                total += len(pos) * len(neg)
    return {"weak_auc": good / total if total else float("nan")}


def load_fmaps(shards: Sequence[Path], keys: Sequence[str]) -> torch.Tensor:
    """Stack the cached maps of ``keys`` (in that order) from the shards; missing keys raise KeyError."""
    import torch

    where: dict[str, tuple[int, int]] = {}
    arrays = []
    for s, path in enumerate(shards):
        z = np.load(path)
        arrays.append(z["fmap"])
        for i, k in enumerate(z["keys"]):
            where[str(k)] = (s, i)
    return torch.from_numpy(np.stack([arrays[where[k][0]][where[k][1]] for k in keys]))
