"""``core.stop``: a signal or the time budget stops the run, never a file (issue 25).

The signal tests run ``run.py`` in a subprocess on the demo input grown to a run of a minute
or more, with a trunk that cannot be built (C2C's translator runs without one), so that they
take seconds; the budget tests run the orchestrator (or the runner alone) in process on the
core test tasks.
"""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from core import orchestrator, runner
from core.request import RunRequest
from core.stop import RunControl
from tests.core._runpy import NO_TRUNK, REPO, load_json, long_input, run_env, wait_for
from tests.core._tasks import EchoTask, TrunklessEcho, busy, write_echo_input

REQUESTS = {"a": "red apple", "b": "a bus", "c": "кошка", "d": "tree"}


class _Slow(EchoTask):
    """A batch that would run for ``seconds`` in pure Python (a very long program, say)."""

    def __init__(self, seconds: float) -> None:
        super().__init__()
        self.seconds = seconds

    def predict(self, batch: Any, trunk: Any, loaded: Any) -> Any:
        busy(self.seconds)
        return super().predict(batch, trunk, loaded)


def _start(args: Sequence[str], **kwargs: Any) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "run.py", "--no-plugins", "--threads", "1", *args],
        cwd=REPO,
        env=run_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        errors="replace",
        **kwargs,
    )


def _check_complete(root: Path, out: Path) -> None:
    expected = {
        "prediction_C2C.json": set(load_json(root / "C2C" / "requests.json")),
        "prediction_VQA.json": set(load_json(root / "VQA" / "questions.json")),
        "prediction_zsOD.json": set(load_json(root / "zsOD" / "requests.json")),
        "prediction_HTR.json": {p.name for p in (root / "HTR" / "images").iterdir()},
    }
    for name, keys in expected.items():
        assert set(load_json(out / name)) == keys, name
    assert not [p.name for p in out.iterdir() if p.name.startswith(".")], "temporary files left"


# -- signals -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("signum", "status"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_stops_within_seconds_and_every_file_is_written(tmp_path: Path, signum: int, status: int) -> None:
    root, out = long_input(tmp_path / "in"), tmp_path / "out"
    proc = _start(["--input", str(root), "--output", str(out), *NO_TRUNK])
    wait_for(proc, "C2C: no trunk")  # C2C's batches (the translator alone) are running
    time.sleep(1.0)
    sent = time.monotonic()
    proc.send_signal(signum)
    _, rest = proc.communicate(timeout=60)
    took = time.monotonic() - sent
    assert proc.returncode == status, rest[-3000:]
    assert took < 10, f"{took:.1f} s from the signal to the exit"
    assert f"stopped by {signal.Signals(signum).name}" in rest
    _check_complete(root, out)
    assert "fallbacks" in _read_summary(rest)


def _read_summary(log: str) -> str:
    return "\n".join(line for line in log.splitlines() if "->" in line)


def test_a_second_signal_ends_at_once_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    root, out = long_input(tmp_path / "in"), tmp_path / "out"
    proc = _start(["--input", str(root), "--output", str(out), *NO_TRUNK])
    wait_for(proc, "C2C: no trunk")
    proc.send_signal(signal.SIGTERM)
    proc.send_signal(signal.SIGTERM)
    sent = time.monotonic()
    proc.communicate(timeout=60)
    assert proc.returncode in (143, -signal.SIGTERM)
    assert time.monotonic() - sent < 5
    assert not out.exists() or not [p for p in out.iterdir() if p.name.startswith(".")]


# -- the time budget holds whatever one item costs ---------------------------------------------


def test_the_budget_stops_a_batch_in_progress(tmp_path: Path, fake_trunk) -> None:  # type: ignore[no-untyped-def]
    root = write_echo_input(tmp_path / "in", REQUESTS)
    later = TrunklessEcho()
    shutil.copytree(root / "ECHO", root / "PLAIN")
    request = RunRequest(input_dir=root, output_dir=tmp_path / "out", time_budget=1.0, progress=False)
    started = time.monotonic()
    outcome = orchestrator.run(request, [_Slow(seconds=60), later], load_trunk=lambda config: fake_trunk)
    took = time.monotonic() - started
    reports = outcome.reports
    assert took < 3.0, f"budget 1 s, took {took:.1f} s"
    assert outcome.status == 0 and outcome.hurried == "time budget" and outcome.stopped_by is None
    assert load_json(tmp_path / "out" / "prediction_ECHO.json") == {k: "fallback" for k in REQUESTS}
    assert set(load_json(tmp_path / "out" / "prediction_PLAIN.json")) == set(REQUESTS)
    # under a budget every task is set up before any batch (core.budget): PLAIN's setup ran first
    assert later.setup_calls == 1 and [r.fallbacks for r in reports] == [4, 4]


def test_the_budget_is_checked_between_batches_off_the_main_thread(tmp_path: Path, fake_trunk) -> None:  # type: ignore[no-untyped-def]
    planned = runner.plan([_Slow(seconds=0.3)], write_echo_input(tmp_path / "in", REQUESTS))
    box: dict[str, Any] = {}
    thread = threading.Thread(
        target=lambda: box.update(
            r=runner.run(planned, fake_trunk, tmp_path / "out", control=RunControl.with_budget(0.2), progress=False)
        )
    )
    thread.start()
    thread.join(30)
    [report] = box["r"]
    assert set(load_json(report.path)) == set(REQUESTS) and report.fallbacks == 2  # batch 1 solved, batch 2 fell back


# -- the state belongs to the run ----------------------------------------------------------------


def test_each_run_keeps_its_own_state_and_the_handlers_are_restored() -> None:
    from core import stop

    before = signal.getsignal(signal.SIGTERM)
    first, second = stop.RunControl.with_budget(None), stop.RunControl(deadline=0.0)
    with stop.handle_signals(first) as control:
        assert control is first and stop.current() is first and first.installed
        with stop.handle_signals(second):  # a run inside a run: the outer one keeps the handlers
            assert stop.current() is second and not second.installed
        signal.raise_signal(signal.SIGTERM)  # recorded, not raised: nothing interruptible runs
        assert first.signalled() == "SIGTERM" and first.exit_code() == 143
    assert signal.getsignal(signal.SIGTERM) == before and stop.current() is None
    assert first.hurry() == "SIGTERM" and second.hurry() == "time budget" and second.signalled() is None
    assert stop.RunControl().hurry() is None  # a new run starts clean


def test_stop_waits_for_a_safe_point_outside_libraries_and_imports() -> None:
    import json
    import sys

    from core import stop

    here = sys._getframe()
    assert stop._safe_point(here) and stop._safe_point(None)
    seen = {}

    def hook(obj: dict[str, Any]) -> dict[str, Any]:  # called from inside json's own Python code
        seen["library"] = stop._safe_point(sys._getframe().f_back)
        return obj

    json.loads('{"a": 1}', object_hook=hook)
    assert seen == {"library": False}


def test_a_stop_is_raised_at_the_next_safe_point_of_an_interruptible_section() -> None:
    from core import stop

    control = stop.RunControl(deadline=time.monotonic() + 0.2)
    reached = []
    with stop.handle_signals(control), pytest.raises(stop.Stop, match="time budget"), control.interruptible():
        while True:
            reached.append(sum(range(1000)))
    assert reached and control.hurried == "time budget"
