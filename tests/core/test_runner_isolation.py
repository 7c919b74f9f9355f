"""``core.runner``: nothing one task does costs another's file (issue 25): a discovery that raises,
a trunk that cannot be built."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path
from typing import Any

from core import runner
from core.task import Sample
from tests.core._runpy import load_json
from tests.core._tasks import EchoTask, TrunklessEcho, write_echo_input

REQUESTS = {"a": "red apple", "b": "a bus", "c": "кошка", "d": "tree"}


class _RaisingDiscovery(EchoTask):
    info = dataclasses.replace(EchoTask.info, name="bad", folder="BAD", output="prediction_BAD.json")

    def discover(self, input_dir: Path) -> list[Sample]:
        return [Sample(str(int("²")))]  # what an HTR name like "².png" did: ValueError


def test_a_discovery_that_raises_costs_only_its_own_file(tmp_path: Path, fake_trunk) -> None:  # type: ignore[no-untyped-def]
    root = write_echo_input(tmp_path / "in", REQUESTS)
    (root / "BAD").mkdir()
    planned = runner.plan([_RaisingDiscovery(), EchoTask()], root)
    assert [p.task.info.name for p in planned] == ["bad", "echo"] and "ValueError" in str(planned[0].error)
    reports = runner.run(planned, fake_trunk, tmp_path / "out", progress=False)
    assert load_json(tmp_path / "out" / "prediction_BAD.json") == {}
    assert set(load_json(tmp_path / "out" / "prediction_ECHO.json")) == set(REQUESTS)
    assert all(r.path is not None for r in reports)


def test_a_trunk_that_cannot_be_built_costs_no_file(tmp_path: Path) -> None:
    root = write_echo_input(tmp_path / "in", REQUESTS)
    shutil.copytree(root / "ECHO", root / "PLAIN")

    def broken() -> Any:
        raise FileNotFoundError("[Errno 2] No usable temporary directory found")

    planned = runner.plan([EchoTask(), TrunklessEcho()], root)
    trunk = runner.build_trunk(broken, planned)
    assert trunk is None
    reports = runner.run(planned, trunk, tmp_path / "out", progress=False)
    assert load_json(tmp_path / "out" / "prediction_ECHO.json") == {k: "fallback" for k in REQUESTS}
    assert load_json(tmp_path / "out" / "prediction_PLAIN.json") == {k: v.upper() for k, v in REQUESTS.items()}
    assert [r.fallbacks for r in reports] == [4, 0]
