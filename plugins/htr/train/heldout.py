"""The style-held-out HTR dev set: words written in styles that no training run uses.

Every earlier rendered dev set was drawn with the training fonts, so it measured
how well the head reads the styles it was trained on. This set measures what the
real task needs: reading writing styles never seen in training.

Version ``HELDOUT_VERSION`` is defined by:

* words: ``words.RunningTextSampler`` (wordfreq ru + en, drawn by corpus frequency,
  with the real crops' casing and punctuation), ``random.Random(HELDOUT_SEED)``;
* styles, alternating per word: (a) a handwriting font family in ``HELDOUT_FONTS``
  (Fontsource npm packages that neither ``plugins.htr.train.fontsource.NPM_FONTS`` nor the
  Debian ``FONT_PACKAGES`` contain; fetched into ``HELDOUT_FONT_DIR``), drawn with
  the font renderer's augmentations; (b) the pen-stroke renderer with a Hershey set
  in ``HELDOUT_HERSHEY_SETS`` and a pen style in ``HELDOUT_PEN_STYLES``;
* 10 % of the crops turned sideways (90 or 270 degrees), as in the other sets.

Training code refuses these: ``render.find_fonts`` skips any font file of a
held-out family, ``pen.PenRenderer(training=True)`` drops the held-out Hershey
sets and pen styles, and ``fontsource.NPM_FONTS`` must not name a held-out
family (a test checks it). The images are not committed; the set is regenerated
deterministically (``python -m bench.htr_heldout_set --write DIR``) and its gold
labels' SHA-256 (``labels_sha256``) shows whether a regeneration matches.

This module is a leaf (the lists and ``is_heldout_font``), which the renderers import;
the set's builder is ``bench/htr_heldout_set.py``. Set-up: ``apt-get install -y
hershey-fonts-data`` and ``python -m bench.htr_heldout_set --fetch`` (npm pack of the
held-out families).

Cyrillic caveat: the held-out Cyrillic pen set ``cyrilc_1`` lacks Ъ Ы Ь Э Ю Я Ё;
those letters come from ``cyrillic.jhf``, which training uses (an upright roman
design; Hershey has no Cyrillic script).
"""

from __future__ import annotations

from pathlib import Path

HELDOUT_VERSION = "v1"
HELDOUT_SEED = 17_2026
HELDOUT_SIZE = 400
SIDEWAYS_SHARE = 0.1

# (Fontsource package, styles, has Cyrillic). Looked at each: real handwriting or
# pen-like faces, not in any training list. (Amatic SC, capitals only, was left out.)
HELDOUT_FONTS: tuple[tuple[str, tuple[str, ...], bool], ...] = (
    ("pattaya", ("400-normal",), True),  # Cyrillic brush script
    ("klee-one", ("400-normal",), True),  # pencil-like print handwriting with Cyrillic
    ("rock-salt", ("400-normal",), False),
    ("just-me-again-down-here", ("400-normal",), False),
    ("dekko", ("400-normal",), False),
    ("the-girl-next-door", ("400-normal",), False),
)
HELDOUT_FAMILIES = tuple(pkg for pkg, _, _ in HELDOUT_FONTS)
HELDOUT_HERSHEY_SETS = ("scriptc", "cyrilc_1", "timesi")
HELDOUT_PEN_STYLES = ("fountain", "pencil")


def heldout_font_dir() -> Path:
    from plugins.htr.train.fontsource import FONT_DIR

    return FONT_DIR / "heldout"


def is_heldout_font(path: str | Path) -> bool:
    """True for a font file of a held-out family (by Fontsource file name ``<family>-<weight>-<style>.ttf``)."""
    name = Path(path).name.lower()
    return any(name.startswith(f"{family}-") for family in HELDOUT_FAMILIES)
