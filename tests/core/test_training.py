"""``core.training.train_task``: the trainer interface's later keywords reach only trainers that declare them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from core import training
from core.heads import write_card
from core.task import TaskInfo
from core.testing import make_fake_trunk

CALLS: list[dict[str, Any]] = []


def first_interface_trainer(trunk, data, out_dir, *, seed, device, resume, progress):  # type: ignore[no-untyped-def]
    """A trainer written to the interface before ``data_root`` and ``scale``."""
    CALLS.append({"seed": seed})
    return write_card(Path(out_dir) / "card.json", {"trunk": trunk.component_versions})


def scaled_trainer(trunk, data, out_dir, *, seed, device, resume, progress, data_root, scale):  # type: ignore[no-untyped-def]
    CALLS.append({"data_root": data_root, "scale": scale})
    return write_card(Path(out_dir) / "card.json", {"trunk": trunk.component_versions, "dev": scale})


class _Task:
    def __init__(self, trainer: str) -> None:
        self.info = TaskInfo(name="t", version="1", folder="T", output="t.json", trainer=f"{__name__}:{trainer}")


@pytest.mark.parametrize("scale", [1.0, 0.5])
def test_a_trainer_without_the_later_keywords_still_trains(
    scale: float, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    CALLS.clear()
    result = training.train_task(_Task("first_interface_trainer"), make_fake_trunk(), tmp_path, {}, scale=scale)  # type: ignore[arg-type]
    assert result.ok and CALLS == [{"seed": 0}]
    assert ("takes no scale" in caplog.text) == (scale != 1.0)  # a value the user set and it ignores: said


def test_the_later_keywords_reach_a_trainer_that_declares_them(tmp_path: Path) -> None:
    CALLS.clear()
    trunk = make_fake_trunk()
    result = training.train_task(_Task("scaled_trainer"), trunk, tmp_path, {}, data_root=None, scale=0.25)  # type: ignore[arg-type]
    assert result.ok and CALLS == [{"data_root": None, "scale": 0.25}]
    assert result.dev == "dev=0.25"


def test_scale_and_data_root_flags() -> None:
    assert training.parse_data_root("none") is None and training.parse_data_root("") is None
    assert training.parse_data_root("~/d") == Path.home() / "d"
    assert training.check_scale(0.05) == 0.05
    for bad in (0.0, -1.0, 1.5):
        with pytest.raises(training.ProjectError, match="--scale"):
            training.check_scale(bad)
