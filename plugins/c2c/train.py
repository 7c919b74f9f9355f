"""Train the C2C candidate selector: ``python -m plugins.c2c.train``.

Data: ``../shared/data/c2c_train/avatar_g4g_train.jsonl`` (AVATAR g4g train
pairs). For every pair the translator makes the default translation and one
candidate per flipped style switch; the target is a soft distribution over the
candidates by their agreement with the reference (smoothed sentence BLEU,
``TEMPERATURE``), learned with a listwise cross-entropy. The frozen text
tower's embeddings are cached per trunk version under ``--cache`` in shards,
so an interrupted run resumes where it stopped. A tenth
of the pairs (seeded) is held out to report the selector's gain. The dev sets
``c2c_*_valid`` are never read here.

Writes ``plugins/c2c/weights/selector.safetensors`` and ``selector.json``.
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import random
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from plugins.c2c.selector import (
    MARGIN,
    SWITCHES,
    Candidates,
    all_texts,
    build_head,
    choose,
    encode_texts,
    features,
    make_candidates,
)

log = logging.getLogger(__name__)

REPO = Path(__file__).resolve().parents[2]
DEFAULT_DATA = REPO.parent / "shared" / "data" / "c2c_train" / "avatar_g4g_train.jsonl"
WEIGHTS_DIR = Path(__file__).resolve().parent / "weights"
TEMPERATURE = 0.005  # sentence-BLEU scale of the soft targets: 0.005 apart is ~e times likelier


def sentence_bleu(candidate: str, reference: str) -> float:
    """Add-one smoothed 4-gram sentence BLEU with brevity penalty (a fast per-program proxy)."""
    c, r = candidate.split(), reference.split()
    if not c or not r:
        return 0.0
    logp = 0.0
    for n in range(1, 5):
        cn = Counter(tuple(c[i : i + n]) for i in range(len(c) - n + 1))
        rn = Counter(tuple(r[i : i + n]) for i in range(len(r) - n + 1))
        match = sum((cn & rn).values())
        logp += math.log((match + 1) / (sum(cn.values()) + 1))
    bp = min(1.0, math.exp(1 - len(r) / len(c)))
    return bp * math.exp(logp / 4)


def load_pairs(path: Path) -> list[tuple[str, str]]:
    pairs = []
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            for java, python in zip(row["java"], row["python"], strict=False):
                pairs.append((java, python))
    return pairs


def build_examples(pairs: Sequence[tuple[str, str]]) -> tuple[list[Candidates], list[list[float]]]:
    """Candidates and, per switch, the sentence-BLEU gain of flipping it."""
    from tqdm import tqdm

    cands, gains = [], []
    for java, ref in tqdm(pairs, desc="translate", unit="prog"):
        try:
            c = make_candidates(java)
        except Exception as exc:  # a pair the translator cannot handle teaches nothing
            log.debug("skipping a pair: %s", exc)
            continue
        base = sentence_bleu(c.default, ref)
        cands.append(c)
        gains.append([sentence_bleu(t, ref) - base if t else 0.0 for t in c.texts])
    return cands, gains


def embed_cached(texts: Sequence[str], trunk, cache_dir: Path, shard: int = 2048):
    """``{text: embedding}`` for ``texts``; shards saved as they finish, so a rerun resumes."""
    import torch
    from tqdm import tqdm

    cache_dir.mkdir(parents=True, exist_ok=True)
    table: dict[str, torch.Tensor] = {}
    for path in sorted(cache_dir.glob("shard_*.pt")):
        table.update(torch.load(path))
    todo = [t for t in texts if t not in table]
    start = len(list(cache_dir.glob("shard_*.pt")))
    for i in tqdm(range(0, len(todo), shard), desc="encode", unit="shard"):
        chunk = todo[i : i + shard]
        emb = encode_texts(chunk, trunk)
        part = dict(zip(chunk, emb, strict=True))
        torch.save(part, cache_dir / f"shard_{start + i // shard:05d}.pt")
        table.update(part)
    return table


def soft_targets(gains, mask, temperature: float = TEMPERATURE):
    """Candidate distribution favouring the best agreement with the reference (``[B, K]``)."""
    import torch

    g = torch.tensor(gains, dtype=torch.float32).masked_fill(~mask, float("-inf"))
    return torch.softmax(g / temperature, dim=-1)


def train_head(x, mask, gains, *, epochs: int, seed: int, lr: float = 1e-3):
    """Listwise cross-entropy between the head's candidate scores and ``soft_targets``."""
    import torch
    from tqdm import trange

    torch.manual_seed(seed)
    head = build_head(x.shape[-1] // 3)
    target = soft_targets(gains, mask)
    opt = torch.optim.AdamW(head.parameters(), lr=lr, weight_decay=1e-2)
    bar = trange(epochs, desc="train", unit="epoch")
    for _ in bar:
        perm = torch.randperm(x.shape[0])
        for i in range(0, len(perm), 128):
            idx = perm[i : i + 128]
            scores = head(x[idx]).squeeze(-1).masked_fill(~mask[idx], -1e4)
            loss = -(target[idx] * torch.log_softmax(scores, -1)).sum(-1).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        bar.set_postfix(loss=f"{loss.item():.4f}")
    head.eval()
    return head


def gain_of(head, x, mask, gains, margin: float = MARGIN) -> dict[str, float]:
    """Mean per-program sentence-BLEU gain of the chosen candidates over the default, and the oracle's."""
    import torch

    with torch.no_grad():
        pick = torch.tensor(choose(head(x).squeeze(-1), mask, margin))
    g = torch.tensor(gains, dtype=torch.float32).masked_fill(~mask, float("-inf"))
    chosen = g.gather(1, pick[:, None]).squeeze(1)
    return {
        "gain": float(chosen.mean()),
        "oracle": float(g.max(1).values.mean()),
        "non_default_rate": float((pick != 0).float().mean()),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--out", type=Path, default=WEIGHTS_DIR)
    parser.add_argument("--cache", type=Path, default=Path("/tmp/c2c_cache"))
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--limit", type=int, default=0, help="use only the first N pairs (smoke runs)")
    parser.add_argument("--fake-trunk", action="store_true", help="train on core.testing's fake trunk (tests)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")

    import torch
    from safetensors.torch import save_file

    torch.set_num_threads(1)
    random.seed(args.seed)
    if args.fake_trunk:
        from core.testing import make_fake_trunk

        trunk = make_fake_trunk()
    else:
        from core.trunk import TrunkConfig, load_trunk

        trunk = load_trunk(TrunkConfig())
    pairs = load_pairs(args.data)
    if args.limit:
        pairs = pairs[: args.limit]
    t0 = time.time()
    cands, gains = build_examples(pairs)
    table = embed_cached(all_texts(cands), trunk, args.cache / trunk.version)
    x, mask = features(cands, table, trunk.embed_dim)

    order = list(range(len(cands)))
    random.Random(args.seed).shuffle(order)
    n_hold = max(1, len(order) // 10)
    hold, fit = order[:n_hold], order[n_hold:]
    head = train_head(x[fit], mask[fit], [gains[i] for i in fit], epochs=args.epochs, seed=args.seed)
    held_gains = [gains[i] for i in hold]
    for margin in (0.0, MARGIN, 2 * MARGIN):
        row = gain_of(head, x[hold], mask[hold], held_gains, margin)
        log.info(
            "held-out, margin %.1f: gain %+.4f, non-default picks %.3f", margin, row["gain"], row["non_default_rate"]
        )
    noise = torch.nn.functional.normalize(torch.randn(x[hold].shape[:-1] + (x.shape[-1] // 3,)), dim=-1)
    x_noise = torch.cat([noise[:, :1].expand_as(noise), noise, noise[:, :1] * noise], -1)
    ablated = gain_of(head, x_noise, mask[hold], held_gains)
    log.info(
        "held-out with random embeddings: gain %+.4f, non-default picks %.3f",
        ablated["gain"],
        ablated["non_default_rate"],
    )
    held = gain_of(head, x[hold], mask[hold], held_gains)
    log.info(
        "held-out sentence-BLEU gain %.4f (oracle %.4f, non-default picks %.3f)",
        held["gain"],
        held["oracle"],
        held["non_default_rate"],
    )
    # the shipped head sees every pair; the held-out figure above is its honest estimate
    head = train_head(x, mask, gains, epochs=args.epochs, seed=args.seed)

    args.out.mkdir(parents=True, exist_ok=True)
    tensors = {k: v.detach().contiguous() for k, v in head.state_dict().items()}
    save_file(tensors, str(args.out / "selector.safetensors"))
    card = {
        "what": "c2c candidate selector (MLP over text-tower embeddings)",
        "data": f"{args.data.name}: {len(cands)} pairs",
        "switches": list(SWITCHES),
        "embed_dim": trunk.embed_dim,
        "hidden": tensors["1.weight"].shape[0],
        "epochs": args.epochs,
        "seed": args.seed,
        "heldout_sentence_bleu_gain": round(held["gain"], 5),
        "heldout_oracle_gain": round(held["oracle"], 5),
        "heldout_non_default_rate": round(held["non_default_rate"], 4),
        "heldout_gain_random_embeddings": round(ablated["gain"], 5),
        "margin": MARGIN,
        "trunk": {"text": trunk.component_versions["text"]},
        "seconds": round(time.time() - t0, 1),
    }
    (args.out / "selector.json").write_text(json.dumps(card, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(card, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
