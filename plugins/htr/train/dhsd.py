"""DHSD: real handwritten words (training and the real dev set only; the library never imports this).

The Deutscher Handschriften-Datensatz (German Handwriting Street-name Dataset, Riaz et al.,
https://doi.org/10.5281/zenodo.18743313) holds 5,939 word images written with a pen on white
paper by 37 people: German city and street names, 256 x 64 RGBA PNGs, labelled in ``data.csv``
(``file_name,text,writer_id``), licensed CC BY 4.0. It sits in the public GitHub repository
``nauman-riaz/DHSD`` at ``COMMIT``. The labels are the words the writers were asked to copy,
so a few images differ from their label (writer 1 wrote "Weiderau" for "Wiederau").

``extract`` copies the images and ``data.csv`` out of a bare git snapshot of the repository
(the session's ``fetch`` brings one; ``git clone --bare`` does as well) into ``DATA_DIR`` and
writes ``manifest.json``. Nothing is committed, and inference never needs the images.

* ``HELDOUT_WRITERS``: whole writers never trained on, the real dev set (``bench.htr_dhsd``).
* ``fold``: the charset is Russian and English, so a label's umlauts and other Latin
  diacritics are dropped (``ä`` -> ``a``, ``Ö`` -> ``O``, ``š`` -> ``s``) and ``ß`` is ``ss``.
  The challenge writes no German; extending the charset would grow the head's output, change
  the decoder's charset stamp and give the decoder letters its lexicons never hold. The
  written dots are then read as part of the base letter, as a careless writer's ``ё`` is ``е``.
* ``copybook``: an image brought into the challenge's domain (squared paper, ballpoint ink, a
  polygon cut on black, tilts, low resolution: ``render.finish``), after the font renderer's
  slant and elastic warp (``render._distort``) now and then.

    python -m plugins.htr.train.dhsd --git-dir /work/.mirror/nauman-riaz+DHSD/repo [--dest DIR]
    python -m plugins.htr.train.dhsd --git-dir ... --cache D --produce --copies 3 --scans 1
    python -m plugins.htr.train.dhsd --git-dir ... --cache D --misfits D/checkpoint.pt --threshold 0.5
    python -m plugins.htr.train.dhsd --git-dir ... --cache D2 --produce --drop D/misfits.json
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import logging
import random
import subprocess
import sys
import tarfile
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from plugins.htr.preprocess import HEIGHT, WIDTH, fit_word
from plugins.htr.train.dhsd_source import COMMIT, DATA_DIR, HELDOUT_WRITERS, LABELS, LICENCE, REPOSITORY, SUBDIR
from plugins.htr.train.fit import ROTATED_SHARE, SHARD_SIZE

__all__ = ["COMMIT", "DATA_DIR", "HELDOUT_WRITERS", "LABELS", "LICENCE", "REPOSITORY", "SUBDIR"]

log = logging.getLogger(__name__)

INK_FLOOR = 24  # of 255: paper noise below this is no ink
DISTORT_SHARE = 0.6
MISFIT_RULE = (
    "dropped: training images whose open reading (prefix beam, no lexicon) by a head trained on them has a CER"
    " against the folded label above the threshold"
)  # images also slanted, squeezed and warped like the font renderer's words


@dataclass(frozen=True)
class Word:
    path: Path
    text: str  # as labelled, umlauts and all
    writer: int

    @property
    def folded(self) -> str:
        return fold(self.text)


def fold(text: str) -> str:
    """``text`` in the charset's letters: ``ß`` -> ``ss``, Latin diacritics dropped (``ä`` -> ``a``).
    Cyrillic is left alone (``й`` and ``ё`` are letters of their own)."""
    out = []
    for ch in text.replace("ß", "ss").replace("ẞ", "SS"):
        base = unicodedata.normalize("NFKD", ch)[0]
        out.append(base if not ch.isascii() and base.isascii() and base.isalpha() else ch)
    return "".join(out)


def extract(git_dir: Path, dest: Path = DATA_DIR, commit: str = COMMIT) -> Path:
    """Unpack ``german_hw_data/`` and ``data.csv`` of ``commit`` from the bare repository ``git_dir``
    into ``dest``; returns ``dest``. Writes ``dest/manifest.json``; a copy of the same commit is kept."""
    manifest = dest / "manifest.json"
    if manifest.exists() and json.loads(manifest.read_text(encoding="utf-8")).get("commit") == commit:
        return dest
    archive = subprocess.run(
        ["git", f"--git-dir={git_dir}", "archive", "--format=tar", commit, SUBDIR, LABELS, "LICENSE"],
        check=True,
        capture_output=True,
    ).stdout
    dest.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(dest, members=[m for m in tar.getmembers() if m.isfile()], filter="data")
    words = read_words(dest)
    manifest.write_text(
        json.dumps(
            {
                "name": "DHSD",
                "source": REPOSITORY,
                "commit": commit,
                "licence": LICENCE,
                "format": "256 x 64 RGBA PNG, pen on white paper; data.csv: file_name,text,writer_id",
                "images": len(words),
                "writers": len({w.writer for w in words}),
                "heldout_writers": list(HELDOUT_WRITERS),
            },
            ensure_ascii=False,
            indent=1,
        )
        + "\n",
        encoding="utf-8",
    )
    return dest


def read_words(root: Path = DATA_DIR) -> list[Word]:
    """Every labelled image of ``root/data.csv`` whose file is there (missing ones are logged)."""
    path = root / LABELS
    if not path.exists():
        raise FileNotFoundError(
            f"no DHSD labels at {path}; bring them with "
            "`python -m plugins.htr.train.dhsd --git-dir <bare clone of nauman-riaz/DHSD>`"
        )
    words, missing = [], 0
    with path.open(encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f):
            image = root / row["file_name"]
            if not image.is_file():
                missing += 1
                continue
            words.append(Word(image, row["text"], int(row["writer_id"])))
    if missing:
        log.warning("%s: %d labelled images missing", root, missing)
    return words


def split(words: Sequence[Word]) -> tuple[list[Word], list[Word]]:
    """``(training writers' words, held-out writers' words)``."""
    held = set(HELDOUT_WRITERS)
    return [w for w in words if w.writer not in held], [w for w in words if w.writer in held]


def ink(path: Path) -> np.ndarray:
    """An image's ink (uint8, 255 = ink), paper noise removed, stretched so that the strokes' cores
    (the 90th percentile of the ink pixels) are full ink whatever the pen's colour, cropped to the ink."""
    from PIL import Image

    from plugins.htr.train.comnist import crop_ink, ink_mask

    with Image.open(path) as im:
        mask = ink_mask(im).astype(np.float32) - INK_FLOOR
    core = float(np.percentile(mask[mask > 0], 90)) if (mask > 0).any() else 1.0
    mask = np.clip(mask * 255 / max(core, 1.0), 0, 255).astype(np.uint8)
    cropped = crop_ink(mask)
    return mask if cropped is None else cropped


def copybook(mask: np.ndarray, rng: random.Random):  # noqa: ANN201 - PIL.Image
    """An ink mask as a challenge-like crop: sometimes slanted and warped (``render._distort``), then
    on copybook paper in ballpoint colours, lit, cut by a polygon on black, tilted, and photographed
    (``render.finish``). The ink is first scaled to a writing size of 30-70 px, so the camera step
    brings it down to the challenge's range of resolutions rather than up."""
    import cv2
    from PIL import Image

    from plugins.htr.train.render import _distort, finish

    nrng = np.random.default_rng(rng.getrandbits(63))
    size = rng.randint(30, 70)
    scale = size / max(mask.shape[0], 1)
    mask = cv2.resize(mask, (max(1, round(mask.shape[1] * scale)), size), interpolation=cv2.INTER_LINEAR)
    if rng.random() < 0.5:  # ballpoint lines are 2-4 px at this size; the scans' are often 1-2
        mask = cv2.dilate(mask, np.ones((2, 2), np.uint8))
    pad = size // 4 + 2
    mask = np.pad(mask, pad)
    if rng.random() < DISTORT_SHARE:
        mask = _distort(mask, rng, nrng, size)
    return Image.fromarray(finish(mask, size, rng, nrng), "RGB")


def produce(
    cache: Path,
    trunk,  # noqa: ANN001 - a built Trunk
    words: Sequence[Word],
    copies: int,
    *,
    scans: int = 1,
    seed: int = 0,
    height: int = HEIGHT,
    rotated_share: float = ROTATED_SHARE,
    progress: bool = True,
) -> list[Path]:
    """Cache trunk maps of ``words`` as real-handwriting shards ``real_dhsd_<copy>_<k>.npz`` in ``cache``:
    ``copies`` passes over the words, the first ``scans`` of them the images as scanned, the others
    ``copybook`` crops (each pass seeded by ``seed`` and its number). A ``rotated_share`` of the crops is
    turned sideways to teach the upright score (no CTC loss on them), as in the rendered shards.
    Labels are ``fold``-ed. Existing shards are kept (resumable); returns every shard path."""
    from PIL import Image
    from tqdm import tqdm

    from plugins.htr.train.fit import save_shard

    cache.mkdir(parents=True, exist_ok=True)
    (cache / "trunk.json").write_text(json.dumps(trunk.component_versions))
    (cache / "input.json").write_text(json.dumps({"height": height, "width": height * WIDTH // HEIGHT}))
    paths = []
    jobs = [(c, k) for c in range(copies) for k in range(0, len(words), SHARD_SIZE)]
    for c, k in tqdm(jobs, desc="dhsd shards", unit="shard", disable=not progress):
        path = cache / f"real_dhsd_{c}_{k // SHARD_SIZE:03d}.npz"
        paths.append(path)
        if path.exists():
            continue
        rng = random.Random(f"{seed}:{c}:{k}")
        crops, texts, upright = [], [], []
        for word in words[k : k + SHARD_SIZE]:
            if c < scans:
                with Image.open(word.path) as im:
                    img = im.convert("RGB")
            else:
                img = copybook(ink(word.path), rng)
            up = 1
            if rng.random() < rotated_share:
                img = img.rotate(rng.choice((90, 270)), expand=True)
                up = 0
            crops.append(fit_word(img, height, height * WIDTH // HEIGHT))
            texts.append(word.folded)
            upright.append(up)
        save_shard(path, trunk, crops, texts, upright)
    return paths


def drop_words(src: Path, dst: Path, words: Sequence[Word], names: set[str]) -> int:
    """Copy ``src``'s DHSD shards (produced from ``words``) to ``dst`` without the rows of the images
    named in ``names`` (no trunk pass: a shard's rows follow ``words``' order). Returns the rows left out."""
    dst.mkdir(parents=True, exist_ok=True)
    for meta in ("trunk.json", "input.json"):
        (dst / meta).write_text((src / meta).read_text())
    left_out = 0
    for path in sorted(src.glob("real_dhsd_*.npz")):
        k = int(path.stem.rsplit("_", 1)[1]) * SHARD_SIZE
        keep = np.array([w.path.name not in names for w in words[k : k + SHARD_SIZE]])
        with np.load(path) as z:
            if len(z["texts"]) != len(keep):
                raise SystemExit(f"{path} was produced from other words")
            parts = {key: z[key][keep] for key in z.files}
        left_out += int((~keep).sum())
        np.savez(dst / path.name, **parts)
    return left_out


def misfits(
    head_path: Path,
    cache: Path,
    words: Sequence[Word],
    trunk,  # noqa: ANN001 - a built Trunk
    threshold: float,
) -> dict[str, dict]:
    """The rule that drops images which differ from their label: a head trained on these words
    (``head_path``: a checkpoint or head folder) reads each image as scanned (open decoding: the prefix
    beam's best reading); an image whose CER against its folded label is above ``threshold`` is a misfit.
    The scanned pass of ``produce`` (``real_dhsd_0_*``, in ``words``' order) gives the upright crops'
    trunk maps; the crops it turned sideways are read afresh. Returns ``{image name: {label, reading,
    cer}}`` of the misfits, and logs how many crops each CER band holds."""
    import torch
    from PIL import Image

    from plugins.htr.charset import decode
    from plugins.htr.ctc import prefix_beam_search
    from plugins.htr.model import HtrHead
    from plugins.htr.train.fit import load_init, load_shards, save_shard
    from plugins.htr.train.metrics import cer

    warm = load_init(head_path)
    head = HtrHead(**warm["config"])
    head.load_state_dict(warm["head"])
    head.eval()
    out, cers = {}, []
    for k in range(0, len(words), SHARD_SIZE):
        chunk = words[k : k + SHARD_SIZE]
        data = load_shards([cache / f"real_dhsd_0_{k // SHARD_SIZE:03d}.npz"])
        if [str(t) for t in data["texts"]] != [w.folded for w in chunk]:
            raise SystemExit(f"{cache} was produced from other words; produce it again")
        sideways = np.flatnonzero(data["upright"] == 0)
        if len(sideways):  # read these crops upright: their maps, written to a scratch shard
            tmp = cache / ".misfits.npz"
            crops = []
            for i in sideways:
                with Image.open(chunk[i].path) as im:
                    crops.append(fit_word(im.convert("RGB"), HEIGHT, WIDTH))
            save_shard(tmp, trunk, crops, [chunk[i].folded for i in sideways], [1] * len(sideways))
            fresh = load_shards([tmp])
            tmp.unlink()
            for key in ("s8", "s16"):
                data[key] = data[key].copy()
                data[key][sideways] = fresh[key]
        with torch.no_grad():
            lp = head(torch.from_numpy(data["s8"]).float(), torch.from_numpy(data["s16"]).float()).log_probs
        for word, rows in zip(chunk, lp.float().numpy(), strict=True):
            reading = decode(prefix_beam_search(rows)[0][0])
            c = cer(reading, word.folded)
            cers.append(c)
            if c > threshold:
                out[word.path.name] = {"label": word.folded, "reading": reading, "cer": round(c, 3)}
    bands = np.histogram(cers, bins=[0, 1e-9, 0.1, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 100])[0]
    log.info("CER bands 0 | <.1 | <.2 | <.3 | <.4 | <.5 | <.75 | <1 | >=1: %s; over %s: %d", bands, threshold, len(out))
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m plugins.htr.train.dhsd", description=__doc__.split("\n\n")[0])
    parser.add_argument("--git-dir", type=Path, required=True, help="bare git repository of nauman-riaz/DHSD")
    parser.add_argument("--dest", type=Path, default=DATA_DIR)
    parser.add_argument("--commit", default=COMMIT)
    parser.add_argument("--examples", type=Path, default=None, help="also write a few copybook crops here")
    parser.add_argument("--cache", type=Path, default=None, help="the training writers' trunk-map cache")
    parser.add_argument("--produce", action="store_true", help="fill --cache (resumable)")
    parser.add_argument("--copies", type=int, default=3, help="passes over the training writers' words")
    parser.add_argument("--scans", type=int, default=1, help="of them, passes with the images as scanned")
    parser.add_argument(
        "--drop", type=Path, default=None, help="misfits.json: copy --cache's shards to --to without those images"
    )
    parser.add_argument("--to", type=Path, default=None, help="where --drop writes the shards")
    parser.add_argument("--trunk", default="default", help="trunk spec as for run.py")
    parser.add_argument("--misfits", type=Path, default=None, help="apply the misfit rule with this head")
    parser.add_argument("--threshold", type=float, default=0.5, help="the misfit rule's CER threshold")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    dest = extract(args.git_dir, args.dest, args.commit)
    words = read_words(dest)
    train, held = split(words)
    if args.examples:
        args.examples.mkdir(parents=True, exist_ok=True)
        rng = random.Random(0)
        for i, w in enumerate(rng.sample(train, 12)):
            copybook(ink(w.path), rng).save(args.examples / f"{i:02d}_{w.folded}.png")
    summary = {"dest": str(dest), "images": len(words), "train": len(train), "heldout": len(held)}
    if args.misfits:
        from plugins.htr.train.fit import build_trunk

        found = misfits(args.misfits, args.cache, train, build_trunk(args.trunk), args.threshold)
        record = {"rule": MISFIT_RULE, "threshold": args.threshold, "head": str(args.misfits), "misfits": found}
        (args.cache / "misfits.json").write_text(json.dumps(record, ensure_ascii=False, indent=1) + "\n")
        print(json.dumps({"misfits": len(found), "of": len(train), "written": str(args.cache / "misfits.json")}))
        return 0
    if args.drop:
        record = json.loads(args.drop.read_text(encoding="utf-8"))
        summary["rows_left_out"] = drop_words(args.cache, args.to, train, set(record["misfits"]))
        summary["images_dropped"] = len(record["misfits"])
        kept = {k: record[k] for k in ("rule", "threshold", "head")} | {"images": len(record["misfits"])}
        (args.to / "misfits_dropped.json").write_text(json.dumps(kept | {"of": len(train)}) + "\n")
    if args.produce:
        import torch

        from plugins.htr.train.fit import build_trunk

        torch.set_num_threads(1)
        produce(args.cache, build_trunk(args.trunk), train, args.copies, scans=args.scans)
        summary["produced"] = str(args.cache)
    print(json.dumps(summary | {"heldout_writers": list(HELDOUT_WRITERS)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
