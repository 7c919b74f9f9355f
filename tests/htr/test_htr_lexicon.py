"""The prebuilt lexicon: building, the file's round trip, its stamp check and the fallback."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import numpy as np
import pytest

from plugins.htr import lexicon as lexicon_module
from plugins.htr.charset import encode
from plugins.htr.lexicon import (
    LEXICON_PATH,
    Lexicon,
    LexiconMismatch,
    build_lexicon,
    default_lexicon,
    lexicon_stamp,
    read_lexicon,
    wordfreq_words,
)
from plugins.htr.train.lexicon import write_lexicon

WORDS = {"years": 5.1, "gears": 3.2, "ёлка": 3.9, "to": 6.6, "it's": 4.0, "e-mail": 4.1, "as": 6.6, "гор": 2.5}


def _same(a, b) -> bool:  # type: ignore[no-untyped-def]
    return a.words == b.words and all(
        np.array_equal(getattr(a, k), getattr(b, k)) for k in ("zipf", "lengths", "labels")
    )


def test_build_orders_by_length_then_frequency_and_drops_what_it_cannot_read() -> None:
    lex = build_lexicon({**WORDS, "Upper": 5.0, "★": 4.0, "кот★": 3.0})
    # Upper-case words and words with no spellable character are left out; "★" is not spelled.
    assert lex.words == ("to", "as", "кот★", "гор", "it's", "ёлка", "years", "gears", "e-mail")
    assert lex.zipf.tolist() == [6.6, 6.6, 3.0, 2.5, 4.0, 3.9, 5.1, 3.2, 4.1]
    assert lex.lengths.tolist() == [2, 2, 3, 3, 4, 4, 5, 5, 6]
    assert lex.labels.shape == (9, 6)
    assert lex.labels[5, :4].tolist() == encode("ёлка") and lex.labels[5, 4:].tolist() == [0, 0]
    assert lex.labels[2, :3].tolist() == encode("кот")


def test_file_reads_back_as_built(tmp_path: Path) -> None:
    built = build_lexicon(WORDS)
    path = write_lexicon(built, tmp_path / "lex.npz", lexicon_stamp())
    assert _same(read_lexicon(path), built)


def test_a_file_from_other_data_is_refused_with_what_differs(tmp_path: Path) -> None:
    stamp = {**lexicon_stamp(), "wordfreq": "0.0.1"}
    path = write_lexicon(build_lexicon(WORDS), tmp_path / "lex.npz", stamp)
    with pytest.raises(LexiconMismatch, match=r"wordfreq: file '0.0.1', here '\d"):
        read_lexicon(path)
    with pytest.raises(LexiconMismatch, match="words_per_language"):
        read_lexicon(write_lexicon(build_lexicon(WORDS), tmp_path / "b.npz", lexicon_stamp()), 10)


def test_characters_the_charset_cannot_read_are_refused(tmp_path: Path) -> None:
    lex = build_lexicon(WORDS)
    forged = Lexicon(("ab", "a1"), lex.zipf[:2], lex.lengths[:2], lex.labels[:2])
    path = write_lexicon(forged, tmp_path / "lex.npz", lexicon_stamp())  # "1" is no lexicon character
    with pytest.raises(LexiconMismatch, match="cannot read"):
        read_lexicon(path)


def test_mismatch_or_missing_file_falls_back_to_wordfreq_with_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(lexicon_module, "wordfreq_words", lambda n: dict(WORDS))
    stale = write_lexicon(build_lexicon({"old": 3.0}), tmp_path / "lex.npz", {**lexicon_stamp(), "charset": "x"})
    with caplog.at_level(logging.WARNING):
        for path in (stale, tmp_path / "missing.npz"):
            assert _same(default_lexicon(path), build_lexicon(WORDS))
    assert caplog.text.count("python -m plugins.htr.train.lexicon") == 2


def test_the_shipped_file_fits_this_install() -> None:
    stamp = json.loads(str(np.load(LEXICON_PATH)["stamp"]))
    assert stamp == lexicon_stamp()
    lex = read_lexicon(LEXICON_PATH)
    assert len(lex.words) > 90_000 and lex.labels.shape == (len(lex.words), 16)
    assert LEXICON_PATH.stat().st_size < 1_000_000


def test_the_shipped_file_holds_what_wordfreq_gives() -> None:
    assert _same(read_lexicon(LEXICON_PATH), build_lexicon(wordfreq_words()))
