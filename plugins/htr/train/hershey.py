"""Hershey single-stroke vector fonts: a parser of the ``.jhf`` format and the glyph tables we use.

The fonts come from Debian's ``hershey-fonts-data`` package (training only; the
recognizer never needs them at inference)::

    apt-get install -y hershey-fonts-data      # files under /usr/share/hershey-fonts

Each ``.jhf`` file holds 96 glyphs in ASCII order (space to DEL). A glyph record
is a 5-character id, a 3-character vertex count, then that many coordinate pairs
written as letters (``ord(c) - ord("R")``); the first pair is the glyph's left and
right bearing, and the pair `` R`` lifts the pen. Records may wrap onto the next
line. Coordinates: x to the right, y downwards, the cap height is about 21 units
(y -12 .. 9, baseline y = 9).

The Cyrillic files (``cyrillic.jhf``, ``cyrilc_1.jhf``) put the 66 Russian
letters on ASCII slots; ``CYRILLIC_SLOTS`` maps them (worked out from a rendered
contact sheet of every slot, see ``python -m plugins.htr.train.hershey --sheet``). Both
are upright roman designs: Hershey has no Cyrillic *script*, so Russian pen-stroke
words get their cursive look from slant, joins and jitter only.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

HERSHEY_DIR = Path("/usr/share/hershey-fonts")
INSTALL_HINT = "apt-get install -y hershey-fonts-data   (Debian; the .jhf files land in /usr/share/hershey-fonts)"
BASELINE = 9.0
X_HEIGHT = 5.0  # lower-case letters of the roman sets start at y = -5 (cap height y = -12)


@dataclass(frozen=True, slots=True)
class Glyph:
    left: int
    right: int
    strokes: tuple[tuple[tuple[int, int], ...], ...]  # pen-down polylines, font units

    @property
    def advance(self) -> int:
        return self.right - self.left


def parse_jhf(text: str) -> list[Glyph]:
    """Every glyph of a ``.jhf`` file, in file order."""
    glyphs: list[Glyph] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i].rstrip("\n")
        i += 1
        if not line.strip():
            continue
        count = int(line[5:8])
        body = line[8:]
        while len(body) < 2 * count and i < len(lines):  # wrapped record
            body += lines[i].rstrip("\n")
            i += 1
        pairs = [body[k : k + 2] for k in range(0, 2 * count, 2)]
        left, right = ord(pairs[0][0]) - ord("R"), ord(pairs[0][1]) - ord("R")
        strokes: list[tuple[tuple[int, int], ...]] = []
        current: list[tuple[int, int]] = []
        for pair in pairs[1:]:
            if pair == " R":
                if current:
                    strokes.append(tuple(current))
                current = []
                continue
            current.append((ord(pair[0]) - ord("R"), ord(pair[1]) - ord("R")))
        if current:
            strokes.append(tuple(current))
        glyphs.append(Glyph(left, right, tuple(strokes)))
    return glyphs


# Slot (ASCII character) -> Russian letter, per Cyrillic file. ``cyrillic.jhf`` has all
# 32 letters of each case but Ё/ё (drawn as Е/е with two dots by ``plugins.htr.train.pen``);
# ``cyrilc_1.jhf`` has the alphabet А..Щ on A..Z only, no Ъ Ы Ь Э Ю Я Ё.
CYRILLIC_SLOTS: dict[str, dict[str, str]] = {
    "cyrillic": dict(
        zip(
            "$%&ABCDEFGHIJKLMNOPQRSTUVWXYZ[]^_`abcdefghijklmnopqrstuvwxyz{|}~",
            "ЫцыАБЭДЙФГЖИЧКЛМНОПШРСТЮВЩХУЗЕЪЯЬЦабэдйфгжичклмнопшрстювщхузеъяь",
            strict=True,
        )
    ),
    "cyrilc_1": dict(
        zip(
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
            "АБВГДЕЖЗИЙКЛМНОПРСТУФХЦЧШЩабвгдежзийклмнопрстуфхцчшщ",
            strict=True,
        )
    ),
}


@cache
def load_font(name: str, root: Path = HERSHEY_DIR) -> dict[str, Glyph]:
    """``{character: glyph}`` of ``root/name.jhf``; Latin files by ASCII, Cyrillic files by ``CYRILLIC_SLOTS``."""
    path = root / f"{name}.jhf"
    if not path.exists():
        raise FileNotFoundError(f"Hershey font {path} not found; install it: {INSTALL_HINT}")
    glyphs = parse_jhf(path.read_text(encoding="latin-1"))
    by_ascii = {chr(32 + k): g for k, g in enumerate(glyphs)}
    slots = CYRILLIC_SLOTS.get(name)
    if slots is not None:
        out = {slots[c]: g for c, g in by_ascii.items() if c in slots}
        # Digits and punctuation keep their ASCII slots (Latin letters: none).
        out.update({c: g for c, g in by_ascii.items() if not c.isalpha() and c not in slots})
        return out
    return by_ascii


def available(root: Path = HERSHEY_DIR) -> bool:
    return (root / "futural.jhf").exists()


def covered(font: dict[str, Glyph], chars: Iterable[str]) -> set[str]:
    """The characters of ``chars`` the font has no glyph for."""
    return {c for c in chars if c not in font and c != " "}


def _sheet(name: str, out: Path) -> None:
    """A contact sheet of every slot of ``name`` (how ``CYRILLIC_SLOTS`` was read)."""
    from PIL import Image, ImageDraw

    glyphs = parse_jhf((HERSHEY_DIR / f"{name}.jhf").read_text(encoding="latin-1"))
    cell = 64
    img = Image.new("L", (cell * 16, cell * 6 + 20), 255)
    draw = ImageDraw.Draw(img)
    for k, g in enumerate(glyphs):
        ox, oy = (k % 16) * cell + 32, (k // 16) * cell + 36
        draw.text((ox - 30, oy - 34), chr(32 + k), fill=0)
        for stroke in g.strokes:
            pts = [(ox + 1.6 * x, oy + 1.6 * y) for x, y in stroke]
            if len(pts) > 1:
                draw.line(pts, fill=0, width=2)
    img.save(out)


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="Hershey font tools")
    parser.add_argument("--sheet", nargs=2, metavar=("FONT", "PNG"), help="draw every slot of FONT into PNG")
    args = parser.parse_args()
    if args.sheet:
        _sheet(args.sheet[0], Path(args.sheet[1]))
