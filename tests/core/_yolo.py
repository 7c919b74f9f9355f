"""A random-weight YOLOv8n detection checkpoint, made offline, for the ``yolo`` detector's tests.

The checkpoint is built from ultralytics' bundled yaml (nothing downloaded), its class biases
raised so that it finds boxes at all. Every socket is refused while ultralytics is imported,
builds, loads and predicts, and every attempt is recorded: a test fails if ultralytics tried
to reach the network (fonts, assets, online checks, telemetry). Import both fixtures into a
test module to use them.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests._network import refuse_network

if importlib.util.find_spec("ultralytics") is None:  # not imported here: that would patch the process for good
    pytest.skip("needs ultralytics (requirements.txt)", allow_module_level=True)


@pytest.fixture(scope="module")
def offline() -> Iterator[list[str]]:
    """Refuse (and record) every socket connection and name lookup for the module's tests."""
    attempts: list[str] = []
    with pytest.MonkeyPatch.context() as mp:
        refuse_network(mp, attempts)
        yield attempts


@pytest.fixture(scope="module")
def checkpoint(offline: list[str], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A random-weight YOLOv8n detection checkpoint, saved in a temporary folder."""
    import os

    import torch

    folder = tmp_path_factory.mktemp("yolo")
    os.environ.setdefault("YOLO_CONFIG_DIR", str(folder / "config"))  # ultralytics' settings file, not ~/.config
    from core.detector.yolo import import_ultralytics

    yolo = import_ultralytics()
    torch.manual_seed(0)
    model = yolo("yolov8n.yaml")  # the architecture only: random weights
    with torch.no_grad():
        for branch in model.model.model[-1].cv3:  # class logits high enough that the random net finds boxes
            branch[-1].bias.fill_(3.0)
    path = folder / "random_yolov8n.pt"
    model.save(str(path))
    return path
