"""From a free-text phrase to one of the detector's classes, through the trunk's text tower.

A phrase ("a man in a suit", "мужчина с галстуком", "the tv on the table by the couch")
names one object, its head noun, and says more about it (attributes, relations). The
head is found with a few word lists (English) and pymorphy3 (Russian, already a runtime
dependency of the answer metric): the words before the first preposition, verb or relative
word form the *core* ("a blue bus", "hot dog", "белая подушка"), and its noun is the head.

The core, the head and the head's generic synonyms (``SYNONYMS``: "man" -> "person") are
embedded with the trunk's text tower and compared with every class's prompts
(``CLASS_PROMPTS``, English and Russian names from ``core.detector.coco_classes``). The
class with the best cosine is the phrase's class when that cosine and its margin over the
second class clear the thresholds (``MappingRule``); otherwise the phrase has no class and
the task that asked answers it some other way. Nothing compares strings with the class names: a phrase that
*is* a class name still goes through the text tower, so a random trunk maps at random.

Task-neutral: every task that asks what a phrase names among the shared detector's classes
(phrase grounding, questions about objects) maps it here, with its own ``MappingRule``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, NamedTuple, Protocol

import numpy as np

from core.morph import first_parse

if TYPE_CHECKING:
    import torch

    from core.detector import ClassNames


class TextEmbedder(Protocol):
    """What ``class_embeddings`` needs of the trunk (``core.trunk.Trunk`` is one)."""

    def embed_texts(self, texts: Sequence[str]) -> torch.Tensor: ...


# Each class is the mean of these prompts' embeddings (open_clip-style prompt ensembling).
# None of them is the bare name, which is what a phrase's core often is.
CLASS_PROMPTS = {
    "en": ("a photo of a {}.", "a {} in the picture.", "there is a {} here."),
    "ru": ("фотография: {}.", "на снимке {}.", "здесь есть {}."),
}


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


# Generic words for what the detector calls by another name: head lemma -> the class's
# English name, which then goes through the text tower like the phrase itself.
SYNONYMS = {
    "person": _words(
        "man men woman women boy girl child children kid kids people lady guy player skier surfer "
        "skateboarder rider adult baby toddler мужчина женщина мальчик девочка девушка ребёнок ребенок "
        "человек люди дама парень игрок лыжник малыш леди пассажир пешеход "
        "batter catcher umpire pitcher gentleman chef teenager teen mom dad mother father "
        "старик старушка бабушка дедушка подросток мама папа"
    ),
    "cow": ("calf", "bull", "cattle", "теленок", "телёнок", "бык"),
    "car": ("автомобиль", "taxi", "такси", "cab", "suv", "van"),
    "couch": ("sofa", "диван"),
    "tv": ("television", "monitor", "телевизор", "монитор"),
    "cell phone": ("phone", "cellphone", "smartphone", "телефон", "смартфон"),
    "dining table": ("table", "стол", "столик"),
    "airplane": ("plane", "aircraft", "jet", "самолет"),
    "bicycle": ("bike", "велосипед"),
    "motorcycle": ("motorbike", "мотоцикл"),
    "laptop": ("notebook computer", "ноутбук"),
    "cup": ("mug", "кружка"),
    "handbag": ("purse", "сумочка"),
    "sports ball": ("ball", "football", "soccer ball", "baseball", "мяч"),
    "bench": ("скамья", "лавка"),
    "chair": ("стул", "кресло"),
}

_EN_LEAD = frozenset(
    _words("a an the this that these those some there here is are it its one two three four five several many few")
)
_EN_CUT = frozenset(
    _words(
        "on in with by near next beside behind under over above below at of from for to inside outside "
        "around against along across between into onto atop underneath is are was were has have having "
        "that which who whose and while holding wearing sitting standing walking riding eating playing "
        "looking hanging lying laying parked covered made left right front back top bottom "
        "far upper lower middle leftmost rightmost"  # "the far left car", "the lower left sandwich"
    )
)
_EN_GROUPS = {"pair", "group", "couple", "bunch", "herd", "flock", "row", "stack", "pile", "set", "lot", "team"}
_RU_LEAD = {"это", "вот", "здесь", "тут", "там", "есть"}
_RU_CUT_POS = {"PREP", "VERB", "INFN", "PRTF", "PRTS", "GRND", "CONJ", "ADVB", "PRED", "NPRO"}
_WORD = re.compile(r"[\w'’-]+", re.UNICODE)


class PhraseHead(NamedTuple):
    """What the phrase names: its core, its head noun (a lemma where one is known), its language."""

    core: str  # the words before the first preposition/verb/relative word, e.g. "blue bus"
    head: str  # e.g. "bus"
    lang: str  # "ru" when the phrase has Cyrillic letters, else "en"
    bare: bool  # True when the core is the whole phrase and at most two words: a class-like name


def is_cyrillic(text: str) -> bool:
    return any("\u0400" <= c <= "\u04ff" for c in text)


@lru_cache(maxsize=1 << 14)
def phrase_head(phrase: str) -> PhraseHead:
    """The phrase's core and head noun (word lists for English, pymorphy3 for Russian); remembered per
    phrase (a phrase list repeats across images, and its queries and its bareness both read it)."""
    words = [w.lower().strip("'’-") for w in _WORD.findall(phrase)]
    words = [w for w in words if w]
    if not words:
        return PhraseHead(phrase.strip().lower(), phrase.strip().lower(), "en", True)
    if is_cyrillic(phrase):
        return _head_ru(words)
    return _head_en(words)


def _head_en(words: list[str]) -> PhraseHead:
    i = 0
    while i < len(words) - 1 and words[i] in _EN_LEAD:
        i += 1
    core: list[str] = []
    for j in range(i, len(words)):
        w = words[j]
        if w == "of" and core and core[-1] in _EN_GROUPS:  # "a pair of scissors": the scissors
            core = []
            continue
        if w in _EN_CUT and core:
            break
        if w not in _EN_CUT:
            core.append(w)
    core = core or words[-1:]
    head = core[-1]
    if head.endswith("'s") or head.endswith("’s"):
        head = head[:-2]
    bare = len(core) <= 2 and len(core) == len([w for w in words if w not in _EN_LEAD])
    return PhraseHead(" ".join(core), head, "en", bare)


def _head_ru(words: list[str]) -> PhraseHead:
    i = 0
    while i < len(words) - 1 and words[i] in _RU_LEAD:
        i += 1
    core: list[str] = []
    head = ""
    skip_pp = False  # inside a leading prepositional phrase ("у женщины черные волосы")
    for w in words[i:]:
        parse = first_parse(w)
        pos = parse.tag.POS
        if pos == "PREP" and not core:
            skip_pp = True
            continue
        if skip_pp:
            if pos == "NOUN":
                skip_pp = False
            continue
        if pos in _RU_CUT_POS or (head and pos == "NOUN" and "nomn" not in parse.tag):
            if core:
                break
            continue
        core.append(w)
        if pos == "NOUN" and not head:
            head = parse.normal_form
    core = core or words[-1:]
    head = head or first_parse(core[-1]).normal_form
    bare = len(core) <= 2 and len(core) == len(words) - i
    return PhraseHead(" ".join(core), head, "ru", bare)


# Words that end a noun phrase inside a sentence, besides ``_EN_CUT`` and ``_EN_LEAD``: auxiliaries,
# pronouns, conjunctions, negations, quantities and question words. Words in -ing and -ed (five letters
# and more) are verb forms here too ("chasing", "decorated"): no detector class ends so.
_EN_FUNCTION = frozenset(
    _words(
        "be been being am do does did can could will would should shall may might must was were "
        "i me my you your he him his she her hers we us our they them their it its it's there's "
        "or but nor not no yes if so as than too very also just only still all both each every any "
        "other another more most much same what which who whom how why when where "
        "isn't aren't wasn't weren't don't doesn't didn't can't couldn't won't wouldn't hasn't haven't"
    )
)
_RU_PHRASE_POS = {"NOUN", "ADJF", "ADJS", "NUMR", "LATN"}  # a noun phrase's words; any other ends it,
# and so do pronominal adjectives ("эти", "его": pymorphy3's Apro)


def noun_phrases(text: str) -> tuple[str, ...]:
    """The noun phrases a sentence names, in order: the runs of words between function words, verbs and
    prepositions ("Are these men wearing ties?" -> ("men", "ties"); "Эти мужчины в галстуках?" ->
    ("мужчины", "галстуках")). English by word lists, Russian by pymorphy3's parts of speech; each
    phrase then goes through ``phrase_queries`` like any other."""
    words = [w.lower().strip("'’-") for w in _WORD.findall(text)]
    words = [w for w in words if w]
    russian = is_cyrillic(text)
    out: list[str] = []
    run: list[str] = []
    for w in words:
        if russian:
            tag = first_parse(w).tag
            ends = w in _RU_LEAD or tag.POS not in _RU_PHRASE_POS or "Apro" in tag
        else:
            verb_form = len(w) >= 5 and w.endswith(("ing", "ed"))
            ends = w in _EN_CUT or w in _EN_LEAD or w in _EN_FUNCTION or verb_form or w.isdigit()
        if ends:
            if run:
                out.append(" ".join(run))
            run = []
        else:
            run.append(w)
    if run:
        out.append(" ".join(run))
    return tuple(out)


def synonym_names(head: str) -> tuple[str, ...]:
    """The class names that ``SYNONYMS`` gives a head word (its English plural -s tried too)."""
    forms = {head, head[:-1] if head.endswith("s") else head}
    return tuple(name for name, words in SYNONYMS.items() if forms & set(words))


def nominative(text: str) -> str:
    """A Russian phrase's nouns and adjectives in the nominative, number and gender kept ("доской для
    сёрфинга" -> "доска для сёрфинга", "воздушным змеем" -> "воздушный змей"): the object of a relation
    ("с ...") comes inflected, and the text tower maps the inflected forms less surely. Only the words
    up to the first preposition change; other text is returned as it is."""
    if not is_cyrillic(text):
        return text
    out: list[str] = []
    for k, w in enumerate(text.split()):
        parse = first_parse(w)
        if parse.tag.POS == "PREP":
            return " ".join(out + text.split()[k:])
        form = parse.inflect({"nomn"}) if parse.tag.POS in ("NOUN", "ADJF") else None
        out.append(form.word if form is not None else w)
    return " ".join(out)


def phrase_queries(phrase: str) -> tuple[tuple[str, ...], int]:
    """The texts that stand for the phrase's object (its core, its head when shorter, the head's
    synonym class names) and how many of the first ones are averaged: a core and its head count
    together ("orange post-it note" is a note; "hot dog" no dog), a synonym stands on its own."""
    h = phrase_head(phrase)
    texts = [h.core] + ([h.head] if h.head and h.head != h.core else [])
    together = len(texts)
    texts += [name for name in synonym_names(h.head) if name not in texts]
    return tuple(texts), together


def class_prompt_texts(classes: ClassNames) -> list[str]:
    """Every class's prompts (``CLASS_PROMPTS``), English then Russian, prompt by prompt."""
    return [t.format(name) for lang in ("en", "ru") for t in CLASS_PROMPTS[lang] for name in getattr(classes, lang)]


def pool_class_prompts(emb: torch.Tensor, n_classes: int) -> torch.Tensor:
    """``[P * C, D]`` embeddings of ``class_prompt_texts`` -> ``[C, D]`` unit vectors, each class's mean."""
    mean = emb.reshape(-1, n_classes, emb.shape[-1]).mean(0)
    return mean / mean.norm(dim=-1, keepdim=True).clamp(min=1e-6)


def class_embeddings(trunk: TextEmbedder, classes: ClassNames) -> torch.Tensor:
    """``[C, D]`` unit vectors: each class's English and Russian prompts, embedded and averaged."""
    import torch

    texts = class_prompt_texts(classes)
    emb = torch.cat([trunk.embed_texts(texts[i : i + 64]) for i in range(0, len(texts), 64)])
    return pool_class_prompts(emb, len(classes))


@dataclass(frozen=True, slots=True)
class MappingRule:
    """When a phrase's best class is taken (cosines of the phrase's queries with class prompts).

    The defaults were calibrated for phrase grounding on zsod_coco_dev + fb_sample
    (``python -m bench.zsod_detector``); a task may calibrate its own.
    """

    min_cos: float = 0.4
    min_margin: float = 0.02


class ClassMatch(NamedTuple):
    """A phrase's best class by the text tower, before ``MappingRule`` decides."""

    label: int  # index into the detector's classes (-1: none)
    cos: float  # the phrase's cosine with the class's prompts (``class_match``)
    margin: float  # ``cos`` minus the second-best class's

    def accepted(self, rule: MappingRule) -> bool:
        return self.label >= 0 and self.cos >= rule.min_cos and self.margin >= rule.min_margin


def class_match(query_emb: Sequence[torch.Tensor], together: Sequence[int], classes: torch.Tensor) -> list[ClassMatch]:
    """Per phrase: its best class; a class scores the mean cosine of the phrase's first ``together``
    queries, or a further query's cosine when that is higher (``phrase_queries``).

    :param query_emb: per phrase ``[Q, D]`` unit embeddings of its queries.
    :param classes: ``[C, D]`` from ``class_embeddings``.
    """
    out = []
    for q, k in zip(query_emb, together, strict=True):
        if len(q) == 0 or len(classes) < 2:
            out.append(ClassMatch(-1, -1.0, 0.0))
            continue
        cos = q @ classes.T
        sims = cos[:k].mean(dim=0)
        if len(q) > k:
            sims = sims.maximum(cos[k:].max(dim=0).values)
        values = sims.float().numpy()
        top = np.argsort(-values, kind="stable")[:2]
        out.append(ClassMatch(int(top[0]), float(values[top[0]]), float(values[top[0]] - values[top[1]])))
    return out
