"""Draw predicted boxes and their phrases on the images, for a person to look at."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path

from core.task import Prediction

log = logging.getLogger(__name__)

PALETTE = (
    (230, 25, 75),
    (60, 180, 75),
    (0, 130, 200),
    (245, 130, 48),
    (145, 30, 180),
    (70, 240, 240),
    (240, 50, 230),
    (210, 245, 60),
)


def label_font():
    """DejaVu Sans from the system when installed (it has Cyrillic), else PIL's built-in font.

    Never downloads anything; the built-in font draws Cyrillic as boxes.
    """
    from PIL import ImageFont

    try:
        return ImageFont.truetype("DejaVuSans.ttf", 14)
    except OSError:
        return ImageFont.load_default()


def draw_predictions(predictions: Sequence[Prediction], paths: Mapping[str, Path | None], out_dir: Path) -> list[Path]:
    """Write ``out_dir/<image stem>.png`` per image that has a readable file.

    Boxes are in the stored pixel grid (as written to the prediction file), so
    the image is drawn as stored, without EXIF rotation. Absent phrases are
    listed at the bottom (see ``label_font``).
    """
    from PIL import Image, ImageDraw

    from core.io import MAX_IMAGE_PIXELS, open_input_file, to_mode

    out_dir.mkdir(parents=True, exist_ok=True)
    font = label_font()
    written = []
    for pred in predictions:
        path = paths.get(pred.key)
        if path is None or not isinstance(pred.value, Mapping):
            continue
        try:
            # core.io: a regular file inside the input folder (a link swapped in is not followed)
            with open_input_file(path) as fh, Image.open(fh) as img:
                if img.size[0] * img.size[1] > MAX_IMAGE_PIXELS:
                    raise ValueError(f"{img.size[0]} x {img.size[1]} px is above the decode limit")
                img.load()
                canvas = to_mode(img, "RGB")
        except Exception as exc:  # noqa: BLE001 - a broken image only loses its drawing
            log.warning("zsod visualize: cannot open %s (%s)", path, exc)
            continue
        draw = ImageDraw.Draw(canvas)
        absent = []
        for i, (phrase, boxes) in enumerate(pred.value.items()):
            color = PALETTE[i % len(PALETTE)]
            if not boxes or boxes == [[]]:
                absent.append(phrase)
                continue
            for x, y, w, h in boxes:
                draw.rectangle((x, y, x + w, y + h), outline=color, width=max(2, canvas.width // 300))
                label = phrase[:60]
                tw, th = draw.textbbox((0, 0), label, font=font)[2:]
                ty = y - th - 2 if y - th - 2 >= 0 else y + 1
                draw.rectangle((x, ty, x + tw + 4, ty + th + 2), fill=color)
                draw.text((x + 2, ty), label, fill=(255, 255, 255), font=font)
        if absent:
            lines = ["absent: " + "; ".join(a[:40] for a in absent[i : i + 3]) for i in range(0, len(absent), 3)]
            lh = draw.textbbox((0, 0), "Ay", font=font)[3] + 3
            top = max(0, canvas.height - lh * len(lines) - 4)
            draw.rectangle((0, top, canvas.width, canvas.height), fill=(0, 0, 0))
            for j, line in enumerate(lines):
                draw.text((3, top + 2 + j * lh), line, fill=(255, 255, 255), font=font)
        target = out_dir / f"{Path(pred.key).stem}.png"
        canvas.save(target)
        written.append(target)
    return written
