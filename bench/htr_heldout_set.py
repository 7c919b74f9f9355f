"""Build the style-held-out HTR dev set (``plugins.htr.train.heldout`` defines it).

    python -m bench.htr_heldout_set --fetch          # npm pack the held-out font families
    python -m bench.htr_heldout_set --write DIR [-n 400]

Kept out of the trainer: it draws with the held-out styles, which training refuses.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
from collections.abc import Sequence
from pathlib import Path

from plugins.htr.train.heldout import (
    HELDOUT_FAMILIES,
    HELDOUT_FONTS,
    HELDOUT_HERSHEY_SETS,
    HELDOUT_PEN_STYLES,
    HELDOUT_SEED,
    HELDOUT_SIZE,
    HELDOUT_VERSION,
    SIDEWAYS_SHARE,
    heldout_font_dir,
)

__all__ = ["HELDOUT_FAMILIES", "HELDOUT_SIZE", "HELDOUT_VERSION", "generate", "labels_sha256", "write_set"]


def fetch_heldout_fonts(dest: Path | None = None) -> list[Path]:
    from plugins.htr.train.fontsource import fetch

    dest = heldout_font_dir() if dest is None else dest
    return fetch(dest, [(pkg, styles, 1.0) for pkg, styles, _ in HELDOUT_FONTS])


def heldout_fonts(dest: Path | None = None):  # noqa: ANN201 - list[render.FontInfo]
    """The held-out font files present, with their Cyrillic coverage checked."""
    from fontTools.ttLib import TTFont

    from plugins.htr.charset import CYRILLIC, LATIN
    from plugins.htr.train.render import FontInfo

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
    from plugins.htr.train.pen import PenRenderer
    from plugins.htr.train.render import WordRenderer
    from plugins.htr.train.words import RunningTextSampler

    fonts = heldout_fonts()
    if len(fonts) != sum(len(s) for _, s, _ in HELDOUT_FONTS):
        missing = f"held-out fonts missing in {heldout_font_dir()}"
        raise RuntimeError(f"{missing}; run python -m bench.htr_heldout_set --fetch")
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
