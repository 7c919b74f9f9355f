"""Synthetic handwritten-word crops for training (never imported at inference).

There is no public handwriting set to train on, so words are rendered with
handwriting-like and italic fonts and pushed towards what the challenge's crops
look like: a word cut out of a school copybook photo as a polygon on a black
background, squared (sometimes ruled) paper, blue or dark ink, slanted and
wobbly strokes, low resolution, camera blur and noise, occasionally rotated.

Fonts come from Debian packages (see ``FONT_PACKAGES``) and from npm's
Fontsource packages (``plugins.htr.train.fontsource``, which has the few real
Cyrillic handwriting faces); ``find_fonts`` checks each file's glyph coverage
with fontTools, so a font is used for Russian words only when it really has
Cyrillic glyphs.
"""

from __future__ import annotations

import logging
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from plugins.htr.charset import CYRILLIC, LATIN

log = logging.getLogger(__name__)

# Debian packages the training set-up installs (`apt-get install -y ...`).
FONT_PACKAGES = [
    "fonts-sjfonts",
    "fonts-nanum-extra",
    "fonts-urw-base35",
    "fonts-cmu",
    "fonts-paratype",
    "fonts-freefont-ttf",
    "fonts-sil-gentiumplus",
    "fonts-liberation2",
    "fonts-open-sans",
    "fonts-dejavu-core",
    "fonts-yanone-kaffeesatz",
    "fonts-comfortaa",
    "fonts-sil-andika",
    "fonts-bwht",
    "fonts-comic-neue",
    "fonts-dancingscript",
    "fonts-havana",
    "fonts-kaushanscript",
    "fonts-lobstertwo",
    "fonts-breip",
    "fonts-ecolier-court",
    "fonts-femkeklaver",
    "fonts-dkg-handwriting",
    "fonts-humor-sans",
    "fonts-kristi",
    "fonts-leckerli-one",
    "fonts-rufscript",
    "fonts-tomsontalks",
    "fonts-yusei-magic",
]
FONT_ROOT = Path("/usr/share/fonts")

# (file-name glob under FONT_ROOT, sampling weight). Handwriting-like faces weigh
# more; upright book faces are there for shape variety only. CJK fonts are left
# out on purpose: their Cyrillic is full-width and looks like no handwriting.
FONT_GLOBS: tuple[tuple[str, float], ...] = (
    ("**/SteveHand.ttf", 8.0),
    ("**/NanumPen.ttf", 4.0),
    ("**/NanumBrush.ttf", 3.0),
    ("**/NanumBarunpen*.ttf", 2.0),
    ("**/Z003-MediumItalic.otf", 4.0),
    ("**/cmun[bcsuv]i.ttf", 1.5),
    ("**/cmunti.ttf", 2.0),
    ("**/cmunit.ttf", 1.0),
    ("**/PT[SZ][57]6F.ttf", 2.0),
    ("**/PTF[57]6F.ttf", 0.7),
    ("**/FreeSerif*Italic.ttf", 1.0),
    ("**/FreeSans*Oblique.ttf", 0.5),
    ("**/Gentium*Italic.ttf", 1.0),
    ("**/LiberationSerif-*Italic.ttf", 0.7),
    ("**/LiberationSans-Italic.ttf", 0.4),
    ("**/OpenSans-*Italic.ttf", 0.4),
    ("**/DejaVuSans-Oblique.ttf", 0.3),
    ("**/DejaVuSerif-Italic.ttf", 0.5),
    ("**/NimbusRoman-Italic.otf", 0.5),
    ("**/C059-Italic.otf", 0.5),
    ("**/P052-Italic.otf", 0.5),
    ("**/URWBookman-LightItalic.otf", 0.5),
    ("**/YanoneKaffeesatz-Light.otf", 0.5),
    ("**/YanoneKaffeesatz-Regular.otf", 0.5),
    ("**/Comfortaa-Regular.ttf", 0.3),
    ("**/Andika-Regular.ttf", 0.3),
    ("**/BecauseWe*-Regular.otf", 1.5),
    ("**/ComicNeue-*.otf", 0.5),
    ("**/DancingScript-Regular.otf", 1.5),
    ("**/Havana-Regular.otf", 1.0),
    ("**/KaushanScript-Regular.otf", 1.0),
    ("**/LobsterTwo-Italic.otf", 0.7),
    ("**/Breip.ttf", 1.5),
    ("**/Ecolier-court.ttf", 1.5),
    ("**/femkeklaver.ttf", 1.5),
    ("**/dkg*.ttf", 1.0),
    ("**/Humor-Sans.ttf", 1.0),
    ("**/Kristi.ttf", 1.0),
    ("**/LeckerliOne-Regular.ttf", 0.5),
    ("**/Rufscript010.ttf", 1.0),
    ("**/Delphine.ttf", 1.0),
    ("**/TomsonTalks.ttf", 0.7),
    ("**/YuseiMagic-Regular.ttf", 1.0),
)


@dataclass(frozen=True, slots=True)
class FontInfo:
    path: str
    weight: float
    cyrillic: bool  # has every Russian letter
    latin: bool = True  # has every English letter (the real-hand fonts have none)
    chars: frozenset[str] = frozenset()  # every character with a glyph (empty: not checked)

    def covers(self, text: str) -> bool:
        """Whether every character of ``text`` has a glyph here (always, when ``chars`` is unknown)."""
        return not self.chars or set(text) <= self.chars


def find_fonts(root: Path = FONT_ROOT, npm_dir: Path | None = None, hand_dir: Path | None = None) -> list[FontInfo]:
    """Installed fonts that cover the Latin or the Cyrillic alphabet, their glyph coverage recorded.

    ``FONT_GLOBS`` under ``root`` (Debian), then the fonts ``plugins.htr.train.fontsource``
    fetched into ``npm_dir`` (default its ``FONT_DIR``), then the real-hand fonts
    ``plugins.htr.train.handfonts`` fetched into ``hand_dir`` (default its ``HAND_DIR``;
    Cyrillic only, its held-out hands refused); missing folders are skipped.
    """
    from fontTools.ttLib import TTFont

    from plugins.htr.train import fontsource, handfonts
    from plugins.htr.train.heldout import is_heldout_font

    npm_dir = fontsource.FONT_DIR if npm_dir is None else npm_dir
    hand_dir = handfonts.HAND_DIR if hand_dir is None else hand_dir
    candidates = [(path, weight) for pattern, weight in FONT_GLOBS for path in sorted(root.glob(pattern))]
    candidates += [(npm_dir / name, weight) for name, weight in fontsource.font_weights().items()]
    candidates += [(path, handfonts.HAND_WEIGHT) for path in handfonts.hand_fonts(hand_dir)]
    seen: set[Path] = set()
    fonts = []
    for path, weight in candidates:
        if path in seen or not path.exists():
            continue
        if is_heldout_font(path) or handfonts.is_heldout_hand(path):  # dev sets' styles never train
            log.warning("skipping held-out font %s", path)
            continue
        seen.add(path)
        try:
            cmap = TTFont(str(path), lazy=True).getBestCmap() or {}
        except Exception as exc:  # a broken font file must not stop training
            log.warning("skipping font %s: %s", path, exc)
            continue
        chars = frozenset(chr(c) for c in cmap)
        latin, cyrillic = set(LATIN) <= chars, set(CYRILLIC) <= chars
        if latin or cyrillic:
            fonts.append(FontInfo(str(path), weight, cyrillic, latin, chars))
    return fonts


class WordRenderer:
    """Draws one word as a copybook crop: ``render(text, rng) -> PIL RGB image``."""

    def __init__(self, fonts: Sequence[FontInfo]) -> None:
        if not fonts:
            raise RuntimeError(
                "no training fonts found; install them first: apt-get install -y " + " ".join(FONT_PACKAGES)
            )
        self.fonts = list(fonts)
        self._cache: dict[tuple[str, int], ImageFont.FreeTypeFont] = {}

    def pick_font(self, text: str, rng: random.Random) -> FontInfo:
        """A font with a glyph for every character of ``text`` (by weight); failing that, one with its
        alphabet."""
        needs_cyr = any(ch in CYRILLIC for ch in text)
        needs_lat = any(ch in LATIN for ch in text)
        pool = [f for f in self.fonts if (f.cyrillic or not needs_cyr) and (f.latin or not needs_lat)]
        pool = [f for f in pool if f.covers(text)] or pool
        return rng.choices(pool, weights=[f.weight for f in pool])[0]

    def _font(self, path: str, size: int) -> ImageFont.FreeTypeFont:
        key = (path, size)
        if key not in self._cache:
            self._cache[key] = ImageFont.truetype(path, size)
        return self._cache[key]

    def render(self, text: str, rng: random.Random, *, font: FontInfo | None = None) -> Image.Image:
        font = font or self.pick_font(text, rng)
        nrng = np.random.default_rng(rng.getrandbits(63))
        size = rng.randint(36, 60)
        ink = _ink_mask(text, self._font(font.path, size), rng)
        ink = _distort(ink, rng, nrng, size)
        return Image.fromarray(finish(ink, size, rng, nrng), "RGB")


def finish(
    ink: np.ndarray, size: int, rng: random.Random, nrng: np.random.Generator, colour: np.ndarray | None = None
) -> np.ndarray:
    """A grayscale ink mask (255 = ink) as a copybook crop: paper, ink colour, lighting, cut, tilt, camera.

    ``size`` is the writing's scale in pixels (the font size); ``colour`` the ink's RGB (default drawn).
    Returns uint8 RGB. Shared by the font renderer and the pen-stroke renderer (``plugins.htr.train.pen``).
    """
    ys, xs = np.nonzero(ink > 40)
    if len(xs) == 0:
        ink = np.zeros((size, size), np.uint8)
        ys, xs = np.array([0]), np.array([0])
    x0, x1, y0, y1 = xs.min(), xs.max() + 1, ys.min(), ys.max() + 1
    text_h = max(y1 - y0, size // 2)
    # Margins around the word, like the annotators' loose polygons.
    ml, mr = (int(text_h * rng.uniform(0.05, 0.6)) for _ in range(2))
    mt, mb = (int(text_h * rng.uniform(0.05, 0.5)) for _ in range(2))
    h, w = y1 - y0 + mt + mb, x1 - x0 + ml + mr
    alpha = np.zeros((h, w), np.float32)
    alpha[mt : mt + y1 - y0, ml : ml + x1 - x0] = ink[y0:y1, x0:x1].astype(np.float32) / 255.0
    paper = _paper(h, w, text_h, rng, nrng)
    colour = _ink_colour(rng) if colour is None else colour
    strength = rng.uniform(0.75, 1.0)
    img = paper * (1 - alpha[..., None] * strength) + colour[None, None, :] * alpha[..., None] * strength
    img = _lighting(img, rng, nrng)
    if rng.random() < 0.85:
        img = _polygon_cut(img, (ml, mt, mr, mb), rng)
    if rng.random() < 0.35:  # the whole crop tilted, as photographed words often are
        img = _rotate(img, rng.uniform(-12, 12) if rng.random() < 0.8 else rng.uniform(-40, 40))
    img = _camera(img, rng, nrng, text_h)
    return np.clip(img, 0, 255).astype(np.uint8)


def _ink_mask(text: str, font: ImageFont.FreeTypeFont, rng: random.Random) -> np.ndarray:
    """Grayscale ink (255 = ink) of ``text``, with extra letter-spacing jitter sometimes."""
    stroke = rng.choice((0, 0, 0, 1, 1, 2))
    pad = font.size
    left, top, right, bottom = font.getbbox(text, stroke_width=stroke)
    spacing = rng.uniform(-0.06, 0.12) * font.size if rng.random() < 0.4 else 0.0
    width = int(right - left + pad * 2 + abs(spacing) * len(text))
    canvas = Image.new("L", (max(width, 8), int(bottom - top + pad * 2)), 0)
    draw = ImageDraw.Draw(canvas)
    if spacing == 0.0:
        draw.text((pad - left, pad - top), text, font=font, fill=255, stroke_width=stroke, stroke_fill=255)
    else:
        x = float(pad - left)
        for ch in text:
            draw.text((x, pad - top), ch, font=font, fill=255, stroke_width=stroke, stroke_fill=255)
            x += font.getlength(ch) + spacing
    arr = np.asarray(canvas)
    ys, xs = np.nonzero(arr)
    if len(xs) == 0:
        return arr
    m = font.size // 4 + 2
    return arr[max(0, ys.min() - m) : ys.max() + m, max(0, xs.min() - m) : xs.max() + m]


def _distort(ink: np.ndarray, rng: random.Random, nrng: np.random.Generator, size: int) -> np.ndarray:
    """Slant, squeeze, baseline wobble, elastic warp and stroke-width change."""
    import cv2

    h, w = ink.shape
    shear = rng.uniform(-0.45, 0.25)  # negative: rightward slant, the common handwriting lean
    sx = rng.uniform(0.75, 1.3)
    sy = rng.uniform(0.9, 1.1)
    mat = np.array([[sx, shear * sy, max(0.0, -shear * h) + 2], [0, sy, 2]], np.float32)
    out_w = int(w * sx + abs(shear) * h + 4)
    ink = cv2.warpAffine(ink, mat, (out_w, int(h * sy + 4)), flags=cv2.INTER_LINEAR)
    h, w = ink.shape
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    # Elastic field: smooth random displacement, a few pixels at the font's scale;
    # drawn on a coarse grid and upsampled, which is smooth and cheap.
    amp = rng.uniform(0.0, 0.08) * size
    cell = max(4, int(rng.uniform(0.25, 0.6) * size))
    gh, gw = h // cell + 2, w // cell + 2
    dx = cv2.resize(nrng.uniform(-1, 1, (gh, gw)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
    dy = cv2.resize(nrng.uniform(-1, 1, (gh, gw)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
    # Baseline wobble: a slow vertical sine along the word.
    wobble = rng.uniform(0, 0.06) * size * np.sin(xs / max(w, 1) * rng.uniform(1, 4) * math.pi + rng.uniform(0, 6.3))
    ink = cv2.remap(ink, xs + dx * amp, ys + dy * amp + wobble, cv2.INTER_LINEAR)
    k = rng.random()
    if k < 0.2:
        ink = cv2.erode(ink, np.ones((2, 2), np.uint8))
    elif k < 0.45:
        ink = cv2.dilate(ink, np.ones((2, 2) if k < 0.4 or size < 45 else (3, 3), np.uint8))
    return ink


def _paper(h: int, w: int, text_h: int, rng: random.Random, nrng: np.random.Generator) -> np.ndarray:
    """Copybook paper: off-white with a tint, squared or ruled blue-grey lines, or plain."""
    base = np.array([rng.uniform(175, 250)] * 3, np.float32)
    base += np.array([rng.uniform(-12, 6), rng.uniform(-8, 6), rng.uniform(-4, 14)], np.float32)
    paper = np.empty((h, w, 3), np.float32)
    paper[:] = base
    kind = rng.random()
    if kind < 0.8:
        cell = max(4.0, text_h * rng.uniform(0.35, 0.9))
        line = np.array([rng.uniform(90, 190), rng.uniform(120, 200), rng.uniform(170, 235)], np.float32)
        if rng.random() < 0.2:
            line = np.array([rng.uniform(140, 200)] * 3, np.float32)
        thick = rng.choice((1, 1, 2))
        angle = math.radians(rng.uniform(-6, 6))
        ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
        u = xs * math.cos(angle) + ys * math.sin(angle) + rng.uniform(0, cell)
        v = -xs * math.sin(angle) + ys * math.cos(angle) + rng.uniform(0, cell)
        on = np.mod(v, cell) < thick
        if kind < 0.7:  # squared; otherwise ruled only
            on |= np.mod(u, cell) < thick
        mix = rng.uniform(0.5, 0.95)
        paper[on] = paper[on] * (1 - mix) + line * mix
    return paper


def _ink_colour(rng: random.Random) -> np.ndarray:
    r = rng.random()
    if r < 0.6:  # ballpoint blue / violet
        return np.array([rng.uniform(10, 80), rng.uniform(15, 70), rng.uniform(90, 190)], np.float32)
    if r < 0.75:
        return np.array([rng.uniform(60, 110), rng.uniform(30, 70), rng.uniform(110, 170)], np.float32)
    v = rng.uniform(0, 70)
    return np.array([v, v, v + rng.uniform(0, 20)], np.float32)


def _lighting(img: np.ndarray, rng: random.Random, nrng: np.random.Generator) -> np.ndarray:
    """A soft shadow gradient across the crop, as in phone photos."""
    h, w = img.shape[:2]
    if rng.random() < 0.6:
        gx = np.linspace(0, 1, w, dtype=np.float32)[None, :] * rng.uniform(-1, 1)
        gy = np.linspace(0, 1, h, dtype=np.float32)[:, None] * rng.uniform(-1, 1)
        img = img * (1 - rng.uniform(0, 0.35) * np.abs(gx + gy))[..., None] / 1.0
    return img * rng.uniform(0.75, 1.1) + rng.uniform(-15, 15)


def _rotate(img: np.ndarray, degrees: float) -> np.ndarray:
    """Rotate with the canvas grown to fit; new corners are black like the crop background."""
    import cv2

    h, w = img.shape[:2]
    mat = cv2.getRotationMatrix2D((w / 2, h / 2), degrees, 1.0)
    cos, sin = abs(mat[0, 0]), abs(mat[0, 1])
    nw, nh = int(h * sin + w * cos), int(h * cos + w * sin)
    mat[0, 2] += nw / 2 - w / 2
    mat[1, 2] += nh / 2 - h / 2
    return cv2.warpAffine(img, mat, (nw, nh), flags=cv2.INTER_LINEAR, borderValue=(0, 0, 0))


def _polygon_cut(img: np.ndarray, margins: tuple[int, int, int, int], rng: random.Random) -> np.ndarray:
    """Black out everything outside a random polygon that stays within the word's margins.

    Points walk around the crop's border; each moves inwards by at most the
    margin of its side, so the cut never touches the ink (a clipped letter
    would make the label wrong).
    """
    import cv2

    h, w = img.shape[:2]
    ml, mt, mr, mb = margins

    def inset(m: int) -> float:
        return rng.uniform(0, 0.9) * m

    # Corners first (inside both adjacent margin bands), then points along each side:
    # every edge then stays inside one band.
    corners = [
        (inset(ml), inset(mt)),
        (w - 1 - inset(mr), inset(mt)),
        (w - 1 - inset(mr), h - 1 - inset(mb)),
        (inset(ml), h - 1 - inset(mb)),
    ]
    pts: list[tuple[float, float]] = []
    for side in range(4):
        pts.append(corners[side])
        for t in sorted(rng.uniform(0.1, 0.9) for _ in range(rng.randint(0, 2))):
            if side == 0:
                pts.append((t * w, inset(mt)))
            elif side == 1:
                pts.append((w - 1 - inset(mr), t * h))
            elif side == 2:
                pts.append(((1 - t) * w, h - 1 - inset(mb)))
            else:
                pts.append((inset(ml), (1 - t) * h))
    mask = np.zeros((h, w), np.uint8)
    cv2.fillPoly(mask, [np.array(pts, np.int32)], 1)
    return img * mask[..., None]


def _camera(img: np.ndarray, rng: random.Random, nrng: np.random.Generator, text_h: int) -> np.ndarray:
    """Low resolution, blur, sensor noise and JPEG artefacts."""
    import cv2

    h, w = img.shape[:2]
    target_text_h = rng.uniform(14, 60)  # real crops: words 20-60 px high
    scale = min(1.0, target_text_h / max(text_h, 1))
    if scale < 1.0:
        img = cv2.resize(img, (max(2, int(w * scale)), max(2, int(h * scale))), interpolation=cv2.INTER_AREA)
    if rng.random() < 0.5:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.3, 1.2))
    if rng.random() < 0.7:
        img = img + nrng.normal(0, rng.uniform(1, 10), img.shape).astype(np.float32)
    img = np.clip(img, 0, 255).astype(np.uint8)
    if rng.random() < 0.5:
        ok, buf = cv2.imencode(".jpg", img[..., ::-1], [cv2.IMWRITE_JPEG_QUALITY, rng.randint(30, 90)])
        if ok:
            img = cv2.imdecode(buf, cv2.IMREAD_COLOR)[..., ::-1]
    return img.astype(np.float32)


def write_examples(out_dir: Path, words: Sequence[str], seed: int = 0, *, rotate: Sequence[int] = ()) -> list[Path]:
    """Render ``words`` as PNG crops ``0.png, 1.png, ...`` (tests and the demo); returns the paths.

    ``rotate`` holds the indices of words to turn sideways (90 degrees), like
    some crops of the public test.
    """
    rng = random.Random(seed)
    renderer = WordRenderer(find_fonts())
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for i, word in enumerate(words):
        img = renderer.render(word, rng)
        if i in rotate:
            img = img.rotate(90, expand=True)
        path = out_dir / f"{i}.png"
        img.save(path)
        paths.append(path)
    return paths


if __name__ == "__main__":
    import argparse
    import json

    parser = argparse.ArgumentParser(description="render example word crops (tests, demo)")
    parser.add_argument("out", type=Path, help="task folder; images go to OUT/images, gold to OUT/true_HTR.json")
    parser.add_argument("words", nargs="+")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rotate", type=int, nargs="*", default=[])
    args = parser.parse_args()
    written = write_examples(args.out / "images", args.words, args.seed, rotate=args.rotate)
    gold = {p.name: w for p, w in zip(written, args.words, strict=True)}
    (args.out / "true_HTR.json").write_text(json.dumps(gold, ensure_ascii=False) + "\n", encoding="utf-8")
