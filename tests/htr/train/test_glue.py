"""The CoMNIST letter loader and the glued-word renderer, on a tiny synthetic letter folder
(drawn here: the real letters are a training-time download and never needed by the tests)."""

from __future__ import annotations

import dataclasses
import json
import random
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw

from plugins.htr.train import comnist, fit
from plugins.htr.train.glue import GlueRenderer, extent

pytest.importorskip("cv2")

LETTERS = "АБВГДЕЁЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯ"


def _letter_png(path: Path, k: int, *, inverted: bool = False, mode: str = "RGB") -> None:
    """A 28 x 28 'letter': a black stroke figure on white (or white on black), shape varied by ``k``."""
    img = Image.new("L", (28, 28), 255)
    draw = ImageDraw.Draw(img)
    draw.line((4 + k % 5, 4, 14, 23 - k % 4), fill=0, width=3)
    draw.line((14, 23 - k % 4, 22 - k % 3, 6), fill=0, width=3)
    if inverted:
        img = Image.eval(img, lambda v: 255 - v)
    img.convert(mode).save(path)


@pytest.fixture
def letter_dir(tmp_path: Path) -> Path:
    root = tmp_path / "comnist"
    for i, letter in enumerate(LETTERS):
        folder = root / "Cyrillic" / letter
        folder.mkdir(parents=True)
        for k in range(2):
            _letter_png(folder / f"{i}_{k}.png", i + k)
    Image.new("RGB", (28, 28), (255, 255, 255)).save(root / "Cyrillic" / "А" / "blank.png")
    return root


def test_load_letters_reads_ink_crops_and_skips_blanks(letter_dir: Path) -> None:
    letters = comnist.load_letters(letter_dir)
    assert set(letters) == set(LETTERS)
    assert comnist.describe(letters) == dict.fromkeys(LETTERS, 2)  # the blank image is skipped
    mask = letters["Ж"][0]
    assert mask.dtype == np.uint8 and mask.ndim == 2
    assert mask.shape[0] < 28 and mask.shape[1] < 28  # cropped to the ink
    assert mask.max() > 200  # black strokes on white became bright ink
    assert mask[0].max() > 40 and mask[:, 0].max() > 40  # the crop touches its ink on the edges
    # The second load comes from letters.npz and gives the same masks.
    assert (letter_dir / comnist.CACHE_NAME).exists()
    again = comnist.load_letters(letter_dir)
    assert all(np.array_equal(a, b) for k in letters for a, b in zip(letters[k], again[k], strict=True))


def test_ink_mask_handles_polarity_and_alpha(tmp_path: Path) -> None:
    _letter_png(tmp_path / "dark.png", 1, inverted=True)
    _letter_png(tmp_path / "light.png", 1)
    with Image.open(tmp_path / "dark.png") as a, Image.open(tmp_path / "light.png") as b:
        assert np.array_equal(comnist.ink_mask(a), comnist.ink_mask(b))
    rgba = Image.new("RGBA", (28, 28), (0, 0, 0, 0))  # transparent paper, opaque black stroke
    ImageDraw.Draw(rgba).line((3, 3, 20, 20), fill=(0, 0, 0, 255), width=3)
    ink = comnist.ink_mask(rgba)
    assert ink[0, 27] == 0 and ink[10, 10] == 255


def test_load_letters_says_how_to_fetch_when_missing(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="plugins.htr.train.comnist"):
        comnist.load_letters(tmp_path)


def test_glue_writes_russian_words_only(letter_dir: Path) -> None:
    glue = GlueRenderer(comnist.load_letters(letter_dir))
    assert glue.can_write("книга") and glue.can_write("во время,") and glue.can_write("р-н") and glue.can_write("гор.")
    assert not glue.can_write("1999") and not glue.can_write("word") and not glue.can_write("№ 5")
    assert not glue.can_write(" .")  # marks alone are no word
    with pytest.raises(ValueError, match="cannot glue"):
        glue.ink("abc", random.Random(0))


def test_glue_ink_is_deterministic_in_the_seed_and_sized_by_the_letters(letter_dir: Path) -> None:
    glue = GlueRenderer(comnist.load_letters(letter_dir))
    a = glue.ink("привет", random.Random(5))
    b = glue.ink("привет", random.Random(5))
    assert a.dtype == np.uint8 and a.ndim == 2 and np.array_equal(a, b)
    assert not np.array_equal(a, glue.ink("привет", random.Random(6)))
    st = glue.style(random.Random(1))
    short, long = glue.ink("да", random.Random(2), st), glue.ink("дадада", random.Random(2), st)
    assert long.shape[1] > 2 * short.shape[1]
    # Descenders and capitals reach further than x-height letters in the same hand.
    assert extent("р")[1] < 0 and extent("Р")[0] > extent("р")[0] and extent("б")[0] > 1
    flat = glue.ink("ононон", random.Random(3), st)
    tall = glue.ink("ОНОНОН", random.Random(3), st)
    assert tall.shape[0] > flat.shape[0]


def test_glue_render_is_a_crop_like_the_other_regimes(letter_dir: Path) -> None:
    glue = GlueRenderer(comnist.load_letters(letter_dir))
    img = glue.render("во время", random.Random(11))
    again = glue.render("во время", random.Random(11))
    assert img.mode == "RGB" and img.width > img.height > 4
    assert np.array_equal(np.asarray(img), np.asarray(again))


def test_word_batches_glue_a_share_of_the_russian_words(letter_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``glue_share`` sends writable words to the glue renderer and the rest to the fonts."""
    letters = comnist.load_letters(letter_dir)
    monkeypatch.setattr(comnist, "load_letters", lambda *a, **k: letters)
    calls: list[str] = []

    class Fonts:
        def render(self, text: str, rng: random.Random) -> Image.Image:
            calls.append("font:" + text)
            return Image.new("RGB", (80, 20), (200, 200, 200))

    class Words:
        def __init__(self) -> None:
            self.texts = iter(["мир", "word", "во время", "1999", "дом"] * 4)

        def sample(self, rng: random.Random) -> str:
            return next(self.texts)

    batches = fit.WordBatches()
    batches._fonts = (Fonts(), Words())
    words, texts, upright = batches(20, 3, rotated_share=0.0, glue_share=1.0)
    assert len(words) == 20 and all(w.shape == (fit.HEIGHT, fit.HEIGHT * fit.WIDTH // fit.HEIGHT, 3) for w in words)
    assert sorted(set(calls)) == ["font:1999", "font:word"]  # every Russian word was glued
    assert texts.count("мир") == 4 and upright == [1] * 20


def test_extract_unpacks_a_bare_repository(tmp_path: Path, letter_dir: Path) -> None:
    import shutil
    import subprocess

    if shutil.which("git") is None:
        pytest.skip("git not installed")
    work = tmp_path / "work"
    shutil.copytree(letter_dir / "Cyrillic", work / "Cyrillic")
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    run = lambda *args: subprocess.run(["git", "-C", str(work), *args], check=True, capture_output=True, env=env)  # noqa: E731
    run("init", "-q")
    run("add", ".")
    run("commit", "-qm", "letters")
    commit = subprocess.run(
        ["git", "-C", str(work), "rev-parse", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    dest = comnist.extract(work / ".git", tmp_path / "out", commit)
    manifest = json.loads((dest / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["commit"] == commit and manifest["licence"] == comnist.LICENCE
    assert manifest["total"] == 2 * len(LETTERS) + 1 and manifest["counts"]["А"] == 3
    assert comnist.describe(comnist.load_letters(dest)) == dict.fromkeys(LETTERS, 2)


def test_thin_reduces_a_thick_stroke_to_its_centre_line() -> None:
    from plugins.htr.train.glue import thin

    bar = np.zeros((12, 30), bool)
    bar[3:9, 4:26] = True  # a 6 px thick horizontal stroke
    line = thin(bar)
    assert line.sum() > 10 and line.sum() < bar.sum() / 3
    assert set(np.nonzero(line.any(axis=1))[0]) <= {5, 6}  # the centre rows only
    assert not (line & ~bar).any()


def test_restroke_draws_letters_with_the_words_pen(letter_dir: Path) -> None:
    letters = comnist.load_letters(letter_dir)
    style = GlueRenderer(letters).style(random.Random(4))
    thin_pen = dataclasses.replace(style, pen=1.0, joined=False)
    thick_pen = dataclasses.replace(thin_pen, pen=5.0)
    a = GlueRenderer(letters, restroke=True).ink("жжж", random.Random(1), thin_pen)
    b = GlueRenderer(letters, restroke=True).ink("жжж", random.Random(1), thick_pen)
    assert (b > 127).sum() > 2 * (a > 127).sum()
    # Without restroking, the letters keep their own (scaled) strokes whatever the pen.
    c = GlueRenderer(letters).ink("жжж", random.Random(1), thin_pen)
    d = GlueRenderer(letters).ink("жжж", random.Random(1), thick_pen)
    assert np.array_equal(c, d)
