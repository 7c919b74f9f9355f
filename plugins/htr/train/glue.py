"""Words glued from real handwritten letters (CoMNIST), the third training regime (training only).

The font and pen-stroke regimes draw one designed glyph per letter. This one draws
each letter of a Russian word with a letter that a person wrote (``plugins.htr.train.comnist``),
scaled to its place on the line (x-height letters, ascenders, descenders, capitals),
on a jittered, drifting baseline, and, in most words, joins neighbouring letters with
a connecting stroke from the exit of one to the entry of the next, as cursive is
joined. One word is one "writer": its x-height, letter width, spacing, joining, stroke
weight (and, through ``render._distort``, slant and wobble) are drawn once per word;
CoMNIST has no writer ids, so each letter is a random sample of its class. Paper, ink,
cut, camera and noise are the font regime's (``render.finish``).

Only Russian letters, spaces, periods, commas and hyphens are written here
(``can_write``); digits and Latin words stay with the font and pen regimes.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from PIL import Image

# Vertical extent of a letter in x-heights, (top, bottom) above the baseline; lower case
# by default (0, 1). A capital is CAP_HEIGHT tall unless listed in CAPITALS.
LOWER_EXTENT: dict[str, tuple[float, float]] = {
    "б": (1.55, 0.0),
    "в": (1.1, 0.0),
    "д": (1.05, -0.35),
    "ё": (1.45, 0.0),
    "й": (1.45, 0.0),
    "р": (1.0, -0.55),
    "у": (1.0, -0.55),
    "ф": (1.5, -0.5),
    "ц": (1.0, -0.3),
    "щ": (1.0, -0.3),
}
CAP_HEIGHT = 1.5
CAPITALS: dict[str, tuple[float, float]] = {
    "Ё": (1.85, 0.0),
    "Й": (1.85, 0.0),
    "Д": (1.5, -0.3),
    "Ц": (1.5, -0.3),
    "Щ": (1.5, -0.3),
}
MARKS = " .,-"
JOIN_SHARE = 0.7  # words written joined (cursive); the rest are printed letter by letter


@dataclass(frozen=True, slots=True)
class WordStyle:
    """One word's hand: drawn once per word."""

    x_height: float  # pixels
    width: float  # letter width factor
    gap: float  # mean letter gap, x-heights (negative: letters overlap)
    joined: bool
    join_p: float  # chance of a join between two letters of a joined word
    drift: float  # baseline random-walk step, x-heights
    pen: float  # stroke width, pixels (letters are thinned to their centre line and redrawn with it)


def extent(ch: str) -> tuple[float, float]:
    """(top, bottom) of ``ch`` above the baseline in x-heights."""
    if ch.isupper():
        return CAPITALS.get(ch, (CAP_HEIGHT, 0.0))
    return LOWER_EXTENT.get(ch, (1.0, 0.0))


class GlueRenderer:
    """Draws a Russian word from real letters: ``render(text, rng) -> PIL RGB image``.

    ``letters`` maps a capital letter to ink masks (255 = ink, cropped), as
    ``comnist.load_letters`` returns; a letter of either case is drawn from its capital's class.
    """

    def __init__(self, letters: Mapping[str, Sequence[np.ndarray]], *, restroke: bool = False) -> None:
        self.letters = {k.upper(): list(v) for k, v in letters.items() if len(v)}
        if not self.letters:
            raise ValueError("no letters to glue")
        # True: each letter is thinned to its centre line and redrawn with the word's pen (CoMNIST's
        # strokes, drawn at 28 px and scaled up, are blunt and thick); False keeps the scaled strokes.
        # False is what the shipped head's glue shards used; a run with True read the real-hands proxy
        # worse (0.074 vs 0.088) and the style-held-out set worse (0.585 vs 0.600): kept as an option.
        self.restroke = restroke

    def can_write(self, text: str) -> bool:
        return any(ch.isalpha() for ch in text) and all(ch.upper() in self.letters or ch in MARKS for ch in text)

    def style(self, rng: random.Random) -> WordStyle:
        joined = rng.random() < JOIN_SHARE
        x_height = rng.uniform(16, 28)
        return WordStyle(
            x_height=x_height,
            width=rng.uniform(0.75, 1.25),
            gap=rng.uniform(-0.06, 0.12) if joined else rng.uniform(0.0, 0.3),
            joined=joined,
            join_p=rng.uniform(0.6, 1.0),
            drift=rng.uniform(0.0, 0.06),
            pen=max(1.0, x_height * rng.uniform(0.05, 0.14)),
        )

    def ink(self, text: str, rng: random.Random, style: WordStyle | None = None) -> np.ndarray:
        """The word's ink mask (uint8, 255 = ink), tight with a small margin."""
        import cv2

        if not self.can_write(text):
            raise ValueError(f"cannot glue {text!r} from real letters")
        st = style or self.style(rng)
        xh = st.x_height
        pieces: list[tuple[int, int, np.ndarray]] = []  # (x, y of the top, mask) on a baseline at y = 0
        joins: list[tuple[tuple[float, float], tuple[float, float]]] = []
        x, base = 0.0, 0.0
        prev: tuple[float, float] | None = None  # exit point of the previous letter
        thickness = [st.pen] if self.restroke else []
        for ch in text:
            base += rng.gauss(0.0, st.drift * xh)
            base = max(-0.25 * xh, min(0.25 * xh, base))
            if ch == " ":
                x += xh * rng.uniform(0.55, 1.1)
                prev = None
                continue
            if ch in MARKS:
                mark = _mark(ch, xh, rng)
                y_top = {".": -0.18, ",": -0.2, "-": -0.6}[ch] * xh + base
                x += xh * rng.uniform(0.05, 0.2)
                pieces.append((int(round(x)), int(round(y_top)), mark))
                x += mark.shape[1] + xh * rng.uniform(0.05, 0.2)
                prev = None
                continue
            glyph = _scaled(rng.choice(self.letters[ch.upper()]), ch, xh, st, rng, self.restroke)
            top, _ = extent(ch)
            y_top = -top * xh * rng.uniform(0.95, 1.05) + base
            if prev is not None:
                x += st.gap * xh + rng.gauss(0.0, 0.04 * xh)
            x = max(x, 0.0)
            gx, gy = int(round(x)), int(round(y_top))
            pieces.append((gx, gy, glyph))
            if not self.restroke:
                thickness.append(_stroke_width(glyph))
            entry, exit_ = _entry_exit(glyph)
            if prev is not None and st.joined and rng.random() < st.join_p:
                joins.append((prev, (gx + entry[0], gy + entry[1])))
            prev = (gx + exit_[0], gy + exit_[1])
            x += glyph.shape[1]
        x0 = min(px for px, _, _ in pieces)
        y0 = min(py for _, py, _ in pieces)
        x1 = max(px + g.shape[1] for px, _, g in pieces)
        y1 = max(py + g.shape[0] for _, py, g in pieces)
        pad = int(xh * 0.4) + 2
        canvas = np.zeros((y1 - y0 + 2 * pad, x1 - x0 + 2 * pad), np.uint8)
        for px, py, g in pieces:
            r, c = py - y0 + pad, px - x0 + pad
            np.maximum(
                canvas[r : r + g.shape[0], c : c + g.shape[1]], g, out=canvas[r : r + g.shape[0], c : c + g.shape[1]]
            )
        width = max(1, int(round(np.median(thickness)))) if thickness else 2
        for (ax, ay), (bx, by) in joins:
            a = (ax - x0 + pad, ay - y0 + pad)
            b = (bx - x0 + pad, by - y0 + pad)
            # A cursive connector: leaves the letter low, sags towards the baseline, climbs to the next.
            sag = rng.uniform(0.0, 0.35) * xh
            ctrl = ((a[0] + b[0]) / 2, max(a[1], b[1]) + sag)
            t = np.linspace(0.0, 1.0, 12)[:, None]
            curve = (1 - t) ** 2 * np.array(a) + 2 * (1 - t) * t * np.array(ctrl) + t**2 * np.array(b)
            cv2.polylines(canvas, [np.round(curve).astype(np.int32)], False, 255, width, cv2.LINE_AA)
        return canvas

    def render(self, text: str, rng: random.Random) -> Image.Image:
        from plugins.htr.train.render import _distort, finish

        nrng = np.random.default_rng(rng.getrandbits(63))
        st = self.style(rng)
        ink = self.ink(text, rng, st)
        size = int(st.x_height * CAP_HEIGHT * 1.3)  # the font regime's font size for this x-height
        ink = _distort(ink, rng, nrng, size)
        return Image.fromarray(finish(ink, size, rng, nrng), "RGB")


def _scaled(
    mask: np.ndarray, ch: str, xh: float, st: WordStyle, rng: random.Random, restroke: bool = True
) -> np.ndarray:
    """A letter mask scaled to its extent at x-height ``xh``: thinned and redrawn with the word's pen
    (``restroke``), or sharpened back to a crisp edge."""
    import cv2

    top, bottom = extent(ch)
    h = max(3, int(round((top - bottom) * xh * rng.uniform(0.92, 1.08))))
    aspect = mask.shape[1] / mask.shape[0]
    # Narrow classes (a cropped "г" or "ь" drawn thin) keep their shape; the word's width factor applies.
    w = max(2, int(round(h * aspect * st.width * rng.uniform(0.92, 1.08))))
    if ch.islower() and top - bottom <= 1.0:
        w = max(2, int(round(w * rng.uniform(1.0, 1.3))))  # x-height letters are wider than tall ones squashed
    out = cv2.resize(mask, (w, h), interpolation=cv2.INTER_LINEAR).astype(np.float32)
    if restroke:
        line = thin(np.pad(out > 100, 1))[1:-1, 1:-1]
        if line.any():
            k = max(1, int(round(st.pen)))
            drawn = cv2.dilate(line.astype(np.uint8) * 255, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
            return cv2.GaussianBlur(drawn, (0, 0), 0.5)
    # The 28 px source strokes blur when scaled up: restore a crisp edge.
    return np.clip((out - 60.0) * 2.2, 0, 255).astype(np.uint8)


def thin(binary: np.ndarray) -> np.ndarray:
    """Zhang-Suen thinning of a boolean image to one-pixel centre lines (the border must be empty)."""
    img = binary.astype(np.uint8)
    while True:
        changed = False
        for step in (0, 1):
            p = np.pad(img, 1)
            n = [p[:-2, 1:-1], p[:-2, 2:], p[1:-1, 2:], p[2:, 2:], p[2:, 1:-1], p[2:, :-2], p[1:-1, :-2], p[:-2, :-2]]
            p2, _, p4, _, p6, _, p8, _ = n
            neighbours = sum(n)
            transitions = sum((a == 0) & (b == 1) for a, b in zip(n, n[1:] + n[:1], strict=True))
            first, second = (p2 * p4 * p6, p4 * p6 * p8) if step == 0 else (p2 * p4 * p8, p2 * p6 * p8)
            side = (first == 0) & (second == 0)
            drop = (img == 1) & (neighbours >= 2) & (neighbours <= 6) & (transitions == 1) & side
            if drop.any():
                img[drop] = 0
                changed = True
        if not changed:
            return img.astype(bool)


def _stroke_width(mask: np.ndarray) -> float:
    """Mean stroke width: twice the ink area over its boundary length."""
    import cv2

    on = (mask > 127).astype(np.uint8)
    area = float(on.sum())
    if area == 0:
        return 2.0
    edge = float((on - cv2.erode(on, np.ones((3, 3), np.uint8))).sum())
    return max(1.0, min(8.0, 2.0 * area / max(edge, 1.0)))


def _entry_exit(mask: np.ndarray) -> tuple[tuple[float, float], tuple[float, float]]:
    """Where a connector enters (left) and leaves (right) a letter: its leftmost and rightmost ink
    in the lower part of the letter, (x, y) in the mask."""
    h = mask.shape[0]
    lo = mask[h // 2 :] > 127
    if not lo.any():
        lo = mask > 127
        off = 0
    else:
        off = h // 2
    ys, xs = np.nonzero(lo)
    if len(xs) == 0:
        return (0.0, h - 1.0), (mask.shape[1] - 1.0, h - 1.0)
    left, right = xs.min(), xs.max()
    ly = float(np.mean(ys[xs == left])) + off
    ry = float(np.mean(ys[xs == right])) + off
    return (float(left), ly), (float(right), ry)


def _mark(ch: str, xh: float, rng: random.Random) -> np.ndarray:
    """A period, comma or hyphen drawn as a pen mark at x-height ``xh``."""
    import cv2

    t = max(2, int(round(xh * rng.uniform(0.08, 0.14))))
    if ch == "-":
        length = int(xh * rng.uniform(0.35, 0.7))
        m = np.zeros((t * 3, length + 2 * t), np.uint8)
        tilt = rng.uniform(-0.15, 0.15) * length
        cv2.line(m, (t, int(1.5 * t + tilt / 2)), (t + length, int(1.5 * t - tilt / 2)), 255, t, cv2.LINE_AA)
        return m
    if ch == ".":
        r = max(1, int(math.ceil(t * rng.uniform(0.5, 0.9))))
        m = np.zeros((2 * r + 3, 2 * r + 3), np.uint8)
        cv2.circle(m, (r + 1, r + 1), r, 255, -1, cv2.LINE_AA)
        return m
    length = int(xh * rng.uniform(0.3, 0.5))  # comma: a short tail from the baseline down and left
    m = np.zeros((length + 2 * t, length // 2 + 2 * t), np.uint8)
    cv2.line(m, (m.shape[1] - t, t), (t, m.shape[0] - t), 255, t, cv2.LINE_AA)
    cv2.circle(m, (m.shape[1] - t, t), t, 255, -1, cv2.LINE_AA)
    return m
