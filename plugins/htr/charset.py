"""The recognizer's alphabet and the text <-> label-id mapping.

Id 0 is the CTC blank; characters take ids 1..N in ``CHARSET`` order. The set
covers Russian and English letters, digits and the punctuation of handwritten
word crops (IAM-style tokens such as ``'re`` or ``...``, abbreviations such as
``гор.``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

CYRILLIC = "абвгдеёжзийклмнопрстуфхцчшщъыьэюяАБВГДЕЁЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯ"
LATIN = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
DIGITS = "0123456789"
PUNCTUATION = " .,!?-'\":;()/&+#*%№"
CHARSET = CYRILLIC + LATIN + DIGITS + PUNCTUATION
BLANK = 0
NUM_CLASSES = len(CHARSET) + 1  # + the CTC blank

_INDEX = {ch: i + 1 for i, ch in enumerate(CHARSET)}
_CHARACTER = {i: ch for ch, i in _INDEX.items()}
_SPELLABLE = frozenset(CHARSET)
# Look-alike characters that real text uses for charset members.
_ALIASES = {
    "\u2019": "'",
    "\u2018": "'",
    "\u00ab": '"',
    "\u00bb": '"',
    "\u201c": '"',
    "\u201d": '"',
    "\u2014": "-",
    "\u2013": "-",
    "\u2026": "...",
}


def normalize_text(text: str) -> str:
    """Map typographic variants onto the charset and drop what it cannot spell."""
    if _SPELLABLE.issuperset(text):  # the usual case (no alias is a charset member): nothing to map
        return text
    out = "".join(_ALIASES.get(ch, ch) for ch in text)
    return "".join(ch for ch in out if ch in _INDEX)


def encode(text: str) -> list[int]:
    """Text -> label ids (1..N); characters outside the charset are dropped."""
    return [_INDEX[ch] for ch in normalize_text(text)]


def decode(ids: Iterable[int]) -> str:
    """Label ids -> text; the blank and unknown ids are skipped (no CTC collapsing here)."""
    return "".join([_CHARACTER.get(i, "") for i in ids])


def is_spellable(text: str, alphabet: Sequence[str] | str = CHARSET) -> bool:
    """True when every character of ``text`` is in ``alphabet``."""
    return bool(text) and all(ch in alphabet for ch in text)
