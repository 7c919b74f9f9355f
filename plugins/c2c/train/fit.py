"""Fit the C2C candidate selector: ``fit_head(...)``, what ``plugins.c2c.train.train_head`` runs.

Data sources (``data`` maps a source name to paths; the CLI's ``--data NAME=PATH``, repeatable):

* ``c2c_jsonl``: JSON lines ``{"java": [str], "python": [str]}`` in the challenge's
  token format (AVATAR's layout), or folders of ``*.jsonl`` files. Default when
  absent: ``../shared/data/c2c_train/avatar_g4g_train.jsonl`` (AVATAR g4g train pairs).
* ``challenge``: sets in the challenge layout, ``input/C2C/requests.json`` +
  ``true/C2C/true_C2C.json`` (the pairs are matched by key). Never a default: the
  ``c2c_*_valid`` sets are the dev sets and are not read unless named.

Other sources are ignored. For every pair the translator makes the default
translation and one candidate per flipped style switch; the target is a soft
distribution over the candidates by their agreement with the reference (smoothed
sentence BLEU, ``TEMPERATURE``), learned with a listwise cross-entropy. The frozen
text tower's embeddings are cached per trunk version under ``out_dir/cache`` in
shards (``training.FeatureCache``), so an interrupted run resumes where it
stopped (``resume``). A tenth of the pairs (seeded) is held out to report the selector's gain (the card's dev score);
the written head is then trained on every pair.

Writes ``selector.safetensors`` and the card ``selector.json`` into ``out_dir``.
"""

from __future__ import annotations

import json
import logging
import math
import random
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from core.splits import DEFAULT_DATA_ROOT
from plugins.c2c.selector import (
    CARD_NAME,
    MARGIN,
    SWITCHES,
    WEIGHTS_NAME,
    Candidates,
    all_texts,
    build_head,
    choose,
    encode_texts,
    features,
    make_candidates,
)
from plugins.c2c.task import C2cTask
from training import FeatureCache, TrainRequest, challenge_sets

if TYPE_CHECKING:
    pass

log = logging.getLogger(__name__)

DEFAULT_PAIRS = Path("c2c_train") / "avatar_g4g_train.jsonl"  # under the data root
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


def build_examples(
    pairs: Sequence[tuple[str, str]], progress: bool = True
) -> tuple[list[Candidates], list[list[float]]]:
    """Candidates and, per switch, the sentence-BLEU gain of flipping it."""
    from tqdm import tqdm

    cands, gains = [], []
    for java, ref in tqdm(pairs, desc="translate", unit="prog", disable=not progress):
        try:
            c = make_candidates(java)
        except Exception as exc:  # a pair the translator cannot handle teaches nothing
            log.debug("skipping a pair: %s", exc)
            continue
        base = sentence_bleu(c.default, ref)
        cands.append(c)
        gains.append([sentence_bleu(t, ref) - base if t else 0.0 for t in c.texts])
    return cands, gains


def soft_targets(gains, mask, temperature: float = TEMPERATURE):
    """Candidate distribution favouring the best agreement with the reference (``[B, K]``)."""
    import torch

    g = torch.tensor(gains, dtype=torch.float32).masked_fill(~mask, float("-inf"))
    return torch.softmax(g / temperature, dim=-1)


def fit_selector(x, mask, gains, *, epochs: int, seed: int, lr: float = 1e-3, progress: bool = True):
    """Listwise cross-entropy between the head's candidate scores and ``soft_targets``."""
    import torch
    from tqdm import trange

    torch.manual_seed(seed)
    head = build_head(x.shape[-1] // 3)
    target = soft_targets(gains, mask)
    opt = torch.optim.AdamW(head.parameters(), lr=lr, weight_decay=1e-2)
    bar = trange(epochs, desc="train", unit="epoch", disable=not progress)
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


def load_challenge(folder: Path) -> list[tuple[str, str]]:
    """(Java, reference Python) pairs of a challenge-layout set, matched by key."""
    requests = json.loads((folder / "input" / "C2C" / "requests.json").read_text(encoding="utf-8"))
    gold = json.loads((folder / "true" / "C2C" / "true_C2C.json").read_text(encoding="utf-8"))
    return [(java, gold[key]) for key, java in requests.items() if isinstance(java, str) and key in gold]


def _jsonl_files(paths: Sequence[Path]) -> list[Path]:
    files: list[Path] = []
    for p in map(Path, paths):
        files += sorted(p.glob("*.jsonl")) if p.is_dir() else [p]
    return files


def collect_pairs(
    data: Mapping[str, Sequence[Path]], data_root: Path | None = DEFAULT_DATA_ROOT
) -> tuple[list[tuple[str, str]], dict[str, dict[str, int]]]:
    """Every training pair of the sources this trainer reads, and the count per source and path.

    ``c2c_jsonl`` defaults to ``data_root/c2c_train/avatar_g4g_train.jsonl`` when present."""
    sources = {k: list(v) for k, v in data.items()}
    if "c2c_jsonl" not in sources and data_root is not None and (data_root / DEFAULT_PAIRS).is_file():
        sources["c2c_jsonl"] = [data_root / DEFAULT_PAIRS]
    pairs: list[tuple[str, str]] = []
    used: dict[str, dict[str, int]] = {}
    for path in _jsonl_files(sources.get("c2c_jsonl", [])):
        got = load_pairs(path)
        used.setdefault("c2c_jsonl", {})[path.name] = len(got)
        pairs += got
    for folder in challenge_sets(sources.get("challenge", []), C2cTask.info):
        got = load_challenge(folder)
        used.setdefault("challenge", {})[folder.name] = len(got)
        pairs += got
    return pairs, used


def fit_head(
    req: TrainRequest,
    *,
    epochs: int = 3,
    limit: int = 0,
    cache: Path | None = None,
) -> Path:
    """Train the style selector for ``trunk`` on ``data`` (see the module doc); returns the card's path.

    ``device`` is accepted for the shared interface: the head is a small MLP over cached
    embeddings and trains on the CPU. ``limit`` keeps the first N pairs (smoke runs); ``scale``
    (train.py's ``--scale``) keeps that share of them.
    """
    import torch

    from core.heads import save_head

    t0 = time.time()
    trunk, out_dir, seed, progress = req.trunk, req.out_dir, req.seed, req.progress
    out_dir.mkdir(parents=True, exist_ok=True)
    if req.device != "cpu":
        log.info("c2c: the selector trains on the CPU; device %s not used", req.device)
    random.seed(seed)
    pairs, used = collect_pairs(req.sources.as_dict(), req.data_root)
    if req.scale < 1.0:
        pairs = pairs[: max(1, math.ceil(len(pairs) * req.scale))]
    if limit:
        pairs = pairs[:limit]
    if not pairs:
        raise ValueError("c2c needs (Java, Python) pairs: a 'c2c_jsonl' file or a 'challenge' set")
    cands, gains = build_examples(pairs, progress)
    store = FeatureCache(Path(cache) if cache else out_dir / "cache", trunk.version)
    if not req.resume:
        store.clear()
    table = store.fill(all_texts(cands), lambda chunk: encode_texts(chunk, trunk), progress=progress, desc="encode")
    x, mask = features(cands, table, trunk.embed_dim)

    order = list(range(len(cands)))
    random.Random(seed).shuffle(order)
    n_hold = max(1, len(order) // 10)
    hold, fit = order[:n_hold], order[n_hold:]
    head = fit_selector(x[fit], mask[fit], [gains[i] for i in fit], epochs=epochs, seed=seed, progress=progress)
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
    # the written head sees every pair; the held-out figure above is its honest estimate
    head = fit_selector(x, mask, gains, epochs=epochs, seed=seed, progress=progress)

    tensors = {k: v.detach().contiguous() for k, v in head.state_dict().items()}
    steps = epochs * math.ceil(len(fit) / 128) + epochs * math.ceil(len(cands) / 128)
    card = {
        "task": "c2c",
        "what": "c2c candidate selector (MLP over text-tower embeddings)",
        "data": used,
        "pairs": len(cands),
        "switches": list(SWITCHES),
        "embed_dim": trunk.embed_dim,
        "hidden": tensors["1.weight"].shape[0],
        "epochs": epochs,
        "steps": steps,
        "seed": seed,
        "dev_score": {"heldout_sentence_bleu_gain": round(held["gain"], 5)},
        "heldout_sentence_bleu_gain": round(held["gain"], 5),
        "heldout_oracle_gain": round(held["oracle"], 5),
        "heldout_non_default_rate": round(held["non_default_rate"], 4),
        "heldout_gain_random_embeddings": round(ablated["gain"], 5),
        "margin": MARGIN,
        # the selector reads the text tower only, so only that component has to match
        "trunk": {"text": trunk.component_versions["text"]},
        "seconds": round(time.time() - t0, 1),
        "created": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }
    card_path = out_dir / CARD_NAME
    return save_head(out_dir / WEIGHTS_NAME, tensors, card_path, card)
