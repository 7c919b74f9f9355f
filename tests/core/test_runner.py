from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from core import runner
from core.stop import RunControl
from tests.core._tasks import EchoTask, write_echo_input

REQUESTS = {"a": "red apple", "b": "a bus", "c": "кошка", "d": "broken", "e": "tree"}


def _read(path: Path) -> dict[str, str]:
    return json.loads(path.read_text(encoding="utf-8"))


def test_plan_skips_tasks_whose_folder_is_absent(tmp_path: Path) -> None:
    assert runner.plan([EchoTask()], tmp_path) == []


def test_every_sample_is_answered_and_the_file_is_written(tmp_path: Path, fake_trunk) -> None:  # type: ignore[no-untyped-def]
    task = EchoTask()
    planned = runner.plan([task], write_echo_input(tmp_path / "in", REQUESTS))
    [report] = runner.run(planned, fake_trunk, tmp_path / "out", progress=False)
    out = _read(report.path)
    assert list(out) == list(REQUESTS)
    assert all(v.startswith("dim") for v in out.values())
    assert report.items == 5 and report.fallbacks == 0 and task.setup_calls == 1
    assert "5 items" in report.summary()


def test_a_failing_sample_gets_the_fallback_and_its_batch_mates_do_not(tmp_path: Path, fake_trunk) -> None:  # type: ignore[no-untyped-def]
    planned = runner.plan([EchoTask(fail_on=frozenset({"broken"}))], write_echo_input(tmp_path / "in", REQUESTS))
    [report] = runner.run(planned, fake_trunk, tmp_path / "out", progress=False)
    out = _read(report.path)
    assert out["d"] == "fallback"
    assert all(out[k].startswith("dim") for k in "abce")
    assert report.fallbacks == 1 and any("broken" in e for e in report.errors)


def test_strict_mode_raises_and_writes_nothing(tmp_path: Path, fake_trunk) -> None:  # type: ignore[no-untyped-def]
    planned = runner.plan([EchoTask(fail_on=frozenset({"broken"}))], write_echo_input(tmp_path / "in", REQUESTS))
    with pytest.raises(ValueError, match="broken"):
        runner.run(planned, fake_trunk, tmp_path / "out", strict=True, progress=False)
    assert not (tmp_path / "out" / "prediction_ECHO.json").exists()


def test_setup_failure_still_writes_a_complete_file(tmp_path: Path, fake_trunk) -> None:  # type: ignore[no-untyped-def]
    planned = runner.plan([EchoTask(fail_setup=True)], write_echo_input(tmp_path / "in", REQUESTS))
    [report] = runner.run(planned, fake_trunk, tmp_path / "out", progress=False)
    assert _read(report.path) == {k: "fallback" for k in REQUESTS}
    assert report.fallbacks == 5


def test_spent_time_budget_falls_back_but_keeps_every_key(tmp_path: Path, fake_trunk, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    planned = runner.plan([EchoTask()], write_echo_input(tmp_path / "in", REQUESTS))
    clock = iter([0.0, 0.0] + [100.0] * 50)
    monkeypatch.setattr(time, "monotonic", lambda: next(clock))
    [report] = runner.run(planned, fake_trunk, tmp_path / "out", control=RunControl.with_budget(10), progress=False)
    out = _read(report.path)
    assert list(out) == list(REQUESTS) and report.fallbacks == 5


def test_unreadable_request_file_writes_an_empty_file(tmp_path: Path, fake_trunk) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "in" / "ECHO").mkdir(parents=True)
    (tmp_path / "in" / "ECHO" / "requests.json").write_text("{not json", encoding="utf-8")
    planned = runner.plan([EchoTask()], tmp_path / "in")
    [report] = runner.run(planned, fake_trunk, tmp_path / "out", progress=False)
    assert _read(report.path) == {} and report.errors


def test_present_but_empty_folder_still_gets_its_file(tmp_path: Path, fake_trunk) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "in" / "ECHO").mkdir(parents=True)
    (tmp_path / "in" / "ECHO" / "requests.json").write_text("{}", encoding="utf-8")
    planned = runner.plan([EchoTask()], tmp_path / "in")
    [report] = runner.run(planned, fake_trunk, tmp_path / "out", progress=False)
    assert _read(report.path) == {} and report.items == 0 and not report.errors


def test_folder_aliases_count_as_present(tmp_path: Path) -> None:
    import dataclasses

    class OldEcho(EchoTask):
        info = dataclasses.replace(EchoTask.info, folder_aliases={"OLD_ECHO": "prediction_OLD_ECHO.json"})

        def discover(self, input_dir: Path) -> list:
            return []

    (tmp_path / "OLD_ECHO").mkdir()
    assert [p.task.name for p in runner.plan([OldEcho()], tmp_path)] == ["echo"]
    assert runner.plan([EchoTask()], tmp_path) == []  # no alias: OLD_ECHO is not its folder


def test_observer_hears_about_each_written_file(tmp_path: Path, fake_trunk) -> None:  # type: ignore[no-untyped-def]
    heard = []
    planned = runner.plan([EchoTask()], write_echo_input(tmp_path / "in", REQUESTS))
    runner.run(planned, fake_trunk, tmp_path / "out", progress=False, on_written=lambda n, p: heard.append((n, p.name)))
    assert heard == [("echo", "prediction_ECHO.json")]
