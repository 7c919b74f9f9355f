"""DHSD's loader, label folding, writer split, copybook crops, shards and misfit filter, on a tiny
synthetic copy of the dataset's layout (drawn here: the real images are a training-time fetch)."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw

from plugins.htr.charset import CHARSET
from plugins.htr.train import dhsd, fit

pytest.importorskip("cv2")

TEXTS = ["Königshain-Wiederau", "Groß Köris", "Söllingen", "Hähnichen"]


def _word_png(path: Path, k: int) -> None:
    """A 256 x 64 RGBA 'word' like DHSD's: blue strokes on opaque white."""
    img = Image.new("RGBA", (256, 64), (255, 255, 255, 255))
    draw = ImageDraw.Draw(img)
    for i in range(3 + k % 4):
        draw.line((20 + 30 * i, 45, 35 + 30 * i, 18 + k % 5), fill=(40, 50, 160, 255), width=2)
    img.save(path)


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    root = tmp_path / "dhsd"
    rows = ["file_name,text,writer_id"]
    for writer in (1, 5, 7, 10):
        folder = root / dhsd.SUBDIR / f"writer{writer}"
        folder.mkdir(parents=True)
        for k, text in enumerate(TEXTS):
            _word_png(folder / f"{writer}_{k}.png", writer + k)
            rows.append(f"{dhsd.SUBDIR}/writer{writer}/{writer}_{k}.png,{text},{writer}")
    rows.append(f"{dhsd.SUBDIR}/writer1/1_99.png,Fehlt,1")  # a label without its image
    (root / dhsd.LABELS).write_text("\n".join(rows) + "\n", encoding="utf-8")
    return root


def test_fold_maps_umlauts_and_diacritics_into_the_charset_and_keeps_cyrillic() -> None:
    assert dhsd.fold("Königshain-Wiederau") == "Konigshain-Wiederau"
    assert dhsd.fold("Groß ÄÖÜ äöü šó") == "Gross AOU aou so"
    assert dhsd.fold("ёжик й") == "ёжик й"
    assert all(ch in CHARSET for t in TEXTS for ch in dhsd.fold(t))


def test_read_words_skips_missing_images_and_split_holds_out_whole_writers(dataset: Path) -> None:
    words = dhsd.read_words(dataset)
    assert len(words) == 16 and words[1].text == "Groß Köris" and words[1].folded == "Gross Koris"
    train, held = dhsd.split(words)
    assert {w.writer for w in held} == {5, 10} and {w.writer for w in train} == {1, 7}
    assert not {w.writer for w in train} & set(dhsd.HELDOUT_WRITERS)


def test_read_words_says_how_to_fetch_when_missing(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="python -m plugins.htr.train.dhsd"):
        dhsd.read_words(tmp_path)


def test_ink_is_the_cropped_strokes_and_copybook_is_a_dark_cut_crop(dataset: Path) -> None:
    word = dhsd.read_words(dataset)[0]
    ink = dhsd.ink(word.path)
    assert ink.dtype == np.uint8 and ink.shape[0] < 64 and ink.shape[1] < 256 and ink.max() == 255
    crops = [np.asarray(dhsd.copybook(ink, random.Random(s))) for s in range(12)]
    assert all(c.ndim == 3 and c.shape[2] == 3 for c in crops)
    # the polygon cut and tilts leave black corners on most crops, as in the challenge
    assert sum(int(c[0, 0].max() < 40 or c[-1, -1].max() < 40) for c in crops) >= 6
    again = np.asarray(dhsd.copybook(ink, random.Random(3)))
    assert np.array_equal(again, crops[3])


def test_produce_writes_folded_real_shards_and_drop_words_leaves_rows_out(dataset: Path, tmp_path: Path) -> None:
    from core.testing import make_fake_trunk

    train, _ = dhsd.split(dhsd.read_words(dataset))
    cache = tmp_path / "cache"
    paths = dhsd.produce(cache, make_fake_trunk(), train, 2, scans=1, progress=False)
    assert [p.name for p in paths] == ["real_dhsd_0_000.npz", "real_dhsd_1_000.npz"]
    assert fit.list_shards(cache) == paths  # seen as real handwriting by the trainer
    data = fit.load_shards(paths)
    assert len(data["texts"]) == 16 and data["real"].all() and "Gross Koris" in set(data["texts"].tolist())
    out = tmp_path / "kept"
    left_out = dhsd.drop_words(cache, out, train, {train[1].path.name, train[6].path.name})
    kept = fit.load_shards(fit.list_shards(out))
    assert left_out == 4 and len(kept["texts"]) == 12
    assert json.loads((out / "input.json").read_text()) == json.loads((cache / "input.json").read_text())


def test_extract_unpacks_a_bare_repository(tmp_path: Path, dataset: Path) -> None:
    if shutil.which("git") is None:
        pytest.skip("git not installed")
    work = tmp_path / "work"
    shutil.copytree(dataset, work)
    (work / "LICENSE").write_text("CC BY 4.0\n")
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    run = lambda *args: subprocess.run(["git", "-C", str(work), *args], check=True, capture_output=True, env=env)  # noqa: E731
    run("init", "-q")
    run("add", ".")
    run("commit", "-qm", "words")
    head = subprocess.run(["git", "-C", str(work), "rev-parse", "HEAD"], capture_output=True, text=True)
    commit = head.stdout.strip()
    dest = dhsd.extract(work / ".git", tmp_path / "out", commit)
    manifest = json.loads((dest / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["commit"] == commit and manifest["licence"] == dhsd.LICENCE
    assert manifest["images"] == 16 and manifest["writers"] == 4


def test_epoch_order_repeats_or_thins_the_real_samples() -> None:
    real = np.array([False] * 6 + [True] * 10)
    rng = np.random.default_rng(0)
    twice = fit.epoch_order(real, 2, rng)
    assert len(twice) == 26 and np.bincount(twice).tolist() == [1] * 6 + [2] * 10
    share = fit.epoch_order(real, 0.3, rng)
    assert len(share) == 9 and set(range(6)) <= set(share.tolist()) and len(set(share.tolist())) == 9
    assert sorted(fit.epoch_order(real, 1, rng).tolist()) == list(range(16))
