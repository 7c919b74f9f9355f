"""Installs the example third-party plugin package and runs its task through the registry."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

import registry
from core import runner
from core.testing import assert_task_conforms

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "fusionbrain-example"


@pytest.fixture(scope="module")
def installed_example(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    target = tmp_path_factory.mktemp("site")
    # Build from a copy: setuptools writes build/ and *.egg-info beside the sources.
    source = shutil.copytree(EXAMPLE, tmp_path_factory.mktemp("src") / EXAMPLE.name)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "--target",
            str(target),
            str(source),
        ],
        check=True,
    )
    sys.path.insert(0, str(target))
    try:
        yield target
    finally:
        sys.path.remove(str(target))
        for name in [m for m in sys.modules if m.startswith("fusionbrain_example")]:
            del sys.modules[name]


def _tag_input(root: Path) -> Path:
    (root / "TAG" / "images").mkdir(parents=True)
    (root / "TAG" / "labels.json").write_text(json.dumps(["a red square", "синий круг"]), encoding="utf-8")
    Image.new("RGB", (40, 30), "red").save(root / "TAG" / "images" / "0.jpg")
    Image.new("RGB", (30, 40), "blue").save(root / "TAG" / "images" / "1.png")
    return root


def test_installed_plugin_is_found_through_its_entry_point(installed_example, tmp_path, fake_trunk) -> None:  # type: ignore[no-untyped-def]
    pm = registry.get_plugin_manager(builtins=registry.CORE_PLUGINS)
    assert pm.origin(pm.get_plugin("tag")) == "fusionbrain-example"
    tasks = registry.collect(pm).tasks
    assert list(tasks) == ["tag"]

    planned = runner.plan(tasks, _tag_input(tmp_path / "in"))
    [report] = runner.run(planned, fake_trunk, tmp_path / "out", progress=False)
    out = json.loads(report.path.read_text(encoding="utf-8"))
    assert report.path.name == "prediction_TAG.json"
    assert set(out) == {"0.jpg", "1.png"} and set(out.values()) <= {"a red square", "синий круг"}


def test_example_task_passes_the_conformance_suite(installed_example, tmp_path, fake_trunk) -> None:  # type: ignore[no-untyped-def]
    from fusionbrain_example.task import TagTask

    assert_task_conforms(TagTask(), _tag_input(tmp_path), fake_trunk)
