"""The style-held-out HTR dev set: words written in styles that no training run uses.

Every earlier rendered dev set was drawn with the training fonts, so it measured
how well the head reads the styles it was trained on. This set measures what the
real task needs: reading writing styles never seen in training.

Version ``HELDOUT_VERSION`` is defined by:

* words: ``words.RunningTextSampler`` (wordfreq ru + en, drawn by corpus frequency,
  with the real crops' casing and punctuation), ``random.Random(HELDOUT_SEED)``;
* styles, alternating per word: (a) a handwriting font family in ``HELDOUT_FONTS``
  (Fontsource npm packages that neither ``plugins.htr.fontsource.NPM_FONTS`` nor the
  Debian ``FONT_PACKAGES`` contain; fetched into ``HELDOUT_FONT_DIR``), drawn with
  the font renderer's augmentations; (b) the pen-stroke renderer with a Hershey set
  in ``HELDOUT_HERSHEY_SETS`` and a pen style in ``HELDOUT_PEN_STYLES``;
* 10 % of the crops turned sideways (90 or 270 degrees), as in the other sets.

Training code refuses these: ``render.find_fonts`` skips any font file of a
held-out family, ``pen.PenRenderer(training=True)`` drops the held-out Hershey
sets and pen styles, and ``fontsource.NPM_FONTS`` must not name a held-out
family (a test checks it). The images are not committed; the set is regenerated
deterministically (``python bench/htr_heldout.py --write DIR``) and its gold
labels' SHA-256 (``labels_sha256``) shows whether a regeneration matches.

Set-up: ``apt-get install -y hershey-fonts-data`` and
``python -m plugins.htr.heldout --fetch`` (npm pack of the held-out families).

Cyrillic caveat: the held-out Cyrillic pen set ``cyrilc_1`` lacks Ъ Ы Ь Э Ю Я Ё;
those letters come from ``cyrillic.jhf``, which training uses (an upright roman
design; Hershey has no Cyrillic script).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
from collections.abc import Sequence
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
    from plugins.htr.fontsource import FONT_DIR

    return FONT_DIR / "heldout"


def is_heldout_font(path: str | Path) -> bool:
    """True for a font file of a held-out family (by Fontsource file name ``<family>-<weight>-<style>.ttf``)."""
    name = Path(path).name.lower()
    return any(name.startswith(f"{family}-") for family in HELDOUT_FAMILIES)


def fetch_heldout_fonts(dest: Path | None = None) -> list[Path]:
    from plugins.htr.fontsource import fetch

    dest = heldout_font_dir() if dest is None else dest
    return fetch(dest, [(pkg, styles, 1.0) for pkg, styles, _ in HELDOUT_FONTS])


def heldout_fonts(dest: Path | None = None):  # noqa: ANN201 - list[render.FontInfo]
    """The held-out font files present, with their Cyrillic coverage checked."""
    from fontTools.ttLib import TTFont

    from plugins.htr.charset import CYRILLIC, LATIN
    from plugins.htr.render import FontInfo

    dest = heldout_font_dir() if dest is None else dest
    fonts = []
    for pkg, styles, _ in HELDOUT_FONTS:
        for style in styles:
            path = dest / f"{pkg}-{style}.ttf"
            if not path.exists():
                continue
            chars = {chr(c) for c in (TTFont(str(path), lazy=True).getBestCmap() or {})}
            if set(LATIN) <= chars or set(LATIN.lower()) <= chars:
                fonts.append(FontInfo(str(path), 1.0, set(CYRILLIC) <= chars))
    return fonts


def generate(n: int = HELDOUT_SIZE, seed: int = HELDOUT_SEED):  # noqa: ANN201 - Iterator[(PIL image, text, kind)]
    """Yield ``(image, text, kind)`` for the ``n`` crops of the set, deterministically.

    ``kind`` is ``"font:<file>"`` or ``"pen:<set>/<style>"``. Needs the held-out fonts
    (``--fetch``) and the Hershey files; raises if either is missing.
    """
    from plugins.htr.pen import PenRenderer
    from plugins.htr.render import WordRenderer
    from plugins.htr.words import RunningTextSampler

    fonts = heldout_fonts()
    if len(fonts) != sum(len(s) for _, s, _ in HELDOUT_FONTS):
        raise RuntimeError(f"held-out fonts missing in {heldout_font_dir()}; run python -m plugins.htr.heldout --fetch")
    font_renderer = WordRenderer(fonts)
    pen = PenRenderer(HELDOUT_HERSHEY_SETS, HELDOUT_PEN_STYLES, training=False)
    sampler = RunningTextSampler()
    rng = random.Random(seed)
    for i in range(n):
        text = sampler.sample(rng)
        if i % 2 == 0:
            font = font_renderer.pick_font(text, rng)
            img = font_renderer.render(text, rng, font=font)
            kind = f"font:{Path(font.path).name}"
        else:
            while not pen.can_write(text):
                text = sampler.sample(rng)
            set_name = pen.pick_set(text, rng)
            style = HELDOUT_PEN_STYLES[rng.randrange(len(HELDOUT_PEN_STYLES))]
            img = pen.render(text, rng, set_name=set_name, style=style)
            kind = f"pen:{set_name}/{style}"
        if rng.random() < SIDEWAYS_SHARE:
            img = img.rotate(rng.choice((90, 270)), expand=True)
        yield img, text, kind


def write_set(out: Path, n: int = HELDOUT_SIZE, seed: int = HELDOUT_SEED) -> dict[str, str]:
    """Write the set in the challenge layout: ``out/input/HTR/images/*.png`` and ``out/true/HTR/true_HTR.json``.

    Also ``out/kinds.json`` (the style of each crop) and ``out/heldout.json`` (version, seed, labels' SHA-256).
    """
    images = out / "input" / "HTR" / "images"
    images.mkdir(parents=True, exist_ok=True)
    gold, kinds = {}, {}
    for i, (img, text, kind) in enumerate(generate(n, seed)):
        name = f"{i:04d}.png"
        img.save(images / name)
        gold[name] = text
        kinds[name] = kind
    true = out / "true" / "HTR"
    true.mkdir(parents=True, exist_ok=True)
    (true / "true_HTR.json").write_text(json.dumps(gold, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
    (out / "kinds.json").write_text(json.dumps(kinds, indent=0) + "\n")
    meta = {"version": HELDOUT_VERSION, "seed": seed, "n": n, "labels_sha256": labels_sha256(gold)}
    (out / "heldout.json").write_text(json.dumps(meta, indent=1) + "\n")
    return gold


def labels_sha256(gold: dict[str, str]) -> str:
    return hashlib.sha256(json.dumps(gold, ensure_ascii=False, sort_keys=True).encode()).hexdigest()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fetch", action="store_true", help="npm pack the held-out font families")
    parser.add_argument("--write", type=Path, default=None, help="write the set into this folder")
    parser.add_argument("-n", type=int, default=HELDOUT_SIZE)
    args = parser.parse_args(argv)
    if args.fetch:
        print(f"{len(fetch_heldout_fonts())} held-out fonts in {heldout_font_dir()}")
    if args.write:
        gold = write_set(args.write, args.n)
        print(f"{len(gold)} crops in {args.write}; labels sha256 {labels_sha256(gold)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
