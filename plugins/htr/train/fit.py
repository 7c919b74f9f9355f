"""Fit the HTR CTC head: ``fit_head(...)`` (what ``plugins.htr.train.train_head`` runs) and its steps.

Set-up (training only; inference needs no fonts):

    apt-get update && apt-get install -y <FONT_PACKAGES from plugins/htr/train/render.py> hershey-fonts-data
    python -m plugins.htr.train.fontsource     # handwriting faces from npm (needs npm)
    pip install wordfreq==3.1.1

Data (``TrainRequest.sources``; CLI ``--data NAME=PATH``, repeatable):

* rendered words are always the base: the font renderer (``plugins.htr.train.render``)
  and, for ``pen_share`` of the words (default 0.5), the pen-stroke renderer
  (``plugins.htr.train.pen``, Hershey single-stroke glyphs). The style-held-out dev set's
  fonts, Hershey sets and pen styles (``plugins.htr.train.heldout``) are refused here.
* ``htr=DIR``: real handwriting, a folder of word images plus ``labels.tsv``
  (``file<TAB>text`` per line) or ``labels.json`` (``{"file": "text"}``); images
  may sit in the folder or in its ``images/``.
* ``challenge=DIR``: a set in the challenge layout (``input/HTR/images/*`` and
  ``true/HTR/true_HTR.json``); sets without an HTR part are skipped.
* every other source name (``coco_*``, ``vqa_*``, ``vg_*``) is ignored. No source
  defaults to ``../shared/data``: its only HTR words are ``fb_sample``, the test sample.

``python -m plugins.htr.train [--data ...] [--trunk SPEC] [--device cuda] [--htr-steps N ...]``
(the same as ``train.py --tasks htr``) runs ``fit_head`` end to end (seeded, resumable, tqdm
progress), warm-starting from the shipped head when it was made for the trunk's image tower.
Its steps, for staged runs on a shared machine, are ``python -m plugins.htr.train.fit --stage``:

* ``produce``: render words, run them through the frozen trunk once and cache
  its stride-8/16 maps as fp16 shards under ``--cache`` (``--pen-share`` of them
  pen-stroke words). Existing shards are kept (resumable), and several
  ``--worker i --workers n`` processes can fill one cache in parallel.
* ``train``: AdamW on the head with ``ctc_loss`` over every shard present
  (re-listed each epoch, so training can start while producers still run),
  checkpointing to ``--cache/checkpoint.pt`` (resumable); ``--init`` warm-starts
  from a checkpoint or a head folder.
* ``export``: write ``htr_head.safetensors`` (fp16) and the JSON card with the
  dev score on a separately seeded rendered dev shard.
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import random
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

import registry
from plugins.htr.charset import CHARSET, NUM_CLASSES, decode, encode
from plugins.htr.ctc import BLANK
from plugins.htr.head import CARD_NAME, WEIGHTS_DIR, WEIGHTS_NAME
from plugins.htr.preprocess import HEIGHT, WIDTH, fit_word, reading_height, reading_maps, to_pixels
from training import TrainRequest

log = logging.getLogger(__name__)

SHARD_SIZE = 256
DEV_SEED = 999_983
ROTATED_SHARE = 0.12  # sideways crops teach the upright score; no CTC loss on them
DEFAULT_SHARDS = 160  # 40,960 rendered crops
DEFAULT_STEPS = 6000  # from scratch
DEFAULT_STEPS_WARM = 3000  # warm-started from the shipped head
DEFAULT_PEN_SHARE = 0.5
LICENCE = (
    "CC BY-SA 4.0: the head descends from one trained on CoMNIST letters (CC BY-SA 4.0, share-alike);"
    " DHSD words (CC BY 4.0) ask for attribution, which data.real_words gives"
)
REAL_REPEAT = 4  # real handwriting (when given) is seen this many times per epoch of rendered words


def build_trunk(spec: str, ablation: str = "none"):  # noqa: ANN201 - Trunk, imported lazily
    from core.trunk import TrunkConfig, load_trunk

    if spec == "fake":
        from core.testing import make_fake_trunk

        return make_fake_trunk(ablation=ablation)
    return load_trunk(TrunkConfig.parse(spec, ablation=ablation), registry.load())


class WordBatches:
    """Rendered training words: the font renderer, the word sampler and (for pen-stroke words) the
    pen renderer, each built on first use and kept for the next batch of this object."""

    def __init__(self) -> None:
        self._fonts: tuple[Any, Any] | None = None  # (render.WordRenderer, words.WordSampler)
        self._pen: Any = None  # pen.PenRenderer
        self._glue: Any = None  # glue.GlueRenderer (real CoMNIST letters)

    def __call__(
        self,
        n: int,
        seed: int,
        *,
        rotated_share: float = ROTATED_SHARE,
        height: int = HEIGHT,
        pen_share: float = 0.0,
        glue_share: float = 0.0,
        glue_restroke: bool = False,
    ) -> tuple[list[np.ndarray], list[str], list[int]]:
        """``n`` fitted word arrays, their texts and upright flags, deterministic in ``seed``.

        A ``glue_share`` of the words it can write (Russian letters, spaces, ``.,-``) is glued from real
        handwritten letters (``plugins.htr.train.glue``, CoMNIST); of the others, a ``pen_share`` is
        written by the pen-stroke renderer (``plugins.htr.train.pen``, training styles only), the rest
        with the training fonts. ``glue_share=0`` and ``pen_share=0`` reproduce the font-only shards.
        ``glue_restroke``: glued letters thinned and redrawn with one pen (``GlueRenderer(restroke=...)``).
        """
        if self._fonts is None:
            from plugins.htr.train.render import WordRenderer, find_fonts
            from plugins.htr.train.words import WordSampler, load_word_lists

            self._fonts = (WordRenderer(find_fonts()), WordSampler(load_word_lists()))
        if pen_share > 0 and self._pen is None:
            from plugins.htr.train.pen import PenRenderer

            self._pen = PenRenderer(training=True)
        if glue_share > 0 and (self._glue is None or self._glue.restroke != glue_restroke):
            from plugins.htr.train.comnist import load_letters
            from plugins.htr.train.glue import GlueRenderer

            self._glue = GlueRenderer(load_letters(), restroke=glue_restroke)
        renderer, sampler = self._fonts
        rng = random.Random(seed)
        words, texts, upright = [], [], []
        for _ in range(n):
            text = sampler.sample(rng)
            if glue_share > 0 and self._glue.can_write(text) and rng.random() < glue_share:
                img = self._glue.render(text, rng)
            elif pen_share > 0 and rng.random() < pen_share and self._pen.can_write(text):
                img = self._pen.render(text, rng)
            else:
                img = renderer.render(text, rng)
            up = 1
            if rng.random() < rotated_share:
                img = img.rotate(rng.choice((90, 270)), expand=True)
                up = 0
            words.append(fit_word(img, height, height * WIDTH // HEIGHT))
            texts.append(text)
            upright.append(up)
        return words, texts, upright


def _same_recipe(state: Mapping[str, Any], recipe: Mapping[str, Any]) -> bool:
    """Whether a checkpoint continues the run ``recipe`` describes (its steps, batch, learning rate,
    seed and head). A checkpoint from before recipes were recorded is judged by its schedule's length:
    resuming a 150-step schedule into a 3,000-step run would fail at step 151."""
    made_for = state.get("recipe")
    if made_for is None:
        return state.get("sched", {}).get("total_steps") == recipe["steps"]
    return dict(made_for) == dict(recipe)


def produce(
    cache: Path,
    shards: int,
    worker: int,
    workers: int,
    trunk_spec: str,
    height: int = HEIGHT,
    *,
    pen_share: float = 0.0,
    glue_share: float = 0.0,
    glue_restroke: bool = False,
    trunk=None,  # noqa: ANN001 - a built Trunk instead of trunk_spec
    progress: bool = True,
    render: WordBatches | None = None,
) -> None:
    """Fill ``cache`` with shards ``worker, worker + workers, ...`` below ``shards`` (plus the dev shard).

    Crops are fitted to ``height`` x ``4 * height`` pixels; the size is kept in
    ``input.json`` and a cache refuses shards of another size. ``pen_share`` of the
    words are pen-stroke words (``render``, a ``WordBatches``); it is kept in ``mix.json``, and a
    cache refuses another share (the dev shard is always font-only, as before). ``glue_share`` of
    the Russian words are glued from real letters (``WordBatches``; recorded in ``mix.json`` when not 0).
    """
    import torch
    from tqdm import tqdm

    torch.set_num_threads(1)
    render = WordBatches() if render is None else render
    cache.mkdir(parents=True, exist_ok=True)
    trunk = build_trunk(trunk_spec) if trunk is None else trunk
    (cache / "trunk.json").write_text(json.dumps(trunk.component_versions))
    size = {"height": height, "width": height * WIDTH // HEIGHT}
    if cache_input(cache, default=size) != size:
        raise SystemExit(f"{cache} holds crops of {cache_input(cache)}, not {size}; use another --cache")
    (cache / "input.json").write_text(json.dumps(size))
    mix_path = cache / "mix.json"
    mix = {"pen_share": pen_share} | ({"glue_share": glue_share} if glue_share else {})
    mix |= {"glue_restroke": True} if glue_share and glue_restroke else {}
    if mix_path.exists() and json.loads(mix_path.read_text()) != mix:
        raise SystemExit(f"{cache} was made with {mix_path.read_text().strip()}, not {mix}; use another --cache")
    mix_path.write_text(json.dumps(mix))
    todo = [("dev", DEV_SEED)] if worker == 0 else []
    todo += [(f"train_{i:05d}", i) for i in range(worker, shards, workers)]
    todo = [(name, seed) for name, seed in todo if not (cache / f"{name}.npz").exists()]
    for name, seed in tqdm(todo, desc=f"produce w{worker}", unit="shard", disable=not progress):
        dev = name == "dev"
        words, texts, upright = render(
            SHARD_SIZE,
            seed,
            height=height,
            pen_share=0.0 if dev else pen_share,
            glue_share=0.0 if dev else glue_share,
            glue_restroke=glue_restroke,
        )
        save_shard(cache / f"{name}.npz", trunk, words, texts, upright)


def save_shard(path: Path, trunk, words, texts, upright) -> None:  # noqa: ANN001
    """Trunk stride-8/16 maps of ``words`` (fp16) with their labels, written atomically."""
    import torch

    s8, s16 = [], []
    with torch.inference_mode():
        for i in range(0, len(words), 64):
            fine, coarse = reading_maps(trunk.image_feature_maps(to_pixels(words[i : i + 64], trunk)))
            s8.append(fine.half().cpu().numpy())
            if coarse is not fine:  # a one-map trunk's map is kept once (``load_shards``)
                s16.append(coarse.half().cpu().numpy())
    maps = {"s8": np.concatenate(s8)} | ({"s16": np.concatenate(s16)} if s16 else {})
    tmp = path.with_name(f".{path.stem}.tmp.npz")
    np.savez(tmp, **maps, texts=np.array(texts), upright=np.array(upright))
    tmp.replace(path)


def cache_input(cache: Path, default: dict[str, int] | None = None) -> dict[str, int]:
    """The crop size of a cache's shards (caches made before ``input.json`` hold 64 x 256 crops)."""
    path = cache / "input.json"
    if path.exists():
        return json.loads(path.read_text())
    return default if default is not None else {"height": HEIGHT, "width": WIDTH}


def list_shards(cache: Path, extra: Sequence[Path] = ()) -> list[Path]:
    """The training shards of ``cache`` and of the ``extra`` caches (rendered ``train_*``, real ``real_*``)."""
    return sorted(p for d in (cache, *extra) for pattern in ("train_*.npz", "real_*.npz") for p in d.glob(pattern))


def load_init(path: Path) -> dict:
    """A warm start: a training ``checkpoint.pt``, or a head folder (``htr_head.safetensors`` + card)."""
    import torch

    path = Path(path)
    if path.is_dir():
        from safetensors.torch import load_file

        card = json.loads((path / CARD_NAME).read_text(encoding="utf-8"))
        state = {k: v.float() if v.is_floating_point() else v for k, v in load_file(str(path / WEIGHTS_NAME)).items()}
        return {"config": card["config"], "head": state, "trunk": card.get("trunk")}
    return torch.load(path, weights_only=False)


def load_shards(paths: Sequence[Path]) -> dict[str, np.ndarray]:
    """Concatenated shards; ``real`` marks the samples of real-handwriting shards."""
    parts = [np.load(p) for p in paths]
    out = {k: np.concatenate([p[k] for p in parts]) for k in ("s8", "texts", "upright")}
    # shards of a one-map trunk hold it once (``save_shard``); the head reads it as both inputs
    both = all("s16" in p.files for p in parts)
    out["s16"] = np.concatenate([p["s16"] for p in parts]) if both else out["s8"]
    out["real"] = np.concatenate(
        [np.full(len(p["texts"]), Path(n).name.startswith("real_")) for p, n in zip(parts, paths, strict=True)]
    )
    return out


def ctc_targets(texts: Sequence[str]):  # noqa: ANN201
    import torch

    ids = [encode(t) for t in texts]
    lengths = torch.tensor([len(i) for i in ids], dtype=torch.long)
    flat = torch.tensor([c for i in ids for c in i], dtype=torch.long)
    return flat, lengths


def greedy_decode(log_probs: np.ndarray, blank: int = BLANK) -> list[int]:
    """Best path: argmax per frame, merge repeats, drop blanks. ``log_probs`` is ``[T, C]``."""
    best = np.asarray(log_probs).argmax(axis=-1)
    out: list[int] = []
    prev = blank
    for label in best.tolist():
        if label != blank and label != prev:
            out.append(label)
        prev = label
    return out


def evaluate(  # noqa: ANN001
    head, data: dict[str, np.ndarray], *, beam: bool = False, batch: int = 128, device: str = "cpu"
) -> dict[str, float]:
    """Exact-match accuracy and CER on the upright samples of ``data``; upright-score accuracy on all."""
    import torch

    from plugins.htr.ctc import prefix_beam_search
    from plugins.htr.train.metrics import cer

    head.eval()
    correct = total = 0
    errors = chars = 0.0
    up_ok = 0
    with torch.no_grad():
        for i in range(0, len(data["texts"]), batch):
            out = head(
                torch.from_numpy(data["s8"][i : i + batch]).to(device),
                torch.from_numpy(data["s16"][i : i + batch]).to(device),
            )
            lp = out.log_probs.float().cpu().numpy()
            for j, text in enumerate(data["texts"][i : i + batch]):
                up = int(data["upright"][i + j])
                up_ok += int((float(out.upright[j]) > 0) == bool(up))
                if not up:
                    continue
                ids = list(prefix_beam_search(lp[j])[0][0]) if beam else greedy_decode(lp[j])
                pred = decode(ids)
                correct += int(pred == str(text))
                total += 1
                errors += cer(pred, str(text)) * max(len(str(text)), 1)
                chars += max(len(str(text)), 1)
    head.train()
    return {
        "accuracy": correct / max(total, 1),
        "cer": errors / max(chars, 1),
        "upright_accuracy": up_ok / len(data["texts"]),
    }


def train(
    cache: Path,
    steps: int,
    batch: int,
    lr: float,
    seed: int,
    eval_every: int,
    init: Path | None = None,
    *,
    extra: Sequence[Path] = (),
    hidden: int = 96,
    device: str = "cpu",
    progress: bool = True,
    real_repeat: float = REAL_REPEAT,
    grow: Mapping[str, int] | None = None,
    teacher: Path | None = None,
    distill: float = 0.0,
) -> None:
    """Train on the shards of ``cache`` and of the ``extra`` caches; dev and checkpoint live in ``cache``.

    ``teacher`` (a head folder or checkpoint, frozen) anchors the rendered words: on every
    rendered sample the loss adds ``distill`` x the teacher-to-student KL divergence of the
    per-frame character distributions (``distill_loss``), so the head learns the real words
    (``real_*`` shards, CTC only) while keeping the teacher's readings of everything else,
    instead of being blended back towards it in weight space afterwards.

    ``init`` warm-starts from a checkpoint or a head folder (``load_init``), optionally
    grown by ``grow`` (e.g. ``{"blocks": 3}``: more residual context blocks). Real
    handwriting shards (``real_*``) are seen ``real_repeat`` times per epoch (below 1: that share of
    them, drawn afresh each epoch).
    Logs seconds per 1k steps at every evaluation.
    """
    import torch
    from tqdm import tqdm

    from plugins.htr.model import HtrHead

    if device == "cpu":
        torch.set_num_threads(1)
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    sizes = {json.dumps(cache_input(d), sort_keys=True) for d in (cache, *extra)}
    if len(sizes) > 1:
        raise SystemExit(f"caches hold crops of different sizes: {sorted(sizes)}")
    dev = load_shards([cache / "dev.npz"])
    warm = load_init(init) if init is not None else None
    if warm is not None:
        head = HtrHead(**{**warm["config"], **(grow or {})})
    else:
        first = load_shards(list_shards(cache, extra)[:1])
        c8, rows = first["s8"].shape[1:3]
        head = HtrHead(c8, first["s16"].shape[1], NUM_CLASSES, rows=rows, hidden=hidden)
    head.to(device)
    anchor = None
    if teacher is not None and distill > 0:
        taught = load_init(teacher)
        anchor = HtrHead(**taught["config"])
        anchor.load_state_dict(taught["head"])
        anchor.to(device).eval().requires_grad_(False)
        if anchor.frames != head.frames:
            raise SystemExit(f"{teacher} reads {anchor.frames} frames a column, the head {head.frames}")
    opt = torch.optim.AdamW(head.parameters(), lr=lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(
        opt, max_lr=lr, total_steps=steps, pct_start=min(0.3, max(0.05, 10 / steps))
    )
    ckpt = cache / "checkpoint.pt"
    step = 0
    recipe = {"steps": steps, "batch": batch, "lr": lr, "seed": seed, "config": head.config}
    if anchor is not None:
        recipe |= {"teacher": str(teacher), "distill": distill}
    state = torch.load(ckpt, weights_only=False, map_location=device) if ckpt.exists() else None
    if state is not None and not _same_recipe(state, recipe):
        log.info("%s is another run's (%s); this one (%s) starts from the beginning", ckpt, state.get("recipe"), recipe)
        state = None
    if state is not None:
        head.load_state_dict(state["head"])
        opt.load_state_dict(state["opt"])
        sched.load_state_dict(state["sched"])
        step = state["step"]
        rng = state["rng"]
        log.info("resumed from step %d", step)
    elif warm is not None:
        # Warm start: the head's weights from an earlier run, a fresh optimiser and schedule. A grown
        # head (``grow``) keeps every old weight; its new blocks start as the identity.
        missing, unexpected = head.load_state_dict(warm["head"], strict=not grow)
        if unexpected or any(not k.startswith("more.") for k in missing):
            raise SystemExit(f"{init} does not fit the head: missing {missing}, unexpected {unexpected}")
        log.info("initialised the head from %s", init)
    head.train()
    bar = tqdm(total=steps, initial=step, desc="train htr head", unit="step", disable=not progress)
    clock, clock_step = time.perf_counter(), step
    data: dict[str, np.ndarray] = {}
    n_loaded = 0
    order = np.zeros(0, dtype=np.int64)
    pos = 0
    while step < steps:
        shards = list_shards(cache, extra)
        if pos >= len(order) or len(shards) > n_loaded + 8:
            if len(shards) != n_loaded:
                data = load_shards(shards)
                n_loaded = len(shards)
            order = epoch_order(data["real"], real_repeat, rng)
            pos = 0
        idx = np.sort(order[pos : pos + batch])
        pos += batch
        s8 = torch.from_numpy(data["s8"][idx]).float().to(device)
        s16 = torch.from_numpy(data["s16"][idx]).float().to(device)
        # Feature noise: a cheap extra augmentation on cached maps.
        s8 = s8 * (1 + 0.1 * torch.randn_like(s8))
        s16 = s16 * (1 + 0.1 * torch.randn_like(s16))
        texts = [str(t) for t in data["texts"][idx]]
        upright = torch.from_numpy(data["upright"][idx].astype(np.float32)).to(device)
        out = head(s8, s16)
        keep = upright.bool()
        flat, lengths = ctc_targets([t for t, k in zip(texts, keep.tolist(), strict=True) if k])
        lp = (
            out.log_probs[keep].transpose(0, 1).float().cpu()
            if device != "cpu"
            else out.log_probs[keep].transpose(0, 1)
        )
        frames = torch.full((lp.shape[1],), lp.shape[0], dtype=torch.long)
        loss_ctc = torch.nn.functional.ctc_loss(lp, flat, frames, lengths, blank=0, zero_infinity=True)
        loss_up = torch.nn.functional.binary_cross_entropy_with_logits(out.upright, upright)
        loss = loss_ctc + 0.5 * loss_up
        loss_kd = torch.zeros(())
        rendered = torch.from_numpy(~data["real"][idx]).to(device)
        if anchor is not None and bool(rendered.any()):
            with torch.no_grad():
                taught_out = anchor(s8[rendered], s16[rendered])
            loss_kd = distill_loss(out.log_probs[rendered], taught_out.log_probs)
            loss = loss + distill * loss_kd
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(head.parameters(), 5.0)
        opt.step()
        sched.step()
        step += 1
        bar.update(1)
        bar.set_postfix(
            ctc=f"{loss_ctc.item():.3f}", up=f"{loss_up.item():.3f}", kd=f"{loss_kd.item():.3f}", n=len(data["texts"])
        )
        if step % eval_every == 0 or step == steps:
            torch.save(
                {
                    "head": head.state_dict(),
                    "opt": opt.state_dict(),
                    "sched": sched.state_dict(),
                    "step": step,
                    "rng": rng,
                    "config": head.config,
                    "recipe": recipe,
                },
                ckpt,
            )
            per_1k = 1000 * (time.perf_counter() - clock) / max(step - clock_step, 1)
            scores = evaluate(head, dev, device=device)
            log.info(
                "step %d: dev %s (train samples %d, %.0f s per 1k steps)", step, scores, len(data["texts"]), per_1k
            )
            if progress:
                bar.write(f"step {step}: dev {scores} train samples {len(data['texts'])}, {per_1k:.0f} s/1k steps")
            clock, clock_step = time.perf_counter(), step
    bar.close()


def distill_loss(student, teacher):  # noqa: ANN001, ANN201 - tensors, torch imported lazily
    """Mean over frames of KL(teacher || student) between per-frame character distributions.

    Both are ``[B, T, C]`` log-probabilities; the teacher's are constants.
    """
    import torch

    kl = torch.nn.functional.kl_div(student.float(), teacher.float(), log_target=True, reduction="none")
    return kl.sum(dim=-1).mean()


def epoch_order(real: np.ndarray, real_repeat: float, rng: np.random.Generator) -> np.ndarray:
    """One epoch's sample order: every sample once, the real ones (``real``, a mask) ``real_repeat``
    times; below 1, that share of the real samples, drawn afresh each epoch."""
    base = np.arange(len(real))
    marked = np.flatnonzero(real)
    if real_repeat < 1:
        base = np.setdiff1d(base, rng.choice(marked, round(len(marked) * (1 - real_repeat)), replace=False))
    return rng.permutation(np.concatenate([base, *[marked] * (int(real_repeat) - 1)]))


def export(
    cache: Path,
    out_dir: Path,
    extra: Sequence[Path] = (),
    *,
    real: Mapping[str, int] | None = None,
    seed: int | None = None,
    blend: tuple[Path, float] | None = None,
    soup: Path | None = None,
) -> Path:
    """Checkpoint -> fp16 safetensors + card (with the dev score, greedy and beam); returns the card path.

    ``blend=(head folder or checkpoint, alpha)`` exports ``alpha`` x the checkpoint's weights +
    ``1 - alpha`` x that head's (``blend_weights``: the fine-tuned head averaged with the one it
    started from, which keeps more of what the start read well). ``soup`` (another run's
    checkpoint from the same start) is averaged in first, half and half (``export_weights``)."""
    import torch
    from safetensors.torch import save_file

    from core.heads import write_card
    from plugins.htr.model import HtrHead
    from plugins.htr.train import comnist, dhsd_source, handfonts
    from plugins.htr.train.fontsource import FONT_DIR
    from plugins.htr.train.render import FONT_PACKAGES, find_fonts

    manifest = FONT_DIR / "manifest.json"
    npm_versions = json.loads(manifest.read_text()) if manifest.exists() else {}
    hands_manifest = handfonts.HAND_DIR / "manifest.json"
    hands = json.loads(hands_manifest.read_text()) if hands_manifest.exists() else {}
    fonts = sorted(Path(f.path).name for f in find_fonts())
    state = torch.load(cache / "checkpoint.pt", weights_only=False, map_location="cpu")
    head = HtrHead(**state["config"])
    head.load_state_dict(
        export_weights(
            state["head"],
            soup=None if soup is None else load_init(soup)["head"],
            blend=None if blend is None else (load_init(blend[0])["head"], blend[1]),
        )
    )
    dev = load_shards([cache / "dev.npz"])
    greedy = evaluate(head, dev)
    beam = evaluate(head, dev, beam=True)
    out_dir.mkdir(parents=True, exist_ok=True)
    tensors = {k: (v.half() if v.is_floating_point() else v).contiguous() for k, v in head.state_dict().items()}
    save_file(tensors, str(out_dir / WEIGHTS_NAME))
    trunk_versions = json.loads((cache / "trunk.json").read_text())
    shards = list_shards(cache, extra)
    n_train = sum(len(np.load(p)["texts"]) for p in shards if p.name.startswith("train_"))
    pen_shares = sorted(
        {json.loads((d / "mix.json").read_text())["pen_share"] for d in (cache, *extra) if (d / "mix.json").exists()}
    )
    mixes = [json.loads((d / "mix.json").read_text()) for d in (cache, *extra) if (d / "mix.json").exists()]
    glue_shares = sorted({m.get("glue_share", 0.0) for m in mixes})
    letters = comnist.DATA_DIR / "manifest.json"
    letters = json.loads(letters.read_text(encoding="utf-8")) if any(glue_shares) and letters.exists() else {}
    dhsd_shards = [p for p in shards if p.name.startswith("real_dhsd_")]
    words_manifest = dhsd_source.DATA_DIR / "manifest.json"
    real_words = (
        json.loads(words_manifest.read_text(encoding="utf-8")) if dhsd_shards and words_manifest.exists() else {}
    )
    dropped = [d / "misfits_dropped.json" for d in (cache, *extra) if (d / "misfits_dropped.json").exists()]
    blocks = state["config"].get("blocks", 1)
    more = f" + {blocks - 1} grouped residual conv blocks" if blocks > 1 else ""
    card = {
        "task": "htr",
        "model": (
            "HtrHead: stride-8 + upsampled stride-16 trunk maps -> 1x1 conv -> rows folded into channels -> linear"
            f" -> residual conv1d{more} -> BiLSTM({state['config']['hidden']})"
            f" -> CTC over {len(CHARSET)} chars + blank;"
            " plus an upright logit"
        ),
        "config": state["config"],
        "charset": CHARSET,
        "input": cache_input(cache),
        "trunk": {"image": trunk_versions["image"]},
        "data": {
            "kind": (
                "rendered words (Debian fonts, Fontsource handwriting fonts from npm,"
                + (" fonts made from real people's Cyrillic handwriting," if hands else "")
                + " Hershey pen strokes"
                + (", words glued from real handwritten CoMNIST letters" if letters else "")
                + ")"
                + (
                    " + real handwritten words (DHSD's training writers, in copybook crops and as scanned)"
                    if real_words
                    else ""
                )
                + (
                    " + real handwriting images"
                    if real
                    else ""
                    if real_words
                    else "; no handwriting word images"
                    if letters
                    else "; no handwriting images"
                )
                + "; fb_sample never used for training; style-held-out fonts/sets/pen styles and held-out hands"
                " never used"
            ),
            "words": (
                "wordfreq 3.1.1 top 40k ru + top 40k en (each in its own alphabet), casing, punctuation, hyphens;"
                " phrases of 2-3 words with spaces and commas, numbers, dates, times, codes, abbreviations"
                " with a period (plugins.htr.train.words.WordSampler)"
            ),
            "train_samples": n_train,
            "real_samples": dict(real or {}),
            "pen_share": pen_shares,
            "glue_share": glue_shares,
            "rotated_share": ROTATED_SHARE,
            "fonts": fonts,
            "font_sources": {
                "debian": FONT_PACKAGES,
                "npm_fontsource": npm_versions,
                "real_hands": {
                    "package": f"{hands['package']}=={hands['version']} (PyPI wheel)",
                    "licence": hands["licence"],
                    "fetch": "python -m plugins.htr.train.handfonts",
                    "trained_on": [n for n in fonts if handfonts.is_hand_font(n)],
                    "held_out": list(handfonts.HELDOUT_HANDS),
                    "sha256": hands["files"],
                }
                if hands
                else {},
            },
            "real_letters": {
                "name": letters["name"],
                "source": letters["source"],
                "commit": letters["commit"],
                "path": letters["path"],
                "licence": letters["licence"],
                "letters": letters["total"],
                "fetch": "python -m plugins.htr.train.comnist --git-dir <bare clone of absoluteteam/ocr>",
                "use": "plugins.htr.train.glue: Russian words glued from the letters (glue_share of them)",
            }
            if letters
            else {},
            "real_words": {
                "name": real_words["name"],
                "source": real_words["source"],
                "commit": real_words["commit"],
                "licence": real_words["licence"],
                "fetch": "python -m plugins.htr.train.dhsd --git-dir <bare clone of nauman-riaz/DHSD>",
                "crops": sum(len(np.load(p)["texts"]) for p in dhsd_shards),
                "held_out_writers": list(dhsd_source.HELDOUT_WRITERS),
                "labels": "umlauts and Latin diacritics folded into the charset (plugins.htr.train.dhsd.fold)",
                "dropped": [json.loads(p.read_text(encoding="utf-8")) for p in dropped],
            }
            if real_words
            else {},
        },
        "licence": LICENCE,
        "steps": state["step"],
        "seed": seed,
        "soup": {"with": str(soup), "share": 0.5} if soup is not None else None,
        "blend": {"with": str(blend[0]), "alpha": blend[1]} if blend is not None else None,
        "dev": {"set": f"rendered, seed {DEV_SEED}, {len(dev['texts'])} crops", "greedy": greedy, "beam": beam},
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    path = out_dir / CARD_NAME
    write_card(path, card, weights=(out_dir / WEIGHTS_NAME,))
    print(json.dumps(card["dev"], indent=1))
    return path


def blend_weights(tuned: Mapping[str, Any], start: Mapping[str, Any], alpha: float) -> dict[str, Any]:
    """``alpha * tuned + (1 - alpha) * start`` for every float tensor (weight-space ensembling of a
    fine-tuned head with its starting point, "WiSE-FT"); integer buffers come from ``tuned``."""
    if set(tuned) != set(start):
        raise SystemExit(f"the heads to blend differ: {sorted(set(tuned) ^ set(start))}")
    return {
        k: alpha * v.float() + (1 - alpha) * start[k].float() if v.is_floating_point() else v for k, v in tuned.items()
    }


def export_weights(
    tuned: Mapping[str, Any],
    *,
    soup: Mapping[str, Any] | None = None,
    blend: tuple[Mapping[str, Any], float] | None = None,
) -> Mapping[str, Any]:
    """The weights ``export`` writes: ``tuned``, averaged half and half with ``soup`` (another run
    from the same start: a "model soup"), then blended with ``blend=(start, alpha)``."""
    if soup is not None:
        tuned = blend_weights(tuned, soup, 0.5)
    return tuned if blend is None else blend_weights(tuned, blend[0], blend[1])


def read_real(data: Mapping[str, Sequence[Path]]) -> dict[str, list[tuple[Path, str]]]:
    """Real handwriting ``(image, text)`` pairs per source, from the ``htr`` and ``challenge`` sources.

    * ``htr``: a folder with ``labels.tsv`` (``file<TAB>text`` per line) or
      ``labels.json`` (``{"file": "text"}``); files are relative to the folder or its ``images/``.
    * ``challenge``: a set in the challenge layout, ``input/HTR/images/*`` with gold in
      ``true/HTR/true_HTR.json``; sets without an HTR part are skipped.

    Other sources are ignored. Missing images are skipped with a warning.
    """
    from plugins.htr.task import HtrTask
    from training import challenge_sets

    out: dict[str, list[tuple[Path, str]]] = {}
    sources = {"htr": data.get("htr", ()), "challenge": challenge_sets(data.get("challenge", ()), HtrTask.info)}
    for source, roots in sources.items():
        for root in map(Path, roots):
            if source == "htr":
                tsv, js = root / "labels.tsv", root / "labels.json"
                if tsv.exists():
                    rows = [ln.split("\t", 1) for ln in tsv.read_text(encoding="utf-8").splitlines() if "\t" in ln]
                    labels = {name.strip(): text for name, text in rows}
                elif js.exists():
                    labels = json.loads(js.read_text(encoding="utf-8"))
                else:
                    raise SystemExit(f"htr source {root} has neither labels.tsv nor labels.json")
                dirs = [root, root / "images"]
            else:
                labels = json.loads((root / "true" / "HTR" / "true_HTR.json").read_text(encoding="utf-8"))
                dirs = [root / "input" / "HTR" / "images", root / "input" / "HTR"]
            pairs = []
            for name, text in labels.items():
                path = next((d / name for d in dirs if (d / name).is_file()), None)
                if path is None:
                    log.warning("%s: no image %s; skipped", root, name)
                    continue
                pairs.append((path, str(text)))
            out.setdefault(source, []).extend(pairs)
            log.info("%s %s: %d labelled word images", source, root, len(pairs))
    return out


def produce_real(cache: Path, trunk, pairs: Sequence[tuple[Path, str]], height: int = HEIGHT) -> None:  # noqa: ANN001
    """Cache trunk maps of real ``(image, text)`` pairs as ``real_*`` shards (redone when the list changes)."""
    import hashlib

    from core.io import load_image

    key = hashlib.sha256(json.dumps([(str(p), t) for p, t in pairs], ensure_ascii=False).encode()).hexdigest()
    stamp = cache / "real.json"
    if stamp.exists() and json.loads(stamp.read_text()).get("sha256") == key:
        return
    for old in cache.glob("real_*.npz"):
        old.unlink()
    for k in range(0, len(pairs), SHARD_SIZE):
        chunk = pairs[k : k + SHARD_SIZE]
        words = [fit_word(load_image(p), height, height * WIDTH // HEIGHT) for p, _ in chunk]
        save_shard(cache / f"real_{k // SHARD_SIZE:05d}.npz", trunk, words, [t for _, t in chunk], [1] * len(chunk))
    stamp.write_text(json.dumps({"sha256": key, "n": len(pairs)}))


def fit_head(
    req: TrainRequest,
    *,
    shards: int = DEFAULT_SHARDS,
    steps: int | None = None,
    pen_share: float = DEFAULT_PEN_SHARE,
    glue_share: float = 0.0,
    init: Path | str | None = "auto",
    lr: float | None = None,
    batch: int = 64,
    render: WordBatches | None = None,
) -> Path:
    """Train an HTR head for ``trunk`` into ``out_dir``; returns its card path.

    Rendered words (fonts + pen strokes, ``pen_share``; with ``glue_share``, Russian words glued from
    real CoMNIST letters) are always the base; real
    handwriting from the ``htr`` and ``challenge`` sources of ``data`` (``read_real``)
    is added and seen ``REAL_REPEAT`` times per epoch. No source defaults to
    ``../shared/data``: its only HTR words are ``fb_sample``, the test sample
    (``data_root`` is accepted for the shared interface and not read). Trunk maps
    are cached in ``out_dir/cache`` (rendered shard ``i`` is always drawn with seed
    ``i``; ``seed`` sets the head's initialisation and batch order).
    ``init="auto"`` warm-starts from the shipped head when it was trained on this
    trunk's image tower, else the head starts from scratch; ``resume`` continues
    from ``out_dir/cache/checkpoint.pt``. ``scale`` (train.py's ``--scale``) renders that
    share of ``shards`` and trains that share of the steps (at least one of each).
    """
    trunk, data, out_dir = req.trunk, req.sources.as_dict(), req.out_dir
    seed, device, resume, progress, scale = req.seed, req.device, req.resume, req.progress, req.scale
    from core.heads import card_matches

    out_dir = Path(out_dir)
    cache = out_dir / "cache"
    cache.mkdir(parents=True, exist_ok=True)
    recorded = cache / "trunk.json"
    if recorded.exists() and json.loads(recorded.read_text()).get("image") != trunk.component_versions.get("image"):
        log.info("%s holds another trunk's features; starting it afresh", cache)
        for f in cache.glob("*"):
            f.unlink()
    if not resume and (cache / "checkpoint.pt").exists():
        (cache / "checkpoint.pt").unlink()
    real = read_real(data)
    shards = max(1, math.ceil(shards * scale))
    height = reading_height(trunk)
    produce(
        cache,
        shards,
        0,
        1,
        "",
        height,
        pen_share=pen_share,
        glue_share=glue_share,
        trunk=trunk,
        progress=progress,
        render=render,
    )
    produce_real(cache, trunk, [pair for pairs in real.values() for pair in pairs], height)
    if init == "auto":
        card = json.loads((WEIGHTS_DIR / CARD_NAME).read_text(encoding="utf-8"))
        init = WEIGHTS_DIR if card_matches(card, trunk) else None
    init = Path(init) if init is not None else None
    if steps is None:
        steps = DEFAULT_STEPS_WARM if init is not None else DEFAULT_STEPS
    steps = max(1, round(steps * scale))
    if lr is None:
        lr = 5e-4 if init is not None else 2e-3
    train(cache, steps, batch, lr, seed, 250, init, hidden=160, device=device, progress=progress)
    return export(cache, out_dir, real={k: len(v) for k, v in real.items()}, seed=seed)


def main(argv: Sequence[str] | None = None) -> int:
    """The training steps one at a time, for staged runs on a shared machine (several ``produce``
    workers filling one cache, then ``train``, then ``export``). The whole run is
    ``python -m plugins.htr.train`` (``train.py --tasks htr``)."""
    parser = argparse.ArgumentParser(
        prog="python -m plugins.htr.train.fit",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--stage", choices=("produce", "train", "export"), required=True)
    parser.add_argument("--out", type=Path, default=None, help="head folder of export (default: the shipped one)")
    parser.add_argument("--cache", type=Path, default=Path("/tmp/htr_cache"), help="feature cache of the steps")
    parser.add_argument("--trunk", default="default", help="trunk spec as for run.py, or 'fake'")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--shards", type=int, default=DEFAULT_SHARDS, help=f"training shards of {SHARD_SIZE} crops")
    parser.add_argument("--height", type=int, default=HEIGHT, help="crop height (width is 4x) of new shards")
    parser.add_argument("--pen-share", type=float, default=0.0, help="share of pen-stroke words in new shards")
    parser.add_argument(
        "--glue-share",
        type=float,
        default=0.0,
        help="share of the Russian words in new shards glued from real CoMNIST letters (plugins.htr.train.glue)",
    )
    parser.add_argument(
        "--glue-restroke",
        action="store_true",
        help="glued letters thinned and redrawn with one pen per word (measured worse; off)",
    )
    parser.add_argument("--worker", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--steps", type=int, default=None)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--lr", type=float, default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--eval-every", type=int, default=250)
    parser.add_argument("--init", default=None, help="warm start: a checkpoint or head folder")
    parser.add_argument("--extra", type=Path, nargs="*", default=[], help="more caches whose shards to train on")
    parser.add_argument(
        "--real-repeat",
        type=float,
        default=REAL_REPEAT,
        help="times a real-handwriting shard (real_*) is seen per epoch of the rendered ones (below 1: that share)",
    )
    parser.add_argument("--hidden", type=int, default=96, help="BiLSTM width of a head trained from scratch")
    parser.add_argument("--blocks", type=int, default=None, help="grow a warm-started head to this many context blocks")
    parser.add_argument(
        "--frames", type=int, default=None, help="a warm-started head read at this many CTC frames per stride-8 column"
    )
    parser.add_argument(
        "--teacher",
        default=None,
        help="train: a frozen head (folder or checkpoint) the rendered words are distilled from",
    )
    parser.add_argument(
        "--distill", type=float, default=0.0, help="train: weight of the per-frame KL to --teacher on rendered words"
    )
    parser.add_argument("--blend-with", default=None, help="export: average with this head folder or checkpoint")
    parser.add_argument("--blend", type=float, default=0.5, help="export: the checkpoint's share of the average")
    parser.add_argument(
        "--soup-with", default=None, help="export: average with this checkpoint (half each) before --blend-with"
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if args.stage == "produce":
        produce(
            args.cache,
            args.shards,
            args.worker,
            args.workers,
            args.trunk,
            args.height,
            pen_share=args.pen_share,
            glue_share=args.glue_share,
            glue_restroke=args.glue_restroke,
        )
    if args.stage == "train":
        init = Path(args.init) if args.init else None
        steps = args.steps or (DEFAULT_STEPS_WARM if init else DEFAULT_STEPS)
        lr = args.lr or (5e-4 if init else 2e-3)
        train(
            args.cache,
            steps,
            args.batch,
            lr,
            args.seed,
            args.eval_every,
            init,
            extra=args.extra,
            hidden=args.hidden,
            device=args.device,
            grow=({"blocks": args.blocks} if args.blocks else {}) | ({"frames": args.frames} if args.frames else {})
            or None,
            real_repeat=args.real_repeat,
            teacher=Path(args.teacher) if args.teacher else None,
            distill=args.distill,
        )
    if args.stage == "export":
        blend = (Path(args.blend_with), args.blend) if args.blend_with else None
        soup = Path(args.soup_with) if args.soup_with else None
        export(args.cache, args.out or WEIGHTS_DIR, args.extra, seed=args.seed, blend=blend, soup=soup)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
