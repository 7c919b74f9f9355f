"""``core.runner.solve_batches`` is one loop: one worker (the calling thread) or a pool of them,
the same gate, fallbacks, counts, stopping and observers (issue 48, step 7)."""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from core import runner
from core.stop import RunControl, handle_signals
from core.task import SetupContext
from tests.core._tasks import EchoTask, busy, write_echo_input

# batch_size 2: [k0 k1] [k2 k3] [k4 k5]; the middle batch fails whole (k2), then k3 meets the signal
REQUESTS = {"k0": "w0", "k1": "w1", "k2": "broken", "k3": "stop", "k4": "w4", "k5": "w5"}
SPIN_S = 5.0  # how long the batch that meets the signal would go on if nothing abandoned it


class _SignalledEcho(EchoTask):
    """Sends itself SIGTERM on the text "stop" and then computes on, as a long batch would. The
    signal waits until the batch holding "k0" has answered (with a pool the two batches run at once,
    and the test means a signal that comes after the first batch is in)."""

    info = dataclasses.replace(EchoTask.info, parallel_batches=True)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.first_answered = threading.Event()

    def postprocess(self, raw: Any, samples: Sequence[Any], loaded: Any) -> Any:
        out = super().postprocess(raw, samples, loaded)
        if any(s.key == "k0" for s in samples):
            self.first_answered.set()
        return out

    def predict(self, batch: Any, trunk: Any, loaded: Any) -> Any:
        if batch is STOP:
            self.first_answered.wait(SPIN_S)
            time.sleep(0.2)  # the pool thread hands the answered batch to its future
            os.kill(os.getpid(), signal.SIGTERM)
            busy(SPIN_S)
            return [0]
        return super().predict(batch, trunk, loaded)

    def preprocess(self, samples: Sequence[Any], trunk: Any, loaded: Any) -> Any:
        if [s.text for s in samples] == ["stop"]:
            return STOP
        return super().preprocess(samples, trunk, loaded)


STOP = object()


@pytest.mark.parametrize("workers", [1, 2])
def test_a_signal_abandons_the_batch_in_progress_and_counts_each_fallback_once(
    tmp_path: Path,
    fake_trunk,  # type: ignore[no-untyped-def]
    workers: int,
) -> None:
    task = _SignalledEcho(fail_on=frozenset({"broken"}))
    planned = runner.plan([task], write_echo_input(tmp_path / "in", REQUESTS))
    control = RunControl()
    started = time.monotonic()
    with handle_signals(control):
        [report] = runner.run(
            planned, fake_trunk, tmp_path / "out", progress=False, control=control, batch_workers=workers
        )
    assert time.monotonic() - started < SPIN_S, "the batch that met the signal was waited for"
    assert control.signalled() == "SIGTERM"
    out = json.loads(report.path.read_text(encoding="utf-8"))  # type: ignore[union-attr]
    assert list(out) == list(REQUESTS)
    assert out["k0"].startswith("dim") and out["k1"].startswith("dim")
    assert out["k2"] == out["k3"] == "fallback"
    # one fallback per sample answered with it: k2's own (before the signal) is not counted again
    assert report.fallbacks == sum(v == "fallback" for v in out.values())


def test_one_worker_and_a_pool_give_the_same_answers_counts_and_progress(tmp_path: Path, fake_trunk) -> None:  # type: ignore[no-untyped-def]
    requests = {f"k{i}": ("broken" if i in (3, 8) else f"w{i}") for i in range(11)}
    planned = runner.plan([_SignalledEcho(fail_on=frozenset({"broken"}))], write_echo_input(tmp_path / "in", requests))
    [item] = planned
    item.task.setup(SetupContext(fake_trunk))
    results = []
    for workers in (1, 3):
        report, progress = runner.TaskReport("echo"), []
        out = runner.solve_batches(
            item.task,
            runner.chunks(item.samples, 2),
            fake_trunk,
            report,
            strict=False,
            on_batch=progress.append,
            workers=workers,
        )
        results.append(([(p.key, p.value) for p in out], report.fallbacks, report.errors, progress))
    assert results[0] == results[1]
    answers, fallbacks, errors, progress = results[0]
    assert [k for k, _ in answers] == list(requests) and progress == [2, 2, 2, 2, 2, 1]
    assert fallbacks == 2 and len(errors) == 2


def test_an_observer_that_raises_is_logged_and_the_run_goes_on(tmp_path: Path, fake_trunk, caplog) -> None:  # type: ignore[no-untyped-def]
    from tests.core._tasks import TrunklessEcho

    root = write_echo_input(tmp_path / "in", {"a": "x"})
    (root / "PLAIN").mkdir()
    (root / "PLAIN" / "requests.json").write_text('{"b": "y"}', encoding="utf-8")
    planned = runner.plan([EchoTask(), TrunklessEcho()], root)

    def observer(name: str, path: Path) -> None:
        raise OSError("the packager is gone")

    reports = runner.run(planned, fake_trunk, tmp_path / "out", progress=False, on_written=observer)
    assert [r.path is not None and r.path.exists() for r in reports] == [True, True]
    assert caplog.text.count("an observer of the written file failed") == 2
    with pytest.raises(OSError, match="packager"):
        runner.run(planned, fake_trunk, tmp_path / "strict", progress=False, on_written=observer, strict=True)
