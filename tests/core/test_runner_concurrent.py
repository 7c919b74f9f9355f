"""Concurrent batches (``TaskInfo.parallel_batches``, ``--batch-workers``): the same answers in
the same order as one batch at a time, the same error and stopping policy, and only where
everything the batches share declares it may be shared."""

from __future__ import annotations

import dataclasses
import json
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from core import orchestrator, runner
from core.detector import DetectorConfig
from core.detector.loader import Detectors
from core.errors import ProjectError
from core.request import RunRequest
from core.stop import RunControl
from core.task import Prediction, Sample, SetupContext, TaskInfo
from core.testing import FakeDetector, make_fake_trunk
from core.trunk import Trunk, TrunkConfig
from core.trunk_types import TextTokens
from tests.core._tasks import EchoTask, write_echo_input

REQUESTS = {f"k{i:02d}": f"word{i} text{i % 7}" for i in range(24)}  # 12 batches of 2


class _Overlap:
    """How many batches were in ``predict`` at once, at most; the threads and torch threads seen."""

    def __init__(self, hold_s: float = 0.03) -> None:
        self.hold_s = hold_s
        self.lock = threading.Lock()
        self.now = self.most = 0
        self.threads: set[str] = set()
        self.torch_threads: set[int] = set()

    def __enter__(self) -> None:
        import torch

        with self.lock:
            self.now += 1
            self.most = max(self.most, self.now)
            self.threads.add(threading.current_thread().name)
            self.torch_threads.add(torch.get_num_threads())
        time.sleep(self.hold_s)  # a torch pass would release the GIL here too

    def __exit__(self, *exc: object) -> None:
        with self.lock:
            self.now -= 1


class SlowEcho(EchoTask):
    """``EchoTask`` whose predict takes a while and records how many batches overlapped."""

    def __init__(self, overlap: _Overlap, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.overlap = overlap

    def predict(self, batch: Any, trunk: Any, loaded: Any) -> Any:
        with self.overlap:
            return super().predict(batch, trunk, loaded)


class ParallelEcho(SlowEcho):
    info = dataclasses.replace(EchoTask.info, parallel_batches=True)


class ParallelDetecting(ParallelEcho):
    info = dataclasses.replace(ParallelEcho.info, needs_detector=True)

    def setup(self, ctx: Any) -> bool:
        ctx.detector()
        return super().setup(ctx)


def _run(tmp_path: Path, task: EchoTask, trunk: Any, name: str, **kwargs: Any) -> tuple[dict[str, str], Any]:
    planned = runner.plan([task], write_echo_input(tmp_path / "in", REQUESTS))
    [report] = runner.run(planned, trunk, tmp_path / name, progress=False, **kwargs)
    return json.loads(report.path.read_text(encoding="utf-8")), report


def test_concurrent_batches_give_the_one_at_a_time_answers_in_order(tmp_path: Path, fake_trunk) -> None:  # type: ignore[no-untyped-def]
    alone, _ = _run(tmp_path, ParallelEcho(_Overlap()), fake_trunk, "one")
    overlap = _Overlap()
    together, report = _run(tmp_path, ParallelEcho(overlap), fake_trunk, "three", batch_workers=3)
    assert list(together.items()) == list(alone.items())  # same answers, same key order
    assert list(together) == list(REQUESTS)
    assert overlap.most >= 2, "the batches never overlapped"
    assert len(overlap.threads) >= 2 and report.fallbacks == 0


def test_a_task_that_does_not_declare_parallel_batches_runs_one_batch_at_a_time(tmp_path: Path, fake_trunk) -> None:  # type: ignore[no-untyped-def]
    overlap = _Overlap()
    _run(tmp_path, SlowEcho(overlap), fake_trunk, "out", batch_workers=4)
    assert overlap.most == 1


def test_torch_threads_are_divided_among_the_batches_and_given_back(tmp_path: Path, fake_trunk) -> None:  # type: ignore[no-untyped-def]
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(4)
    try:
        overlap = _Overlap()
        _run(tmp_path, ParallelEcho(overlap), fake_trunk, "out", batch_workers=2)
        assert overlap.torch_threads == {2}
        assert torch.get_num_threads() == 4
    finally:
        torch.set_num_threads(before)


def test_a_failing_sample_falls_back_alone_and_is_counted_once(tmp_path: Path, fake_trunk) -> None:  # type: ignore[no-untyped-def]
    requests = dict(REQUESTS, k05="broken")
    task = ParallelEcho(_Overlap(0.005), fail_on=frozenset({"broken"}))
    planned = runner.plan([task], write_echo_input(tmp_path / "in", requests))
    [report] = runner.run(planned, fake_trunk, tmp_path / "out", progress=False, batch_workers=3)
    out = json.loads(report.path.read_text(encoding="utf-8"))
    assert out["k05"] == "fallback" and all(v.startswith("dim") for k, v in out.items() if k != "k05")
    assert report.fallbacks == 1 and sum("broken" in e for e in report.errors) == 1


def test_strict_mode_raises_a_concurrent_batch_error(tmp_path: Path, fake_trunk) -> None:  # type: ignore[no-untyped-def]
    requests = dict(REQUESTS, k09="broken")
    task = ParallelEcho(_Overlap(0.005), fail_on=frozenset({"broken"}))
    planned = runner.plan([task], write_echo_input(tmp_path / "in", requests))
    with pytest.raises(ValueError, match="broken"):
        runner.run(planned, fake_trunk, tmp_path / "out", strict=True, progress=False, batch_workers=3)


class _StopsAfter(RunControl):
    """A run that begins to stop (as on SIGTERM) once ``after`` batches have been predicted."""

    def __init__(self, overlap: _Overlap, after: int) -> None:
        super().__init__()
        self.overlap, self.after, self.seen = overlap, after, 0

    def count(self) -> None:
        with self.overlap.lock:
            self.seen += 1

    def hurry(self) -> str | None:
        return "SIGTERM" if self.seen >= self.after else None


def test_a_stop_gives_every_remaining_sample_its_fallback_and_loses_no_key(tmp_path: Path, fake_trunk) -> None:  # type: ignore[no-untyped-def]
    overlap = _Overlap(0.02)
    control = _StopsAfter(overlap, after=3)

    class Counting(ParallelEcho):
        def predict(self, batch: Any, trunk: Any, loaded: Any) -> Any:
            out = super().predict(batch, trunk, loaded)
            control.count()
            return out

    out, report = _run(tmp_path, Counting(overlap), fake_trunk, "out", batch_workers=2, control=control)
    assert list(out) == list(REQUESTS)
    answered = [k for k, v in out.items() if v.startswith("dim")]
    fell_back = [k for k, v in out.items() if v == "fallback"]
    assert len(answered) >= 2 and fell_back, "the first batches are answered, the rest fall back"
    assert answered == list(REQUESTS)[: len(answered)]  # answered ones are a prefix: batches are taken in order
    assert report.fallbacks == len(fell_back)


def test_a_spent_deadline_falls_back_without_waiting_for_the_rest(tmp_path: Path, fake_trunk) -> None:  # type: ignore[no-untyped-def]
    task = ParallelEcho(_Overlap(0.01))
    planned = runner.plan([task], write_echo_input(tmp_path / "in", REQUESTS))
    report = runner.TaskReport("echo")
    out = runner.solve_batches(
        task,
        runner.chunks(planned[0].samples, 2),
        fake_trunk,
        report,
        strict=False,
        deadline=-1.0,
        clock=lambda: 0.0,
        workers=3,
    )
    assert [p.key for p in out] == list(REQUESTS)
    assert all(p.value == "fallback" for p in out) and report.fallbacks == len(REQUESTS)


class _UnsafeDetector(FakeDetector):
    thread_safe = False


@pytest.mark.parametrize(("detector", "most"), [(FakeDetector, 2), (_UnsafeDetector, 1)])
def test_batches_share_the_detector_only_when_it_is_thread_safe(tmp_path: Path, fake_trunk, detector, most) -> None:  # type: ignore[no-untyped-def]
    overlap = _Overlap()
    shared = Detectors(DetectorConfig(), factory=lambda config: detector())
    _run(tmp_path, ParallelDetecting(overlap), fake_trunk, "out", batch_workers=2, detector=shared)
    assert shared.built and overlap.most == most


def test_batches_share_the_trunk_only_when_its_backend_is_thread_safe(tmp_path: Path) -> None:
    trunk = make_fake_trunk()
    backend = type(trunk._backend)
    unsafe = type("UnsafeBackend", (backend,), {"thread_safe": False})(0)
    overlap = _Overlap()
    _run(tmp_path, ParallelEcho(overlap), Trunk(unsafe, trunk.config), "out", batch_workers=2)
    assert overlap.most == 1


def test_trunk_tokenize_is_one_call_at_a_time_for_any_backend() -> None:
    """HF fast tokenizers raise "Already borrowed" when two threads call them at once."""
    trunk = make_fake_trunk()
    base = type(trunk._backend)
    busy = threading.Lock()

    def tokenize(self: Any, texts: Sequence[str]) -> TextTokens:
        if not busy.acquire(blocking=False):
            raise RuntimeError("Already borrowed")
        try:
            time.sleep(0.005)
            return base.tokenize(self, texts)
        finally:
            busy.release()

    backend = type("BorrowingBackend", (base,), {"tokenize": tokenize})(0)
    shared = Trunk(backend, TrunkConfig(backend="fake", model_name="fake-0"))
    errors: list[BaseException] = []

    def use() -> None:
        try:
            for _ in range(5):
                shared.tokenize(["a red bus"])
        except BaseException as exc:  # noqa: BLE001 - collected for the assert
            errors.append(exc)

    threads = [threading.Thread(target=use) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


def test_cudnn_stays_off_while_any_thread_is_in_a_trunk_pass() -> None:
    import torch

    from core.trunk import _cudnn_off

    before = torch.backends.cudnn.enabled
    torch.backends.cudnn.enabled = True
    try:
        first, second = _cudnn_off(), _cudnn_off()
        first.__enter__()
        second.__enter__()
        first.__exit__(None, None, None)  # the first pass ends while the second runs
        assert torch.backends.cudnn.enabled is False
        second.__exit__(None, None, None)
        assert torch.backends.cudnn.enabled is True
    finally:
        torch.backends.cudnn.enabled = before


@pytest.mark.parametrize(
    ("fields", "cores", "expected"),
    [
        ({}, 2, 2),
        ({"threads": 1}, 8, 1),
        ({"threads": 4}, 1, 2),
        ({}, 1, 1),
        ({"batch_workers": 3, "threads": 1}, 2, 3),
        ({"trunk": TrunkConfig(device="cuda")}, 8, 1),
        ({"trunk": TrunkConfig(device="cuda:1"), "batch_workers": 2}, 8, 2),
    ],
)
def test_default_batch_workers(monkeypatch, fields, cores, expected) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr("os.cpu_count", lambda: cores)
    assert orchestrator.batch_workers(RunRequest(**fields)) == expected


def test_batch_workers_cannot_be_negative() -> None:
    with pytest.raises(ProjectError, match="--batch-workers"):
        RunRequest(batch_workers=-1)


def test_run_py_reads_batch_workers() -> None:
    from core import cli

    assert cli.build_parser().parse_args(["--batch-workers", "3"]).batch_workers == 3
    assert cli.build_parser().parse_args([]).batch_workers == 0  # 0: orchestrator.batch_workers decides


def test_prediction_order_within_each_batch_is_kept() -> None:
    """``Prediction`` values travel back whole: a batch's list is extended as it was returned."""
    trunk = make_fake_trunk()
    samples = [Sample(f"s{i}") for i in range(7)]

    class Keys(ParallelEcho):
        def preprocess(self, samples: Sequence[Sample], trunk: Any, loaded: Any) -> Any:
            return [s.key for s in samples]

        def predict(self, batch: Any, trunk: Any, loaded: Any) -> Any:
            with self.overlap:
                return batch

        def postprocess(self, raw: Any, samples: Sequence[Sample], loaded: Any) -> list[Prediction]:
            return [Prediction(s.key, k) for s, k in zip(samples, raw, strict=True)]

    keys = Keys(_Overlap(0.001))
    loaded = keys.setup(SetupContext(trunk))
    out = runner.solve_batches(
        keys, runner.chunks(samples, 2), trunk, runner.TaskReport("k"), strict=False, loaded=loaded, workers=3
    )
    assert [(p.key, p.value) for p in out] == [(f"s{i}", f"s{i}") for i in range(7)]


def test_info_default_is_one_batch_at_a_time() -> None:
    assert TaskInfo(name="x", version="0", folder="X", output="prediction_X.json").parallel_batches is False


@pytest.mark.parametrize(
    ("items", "size", "workers", "sizes"),
    [
        (545, 64, 1, [64] * 8 + [33]),  # one worker: batches of ``size``, the last shorter
        (545, 64, 2, [55] * 5 + [54] * 5),  # two: ten even batches, no round half empty
        (129, 64, 2, [33, 32, 32, 32]),  # not [64, 64, 1]: one worker alone for a whole round
        (128, 64, 2, [64, 64]),
        (3, 4, 2, [2, 1]),
        (1, 64, 2, [1]),
        (0, 64, 2, []),
    ],
)
def test_batches_for_several_workers_fill_every_round(items: int, size: int, workers: int, sizes: list[int]) -> None:
    samples = [Sample(f"s{i}") for i in range(items)]
    batches = runner.chunks(samples, size, workers=workers)
    assert [len(b) for b in batches] == sizes
    assert [s for b in batches for s in b] == samples  # consecutive, nothing lost or repeated


def test_a_run_with_workers_cuts_its_batches_for_them(tmp_path: Path, fake_trunk) -> None:  # type: ignore[no-untyped-def]
    sizes: list[int] = []

    class Sizes(ParallelEcho):
        info = dataclasses.replace(ParallelEcho.info, batch_size=5)

        def preprocess(self, samples: Sequence[Sample], trunk: Any, loaded: Any) -> Any:
            sizes.append(len(samples))
            return super().preprocess(samples, trunk, loaded)

    out, _ = _run(tmp_path, Sizes(_Overlap(0.001)), fake_trunk, "out", batch_workers=2)
    assert sizes == [4] * 6  # 24 requests: three rounds of two, not four batches of 5 and one of 4
    assert list(out) == list(REQUESTS)
