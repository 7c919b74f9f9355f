"""Pen-stroke word rendering: words written with single-stroke Hershey glyphs, as a pen would.

The font renderer (``plugins.htr.train.render``) fills outlines; handwriting is a pen
moving along a centre line. Here every glyph of a Hershey single-stroke font
(``plugins.htr.train.hershey``; Debian ``hershey-fonts-data``) is a list of polylines
that a simulated pen follows:

* joined letters: in cursive styles the pen stays down from one letter's last
  point to the next letter's first point (a curved connector dipping towards the
  baseline), so Hershey's script sets come out as joined-up writing;
* per-stroke jitter (each stroke shifted a little, each vertex wobbling) and
  Chaikin smoothing, so straight Hershey segments become hand-drawn curves;
* pressure: the pen's width swells and thins along each stroke (and, for the
  broad-nib style, with the stroke's direction);
* slant, a drifting baseline, letter-spacing and letter-size noise;
* ink colour, density gaps and bleed; then the paper, crop, tilt and camera
  augmentations of the font renderer (``render.finish``).

Pen styles (``PEN_STYLES``) and Hershey sets (``HERSHEY_SETS``) are named, so the
style-held-out dev set (``plugins.htr.train.heldout``) can keep some of them out of
every training run: ``PenRenderer(training=True)`` refuses them.

Set-up (training only): ``apt-get install -y hershey-fonts-data``.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from PIL import Image

from plugins.htr.charset import CYRILLIC
from plugins.htr.train.hershey import BASELINE, INSTALL_HINT, Glyph, available, load_font

# Hershey sets: name -> (script, joined by default, sampling weight). Latin sets write
# English words; Cyrillic sets write Russian words, with digits and punctuation from
# their own slots and any glyph they lack from ``LATIN_FALLBACK``.
HERSHEY_SETS: dict[str, tuple[str, bool, float]] = {
    "cursive": ("latin", True, 3.0),
    "scripts": ("latin", True, 3.0),
    "scriptc": ("latin", True, 2.0),
    "futural": ("latin", False, 1.0),
    "futuram": ("latin", False, 0.5),
    "rowmans": ("latin", False, 1.0),
    "rowmand": ("latin", False, 0.5),
    "timesr": ("latin", False, 0.5),
    "timesi": ("latin", False, 1.5),
    "timesib": ("latin", False, 0.7),
    "cyrillic": ("cyrillic", True, 4.0),
    "cyrilc_1": ("cyrillic", True, 3.0),
}
LATIN_FALLBACK = "futural"
CYRILLIC_FALLBACK = "cyrillic"  # for the letters cyrilc_1 lacks (Ъ Ы Ь Э Ю Я)


@dataclass(frozen=True, slots=True)
class PenStyle:
    """How one kind of pen writes. Widths are fractions of the x-height."""

    name: str
    width: tuple[float, float]  # mean pen width range
    pressure: float  # relative width swing along a stroke (0 = constant)
    nib: bool  # broad nib: width depends on the stroke's direction
    jitter: float  # vertex wobble, font units
    join: float  # probability that a word is written joined (if the set allows)
    grey: bool  # pencil: grey, grainy ink
    bleed: float  # max blur sigma of the ink (pixels at x-height 24)
    weight: float


PEN_STYLES: dict[str, PenStyle] = {
    s.name: s
    for s in (
        PenStyle("ballpoint", (0.07, 0.13), 0.25, False, 0.35, 0.8, False, 0.6, 3.0),
        PenStyle("gel", (0.10, 0.18), 0.35, False, 0.3, 0.8, False, 0.9, 2.0),
        PenStyle("felt", (0.16, 0.26), 0.15, False, 0.4, 0.6, False, 1.2, 1.0),
        PenStyle("hurried", (0.08, 0.15), 0.4, False, 0.8, 0.9, False, 0.7, 1.5),
        PenStyle("fountain", (0.06, 0.22), 0.3, True, 0.3, 0.9, False, 1.0, 1.0),
        PenStyle("pencil", (0.07, 0.12), 0.35, False, 0.45, 0.7, True, 0.4, 1.0),
    )
}


def _chaikin(points: np.ndarray, rounds: int = 2) -> np.ndarray:
    """Corner cutting: a polyline becomes a smooth curve through the same region."""
    for _ in range(rounds):
        if len(points) < 3:
            return points
        q = 0.75 * points[:-1] + 0.25 * points[1:]
        r = 0.25 * points[:-1] + 0.75 * points[1:]
        mid = np.empty((2 * len(q), 2), np.float64)
        mid[0::2], mid[1::2] = q, r
        points = np.vstack([points[:1], mid, points[-1:]])
    return points


def _resample(points: np.ndarray, step: float) -> np.ndarray:
    """Points every ``step`` units along a polyline (the pen's positions)."""
    if len(points) < 2:
        return points
    seg = np.linalg.norm(np.diff(points, axis=0), axis=1)
    dist = np.concatenate([[0.0], np.cumsum(seg)])
    if dist[-1] <= 0:
        return points[:1]
    t = np.linspace(0, dist[-1], max(2, int(dist[-1] / step) + 1))
    return np.stack([np.interp(t, dist, points[:, 0]), np.interp(t, dist, points[:, 1])], axis=1)


class PenRenderer:
    """Writes a word with a simulated pen: ``render(text, rng) -> PIL RGB image``.

    ``sets`` and ``styles`` restrict the Hershey sets and pen styles drawn from.
    With ``training=True`` (the default) the held-out ones of ``plugins.htr.train.heldout``
    are refused, so no training run can see the style-held-out dev set's styles.
    """

    def __init__(
        self, sets: Sequence[str] | None = None, styles: Sequence[str] | None = None, *, training: bool = True
    ) -> None:
        from plugins.htr.train.heldout import HELDOUT_HERSHEY_SETS, HELDOUT_PEN_STYLES

        if not available():
            raise RuntimeError(f"Hershey fonts are missing; install them: {INSTALL_HINT}")
        sets = list(HERSHEY_SETS) if sets is None else list(sets)
        styles = list(PEN_STYLES) if styles is None else list(styles)
        if training:
            bad = sorted(set(sets) & set(HELDOUT_HERSHEY_SETS)) + sorted(set(styles) & set(HELDOUT_PEN_STYLES))
            if bad and (sets != list(HERSHEY_SETS) or styles != list(PEN_STYLES)):
                raise ValueError(f"held out of training (plugins.htr.train.heldout): {bad}")
            sets = [s for s in sets if s not in HELDOUT_HERSHEY_SETS]
            styles = [s for s in styles if s not in HELDOUT_PEN_STYLES]
        unknown = sorted((set(sets) - set(HERSHEY_SETS)) | (set(styles) - set(PEN_STYLES)))
        if unknown:
            raise ValueError(f"unknown Hershey sets or pen styles: {unknown}")
        self.sets = sets
        self.styles = [PEN_STYLES[s] for s in styles]
        self.fonts = {name: load_font(name) for name in {*sets, LATIN_FALLBACK, CYRILLIC_FALLBACK}}

    def _glyphs(self, text: str, set_name: str) -> list[Glyph | None] | None:
        """The glyph for every character (None for a space and for "ё"'s dots), or None if not writable."""
        font, fallback = self.fonts[set_name], self.fonts[LATIN_FALLBACK]
        out: list[Glyph | None] = []
        for ch in text:
            base = {"ё": "е", "Ё": "Е"}.get(ch, ch)
            glyph = font.get(base)
            if glyph is None and not base.isalpha():
                glyph = fallback.get(base)
            if glyph is None and base in CYRILLIC:
                glyph = self.fonts[CYRILLIC_FALLBACK].get(base)
            if glyph is None:
                return None
            out.append(glyph)
        return out

    def pick_set(self, text: str, rng: random.Random) -> str:
        script = "cyrillic" if any(ch in CYRILLIC for ch in text) else "latin"
        pool = [s for s in self.sets if HERSHEY_SETS[s][0] == script] or [
            s for s in self.sets if HERSHEY_SETS[s][0] == "latin"
        ]
        return rng.choices(pool, weights=[HERSHEY_SETS[s][2] for s in pool])[0]

    def can_write(self, text: str) -> bool:
        script = "cyrillic" if any(ch in CYRILLIC for ch in text) else "latin"
        return any(HERSHEY_SETS[s][0] == script and self._glyphs(text, s) is not None for s in self.sets)

    def render(
        self, text: str, rng: random.Random, *, set_name: str | None = None, style: str | None = None
    ) -> Image.Image:
        from plugins.htr.train.render import finish

        set_name = set_name or self.pick_set(text, rng)
        pen = PEN_STYLES[style] if style else rng.choices(self.styles, weights=[s.weight for s in self.styles])[0]
        nrng = np.random.default_rng(rng.getrandbits(63))
        glyphs = self._glyphs(text, set_name)
        if glyphs is None:
            raise ValueError(f"{set_name} cannot write {text!r}")
        joined = HERSHEY_SETS[set_name][1] and rng.random() < pen.join
        strokes = _layout(text, glyphs, joined, pen, rng, nrng)
        x_height_px = rng.uniform(16, 30)  # drawn large, shrunk later by the camera model
        ink = _draw(strokes, pen, x_height_px, rng, nrng)
        colour = None
        if pen.grey:
            v = rng.uniform(60, 120)
            colour = np.array([v, v, v + rng.uniform(-5, 10)], np.float32)
        size = int(x_height_px * 2.2)  # about the font size of a font word with this x-height
        return Image.fromarray(finish(ink, size, rng, nrng, colour), "RGB")


def _layout(
    text: str,
    glyphs: Sequence[Glyph | None],
    joined: bool,
    pen: PenStyle,
    rng: random.Random,
    nrng: np.random.Generator,
) -> list[np.ndarray]:
    """The word's pen paths in font units (x right, y down, baseline near y = 9), slant and drift applied."""
    slant = rng.uniform(-0.45, 0.1)  # x shift per unit of height above the baseline (negative: leans right)
    drift_amp = rng.uniform(0.0, 1.5)
    drift_freq = rng.uniform(0.01, 0.05)
    drift_phase = rng.uniform(0, 2 * math.pi)
    squeeze = rng.uniform(0.8, 1.2)
    spacing_mu = rng.uniform(-1.5, 1.5)
    strokes: list[np.ndarray] = []
    cursor = 0.0
    prev_end: np.ndarray | None = None
    prev_letter = False
    for ch, glyph in zip(text, glyphs, strict=True):
        if glyph is None:
            continue
        scale = rng.uniform(0.93, 1.07)
        dy = rng.gauss(0, 0.4)
        letter = ch.isalpha()
        paths = []
        for stroke in glyph.strokes:
            pts = np.array(stroke, np.float64)
            pts[:, 0] = (pts[:, 0] - glyph.left) * scale * squeeze + cursor
            pts[:, 1] = (pts[:, 1] - BASELINE) * scale + BASELINE + dy
            pts += nrng.normal(0, pen.jitter * 0.5, 2)  # the whole stroke lands a little off
            pts += nrng.normal(0, pen.jitter * 0.3, pts.shape)
            paths.append(pts)
        if ch in "ёЁ":  # the dots Hershey's Cyrillic lacks
            top = min(p[:, 1].min() for p in paths) if paths else BASELINE - 5
            mid = cursor + glyph.advance * scale * squeeze / 2
            for dx in (-1.6, 1.6):
                paths.append(np.array([[mid + dx, top - 2.5], [mid + dx + 0.3, top - 2.0]]))
        if joined and letter and prev_letter and prev_end is not None and paths:
            start = paths[0][0]
            # Connector: a curve from the last letter's exit to this letter's entry, dipping to the baseline.
            low = max(prev_end[1], start[1], BASELINE - 0.5) + rng.uniform(-0.5, 0.8)
            ctrl = np.array([(prev_end[0] + start[0]) / 2, low])
            t = np.linspace(0, 1, 8)[:, None]
            curve = (1 - t) ** 2 * prev_end + 2 * (1 - t) * t * ctrl + t**2 * start
            paths[0] = np.vstack([curve[:-1], paths[0]])
            strokes[-1] = np.vstack([strokes[-1], paths[0]])
            strokes.extend(paths[1:])
        else:
            strokes.extend(paths)
        if paths:
            prev_end = strokes[-1][-1] if joined else None
        prev_letter = letter
        cursor += glyph.advance * scale * squeeze + spacing_mu + rng.gauss(0, 0.8)
    out = []
    for pts in strokes:
        pts = _chaikin(pts)
        height = BASELINE - pts[:, 1]
        pts = pts.copy()
        pts[:, 0] += -slant * height
        pts[:, 1] += drift_amp * np.sin(pts[:, 0] * drift_freq * 2 * math.pi + drift_phase)
        out.append(pts)
    return out


def _draw(
    strokes: Sequence[np.ndarray], pen: PenStyle, x_height_px: float, rng: random.Random, nrng: np.random.Generator
) -> np.ndarray:
    """Rasterise the paths with a round (or broad) pen of varying width; uint8 ink mask, 255 = ink."""
    import cv2

    ss = 3  # supersampling
    unit = x_height_px / 9.0 * ss  # Hershey x-height is about 9 units (y -5 .. 9 minus the bowl's overshoot)
    allpts = np.vstack(strokes) if strokes else np.zeros((1, 2))
    lo = allpts.min(axis=0)
    hi = allpts.max(axis=0)
    width_mean = rng.uniform(*pen.width) * x_height_px * ss
    margin = 4 + width_mean
    w = int((hi[0] - lo[0]) * unit + 2 * margin) + 1
    h = int((hi[1] - lo[1]) * unit + 2 * margin) + 1
    canvas = np.zeros((h, w), np.uint8)
    nib_angle = rng.uniform(0.3, 0.9)  # radians; the broad nib's edge direction
    for pts in strokes:
        px = (pts - lo) * unit + margin
        px = _resample(px, max(1.5 * ss, width_mean / 3))
        n = len(px)
        t = np.linspace(0, 1, n)
        # Pressure: light at the start and end, a slow random swell in between.
        swell = np.sin(math.pi * np.clip(t * rng.uniform(1.0, 1.6), 0, 1)) ** 0.5
        wave = 1 + pen.pressure * np.sin(t * rng.uniform(1, 5) + rng.uniform(0, 6.3))
        width = width_mean * (1 - pen.pressure + pen.pressure * swell) * wave
        if pen.nib and n > 1:
            d = np.gradient(px, axis=0)
            ang = np.arctan2(d[:, 1], d[:, 0])
            width = width * (0.35 + 0.9 * np.abs(np.sin(ang - nib_angle)))
        width = np.maximum(width, ss * 0.8)
        ipx = np.round(px * 4).astype(np.int32)  # 2 fractional bits for cv2's shift
        if n == 1:
            cv2.circle(canvas, tuple(ipx[0]), max(4, int(width[0] * 2)), 255, -1, cv2.LINE_AA, 2)
        # Chunks of a few pen positions share one width: far fewer calls than one line per segment.
        for i in range(0, n - 1, 4):
            chunk = ipx[i : i + 5]
            thick = max(1, int(round(float(width[i : i + 5].mean()))))
            cv2.polylines(canvas, [chunk], False, 255, thick, cv2.LINE_AA, 2)
    ink = cv2.resize(canvas, (max(1, w // ss), max(1, h // ss)), interpolation=cv2.INTER_AREA).astype(np.float32)
    if pen.grey:  # graphite grain
        ink *= np.clip(nrng.normal(0.8, 0.25, ink.shape), 0.2, 1.0)
    elif rng.random() < 0.3:  # a ballpoint that skips: low-frequency density gaps
        gh, gw = max(2, ink.shape[0] // 8), max(2, ink.shape[1] // 8)
        dens = cv2.resize(nrng.uniform(0.55, 1.0, (gh, gw)).astype(np.float32), ink.shape[::-1])
        ink *= dens
    sigma = rng.uniform(0, pen.bleed) * x_height_px / 24
    if sigma > 0.25:  # ink bleeding into the paper
        bled = cv2.GaussianBlur(ink, (0, 0), sigma)
        ink = np.maximum(ink, bled * rng.uniform(0.6, 1.0))
    return np.clip(ink, 0, 255).astype(np.uint8)
