from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from core.detector.phrases import MappingRule
from core.request import PluginConfig
from core.task import Prediction, RunContext, SetupContext
from core.testing import assert_task_conforms
from plugins.zsod.decision import Calibration
from plugins.zsod.detected import DetectionRule
from plugins.zsod.task import Geometry, ZsodSample, ZsodTask, clean_phrases, to_stored

DATA = Path(__file__).parent / "data"
REQUESTS = json.loads((DATA / "zsOD" / "requests.json").read_text(encoding="utf-8"))
# A calibration that always answers (presence threshold 0) so the fixtures get boxes.
EAGER = Calibration(present=0.0, extra=1.01, max_boxes=1)
# no phrase maps to a detector class, and the grid answers described phrases too: every phrase takes the grid
GRID_ONLY = DetectionRule(mapping=MappingRule(min_cos=2.0), grid_names=0.0, grid_described=0.0)


def test_clean_phrases_keeps_every_requested_phrase_once() -> None:
    assert clean_phrases(["a", "b", "a"]) == (("a", "b"), ["duplicated phrase 'a'"])
    assert clean_phrases(["a", 7, None])[0] == ("a", "7", "null")
    assert clean_phrases("just one")[0] == ("just one",)
    assert clean_phrases({"not": "a list"}) == ((), ["phrase list is a dict, not a list"])
    assert clean_phrases([]) == ((), ["empty phrase list"])


def test_discover_keeps_every_image_key(tmp_path: Path) -> None:
    task = ZsodTask()
    samples = task.discover(DATA)
    assert [s.key for s in samples] == list(REQUESTS)
    missing = next(s for s in samples if s.key == "6.jpg")
    assert isinstance(missing, ZsodSample) and missing.image_path is None and missing.problem
    assert task.discover(tmp_path) == []


def test_conformance_with_a_fake_trunk(fake_trunk) -> None:  # type: ignore[no-untyped-def]
    task = ZsodTask(calibration=EAGER, rule=GRID_ONLY)
    predictions = assert_task_conforms(task, DATA, fake_trunk)
    values = {p.key: p.value for p in predictions}
    for key, request in REQUESTS.items():
        phrases, _ = clean_phrases(request)
        assert list(values[key]) == list(phrases), key
    # readable images of every colour mode get one box per phrase, inside the stored image
    for key, (w, h) in {
        "0.jpg": (96, 64),
        "1.jpg": (96, 64),
        "2.png": (96, 64),
        "3.jpg": (96, 64),
        "4.jpg": (64, 96),
    }.items():
        for boxes in values[key].values():
            assert len(boxes) == 1
            x, y, bw, bh = boxes[0]
            assert x >= 0 and y >= 0 and x + bw <= w + 1e-6 and y + bh <= h + 1e-6
    assert values["5.jpg"] == {"broken image phrase": []}  # truncated file
    assert values["6.jpg"] == {"the file does not exist": []}
    assert values["0b.jpg"] == {}


def test_fallback_answers_every_phrase_absent() -> None:
    sample = ZsodSample("x.jpg", None, ("a", "b"))
    assert ZsodTask().fallback(sample) == Prediction("x.jpg", {"a": [], "b": []})


def test_boxes_go_back_to_the_stored_pixel_grid() -> None:
    # stored 64x96 sideways (EXIF 6); loaded upright 96x64 at half resolution -> scale 2
    geo = Geometry(stored_size=(128, 192), orientation=6, scale=(2.0, 2.0))
    assert to_stored(np.array([[10.0, 12.0, 40.0, 50.0]]), geo) == [[24.0, 112.0, 76.0, 60.0]]


def test_visualize_option_draws_every_readable_image(fake_trunk, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from registry import get_plugin_manager

    pm = get_plugin_manager(load_entrypoints=False, builtins=("plugins.zsod",))
    parser = argparse.ArgumentParser()
    pm.hook.add_options(parser=parser)
    options = parser.parse_args(["--zsod-visualize", str(tmp_path / "viz")])
    tasks: list = []
    pm.hook.register_tasks(register=tasks.append, config=PluginConfig(options=vars(options)))
    (task,) = tasks
    assert task.visualize_dir == tmp_path / "viz"
    task.calibration = EAGER
    loaded = task.setup(SetupContext(fake_trunk))
    samples = task.discover(DATA)
    raw = task.predict(task.preprocess(samples, fake_trunk, loaded), fake_trunk, loaded)
    task.write(task.postprocess(raw, samples, loaded), samples, RunContext(tmp_path / "out", "zsOD"))
    drawn = sorted(p.name for p in (tmp_path / "viz").iterdir())
    assert drawn == ["0.png", "1.png", "2.png", "3.png", "4.png"]  # 5: truncated, 6 and 0b: no file


def test_verifier_for_another_trunk_is_refused(fake_trunk, caplog: pytest.LogCaptureFixture) -> None:  # type: ignore[no-untyped-def]
    task = ZsodTask()
    loaded = task.setup(SetupContext(fake_trunk))
    assert loaded.verifier is None
    assert "no-head mode" in caplog.text


def test_importing_the_plugin_is_cheap() -> None:
    code = (
        "import sys, plugins.zsod; "
        "bad = [m for m in ('torch', 'open_clip', 'ultralytics', 'transformers', 'cv2') if m in sys.modules]; "
        "print(bad)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert out.stdout.strip() == "[]"


def test_older_od_folder_also_gets_prediction_od(fake_trunk, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    import shutil

    shutil.copytree(DATA / "zsOD", tmp_path / "in" / "OD")
    task = ZsodTask(calibration=EAGER, rule=GRID_ONLY)
    loaded = task.setup(SetupContext(fake_trunk))
    samples = task.discover(tmp_path / "in")
    preds = task.postprocess(
        task.predict(task.preprocess(samples, fake_trunk, loaded), fake_trunk, loaded), samples, loaded
    )
    task.write(preds, samples, RunContext(tmp_path / "out", "OD"))
    files = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert files == ["prediction_OD.json", "prediction_zsOD.json"]
    assert (tmp_path / "out" / "prediction_OD.json").read_bytes() == (
        tmp_path / "out" / "prediction_zsOD.json"
    ).read_bytes()
