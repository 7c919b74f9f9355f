"""The HTR task: conformance on the fake trunk, bad images, head/trunk compatibility."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from PIL import Image

from core.task import Prediction, SetupContext
from core.testing import assert_task_conforms
from plugins.htr.charset import NUM_CLASSES
from plugins.htr.task import HtrSample, HtrTask

DATA = Path(__file__).parent / "data"
REPO = Path(__file__).resolve().parents[2]


def _write_head(out: Path, image_version: str, c8: int = 8, c16: int = 16, size: tuple[int, int] | None = None) -> Path:
    import torch
    from safetensors.torch import save_file

    from plugins.htr.model import HtrHead

    torch.manual_seed(0)
    head = HtrHead(c8, c16, NUM_CLASSES, rows=(size or (64, 256))[0] // 8)
    out.mkdir(parents=True, exist_ok=True)
    save_file({k: v.contiguous() for k, v in head.state_dict().items()}, str(out / "htr_head.safetensors"))
    card = {"config": head.config, "trunk": {"image": image_version}}
    if size is not None:
        card["input"] = {"height": size[0], "width": size[1]}
    (out / "htr_head.json").write_text(json.dumps(card), encoding="utf-8")
    return out


@pytest.fixture(scope="module")
def fake_head(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _write_head(tmp_path_factory.mktemp("head"), "fake-image-1")


def test_conforms_on_fake_trunk(fake_trunk, fake_head: Path) -> None:  # type: ignore[no-untyped-def]
    preds = assert_task_conforms(HtrTask(fake_head), DATA, fake_trunk)
    assert [p.key for p in preds] == ["0.png", "1.png", "2.png"]
    assert all(isinstance(p.value, str) for p in preds)


def test_crops_are_fitted_to_the_size_on_the_card(fake_trunk, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    import torch

    task = HtrTask(_write_head(tmp_path / "head", "fake-image-1", size=(96, 384)))
    loaded = task.setup(SetupContext(fake_trunk))
    samples = task.discover(DATA)
    batch = task.preprocess(samples, fake_trunk, loaded)
    assert tuple(batch.pixels.shape[-2:]) == (96, 384)
    with torch.inference_mode():
        raw = task.predict(batch, fake_trunk, loaded)
    assert raw.log_probs.shape[1] == 384 // 8  # one CTC frame per 8 pixels of the taller crop
    assert [p.key for p in task.postprocess(raw, samples, loaded)] == [s.key for s in samples]


def test_head_of_another_trunk_is_not_used(fake_trunk, tmp_path: Path, caplog) -> None:  # type: ignore[no-untyped-def]
    task = HtrTask(_write_head(tmp_path, "efficientnet_lite0-other"), search=[tmp_path / "none"])
    loaded = task.setup(SetupContext(fake_trunk))
    assert loaded.head is None and "cannot read without one" in caplog.text
    samples = [HtrSample("a.png", tmp_path / "a.png")]
    with torch.inference_mode():
        raw = task.predict(task.preprocess(samples, fake_trunk, loaded), fake_trunk, loaded)
    assert task.postprocess(raw, samples, loaded) == [Prediction("a.png", "")]


def _bad_images(root: Path) -> dict[str, str]:
    images = root / "HTR" / "images"
    images.mkdir(parents=True)
    (images / "0.png").write_bytes(b"")
    (images / "1.png").write_bytes(b"\x89PNG\r\n\x1a\n garbage")
    Image.new("RGB", (1, 1), (0, 0, 255)).save(images / "2.png")
    Image.new("L", (80, 30), 200).save(images / "3.png")
    Image.fromarray(np.full((30, 90), 40000, np.uint16)).save(images / "4.png")
    Image.new("RGBA", (90, 30), (10, 10, 200, 0)).save(images / "5.png")
    Image.new("RGB", (6000, 300), (255, 255, 255)).save(images / "6.png")
    Image.new("RGB", (30, 120), (255, 255, 255)).save(images / "7.png")  # tall: read sideways
    Image.new("RGB", (100, 40), (255, 255, 255)).save(images / "10.jpg")
    return {f"{i}.png": "" for i in range(8)} | {"10.jpg": ""}


def test_every_bad_image_gets_a_string(fake_trunk, fake_head: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    import torch

    expected = _bad_images(tmp_path)
    task = HtrTask(fake_head)
    loaded = task.setup(SetupContext(fake_trunk))
    samples = task.discover(tmp_path)
    assert [s.key for s in samples] == [
        "0.png",
        "1.png",
        "2.png",
        "3.png",
        "4.png",
        "5.png",
        "6.png",
        "7.png",
        "10.jpg",
    ]
    batch = task.preprocess(samples, fake_trunk, loaded)
    assert 0 not in batch.owner and 1 not in batch.owner  # unreadable: no candidate row
    assert batch.rotation[batch.owner.index(7)] == 90
    with torch.inference_mode():
        preds = task.postprocess(task.predict(batch, fake_trunk, loaded), samples, loaded)
    assert {p.key for p in preds} == set(expected)
    assert preds[0].value == "" and preds[1].value == ""
    assert all(isinstance(p.value, str) for p in preds)


def test_all_unreadable_batch_still_answers(fake_trunk, fake_head: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    import torch

    images = tmp_path / "HTR" / "images"
    images.mkdir(parents=True)
    (images / "0.png").write_bytes(b"")
    task = HtrTask(fake_head)
    loaded = task.setup(SetupContext(fake_trunk))
    samples = task.discover(tmp_path)
    with torch.inference_mode():
        preds = task.postprocess(
            task.predict(task.preprocess(samples, fake_trunk, loaded), fake_trunk, loaded), samples, loaded
        )
    assert [(p.key, p.value) for p in preds] == [("0.png", "")]


def test_import_is_cheap() -> None:
    heavy = "('open_clip', 'ultralytics', 'transformers', 'torch')"
    code = f"import sys, plugins.htr; print(any(m in sys.modules for m in {heavy}))"
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_shipped_head_reads_demo_on_default_trunk(default_trunk) -> None:  # type: ignore[no-untyped-def]
    """The committed weights load on the real trunk and answer every demo image (quality: bench/htr.py)."""
    import torch

    demo = REPO / "demo" / "input"
    task = HtrTask()
    loaded = task.setup(SetupContext(default_trunk))
    samples = task.discover(demo)
    with torch.inference_mode():
        preds = task.postprocess(
            task.predict(task.preprocess(samples, default_trunk, loaded), default_trunk, loaded), samples, loaded
        )
    gold = json.loads((demo / "HTR" / "true_HTR.json").read_text(encoding="utf-8"))
    assert {p.key for p in preds} == set(gold)
