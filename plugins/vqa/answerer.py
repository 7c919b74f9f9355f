"""Turns embeddings into answers: candidate selection by question type, scoring with the head.

Shared by the task (inference) and by ``train.py`` (fitting and held-out
evaluation). Pure torch on embeddings that the trunk already produced.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from plugins.vqa.answers import Answer, vocabulary
from plugins.vqa.evidence import (
    N_EVIDENCE,
    candidate_class_match,
    candidate_colours,
    candidate_numbers,
    open_evidence,
    yesno_evidence,
)
from plugins.vqa.head import ANSWER_TYPES, OpenScored, VqaHead, yesno_features
from plugins.vqa.normalize import normalize_answer
from plugins.vqa.question import YESNO_TYPES, ParsedQuestion, QType
from plugins.vqa.typed import (
    CHAIN,
    DEFAULT_RULE,
    HEAD_ALONE,
    KINDS,
    LINK_ORDER,
    PRIORS,
    Link,
    TypedEvidence,
    TypedRule,
)

if TYPE_CHECKING:
    import torch

YES = {"en": "yes", "ru": "да"}
NO = {"en": "no", "ru": "нет"}

# Answer shares within a category from VQA v2's published answer statistics (rounded):
# a counting question is answered "2" most often, a colour question "white".
_HAND_PRIOR: Mapping[str, float] = {
    "2": 0.30, "1": 0.20, "3": 0.14, "4": 0.08, "0": 0.06, "5": 0.05, "6": 0.04, "10": 0.02, "7": 0.02,
    "8": 0.02, "12": 0.01, "9": 0.01,
    "white": 0.20, "black": 0.12, "blue": 0.10, "red": 0.10, "brown": 0.08, "green": 0.08, "gray": 0.06,
    "yellow": 0.05, "orange": 0.03, "pink": 0.02, "silver": 0.02, "black and white": 0.03,
    # Frequent open answers of VQA v2 (its top answers by rank, shares approximate).
    "tennis": 0.03, "baseball": 0.03, "bathroom": 0.02, "wood": 0.02, "frisbee": 0.015, "pizza": 0.015,
    "kitchen": 0.015, "cat": 0.012, "skiing": 0.012, "skateboarding": 0.012, "dog": 0.012, "snow": 0.012,
    "surfing": 0.01, "water": 0.01, "giraffe": 0.01, "grass": 0.01, "kite": 0.01, "elephant": 0.01,
    "broccoli": 0.009, "man": 0.009, "winter": 0.008, "train": 0.008, "table": 0.008, "horse": 0.008,
    "banana": 0.008, "umbrella": 0.008, "eating": 0.008, "sheep": 0.007, "bear": 0.007, "phone": 0.007,
    "street": 0.007, "beach": 0.007, "soccer": 0.007, "sunny": 0.007, "zebra": 0.007, "bus": 0.007,
    "motorcycle": 0.006, "cake": 0.006, "wine": 0.006, "woman": 0.006, "plate": 0.006, "day": 0.006,
    "night": 0.005, "metal": 0.005, "plastic": 0.005, "sandwich": 0.005, "airplane": 0.005, "cow": 0.005,
}  # fmt: skip
_DEFAULT_SHARE = 0.005
_PRONOUNS = frozenset(
    ("i", "you", "he", "she", "it", "we", "they", "me", "him", "her", "us", "them", "his", "its", "their", "my", "your")
    + ("she's", "he's", "it's", "they're")
)

# Which vocabulary categories answer which question types (None: every category).
_TYPE_CATEGORIES: Mapping[QType, tuple[str, ...] | None] = {
    QType.COUNT: ("count",),
    QType.COLOR: ("color",),
    QType.WHERE: ("place", "room"),
    QType.WHO: ("person", "brand"),
    QType.WHEN: ("time", "weather"),
    QType.WHY: None,
    QType.WHICH: None,
    QType.WHAT: None,
}
_CATEGORY_ALIASES: Mapping[str, tuple[str, ...]] = {
    "city": ("city", "country"),
    "country": ("country",),
}
# Categories that the hand vocabulary covers well enough to answer alone (no learned or
# ImageNet answers mixed in): "what country" wants a country, not a toilet.
_STRICT = frozenset({"country", "city", "brand", "sport", "material", "room", "weather", "time"})
_OPEN_EXCLUDED = ("yesno", "count", "color")  # only asked-for types get these
_OPEN_POOLS = ("learned", "imagenet")  # uncategorised answers, allowed for every open question


# The answer-type step drops candidates whose type the question makes this unlikely.
TYPE_FLOOR = 0.03
_TYPE_OF_CATEGORY = {"yesno": "yesno", "count": "count", "color": "color", "sport": "sport", "place": "place"}
_TYPE_OF_CATEGORY["room"] = "place"


def answer_type(answer: str, category: str = "") -> str:
    """The answer type (``head.ANSWER_TYPES``) of an English answer: by its vocabulary category,
    digits for counts, else "other"."""
    if answer in ("yes", "no"):
        return "yesno"
    if answer.isdigit():
        return "count"
    if not category:
        category = _vocab_category().get(answer, "")
    return _TYPE_OF_CATEGORY.get(category, "other")


@functools.cache
def _vocab_category() -> dict[str, str]:
    """English answer -> its vocabulary category, the first category winning. Built on first use, not
    at import: the vocabulary's Russian forms are lemmatised by pymorphy3 (about 0.4 s)."""
    return {a.en: a.category for a in reversed(vocabulary())}


@dataclass(frozen=True, slots=True)
class Candidate:
    """An answer the scorer can pick, with its texts in both languages."""

    en: str
    ru: str  # "" when there is no Russian form (answers learned from English data)
    category: str
    log_prior: float


def build_candidates(head: VqaHead) -> list[Candidate]:
    """The hand vocabulary plus answers seen in training (English only), with log priors."""
    counts = head.answer_counts
    total = sum(counts.values()) or 1
    out: list[Candidate] = []
    seen: set[str] = set()
    for a in vocabulary():
        if a.category == "yesno":
            continue
        share = _HAND_PRIOR.get(a.en, _DEFAULT_SHARE) + counts.get(a.en, 0) / total
        out.append(Candidate(a.en, a.ru, a.category, math.log(share)))
        seen.add(a.en)
    for answer, n in sorted(counts.items()):
        # Answers are short phrases; a sentence-like training answer ("she's wearing coat")
        # would only ever be right for its own question.
        if answer not in seen and len(answer.split()) <= 3 and not set(answer.split()) & _PRONOUNS:
            out.append(Candidate(answer, "", "learned", math.log(_DEFAULT_SHARE + n / total)))
            seen.add(answer)
    for name in imagenet_names():
        if name not in seen:
            out.append(Candidate(name, "", "imagenet", math.log(_DEFAULT_SHARE / 10)))
            seen.add(name)
    return out


@functools.cache
def imagenet_names() -> list[str]:
    """The first name of every ImageNet-1k class (timm's bundled table), as the scorer writes it.

    Fine-grained names ("labrador retriever", "seagull"...) answer OK-VQA-style
    "what kind/breed/type" questions; English only (no Russian table ships).
    """
    from core.imagenet import class_descriptions  # () without timm: a runtime requirement, but stay usable

    names = (d.split(",")[0].strip() for d in class_descriptions())
    return [normalize_answer(n, "en") for n in names if n]


def candidate_texts(
    candidates: Sequence[Candidate], prompt: Mapping[str, str] | None = None
) -> tuple[list[str], list[str]]:
    """Texts to embed: English forms, and Russian forms (English where none).

    ``prompt`` (``{"en": "a photo of {}.", "ru": ...}``, the no-head mode's templates) wraps
    each answer in a caption-like sentence, closer to what the trunk's joint space was
    trained on than a bare word.
    """
    if not prompt:
        return [c.en for c in candidates], [c.ru or c.en for c in candidates]
    en = [prompt["en"].format(c.en) for c in candidates]
    ru = [prompt["ru"].format(c.ru) if c.ru else prompt["en"].format(c.en) for c in candidates]
    return en, ru


def candidate_mask(parsed: ParsedQuestion, candidates: Sequence[Candidate]) -> list[bool]:
    """Which candidates may answer ``parsed``: by language, question type and the named category."""
    allowed = _TYPE_CATEGORIES.get(parsed.qtype)
    named = _CATEGORY_ALIASES.get(parsed.category, (parsed.category,)) if parsed.category else ()
    mask = []
    for c in candidates:
        ok = parsed.lang != "ru" or bool(c.ru)
        if allowed is not None:
            open_ok = c.category in _OPEN_POOLS and parsed.qtype not in (QType.COUNT, QType.COLOR)
            ok = ok and (c.category in allowed or open_ok)
        else:
            ok = ok and c.category not in _OPEN_EXCLUDED
            if named and named[0] in _STRICT:
                ok = ok and c.category in named
            elif named and named[0] not in ("place", "activity"):
                ok = ok and (c.category in named or c.category in _OPEN_POOLS)
        mask.append(ok)
    if not any(mask):
        mask = [parsed.lang != "ru" or bool(c.ru) for c in candidates]
    return mask


def in_question(
    parsed: ParsedQuestion, candidates: Sequence[Candidate], by_first: Mapping[str, Sequence[int]] | None = None
) -> list[float]:
    """1.0 for candidates whose text occurs as words in the question.

    ``by_first`` (``first_word_index``'s map for the question's language) makes it one
    lookup per question word instead of one test per candidate.
    """
    words = re.findall(r"[\w'-]+", parsed.text.lower())
    low = " " + " ".join(words) + " "
    if by_first is None:
        by_first = first_word_index(candidates, parsed.lang)
    out = [0.0] * len(candidates)
    for word in set(words):
        for j in by_first.get(word, ()):
            c = candidates[j]
            text = c.ru if parsed.lang == "ru" and c.ru else c.en
            if f" {text} " in low:
                out[j] = 1.0
    return out


def first_word_index(candidates: Sequence[Candidate], lang: str) -> dict[str, list[int]]:
    """Candidate indices by the first word of their text in ``lang``."""
    out: dict[str, list[int]] = {}
    for j, c in enumerate(candidates):
        text = c.ru if lang == "ru" and c.ru else c.en
        out.setdefault(text.split(" ", 1)[0], []).append(j)
    return out


@dataclass(frozen=True, slots=True)
class Embedded:
    """The embeddings one question needs."""

    image: torch.Tensor  # [R, D] region embeddings, row 0 the whole image (``task.region_pool``)
    question: torch.Tensor  # [D]
    subject: torch.Tensor  # [D] (the question itself when there is no subject)
    choices: torch.Tensor  # [K, D], K = len(parsed.choices)
    detections: Any = None  # core.detector.Detections of the image; None: the detector was not run
    pixels: Any = None  # RGB uint8 [H, W, 3] of the image, for colour questions (else None)
    queries: Any = None  # [Q, D] the asked object's texts (``typed.subject_queries``); None or empty: none
    together: int = 0  # how many of the first ``queries`` are averaged (``core.detector.phrases.class_match``)


class Answerer:
    """Answers parsed questions from their embeddings with a ``VqaHead``."""

    def __init__(
        self,
        head: VqaHead,
        candidates: Sequence[Candidate],
        emb_en: torch.Tensor,
        emb_ru: torch.Tensor,
        class_emb: Mapping[str, torch.Tensor] | None = None,
        class_prompts: torch.Tensor | None = None,
        *,
        chain: Mapping[QType, tuple[Link, ...]] | None = CHAIN,
        rule: TypedRule = DEFAULT_RULE,
    ) -> None:
        """``class_emb``: ``{"en": [C, D], "ru": [C, D]}`` the detector's class names embedded by
        the trunk (``class_texts``); None: the detector's evidence is never used. ``class_prompts``:
        ``[C, D]`` the classes' prompt embeddings (``core.detector.phrases.pool_class_prompts``) that
        asked objects are mapped to. ``chain``: who answers which type (``typed.CHAIN``); None, or
        ``class_prompts`` None: the head answers everything."""
        import torch

        from core.detector import coco_classes

        self.class_prompts = class_prompts
        self.chain: Mapping[QType, tuple[Link, ...]] = chain if chain is not None and class_prompts is not None else {}
        self.rule = rule
        self.class_names = coco_classes()
        self.head = head
        self.class_emb = dict(class_emb) if class_emb is not None else None
        self.candidates = list(candidates)
        self.emb = {"en": emb_en, "ru": emb_ru}
        self.log_prior = torch.tensor([c.log_prior for c in self.candidates])
        self.reference = emb_en  # the vocabulary a subject is ranked against
        self._masks: dict[tuple[str, QType, str], torch.Tensor] = {}
        self._first_words = {lang: first_word_index(self.candidates, lang) for lang in ("en", "ru")}
        self.types = torch.tensor([ANSWER_TYPES.index(answer_type(c.en, c.category)) for c in self.candidates])
        texts = [c.en for c in self.candidates]
        self.numbers = torch.tensor(candidate_numbers(texts))
        self.colours = torch.tensor(candidate_colours(texts))
        self.cand_match = (
            {lang: candidate_class_match(self.emb[lang], e) for lang, e in self.class_emb.items()}
            if self.class_emb is not None
            else None
        )
        self.evidence = (
            TypedEvidence(class_prompts, self.class_names, rule, self._kind_embeddings(), head.mean_image)
            if class_prompts is not None
            else None
        )

    def _kind_embeddings(self) -> dict[QType, torch.Tensor]:
        """Per ``typed.KINDS`` type, its answers' English embeddings (rows of the candidates' own); a type
        some of whose answers are not candidates is left out (its evidence is then the detector's votes)."""
        row: dict[tuple[str, str], int] = {}
        for j, c in enumerate(self.candidates):
            row.setdefault((c.en, c.category), j)
        out = {}
        for qtype, kind in KINDS.items():
            rows = [next((row[(a, c)] for c in kind.categories if (a, c) in row), None) for a in kind.answers]
            if None not in rows:
                out[qtype] = self.emb["en"][rows]
        return out

    def yesno_inputs(self, items: Sequence[Embedded], langs: Sequence[str]) -> torch.Tensor:
        """``[B, yesno_width(D)]`` yes/no features, the detector's evidence included where it ran
        (elsewhere the head's ``evidence_mean``: its absence says nothing either way)."""
        img, questions, subjects, evidence = self._yesno_parts(items, langs)
        return yesno_features(img, questions, subjects, self.head.mean_image, self.reference, evidence)

    def _yesno_parts(
        self, items: Sequence[Embedded], langs: Sequence[str]
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        """The stacked images, questions and subjects of ``items``, and their detector evidence."""
        import torch

        img = torch.stack([e.image for e in items])
        subjects = torch.stack([e.subject for e in items])
        dim = subjects.shape[1]
        mean = self.head.evidence_mean
        evidence = (mean.float() if mean is not None else torch.zeros(N_EVIDENCE + dim)).expand(len(items), -1).clone()
        if self.class_emb is not None:
            for lang in set(langs):
                idx = [
                    i
                    for i, (e, g) in enumerate(zip(items, langs, strict=True))
                    if g == lang and e.detections is not None
                ]
                if idx:
                    found = [items[i].detections for i in idx]
                    evidence[idx] = yesno_evidence(subjects[idx], self.class_emb[lang], found)
        return img, torch.stack([e.question for e in items]), subjects, evidence

    def yesno_logits(self, items: Sequence[Embedded], langs: Sequence[str] | None = None) -> torch.Tensor:
        """``[B]`` logits of "yes" (``langs``: each question's language, default English)."""
        img, questions, subjects, evidence = self._yesno_parts(items, langs or ["en"] * len(items))
        return self.head.yes_logits(img, questions, subjects, self.reference, evidence)

    def open_scores(self, parsed: Sequence[ParsedQuestion], items: Sequence[Embedded]) -> torch.Tensor:
        """``[B, N]`` scores of every candidate, ``-inf`` where a question's mask excludes it.

        All questions must share one language (the candidate texts differ by language).
        """
        scored, mask = self._open(parsed, items)
        return scored.scores.masked_fill(~mask, float("-inf"))

    def open_inputs(
        self, parsed: Sequence[ParsedQuestion], items: Sequence[Embedded]
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """``[B, N, N_OPEN]`` candidate features and the ``[B, N]`` mask of allowed candidates.

        The mask is the question-type rules' (``candidate_mask``) and the answer-type step's:
        a candidate whose answer type gets probability below ``TYPE_FLOOR`` from the head's
        type classifier is dropped, unless that drops every candidate the rules allow.
        """
        scored, mask = self._open(parsed, items)
        return scored.feats, mask

    def _open(self, parsed: Sequence[ParsedQuestion], items: Sequence[Embedded]) -> tuple[OpenScored, torch.Tensor]:
        """The head's ``score_candidates`` for ``parsed`` (one language) and the mask of allowed candidates."""
        import math

        import torch

        emb = self.emb["ru" if parsed[0].lang == "ru" else "en"]
        lang = "ru" if parsed[0].lang == "ru" else "en"
        inq = torch.tensor([in_question(p, self.candidates, self._first_words[lang]) for p in parsed])
        img = torch.stack([e.image for e in items])
        questions = torch.stack([e.question for e in items])
        evidence = None
        if self.class_emb is not None and self.cand_match is not None:
            subjects = torch.stack([e.subject for e in items])
            evidence = open_evidence(
                parsed, subjects, self.class_emb[lang], self.cand_match[lang], self.numbers, self.colours,
                [e.detections for e in items], [e.pixels for e in items],
            )  # fmt: skip
        scored = self.head.score_candidates(img, questions, emb, self.log_prior, inq, self.types, evidence)
        rules = torch.stack([self._mask(p) for p in parsed])
        if self.head.type_w is None:
            return scored, rules
        mask = rules & (scored.type_lp > math.log(TYPE_FLOOR))
        empty = ~mask.any(-1, keepdim=True)
        return scored, torch.where(empty, rules, mask)

    def _mask(self, parsed: ParsedQuestion) -> torch.Tensor:
        import torch

        key = (parsed.lang, parsed.qtype, parsed.category)
        if key not in self._masks:
            self._masks[key] = torch.tensor(candidate_mask(parsed, self.candidates))
        return self._masks[key]

    def answer(self, parsed: ParsedQuestion, item: Embedded) -> str:
        """The answer, in the question's language and in a form the scorer keeps."""
        return self.answer_batch([parsed], [item])[0]

    def answer_batch(self, parsed: Sequence[ParsedQuestion], items: Sequence[Embedded]) -> list[str]:
        """Answers for many questions at once (yes/no and open questions scored in batches)."""
        return self.answer_sourced(parsed, items)[0]

    def answer_sourced(
        self, parsed: Sequence[ParsedQuestion], items: Sequence[Embedded]
    ) -> tuple[list[str], list[str]]:
        """Answers from the chain (``typed.CHAIN``), and which link gave each: "evidence" (the
        detector, by the question's type), "head" or "prior" (the type's constant). Each link sees,
        in one batch, the questions that no earlier link answered and whose type lists it."""
        out: list[str | None] = [None] * len(parsed)
        sources = [""] * len(parsed)
        for link in LINK_ORDER:
            todo = [i for i, p in enumerate(parsed) if out[i] is None and link in self.chain.get(p.qtype, HEAD_ALONE)]
            if not todo:
                continue
            asked, their = [parsed[i] for i in todo], [items[i] for i in todo]
            answers: Sequence[str | None]
            if link is Link.EVIDENCE:
                answers = self.evidence.answers(asked, their) if self.evidence is not None else [None] * len(todo)
            elif link is Link.HEAD:
                answers = self.head_answers(asked, their)
            else:
                answers = [PRIORS.get((p.qtype, "ru" if p.lang == "ru" else "en")) for p in asked]
            for i, answer in zip(todo, answers, strict=True):
                if answer is not None:
                    out[i], sources[i] = answer, link.value
        missing = [parsed[i].text for i, a in enumerate(out) if a is None]
        if missing:
            raise ValueError(f"the answer chain left {len(missing)} questions unanswered, e.g. {missing[0]!r}")
        return [a for a in out if a is not None], sources

    def head_answers(self, parsed: Sequence[ParsedQuestion], items: Sequence[Embedded]) -> list[str]:
        """The learned head's answers (yes/no and open questions scored in batches)."""
        out: list[str] = [""] * len(parsed)
        yesno = [i for i, p in enumerate(parsed) if p.qtype in YESNO_TYPES]
        if yesno:
            langs = ["ru" if parsed[i].lang == "ru" else "en" for i in yesno]
            logits = self.yesno_logits([items[i] for i in yesno], langs).tolist()
            for i, logit in zip(yesno, logits, strict=True):
                lang = "ru" if parsed[i].lang == "ru" else "en"
                out[i] = YES[lang] if logit > 0 else NO[lang]
        groups: dict[str, list[int]] = {}
        for i, p in enumerate(parsed):
            lang = "ru" if p.lang == "ru" else "en"
            if p.qtype in YESNO_TYPES:
                continue
            if p.qtype is QType.CHOICE and len(p.choices) == items[i].choices.shape[0] > 0:
                fit = (items[i].choices @ (items[i].image[0] - self.head.mean_image)).tolist()
                out[i] = normalize_answer(p.choices[max(range(len(fit)), key=fit.__getitem__)], lang)
            else:
                groups.setdefault(lang, []).append(i)
        for lang, idx in groups.items():
            best = self.open_scores([parsed[i] for i in idx], [items[i] for i in idx]).argmax(-1).tolist()
            for i, j in zip(idx, best, strict=True):
                c = self.candidates[j]
                out[i] = c.ru if lang == "ru" and c.ru else c.en
        return out


def make_answerer(
    head: VqaHead,
    embed: Callable[[Sequence[str]], torch.Tensor],
    *,
    mode: str = "model",
    chain: Mapping[QType, tuple[Link, ...]] | None = CHAIN,
    rule: TypedRule = DEFAULT_RULE,
) -> Answerer:
    """An ``Answerer`` for ``head`` with candidate texts embedded by ``embed`` (texts -> ``[N, D]``).

    ``mode``: "model" (the head as shipped) or "prior" (its prior-only model: no image feature).
    ``chain``/``rule``: the answer chain and the evidence's thresholds (``typed.py``); ``chain`` None: the head alone.
    """
    from core.detector import coco_classes
    from core.detector.phrases import class_prompt_texts, pool_class_prompts

    if mode == "prior":
        head = head.prior_only()
    elif mode != "model":
        raise ValueError(f"unknown answerer mode {mode!r}")
    candidates = build_candidates(head)
    en, ru = candidate_texts(candidates, head.card.get("prompt"))
    class_en, class_ru = class_texts()
    prompts = pool_class_prompts(embed(class_prompt_texts(coco_classes())), len(coco_classes()))
    classes = {"en": embed(class_en), "ru": embed(class_ru)}
    return Answerer(head, candidates, embed(en), embed(ru), classes, prompts, chain=chain, rule=rule)


def class_texts() -> tuple[list[str], list[str]]:
    """The detector's class names (``core.detector.coco_classes``) in English and Russian, as embedded
    for matching subjects and answers to detections."""
    from core.detector import coco_classes

    classes = coco_classes()
    return list(classes.en), list(classes.ru)


def fallback_answer(lang: str | None) -> str:
    """The answer given when nothing else can be computed: "yes" in the question's language."""
    return YES.get(lang or "en", "yes")


__all__ = ["Answer", "Answerer", "Candidate", "Embedded", "build_candidates", "fallback_answer", "make_answerer"]
