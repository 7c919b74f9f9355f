"""Write the lexicon decoder's prebuilt word list (``plugins/htr/lexicon.py`` reads it).

    python -m plugins.htr.train.lexicon [--out plugins/htr/weights/htr_lexicon.npz]

Selects wordfreq's top Russian and English words as the decoder always did and stores them
(UTF-8 text, one a line, in the decoder's order) with their zipf frequencies and the stamp of
what they came from. Run it again after upgrading wordfreq or changing the charset: the
decoder then warns at every start and selects the words itself, which takes seconds.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from plugins.htr.lexicon import (
    LEXICON_PATH,
    REBUILD,
    WORDS_PER_LANGUAGE,
    Lexicon,
    build_lexicon,
    lexicon_card_path,
    lexicon_stamp,
    read_lexicon,
    wordfreq_words,
)


def write_lexicon(lexicon: Lexicon, path: Path, stamp: dict[str, str | int]) -> Path:
    """Store ``lexicon`` under ``stamp`` in ``path`` (compressed ``.npz``, no pickles), and its card
    beside it (``write_lexicon_card``)."""
    text = "\n".join(lexicon.words)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as f:
        np.savez_compressed(
            f,
            stamp=np.array(json.dumps(stamp, sort_keys=True)),
            words=np.frombuffer(text.encode("utf-8"), dtype=np.uint8),
            zipf=lexicon.zipf.astype(np.float64),
        )
    write_lexicon_card(path, len(lexicon.words), stamp)
    return path


def write_lexicon_card(path: Path, words: int, stamp: dict[str, str | int]) -> Path:
    """The card beside the lexicon file ``path`` (``lexicon_card_path``): what it holds, how it is
    made, and the file's sha256 and size, which ``read_lexicon`` checks at every load."""
    from core.io import write_json_atomic
    from core.weights import file_record

    card = {
        "what": "the HTR lexicon decoder's word list: lower-case words with their zipf frequencies",
        "words": words,
        "stamp": stamp,
        "data": "wordfreq's most frequent Russian and English words (the tables in its wheel)",
        "license": "wordfreq: code Apache-2.0, word lists CC-BY-SA 4.0",
        "made_by": REBUILD,
        "files": {path.name: file_record(path)},
    }
    return write_json_atomic(lexicon_card_path(path), card)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=LEXICON_PATH)
    parser.add_argument("--words-per-language", type=int, default=WORDS_PER_LANGUAGE)
    args = parser.parse_args(argv)
    lexicon = build_lexicon(wordfreq_words(args.words_per_language))
    stamp = lexicon_stamp(args.words_per_language)
    write_lexicon(lexicon, args.out, stamp)
    back = read_lexicon(args.out, args.words_per_language)
    same = back.words == lexicon.words and all(
        np.array_equal(getattr(back, k), getattr(lexicon, k)) for k in ("zipf", "lengths", "labels")
    )
    if not same:
        raise SystemExit(f"{args.out} does not read back as written")
    print(f"{len(lexicon.words):,} words, {args.out.stat().st_size:,} bytes in {args.out} ({stamp})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
