"""``--zsod-proposals yolo:PATH``: a detector's boxes (here a user's ultralytics YOLO checkpoint,
the ``yolo`` detector) join the grid proposals. ``tests/core/_yolo.py`` makes the checkpoint
offline; ``tests/core/test_detector_yolo.py`` tests the detector itself.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pytest

import registry
from core import runner
from core.detector import DetectorConfig
from core.detector.loader import Detectors
from core.request import PluginConfig
from core.task import SetupContext
from plugins.zsod.decision import Calibration
from plugins.zsod.proposals import detector_proposals, grid_proposals
from plugins.zsod.task import ZsodTask
from tests.core._yolo import checkpoint, offline  # noqa: F401  (fixtures)

DATA = Path(__file__).parent / "data"
EAGER = Calibration(present=0.0, extra=1.01, max_boxes=1)


def test_detector_boxes_become_proposals_inside_the_image() -> None:
    boxes = np.array([[-3.04, 2.0, 50.26, 40.0], [10, 10, 10.5, 30], [90, 5, 130, 9.5]], dtype=np.float32)
    out = detector_proposals(boxes, 100, 60)
    assert out.dtype == np.float64
    assert out.tolist() == [[0.0, 2.0, 50.3, 40.0], [90.0, 5.0, 100.0, 9.5]]  # clipped, the thin one dropped


def _context(task: ZsodTask, trunk) -> SetupContext:  # type: ignore[no-untyped-def]
    """The run's context, as the runner builds it, but without the run's own detector (grid proposals only)."""
    detectors = Detectors(DetectorConfig(), registry.load(load_entrypoints=False))
    ctx = runner.setup_context(task, trunk, runner.TaskReport("zsod"), detectors, strict=False)
    return SetupContext(trunk, lambda name: None if name is None else ctx.detector(name))


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


def test_option_adds_the_yolo_boxes_beside_the_grid(checkpoint: Path, fake_trunk, offline: list[str]) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    plain = _register()
    with_yolo = _register("--zsod-proposals", f"yolo:{checkpoint}")
    assert plain.proposals is None and with_yolo.proposals == f"yolo:{checkpoint}"
    raws = {}
    for name, task in (("plain", plain), ("yolo", with_yolo)):
        task.calibration = EAGER
        loaded = task.setup(_context(task, fake_trunk))
        samples = [s for s in task.discover(DATA) if s.key == "0.jpg"]
        items = task.preprocess(samples, fake_trunk, loaded)
        raws[name] = (
            items[0],
            task.predict(items, fake_trunk, loaded)[0],
            task.postprocess(task.predict(items, fake_trunk, loaded), samples, loaded),
            loaded,
        )
    item, plain_scored, plain_preds, _ = raws["plain"]
    _, yolo_scored, yolo_preds, yolo_loaded = raws["yolo"]
    grid = grid_proposals(*item.image.size)
    (found,) = yolo_loaded.proposer.detect([item.image])
    yolo_boxes = detector_proposals(found.boxes, *item.image.size)
    assert len(yolo_boxes) > 0
    assert np.array_equal(plain_scored.boxes, grid)  # no option: the grid alone, as before
    assert np.array_equal(yolo_scored.boxes[: len(grid)], grid)
    # YOLO's boxes, computed again here, within their 0.1 px rounding (a float sum may end another way)
    np.testing.assert_allclose(yolo_scored.boxes[len(grid) :], yolo_boxes, rtol=0, atol=0.1 + 1e-6)
    assert yolo_scored.probs.shape == (len(grid) + len(yolo_boxes), len(item.phrases))
    assert set(yolo_preds[0].value) == set(plain_preds[0].value)  # every phrase still answered
    assert offline == []


def test_a_bad_option_is_logged_and_the_task_runs_on_the_grid(fake_trunk, caplog: pytest.LogCaptureFixture) -> None:  # type: ignore[no-untyped-def]
    task = _register("--zsod-proposals", "not a spec")
    loaded = task.setup(_context(task, fake_trunk))
    assert loaded.proposer is None
    assert "bad detector spec" in caplog.text and "the task answers without it" in caplog.text


@pytest.mark.parametrize("spec", ["yolo:{tmp}/missing.pt", "detr:{tmp}/x.pt"])
def test_a_detector_that_does_not_build_is_logged_and_left_out(
    spec: str,
    tmp_path: Path,
    fake_trunk,  # type: ignore[no-untyped-def]
    caplog: pytest.LogCaptureFixture,
) -> None:
    task = _register("--zsod-proposals", spec.format(tmp=tmp_path))
    task.calibration = EAGER
    loaded = task.setup(_context(task, fake_trunk))
    assert loaded.proposer is None
    assert f"the detector {task.proposals!r} could not be built" in caplog.text
    samples = [s for s in task.discover(DATA) if s.key == "0.jpg"]
    (scored,) = task.predict(task.preprocess(samples, fake_trunk, loaded), fake_trunk, loaded)
    assert np.array_equal(scored.boxes, grid_proposals(*task.preprocess(samples, fake_trunk, loaded)[0].image.size))


def test_a_checkpoint_that_does_not_load_is_logged_and_left_out(
    tmp_path: Path,
    fake_trunk,
    caplog: pytest.LogCaptureFixture,
    offline: list[str],  # type: ignore[no-untyped-def]  # noqa: F811
) -> None:
    bad = tmp_path / "broken.pt"
    bad.write_bytes(b"not a checkpoint")
    task = _register("--zsod-proposals", f"yolo:{bad}")
    loaded = task.setup(_context(task, fake_trunk))
    assert loaded.proposer is None
    assert f"the detector 'yolo:{bad}' could not be built" in caplog.text
    assert offline == []
