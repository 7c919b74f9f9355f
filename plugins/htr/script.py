"""One script per word: which alphabet a word is written in, and Cyrillic/Latin look-alikes.

A character-level recognizer trained on both alphabets often mixes them inside
one word ("рlace", "кнuга"): many letters look the same in print (а/a, р/p) or
in handwriting (cursive и/u, т/m, п/n, д/g). Real words are written in one
script: the decoder's beam keeps each reading in one (``label_scripts``, ``script_of``),
and the look-alike tables write a reading in the other alphabet (``to_script``: the
lexicon shortlist of both). ``harmonize_script`` (look-alikes moved to the script the
word's unambiguous letters vote for) is what the decoder did before; the library
comparison in ``bench/htr_ctc_libs.py`` still applies it to the libraries' beams.
"""

from __future__ import annotations

import re

# Cyrillic -> Latin look-alikes (print and cursive handwriting).
_CYR_TO_LAT = {
    "а": "a",
    "в": "b",
    "е": "e",
    "ё": "e",
    "к": "k",
    "м": "m",
    "н": "h",
    "о": "o",
    "р": "p",
    "с": "c",
    "т": "m",
    "у": "y",
    "х": "x",
    "и": "u",
    "п": "n",
    "д": "g",
    "ь": "b",
    "г": "r",
    "А": "A",
    "В": "B",
    "Е": "E",
    "К": "K",
    "М": "M",
    "Н": "H",
    "О": "O",
    "Р": "P",
    "С": "C",
    "Т": "T",
    "У": "Y",
    "Х": "X",
    "З": "3",
    "П": "N",
    "И": "U",
}
# Latin -> Cyrillic: the inverse, with the first (most common) reading of each Latin letter.
_LAT_TO_CYR = {
    "a": "а",
    "b": "в",
    "e": "е",
    "k": "к",
    "m": "т",
    "h": "н",
    "o": "о",
    "p": "р",
    "c": "с",
    "y": "у",
    "x": "х",
    "u": "и",
    "n": "п",
    "g": "д",
    "r": "г",
    "A": "А",
    "B": "В",
    "E": "Е",
    "K": "К",
    "M": "М",
    "H": "Н",
    "O": "О",
    "P": "Р",
    "C": "С",
    "T": "Т",
    "Y": "У",
    "X": "Х",
    "N": "П",
    "U": "И",
}


# Every letter with a look-alike in the other alphabet.
LOOKALIKES = frozenset(_CYR_TO_LAT) | frozenset(_LAT_TO_CYR)


def to_script(text: str, script: str) -> str:
    """``text`` with its look-alike letters written in ``script`` ("cyrillic" or "latin")."""
    table = _LAT_TO_CYR if script == "cyrillic" else _CYR_TO_LAT
    return "".join(table.get(ch, ch) for ch in text)


def _is_cyr(ch: str) -> bool:
    return "\u0400" <= ch <= "\u04ff"


def _is_lat(ch: str) -> bool:
    return ch.isascii() and ch.isalpha()


# ``_is_cyr`` and ``_is_lat`` as patterns: a search runs in C, not a call per character.
_CYR = re.compile("[\u0400-\u04ff]")
_LAT = re.compile("[A-Za-z]")


def harmonize_script(text: str) -> str:
    """Rewrite look-alike letters into the script most letters of ``text`` use.

    Letters without a look-alike vote with weight 2, look-alikes with 1; a tie
    leaves the text as it is.
    """
    cyr = sum((1 if ch in _CYR_TO_LAT else 2) for ch in text if _is_cyr(ch))
    lat = sum((1 if ch in _LAT_TO_CYR else 2) for ch in text if _is_lat(ch))
    if cyr == 0 or lat == 0 or cyr == lat:
        return text
    if cyr > lat:
        return "".join(_LAT_TO_CYR.get(ch, ch) for ch in text)
    return "".join(_CYR_TO_LAT.get(ch, ch) for ch in text)


# Alphabet ids: a word is written in one of these (0: no letter of either, e.g. digits).
NONE, CYRILLIC_SCRIPT, LATIN_SCRIPT = 0, 1, 2


def label_scripts() -> list[int]:
    """Per charset label id (0 is the CTC blank): the alphabet of its character."""
    from plugins.htr.charset import CHARSET

    return [NONE, *(CYRILLIC_SCRIPT if _is_cyr(ch) else LATIN_SCRIPT if _is_lat(ch) else NONE for ch in CHARSET)]


def script_of(text: str) -> int | None:
    """The alphabet ``text``'s letters are written in (``NONE`` without letters), None when it mixes both."""
    cyr = _CYR.search(text) is not None
    lat = _LAT.search(text) is not None
    if cyr and lat:
        return None
    return CYRILLIC_SCRIPT if cyr else LATIN_SCRIPT if lat else NONE
