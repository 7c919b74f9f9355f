"""Region phrases mined from captions, and hard negatives built the way the test builds them.

English captions ("A little girl in a pink dress is climbing up a set of stairs .")
are cut at prepositions, conjunctions and verbs into noun chunks ("a little girl",
"a pink dress", "a set of stairs"); neighbouring chunks joined by a short
preposition or verb phrase give relation phrases ("a little girl in a pink dress");
number words keep counts ("two dogs"). Russian captions (machine-made, short) are
used whole and cut at commas and "и". Rules only: no tagger model is needed.

Negatives for an image (``swap_attribute``, ``swap_object``) change one colour or
count word, or the head noun, to one that none of the image's captions mentions.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Sequence

WORD = re.compile(r"[a-zA-Z]+(?:'[a-z]+)?|[0-9]+")
RU_WORD = re.compile(r"[а-яА-ЯёЁ-]+")


def _wordset(text: str) -> frozenset[str]:
    return frozenset(text.split())


START = {"a", "an", "the", "one", "two", "three", "four", "five", "six", "several", "some", "many", "his", "her"}
STOP = _wordset(
    """in on at of with near by under over behind next to from into onto through across along around while and or
    but that who which as for is are was were be been being has have had does do it its he she they them him
    there this these those what where when while then than up down out off away toward towards against between
    during after before about above below beside besides past upon like inside outside together each other
    another very just also so if because not no yes front top"""
)
KEEP_ING = _wordset(
    """building clothing ceiling painting railing awning ring king string wing thing something nothing evening
    morning swing opening icing frosting stuffing topping wedding bedding pudding sibling ping spring sling
    pring lightning stocking earring ding parking sing ceiling"""
)
VERBS = _wordset(
    """run jump sit stand hold look climb watch leap smile take catch swim carry wear pose lay lie fly eat drink
    chase throw kick hit pull push fall dive skate surf ski lean rest hang stare talk wait sleep sniff bite
    cross get go make reach read use cook prepare serve sell display contain feature grab paddle balance perform
    bend play"""
)
NOUN_TOO = _wordset("""wave park face show stop cover dress point cut swing race ride walk lead pass work fill slide""")
VERB_FORMS = VERBS | {v + "s" for v in VERBS} | {v + "es" for v in VERBS} | {v + "ed" for v in VERBS}
VERB_FORMS |= {v + "d" for v in VERBS} | {v + "s" for v in NOUN_TOO if v not in ("wave", "face", "show", "dress")}
VERB_FORMS |= {"sat", "stood", "ran", "held", "rode", "wore", "flew", "ate", "lies", "lays", "dressed", "parked"}
VERB_FORMS |= {"caught", "threw", "hung", "drove", "fell", "lying", "covered", "filled", "walked", "rides", "walks"}
COLOURS = ("red", "blue", "green", "yellow", "black", "white", "brown", "orange", "pink", "purple", "grey", "gray")
COUNTS = ("one", "two", "three", "four", "five")
RU_COLOURS = ("красный", "синий", "зеленый", "желтый", "черный", "белый", "коричневый", "оранжевый", "розовый")


def words(text: str) -> list[str]:
    return [w.lower() for w in WORD.findall(text)]


def is_boundary(word: str) -> bool:
    if word in STOP or word in VERB_FORMS:
        return True
    return word.endswith("ing") and word not in KEEP_ING and len(word) > 4


def chunks(caption: str) -> list[tuple[int, int]]:
    """Noun-chunk spans ``(start, end)`` over ``words(caption)`` (end exclusive, at most 6 words)."""
    toks = words(caption)
    spans, start = [], None
    for i, w in enumerate(toks + ["and"]):
        if is_boundary(w) and not (w == "of" and start is not None):
            if start is not None and any(t not in START for t in toks[start:i]):
                spans.append((start, i))
            start = None
        elif start is None:
            start = i
    return [(s, e) for s, e in spans if e - s <= 6]


def head_noun(phrase: str) -> str:
    """Last word of the first chunk (plural ``s`` dropped): the object a phrase is about."""
    toks = words(phrase)
    spans = chunks(phrase)
    if not spans:
        return toks[-1] if toks else ""
    s, e = spans[0]
    seg = toks[s:e]
    if "of" in seg:  # "a group of people" -> people
        seg = seg[seg.index("of") + 1 :] or seg
    w = seg[-1]
    return w[:-1] if w.endswith("s") and not w.endswith("ss") and len(w) > 3 else w


def mine_english(caption: str) -> list[str]:
    """Noun chunks, relation phrases (chunk + short connector + chunk), and the short caption itself."""
    toks = words(caption)
    spans = chunks(caption)
    out = [" ".join(toks[s:e]) for s, e in spans]
    for (s1, e1), (s2, e2) in zip(spans, spans[1:], strict=False):
        link = toks[e1:s2]
        if 1 <= len(link) <= 3 and not {"and", "while", "or", "but", "is", "are"} & set(link) and e2 - s1 <= 10:
            out.append(" ".join(toks[s1:e2]))
    if 3 <= len(toks) <= 10:
        out.append(" ".join(toks))
    return list(dict.fromkeys(p for p in out if p))


def mine_russian(caption: str) -> list[str]:
    text = caption.strip().strip(".").lower()
    parts = [p.strip() for p in re.split(r",| и ", text) if p.strip()]
    out = [text] if len(text.split()) <= 10 else []
    out += [p for p in parts if RU_WORD.search(p)]
    return list(dict.fromkeys(out))


def mine(en: Sequence[str], ru: Sequence[str] = ()) -> list[str]:
    """Every phrase of one image's captions (English then Russian), deduplicated."""
    out: dict[str, None] = {}
    for c in en:
        out.update(dict.fromkeys(mine_english(c)))
    for c in ru:
        out.update(dict.fromkeys(mine_russian(c)))
    return list(out)


def caption_vocabulary(captions: Iterable[str]) -> set[str]:
    """Words of an image's captions, singular and plural forms both."""
    vocab: set[str] = set()
    for c in captions:
        for w in words(c):
            vocab.add(w)
            vocab.add(w[:-1] if w.endswith("s") else w + "s")
    return vocab


def swap_attribute(phrase: str, vocab: set[str], rng: random.Random) -> str | None:
    """Change a colour or count word to one the image's captions never use (None when the phrase has none)."""
    toks = phrase.split()
    idx = [i for i, t in enumerate(toks) if t in COLOURS or t in COUNTS]
    if not idx:
        return None
    i = rng.choice(idx)
    pool = COLOURS if toks[i] in COLOURS else COUNTS
    choices = [c for c in pool if c != toks[i] and c not in vocab and not (toks[i] in "grey gray" and c in "grey gray")]
    if not choices:
        return None
    return " ".join(toks[:i] + [rng.choice(choices)] + toks[i + 1 :])


def swap_object(phrase: str, nouns: Sequence[str], vocab: set[str], rng: random.Random) -> str | None:
    """Replace the head noun by another common noun that the image's captions never use."""
    head = head_noun(phrase)
    toks = phrase.split()
    pos = [i for i, t in enumerate(toks) if t in (head, head + "s")]
    if not pos:
        return None
    for _ in range(8):
        new = rng.choice(nouns)
        if new != head and new not in vocab:
            return " ".join(toks[: pos[0]] + [new] + toks[pos[0] + 1 :])
    return None
