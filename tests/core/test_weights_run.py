"""``run.py`` end to end on damaged weights (issue 37): an HTR head with bytes flipped, the trunk's
projection cut short. One ERROR line names the file; the task falls back; the other task answers
as it does with intact weights; the exit status stays 0 (every file is written). ``--strict``
stopping on the damage: tests/core/test_weights.py::test_setup_meeting_damaged_weights_logs_one_error_line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from core.weights import SKIP_ENV
from tests.core._runpy import DEMO, REPO, load_json, run_env, run_py

pytest.importorskip("torch")

TASKS = ["--tasks", "htr,c2c"]


@pytest.fixture(scope="module")
def small_input(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three HTR words and three C2C programs of the demo input."""
    root = tmp_path_factory.mktemp("in")
    (root / "HTR" / "images").mkdir(parents=True)
    for name in ("0.png", "1.png", "2.png"):
        shutil.copy(DEMO / "HTR" / "images" / name, root / "HTR" / "images" / name)
    programs = json.loads((DEMO / "C2C" / "requests.json").read_text(encoding="utf-8"))
    (root / "C2C").mkdir()
    (root / "C2C" / "requests.json").write_text(json.dumps({k: programs[k] for k in list(programs)[:3]}), "utf-8")
    return root


@pytest.fixture(scope="module")
def intact(small_input: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, str]]:
    out = tmp_path_factory.mktemp("intact")
    done = run_py(["--input", str(small_input), "--output", str(out), *TASKS], env=run_env(**{SKIP_ENV: ""}))
    assert done.returncode == 0, done.stderr[-3000:]
    assert " ERROR " not in done.stderr, done.stderr[-3000:]
    answers = {name: load_json(out / f"prediction_{name}.json") for name in ("HTR", "C2C")}
    assert any(answers["HTR"].values())  # the intact head reads something
    return answers


def _flip_middle(path: Path) -> None:
    data = bytearray(path.read_bytes())
    middle = len(data) // 2
    data[middle : middle + 8] = bytes(b ^ 0xA5 for b in data[middle : middle + 8])
    path.write_bytes(bytes(data))


def test_a_damaged_head_is_named_and_only_its_task_falls_back(
    small_input: Path, intact: dict[str, dict[str, str]], tmp_path: Path, default_trunk
) -> None:  # type: ignore[no-untyped-def]
    from core.heads import head_dir_for

    # The shipped HTR head, copied into a heads folder (searched first) and damaged there.
    folder = head_dir_for(tmp_path / "heads", "htr", default_trunk)
    folder.mkdir(parents=True)
    for name in ("htr_head.json", "htr_head.safetensors"):
        shutil.copy(REPO / "plugins/htr/weights" / name, folder / name)
    _flip_middle(folder / "htr_head.safetensors")
    out = tmp_path / "out"
    done = run_py(
        ["--input", str(small_input), "--output", str(out), "--heads", str(tmp_path / "heads"), *TASKS],
        env=run_env(**{SKIP_ENV: ""}),
    )
    assert done.returncode == 0, done.stderr[-3000:]
    errors = [line for line in done.stderr.splitlines() if " ERROR " in line]
    assert any(f"htr: weight file {folder / 'htr_head.safetensors'}: altered" in line for line in errors), errors
    assert "Traceback" not in done.stderr
    assert load_json(out / "prediction_HTR.json") == dict.fromkeys(intact["HTR"], "")  # the fallback, every key
    assert load_json(out / "prediction_C2C.json") == intact["C2C"]  # untouched


def test_a_trunk_projection_cut_short_is_named(
    small_input: Path, intact: dict[str, dict[str, str]], tmp_path: Path
) -> None:
    weights = tmp_path / "weights"
    shutil.copytree(REPO / "core/backends/weights", weights)
    projection = weights / "joint_efficientnet_lite0.safetensors"
    projection.write_bytes(projection.read_bytes()[:1000])
    out = tmp_path / "out"
    done = run_py(
        [
            "--input",
            str(small_input),
            "--output",
            str(out),
            "--trunk",
            f"default:efficientnet_lite0:{projection}",
            *TASKS,
        ],
        env=run_env(**{SKIP_ENV: ""}),
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert f"the trunk could not be built: weight file {projection}: short: 1,000 bytes" in done.stderr
    assert load_json(out / "prediction_HTR.json") == dict.fromkeys(intact["HTR"], "")
    assert set(load_json(out / "prediction_C2C.json")) == set(intact["C2C"])  # C2C translates without a trunk
