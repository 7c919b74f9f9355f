"""``core.budget``: a ``--time-budget`` shared among the tasks, so that none is left at zero while
another finishes (issue 47, item 2)."""

from __future__ import annotations

import dataclasses
import json
import time
from pathlib import Path
from typing import Any

import pytest

from core import orchestrator
from core.budget import DEFAULT_SECONDS_PER_ITEM, DEFAULT_SETUP_SECONDS, Cost, TimeShares, cost, need
from core.request import RunRequest
from core.task import TaskInfo
from tests.core._tasks import EchoTask, TrunklessEcho, busy


def _per_item(items: int, setup: float = 0.0, batch: int = 1) -> Cost:
    return Cost(setup=setup, per_item=1.0, items=items, batch=batch)


def test_each_task_gets_its_need_share_of_what_is_left_and_what_one_leaves_goes_on() -> None:
    shares = TimeShares({"a": _per_item(30), "b": _per_item(10), "c": _per_item(20)})
    assert shares.share("a", 30.0) == pytest.approx(15.0)  # 30 of 60 needed: half of the 30 s
    assert shares.share("b", 20.0) == pytest.approx(20.0 / 3)  # a left 5 s unused: b and c share 20
    assert shares.share("c", 10.0) == pytest.approx(10.0)  # the last takes what is left
    assert TimeShares({"a": _per_item(1)}).share("a", None) is None  # no deadline, no limit


def test_a_share_leaves_the_later_tasks_their_setup_and_first_batch() -> None:
    shares = TimeShares({"big": _per_item(100), "late": _per_item(2, setup=8.0, batch=1)})
    assert shares.share("big", 20.0) == pytest.approx(11.0)  # not 20 x 100/110: late needs 8 + 1
    assert shares.share("late", 9.0) == pytest.approx(9.0)


def test_floors_grow_with_the_slowdown_measured_on_the_tasks_before() -> None:
    shares = TimeShares({"a": _per_item(10), "b": _per_item(100), "late": _per_item(2, setup=8.0)})
    shares.share("a", 100.0)
    shares.finished("a", seconds=30.0, answered=10)  # declared 10 s: this machine runs 3x slower
    assert shares.slowdown == pytest.approx(3.0)
    assert shares.share("b", 60.0) == pytest.approx(60.0 - 3 * 9.0)  # late keeps 3 x (8 + 1)
    assert TimeShares({"x": _per_item(5)}).slowdown == 1.0


def test_when_not_every_floor_fits_the_time_is_shared_by_floors() -> None:
    shares = TimeShares({"a": _per_item(10, setup=1.0), "b": _per_item(10, setup=3.0)})
    assert shares.share("a", 4.0) == pytest.approx(4.0 * 2 / 6)  # floors 2 and 4, 6 in all


def test_need_is_setup_plus_items_at_the_declared_cost() -> None:
    info = TaskInfo(name="t", version="0", folder="T", output="p.json", seconds_per_item=0.5, setup_seconds=3.0)
    assert need(info, 10) == pytest.approx(8.0) and need(info, 0) == 0.0
    assert cost(info, 100).floor == pytest.approx(3.0 + 32 * 0.5)  # setup and a first batch of 32
    undeclared = dataclasses.replace(info, seconds_per_item=None, setup_seconds=None)
    assert need(undeclared, 10) == pytest.approx(DEFAULT_SETUP_SECONDS + 10 * DEFAULT_SECONDS_PER_ITEM)


class _SlowEcho(EchoTask):
    """``seconds`` a batch of two, in pure Python."""

    info = dataclasses.replace(EchoTask.info, seconds_per_item=0.1, setup_seconds=0.0)
    seconds = 0.2

    def predict(self, batch: Any, trunk: Any, loaded: Any) -> Any:
        busy(self.seconds)
        return super().predict(batch, trunk, loaded)


class _SlowPlain(TrunklessEcho):
    info = dataclasses.replace(TrunklessEcho.info, seconds_per_item=0.1, setup_seconds=0.0)
    seconds = 0.2

    def predict(self, batch: Any, trunk: Any, loaded: Any) -> Any:
        busy(self.seconds)
        return super().predict(batch, trunk, loaded)


def test_under_a_budget_every_task_answers_a_share_and_the_run_keeps_it(tmp_path: Path, fake_trunk) -> None:  # type: ignore[no-untyped-def]
    requests = {str(i): f"word {i}" for i in range(40)}  # 20 batches of 0.2 s a task: 4 s each, 8 s in all
    for folder in ("ECHO", "PLAIN"):
        (tmp_path / "in" / folder).mkdir(parents=True)
        (tmp_path / "in" / folder / "requests.json").write_text(json.dumps(requests), encoding="utf-8")
    budget = 3.0
    request = RunRequest(input_dir=tmp_path / "in", output_dir=tmp_path / "out", time_budget=budget, progress=False)
    started = time.monotonic()
    outcome = orchestrator.run(request, [_SlowEcho(), _SlowPlain()], load_trunk=lambda config: fake_trunk)
    took = time.monotonic() - started
    assert took < budget + 1.5, f"budget {budget} s, took {took:.1f} s"
    answered = {r.name: r.items - r.fallbacks for r in outcome.reports}
    assert all(r.items == 40 for r in outcome.reports)
    # first come, ECHO took the whole budget (about 14 batches) and PLAIN answered nothing;
    # shared, each has about half of it
    assert answered["echo"] >= 6 and answered["plain"] >= 6, answered
    assert abs(answered["echo"] - answered["plain"]) <= 12, answered
    for name in ("prediction_ECHO.json", "prediction_PLAIN.json"):
        assert set(json.loads((tmp_path / "out" / name).read_text(encoding="utf-8"))) == set(requests)


def test_without_a_budget_every_item_is_answered(tmp_path: Path, fake_trunk) -> None:  # type: ignore[no-untyped-def]
    requests = {str(i): f"word {i}" for i in range(6)}
    for folder in ("ECHO", "PLAIN"):
        (tmp_path / "in" / folder).mkdir(parents=True)
        (tmp_path / "in" / folder / "requests.json").write_text(json.dumps(requests), encoding="utf-8")
    request = RunRequest(input_dir=tmp_path / "in", output_dir=tmp_path / "out", progress=False)
    outcome = orchestrator.run(request, [_SlowEcho(), _SlowPlain()], load_trunk=lambda config: fake_trunk)
    assert [r.fallbacks for r in outcome.reports] == [0, 0]


def test_the_ray_engine_hands_out_the_tasks_shards_in_turn_under_a_budget(tmp_path: Path) -> None:
    pytest.importorskip("ray")
    from core import runner
    from core.engines import ray as engine
    from core.stop import RunControl

    class RecordingPool:
        """Answers each shard with its fallbacks, in the order it is handed the jobs."""

        def __init__(self) -> None:
            self.order: list[tuple[str, int]] = []

        def run(self, jobs, done, lost, **kwargs):  # type: ignore[no-untyped-def]
            for job in jobs:
                self.order.append(job.tag)
                task, shard = job.args[1], job.args[2]
                done(job, engine.ShardResult([task.fallback(s) for batch in shard for s in batch]))

        def broadcast(self, method: str, *args: Any) -> list[Any]:
            return []

    for folder, count in (("ECHO", 8), ("PLAIN", 4)):
        (tmp_path / "in" / folder).mkdir(parents=True)
        requests = {str(i): f"w{i}" for i in range(count)}
        (tmp_path / "in" / folder / "requests.json").write_text(json.dumps(requests), encoding="utf-8")
    planned = runner.plan([EchoTask(), TrunklessEcho()], tmp_path / "in")
    options = engine.RayOptions(shard_batches=1)
    pool = RecordingPool()
    engine.run(
        planned, None, tmp_path / "out", options=options, pool=pool, progress=False, control=RunControl.with_budget(60)
    )  # type: ignore[arg-type]
    # batches of 2: ECHO's 4 shards and PLAIN's 2 go out by the share of their task they start at
    assert pool.order == [("echo", 0), ("plain", 0), ("echo", 2), ("echo", 4), ("plain", 2), ("echo", 6)]
    pool = RecordingPool()
    engine.run(planned, None, tmp_path / "out2", options=options, pool=pool, progress=False)  # type: ignore[arg-type]
    assert [tag[0] for tag in pool.order] == ["echo"] * 4 + ["plain"] * 2  # no budget: task by task
