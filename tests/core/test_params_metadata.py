from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
import torch

from core.errors import InputError
from core.metadata import load_metadata
from core.params import count, task_parameters
from core.task import SetupContext
from core.testing import make_fake_trunk
from tests.core._tasks import EchoTask

REPO = Path(__file__).resolve().parents[2]


def test_shipped_metadata_parses() -> None:
    meta = load_metadata(REPO / "metadata.json")
    assert meta.entrypoint.endswith("run.py") and meta.image


@pytest.mark.parametrize(
    "data",
    [{"image": "x"}, {"image": "", "entrypoint": "python run.py"}, {"image": "x", "entrypoint": "python main.py"}],
)
def test_bad_metadata_is_rejected(tmp_path: Path, data: dict) -> None:
    (tmp_path / "metadata.json").write_text(json.dumps(data))
    with pytest.raises(InputError):
        load_metadata(tmp_path / "metadata.json")


class _HeadTask(EchoTask):
    info = dataclasses.replace(EchoTask.info, name="head")  # the task's name is its info's

    def setup(self, ctx) -> dict:  # type: ignore[no-untyped-def]
        # 15 weights, and 3 more; the trunk adds nothing
        return {"head": torch.nn.Linear(4, 3), "trunk_ref": ctx.trunk, "extra": [torch.nn.Linear(2, 1)]}


def test_counts_own_modules_once_and_never_the_trunk() -> None:
    trunk = make_fake_trunk()
    task = _HeadTask()
    loaded = task.setup(SetupContext(trunk))
    assert task_parameters(task, trunk, loaded) == 18
    result = count([task, EchoTask()], trunk)
    assert result["per_task"] == {"head": 18, "echo": 0}
    assert result["shared"] == trunk.num_parameters()
    assert result["total"] == result["shared"] + sum(result["per_task"].values())
    assert abs(result["ratio"] - result["shared"] / result["total"]) < 1e-12


def test_the_shared_detector_counts_once_in_n_and_not_in_m() -> None:
    import dataclasses

    from core.testing import FakeDetector

    class _Seeing(_HeadTask):
        name = "seeing"
        info = dataclasses.replace(_HeadTask.info, name="seeing", needs_detector=True)

        def setup(self, ctx):  # noqa: ANN001
            assert ctx.detector() is not None
            return super().setup(ctx)

    class _Counted(FakeDetector):
        def num_parameters(self) -> int:
            return 1000

    trunk = make_fake_trunk()
    result = count([_Seeing(), _Seeing(), EchoTask()], trunk, detector=_Counted())
    assert result["detector"] == {"parameters": 1000, "tasks": ["seeing", "seeing"]}
    assert result["shared"] == trunk.num_parameters()
    assert result["total"] == result["shared"] + 1000 + sum(result["per_task"].values())


def test_the_submission_reads_metadata_json_through_core_metadata(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from submission import build

    assert json.loads(build.metadata_text(False)) == dataclasses.asdict(load_metadata(REPO / "metadata.json"))
    (tmp_path / "metadata.json").write_text(json.dumps({"image": "x", "entrypoint": "python main.py"}))
    monkeypatch.setattr(build, "REPO", tmp_path)
    with pytest.raises(build.BuildError, match="the entrypoint must run run.py"):
        build.metadata_text(False)
