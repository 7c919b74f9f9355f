"""``--zsod-proposals yolo:PATH``: a user's ultralytics YOLO checkpoint adds class-agnostic proposals.

The checkpoint is a random-weight YOLOv8n built from ultralytics' bundled yaml (nothing
downloaded), its class biases raised so that it finds boxes at all. Every socket is
refused while ultralytics is imported, builds, loads and predicts, and every attempt is
recorded: the test fails if ultralytics tried to reach the network (fonts, assets,
online checks, telemetry).
"""

from __future__ import annotations

import argparse
import socket
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from core.errors import PluginError
from core.request import PluginConfig
from plugins.zsod.decision import Calibration
from plugins.zsod.proposals import grid_proposals
from plugins.zsod.task import ZsodTask
from plugins.zsod.yolo import parse_spec

DATA = Path(__file__).parent / "data"
EAGER = Calibration(present=0.0, extra=1.01, max_boxes=1)


@pytest.fixture(scope="module")
def offline() -> Iterator[list[str]]:
    """Refuse (and record) every socket connection and name lookup for the module's tests."""
    attempts: list[str] = []

    def refuse(*args: object, **kwargs: object) -> None:
        attempts.append(repr(args[:2]))
        raise OSError("network access is blocked in tests")

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(socket.socket, "connect", refuse)
        mp.setattr(socket.socket, "connect_ex", refuse)
        mp.setattr(socket, "create_connection", refuse)
        mp.setattr(socket, "getaddrinfo", refuse)
        yield attempts


@pytest.fixture(scope="module")
def checkpoint(offline: list[str], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A random-weight YOLOv8n detection checkpoint, saved in a temporary folder."""
    import os

    import torch

    folder = tmp_path_factory.mktemp("yolo")
    os.environ.setdefault("YOLO_CONFIG_DIR", str(folder / "config"))  # ultralytics' settings file, not ~/.config
    from plugins.zsod.yolo import import_ultralytics

    yolo = import_ultralytics()
    torch.manual_seed(0)
    model = yolo("yolov8n.yaml")  # the architecture only: random weights
    with torch.no_grad():
        for branch in model.model.model[-1].cv3:  # class logits high enough that the random net finds boxes
            branch[-1].bias.fill_(3.0)
    path = folder / "random_yolov8n.pt"
    model.save(str(path))
    return path


def test_spec_must_be_yolo_and_an_existing_file(tmp_path: Path) -> None:
    ckpt = tmp_path / "x.pt"
    ckpt.write_bytes(b"")
    assert parse_spec(f"yolo:{ckpt}") == ckpt
    for bad in ("yolo:", f"detr:{ckpt}", str(ckpt), f"yolo:{tmp_path / 'missing.pt'}"):
        with pytest.raises(PluginError, match="zsod-proposals"):
            parse_spec(bad)


def test_import_leaves_pil_image_open_alone(checkpoint: Path) -> None:
    import ultralytics.utils.patches as patches

    assert Image.open is not patches.image_open  # ultralytics' HEIF patch (it pip-installs pi-heif) is undone
    assert Image.open.__module__ == "PIL.Image"


def test_proposer_gives_boxes_inside_the_image(checkpoint: Path, offline: list[str]) -> None:
    import torch

    from plugins.zsod.yolo import MAX_BOXES, YoloProposer

    image = Image.open(DATA / "zsOD" / "images" / "0.jpg").convert("RGB")
    from ultralytics.utils import NUM_THREADS

    threads = torch.get_num_threads()
    torch.set_num_threads(NUM_THREADS + 1)  # as run.py --threads N would, N not ultralytics' own choice
    try:
        boxes = YoloProposer(checkpoint).boxes(image)
        assert torch.get_num_threads() == NUM_THREADS + 1  # its CPU device selection resets it to NUM_THREADS
    finally:
        torch.set_num_threads(threads)
    w, h = image.size
    assert boxes.ndim == 2 and boxes.shape[1] == 4 and 0 < len(boxes) <= MAX_BOXES
    assert (boxes[:, 0] >= 0).all() and (boxes[:, 2] <= w).all() and (boxes[:, 1] >= 0).all()
    assert (boxes[:, 3] <= h).all() and (boxes[:, 2] > boxes[:, 0]).all() and (boxes[:, 3] > boxes[:, 1]).all()
    assert offline == []  # nothing tried to reach the network


def _register(*argv: str) -> ZsodTask:
    from registry import get_plugin_manager

    pm = get_plugin_manager(load_entrypoints=False, builtins=("plugins.zsod",))
    parser = argparse.ArgumentParser()
    pm.hook.add_options(parser=parser)
    tasks: list = []
    options = parser.parse_args(list(argv))
    pm.hook.register_tasks(register=tasks.append, config=PluginConfig(options=vars(options)))
    (task,) = tasks
    return task


def test_option_adds_the_yolo_boxes_beside_the_grid(checkpoint: Path, fake_trunk, offline: list[str]) -> None:  # type: ignore[no-untyped-def]
    plain = _register()
    with_yolo = _register("--zsod-proposals", f"yolo:{checkpoint}")
    assert plain.yolo_checkpoint is None and with_yolo.yolo_checkpoint == checkpoint
    raws = {}
    for name, task in (("plain", plain), ("yolo", with_yolo)):
        task.calibration = EAGER
        task.setup(fake_trunk)
        samples = [s for s in task.discover(DATA) if s.key == "0.jpg"]
        items = task.preprocess(samples, fake_trunk)
        raws[name] = (
            items[0],
            task.predict(items, fake_trunk)[0],
            task.postprocess(task.predict(items, fake_trunk), samples),
        )
    item, plain_scored, plain_preds = raws["plain"]
    _, yolo_scored, yolo_preds = raws["yolo"]
    grid = grid_proposals(*item.image.size)
    yolo_boxes = with_yolo.loaded().yolo.boxes(item.image)
    assert len(yolo_boxes) > 0
    assert np.array_equal(plain_scored.boxes, grid)  # no option: the grid alone, as before
    assert np.array_equal(yolo_scored.boxes[: len(grid)], grid)
    # YOLO's boxes, computed again here, within their 0.1 px rounding (a float sum may end another way)
    np.testing.assert_allclose(yolo_scored.boxes[len(grid) :], yolo_boxes, rtol=0, atol=0.1 + 1e-6)
    assert yolo_scored.probs.shape == (len(grid) + len(yolo_boxes), len(item.phrases))
    assert set(yolo_preds[0].value) == set(plain_preds[0].value)  # every phrase still answered
    assert offline == []


def test_a_bad_option_is_logged_and_the_task_runs_on_the_grid(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    task = _register("--zsod-proposals", f"yolo:{tmp_path / 'missing.pt'}")
    assert task.yolo_checkpoint is None
    assert "no checkpoint file" in caplog.text and "running without YOLO proposals" in caplog.text


def test_a_checkpoint_that_does_not_load_is_logged_and_left_out(
    tmp_path: Path,
    fake_trunk,
    caplog: pytest.LogCaptureFixture,
    offline: list[str],  # type: ignore[no-untyped-def]
) -> None:
    bad = tmp_path / "broken.pt"
    bad.write_bytes(b"not a checkpoint")
    task = _register("--zsod-proposals", f"yolo:{bad}")
    task.setup(fake_trunk)
    assert task.loaded().yolo is None
    assert "YOLO proposals from" in caplog.text and "not used" in caplog.text
    assert offline == []
