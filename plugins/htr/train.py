"""Train the HTR CTC head on rendered words: ``python -m plugins.htr.train``.

Set-up (training only; inference needs no fonts):

    apt-get update && apt-get install -y <FONT_PACKAGES from plugins/htr/render.py>
    python -m plugins.htr.fontsource     # handwriting faces from npm (needs npm)
    pip install wordfreq==3.1.1

Stages (``--stage``, default ``all``):

* ``produce``: render words (``plugins.htr.render``), run them through the
  frozen trunk once and cache its stride-8/16 maps as fp16 shards under
  ``--cache``. The trunk is frozen, so one forward pass per rendered crop is
  all it ever needs; existing shards are kept (resumable), and several
  ``--worker i --workers n`` processes can fill one cache in parallel.
* ``train``: Adam on the head with ``ctc_loss`` over every shard present
  (re-listed each epoch, so training can start while producers still run),
  checkpointing to ``--cache/checkpoint.pt`` (resumable).
* ``export``: write ``weights/htr_head.safetensors`` (fp16) and the JSON card
  with the dev score on a separately seeded rendered dev shard.
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from plugins.htr.charset import CHARSET, NUM_CLASSES, decode, encode
from plugins.htr.preprocess import HEIGHT, WIDTH, fit_word, to_pixels

log = logging.getLogger(__name__)

WEIGHTS_DIR = Path(__file__).parent / "weights"
SHARD_SIZE = 256
DEV_SEED = 999_983
ROTATED_SHARE = 0.12  # sideways crops teach the upright score; no CTC loss on them


def build_trunk(spec: str, ablation: str = "none"):  # noqa: ANN201 - Trunk, imported lazily
    from core.trunk import TrunkConfig, load_trunk

    if spec == "fake":
        from core.testing import make_fake_trunk

        return make_fake_trunk(ablation=ablation)
    return load_trunk(TrunkConfig.parse(spec, ablation=ablation))


def render_batch(
    n: int, seed: int, *, rotated_share: float = ROTATED_SHARE, height: int = HEIGHT
) -> tuple[list[np.ndarray], list[str], list[int]]:
    """``n`` fitted word arrays, their texts and upright flags, deterministic in ``seed``."""
    from plugins.htr.render import WordRenderer, find_fonts
    from plugins.htr.words import WordSampler, load_word_lists

    global _RENDER_STATE
    if _RENDER_STATE is None:
        _RENDER_STATE = (WordRenderer(find_fonts()), WordSampler(load_word_lists()))
    renderer, sampler = _RENDER_STATE
    rng = random.Random(seed)
    words, texts, upright = [], [], []
    for _ in range(n):
        text = sampler.sample(rng)
        img = renderer.render(text, rng)
        up = 1
        if rng.random() < rotated_share:
            img = img.rotate(rng.choice((90, 270)), expand=True)
            up = 0
        words.append(fit_word(img, height, height * WIDTH // HEIGHT))
        texts.append(text)
        upright.append(up)
    return words, texts, upright


_RENDER_STATE = None


def produce(cache: Path, shards: int, worker: int, workers: int, trunk_spec: str, height: int = HEIGHT) -> None:
    """Fill ``cache`` with shards ``worker, worker + workers, ...`` below ``shards`` (plus the dev shard).

    Crops are fitted to ``height`` x ``4 * height`` pixels; the size is kept in
    ``input.json`` and a cache refuses shards of another size.
    """
    import torch
    from tqdm import tqdm

    torch.set_num_threads(1)
    cache.mkdir(parents=True, exist_ok=True)
    trunk = build_trunk(trunk_spec)
    (cache / "trunk.json").write_text(json.dumps(trunk.component_versions))
    size = {"height": height, "width": height * WIDTH // HEIGHT}
    if cache_input(cache, default=size) != size:
        raise SystemExit(f"{cache} holds crops of {cache_input(cache)}, not {size}; use another --cache")
    (cache / "input.json").write_text(json.dumps(size))
    todo = [("dev", DEV_SEED)] if worker == 0 else []
    todo += [(f"train_{i:05d}", i) for i in range(worker, shards, workers)]
    todo = [(name, seed) for name, seed in todo if not (cache / f"{name}.npz").exists()]
    for name, seed in tqdm(todo, desc=f"produce w{worker}", unit="shard"):
        words, texts, upright = render_batch(SHARD_SIZE, seed, height=height)
        s8, s16 = [], []
        with torch.inference_mode():
            for i in range(0, len(words), 64):
                maps = trunk.image_feature_maps(to_pixels(words[i : i + 64], trunk)).maps
                s8.append(maps[0].half().numpy())
                s16.append(maps[1].half().numpy())
        tmp = cache / f".{name}.tmp.npz"
        np.savez(tmp, s8=np.concatenate(s8), s16=np.concatenate(s16), texts=np.array(texts), upright=np.array(upright))
        tmp.replace(cache / f"{name}.npz")


def cache_input(cache: Path, default: dict[str, int] | None = None) -> dict[str, int]:
    """The crop size of a cache's shards (caches made before ``input.json`` hold 64 x 256 crops)."""
    path = cache / "input.json"
    if path.exists():
        return json.loads(path.read_text())
    return default if default is not None else {"height": HEIGHT, "width": WIDTH}


def list_shards(cache: Path, extra: Sequence[Path] = ()) -> list[Path]:
    """The training shards of ``cache`` and of the ``extra`` caches."""
    return sorted(p for d in (cache, *extra) for p in d.glob("train_*.npz"))


def load_shards(paths: Sequence[Path]) -> dict[str, np.ndarray]:
    parts = [np.load(p) for p in paths]
    return {k: np.concatenate([p[k] for p in parts]) for k in ("s8", "s16", "texts", "upright")}


def ctc_targets(texts: Sequence[str]):  # noqa: ANN201
    import torch

    ids = [encode(t) for t in texts]
    lengths = torch.tensor([len(i) for i in ids], dtype=torch.long)
    flat = torch.tensor([c for i in ids for c in i], dtype=torch.long)
    return flat, lengths


def evaluate(head, data: dict[str, np.ndarray], *, beam: bool = False, batch: int = 128) -> dict[str, float]:  # noqa: ANN001
    """Exact-match accuracy and CER on the upright samples of ``data``; upright-score accuracy on all."""
    import torch

    from plugins.htr.ctc import greedy_decode, prefix_beam_search
    from plugins.htr.metrics import cer

    head.eval()
    correct = total = 0
    errors = chars = 0.0
    up_ok = 0
    with torch.no_grad():
        for i in range(0, len(data["texts"]), batch):
            out = head(torch.from_numpy(data["s8"][i : i + batch]), torch.from_numpy(data["s16"][i : i + batch]))
            lp = out.log_probs.numpy()
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
) -> None:
    """Train on the shards of ``cache`` and of the ``extra`` caches; dev and checkpoint live in ``cache``."""
    import torch
    from tqdm import tqdm

    from plugins.htr.model import HtrHead

    torch.set_num_threads(1)
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    sizes = {json.dumps(cache_input(d), sort_keys=True) for d in (cache, *extra)}
    if len(sizes) > 1:
        raise SystemExit(f"caches hold crops of different sizes: {sorted(sizes)}")
    dev = load_shards([cache / "dev.npz"])
    warm = torch.load(init, weights_only=False) if init is not None else None
    if warm is not None:
        head = HtrHead(**warm["config"])
    else:
        first = load_shards(list_shards(cache, extra)[:1])
        c8, rows = first["s8"].shape[1:3]
        head = HtrHead(c8, first["s16"].shape[1], NUM_CLASSES, rows=rows, hidden=hidden)
    opt = torch.optim.AdamW(head.parameters(), lr=lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(
        opt, max_lr=lr, total_steps=steps, pct_start=min(0.3, max(0.05, 10 / steps))
    )
    ckpt = cache / "checkpoint.pt"
    step = 0
    if ckpt.exists():
        state = torch.load(ckpt, weights_only=False)
        head.load_state_dict(state["head"])
        opt.load_state_dict(state["opt"])
        sched.load_state_dict(state["sched"])
        step = state["step"]
        rng = state["rng"]
        log.info("resumed from step %d", step)
    elif warm is not None:
        # Warm start: the head's weights from an earlier run, a fresh optimiser and schedule.
        head.load_state_dict(warm["head"])
        log.info("initialised the head from %s", init)
    head.train()
    bar = tqdm(total=steps, initial=step, desc="train htr head", unit="step")
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
            order = rng.permutation(len(data["texts"]))
            pos = 0
        idx = np.sort(order[pos : pos + batch])
        pos += batch
        s8 = torch.from_numpy(data["s8"][idx]).float()
        s16 = torch.from_numpy(data["s16"][idx]).float()
        # Feature noise: a cheap extra augmentation on cached maps.
        s8 = s8 * (1 + 0.1 * torch.randn_like(s8))
        s16 = s16 * (1 + 0.1 * torch.randn_like(s16))
        texts = [str(t) for t in data["texts"][idx]]
        upright = torch.from_numpy(data["upright"][idx].astype(np.float32))
        out = head(s8, s16)
        keep = upright.bool()
        flat, lengths = ctc_targets([t for t, k in zip(texts, keep.tolist(), strict=True) if k])
        lp = out.log_probs[keep].transpose(0, 1)
        frames = torch.full((lp.shape[1],), lp.shape[0], dtype=torch.long)
        loss_ctc = torch.nn.functional.ctc_loss(lp, flat, frames, lengths, blank=0, zero_infinity=True)
        loss_up = torch.nn.functional.binary_cross_entropy_with_logits(out.upright, upright)
        loss = loss_ctc + 0.5 * loss_up
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(head.parameters(), 5.0)
        opt.step()
        sched.step()
        step += 1
        bar.update(1)
        bar.set_postfix(ctc=f"{loss_ctc.item():.3f}", up=f"{loss_up.item():.3f}", n=len(data["texts"]))
        if step % eval_every == 0 or step == steps:
            torch.save(
                {
                    "head": head.state_dict(),
                    "opt": opt.state_dict(),
                    "sched": sched.state_dict(),
                    "step": step,
                    "rng": rng,
                    "config": head.config,
                },
                ckpt,
            )
            scores = evaluate(head, dev)
            log.info("step %d: dev %s (train samples %d)", step, scores, len(data["texts"]))
            bar.write(f"step {step}: dev {scores} train samples {len(data['texts'])}")
    bar.close()


def export(cache: Path, out_dir: Path, extra: Sequence[Path] = ()) -> None:
    """Checkpoint -> fp16 safetensors + card (with the dev score, greedy and beam)."""
    import torch
    from safetensors.torch import save_file

    from plugins.htr.fontsource import FONT_DIR
    from plugins.htr.model import HtrHead
    from plugins.htr.render import FONT_PACKAGES, find_fonts

    manifest = FONT_DIR / "manifest.json"
    npm_versions = json.loads(manifest.read_text()) if manifest.exists() else {}
    state = torch.load(cache / "checkpoint.pt", weights_only=False)
    head = HtrHead(**state["config"])
    head.load_state_dict(state["head"])
    dev = load_shards([cache / "dev.npz"])
    greedy = evaluate(head, dev)
    beam = evaluate(head, dev, beam=True)
    out_dir.mkdir(parents=True, exist_ok=True)
    tensors = {k: (v.half() if v.is_floating_point() else v).contiguous() for k, v in head.state_dict().items()}
    save_file(tensors, str(out_dir / "htr_head.safetensors"))
    trunk_versions = json.loads((cache / "trunk.json").read_text())
    n_train = sum(len(np.load(p)["texts"]) for p in list_shards(cache, extra))
    card = {
        "task": "htr",
        "model": (
            "HtrHead: stride-8 + upsampled stride-16 trunk maps -> 1x1 conv -> rows folded into channels -> linear"
            f" -> residual conv1d -> BiLSTM({state['config']['hidden']}) -> CTC over {len(CHARSET)} chars + blank;"
            " plus an upright logit"
        ),
        "config": state["config"],
        "charset": CHARSET,
        "input": cache_input(cache),
        "trunk": {"image": trunk_versions["image"]},
        "data": {
            "kind": (
                "rendered words only (no real handwriting): Debian fonts and Fontsource handwriting fonts from npm;"
                " fb_sample never used for training"
            ),
            "words": "wordfreq 3.1.1 top 40k ru + top 40k en, casing/punctuation/abbreviations/numbers mixed in",
            "train_samples": n_train,
            "rotated_share": ROTATED_SHARE,
            "fonts": sorted(Path(f.path).name for f in find_fonts()),
            "font_sources": {"debian": FONT_PACKAGES, "npm_fontsource": npm_versions},
        },
        "steps": state["step"],
        "dev": {"set": f"rendered, seed {DEV_SEED}, {len(dev['texts'])} crops", "greedy": greedy, "beam": beam},
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    (out_dir / "htr_head.json").write_text(json.dumps(card, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(card["dev"], indent=1))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--stage", choices=("produce", "train", "export", "all"), default="all")
    parser.add_argument("--cache", type=Path, default=Path("/tmp/htr_cache"))
    parser.add_argument("--trunk", default="default", help="trunk spec as for run.py, or 'fake'")
    parser.add_argument("--shards", type=int, default=160, help=f"training shards of {SHARD_SIZE} crops")
    parser.add_argument("--height", type=int, default=HEIGHT, help="crop height (width is 4x) of new shards")
    parser.add_argument("--worker", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--steps", type=int, default=6000)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--lr", type=float, default=2e-3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--eval-every", type=int, default=250)
    parser.add_argument("--init", type=Path, default=None, help="warm-start the head from this checkpoint")
    parser.add_argument("--extra", type=Path, nargs="*", default=[], help="more caches whose shards to train on")
    parser.add_argument("--hidden", type=int, default=96, help="BiLSTM width of a head trained from scratch")
    parser.add_argument("--out", type=Path, default=WEIGHTS_DIR)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if args.stage in ("produce", "all"):
        produce(args.cache, args.shards, args.worker, args.workers, args.trunk, args.height)
    if args.stage in ("train", "all"):
        train(
            args.cache,
            args.steps,
            args.batch,
            args.lr,
            args.seed,
            args.eval_every,
            args.init,
            extra=args.extra,
            hidden=args.hidden,
        )
    if args.stage in ("export", "all"):
        export(args.cache, args.out, args.extra)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
