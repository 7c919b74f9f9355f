"""Fit the VQA head on frozen trunk features: ``python -m plugins.vqa.train``.

Trains on the training part of ``vqa_yesno_dev`` and ``vqa_okvqa_dev`` (see
``data.is_heldout`` for the fixed split by image), reports accuracy on the
held-out part of each and on ``fb_sample`` (evaluation only, never trained on),
and writes ``weights/vqa_head.safetensors`` + ``weights/vqa_head.json``.
Image and text embeddings are cached per trunk version under ``--cache``, so a
re-run on the same trunk takes seconds. Seeded and deterministic.
"""

from __future__ import annotations

import argparse
import collections
import json
import logging
import math
import random
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from plugins.vqa.answerer import Answerer, Embedded, build_candidates, candidate_mask, candidate_texts, in_question
from plugins.vqa.data import HELDOUT_BELOW, HELDOUT_MOD, DevQuestion, is_heldout, load_dev_set
from plugins.vqa.head import DEPENDS_ON, N_SCALAR, open_features, untrained_head, yesno_features
from plugins.vqa.normalize import normalize_answer
from plugins.vqa.question import ParsedQuestion, QType, parse_question

if TYPE_CHECKING:
    import torch

    from core.trunk import Trunk

log = logging.getLogger(__name__)

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"
SETS = ("vqa_yesno_dev", "vqa_okvqa_dev")


class EmbeddingCache:
    """Pooled region features (per image-tower version) and text embeddings, in memory and on disk.

    Region features are kept *before* the joint projection, so a new joint space
    (the trunk's learned projection) needs no second pass over the images.
    """

    def __init__(self, trunk: Trunk, root: Path) -> None:
        import torch

        self.trunk = trunk
        v = trunk.component_versions
        self.image_path = root / f"pooled_{_slug(v['image'])}.pt"
        self.text_path = root / f"text_{_slug(v['text'])}.pt"
        self.pooled: dict[str, torch.Tensor] = torch.load(self.image_path) if self.image_path.exists() else {}
        self.texts: dict[str, torch.Tensor] = torch.load(self.text_path) if self.text_path.exists() else {}
        self.joint: dict[str, torch.Tensor] = {}

    def save(self) -> None:
        import torch

        self.image_path.parent.mkdir(parents=True, exist_ok=True)
        torch.save(self.pooled, self.image_path)
        torch.save(self.texts, self.text_path)

    def image(self, paths: Sequence[Path]) -> torch.Tensor:
        """``[N, R, D]`` joint region embeddings of ``paths``."""
        import torch
        from tqdm import tqdm

        from core.io import load_image
        from plugins.vqa.head import region_pool

        todo = sorted({str(p) for p in paths if str(p) not in self.pooled})
        for i in tqdm(range(0, len(todo), 32), desc="images", disable=not todo):
            chunk = todo[i : i + 32]
            with torch.inference_mode():
                pixels = torch.stack([self.trunk.image_transform(load_image(Path(p))) for p in chunk])
                pooled = region_pool(self.trunk.image_feature_maps(pixels).maps[-1])
            for p, e in zip(chunk, pooled, strict=True):
                self.pooled[p] = e.clone()
        need = sorted({str(p) for p in paths if str(p) not in self.joint})
        if need:
            with torch.inference_mode():
                stacked = torch.stack([self.pooled[p] for p in need])
                b, r, c = stacked.shape
                joint = self.trunk.project_pooled(stacked.reshape(b * r, c)).reshape(b, r, -1)
            self.joint.update({p: e.clone() for p, e in zip(need, joint, strict=True)})
        return torch.stack([self.joint[str(p)] for p in paths])

    def text(self, texts: Sequence[str]) -> torch.Tensor:
        import torch

        todo = sorted({t for t in texts if t not in self.texts})
        for i in range(0, len(todo), 256):
            chunk = todo[i : i + 256]
            with torch.inference_mode():
                for t, e in zip(chunk, self.trunk.embed_texts(chunk), strict=True):
                    self.texts[t] = e.clone()
        if not texts:
            return torch.zeros(0, self.trunk.embed_dim)
        return torch.stack([self.texts[t] for t in texts])


def _slug(version: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in version)


def embed_questions(cache: EmbeddingCache, qs: Sequence[DevQuestion]) -> tuple[list[ParsedQuestion], list[Embedded]]:
    """Parse and embed dev questions the way the task does."""
    parsed = [parse_question(q.question, q.lang) for q in qs]
    images = cache.image([q.image for q in qs])
    questions = cache.text([p.text for p in parsed])
    subjects = cache.text([p.subject or p.text for p in parsed])
    items = []
    for i, p in enumerate(parsed):
        items.append(Embedded(images[i], questions[i], subjects[i], cache.text(list(p.choices))))
    return parsed, items


_SYN_TEMPLATES = {
    "en": ("Is there a {} in the picture?", "Could this be {}?", "Is this a {}?", "Are there any {}?"),
    "ru": ("Здесь есть {}?", "Это {}?", "На фото есть {}?"),
}
_SYN_CATEGORIES = (
    "animal",
    "sport",
    "food",
    "room",
    "place",
    "vehicle",
    "clothing",
    "tool",
    "person",
    "weather",
    "time",
)


def synthetic_yesno(data: Path, per_image: int, seed: int) -> list[tuple[Path, str, str, bool]]:
    """Yes/no questions made from COCO captions (``trunk_pairs/coco_val``; none of its images is in a VQA set).

    A vocabulary phrase named by one of the image's captions gives a "yes"
    question; a phrase that other images' captions name but none of this
    image's gives a "no" (caption silence is noisy evidence of absence, but
    cheap and plentiful). Half the questions are Russian (the phrase's Russian
    form), so the head sees both languages.
    """
    import json
    import re

    from plugins.vqa.answers import vocabulary

    root = data / "trunk_pairs" / "coco_val"
    captions = json.loads((root / "captions_en.json").read_text(encoding="utf-8"))
    rng = random.Random(seed)
    entries = [a for a in vocabulary() if a.category in _SYN_CATEGORIES and len(a.en) > 2]
    named: dict[str, list[int]] = {}
    for image, caps in sorted(captions.items()):
        text = " " + " ".join(re.findall(r"[a-z]+", " ".join(caps).lower())) + " "
        named[image] = [i for i, a in enumerate(entries) if f" {a.en} " in text or f" {a.en}s " in text]
    frequent = collections.Counter(i for idx in named.values() for i in idx)
    pool = [i for i, n in frequent.items() if n >= 5]
    out = []
    for image, idx in sorted(named.items()):
        present = set(idx)
        pos = rng.sample(sorted(present), min(len(present), per_image // 2))
        neg = rng.sample([i for i in pool if i not in present], per_image // 2)
        for i, label in [(i, True) for i in pos] + [(i, False) for i in neg]:
            lang = rng.choice(("en", "ru"))
            phrase = entries[i].text(lang)
            out.append((root / "images" / image, rng.choice(_SYN_TEMPLATES[lang]).format(phrase), lang, label))
    return out


def fit_logistic(
    x: torch.Tensor, y: torch.Tensor, l2: torch.Tensor, steps: int = 200
) -> tuple[torch.Tensor, torch.Tensor]:
    """L2-regularised logistic regression (per-feature penalty ``l2``) by L-BFGS."""
    import torch

    w = torch.zeros(x.shape[1], requires_grad=True)
    b = torch.zeros(1, requires_grad=True)
    opt = torch.optim.LBFGS([w, b], max_iter=steps, line_search_fn="strong_wolfe")

    def closure() -> torch.Tensor:
        opt.zero_grad()
        loss = torch.nn.functional.binary_cross_entropy_with_logits(x @ w + b, y) + (l2 * w * w).sum()
        loss.backward()
        return loss

    opt.step(closure)
    return w.detach(), b.detach()


def yesno_penalty(dim: int, strength: float) -> torch.Tensor:
    import torch

    l2 = torch.full((N_SCALAR + 2 * dim,), strength)
    l2[:N_SCALAR] = 1e-3
    return l2


def fit_yesno(
    feats: torch.Tensor,
    labels: torch.Tensor,
    groups: Sequence[str],
    dim: int,
    extra: tuple[torch.Tensor, torch.Tensor, Sequence[str]] | None = None,
) -> tuple[torch.Tensor, torch.Tensor, str, float]:
    """Choose the feature groups and penalty by 5-fold cross-validation grouped by image, then
    fit on everything.

    Feature groups: none (the answer prior alone), the 6 image-evidence scalars, scalars +
    question embedding (language prior), everything. With ``extra`` (caption-made questions
    and their image names) the model is trained on both kinds and chosen by the mean of its
    accuracy on held-out real questions and on held-out caption-made ones: the dev set's
    three templates alone are too narrow a picture of the questions a test asks.
    """
    import torch

    width = feats.shape[1]
    groups_of = {
        "prior": torch.zeros(width),
        "evidence": torch.cat([torch.ones(N_SCALAR), torch.zeros(width - N_SCALAR)]),
        "evidence+question": torch.cat([torch.ones(N_SCALAR + dim), torch.zeros(width - N_SCALAR - dim)]),
        "all": torch.ones(width),
    }
    folds = torch.tensor([hash_fold(g) for g in groups])
    extra_folds = torch.tensor([hash_fold(g) for g in extra[2]]) if extra is not None else None
    best = (-1.0, "prior", 1.0)
    for name, keep in groups_of.items():
        for strength in (1e-3, 1e-2, 1e-1, 1.0) if name != "prior" else (1.0,):
            real_hits = syn_hits = 0
            for k in range(5):
                tr = folds != k
                x, y = feats[tr], labels[tr]
                if extra is not None and extra_folds is not None:
                    x, y = torch.cat([x, extra[0][extra_folds != k]]), torch.cat([y, extra[1][extra_folds != k]])
                w, b = fit_logistic(x * keep, y, yesno_penalty(dim, strength))
                real_hits += int((((feats[~tr] * keep @ w + b) > 0).float() == labels[~tr]).sum())
                if extra is not None and extra_folds is not None:
                    te = extra_folds == k
                    syn_hits += int((((extra[0][te] * keep @ w + b) > 0).float() == extra[1][te]).sum())
            real_acc = real_hits / len(folds)
            acc = real_acc if extra is None else (real_acc + syn_hits / len(extra[1])) / 2
            log.info("yes/no %s, penalty %g: cv accuracy %.3f (real questions %.3f)", name, strength, acc, real_acc)
            if acc > best[0]:
                best = (acc, name, strength)
    acc, name, strength = best
    keep = groups_of[name]
    x, y = (feats, labels) if extra is None else (torch.cat([feats, extra[0]]), torch.cat([labels, extra[1]]))
    w, b = fit_logistic(x * keep, y, yesno_penalty(dim, strength))
    return w * keep, b, f"{name}, penalty {strength:g}", acc


def hash_fold(key: str, k: int = 5) -> int:
    import hashlib

    return int(hashlib.md5(key.encode()).hexdigest(), 16) % k


def fit_open(
    answerer: Answerer,
    parsed: Sequence[ParsedQuestion],
    items: Sequence[Embedded],
    golds: Sequence[tuple[str, ...]],
    steps: int = 300,
) -> torch.Tensor:
    """Fit the open-answer weights: maximise the softmax mass on gold candidates."""
    import torch

    counts = answerer.head.answer_counts
    total = sum(counts.values()) or 1
    feats, targets, masks = [], [], []
    for p, e, gold in zip(parsed, items, golds, strict=True):
        lang = "ru" if p.lang == "ru" else "en"
        texts = [c.ru if lang == "ru" and c.ru else c.en for c in answerer.candidates]
        target = torch.tensor([t in gold for t in texts])
        mask = torch.tensor(candidate_mask(p, answerer.candidates))
        # Leave-one-out: the question's own answers must not lend it their training counts,
        # and answers only it has seen are not in its vocabulary.
        prior = answerer.log_prior.clone()
        for j, c in enumerate(answerer.candidates):
            if c.en in gold and counts.get(c.en, 0) > 0:
                rest = counts[c.en] - 1
                if c.category == "learned" and rest == 0:
                    mask[j] = False
                else:
                    prior[j] = math.log(math.exp(float(prior[j])) - 1 / total)
        if not bool((target & mask).any()):
            continue
        inq = torch.tensor([in_question(p, answerer.candidates)])
        feats.append(
            open_features(e.image[None], e.question[None], answerer.emb[lang], answerer.head.mean_image, prior, inq)[0]
        )
        targets.append(target & mask)
        masks.append(mask)
    log.info("open answers: %d training questions have a reachable gold answer", len(feats))
    if not feats:
        return answerer.head.open_w.clone()
    f, t, m = torch.stack(feats), torch.stack(targets), torch.stack(masks)
    w = answerer.head.open_w.clone().requires_grad_(True)
    opt = torch.optim.Adam([w], lr=0.05)
    for _ in range(steps):
        opt.zero_grad()
        logits = (f @ w).masked_fill(~m, float("-inf"))
        loss = -(torch.logsumexp(logits.masked_fill(~t, float("-inf")), -1) - torch.logsumexp(logits, -1)).mean()
        (loss + 1e-3 * (w * w).sum()).backward()
        opt.step()
    return w.detach()


def accuracy(
    answerer: Answerer, parsed: Sequence[ParsedQuestion], items: Sequence[Embedded], qs: Sequence[DevQuestion]
) -> float:
    """Organizers' accuracy: normalized prediction in the gold answers."""
    if not qs:
        return float("nan")
    answers = answerer.answer_batch(parsed, items)
    hits = sum(normalize_answer(a, q.lang) in q.answers for a, q in zip(answers, qs, strict=True))
    return hits / len(qs)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA, help="folder holding the dev sets")
    parser.add_argument("--cache", type=Path, default=Path("/tmp/vqa_cache"), help="embedding cache folder")
    parser.add_argument("--ablation", default="none", help="'random' trains and evaluates on noise features")
    parser.add_argument("--no-save", action="store_true", help="evaluate only; do not write weights")
    parser.add_argument(
        "--projection", default="", help="trunk joint projection (TrunkConfig.pretrained; default: shipped)"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--synthetic", type=int, default=4, help="caption-made yes/no questions per COCO image (0: none)"
    )
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")

    import torch

    from core.trunk import TrunkConfig, load_trunk

    torch.manual_seed(args.seed)
    random.seed(args.seed)
    torch.set_num_threads(args.threads)
    start = time.time()
    trunk = load_trunk(TrunkConfig(pretrained=args.projection, ablation=args.ablation))
    cache = EmbeddingCache(trunk, args.cache)
    sets = {name: load_dev_set(args.data / name) for name in SETS}
    sample = load_dev_set(args.data / "fb_sample")
    embedded = {name: embed_questions(cache, qs) for name, qs in {**sets, "fb_sample": sample}.items()}
    cache.save()

    # Training part: everything not held out. The answer vocabulary learns from it too.
    train = [(name, i) for name, qs in sets.items() for i, q in enumerate(qs) if not is_heldout(q.image.name)]
    counts = collections.Counter(a for name, i in train if name == "vqa_okvqa_dev" for a in set(sets[name][i].answers))
    train_images = cache.image(sorted({sets[n][i].image for n, i in train}))
    head = untrained_head(trunk.embed_dim)
    head.mean_image = train_images[:, 0].mean(0)
    head.answer_counts = dict(sorted(counts.items()))
    candidates = build_candidates(head)
    en, ru = candidate_texts(candidates)
    answerer = Answerer(head, candidates, cache.text(en), cache.text(ru))

    yn = [(n, i) for n, i in train if embedded[n][0][i].qtype is QType.YESNO and sets[n][i].answers[0] in ("yes", "no")]
    feats = yesno_features(
        torch.stack([embedded[n][1][i].image for n, i in yn]),
        torch.stack([embedded[n][1][i].question for n, i in yn]),
        torch.stack([embedded[n][1][i].subject for n, i in yn]),
        head.mean_image, answerer.reference,
    )  # fmt: skip
    labels = torch.tensor([float(sets[n][i].answers[0] == "yes") for n, i in yn])
    extra = None
    if args.synthetic > 0:
        syn = synthetic_yesno(args.data, args.synthetic, args.seed)
        sq = [
            DevQuestion(f"syn{j}", path, text, ("yes" if label else "no",), lang)
            for j, (path, text, lang, label) in enumerate(syn)
        ]
        sparsed, sitems = embed_questions(cache, sq)
        cache.save()
        extra = (
            yesno_features(
                torch.stack([e.image for e in sitems]), torch.stack([e.question for e in sitems]),
                torch.stack([e.subject for e in sitems]), head.mean_image, answerer.reference,
            ),
            torch.tensor([float(label) for _, _, _, label in syn]),
            [path.name for path, _, _, _ in syn],
        )  # fmt: skip
        log.info("synthetic yes/no questions: %d (%.2f yes)", len(syn), float(extra[1].mean()))
    head.yesno_w, head.yesno_b, strength, cv = fit_yesno(
        feats, labels, [sets[n][i].image.name for n, i in yn], trunk.embed_dim, extra
    )

    op = [(n, i) for n, i in train if embedded[n][0][i].qtype not in (QType.YESNO, QType.CHOICE)]
    head.open_w = fit_open(
        answerer,
        [embedded[n][0][i] for n, i in op],
        [embedded[n][1][i] for n, i in op],
        [sets[n][i].answers for n, i in op],
    )
    log.info("open weights %s", [round(float(v), 3) for v in head.open_w])

    scores = {}
    for name, qs in {**sets, "fb_sample": sample}.items():
        keep = [i for i, q in enumerate(qs) if name == "fb_sample" or is_heldout(q.image.name)]
        parsed, items = embedded[name]
        scores[name] = round(
            accuracy(answerer, [parsed[i] for i in keep], [items[i] for i in keep], [qs[i] for i in keep]), 4
        )
        given = answerer.answer_batch([parsed[i] for i in keep], [items[i] for i in keep])
        dump = {qs[i].qid: [qs[i].question, a, list(qs[i].answers)] for i, a in zip(keep, given, strict=True)}
        (args.cache / f"pred_{name}_{args.ablation}.json").write_text(
            json.dumps(dump, ensure_ascii=False, indent=0), encoding="utf-8"
        )
        log.info(
            "%s: accuracy %.3f on %d %s questions",
            name,
            scores[name],
            len(keep),
            "all" if name == "fb_sample" else "held-out",
        )
    head.card = {
        "task": "vqa",
        "trunk_versions": {k: trunk.component_versions[k] for k in DEPENDS_ON},
        "trunk_ablation": args.ablation,
        "data": {
            **{name: "training part (not held out)" for name in SETS},
            "trunk_pairs/coco_val": "caption-made yes/no questions (its images are in no VQA set)",
            "fb_sample": "evaluation only, all 10 questions",
        },
        "heldout_split": f"sha1(file_name) mod {HELDOUT_MOD} < {HELDOUT_BELOW} (by image)",
        "train_questions": {"yesno": len(yn), "open": len(op)},
        "yesno_model": strength,
        "yesno_cv_accuracy": round(cv, 4),
        "synthetic_yesno_per_image": args.synthetic,
        "heldout_accuracy": scores,
        "seed": args.seed,
        "seconds": round(time.time() - start, 1),
    }
    if not args.no_save and args.ablation == "none":
        head.save()
        log.info("wrote the VQA head (%s)", ", ".join(f"{k}={v}" for k, v in scores.items()))
    print(" ".join(f"{k}={v:.3f}" for k, v in scores.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
