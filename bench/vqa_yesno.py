"""VQA yes/no: which signal carries the answer? Every approach scored on the held-out questions.

    python -m bench.vqa_yesno [--data ../shared/data] [--cache /tmp/vqa_cache]

``vqa_yesno_dev`` (1,000 VQA v2 questions, English) is split as the head's
training splits it (``plugins.vqa.train.data.is_heldout``: 30 % of the images held
out). Each approach is fitted on the training part only and scored on the
held-out part (282 questions):

* always "no" / always "yes": the answer prior;
* zero-shot: "yes" when the question's subject phrase fits the image better
  than the answer vocabulary does (z-score above a threshold; the weight-free
  rule ``head.untrained_head`` uses), thresholds 0-2;
* language prior: logistic regression on the question embedding alone, and
  on surface cues (first word, first two words, "there"/"any"/"not"/...);
* image evidence: logistic regression on the head's 6 trunk-evidence scalars;
* the shipped head (``plugins/vqa/weights``), as trained by
  ``python -m plugins.vqa.train`` (which also uses caption-made questions).
"""

from __future__ import annotations

import argparse
import collections
import re
from pathlib import Path

import registry

REPO = Path(__file__).resolve().parents[1]

SURFACE_WORDS = frozenset(
    ("there", "any", "not", "this", "these", "he", "she", "man", "woman", "people", "person", "it", "they", "all")
    + ("other", "on", "in", "wearing", "holding")
)


def surface_features(questions: list[str], min_count: int = 8):  # noqa: ANN201 - torch.Tensor
    """One-hot first word, first two words and cue words that occur >= ``min_count`` times."""
    import torch

    toks = [re.findall(r"[a-z']+", q.lower()) for q in questions]
    counts: collections.Counter[str] = collections.Counter()
    rows = []
    for t in toks:
        keys = {"w1=" + t[0], "w12=" + " ".join(t[:2])} if t else set()
        keys |= {"has=" + w for w in set(t) & SURFACE_WORDS}
        counts.update(keys)
        rows.append(keys)
    vocab = sorted(k for k, n in counts.items() if n >= min_count)
    return torch.tensor([[1.0 if k in keys else 0.0 for k in vocab] for keys in rows])


def main() -> int:
    import torch

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    parser.add_argument("--cache", type=Path, default=Path("/tmp/vqa_cache"))
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)

    from core.trunk import TrunkConfig, load_trunk
    from plugins.vqa.answerer import Answerer, build_candidates, candidate_texts
    from plugins.vqa.head import load_head, yesno_features
    from plugins.vqa.train.data import is_heldout, load_dev_set
    from plugins.vqa.train.fit import EmbeddingCache, embed_questions, fit_logistic

    trunk = load_trunk(TrunkConfig(), registry.load())
    cache = EmbeddingCache(trunk, args.cache)
    qs = load_dev_set(args.data / "vqa_yesno_dev")
    parsed, items = embed_questions(cache, qs)
    head = load_head(trunk)
    candidates = build_candidates(head)
    en, ru = candidate_texts(candidates)
    cache.save()

    y = torch.tensor([1.0 if q.answers[0] == "yes" else 0.0 for q in qs])
    held = torch.tensor([is_heldout(q.image.name) for q in qs])
    train = ~held
    images = torch.stack([e.image for e in items])
    questions = torch.stack([e.question for e in items])
    subjects = torch.stack([e.subject for e in items])
    feats = yesno_features(images, questions, subjects, head.mean_image, cache.text(en))

    def acc(pred: torch.Tensor) -> float:
        return float((pred[held].float() == y[held]).float().mean())

    def logistic(x: torch.Tensor, l2: float) -> float:
        w, b = fit_logistic(x[train], y[train], torch.full((x.shape[1],), l2))
        return acc((x @ w + b) > 0)

    print(f"held-out questions: {int(held.sum())} (training part: {int(train.sum())})")
    rows = [("always no", acc(torch.zeros_like(y))), ("always yes", acc(torch.ones_like(y)))]
    rows += [(f"zero-shot subject z-score > {t:g}", acc(feats[:, 2] > t)) for t in (0.0, 0.5, 1.0, 2.0)]
    for l2 in (1e-3, 1e-2, 1e-1):
        rows.append((f"language prior: question embedding, L2 {l2:g}", logistic(questions * 10, l2)))
    surface = surface_features([q.question for q in qs])
    for l2 in (1e-3, 1e-1):
        rows.append((f"language prior: {surface.shape[1]} surface cues, L2 {l2:g}", logistic(surface, l2)))
    for l2 in (1e-3, 1e-2):
        rows.append((f"image evidence: 6 trunk scalars, L2 {l2:g}", logistic(feats[:, :6], l2)))
    answerer = Answerer(head, candidates, cache.text(en), cache.text(ru))
    rows.append(("shipped head (python -m plugins.vqa.train)", acc(answerer.yesno_logits(items) > 0)))
    for name, value in rows:
        print(f"  {name:<52} {value:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
