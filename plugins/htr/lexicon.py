"""The lexicon decoder's dictionary: words, their frequencies and label ids, ready to score.

The words are wordfreq's ``WORDS_PER_LANGUAGE`` most frequent Russian and English words
that the charset spells. Selecting and encoding them from wordfreq's tables takes seconds,
so it is done offline: ``python -m plugins.htr.train.lexicon`` writes ``weights/htr_lexicon.npz``
(the words as UTF-8 text and their zipf frequencies; about 0.9 MB) and ``default_lexicon`` reads
it in about 0.1 s. The file records what it was made from (``lexicon_stamp``: wordfreq's version,
the charset, the selection rules). When that differs from this install, or the file is missing,
the words are selected from wordfreq here instead, with a warning naming the command above.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from plugins.htr.charset import CHARSET, encode
from plugins.htr.head import LEXICON_NAME, WEIGHTS_DIR

log = logging.getLogger(__name__)

LEXICON_PATH = WEIGHTS_DIR / LEXICON_NAME
LEXICON_FORMAT = 1  # bump when the file's arrays change meaning
LANGUAGES = ("ru", "en")
WORDS_PER_LANGUAGE = 50_000
MAX_WORD = 16  # a 256-pixel crop gives 32 CTC frames; longer words cannot be read anyway
WORD_CHARS = frozenset("абвгдеёжзийклмнопрстуфхцчшщъыьэюяabcdefghijklmnopqrstuvwxyz-'")
REBUILD = "python -m plugins.htr.train.lexicon"


@dataclass(frozen=True, slots=True, eq=False)
class Lexicon:
    """Lower-case words ordered by label count, most frequent first within one count (a length
    window is one slice)."""

    words: tuple[str, ...]
    zipf: np.ndarray  # [N] float64: wordfreq's zipf frequency (log10 of uses per billion words)
    lengths: np.ndarray  # [N] int64: labels in each word
    labels: np.ndarray  # [N, W] int64: charset label ids (1..), 0 past a word's end; W = the longest


class LexiconMismatch(Exception):
    """The prebuilt file was made from other data or rules than this install has."""


def lexicon_stamp(words_per_language: int = WORDS_PER_LANGUAGE) -> dict[str, str | int]:
    """What a prebuilt lexicon depends on; the file is used only when its stamp equals this one."""
    from importlib.metadata import version

    return {
        "format": LEXICON_FORMAT,
        "wordfreq": version("wordfreq"),
        "charset": hashlib.sha256(CHARSET.encode()).hexdigest()[:16],
        "word_chars": "".join(sorted(WORD_CHARS)),
        "languages": ",".join(LANGUAGES),
        "words_per_language": words_per_language,
        "max_word": MAX_WORD,
    }


def wordfreq_words(words_per_language: int = WORDS_PER_LANGUAGE) -> dict[str, float]:
    """``{lower-case word: zipf}`` from wordfreq's top Russian and English words (data ships in its wheel)."""
    from wordfreq import get_frequency_dict

    out: dict[str, float] = {}
    for lang in LANGUAGES:
        freq = get_frequency_dict(lang)
        kept = 0
        for word, f in sorted(freq.items(), key=lambda kv: -kv[1]):
            if kept >= words_per_language:
                break
            if not word or len(word) > MAX_WORD or not set(word) <= WORD_CHARS or not any(c.isalpha() for c in word):
                continue
            zipf = math.log10(f * 1e9)
            out[word] = max(out.get(word, 0.0), zipf)
            kept += 1
    return out


def build_lexicon(words: Mapping[str, float]) -> Lexicon:
    """A ``Lexicon`` of any ``{word: zipf}``: upper-case words and words the charset cannot spell are left out."""
    encoded = {w: encode(w) for w, _ in words.items() if w == w.lower()}
    kept = [(w, z) for w, z in words.items() if encoded.get(w)]
    ordered = sorted(kept, key=lambda kv: (len(encoded[kv[0]]), -kv[1]))
    lengths = np.array([len(encoded[w]) for w, _ in ordered], dtype=np.int64)
    labels = np.zeros((len(ordered), int(lengths.max()) if len(ordered) else 1), dtype=np.int64)
    for i, (w, _) in enumerate(ordered):
        labels[i, : lengths[i]] = encoded[w]
    zipf = np.array([z for _, z in ordered], dtype=np.float64)
    return Lexicon(tuple(w for w, _ in ordered), zipf, lengths, labels)


def lexicon_card_path(path: Path) -> Path:
    """The card beside a prebuilt lexicon file (``htr_lexicon.json``): its sha256 and size among the rest."""
    return Path(path).with_suffix(".json")


def read_lexicon(path: Path, words_per_language: int = WORDS_PER_LANGUAGE) -> Lexicon:
    """The prebuilt lexicon in ``path``, checked against its card (``core.weights``: ``WeightsError``
    when it is missing, damaged or unreadable); ``LexiconMismatch`` when its stamp is not this install's."""
    from core import weights

    card_path = lexicon_card_path(path)
    card = weights.read_card(card_path, weights=path) if card_path.exists() else None
    weights.check(path, card, card_path=card_path)
    try:
        return _read_checked(path, words_per_language)
    except LexiconMismatch:
        raise
    except (OSError, KeyError, ValueError, EOFError) as exc:  # zip or npy damage the card did not catch
        raise weights.WeightsError(path, f"unreadable as a lexicon ({exc})") from None


def _read_checked(path: Path, words_per_language: int) -> Lexicon:
    with np.load(path, allow_pickle=False) as data:
        stamp = json.loads(str(data["stamp"]))
        expected = lexicon_stamp(words_per_language)
        if stamp != expected:
            changed = sorted(k for k in expected.keys() | stamp.keys() if stamp.get(k) != expected.get(k))
            detail = ", ".join(f"{k}: file {stamp.get(k)!r}, here {expected.get(k)!r}" for k in changed)
            raise LexiconMismatch(f"{path} was built for another setup ({detail})")
        text = data["words"].tobytes().decode("utf-8")
        zipf = np.array(data["zipf"], dtype=np.float64)
    words = tuple(text.split("\n")) if text else ()
    lengths = np.fromiter(map(len, words), dtype=np.int64, count=len(words))
    # Every character of a stored word is one charset label (WORD_CHARS), so the labels are
    # the characters looked up in one table, placed row by row.
    codes = np.frombuffer(text.replace("\n", "").encode("utf-32-le"), dtype=np.uint32)
    table = _label_table()
    if len(words) != len(zipf) or (len(codes) and (codes.max() >= len(table) or not table[codes].all())):
        raise LexiconMismatch(f"{path} holds characters or counts this charset cannot read")
    labels = np.zeros((len(words), int(lengths.max()) if len(words) else 1), dtype=np.int64)
    labels[np.arange(labels.shape[1]) < lengths[:, None]] = table[codes]
    return Lexicon(words, zipf, lengths, labels)


def default_lexicon(path: Path = LEXICON_PATH, words_per_language: int = WORDS_PER_LANGUAGE) -> Lexicon:
    """The shipped prebuilt lexicon, or (with a warning) the same words selected from wordfreq here."""
    from core.weights import WeightsError

    try:
        return read_lexicon(path, words_per_language)
    except WeightsError as exc:
        log.error(
            "htr: %s; selecting the words from wordfreq instead (the same words, seconds at every start). "
            "Restore the file, or rebuild it with: %s",
            exc,
            REBUILD,
        )
        return build_lexicon(wordfreq_words(words_per_language))
    except (OSError, KeyError, ValueError, LexiconMismatch) as exc:
        log.warning(
            "htr: cannot use the prebuilt lexicon (%s); selecting the words from wordfreq instead, which "
            "takes seconds at every start. Rebuild the file with: %s",
            exc,
            REBUILD,
        )
    return build_lexicon(wordfreq_words(words_per_language))


def _label_table() -> np.ndarray:
    """Code point -> label id of the characters lexicon words use (0: not one of them)."""
    table = np.zeros(max(map(ord, WORD_CHARS)) + 1, dtype=np.int64)
    for ch in WORD_CHARS:
        table[ord(ch)] = encode(ch)[0]
    return table
