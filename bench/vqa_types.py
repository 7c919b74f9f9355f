"""VQA by question type: count and presence questions built from COCO boxes, thresholds chosen by
cross-validation, and every dev set's accuracy per type and language beside the type's prior.

    python -m bench.vqa_types [--data ../shared/data] [--cache /tmp/vqa_cache] [--threads 1]
                              [--detector-size 256] [--count-detector-size 320] [--count-sizes 256,320,416]

**Built sets** (``object_questions``): for every image of ``zsod_coco_dev`` (63 COCO photos, full
size, gold boxes per class, crowd boxes left out) and every class its gold lists, in English and in
Russian:

* count: "How many dogs are there?" / "Сколько собак на фото?" (three wordings each) for the
  classes with boxes, gold = the number of boxes;
* presence: "Is there a dog in the picture?" / "Есть ли на фото собака?" for every listed class,
  "yes" where it has boxes, "no" where the gold lists it without any (absent classes, half of
  them from the same COCO supercategory as a present one).

The images are split into ``FOLDS`` folds by a hash of the file name; each fold's questions are
answered with the threshold that scores best on the other folds (``cross_validate``), so every
figure is held out by image, and each language is scored on its own. NanoDet was trained on COCO
train2017, which these photos come from: the detector's figures here flatter it against new photos.

The per-type report answers every dev set with the shipped answerer (``plugins.vqa.typed``), and
beside it: the head alone (no answer by type), and the type's prior (``typed.PRIORS``, the best
constant per type and language; on the built sets the constant chosen on the other folds).
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import hashlib
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import registry
from core.morph import first_parse

REPO = Path(__file__).resolve().parents[1]
FOLDS = 5
EN_WORDINGS = ("How many {} are there?", "How many {} are in the picture?", "How many {} can you see?")
RU_WORDINGS = ("Сколько {} на фото?", "Сколько здесь {}?", "Сколько {} на картинке?")
EN_PRESENCE = "Is there a {} in the picture?"
RU_PRESENCE = "Есть ли на фото {}?"
_EN_PLURAL = {
    "person": "people", "mouse": "mice", "sheep": "sheep", "skis": "pairs of skis", "scissors": "pairs of scissors",
    "knife": "knives", "broccoli": "pieces of broccoli", "hair drier": "hair driers",
}  # fmt: skip


def fold_of(image: str) -> int:
    """The image's cross-validation fold (a stable hash of its file name)."""
    return int(hashlib.sha1(Path(image).name.encode()).hexdigest(), 16) % FOLDS


def en_plural(name: str) -> str:
    if name in _EN_PLURAL:
        return _EN_PLURAL[name]
    if name.endswith(("s", "sh", "ch", "x")):
        return name + "es"
    if name.endswith("y") and name[-2] not in "aeiou":
        return name[:-1] + "ies"
    return name + "s"


def ru_genitive_plural(name: str) -> str:
    """ "обеденный стол" -> "обеденных столов": the words up to the first noun in the genitive plural."""
    out, done = [], False
    for word in name.split():
        if done:
            out.append(word)
            continue
        parse = first_parse(word)
        form = parse.inflect({"gent", "plur"})
        out.append(form.word if form is not None else word)
        done = parse.tag.POS == "NOUN"
    return " ".join(out)


def object_questions(data: Path) -> list:  # list[DevQuestion]
    """Count and presence questions, English and Russian, from zsod_coco_dev's gold boxes."""
    from core.detector import coco_classes
    from plugins.vqa.train.data import DevQuestion

    root = data / "zsod_coco_dev"
    gold = json.loads((root / "true" / "zsOD" / "true_zsOD.json").read_text(encoding="utf-8"))
    classes = coco_classes()
    by_name = {n: i for i, n in enumerate(classes.en)} | {n: i for i, n in enumerate(classes.ru)}
    out = []
    for image, phrases in sorted(gold.items()):
        path = root / "input" / "zsOD" / "images" / image
        for phrase, boxes in sorted(phrases.items()):
            label = by_name.get(phrase)
            if label is None:
                continue
            en, ru = classes.en[label], classes.ru[label]
            n = len(boxes)
            stem = f"{Path(image).stem}-{label}"
            if n:
                k = (int(hashlib.sha1(stem.encode()).hexdigest(), 16) >> 4) % len(EN_WORDINGS)
                count_en = EN_WORDINGS[k].format(en_plural(en))
                count_ru = RU_WORDINGS[k].format(ru_genitive_plural(ru))
                out.append(DevQuestion(f"count-en-{stem}", path, count_en, (str(n),), "en"))
                out.append(DevQuestion(f"count-ru-{stem}", path, count_ru, (str(n),), "ru"))
            article = "an" if en[0] in "aeiou" else "a"
            out.append(
                DevQuestion(f"presence-en-{stem}", path, EN_PRESENCE.format(en).replace(" a ", f" {article} ", 1),
                            ("yes" if n else "no",), "en")
            )  # fmt: skip
            out.append(DevQuestion(f"presence-ru-{stem}", path, RU_PRESENCE.format(ru), ("да" if n else "нет",), "ru"))
    return out


def matches(answerer: Any, items: Sequence[Any]) -> list:  # list[ClassMatch]
    """Each question's asked class by the text tower (as ``Answerer.answer_sourced`` maps it)."""
    from core.detector.phrases import ClassMatch, class_match

    out = []
    for item in items:
        if item.queries is None or not len(item.queries):
            out.append(ClassMatch(-1, -1.0, 0.0))
        else:
            out.append(class_match([item.queries], [item.together], answerer.class_prompts)[0])
    return out


def cross_validate(
    qs: Sequence[Any], values: Sequence[float], answer: Callable[[int, float], str]
) -> tuple[float, list[float]]:
    """Held-out accuracy when each fold takes the value (of ``values``) that scores best on the other
    folds, and the value each fold took. ``answer(i, value)``: question ``i``'s answer."""
    from plugins.vqa.normalize import normalize_answer

    hit = [[normalize_answer(answer(i, v), q.lang) in q.answers for v in values] for i, q in enumerate(qs)]
    folds = [fold_of(q.image.name) for q in qs]
    total, chosen = 0, []
    for k in range(FOLDS):
        train = [i for i, f in enumerate(folds) if f != k]
        test = [i for i, f in enumerate(folds) if f == k]
        if not test:
            continue
        scores = [sum(hit[i][j] for i in train) for j in range(len(values))]
        best = max(range(len(values)), key=lambda j: (scores[j], -abs(j - len(values) // 2)))
        chosen.append(values[best])
        total += sum(hit[i][best] for i in test)
    return total / max(1, len(qs)), chosen


def cv_constant(qs: Sequence[Any]) -> float:
    """Held-out accuracy of the best constant answer chosen on the other folds."""
    answers = sorted({a for q in qs for a in q.answers})
    if not answers:
        return 0.0
    return cross_validate(qs, list(range(len(answers))), lambda i, j: answers[int(j)])[0]


def oracle_constant(qs: Sequence[Any]) -> tuple[float, str]:
    counts = collections.Counter(a for q in qs for a in set(q.answers))
    if not counts:
        return 0.0, ""
    answer, n = counts.most_common(1)[0]
    return n / len(qs), answer


def score(answers: Sequence[str], qs: Sequence[Any]) -> float:
    from plugins.vqa.normalize import normalize_answer

    return sum(normalize_answer(a, q.lang) in q.answers for a, q in zip(answers, qs, strict=True)) / max(1, len(qs))


def threshold_report(answerer: Any, qs: Sequence[Any], parsed: Sequence[Any], items: Sequence[Any]) -> None:
    """Count and presence thresholds chosen by cross-validation, per language, beside the prior and the head."""
    from plugins.vqa.question import QType
    from plugins.vqa.typed import count_answer, presence_answer

    rule = answerer.rule
    found = matches(answerer, items)
    head = answerer.head_answers(list(parsed), list(items))
    grid = [round(0.05 + 0.05 * k, 2) for k in range(14)]
    print(f"{'type':<10}{'lang':<5}{'n':>5}{'mapped':>8}  {'CV ours':>8}{'thresholds (per fold)':>34}"
          f"{'CV prior':>9}{'head':>7}")  # fmt: skip
    for qtype, field in ((QType.COUNT, "count_score"), (QType.PRESENCE, "presence_score")):
        for lang in ("en", "ru"):
            idx = [i for i, (p, q) in enumerate(zip(parsed, qs, strict=True)) if p.qtype is qtype and q.lang == lang]
            if not idx:
                continue
            sub = [qs[i] for i in idx]

            def answer(j: int, t: float, idx: list[int] = idx, field: str = field, qtype: QType = qtype) -> str:
                i = idx[j]
                r = dataclasses.replace(rule, **{field: t})
                if qtype is QType.COUNT:
                    a = count_answer(items[i].detections, found[i], r)
                else:
                    a = presence_answer(items[i].detections, found[i], r, qs[i].lang)
                return head[i] if a is None else a

            cv, chosen = cross_validate(sub, grid, answer)
            mapped = sum(found[i].accepted(rule.mapping) for i in idx) / len(idx)
            print(
                f"{qtype.value:<10}{lang:<5}{len(idx):>5}{mapped:>8.2f}  {cv:>8.3f}{str(chosen):>34}"
                f"{cv_constant(sub):>9.3f}{score([head[i] for i in idx], sub):>7.3f}"
            )


def count_size_report(answerer: Any, qs: Sequence[Any], parsed: Sequence[Any], items: Sequence[Any],
                      detections: Any, sizes: Sequence[int]) -> None:  # fmt: skip
    """The count questions answered at each detector input size and threshold, and the pair chosen on
    the other folds (``cross_validate`` over the joint grid), per language."""
    from plugins.vqa.question import QType
    from plugins.vqa.typed import count_answer

    rule = answerer.rule
    found = matches(answerer, items)
    idx = [i for i, p in enumerate(parsed) if p.qtype is QType.COUNT]
    at = {size: dict(zip(idx, detections.get([qs[i].image for i in idx], size), strict=True)) for size in sizes}
    thresholds = [0.25, 0.3, 0.35, 0.4, 0.45, 0.5]
    grid = [(size, t) for size in sizes for t in thresholds]

    def answer(i: int, size: int, t: float) -> str:
        a = count_answer(at[size][i], found[i], dataclasses.replace(rule, count_score=t))
        return "1" if a is None else a  # unmapped subjects: the count prior

    print(f"count questions by detector input size and threshold (in-sample), then both chosen by {FOLDS}-fold CV:")
    print(f"{'lang':<5}{'size':>5}  " + "".join(f"{t:>7}" for t in thresholds))
    for lang in ("en", "ru"):
        own = [i for i in idx if qs[i].lang == lang]
        sub = [qs[i] for i in own]
        for size in sizes:
            cells = [score([answer(i, size, t) for i in own], sub) for t in thresholds]
            print(f"{lang:<5}{size:>5}  " + "".join(f"{c:>7.3f}" for c in cells))
        cv, chosen = cross_validate(sub, list(range(len(grid))), lambda j, g, own=own: answer(own[j], *grid[int(g)]))
        print(f"{lang:<5}joint CV {cv:.3f}, (size, threshold) per fold: {[grid[int(g)] for g in chosen]}")


def type_report(name: str, qs: Sequence[Any], parsed: Sequence[Any], answers: Sequence[str],
                head: Sequence[str], sources: Sequence[str], cv_prior: bool) -> None:  # fmt: skip
    """Accuracy per question type and language: ours, the head alone, the type's prior, the oracle constant."""
    from plugins.vqa.typed import PRIORS

    groups: dict[tuple[str, str], list[int]] = collections.defaultdict(list)
    for i, (p, q) in enumerate(zip(parsed, qs, strict=True)):
        groups[(p.qtype.report, q.lang)].append(i)
    for (kind, lang), idx in sorted(groups.items()):
        sub = [qs[i] for i in idx]
        qtype = parsed[idx[0]].qtype
        prior_answer = PRIORS.get((qtype, lang))
        prior = score([prior_answer] * len(idx), sub) if prior_answer is not None else float("nan")
        if cv_prior:
            prior = cv_constant(sub)
        oracle, best = oracle_constant(sub)
        share = sum(sources[i] == "evidence" for i in idx) / len(idx)
        print(
            f"{name:<22}{kind:<10}{lang:<4}{len(idx):>5}{score([answers[i] for i in idx], sub):>7.3f}"
            f"{score([head[i] for i in idx], sub):>7.3f}{prior:>7.3f}{oracle:>8.3f} {best!r:<12}{share:>6.2f}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    parser.add_argument("--cache", type=Path, default=Path("/tmp/vqa_cache"))
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--detector-size", type=int, default=None, help="default: the task's (evidence.DETECTOR_SIZE)")
    parser.add_argument(
        "--count-detector-size",
        type=int,
        default=None,
        help="counting questions' detector size (default: evidence.COUNT_DETECTOR_SIZE)",
    )
    parser.add_argument("--count-sizes", default="", help="e.g. 256,288,320,352,416: choose the counting "
                        "questions' detector size and threshold together by cross-validation")  # fmt: skip
    parser.add_argument("--ablation", default="none", choices=["none", "random"])
    parser.add_argument("--no-dev-sets", action="store_true", help="only the built count and presence sets")
    args = parser.parse_args()
    import torch

    torch.set_num_threads(args.threads)
    from core.trunk import TrunkConfig, load_trunk
    from plugins.vqa.answerer import make_answerer
    from plugins.vqa.evidence import COUNT_DETECTOR_SIZE, DETECTOR_SIZE
    from plugins.vqa.head import load_head
    from plugins.vqa.train.data import is_heldout, load_dev_set
    from plugins.vqa.train.detect import DetectionCache
    from plugins.vqa.train.fit import EmbeddingCache, embed_questions

    size = args.detector_size or DETECTOR_SIZE
    count_size = args.count_detector_size or COUNT_DETECTOR_SIZE
    trunk = load_trunk(TrunkConfig(ablation=args.ablation), registry.load())
    detections = DetectionCache(args.cache, input_size=size, count_size=count_size, progress=False)
    cache = EmbeddingCache(trunk, args.cache, detections=detections, progress=False)
    answerer = make_answerer(load_head(trunk), cache.text)
    built = object_questions(args.data)
    parsed, items = embed_questions(cache, built)
    print(f"built from zsod_coco_dev: {len(built)} questions on {len({q.image for q in built})} images; "
          f"detector input {size} (counts {count_size}); trunk ablation {args.ablation}; "
          f"{FOLDS} folds by image")  # fmt: skip
    threshold_report(answerer, built, parsed, items)
    if args.count_sizes:
        count_size_report(answerer, built, parsed, items, detections, [int(v) for v in args.count_sizes.split(",")])
    sets = {"built (CV)": built}
    if not args.no_dev_sets:
        for name in ("vqa_yesno_dev", "vqa_okvqa_dev", "fb_sample"):
            qs = load_dev_set(args.data / name)
            sets[name if name == "fb_sample" else f"{name[4:]} held"] = (
                qs if name == "fb_sample" else [q for q in qs if is_heldout(q.image.name)]
            )
    print()
    print(f"{'set':<22}{'type':<10}{'lang':<4}{'n':>5}{'ours':>7}{'head':>7}{'prior':>7}{'oracle':>8} "
          f"{'(answer)':<12}{'evid.':>6}")  # fmt: skip
    for name, qs in sets.items():
        p, it = (parsed, items) if qs is built else embed_questions(cache, qs)
        answers, sources = answerer.answer_sourced(p, it)
        head = answerer.head_answers(p, it)
        type_report(name, qs, p, answers, head, sources, cv_prior=qs is built)
        print(f"{name:<22}{'all':<14}{len(qs):>5}{score(answers, qs):>7.3f}{score(head, qs):>7.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
