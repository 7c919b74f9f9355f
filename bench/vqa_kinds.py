"""VQA's scene and kind questions ("What room is this?", "Каким спортом занимаются?", "What is on the
plate?", "Что летит в небе?"...) on photos outside every VQA and zsOD evaluation set, each type beside
its prior, per language.

    python -m bench.vqa_kinds [--data ../shared/data] [--cache /tmp/vqa_cache] [--threads 1]
                              [--per-answer 25] [--write DIR]

**The set** (``kind_questions``): the photos of ``trunk_pairs/coco_val`` (COCO val2014, none of them in
a VQA or zsOD set) and ``trunk_pairs/flickr8k``, with their human English captions. A photo gets a
question of a type when at least ``MIN_CAPTIONS`` of its captions name one answer of that type
(``CAPTION_WORDS``: "kitchen", "a man riding a horse"...) and none names another (what is on the
plate and in the sky: a food or a flying thing, and a caption naming the plate or the sky, ``CONTEXT``):
the gold comes from the people who described the photo, never from the detector. At most ``--per-answer`` photos per
answer and source (chosen by a hash of the file name), so that no answer swamps its type. Each photo is
asked in English and in Russian (one of three wordings, by the same hash); the Russian gold is the
answer's Russian form in the answer vocabulary (``plugins.vqa.answers``), the form the task answers
in, as ``bench.vqa_types`` does with the detector's Russian class names.

**The report**: per type and language, the chain's answer (``typed.CHAIN``: the detector's evidence,
then the head or the prior), the head alone (no evidence), the share the evidence answered and its
accuracy there, and the prior: the best constant answer chosen on the other folds (5 folds by image,
``bench.vqa_types.cross_validate``) and the type's shipped constant (``typed.PRIORS``).
``--write DIR`` writes the set in the challenge layout (``DIR/input/VQA``, ``DIR/true/VQA``), for
``run.py`` and ``score.py``.
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import json
import re
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
SOURCES = ("coco_val", "flickr8k")
MIN_CAPTIONS = 2

# Per type: English answer -> the caption words that name it (regular expressions, on the lowercased
# caption with a space either side). The first answer is the gold; the others also count as right.
CAPTION_WORDS: Mapping[str, Mapping[tuple[str, ...], str]] = {
    "room": {
        ("kitchen",): r" kitchen",
        ("bathroom",): r" (?:bathroom|restroom|rest room)",
        ("bedroom",): r" (?:bedroom|hotel room)",
        ("living room",): r" (?:living room|livingroom|family room)",
        ("office",): r" office ",
    },
    "sport": {
        ("tennis",): r" tennis",
        ("baseball",): r" baseball",
        ("skiing",): r" (?:skiing|skier|skis |ski slope)",
        ("snowboarding",): r" snowboard",
        ("surfing",): r" (?:surfing|surfer|surfboard|surf board)",
        ("skateboarding",): r" skateboard",
        ("frisbee",): r" frisbee",
        ("soccer",): r" soccer",
        ("basketball",): r" basketball",
    },
    "food": {
        ("pizza",): r" pizza",
        ("sandwich",): r" sandwich",
        ("donut", "doughnut"): r" (?:donut|doughnut)",
        ("cake",): r" cake",
        ("hot dog",): r" hot ?dog",
        ("banana",): r" banana",
        ("broccoli",): r" broccoli",
        ("apple",): r" apples? ",
        ("orange",): r" (?:an orange |oranges )",
        ("carrot",): r" carrot",
    },
    "animal": {
        (a,): rf" {a}s? "
        for a in ("dog", "cat", "horse", "sheep", "cow", "elephant", "bear", "zebra", "giraffe", "bird")
    },  # fmt: skip
    "vehicle": {
        ("bus",): r" bus(?:es)? ",
        ("train",): r" trains? ",
        ("truck",): r" trucks? ",
        ("motorcycle",): r" (?:motorcycle|motorbike)",
        ("airplane", "plane", "jet"): r" (?:airplane|plane|jet|airliner)s? ",
        ("boat",): r" (?:boat|ship|sailboat)s? ",
        ("bicycle", "bike"): r" (?:bicycle|bike)s? ",
        ("car",): r" cars? ",
    },
    "riding": {
        ("horse",): r" rid\w* (?:\S+ ){0,3}?horses? ",
        ("bicycle", "bike"): r" rid\w* (?:\S+ ){0,3}?(?:bicycle|bike)s? ",
        ("motorcycle",): r" rid\w* (?:\S+ ){0,3}?(?:motorcycle|motorbike)s? ",
        ("skateboard",): r" rid\w* (?:\S+ ){0,3}?skateboards? ",
        ("surfboard", "wave"): r" rid\w* (?:\S+ ){0,3}?(?:surfboard|surf board|waves?) ",
        ("elephant",): r" rid\w* (?:\S+ ){0,3}?elephants? ",
        ("snowboard",): r" rid\w* (?:\S+ ){0,3}?snowboards? ",
    },
}
FLYING: Mapping[tuple[str, ...], str] = {
    ("kite",): r" kites? ",
    ("airplane", "plane", "jet"): r" (?:airplane|plane|jet|airliner)s? ",
    ("bird",): r" birds? ",
}
# Types asked of a photo whose captions name one answer (by these rules) and, in one caption at least,
# the context: what is on its plate (a food, and a plate), what is in its sky (a kite, a plane or a
# bird, and the sky or flying).
CONTEXT: Mapping[str, tuple[Mapping[tuple[str, ...], str], str]] = {
    "plate": (CAPTION_WORDS["food"], r" plates? "),
    "sky": (FLYING, r" (?:sky|flying|flies|fly|air|soaring|soars|overhead) "),
}

WORDINGS: Mapping[str, Mapping[str, tuple[str, ...]]] = {
    "room": {
        "en": ("What room is this?", "Which room is shown in the picture?", "What room is this photo taken in?"),
        "ru": ("Что это за комната?", "Какая это комната?", "В какой комнате сделано фото?"),
    },
    "sport": {
        "en": ("What sport is being played?", "What sport is this?", "What sport is the person playing?"),
        "ru": ("Каким спортом занимаются?", "Какой это вид спорта?", "Какой спорт на фото?"),
    },
    "food": {
        "en": ("What food is this?", "What kind of food is this?", "What food is shown in the picture?"),
        "ru": ("Что это за еда?", "Какая еда на фото?", "Какую еду видно на фото?"),
    },
    "animal": {
        "en": ("What animal is this?", "What kind of animal is shown?", "What animal is in the picture?"),
        "ru": ("Что это за животное?", "Какое животное на фото?", "Какое животное изображено?"),
    },
    "vehicle": {
        "en": ("What vehicle is this?", "What kind of vehicle is shown?", "What type of vehicle is in the picture?"),
        "ru": ("Что это за транспорт?", "Какое транспортное средство на фото?", "Какой транспорт изображён?"),
    },
    "riding": {
        "en": ("What is the man riding?", "What is the person riding?", "What are they riding?"),
        "ru": ("На чём едет человек?", "На чём катается человек?", "На чём они едут?"),
    },
    "plate": {
        "en": ("What is on the plate?", "What food is on the plate?", "What is on the plates?"),
        "ru": ("Что на тарелке?", "Что лежит на тарелке?", "Какая еда на тарелке?"),
    },
    "sky": {
        "en": ("What is in the sky?", "What is flying in the sky?", "What is in the air?"),
        "ru": ("Что в небе?", "Что летит в небе?", "Что летает в небе?"),
    },
}


def _hash(text: str) -> int:
    return int(hashlib.sha1(text.encode()).hexdigest(), 16)


# The answer vocabulary's blocks whose Russian forms a type's answers take, first match first
# ("orange" is "апельсин" as a food, "оранжевый" as a colour).
CATEGORIES: Mapping[str, tuple[str, ...]] = {
    "room": ("room",), "sport": ("sport",), "food": ("food",), "plate": ("food",), "animal": ("animal",),
    "vehicle": ("vehicle",), "riding": ("animal", "vehicle", "tool"), "sky": ("tool", "vehicle", "animal"),
}  # fmt: skip


def russian(answer: str, categories: Sequence[str]) -> str:
    """The Russian form of English ``answer`` in the answer vocabulary, from the first of ``categories``
    that holds it."""
    from plugins.vqa.answers import vocabulary

    for category in categories:
        for a in vocabulary():
            if a.en == answer and a.category == category and a.ru:
                return a.ru
    raise KeyError(f"no Russian form of {answer!r} in plugins.vqa.answers {categories}")


def caption_gold(captions: Sequence[str], rules: Mapping[tuple[str, ...], str]) -> tuple[str, ...] | None:
    """The answers ``captions`` agree on (at least ``MIN_CAPTIONS`` name it, none names another), or None."""
    texts = [f" {c.lower().strip(' .')} " for c in captions]
    named = {answers: sum(bool(re.search(rule, t)) for t in texts) for answers, rule in rules.items()}
    hits = [answers for answers, n in named.items() if n >= MIN_CAPTIONS]
    if len(hits) != 1 or sum(1 for n in named.values() if n) != 1:
        return None
    return hits[0]


def kind_questions(data: Path, per_answer: int = 25) -> list:  # list[DevQuestion]
    """The scene and kind questions (module doc), English and Russian, gold from the human captions."""
    from plugins.vqa.normalize import normalize_answer
    from plugins.vqa.train.data import DevQuestion

    out = []
    for source in SOURCES:
        root = data / "trunk_pairs" / source
        captions: dict[str, list[str]] = json.loads((root / "captions_en.json").read_text(encoding="utf-8"))
        for kind in (*CAPTION_WORDS, *CONTEXT):
            taken: collections.Counter[str] = collections.Counter()
            rules, context = CONTEXT.get(kind, (CAPTION_WORDS.get(kind, {}), ""))
            for image in sorted(captions, key=lambda name: _hash(f"{kind}/{name}")):
                gold = caption_gold(captions[image], rules)
                if gold is None or taken[gold[0]] >= per_answer:
                    continue
                if context and not any(re.search(context, f" {c.lower().strip(' .')} ") for c in captions[image]):
                    continue
                taken[gold[0]] += 1
                k = _hash(f"{kind}/{image}/wording") % 3
                for lang in ("en", "ru"):
                    answers = gold if lang == "en" else tuple(dict.fromkeys(russian(a, CATEGORIES[kind]) for a in gold))
                    out.append(
                        DevQuestion(
                            f"{kind}-{lang}-{source}-{Path(image).stem}",
                            root / "images" / image,
                            WORDINGS[kind][lang][k],
                            tuple(normalize_answer(a, lang) for a in answers),
                            lang,
                        )
                    )
    return out


def write_set(qs: Sequence[Any], dst: Path) -> None:
    """``qs`` in the challenge layout under ``dst`` (images copied)."""
    images = dst / "input" / "VQA" / "images"
    images.mkdir(parents=True, exist_ok=True)
    (dst / "true" / "VQA").mkdir(parents=True, exist_ok=True)
    for q in qs:
        if not (images / q.image.name).exists():
            shutil.copy(q.image, images / q.image.name)
    questions = {q.qid: {"file_name": q.image.name, "question": q.question} for q in qs}
    gold = {q.qid: {"answer": list(q.answers), "lang": q.lang} for q in qs}
    (dst / "input" / "VQA" / "questions.json").write_text(json.dumps(questions, ensure_ascii=False), encoding="utf-8")
    (dst / "true" / "VQA" / "true_VQA.json").write_text(json.dumps(gold, ensure_ascii=False), encoding="utf-8")


def kind_of(qid: str) -> str:
    return qid.split("-", 1)[0]


def report(qs: Sequence[Any], parsed: Sequence[Any], answers: Sequence[str], head: Sequence[str],
           sources: Sequence[str]) -> dict[tuple[str, str], dict[str, float]]:  # fmt: skip
    """Accuracy per type and language: the chain, the head alone, the evidence, the priors."""
    from bench.vqa_types import cv_constant, score
    from plugins.vqa.typed import PRIORS

    groups: dict[tuple[str, str], list[int]] = collections.defaultdict(list)
    for i, q in enumerate(qs):
        groups[(kind_of(q.qid), q.lang)].append(i)
    print(f"{'type':<9}{'lang':<5}{'n':>5}{'parsed as':>14}{'ours':>7}{'head':>7}{'evid.':>7}{'evid. acc':>10}"
          f"{'prior CV':>9}{'PRIORS':>8}")  # fmt: skip
    table = {}
    for (kind, lang), idx in sorted(groups.items()):
        sub = [qs[i] for i in idx]
        types = collections.Counter(parsed[i].qtype.value for i in idx).most_common(1)[0]
        ev = [i for i in idx if sources[i] == "evidence"]
        ev_acc = score([answers[i] for i in ev], [qs[i] for i in ev]) if ev else float("nan")
        shipped = PRIORS.get((parsed[idx[0]].qtype, lang))
        fixed = score([shipped] * len(idx), sub) if shipped is not None else float("nan")
        row = {
            "n": len(idx),
            "ours": score([answers[i] for i in idx], sub),
            "head": score([head[i] for i in idx], sub),
            "evidence share": len(ev) / len(idx),
            "prior": cv_constant(sub),
        }
        table[(kind, lang)] = row
        print(
            f"{kind:<9}{lang:<5}{len(idx):>5}{types[0]:>10} {types[1] / len(idx):>3.0%}{row['ours']:>7.3f}"
            f"{row['head']:>7.3f}{row['evidence share']:>7.2f}{ev_acc:>10.3f}{row['prior']:>9.3f}{fixed:>8.3f}"
        )
    for lang in ("en", "ru"):
        idx = [i for i, q in enumerate(qs) if q.lang == lang]
        sub = [qs[i] for i in idx]
        print(f"{'all':<9}{lang:<5}{len(idx):>5}{'':>14}{score([answers[i] for i in idx], sub):>7.3f}"
              f"{score([head[i] for i in idx], sub):>7.3f}")  # fmt: skip
    print(f"{'all':<14}{len(qs):>5}{'':>14}{score(answers, qs):>7.3f}{score(head, qs):>7.3f}")
    return table


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    parser.add_argument("--cache", type=Path, default=Path("/tmp/vqa_cache"))
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--per-answer", type=int, default=25, help="at most this many photos per answer and source")
    parser.add_argument("--write", type=Path, default=None, help="write the set in the challenge layout and stop")
    args = parser.parse_args()
    qs = kind_questions(args.data, args.per_answer)
    counts = collections.Counter((kind_of(q.qid), q.lang) for q in qs)
    per_type = ", ".join(f"{k} {n}" for (k, lang), n in sorted(counts.items()) if lang == "en")
    print(f"built: {len(qs)} questions on {len({q.image for q in qs})} photos; {per_type} per language")
    if args.write is not None:
        write_set(qs, args.write)
        return 0
    import torch

    torch.set_num_threads(args.threads)
    import registry
    from core.trunk import TrunkConfig, load_trunk
    from plugins.vqa.answerer import make_answerer
    from plugins.vqa.head import load_head
    from plugins.vqa.train.detect import DetectionCache
    from plugins.vqa.train.fit import EmbeddingCache, embed_questions

    trunk = load_trunk(TrunkConfig(), registry.load())
    detections = DetectionCache(args.cache, progress=False)
    cache = EmbeddingCache(trunk, args.cache, detections=detections, progress=False)
    answerer = make_answerer(load_head(trunk), cache.text)
    parsed, items = embed_questions(cache, qs)
    answers, sources = answerer.answer_sourced(parsed, items)
    report(qs, parsed, answers, answerer.head_answers(parsed, items), sources)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
