"""Answers by question type, each from its best evidence: the shared detector's boxes.

The question's type (``question.TYPE_RULES``) says what evidence answers it:

* **count** ("How many dogs?", "Сколько людей?"): the detector's count of the asked class, the
  boxes scoring at least ``TypedRule.count_score``; at least ``count_floor`` (1) because a
  counting question presupposes its object;
* **presence** ("Is there a bus?", "Есть ли на фото собака?"): "yes" when the asked class's best
  box scores at least ``presence_score``;
* **colour** ("Какого цвета автобус?"): the colour covering most of the middle of the asked
  object's best box (``evidence.colour_shares``), named in the question's language;
* **where** ("Где находится вилка?"): the detected object that supports or holds the asked one
  (``SUPPORTS``: its box holds the bottom of the asked object's box), named in the question's
  language ("стол" for the dining table);
* **which** ("Какой инструмент используется для резки?"): the detected classes are the
  candidates, chosen by the question's fit to each class through the trunk's text tower.
* **room, sport, food, animal, vehicle, riding, on** ("What room is this?", "Каким спортом
  занимаются?", "What is on the plate?"): the answers of the kind (``KINDS``) get the votes of the
  detected classes that say them (an oven says kitchen, a racket tennis) plus the image's fit to each
  answer through the trunk (``kind_answer``); a kind is never answered with another kind's answer.

The asked object (``ParsedQuestion.subject``) is mapped to one of the detector's classes by
``core.detector.phrases``, the same text-tower mapping phrase grounding uses: a subject that
names no class clearly (``TypedRule.mapping``) has no evidence, and the evidence passes.

``CHAIN`` is the answer chain, written once: per question type, the links that may answer
(``TypedEvidence``, the learned head, the type's constant prior ``PRIORS``: the best constant answer
per type and language on the dev data, ``python -m bench.vqa_types``), always in ``LINK_ORDER``;
the first that answers wins. ``answerer.Answerer.answer_sourced`` runs it.

Pure functions of tensors and arrays, shared by the task and the benches.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from core.detector.phrases import ClassMatch, MappingRule
from plugins.vqa.evidence import COLOURS, colour_shares
from plugins.vqa.normalize import normalize_answer
from plugins.vqa.question import ParsedQuestion, QType

if TYPE_CHECKING:
    import numpy as np
    import torch


@dataclass(frozen=True, slots=True)
class TypedRule:
    """Thresholds on the detector's scores, per type. ``count_score`` and ``presence_score`` are the
    values the cross-validation folds chose (5 folds by image, en and ru alike) on the count and
    presence questions ``bench.vqa_types`` builds from zsod_coco_dev's COCO boxes, with detections at
    ``evidence.COUNT_DETECTOR_SIZE`` (counts, chosen with the size) and ``evidence.DETECTOR_SIZE``
    (presence); ``object_score`` and ``support_cover`` are set by hand (no dev set
    holds colour, where or which questions with boxes)."""

    mapping: MappingRule = MappingRule(min_cos=0.4, min_margin=0.02)
    count_score: float = 0.35  # a box this sure counts as one object (at ``evidence.COUNT_DETECTOR_SIZE``)
    count_floor: int = 1  # a counting question presupposes its object
    presence_score: float = 0.15  # the asked class's best box this sure: "yes"
    object_score: float = 0.3  # a box this sure can answer colour, where and which questions
    support_cover: float = 0.5  # share of the asked object's box a support's box must hold
    same_object_iou: float = 0.7  # a support box overlapping the asked object's this much is that object
    kind_score: float = 0.2  # a box this sure votes for a scene or kind answer (``KINDS``)
    image_weight: float = 0.4  # weight of the image's fit to each answer (z-score among the kind's answers)
    image_margin: float = 0.5  # with no vote, the image's best answer must lead the next by this (z) to answer


DEFAULT_RULE = TypedRule()


class Link(StrEnum):
    """An answerer of the chain: it answers a question or passes it to the next one."""

    EVIDENCE = "evidence"  # the detector's evidence for the question's type (``TypedEvidence``)
    HEAD = "head"  # the learned head (``answerer.Answerer.head_answers``); it always answers
    PRIOR = "prior"  # the type's constant (``PRIORS``); it passes where the type has none


# The answer chain, in one place. Every question is offered to the links its type lists, in this
# order (the detector's typed evidence, then the head, then the type's constant), until one answers;
# a type not listed is the head's alone. Counts skip the head: it answered 0.160 of the built count
# questions where the prior "1" answers 0.546 (``python -m bench.vqa_types``).
LINK_ORDER: tuple[Link, ...] = (Link.EVIDENCE, Link.HEAD, Link.PRIOR)
CHAIN: Mapping[QType, tuple[Link, ...]] = {
    QType.COUNT: (Link.EVIDENCE, Link.PRIOR),
    QType.PRESENCE: (Link.EVIDENCE, Link.HEAD),
    QType.COLOR: (Link.EVIDENCE, Link.HEAD),
    QType.WHERE: (Link.EVIDENCE, Link.HEAD),
    QType.WHICH: (Link.EVIDENCE, Link.HEAD),
    **{qtype: (Link.EVIDENCE, Link.HEAD) for qtype in (QType.ROOM, QType.SPORT, QType.FOOD, QType.ANIMAL)},
    **{qtype: (Link.EVIDENCE, Link.HEAD) for qtype in (QType.VEHICLE, QType.RIDING, QType.ON, QType.SKY)},
}
HEAD_ALONE: tuple[Link, ...] = (Link.HEAD,)


# The best constant answer per type and language on the dev data (bench.vqa_types prints them):
# count on the built count questions (CV 0.546), presence and yes/no on the training part of the VQA v2
# sets (1,227 presence questions: "no" 0.513; 7,790 yes/no: "no" 0.517; no Russian set, so the same
# answers in Russian), colour by VQA v2's published answer shares (no dev set holds colour
# questions), where: too few questions to measure (11; "table" is the support answer most asked).
PRIORS: Mapping[tuple[QType, str], str] = {
    (QType.COUNT, "en"): "1",
    (QType.COUNT, "ru"): "1",
    (QType.PRESENCE, "en"): "no",
    (QType.PRESENCE, "ru"): "нет",
    (QType.YESNO, "en"): "no",
    (QType.YESNO, "ru"): "нет",
    (QType.COLOR, "en"): "white",
    (QType.COLOR, "ru"): "белый",
    (QType.WHERE, "en"): "table",
    (QType.WHERE, "ru"): "стол",
}

# How a class is named as an answer, where that differs from its detector name (English, Russian).
CLASS_ANSWERS: Mapping[str, tuple[str, str]] = {
    "dining table": ("table", "стол"),
    "cell phone": ("phone", "телефон"),
    "sports ball": ("ball", "мяч"),
    "potted plant": ("plant", "растение"),
    "wine glass": ("glass", "бокал"),
    "hair drier": ("hair dryer", "фен"),
    "tennis racket": ("racket", "ракетка"),
    "baseball bat": ("bat", "бита"),
    "baseball glove": ("glove", "перчатка"),
    "surfboard": ("surfboard", "доска"),
    "teddy bear": ("teddy bear", "мишка"),
    "toothbrush": ("toothbrush", "щётка"),
    "fire hydrant": ("fire hydrant", "гидрант"),
    "parking meter": ("parking meter", "паркомат"),
    "person": ("person", "человек"),
}


@dataclass(frozen=True, slots=True)
class KindRule:
    """How a scene or kind question is answered (one row of ``KINDS``): ``answers`` are the English
    answers it may get, as the answer vocabulary (``answers.py``) writes them in one of ``categories``
    (which gives their Russian forms); ``votes`` says which detector classes vote for which answer,
    and how strongly (a class's box votes its score times the weight)."""

    categories: tuple[str, ...]
    answers: tuple[str, ...]
    votes: Mapping[str, tuple[tuple[str, float], ...]]  # detector class -> ((answer, weight), ...)


def _themselves(*classes: str) -> dict[str, tuple[tuple[str, float], ...]]:
    """Votes of classes that name their own answer ("dog" -> "dog"), as ``CLASS_ANSWERS`` names them."""
    return {c: ((CLASS_ANSWERS.get(c, (c, ""))[0], 1.0),) for c in classes}


_ANIMALS = ("bird", "cat", "dog", "horse", "sheep", "cow", "elephant", "bear", "zebra", "giraffe")
_VEHICLES = ("bicycle", "car", "motorcycle", "airplane", "bus", "train", "truck", "boat")
_FOODS = ("banana", "apple", "sandwich", "orange", "broccoli", "carrot", "hot dog", "pizza", "donut", "cake")
_RIDDEN = ("horse", "bicycle", "motorcycle", "skateboard", "surfboard", "elephant", "snowboard", "skis")

# Scene and kind questions, in one table: what the detector's classes say about the room, the sport,
# the food, the animal, the vehicle, what is ridden, what is on the plate, what is in the sky. Weights
# set by hand: a class that only one answer has (toilet, bed, oven; a racket) votes 1-1.5, one shared
# by two answers (a sink) half to each, one that is only likely (a TV in a living room) 0.5. The
# image's fit to each answer (through the trunk's text tower) adds to the votes (``TypedRule.image_weight``).
KINDS: Mapping[QType, KindRule] = {
    QType.ROOM: KindRule(
        ("room",),
        ("kitchen", "bathroom", "bedroom", "living room", "dining room", "office", "classroom", "hallway", "garage"),
        {
            "oven": (("kitchen", 1.0),), "refrigerator": (("kitchen", 1.0),), "microwave": (("kitchen", 1.0),),
            "toaster": (("kitchen", 1.0),), "sink": (("kitchen", 0.5), ("bathroom", 0.5)),
            "toilet": (("bathroom", 1.5),), "toothbrush": (("bathroom", 1.0),), "hair drier": (("bathroom", 1.0),),
            "bed": (("bedroom", 1.5),), "couch": (("living room", 1.0),), "tv": (("living room", 0.5),),
            "remote": (("living room", 0.5),), "laptop": (("office", 0.7),), "keyboard": (("office", 1.0),),
            "mouse": (("office", 1.0),),
        },
    ),
    QType.SPORT: KindRule(
        ("sport",),
        ("tennis", "baseball", "soccer", "basketball", "skiing", "snowboarding", "surfing", "skateboarding",
         "frisbee", "volleyball", "golf", "hockey", "rugby", "cricket", "kite flying", "swimming", "boxing",
         "cycling", "softball"),
        {
            "tennis racket": (("tennis", 1.0),), "baseball bat": (("baseball", 1.0),),
            "baseball glove": (("baseball", 1.0),), "skis": (("skiing", 1.0),),
            "snowboard": (("snowboarding", 1.0),), "surfboard": (("surfing", 1.0),),
            "skateboard": (("skateboarding", 1.0),), "frisbee": (("frisbee", 1.0),), "kite": (("kite flying", 1.0),),
            "sports ball": (("soccer", 0.3),),
        },
    ),
    QType.FOOD: KindRule(("food",), _FOODS, _themselves(*_FOODS)),
    QType.ON: KindRule(("food",), _FOODS, _themselves(*_FOODS)),
    QType.ANIMAL: KindRule(("animal",), _ANIMALS, _themselves(*_ANIMALS)),
    QType.VEHICLE: KindRule(("vehicle",), _VEHICLES, _themselves(*_VEHICLES)),
    QType.RIDING: KindRule(
        ("animal", "vehicle", "tool"), (*_RIDDEN, "bus", "train", "boat"), _themselves(*_RIDDEN, "bus", "train", "boat")
    ),
    QType.SKY: KindRule(("tool", "vehicle", "animal"), ("kite", "airplane", "bird", "clouds"),
                        _themselves("kite", "airplane", "bird")),
}  # fmt: skip


@functools.cache
def kind_words(qtype: QType) -> dict[str, dict[str, str]]:
    """``{"en": {answer: answer}, "ru": {answer: its Russian}}`` for the answers of ``KINDS[qtype]``, from
    the answer vocabulary's blocks the rule names (the first that holds the answer)."""
    from plugins.vqa.answers import vocabulary

    rule = KINDS[qtype]
    ru = {}
    for answer in rule.answers:
        found = [a.ru for c in rule.categories for a in vocabulary() if a.en == answer and a.category == c]
        if not found:
            raise KeyError(f"{qtype.value} answer {answer!r} is in none of the vocabulary blocks {rule.categories}")
        ru[answer] = found[0]
    return {"en": {a: a for a in rule.answers}, "ru": ru}


def kind_answer(
    found: Any, qtype: QType, image_fit: torch.Tensor | None, names: Any, rule: TypedRule, lang: str
) -> str | None:
    """The answer of a scene or kind question (``KINDS[qtype]``): the answer with the most votes of the
    detected boxes (each box scoring ``kind_score`` or more votes its score times its class's weight)
    plus ``image_weight`` times the image's fit z-score. ``image_fit``: ``[len(answers)]`` the image's
    centred fit to each answer's text (None: votes only). With no vote, the image answers alone only
    when its best answer leads the next by ``image_margin``; else None: nothing here answers."""
    kind = KINDS[qtype]
    votes = [0.0] * len(kind.answers)
    voted = False
    for label, score in zip(found.labels, found.scores, strict=True):
        if score < rule.kind_score:
            continue
        for answer, weight in kind.votes.get(names.en[int(label)], ()):
            votes[kind.answers.index(answer)] += float(score) * weight
            voted = True
    if image_fit is not None and len(image_fit) > 1:
        z = ((image_fit - image_fit.mean()) / image_fit.std().clamp(min=1e-6)).tolist()
        lead = sorted(z, reverse=True)
        if not voted and lead[0] - lead[1] < rule.image_margin:
            return None
        votes = [v + rule.image_weight * zi for v, zi in zip(votes, z, strict=True)]
    elif not voted:
        return None
    best = kind.answers[max(range(len(votes)), key=votes.__getitem__)]
    return normalize_answer(kind_words(qtype)[lang][best], lang)


# Classes that hold or carry other objects: a "where" question's answer.
SUPPORTS = frozenset(
    ("dining table", "bed", "couch", "chair", "bench", "toilet", "sink", "bowl", "refrigerator", "oven")
    + ("car", "truck", "boat", "suitcase", "skateboard", "surfboard", "motorcycle", "bicycle", "horse")
)
# Which classes a "which object" question does not want (it asks about things, not people).
_NOT_OBJECTS = frozenset({"person"})


def class_answer(name: str, ru_name: str, lang: str) -> str:
    """The answer naming detector class ``name`` (its Russian name ``ru_name``), as the scorer keeps it."""
    en, ru = CLASS_ANSWERS.get(name, (name, ru_name))
    return normalize_answer(ru if lang == "ru" else en, lang)


@functools.cache
def colour_words() -> dict[str, dict[str, str]]:
    """Colour names by language: ``{"en": {"blue": "blue"}, "ru": {"blue": "синий"}}`` from the answer
    vocabulary's colour block (``answers.py``)."""
    from plugins.vqa.answers import vocabulary

    table = {a.en: a.ru for a in vocabulary() if a.category == "color"}
    return {"en": {c: c for c in COLOURS}, "ru": {c: table[c] for c in COLOURS}}


# A chromatic colour needs this share of the object's middle to win over white, black and gray
# (shadows and highlights cover part of every painted object).
CHROMATIC_SHARE = 0.2


def colour_name(rgb: np.ndarray, box: Sequence[float] | None) -> str:
    """The English name (one of ``COLOURS``) of the colour of ``box`` (xyxy pixels; None: the picture's
    middle): the most common chromatic colour when it covers ``CHROMATIC_SHARE``, else the most common one."""
    import numpy as np

    shares = colour_shares(rgb, box)
    achromatic = [COLOURS.index(c) for c in ("white", "black", "gray")]
    chromatic = np.array(shares)
    chromatic[achromatic] = -1.0
    best = int(chromatic.argmax())
    if chromatic[best] >= CHROMATIC_SHARE:
        return COLOURS[best]
    return COLOURS[int(np.argmax(shares))]


def _of_class(found: Any, label: int, min_score: float) -> list[int]:
    """Indices of ``found``'s boxes of class ``label`` scoring at least ``min_score``, best first."""
    import numpy as np

    scores = np.asarray(found.scores)
    own = np.flatnonzero((np.asarray(found.labels) == label) & (scores >= min_score))
    return [int(i) for i in own[np.argsort(-scores[own], kind="stable")]]


def count_answer(found: Any, match: ClassMatch, rule: TypedRule) -> str | None:
    """The number of the asked class's boxes (at least ``count_floor``); None when the subject has no class."""
    if not match.accepted(rule.mapping):
        return None
    return str(max(rule.count_floor, len(_of_class(found, match.label, rule.count_score))))


def presence_answer(found: Any, match: ClassMatch, rule: TypedRule, lang: str) -> str | None:
    """ "yes"/"no" (in ``lang``) by the asked class's best box; None when the subject has no class."""
    if not match.accepted(rule.mapping):
        return None
    yes = bool(_of_class(found, match.label, rule.presence_score))
    return ("да" if yes else "нет") if lang == "ru" else ("yes" if yes else "no")


def colour_answer(found: Any, match: ClassMatch, rgb: np.ndarray | None, rule: TypedRule, lang: str) -> str | None:
    """The colour of the asked object's best box, in ``lang``; None without the object or the pixels."""
    if rgb is None or not match.accepted(rule.mapping):
        return None
    own = _of_class(found, match.label, rule.object_score)
    if not own:
        return None
    return colour_words()[lang if lang == "ru" else "en"][colour_name(rgb, found.boxes[own[0]])]


def _iou(a: Sequence[float], b: Sequence[float]) -> float:
    """Intersection over union of two xyxy boxes."""
    x1, y1 = max(a[0], b[0]), max(a[1], b[1])
    x2, y2 = min(a[2], b[2]), min(a[3], b[3])
    inter = max(0.0, x2 - x1) * max(0.0, y2 - y1)
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / max(1e-6, union)


def _covered(inner: Sequence[float], outer: Sequence[float]) -> float:
    """Share of box ``inner`` (xyxy) inside box ``outer``."""
    x1, y1 = max(inner[0], outer[0]), max(inner[1], outer[1])
    x2, y2 = min(inner[2], outer[2]), min(inner[3], outer[3])
    area = max(1e-6, (inner[2] - inner[0]) * (inner[3] - inner[1]))
    return max(0.0, x2 - x1) * max(0.0, y2 - y1) / area


def where_answer(found: Any, match: ClassMatch, names: Any, rule: TypedRule, lang: str) -> str | None:
    """The detected support (``SUPPORTS``) that holds most of the asked object's best box, named in
    ``lang``; None when the subject has no class, is not found, or nothing holds it. A box that is
    the asked object's own box again (IoU ``same_object_iou``: the detector naming a bus "truck" too)
    holds nothing."""
    if not match.accepted(rule.mapping):
        return None
    own = _of_class(found, match.label, rule.object_score)
    if not own:
        return None
    box = found.boxes[own[0]]
    best, best_fit = -1, 0.0
    for i, (label, score) in enumerate(zip(found.labels, found.scores, strict=True)):
        name = names.en[int(label)]
        if int(label) == match.label or name not in SUPPORTS or score < rule.object_score:
            continue
        if _iou(box, found.boxes[i]) >= rule.same_object_iou:
            continue
        cover = _covered(box, found.boxes[i])
        if cover >= rule.support_cover and cover * float(score) > best_fit:
            best, best_fit = i, cover * float(score)
    if best < 0:
        return None
    label = int(found.labels[best])
    return class_answer(names.en[label], names.ru[label], lang)


def which_answer(
    found: Any, question: torch.Tensor, class_emb: torch.Tensor, names: Any, rule: TypedRule, lang: str
) -> str | None:
    """The detected class (an object, not a person) that fits the question best through the text
    tower (``question``: ``[D]``, ``class_emb``: ``[C, D]`` class prompts); None when none is detected."""
    labels = sorted(
        {
            int(label)
            for label, score in zip(found.labels, found.scores, strict=True)
            if score >= rule.object_score and names.en[int(label)] not in _NOT_OBJECTS
        }
    )
    if not labels:
        return None
    fit = (class_emb[labels] @ question).tolist()
    label = labels[max(range(len(labels)), key=fit.__getitem__)]
    return class_answer(names.en[label], names.ru[label], lang)


def evidence_answer(
    parsed: ParsedQuestion,
    found: Any,
    match: ClassMatch,
    question: torch.Tensor,
    class_emb: torch.Tensor,
    rgb: np.ndarray | None,
    names: Any,
    rule: TypedRule,
    image_fit: torch.Tensor | None = None,
) -> str | None:
    """The answer the detector's evidence gives ``parsed`` (by its type), or None where it has none.
    ``image_fit``: for the ``KINDS`` types, the image's fit to each of the kind's answers (``kind_answer``)."""
    if found is None:
        return None
    lang = "ru" if parsed.lang == "ru" else "en"
    qtype = parsed.qtype
    if qtype is QType.COUNT:
        return count_answer(found, match, rule)
    if qtype is QType.PRESENCE:
        return presence_answer(found, match, rule, lang)
    if qtype is QType.COLOR:
        return colour_answer(found, match, rgb, rule, lang)
    if qtype is QType.WHERE:
        return where_answer(found, match, names, rule, lang)
    if qtype is QType.WHICH:
        return which_answer(found, question, class_emb, names, rule, lang)
    if qtype in KINDS:
        return kind_answer(found, qtype, image_fit, names, rule, lang)
    return None


class TypedEvidence:
    """The chain's first link: the answers the detector's evidence gives by question type."""

    def __init__(
        self,
        class_prompts: torch.Tensor,
        names: Any,
        rule: TypedRule = DEFAULT_RULE,
        kind_emb: Mapping[QType, torch.Tensor] | None = None,
        mean_image: torch.Tensor | None = None,
    ) -> None:
        """``class_prompts``: ``[C, D]`` the classes' prompt embeddings (``core.detector.phrases.pool_class_prompts``)
        that asked objects are mapped to; ``names``: the detector's class names (``core.detector.coco_classes``);
        ``kind_emb``: per ``KINDS`` type, ``[len(answers), D]`` its English answers embedded by the trunk, and
        ``mean_image`` ``[D]`` (the head's) to centre the image with; None: the kinds' evidence is the votes alone."""
        self.class_prompts = class_prompts
        self.names = names
        self.rule = rule
        self.kind_emb = dict(kind_emb or {})
        self.mean_image = mean_image

    def answers(self, parsed: Sequence[ParsedQuestion], items: Sequence[Any]) -> list[str | None]:
        """Each question's evidence answer (``items``: ``answerer.Embedded``), None where it passes."""
        from core.detector.phrases import ClassMatch, class_match

        out: list[str | None] = []
        for p, item in zip(parsed, items, strict=True):
            match = ClassMatch(-1, -1.0, 0.0)
            if item.queries is not None and len(item.queries):
                match = class_match([item.queries], [item.together], self.class_prompts)[0]
            fit = None
            if p.qtype in self.kind_emb and self.mean_image is not None:
                fit = self.kind_emb[p.qtype] @ (item.image[0] - self.mean_image)
            asked = (item.question, self.class_prompts, item.pixels)
            out.append(evidence_answer(p, item.detections, match, *asked, self.names, self.rule, fit))
        return out


def subject_queries(parsed: ParsedQuestion) -> tuple[tuple[str, ...], int]:
    """The texts standing for the question's asked object (``core.detector.phrases.phrase_queries``)
    and how many of the first are averaged; ``((), 0)`` for types without an asked object."""
    from core.detector.phrases import phrase_queries

    if parsed.qtype not in SUBJECT_TYPES or not parsed.subject.strip():
        return (), 0
    return phrase_queries(parsed.subject)


SUBJECT_TYPES = frozenset({QType.COUNT, QType.PRESENCE, QType.COLOR, QType.WHERE})
