"""Installs the example third-party detector package (``examples/fusionbrain-blobs``) and runs its
detector through the registry, the conformance suite and ``run.py --detector blobs``."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import types
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

import registry
import run
from core import hookimpl
from core.detector import DetectorConfig
from core.detector.loader import load_detector
from core.io import find_task_dir, load_image
from core.task import Prediction, Sample, SetupContext, TaskBase, TaskInfo
from core.testing import assert_detector_conforms

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "fusionbrain-blobs"


@pytest.fixture(scope="module")
def installed_blobs(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    target = tmp_path_factory.mktemp("site")
    source = shutil.copytree(EXAMPLE, tmp_path_factory.mktemp("src") / EXAMPLE.name)  # setuptools writes beside it
    pip = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "--no-index"]
    subprocess.run([*pip, "--target", str(target), str(source)], check=True)
    sys.path.insert(0, str(target))
    try:
        yield target
    finally:
        sys.path.remove(str(target))
        for name in [m for m in sys.modules if m.startswith("fusionbrain_blobs")]:
            del sys.modules[name]


def _squares() -> Image.Image:
    """A grey 120 x 80 image with a red square at (10, 20)-(40, 50) and a blue bar at (70, 5)-(110, 15)."""
    pixels = np.full((80, 120, 3), 128, dtype=np.uint8)
    pixels[20:50, 10:40] = (230, 20, 20)
    pixels[5:15, 70:110] = (20, 40, 230)
    return Image.fromarray(pixels)


def test_the_entry_point_registers_the_detector(installed_blobs) -> None:  # type: ignore[no-untyped-def]
    pm = registry.get_plugin_manager()
    found = registry.collect(pm)
    assert "blobs" in found.detectors and pm.origin(pm.get_plugin("blobs")) == "fusionbrain-blobs"
    detector = load_detector(DetectorConfig.parse("blobs"), found)
    found = assert_detector_conforms(detector, [_squares(), np.asarray(_squares())[::2, ::3].copy()])
    names = [detector.classes.name(i) for i in found[0].labels]
    assert names == ["red object", "blue object"]  # both fill their boxes; red first by class order
    assert found[0].boxes.tolist() == [[10.0, 20.0, 40.0, 50.0], [70.0, 5.0, 110.0, 15.0]]
    assert detector.classes.name(3, "ru") == "синий предмет"


@dataclass(frozen=True, slots=True)
class _ImageSample(Sample):
    path: Path


class _DetectedNames(TaskBase[_ImageSample, Any, list, Any]):
    """NAMES/<image>.png -> the English names of the shared detector's classes found in it, best first."""

    info = TaskInfo(
        name="names",
        version="1",
        folder="NAMES",
        output="prediction_NAMES.json",
        needs_trunk=False,
        needs_detector=True,
    )

    def setup(self, ctx: SetupContext[None]) -> Any:
        return ctx.detector()

    def discover(self, input_dir: Path) -> list[_ImageSample]:
        root = find_task_dir(input_dir, self.info.folder)
        return [_ImageSample(p.name, p) for p in sorted(root.glob("*.png"))] if root else []

    def preprocess(self, samples: Sequence[_ImageSample], trunk: Any, loaded: Any) -> Any:
        return [load_image(s.path) for s in samples]

    def predict(self, batch: Any, trunk: Any, detector: Any) -> list[list[str]]:
        return [[detector.classes.name(i) for i in found.labels] for found in detector.detect(batch)]

    def postprocess(self, raw: list[list[str]], samples: Sequence[Sample], loaded: Any) -> list[Prediction]:
        return [Prediction(s.key, names) for s, names in zip(samples, raw, strict=True)]

    def fallback(self, sample: Sample) -> Prediction:
        return Prediction(sample.key, [])


def test_run_py_builds_the_detector_named_on_the_command_line(installed_blobs, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "in" / "NAMES").mkdir(parents=True)
    _squares().save(tmp_path / "in" / "NAMES" / "a.png")
    task = _DetectedNames()
    plugin = types.ModuleType("names_plugin")
    plugin.register_tasks = hookimpl(lambda register: register(task))  # type: ignore[attr-defined]
    real = registry.get_plugin_manager

    def manager(**kwargs):  # type: ignore[no-untyped-def]
        pm = real(load_entrypoints=kwargs.get("load_entrypoints", True), builtins=registry.CORE_PLUGINS)
        pm.register(plugin, name="names_plugin")
        return pm

    monkeypatch.setattr("registry.get_plugin_manager", manager)
    argv = ["--input", str(tmp_path / "in"), "--output", str(tmp_path / "out"), "--tasks", "names"]
    assert run.main([*argv, "--detector", "blobs"]) == 0
    assert json.loads((tmp_path / "out" / "prediction_NAMES.json").read_text()) == {
        "a.png": ["red object", "blue object"]
    }
    # The same run on the default detector: NanoDet's COCO classes, none of which is a colour.
    assert run.main([*argv, "--detector", "nanodet"]) == 0
    names = json.loads((tmp_path / "out" / "prediction_NAMES.json").read_text())["a.png"]
    assert not {"red object", "blue object"} & set(names)
    # Without the plugin's distribution the name is unknown, and the list says what there is.
    assert run.main([*argv, "--detector", "blobs", "--no-plugins"]) == 2


def test_zsod_proposals_take_any_registered_detector(installed_blobs, tmp_path, monkeypatch, caplog) -> None:  # type: ignore[no-untyped-def]
    """``--zsod-proposals blobs``: zsOD's extra proposals come through ``ctx.detector(name)``, so a
    third-party detector works there as it does with ``--detector``."""
    from fusionbrain_blobs.detector import ColourBlobs

    seen: list[int] = []
    real = ColourBlobs.detect

    def counted(self, images, *, input_size=None):  # type: ignore[no-untyped-def]
        seen.append(len(images))
        return real(self, images, input_size=input_size)

    monkeypatch.setattr(ColourBlobs, "detect", counted)
    folder = tmp_path / "in" / "zsOD"
    (folder / "images").mkdir(parents=True)
    _squares().save(folder / "images" / "a.png")
    (folder / "requests.json").write_text(
        json.dumps({"a.png": ["guitar", "blanket"]})
    )  # no COCO class: the grid answers (--zsod-grid)
    argv = ["--input", str(tmp_path / "in"), "--output", str(tmp_path), "--tasks", "zsod", "--threads", "1"]
    assert run.main([*argv, "--zsod-proposals", "blobs", "--zsod-grid", "0.5"]) == 0
    assert seen and set(seen) == {1}  # one image a call, for every image with a phrase the grid answers
    assert "could not be built" not in caplog.text
    assert (tmp_path / "prediction_zsOD.json").is_file()
