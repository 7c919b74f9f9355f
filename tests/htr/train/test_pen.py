"""Hershey parsing, the pen-stroke renderer and the style-held-out set's exclusions.

The parser and the exclusion rules are checked on hand-written records, so they
run everywhere; the renderer tests need Debian's ``hershey-fonts-data`` and skip
without it.
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from plugins.htr.charset import CYRILLIC
from plugins.htr.train import fontsource, heldout, hershey
from plugins.htr.train.pen import PEN_STYLES

# Two records in the .jhf layout: "A"-like glyph (two strokes) and a wrapped record.
JHF = "    1  9MWRMNV RRMVV RPSTS\n    2  6JZNFNT\n RVFVT\n"


def test_parse_jhf_reads_bearings_strokes_and_wrapped_records() -> None:
    glyphs = hershey.parse_jhf(JHF)
    assert len(glyphs) == 2
    a = glyphs[0]
    assert (a.left, a.right, a.advance) == (-5, 5, 10)
    assert a.strokes == (((0, -5), (-4, 4)), ((0, -5), (4, 4)), ((-2, 1), (2, 1)))
    # The second record's vertices continue on the next line; " R" lifts the pen.
    assert glyphs[1].strokes == (((-4, -12), (-4, 2)), ((4, -12), (4, 2)))


def test_cyrillic_slot_tables_are_one_to_one() -> None:
    for name, slots in hershey.CYRILLIC_SLOTS.items():
        letters = list(slots.values())
        assert len(set(letters)) == len(letters), name
        assert set(letters) <= set(CYRILLIC)
    # cyrillic.jhf: every Russian letter but Ё/ё.
    assert set(CYRILLIC) - set(hershey.CYRILLIC_SLOTS["cyrillic"].values()) == {"Ё", "ё"}


def test_heldout_families_are_in_no_training_list() -> None:
    training = {pkg for pkg, _, _ in fontsource.NPM_FONTS}
    assert not training & set(heldout.HELDOUT_FAMILIES)
    assert heldout.is_heldout_font("/x/pattaya-400-normal.ttf")
    assert not heldout.is_heldout_font("/x/bad-script-400-normal.ttf")
    assert set(heldout.HELDOUT_PEN_STYLES) < set(PEN_STYLES)


def test_find_fonts_skips_heldout_families(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from plugins.htr.charset import LATIN
    from plugins.htr.train import render
    from tests.htr.train.test_fonts import make_font

    make_font(tmp_path / "pattaya-400-normal.ttf", LATIN + CYRILLIC)
    make_font(tmp_path / "caveat-400-normal.ttf", LATIN + CYRILLIC)
    monkeypatch.setattr(
        fontsource, "font_weights", lambda: {"pattaya-400-normal.ttf": 1.0, "caveat-400-normal.ttf": 1.0}
    )
    found = [Path(f.path).name for f in render.find_fonts(tmp_path / "none", npm_dir=tmp_path, hand_dir=tmp_path)]
    assert found == ["caveat-400-normal.ttf"]


needs_hershey = pytest.mark.skipif(not hershey.available(), reason="apt-get install -y hershey-fonts-data")


@needs_hershey
def test_training_pen_renderer_refuses_heldout_styles() -> None:
    from plugins.htr.train.pen import PenRenderer

    pen = PenRenderer()
    assert not set(pen.sets) & set(heldout.HELDOUT_HERSHEY_SETS)
    assert not {s.name for s in pen.styles} & set(heldout.HELDOUT_PEN_STYLES)
    with pytest.raises(ValueError, match="held out"):
        PenRenderer(["scriptc"], ["ballpoint"])
    with pytest.raises(ValueError, match="held out"):
        PenRenderer(["cursive"], ["fountain"])


@needs_hershey
def test_pen_renderer_writes_both_scripts_deterministically() -> None:
    from plugins.htr.train.pen import PenRenderer

    pen = PenRenderer()
    for word in ("привет", "ёж", "Hello,", "42%"):
        assert pen.can_write(word)
        a = np.asarray(pen.render(word, random.Random(3)))
        b = np.asarray(pen.render(word, random.Random(3)))
        assert a.shape[2] == 3 and a.shape[1] > a.shape[0] / 2
        assert np.array_equal(a, b)
        assert a.std() > 5  # ink on paper, not a blank crop
    # A held-out set/style pair only outside training.
    held = PenRenderer(heldout.HELDOUT_HERSHEY_SETS, heldout.HELDOUT_PEN_STYLES, training=False)
    assert held.render("мы", random.Random(0), set_name="cyrilc_1", style="fountain").size[0] > 0
