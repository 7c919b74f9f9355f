"""End to end through run.py: the demo input, bad input, and no network."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

import run
from core.errors import InputError

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "demo" / "input"
OUTPUT_NAMES = {
    "c2c": "prediction_C2C.json",
    "htr": "prediction_HTR.json",
    "zsod": "prediction_zsOD.json",
    "vqa": "prediction_VQA.json",
}


def _load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def test_help_and_list_tasks_work_without_building_a_trunk(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        run.main(["--help"])
    shown = capsys.readouterr().out
    assert info.value.code == 0 and "--time-budget" in shown and "--zsod-visualize" in shown
    assert run.main(["--list-tasks", "--no-plugins"]) == 0
    listed = capsys.readouterr().out
    assert all(name in listed for name in OUTPUT_NAMES.values())


def test_plugin_packages_import_without_heavy_libraries() -> None:
    code = (
        "import sys, plugins.c2c, plugins.htr, plugins.zsod, plugins.vqa, registry\n"
        "heavy = [m for m in ('open_clip', 'ultralytics', 'transformers', 'timm') if m in sys.modules]\n"
        "print(heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_demo_input_end_to_end_without_network(tmp_path: Path, no_network: None) -> None:
    out = tmp_path / "out"
    assert run.main(["--input", str(DEMO), "--output", str(out), "--no-plugins"]) == 0
    assert sorted(p.name for p in out.iterdir()) == sorted(OUTPUT_NAMES.values())
    c2c = _load(out / "prediction_C2C.json")
    assert set(c2c) == set(_load(DEMO / "C2C" / "requests.json")) and all(isinstance(v, str) for v in c2c.values())
    htr = _load(out / "prediction_HTR.json")
    assert set(htr) == {p.name for p in (DEMO / "HTR" / "images").iterdir()}
    zsod, requests = _load(out / "prediction_zsOD.json"), _load(DEMO / "zsOD" / "requests.json")
    assert {k: set(v) for k, v in zsod.items()} == {k: set(v) for k, v in requests.items()}
    vqa = _load(out / "prediction_VQA.json")
    assert set(vqa) == set(_load(DEMO / "VQA" / "questions.json")) and all(v for v in vqa.values())


def _bad_input(root: Path) -> Path:
    (root / "C2C").mkdir(parents=True)
    (root / "C2C" / "requests.json").write_text(
        json.dumps(
            {
                "0": "",
                "1": 5,
                "2": "public static int f ( int x ) { return x ; }",
                "3": "class { ( ( ;",
                "4": "int x = 1 ;\u00a0" * 3000,
            }
        ),
        encoding="utf-8",
    )
    (root / "HTR" / "images").mkdir(parents=True)
    (root / "HTR" / "images" / "0.png").write_bytes(b"not a png")
    Image.new("RGB", (1, 1)).save(root / "HTR" / "images" / "1.png")
    Image.new("RGBA", (120, 40), (0, 0, 255, 128)).save(root / "HTR" / "images" / "2.png")
    Image.new("I;16", (120, 40)).save(root / "HTR" / "images" / "3.png")
    (root / "HTR" / "images" / "4.png").write_bytes(b"")
    (root / "zsOD" / "images").mkdir(parents=True)
    Image.new("L", (300, 200), 128).save(root / "zsOD" / "images" / "0.jpg")
    Image.new("CMYK", (64, 48)).save(root / "zsOD" / "images" / "1.jpg")
    (root / "zsOD" / "images" / "2.jpg").write_bytes(b"broken")
    (root / "zsOD" / "requests.json").write_text(
        json.dumps(
            {
                "0.jpg": ["a grey wall", "a grey wall", 7, "", "кошка"],
                "1.jpg": [],
                "2.jpg": ["a bus"],
                "missing.jpg": ["a tree"],
            }
        ),
        encoding="utf-8",
    )
    (root / "VQA" / "images").mkdir(parents=True)
    Image.new("RGB", (50, 50), "green").save(root / "VQA" / "images" / "0.jpg")
    (root / "VQA" / "questions.json").write_text(
        json.dumps(
            {
                "0": {"file_name": "0.jpg", "question": "Какого цвета фон?"},
                "1": {"image_id": "0.jpg", "question": ""},
                "2": {"question": "what is it?"},
                "3": "garbage",
                "4": {"file_name": "nope.jpg", "question": "Is it red?"},
                "5": {"file_name": "0.jpg", "question": 42},
            }
        ),
        encoding="utf-8",
    )
    return root


def test_bad_input_still_writes_every_key_of_every_task(tmp_path: Path, no_network: None) -> None:
    root = _bad_input(tmp_path / "in")
    out = tmp_path / "out"
    assert run.main(["--input", str(root), "--output", str(out), "--no-plugins"]) == 0
    assert set(_load(out / "prediction_C2C.json")) == {"0", "1", "2", "3", "4"}
    assert all(isinstance(v, str) for v in _load(out / "prediction_C2C.json").values())
    assert set(_load(out / "prediction_HTR.json")) == {f"{i}.png" for i in range(5)}
    zsod = _load(out / "prediction_zsOD.json")
    assert set(zsod) == {"0.jpg", "1.jpg", "2.jpg", "missing.jpg"}
    assert {"a grey wall", "кошка"} <= set(zsod["0.jpg"]) and zsod["2.jpg"] == {"a bus": []}
    assert zsod["missing.jpg"] == {"a tree": []}
    vqa = _load(out / "prediction_VQA.json")
    assert set(vqa) == {str(i) for i in range(6)} and all(isinstance(v, str) and v for v in vqa.values())


def test_present_but_empty_task_folders_each_get_an_empty_file(tmp_path: Path, no_network: None) -> None:
    root = tmp_path / "in"
    for folder in ("C2C", "HTR", "zsOD", "VQA"):
        (root / folder).mkdir(parents=True)
    (root / "HTR" / "images").mkdir()  # an image folder with no images: nothing asked either
    out = tmp_path / "out"
    assert run.main(["--input", str(root), "--output", str(out), "--no-plugins"]) == 0
    assert {p.name: _load(p) for p in out.iterdir()} == {name: {} for name in OUTPUT_NAMES.values()}


def test_older_input_forms_are_accepted(tmp_path: Path) -> None:
    root = tmp_path / "in" / "fusion_brain"
    (root / "OD").mkdir(parents=True)
    shutil.copytree(DEMO / "zsOD", root / "OD", dirs_exist_ok=True)
    out = tmp_path / "out"
    assert run.main(["--input", str(tmp_path / "in"), "--output", str(out), "--no-plugins", "--tasks", "zsod"]) == 0
    assert {p.name for p in out.iterdir()} == {"prediction_zsOD.json", "prediction_OD.json"}


def test_unknown_task_name_is_a_clear_error(tmp_path: Path) -> None:
    assert run.main(["--input", str(DEMO), "--output", str(tmp_path), "--tasks", "ocr", "--no-plugins"]) == 2


def test_the_command_line_becomes_a_typed_request_and_each_plugin_gets_its_own_options(tmp_path: Path) -> None:
    import registry
    from core import cli, hookimpl
    from core.request import PluginConfig, RunRequest

    argv = ["--input", "in", "--tasks", "ZSOD, vqa", "--time-budget", "90", "--heads", str(tmp_path)]
    pm, request, list_tasks = cli.parse_run([*argv, "--zsod-visualize", "drawn", "--no-plugins"], registry)
    assert isinstance(request, RunRequest) and not list_tasks
    assert request.input_dir == Path("in") and request.tasks == ("zsod", "vqa") and request.time_budget == 90.0
    assert request.trunk.backend == "default" and request.engine == "local" and request.detector.device == "cpu"
    zsod = PluginConfig(tmp_path, {"zsod_visualize": Path("drawn"), "zsod_proposals": None, "zsod_grid": None})
    assert request.plugins.config("plugins.zsod") == zsod
    assert request.plugins.config("plugins.c2c") == PluginConfig(tmp_path, {})
    seen = {}

    class Typed:
        @staticmethod
        @hookimpl
        def register_tasks(register, config):  # type: ignore[no-untyped-def]
            seen["typed"] = config

    pm.register(Typed(), name="typed")
    registry.collect(pm, request.plugins)
    assert seen == {"typed": PluginConfig(tmp_path, {})}


def test_a_register_tasks_impl_still_asking_for_the_removed_options_is_refused_loudly() -> None:
    import pluggy

    import registry
    from core import hookimpl

    class Older:
        @staticmethod
        @hookimpl
        def register_tasks(register, options):  # type: ignore[no-untyped-def]
            raise AssertionError("never called")

    pm = registry.get_plugin_manager(load_entrypoints=False, builtins=registry.CORE_PLUGINS)
    with pytest.raises(pluggy.PluginValidationError, match="options"):
        pm.register(Older(), name="older")


def test_a_run_request_goes_through_the_one_orchestrator(tmp_path: Path, fake_trunk) -> None:  # type: ignore[no-untyped-def]
    from core import orchestrator
    from core.request import RunRequest
    from tests.core._tasks import EchoTask, write_echo_input

    root = write_echo_input(tmp_path / "in", {"a": "red apple", "b": "a bus"})
    heard = []
    outcome = orchestrator.run(
        RunRequest(input_dir=root, output_dir=tmp_path / "out", progress=False),
        [EchoTask()],
        on_written=lambda name, path: heard.append(name),
        load_trunk=lambda config: fake_trunk,
    )
    assert outcome.status == 0 and outcome.stopped_by is None and outcome.hurried is None and heard == ["echo"]
    assert set(_load(tmp_path / "out" / "prediction_ECHO.json")) == {"a", "b"}
    assert "2 items" in outcome.summaries()[0]
    (tmp_path / "empty").mkdir()
    empty = orchestrator.run(RunRequest(input_dir=tmp_path / "empty", output_dir=tmp_path / "o2"), [EchoTask()])
    assert empty.reports == () and empty.status == 0
    with pytest.raises(InputError, match="no such folder"):  # issue 47: a missing input is refused
        orchestrator.run(RunRequest(input_dir=tmp_path / "none", output_dir=tmp_path / "o3"), [EchoTask()])
