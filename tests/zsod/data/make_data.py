"""Regenerate the zsOD test fixtures: ``python tests/zsod/data/make_data.py``.

Tiny images covering the input cases the task must survive: RGB, grayscale,
RGBA, CMYK, EXIF-rotated, truncated; plus a request file with a missing
image, duplicated, non-string and empty phrase lists.
"""

from __future__ import annotations

import json
from pathlib import Path

from PIL import Image, ImageDraw

HERE = Path(__file__).parent / "zsOD"


def scene(size: tuple[int, int] = (96, 64)) -> Image.Image:
    img = Image.new("RGB", size, (235, 235, 235))
    draw = ImageDraw.Draw(img)
    draw.rectangle((10, 12, 40, 50), fill=(200, 30, 30))
    draw.ellipse((55, 20, 85, 50), fill=(30, 60, 200))
    return img


def main() -> None:
    images = HERE / "images"
    images.mkdir(parents=True, exist_ok=True)
    scene().save(images / "0.jpg", quality=80)
    scene().convert("L").save(images / "1.jpg", quality=80)
    rgba = scene().convert("RGBA")
    rgba.putalpha(200)
    rgba.save(images / "2.png")
    scene().convert("CMYK").save(images / "3.jpg", quality=80)
    rotated = scene().transpose(Image.Transpose.ROTATE_90)  # stored sideways, EXIF says "rotate back"
    exif = Image.Exif()
    exif[0x0112] = 6
    rotated.save(images / "4.jpg", quality=80, exif=exif)
    (images / "5.jpg").write_bytes((images / "0.jpg").read_bytes()[:200])  # truncated
    requests = {
        "0.jpg": ["red square", "blue circle", "a green dog"],
        "1.jpg": ["серый квадрат", "red square", "red square"],
        "2.png": ["blue circle", 7, None],
        "3.jpg": "red square",
        "4.jpg": ["red square on the left"],
        "5.jpg": ["broken image phrase"],
        "6.jpg": ["the file does not exist"],
        "0b.jpg": [],
    }
    (HERE / "requests.json").write_text(json.dumps(requests, ensure_ascii=False, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
