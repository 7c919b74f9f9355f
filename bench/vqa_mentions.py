"""Yes/no questions that name a COCO object: does the detector's word on the named objects help?

    python -m bench.vqa_mentions [--data ../shared/data] [--cache /tmp/vqa_cache] [--threads 1]

The objects a yes/no question names ("Are these men wearing ties?" -> men, ties) are its noun phrases
(``core.detector.phrases.noun_phrases``), each mapped to a detector class through the trunk's text tower
as the typed answers map their subject (``phrase_queries``, ``class_match``, ``typed.TypedRule.mapping``).
Per question, ``MENTION_FEATURES``: whether it names an object (not a person), the lowest and the highest
best-box score among the named objects, whether the lowest is below 0.1 / 0.2, whether it names a person
and that class's best score. Detections at ``evidence.DETECTOR_SIZE``, as the head's evidence.

On the yes/no training questions the head is fitted on (``vqa_yesno_dev``'s training part and
``vqa_yesno_train``, held-out images left out, as ``plugins.vqa.train.fit``), it prints:

* the gold "yes" share and the shipped head's accuracy by the lowest named-object score (in-sample for the
  head, which was fitted on these questions), then the same on the held-out questions;
* 5-fold cross-validation (folds by image, ``fit.group_fold``) and held-out accuracy of the head's yes/no
  logistic model ("all" features, penalty 1, ``fit.fit_logistic``) refitted without and with the mention
  features, for a few mapping rules;
* a rule on top of the head instead: a logistic model over the head's out-of-fold logit and the mention
  features (a calibrated "named object absent -> no"), cross-validated and held out.

The held-out part is ``vqa_yesno_dev``'s (282 questions, English; there is no Russian yes/no set).
"""

from __future__ import annotations

import argparse
import collections
from pathlib import Path
from typing import Any

import registry

REPO = Path(__file__).resolve().parents[1]
MENTION_FEATURES = ("object named", "lowest object score", "highest object score", "lowest < 0.1",
                    "lowest < 0.2", "person named", "person score")  # fmt: skip
RULES = ((0.4, 0.02), (0.5, 0.02), (0.45, 0.05))  # (min_cos, min_margin) of the mapping tried


def mentions(texts: list[str], cache: Any, class_prompts: Any) -> list[list[tuple[int, float, float]]]:
    """Per question: (class, cosine, margin) of each noun phrase, by the text tower."""
    from core.detector.phrases import class_match, noun_phrases, phrase_queries

    phrases = [noun_phrases(t) for t in texts]
    queries = sorted({q for ps in phrases for p in ps for q in phrase_queries(p)[0]})
    emb = cache.text(queries)
    row = {q: i for i, q in enumerate(queries)}
    out = []
    for ps in phrases:
        found = []
        for p in ps:
            qs, together = phrase_queries(p)
            m = class_match([emb[[row[q] for q in qs]]], [together], class_prompts)[0]
            found.append((m.label, m.cos, m.margin))
        out.append(found)
    return out


def features(named: list[tuple[int, float, float]], best: Any, person: int, rule: tuple[float, float]) -> list[float]:
    """``MENTION_FEATURES`` of one question (``best``: ``[C]`` the image's best score per class)."""
    ok = [label for label, cos, margin in named if label >= 0 and cos >= rule[0] and margin >= rule[1]]
    objects = [float(best[c]) for c in ok if c != person]
    people = [float(best[c]) for c in ok if c == person]
    lo, hi = (min(objects), max(objects)) if objects else (0.0, 0.0)
    on = float(bool(objects))
    return [on, lo, hi, on * (lo < 0.1), on * (lo < 0.2), float(bool(people)), max(people, default=0.0)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    parser.add_argument("--cache", type=Path, default=Path("/tmp/vqa_cache"))
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    import torch

    torch.set_num_threads(args.threads)
    from core.detector import coco_classes
    from core.trunk import TrunkConfig, load_trunk
    from plugins.vqa.answerer import make_answerer
    from plugins.vqa.head import load_head
    from plugins.vqa.train import fit
    from plugins.vqa.train.data import is_heldout, load_dev_set
    from plugins.vqa.train.detect import DetectionCache

    trunk = load_trunk(TrunkConfig(), registry.load())
    cache = fit.EmbeddingCache(trunk, args.cache, detections=DetectionCache(args.cache, progress=False), progress=False)
    answerer = make_answerer(load_head(trunk), cache.text)
    person = coco_classes().en.index("person")
    dev = load_dev_set(args.data / "vqa_yesno_dev")
    held = [q for q in dev if is_heldout(q.image.name)]
    held_images = {q.image.name for q in held}
    train = [q for q in dev if not is_heldout(q.image.name)]
    train += [q for q in load_dev_set(args.data / "vqa_yesno_train") if q.image.name not in held_images]

    def build(qs: list) -> dict[str, Any]:
        parsed, items = fit.embed_questions(cache, qs)
        keep = [i for i, p in enumerate(parsed) if p.qtype.yesno and qs[i].answers[0] in ("yes", "no")]
        items = [items[i] for i in keep]
        best = torch.zeros(len(keep), len(coco_classes().en))
        for j, item in enumerate(items):
            d = item.detections
            for label, score in zip(d.labels.tolist(), d.scores.tolist(), strict=True):
                best[j, label] = max(float(best[j, label]), score)
        return {
            "x": answerer.yesno_inputs(items, ["en"] * len(keep)),
            "y": torch.tensor([float(qs[i].answers[0] == "yes") for i in keep]),
            "groups": [qs[i].image.name for i in keep],
            "named": mentions([qs[i].question for i in keep], cache, answerer.class_prompts),
            "best": best,
            "head": answerer.yesno_logits(items, ["en"] * len(keep)) > 0,
        }

    tr, ho = build(train), build(held)
    dim = trunk.embed_dim
    keep = fit.yesno_groups(dim)["all"]
    l2 = fit.yesno_penalty(dim, 1.0)
    folds = torch.tensor([fit.group_fold(g) for g in tr["groups"]])
    print(f"yes/no questions: {len(tr['y'])} training (CV), {len(ho['y'])} held out; mapping rules {RULES}")

    print("\nBy the lowest best-box score of the named objects (rule 0.4/0.02): n, gold 'yes', shipped head")
    for name, part in (("training (head in-sample)", tr), ("held-out", ho)):
        bins: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0, 0])
        for named, best, y, h in zip(part["named"], part["best"], part["y"], part["head"], strict=True):
            f = features(named, best, person, RULES[0])
            key = "names no object" if not f[0] else f"lowest < {min(0.3, (int(f[1] * 10) + 1) / 10):.1f}"
            key = "lowest >= 0.3" if f[0] and f[1] >= 0.3 else key
            bins[key][0] += 1
            bins[key][1] += int(y)
            bins[key][2] += int(bool(h) == bool(y))
        for key, (n, yes, right) in sorted(bins.items()):
            print(f"  {name:<26}{key:<17}{n:>6}{yes / n:>8.3f}{right / n:>8.3f}")

    def logistic(x: Any, xh: Any, penalty: Any) -> tuple[float, float, Any, Any]:
        hits, oof = 0, torch.zeros(len(tr["y"]))
        for k in range(fit.FOLDS):
            t = folds != k
            w, b = fit.fit_logistic(x[t], tr["y"][t], penalty)
            oof[~t] = x[~t] @ w + b
            hits += int(((oof[~t] > 0).float() == tr["y"][~t]).sum())
        w, b = fit.fit_logistic(x, tr["y"], penalty)
        logit = xh @ w + b
        return hits / len(tr["y"]), float(((logit > 0).float() == ho["y"]).float().mean()), oof, logit

    print("\nThe head's yes/no logistic model ('all', penalty 1) refitted:  CV  held-out")
    base_cv, base_ho, oof, logit = logistic(tr["x"] * keep, ho["x"] * keep, l2)
    print(f"  {'without mention features':<48}{base_cv:.4f}  {base_ho:.4f}")
    for rule in RULES:
        ftr = torch.tensor([features(n, b, person, rule) for n, b in zip(tr["named"], tr["best"], strict=True)])
        fho = torch.tensor([features(n, b, person, rule) for n, b in zip(ho["named"], ho["best"], strict=True)])
        penalty = torch.cat([l2, torch.full((ftr.shape[1],), 1e-4)])
        cv, acc, _, _ = logistic(torch.cat([tr["x"] * keep, ftr], 1), torch.cat([ho["x"] * keep, fho], 1), penalty)
        print(f"  {f'with mention features, mapping {rule}':<48}{cv:.4f}  {acc:.4f}")
        # The rule on top of the head: its out-of-fold logit and the mention features.
        z, zh = torch.cat([oof[:, None], ftr], 1), torch.cat([logit[:, None], fho], 1)
        hits = 0
        for k in range(fit.FOLDS):
            t = folds != k
            w, b = fit.fit_logistic(z[t], tr["y"][t], torch.full((z.shape[1],), 1e-3))
            hits += int((((z[~t] @ w + b) > 0).float() == tr["y"][~t]).sum())
        w, b = fit.fit_logistic(z, tr["y"], torch.full((z.shape[1],), 1e-3))
        right = ((zh @ w + b) > 0).float() == ho["y"]
        named = fho[:, 0] > 0
        base_right = (logit > 0).float() == ho["y"]
        on_named = f"{float(right[named].float().mean()):.3f} vs {float(base_right[named].float().mean()):.3f}"
        print(f"  {f'rule over the head logit, mapping {rule}':<48}{hits / len(tr['y']):.4f}  "
              f"{float(right.float().mean()):.4f}   (the {int(named.sum())} held-out questions naming an object: "
              f"{on_named})")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
