"""CoMNIST: real handwritten Cyrillic letters (training only; the library never imports this).

CoMNIST ("Cyrillic-oriented MNIST") holds 15,233 letters that people drew by hand,
33 classes (А-Я and Ё), licensed CC BY-SA 4.0. A copy sits as 28 x 28 PNGs in the
public GitHub repository ``absoluteteam/ocr`` at ``COMMIT``, under
``Cyrillic/<letter>/*.png``: black ink on white, RGB. A folder is named by the capital
letter, but its samples are written in either case (a lower-case ``а`` or a capital
``А`` alike), so a class is a letter, not a case.

``extract`` copies that folder out of a bare git snapshot of the repository (the
``fetch`` of the session brings one; ``git clone`` of the repository does as well) into
``DATA_DIR`` and writes ``manifest.json`` (source, commit, licence, count per letter).
``load_letters`` reads such a folder into ink masks (255 = ink), each cropped to its
ink, caching them as ``letters.npz`` beside the PNGs. Nothing is committed to the
repository, and inference never needs the letters.

    python -m plugins.htr.train.comnist --git-dir PATH/TO/absoluteteam+ocr.git [--dest DIR]
"""

from __future__ import annotations

import argparse
import io
import json
import logging
import subprocess
import sys
import tarfile
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

log = logging.getLogger(__name__)

REPOSITORY = "https://github.com/absoluteteam/ocr"
COMMIT = "9de5014db80db53b42b8d2edb49db5c1dd446b7a"
SUBDIR = "Cyrillic"
LICENCE = "CC BY-SA 4.0 (CoMNIST, https://github.com/GregVial/CoMNIST; copy in absoluteteam/ocr)"
DATA_DIR = Path.home() / ".cache" / "fusionbrain" / "comnist"
LETTERS = "АБВГДЕЁЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯ"
INK_THRESHOLD = 40  # of 255: what counts as ink when cropping
CACHE_NAME = "letters.npz"


def extract(git_dir: Path, dest: Path = DATA_DIR, commit: str = COMMIT) -> Path:
    """Unpack ``Cyrillic/`` of ``commit`` from the bare repository ``git_dir`` into ``dest``; returns
    ``dest``. Writes ``dest/manifest.json``; an existing copy of the same commit is kept."""
    manifest = dest / "manifest.json"
    if manifest.exists() and json.loads(manifest.read_text(encoding="utf-8")).get("commit") == commit:
        return dest
    archive = subprocess.run(
        ["git", f"--git-dir={git_dir}", "archive", "--format=tar", commit, SUBDIR],
        check=True,
        capture_output=True,
    ).stdout
    dest.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        members = [m for m in tar.getmembers() if m.isfile() and m.name.lower().endswith(".png")]
        tar.extractall(dest, members=members, filter="data")
    (dest / CACHE_NAME).unlink(missing_ok=True)
    counts = {letter: len(list((dest / SUBDIR / letter).glob("*.png"))) for letter in LETTERS}
    manifest.write_text(
        json.dumps(
            {
                "name": "CoMNIST",
                "source": REPOSITORY,
                "commit": commit,
                "path": SUBDIR,
                "licence": LICENCE,
                "format": "28 x 28 PNG, black ink on white; folder = letter (either case)",
                "counts": counts,
                "total": sum(counts.values()),
            },
            ensure_ascii=False,
            indent=1,
        )
        + "\n",
        encoding="utf-8",
    )
    return dest


def ink_mask(image) -> np.ndarray:  # noqa: ANN001 - a PIL image
    """A letter image as uint8 ink (255 = ink): transparent parts count as paper, and a picture
    whose border is mostly dark is taken as light ink on dark paper."""
    from PIL import Image

    if image.mode in ("RGBA", "LA", "P"):
        image = image.convert("RGBA")
        paper = Image.new("RGBA", image.size, (255, 255, 255, 255))
        image = Image.alpha_composite(paper, image)
    gray = np.asarray(image.convert("L"), np.uint8)
    border = np.concatenate([gray[0], gray[-1], gray[:, 0], gray[:, -1]])
    return gray.copy() if border.mean() < 128 else 255 - gray


def crop_ink(ink: np.ndarray, threshold: int = INK_THRESHOLD) -> np.ndarray | None:
    """``ink`` cut to the box of its pixels above ``threshold``; None when there is none."""
    ys, xs = np.nonzero(ink > threshold)
    if len(xs) == 0:
        return None
    return ink[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]


def load_letters(root: Path = DATA_DIR) -> dict[str, list[np.ndarray]]:
    """``{capital letter: [cropped ink masks]}`` from ``root/Cyrillic/<letter>/*.png`` (or
    ``root/<letter>/*.png``). Blank images are skipped; the masks are cached in ``root/letters.npz``
    (rebuilt when the PNG count changes)."""
    from PIL import Image

    base = root / SUBDIR if (root / SUBDIR).is_dir() else root
    files = sorted(p for letter in LETTERS for p in (base / letter).glob("*.png"))
    if not files:
        raise FileNotFoundError(
            f"no CoMNIST letters under {base}; bring them with "
            "`python -m plugins.htr.train.comnist --git-dir <bare clone of absoluteteam/ocr>`"
        )
    cache = root / CACHE_NAME
    if cache.exists():
        with np.load(cache) as z:
            if int(z["n_files"]) == len(files):
                return _unpack(z["ink"], z["shapes"], z["labels"])
    masks, labels = [], []
    for path in files:
        with Image.open(path) as im:
            cropped = crop_ink(ink_mask(im))
        if cropped is None:
            log.warning("skipping blank letter image %s", path)
            continue
        masks.append(cropped)
        labels.append(path.parent.name)
    shapes = np.array([m.shape for m in masks], np.int32)
    flat = np.concatenate([m.ravel() for m in masks])
    try:
        np.savez(cache, ink=flat, shapes=shapes, labels=np.array(labels), n_files=len(files))
    except OSError as exc:  # a read-only folder still loads, only slower next time
        log.warning("cannot cache letters in %s: %s", cache, exc)
    return _unpack(flat, shapes, np.array(labels))


def _unpack(flat: np.ndarray, shapes: np.ndarray, labels: np.ndarray) -> dict[str, list[np.ndarray]]:
    out: dict[str, list[np.ndarray]] = {}
    pos = 0
    for (h, w), label in zip(shapes.tolist(), labels.tolist(), strict=True):
        out.setdefault(str(label), []).append(flat[pos : pos + h * w].reshape(h, w))
        pos += h * w
    return out


def describe(letters: Mapping[str, Sequence[np.ndarray]]) -> dict[str, int]:
    """Samples per letter (for the card and the log)."""
    return {letter: len(letters.get(letter, ())) for letter in LETTERS}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m plugins.htr.train.comnist", description=__doc__.split("\n\n")[0])
    parser.add_argument("--git-dir", type=Path, required=True, help="bare git repository of absoluteteam/ocr")
    parser.add_argument("--dest", type=Path, default=DATA_DIR)
    parser.add_argument("--commit", default=COMMIT)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    dest = extract(args.git_dir, args.dest, args.commit)
    counts = describe(load_letters(dest))
    print(json.dumps({"dest": str(dest), "letters": sum(counts.values()), "per_letter": counts}, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
