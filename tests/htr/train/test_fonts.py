"""Training-font plumbing: Fontsource subsets merge into one face, and ``find_fonts`` picks it up.

The fonts are built here with fontTools (a square per character), so the tests
need neither the network nor installed font packages.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("fontTools")

from fontTools.fontBuilder import FontBuilder  # noqa: E402
from fontTools.pens.ttGlyphPen import TTGlyphPen  # noqa: E402
from fontTools.ttLib import TTFont  # noqa: E402

from plugins.htr.charset import CYRILLIC, LATIN  # noqa: E402
from plugins.htr.train import fontsource  # noqa: E402
from plugins.htr.train.render import find_fonts  # noqa: E402


def make_font(path: Path, chars: str, *, flavor: str | None = None) -> None:
    """A TrueType font with a square glyph for every character of ``chars``."""
    names = [".notdef"] + [f"uni{ord(c):04X}" for c in chars]
    pen = TTGlyphPen(None)
    pen.moveTo((50, 0))
    pen.lineTo((50, 500))
    pen.lineTo((450, 500))
    pen.lineTo((450, 0))
    pen.closePath()
    square = pen.glyph()
    fb = FontBuilder(1000, isTTF=True)
    fb.setupGlyphOrder(names)
    fb.setupCharacterMap({ord(c): n for c, n in zip(chars, names[1:], strict=True)})
    fb.setupGlyf({n: square for n in names})
    fb.setupHorizontalMetrics({n: (500, 50) for n in names})
    fb.setupHorizontalHeader(ascent=800, descent=-200)
    fb.setupNameTable({"familyName": "Test", "styleName": "Regular"})
    fb.setupOS2()
    fb.setupPost()
    if flavor:
        fb.font.flavor = flavor
    fb.save(str(path))


def test_merge_subsets_covers_every_subset(tmp_path: Path) -> None:
    make_font(tmp_path / "t-latin-400-normal.woff", LATIN + ".", flavor="woff")
    make_font(tmp_path / "t-cyrillic-400-normal.woff", CYRILLIC, flavor="woff")
    out = tmp_path / "t-400-normal.ttf"
    fontsource.merge_subsets([tmp_path / "t-latin-400-normal.woff", tmp_path / "t-cyrillic-400-normal.woff"], out)
    font = TTFont(str(out))
    assert font.flavor is None  # plain TTF, which every FreeType build opens
    chars = {chr(c) for c in font.getBestCmap()}
    assert set(LATIN + CYRILLIC + ".") <= chars


def test_find_fonts_reads_the_npm_folder_with_its_weights(tmp_path: Path) -> None:
    npm = tmp_path / "npm"
    npm.mkdir()
    make_font(npm / "bad-script-400-normal.ttf", LATIN + CYRILLIC)
    make_font(npm / "handlee-400-normal.ttf", LATIN)
    make_font(npm / "not-listed-400-normal.ttf", LATIN + CYRILLIC)  # unknown files are ignored
    make_font(npm / "caveat-400-normal.ttf", "abc" + CYRILLIC[:10])  # neither alphabet whole: skipped
    fonts = {
        Path(f.path).name: f
        for f in find_fonts(root=tmp_path / "no-debian-fonts", npm_dir=npm, hand_dir=tmp_path / "no-hands")
    }
    assert set(fonts) == {"bad-script-400-normal.ttf", "handlee-400-normal.ttf"}
    weights = fontsource.font_weights()
    assert fonts["bad-script-400-normal.ttf"].cyrillic
    assert fonts["bad-script-400-normal.ttf"].weight == weights["bad-script-400-normal.ttf"]
    assert not fonts["handlee-400-normal.ttf"].cyrillic


def test_npm_font_list_names_each_style_once() -> None:
    names = [f"{pkg}-{style}" for pkg, styles, _ in fontsource.NPM_FONTS for style in styles]
    assert len(names) == len(set(names))
    assert all(w > 0 for _, _, w in fontsource.NPM_FONTS)


def test_cyrillic_only_hand_fonts_serve_russian_text_and_held_out_hands_never_train(tmp_path: Path) -> None:
    import random

    from plugins.htr.train import handfonts
    from plugins.htr.train.render import WordRenderer

    hands = tmp_path / "hands"
    hands.mkdir()
    make_font(hands / "werner2.ttf", CYRILLIC + " ,.")
    make_font(hands / "werner3.ttf", CYRILLIC + " 0123456789.")
    make_font(hands / handfonts.HELDOUT_HANDS[0], CYRILLIC)
    make_font(hands / handfonts.UNUSABLE_HANDS[0], CYRILLIC)
    make_font(hands / "notes.ttf", CYRILLIC)  # not a hand font's name
    npm = tmp_path / "npm"
    npm.mkdir()
    make_font(npm / "handlee-400-normal.ttf", LATIN + "0123456789.")
    fonts = {Path(f.path).name: f for f in find_fonts(root=tmp_path / "none", npm_dir=npm, hand_dir=hands)}
    assert set(fonts) == {"werner2.ttf", "werner3.ttf", "handlee-400-normal.ttf"}
    assert fonts["werner2.ttf"].cyrillic and not fonts["werner2.ttf"].latin
    assert fonts["werner2.ttf"].weight == handfonts.HAND_WEIGHT
    assert [p.name for p in handfonts.hand_fonts(hands, heldout=True)] == [handfonts.HELDOUT_HANDS[0]]
    renderer = WordRenderer(list(fonts.values()))
    rng = random.Random(0)
    # each text goes to a font with a glyph for every character of it
    picks = {
        text: {Path(renderer.pick_font(text, rng).path).name for _ in range(30)}
        for text in ("дом, сад", "12.05.2016", "word")
    }
    assert picks == {
        "дом, сад": {"werner2.ttf"},
        "12.05.2016": {"werner3.ttf", "handlee-400-normal.ttf"},
        "word": {"handlee-400-normal.ttf"},
    }
