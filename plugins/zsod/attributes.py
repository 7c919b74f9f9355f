"""What a described phrase says about its object, read from one table of words (English and Russian).

"a man in a yellow jacket" -> colour ``yellow`` of the ``upper`` part; "the left car" -> position
``left``; "маленький ребёнок" -> size ``small``; "a man holding a frisbee" -> a relation whose
object ("a frisbee") the task maps to a detector class through the text tower.

``WORDS`` is the only place such words live: each entry is a kind, a value and the words that say it.
English words are matched whole; a Russian entry ending in ``*`` is a stem that takes any adjective
or noun ending ("красн*" -> красный, красной, красную...), one without is matched whole.

Colours are also measured here, from pixels: ``colour_names`` gives every pixel one of ``COLOURS``
(hue, saturation and value thresholds), the same for the dev set's masks (``bench.zsod_described_set``)
and the task's boxes.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

COLOURS = ("black", "white", "gray", "red", "orange", "yellow", "green", "blue", "purple", "pink", "brown")
PARTS = ("whole", "head", "upper", "lower")  # where on the object a colour is asked (``PART_BANDS``)

# Each part as a band of the box: (x0, y0, x1, y1), fractions of its width and height. The central
# columns only: a box's sides are mostly background.
PART_BANDS = {
    "whole": (0.25, 0.15, 0.75, 0.85),
    "head": (0.3, 0.0, 0.7, 0.18),
    "upper": (0.25, 0.18, 0.75, 0.5),
    "lower": (0.25, 0.5, 0.75, 0.88),
}


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


# kind -> value -> (English words, Russian words or stems*). A colour value may name several of
# ``COLOURS`` ("blonde": yellow, orange or brown hair), joined by "+".
WORDS: dict[str, dict[str, tuple[str, str]]] = {
    "colour": {
        "black": ("black", "черн* чёрн*"),
        "white": ("white", "бел*"),
        "gray": ("gray grey silver", "сер* серебрист*"),
        "red": ("red maroon", "красн* бордов*"),
        "orange": ("orange", "оранжев* рыж*"),
        "yellow": ("yellow golden gold", "желт* жёлт* золот*"),
        "green": ("green", "зелен* зелён*"),
        "blue": ("blue navy", "син* голуб*"),
        "purple": ("purple violet", "фиолетов* сиренев*"),
        "pink": ("pink", "розов*"),
        "brown": ("brown tan", "коричнев*"),
        "white+brown+orange": ("beige", "бежев*"),
        "yellow+orange+brown": ("blonde blond", "светловолос* блондин*"),
    },
    "part": {
        "head": ("hair hat cap helmet head beanie", "волос* шапк* шапоч* кепк* шлем* голов* шляп*"),
        "upper": (
            "shirt t-shirt tshirt top jacket coat sweater hoodie vest blouse jersey sweatshirt uniform suit",
            "рубашк* рубах* футболк* куртк* пиджак* пальто свитер* кофт* майк* блузк* жилет* толстовк* форм*",
        ),
        "lower": (
            "pants trousers jeans shorts skirt shoes boots socks sneakers legs",
            "брюк* штан* джинс* шорт* юбк* обув* ботин* кроссовк* сапог* носк* ног*",
        ),
    },
    "position": {
        "left": ("left leftmost", "слева лев*"),
        "right": ("right rightmost", "справа прав*"),
        "middle": ("middle center centre central", "посередине посредине центр* средн*"),
        "front": ("front foreground closest nearest", "спереди впереди передн* ближн* ближайш*"),
        "back": ("background farthest distant furthest rear", "сзади позади задн* дальн*"),
        "top": ("top topmost upper uppermost highest", "сверху вверху верхн*"),
        "bottom": ("bottom bottommost lower lowest", "снизу внизу нижн*"),
    },
    "size": {
        "big": (
            "big large largest biggest huge giant tall taller tallest bigger larger",
            "больш* крупн* огромн* высок*",
        ),
        "small": ("small little smallest tiny smaller short mini", "маленьк* небольш* мелк* крошечн* низк* невысок*"),
    },
    "relation": {
        "with": (
            "with holding carrying wearing riding on under next near beside by has have",
            "с со держит держащий держащая держа несет несёт на под рядом около возле у верхом",
        ),
    },
}

# the endings a Russian stem takes: adjectives' and nouns' ("волос*" -> волосы, волосами)
_ENDINGS = _words(
    "ый ий ой ая яя ое ее ые ие ого его ому ему ым им ом ем ую юю ых их ыми ими ей "  # adjectives
    "ы а о и е у ю я ь ами ями ах ях ов ев"  # nouns
)
_WORD = re.compile(r"[\w'’-]+", re.UNICODE)
_OWN_KINDS = ("part", "colour", "position", "size")  # words that say something of the object itself
_NOT_OBJECTS = frozenset(  # articles, and the words of "on top of", "a pair of": no object of their own
    _words(
        "a an the this that his her its their of to и top side bottom edge pair group couple bunch set lot piece "
        "план плане"  # "на заднем плане": in the background
    )
)
_OF = frozenset(_words("of от"))  # "in front of the bus", "слева от машины": another object's place, not this one's


class Said(NamedTuple):
    """What a phrase says about its object."""

    colours: tuple[tuple[str, tuple[str, ...]], ...]  # (part, the colours any of which fits) per colour asked
    positions: tuple[str, ...]  # values of ``WORDS["position"]``
    sizes: tuple[str, ...]  # values of ``WORDS["size"]``
    relation: str | None  # the words after the first relation word ("a frisbee"), for the text tower
    lang: str  # "ru" when the phrase has Cyrillic letters, else "en"

    @property
    def anything(self) -> bool:
        return bool(self.colours or self.positions or self.sizes or self.relation)


def _matcher(words: str) -> re.Pattern[str]:
    alts = []
    for w in words.split():
        if w.endswith("*"):
            alts.append(re.escape(w[:-1]) + "(?:" + "|".join(_ENDINGS) + ")?")
        else:
            alts.append(re.escape(w))
    return re.compile("^(?:" + "|".join(alts) + ")$", re.IGNORECASE | re.UNICODE)


_MATCHERS = {
    kind: {value: (_matcher(en), _matcher(ru)) for value, (en, ru) in values.items()} for kind, values in WORDS.items()
}


def word_value(word: str, kind: str) -> str | None:
    """The value of ``kind`` that ``word`` says, if any ("жёлтой", "colour" -> "yellow")."""
    for value, pair in _MATCHERS[kind].items():
        if any(m.match(word) for m in pair):
            return value
    return None


def read_phrase(phrase: str, head: str | None = None) -> Said:
    """The attributes a phrase gives its object. ``head`` (the phrase's head noun, ``phrase_head``):
    a relation is looked for only after it; past the relation, only position words are the object's."""
    words = [w.lower().strip("'’-") for w in _WORD.findall(phrase)]
    words = [w for w in words if w]
    lang = "ru" if any("\u0400" <= c <= "\u04ff" for c in phrase) else "en"
    at_head = next((i for i, w in enumerate(words) if head and (w == head or w.startswith(head[:4]))), 0)
    colours: list[tuple[str, tuple[str, ...]]] = []
    positions: list[str] = []
    sizes: list[str] = []
    relation = None
    for i, w in enumerate(words):
        if head and w == head:
            continue  # "orange", "апельсин": the object itself, not its colour
        colour = word_value(w, "colour")
        if relation is not None and word_value(w, "position") is None:
            continue  # "a bag on a brown stand": what follows a relation is the other object's
        if colour is not None:
            # the part a colour belongs to: the next part word within three words ("yellow jacket",
            # "dark blonde hair"), or a part word just before it ("рубашка белая")
            near = [word_value(x, "part") for x in words[i + 1 : i + 4]] + [
                word_value(x, "part") for x in words[max(0, i - 2) : i]
            ]
            part = next((p for p in near if p is not None), "whole")
            if not any(c[0] == part for c in colours):
                colours.append((part, tuple(colour.split("+"))))
            continue
        position = word_value(w, "position")
        if position is not None and (i + 1 < len(words) and words[i + 1] in _OF):
            continue  # "in front of the bus", "on top of the table", "слева от машины"
        if position is not None and word_value(w, "part") is not None and i and word_value(words[i - 1], "colour"):
            continue  # "a woman in a white top": the colour's part, not a place
        if position is not None and position not in positions:
            positions.append(position)
            continue
        size = word_value(w, "size")
        if size is not None and size not in sizes:
            sizes.append(size)
            continue
        if relation is None and i > at_head and word_value(w, "relation") is not None:
            rest = [x for x in words[i + 1 :] if word_value(x, "relation") is None]
            named = [x for x in rest if x not in _NOT_OBJECTS and not any(word_value(x, k) for k in _OWN_KINDS)]
            # "in a yellow jacket", "with dark hair": clothes and colours are the object's own, no relation
            clothes = [x for k, x in enumerate(rest[:3]) if word_value(x, "part") and rest[k + 1 : k + 2] != ["of"]]
            if named and not clothes:  # ("on top of the car": a place, not clothes)
                relation = " ".join(named[:3])
    return Said(tuple(colours), tuple(positions), tuple(sizes), relation, lang)


def colour_names(rgb: np.ndarray) -> np.ndarray:
    """``[H, W]`` int8 index into ``COLOURS`` of each pixel of an ``[H, W, 3]`` uint8 RGB array."""
    x = rgb.astype(np.float32) / 255.0
    mx, mn = x.max(-1), x.min(-1)
    v, chroma = mx, mx - mn
    s = np.where(mx > 0, chroma / np.maximum(mx, 1e-6), 0.0)
    r, g, b = x[..., 0], x[..., 1], x[..., 2]
    safe = np.maximum(chroma, 1e-6)
    h = np.where(mx == r, ((g - b) / safe) % 6, np.where(mx == g, (b - r) / safe + 2, (r - g) / safe + 4)) * 60.0
    out = np.full(h.shape, COLOURS.index("gray"), np.int8)
    chromatic = (s >= 0.25) & (v >= 0.2)
    hue_bins = (  # (upper hue bound in degrees, colour); red wraps around
        (12, "red"),
        (38, "orange"),
        (70, "yellow"),
        (165, "green"),
        (255, "blue"),
        (290, "purple"),
        (335, "pink"),
        (361, "red"),
    )
    lower = 0.0
    for bound, name in hue_bins:
        out[chromatic & (h >= lower) & (h < bound)] = COLOURS.index(name)
        lower = bound
    warm = chromatic & (h >= 8) & (h < 45)
    out[warm & (v < 0.6)] = COLOURS.index("brown")  # dark orange is brown
    out[chromatic & ((h < 12) | (h >= 335)) & (s < 0.5) & (v > 0.7)] = COLOURS.index("pink")
    out[~chromatic & (v < 0.25)] = COLOURS.index("black")
    out[(v < 0.2)] = COLOURS.index("black")
    out[~chromatic & (v > 0.75) & (s < 0.2)] = COLOURS.index("white")
    return out


def part_colours(names: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """``[N, len(PARTS), len(COLOURS)]``: each box's share of pixels of each colour in each of its parts.
    ``names``: ``colour_names`` of the image; ``boxes``: ``[N, 4]`` xyxy in ``names``' pixels."""
    h, w = names.shape
    out = np.zeros((len(boxes), len(PARTS), len(COLOURS)), np.float32)
    for n, (x1, y1, x2, y2) in enumerate(np.asarray(boxes, dtype=np.float64).reshape(-1, 4)):
        bw, bh = x2 - x1, y2 - y1
        for p, part in enumerate(PARTS):
            fx0, fy0, fx1, fy1 = PART_BANDS[part]
            xa, xb = int(np.clip(x1 + fx0 * bw, 0, w - 1)), int(np.clip(np.ceil(x1 + fx1 * bw), 1, w))
            ya, yb = int(np.clip(y1 + fy0 * bh, 0, h - 1)), int(np.clip(np.ceil(y1 + fy1 * bh), 1, h))
            cell = names[ya : max(yb, ya + 1), xa : max(xb, xa + 1)]
            out[n, p] = np.bincount(cell.ravel(), minlength=len(COLOURS))[: len(COLOURS)] / max(cell.size, 1)
    return out


def colour_share(shares: np.ndarray, said: Said) -> np.ndarray:
    """``[N]``: per box, the smallest over the colours asked of its share of that colour in that part
    (1 where none is asked). ``shares``: ``part_colours``."""
    out = np.ones(len(shares), np.float32)
    for part, names in said.colours:
        idx = [COLOURS.index(c) for c in names]
        out = np.minimum(out, shares[:, PARTS.index(part), idx].sum(-1))
    return out


def language_of(phrases: Sequence[str]) -> tuple[str, ...]:
    return tuple("ru" if any("\u0400" <= c <= "\u04ff" for c in p) else "en" for p in phrases)
