"""Exact CTC forward scores and lexicon-constrained decoding on hand-made posteriors."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from plugins.htr.charset import BLANK, CHARSET, NUM_CLASSES, encode
from plugins.htr.lexdecode import (
    _PUNCT_IDS,
    LexiconDecoder,
    _forward_jobs,
    _free_variants,
    _Spellings,
    align,
    as_number,
    case_of,
    ctc_forward,
    fold_posteriors,
    is_number,
    script_evidence,
    shared_decoder,
    split_phrase,
)
from plugins.htr.task import free_readings, pick_readings
from tests._close import assert_same_answers


def _log(rows: list[list[float]]) -> np.ndarray:
    return np.log(np.array(rows, dtype=np.float64))


def _frames(spec: list[dict[str, float]]) -> np.ndarray:
    """One frame per dict ``{char or "": prob}`` ("" is the blank); the rest of the mass is spread evenly."""
    rows = []
    for frame in spec:
        row = np.zeros(NUM_CLASSES)
        for ch, p in frame.items():
            row[BLANK if ch == "" else CHARSET.index(ch) + 1] = p
        rest = 1.0 - row.sum()
        row[row == 0] = rest / (row == 0).sum()
        rows.append(row)
    return np.log(np.array(rows))


def _word(text: str, first: dict[str, float] | None = None) -> np.ndarray:
    """Frames spelling ``text`` (each letter 0.9, then a blank 0.9); ``first`` overrides the first letter."""
    spec: list[dict[str, float]] = []
    for i, ch in enumerate(text):
        spec.append(first if i == 0 and first else {ch: 0.9})
        spec.append({"": 0.9})
    return _frames(spec)


def test_forward_matches_hand_sums() -> None:
    lp = _log([[0.5, 0.4, 0.1], [0.5, 0.4, 0.1]])
    scores = ctc_forward(lp, np.array([[1, 0], [1, 2], [1, 1], [2, 0]]), np.array([1, 2, 2, 1]))
    assert scores[0] == pytest.approx(math.log(0.56))  # 1-, -1, 11
    assert scores[1] == pytest.approx(math.log(0.4 * 0.1))
    assert scores[2] == -math.inf  # "1 1" needs a blank between: 3 frames
    assert scores[3] == pytest.approx(math.log(0.5 * 0.1 + 0.1 * 0.5 + 0.1 * 0.1))


def test_forward_repeat_with_blank_and_long_input() -> None:
    lp = _log([[0.0001, 0.9998, 0.0001], [0.9998, 0.0001, 0.0001], [0.0001, 0.9998, 0.0001]])
    assert ctc_forward(lp, np.array([[1, 1]]), np.array([2]))[0] == pytest.approx(math.log(0.9998**3), abs=1e-6)
    # 200 confident frames: the per-frame rescaling keeps the score finite and exact.
    long = np.log(np.full((200, 3), [0.98, 0.01, 0.01]))
    # "1" is one run of k frames of label 1 at any of 201 - k places, blanks elsewhere.
    exact = sum((201 - k) * 0.01**k * 0.98 ** (200 - k) for k in range(1, 201))
    assert ctc_forward(long, np.array([[1]]), np.array([1]))[0] == pytest.approx(math.log(exact), rel=1e-9)


def test_fold_sums_cases_and_punctuation_into_blank() -> None:
    lp = _frames([{"l": 0.3, "L": 0.5, "": 0.1, ".": 0.05}])
    folded = fold_posteriors(lp)
    assert math.exp(folded[0, encode("l")[0]]) == pytest.approx(0.8)
    # Blank, "." and the other edge punctuation marks, which share the leftover 0.05 with 140 other classes.
    others = len(_PUNCT_IDS) - 1
    assert math.exp(folded[0, BLANK]) == pytest.approx(0.1 + 0.05 + others * 0.05 / (NUM_CLASSES - 4))


def test_constrained_picks_years_over_free_gears() -> None:
    lp = _word("years", first={"g": 0.5, "y": 0.4})
    decoder = LexiconDecoder({"years": 5.0, "place": 5.0, "gear": 3.0}, oov=-2.0)
    assert decoder.decode(lp, ["gears"]) == "years"
    # Without priors the free reading's better image score wins (open vocabulary).
    assert LexiconDecoder({"years": 5.0, "place": 5.0}, weight=0.0, oov=0.0).decode(lp, ["gears"]) == "gears"


def test_constrained_restores_casing_and_trailing_punctuation() -> None:
    decoder = LexiconDecoder({"la": 5.0, "to": 6.0, "гор": 4.0, "гора": 4.5})
    assert decoder.decode(_word("LA."), ["LA."]) == "LA."
    assert decoder.decode(_word("гор."), ["гop."]) == "гор."
    assert decoder.decode(_word("To"), ["Tо"]) == "To"


def test_escape_keeps_digits_and_empty() -> None:
    decoder = LexiconDecoder({"years": 5.0})
    assert decoder.decode(_word("1984"), ["1984"]) == "1984"  # nothing in the lexicon shares a bigram
    assert decoder.decode(_word("x"), []) == ""


def test_align_gives_each_frame_its_label_position() -> None:
    lp = _word("ab a")  # a - b - space - a - : eight frames
    assert align(lp, encode("ab a")).tolist() == [0, -1, 1, -1, 2, -1, 3, -1]
    # a repeated label needs the blank between its two frames
    assert align(_word("aa"), encode("aa")).tolist() == [0, -1, 1, -1]


def test_split_phrase_cuts_the_frames_at_the_spaces() -> None:
    lp = _word("во время")
    assert split_phrase(lp, "во время") == [(0, 4), (5, 16)]  # frame 4 is the space
    assert split_phrase(lp[:3], "во время") is None  # more labels than frames: no alignment


def test_numbers_are_kept_as_the_free_beam_reads_them() -> None:
    assert is_number("01.08.2016") and is_number("1999 г.") and is_number("12:30")
    assert not is_number("гор.") and not is_number("5 мая") and not is_number("4о") and not is_number("6")
    assert not is_number("")
    readings = ("1o752", "о448", "1999 г.", "12:3o", "no")
    assert [as_number(t) for t in readings] == ["10752", "0448", "1999 г.", "12:30", "no"]
    decoder = LexiconDecoder({"мало": 6.0, "years": 5.0}, oov=-1e9)  # no escape for words
    assert decoder.decode(_word("01.08.2016"), ["01.08.2016"]) == "01.08.2016"
    text, score = decoder.decode_scored(_word("1999 г."), ["1999 г."])
    assert text == "1999 г." and score == pytest.approx(
        float(ctc_forward(_word("1999 г."), np.array([encode(text)]), np.array([7]))[0])
    )


def test_phrases_are_decoded_word_by_word() -> None:
    decoder = LexiconDecoder({"во": 6.0, "время": 6.0, "вовремя": 5.0, "место": 5.0})
    lp = _word("во время", first={"в": 0.5, "б": 0.4})
    assert decoder.decode(lp, ["во врема"]) == "во время"  # each part is a lexicon word
    assert decoder.decode(_word("вовремя"), ["вовремя"]) == "вовремя"
    # a number inside a phrase stays as read; the words around it go through the lexicon
    assert decoder.decode(_word("5 место"), ["5 мeсто"]) == "5 место"


def test_script_evidence_moves_a_look_alike_word_to_the_head_s_alphabet() -> None:
    # "сар" / "car": the first two letters look alike; the head also gives Cyrillic-only letters some mass
    spec = [
        {"c": 0.45, "с": 0.45},
        {"": 0.9},
        {"a": 0.45, "а": 0.35, "я": 0.1},
        {"": 0.9},
        {"r": 0.5, "г": 0.3, "ы": 0.1},
        {"": 0.9},
    ]
    lp = _frames(spec)
    assert script_evidence(lp) > 0
    words = {"car": 5.0, "саг": 5.0}
    assert LexiconDecoder(words, script_weight=0.0, script_prior=0.0).decode(lp, ["car"]) == "car"
    assert LexiconDecoder(words, script_weight=4.0, script_prior=0.0).decode(lp, ["car"]) == "саг"


def test_a_phrase_is_read_in_one_alphabet() -> None:
    """Its first word alone reads best in Latin letters ("no"), but the second has only a Cyrillic
    reading, so the phrase is read in Cyrillic."""
    decoder = LexiconDecoder({"no": 6.0, "по": 6.0, "время": 5.0})
    lp = _word("no время", first={"n": 0.5, "п": 0.45})
    assert decoder.decode(lp[:4], ["no"]) == "no"
    assert decoder.decode(lp, ["no время"]) == "по время"


def test_free_readings_compete_in_each_alphabet_and_casing() -> None:
    assert _free_variants(["renee", "menee", "теперь"]) == [
        ("renee", 2),
        ("Renee", 2),
        ("RENEE", 2),
        ("теперь", 1),
        ("Теперь", 1),
        ("ТЕПЕРЬ", 1),
    ]
    assert _free_variants(["WLNs"]) == [("WLNs", 2), ("wlns", 2), ("Wlns", 2), ("WLNS", 2)]
    assert _free_variants(["5", "s"]) == [("5", 0)]  # no letters: it stands for both alphabets
    assert [case_of(w) for w in ("в", "В", "Как", "КАК", "WLNs", "LA.", "5")] == [
        "lower",
        "capitalised",
        "capitalised",
        "upper",
        "mixed",
        "upper",
        "lower",
    ]


def test_case_and_script_priors_decide_what_the_image_leaves_open() -> None:
    even_case = _frames([{"в": 0.45, "В": 0.45}, {"": 0.9}])
    words = {"в": 7.0}
    capital = {"lower": 0.0, "capitalised": -1.0, "upper": -3.0, "mixed": -8.0}
    assert LexiconDecoder(words, case_priors=capital).decode(even_case, ["В"]) == "в"
    assert LexiconDecoder(words, case_priors=capital | {"capitalised": 1.0}).decode(even_case, ["в"]) == "В"
    # a look-alike word: "сар" or "car"; the script prior settles it
    even_script = _frames(
        [{"c": 0.45, "с": 0.45}, {"": 0.9}, {"a": 0.45, "а": 0.45}, {"": 0.9}, {"r": 0.45, "г": 0.45}]
    )
    both = {"car": 5.0, "саг": 5.0}
    assert LexiconDecoder(both, script_prior=0.5).decode(even_script, ["car"]) == "саг"
    assert LexiconDecoder(both, script_prior=-0.5).decode(even_script, ["саг"]) == "car"
    # a punctuation mark the head barely sees is left off
    assert LexiconDecoder({"years": 5.0}, suffix_prior=-2.0).decode(_word("years"), ["years"]) == "years"


def test_open_decoding_wins_when_the_lexicon_word_is_much_less_likely() -> None:
    """A name the lexicon lacks ("Glosaer") is kept as read; with no room for words outside the
    lexicon (``oov`` far below) the nearest word would be taken."""
    lp = _word("Glosaer", first={"G": 0.8, "C": 0.05})
    words = {"closer": 4.6, "closet": 3.5}  # their zipf frequencies; "Closer" is 9.9 nats less likely
    assert LexiconDecoder(words).decode(lp, ["Glosaer"]) == "Glosaer"
    assert LexiconDecoder(words, oov=-1e9).decode(lp, ["Glosaer"]) == "Closer"


def test_orientation_goes_to_the_view_that_reads_as_a_word() -> None:
    """A sideways view the upright score prefers still loses when only the other view spells a likely word."""
    upright_view = _word("place")
    sideways_view = _frames([{"": 0.3, "q": 0.2, "j": 0.2, "x": 0.2}] * len(upright_view))
    lp = np.stack([sideways_view, upright_view])
    decoder = LexiconDecoder({"place": 5.0, "years": 5.0})
    assert pick_readings(lp, np.array([1.0, -0.5]), (0, 0), 1, decoder) == ["place"]
    # A sample with no rows (unreadable image) gets the empty string; a dummy row (-1) is nobody's.
    assert pick_readings(lp, np.zeros(2), (1, -1), 2, decoder)[0] == ""


def test_pick_readings_takes_the_lexicon_word_over_the_free_reading() -> None:
    lp = _word("years", first={"g": 0.5, "y": 0.4})[None]
    assert free_readings(lp[:1])[0][0] == "gears"  # the free beam alone reads the likelier first letter
    decoder = LexiconDecoder({"years": 5.0, "place": 5.0})
    assert pick_readings(lp, np.zeros(1), (0,), 1, decoder) == ["years"]


# Head outputs of real crops (fb_sample and the style-held-out set) with their free readings and the
# readings and scores the per-crop decoder gave them: first recorded at commit 3982046, regenerated for
# issue #49 (one-alphabet beam, spelling and open-vocabulary priors: "Place" -> "place", "Printed," ->
# "Printed", the scores of "WINS" and "5" lower by the priors, the beam's readings of the fifth row in one
# alphabet); the batched decoder must give the same readings, and the same scores up to the last bits a
# float sum may differ in between CPUs (3.314547730887052 on an AVX2 machine for 3.3145477308870515 with
# AVX-512).
ROWS = Path(__file__).parent / "data" / "decoder_rows"


@pytest.fixture(scope="module")
def real_rows() -> tuple[np.ndarray, np.ndarray, dict]:
    with np.load(ROWS.with_suffix(".npz")) as data:
        log_probs, upright = data["log_probs"], data["upright"]
    return log_probs, upright, json.loads(ROWS.with_suffix(".json").read_text(encoding="utf-8"))


def test_real_rows_decode_as_recorded_batched_or_per_crop(real_rows) -> None:  # type: ignore[no-untyped-def]
    log_probs, _, expected = real_rows
    decoder = shared_decoder()
    free = [free_readings(lp[None])[0] for lp in log_probs]
    assert free == [row["free"] for row in expected["rows"]]
    batch = decoder.decode_batch(log_probs, free)
    assert_same_answers(batch, [(row["text"], row["score"]) for row in expected["rows"]], rel=1e-9)
    alone = [decoder.decode_scored(lp, f) for lp, f in zip(log_probs, free, strict=True)]
    assert_same_answers(alone, batch, rel=1e-9)
    views = expected["views_of_one_crop"]
    assert pick_readings(log_probs[views], real_rows[1][views], (0, 0, 0), 1, decoder) == expected["picked"]


def test_batched_forward_scores_each_job_as_alone() -> None:
    rng = np.random.default_rng(0)
    lps = np.log(rng.dirichlet(np.full(NUM_CLASSES, 0.1), size=(3, 12)))
    jobs = []
    for row, width in ((0, 3), (1, 5), (2, 3), (0, 1)):
        labels = rng.integers(1, NUM_CLASSES, size=(4, width))
        labels[1, 1:] = 0
        jobs.append((row, labels, np.maximum((labels > 0).sum(1), 1)))
    scores = _forward_jobs(np.exp(lps).transpose(1, 0, 2), jobs)
    for (row, labels, lengths), got in zip(jobs, scores, strict=True):
        np.testing.assert_allclose(got, ctc_forward(lps[row], labels, lengths), rtol=1e-9)


def test_shortlist_ranks_by_shared_bigrams_within_the_length_window() -> None:
    words = {
        "years": 5.0,
        "gears": 4.0,
        "yeast": 3.0,
        "ears": 6.0,
        "place": 5.5,
        "y": 7.0,
        "yearly": 2.0,
        "zzzzzzzz": 1.0,
    }
    decoder = LexiconDecoder(words, shortlist=3, length_slack=1)

    def bigrams(w: str) -> set[str]:
        return {f"^{w}$"[i : i + 2] for i in range(len(w) + 1)}

    query = bigrams("gears")
    expected = sorted(
        (w for w in words if 4 <= len(w) <= 6 and query & bigrams(w)),
        key=lambda w: (-len(query & bigrams(w)), -words[w]),
    )[:3]
    assert sorted(decoder.words[i] for i in decoder.candidates(["Gears!"])) == sorted(expected)
    assert decoder.decode_batch(np.zeros((0, 4, NUM_CLASSES)), []) == []


def test_a_row_s_spellings_are_labelled_as_wide_as_the_longest() -> None:
    # The width of an exact pass changes its last bits (padding states share each frame's rescaling):
    # a row's labels are max(1, longest spelling) wide, whatever width its parts were built at.
    decoder = LexiconDecoder({"ab": 5.0})
    free = decoder._free(["x"])
    unfit = _Spellings.join(decoder._variants(np.array([-np.inf]), np.array([0])), free)
    assert unfit.texts == ["x", "X"] and unfit.labels.shape == (2, 1)
    row = _Spellings.join(decoder._variants(np.array([-1.0]), np.array([0])), free)
    suffixes = decoder.suffixes
    assert row.texts == [f + s for f in ("ab", "Ab", "AB") for s in suffixes] + ["x", "X"]
    assert row.labels.shape == (23, 3)
    for text, labels, length in zip(row.texts, row.labels, row.lengths, strict=True):
        assert labels[:length].tolist() == encode(text) and not labels[length:].any()
    capitalised_comma = row.texts.index("Ab,")
    assert row.priors[capitalised_comma] == (8.0 * 5.0 / 8.0 + 0.0) + -1.0 + -2.0
    assert row.scripts.tolist() == [2] * 23
