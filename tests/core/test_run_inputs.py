"""A user's own input mistakes get a clear word (issue 47, item 3): ``--input`` at a task folder,
task folders in another case, a task folder without its expected inner folder or file, and two
spellings of one task. Refusals come before any work: ``run.py`` exits 2 with one ERROR line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image

import run
from core.runner import plan
from registry import collect, get_plugin_manager


@pytest.fixture(scope="module")
def tasks() -> dict:
    return collect(get_plugin_manager(load_entrypoints=False)).tasks


def _image(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", (16, 16), "white").save(path)


def _layout(root: Path, names: dict[str, str]) -> Path:
    """Each task's folder under ``root`` with one item, named as ``names`` says (``{"htr": "htr"}``)."""
    _image(root / names["htr"] / "images" / "0.png")
    (root / names["c2c"]).mkdir(parents=True)
    (root / names["c2c"] / "requests.json").write_text(json.dumps({"0": "int f ( ) { return 1 ; }"}), "utf-8")
    _image(root / names["zsod"] / "images" / "a.jpg")
    (root / names["zsod"] / "requests.json").write_text(json.dumps({"a.jpg": ["a cat"]}), "utf-8")
    _image(root / names["vqa"] / "images" / "a.jpg")
    (root / names["vqa"] / "questions.json").write_text(
        json.dumps({"0": {"file_name": "a.jpg", "question": "What colour is it?"}}), "utf-8"
    )
    return root


def _refusal(args: list[str], tmp_path: Path, caplog: pytest.LogCaptureFixture) -> str:
    with caplog.at_level("INFO"):
        status = run.main([*args, "--output", str(tmp_path / "out"), "--no-plugins"])
    assert status == 2
    errors = [r.getMessage() for r in caplog.records if r.levelname == "ERROR"]
    assert len(errors) == 1, errors
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())
    return errors[0]


def test_input_at_a_task_folder_is_refused_naming_it_and_its_parent(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    root = _layout(tmp_path / "my_input", {"htr": "HTR", "c2c": "C2C", "zsod": "zsOD", "vqa": "VQA"})
    line = _refusal(["--input", str(root / "HTR")], tmp_path, caplog)
    assert str(root / "HTR") in line and "HTR/ task folder" in line and f"pass its parent ({root})" in line


def test_input_at_a_folder_laid_out_as_a_task_folder_is_refused(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    _image(tmp_path / "words" / "images" / "0.png")
    line = _refusal(["--input", str(tmp_path / "words")], tmp_path, caplog)
    assert str(tmp_path / "words") in line and "holds images/" in line and "pass its parent" in line


def test_an_input_folder_that_does_not_exist_is_refused(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    line = _refusal(["--input", str(tmp_path / "nowhere")], tmp_path, caplog)
    assert str(tmp_path / "nowhere") in line and "no such folder" in line
    assert not (tmp_path / "out").exists()  # refused before the output folder is made


def test_two_spellings_of_one_task_are_refused_naming_both(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    root = _layout(tmp_path / "in", {"htr": "HTR", "c2c": "C2C", "zsod": "zsOD", "vqa": "VQA"})
    _image(root / "OD" / "images" / "b.jpg")
    (root / "OD" / "requests.json").write_text(json.dumps({"b.jpg": ["a dog"]}), "utf-8")
    line = _refusal(["--input", str(root)], tmp_path, caplog)
    assert str(root / "OD") in line and str(root / "zsOD") in line and "keep one" in line


def test_a_folder_in_another_case_is_read_under_the_expected_spelling(
    tmp_path: Path, tasks: dict, caplog: pytest.LogCaptureFixture
) -> None:
    root = _layout(tmp_path / "in", {"htr": "htr", "c2c": "c2c", "zsod": "od", "vqa": "Vqa"})
    with caplog.at_level("INFO"):
        planned = plan(tasks, root)
    assert {p.task.info.name: (p.folder, len(p.samples)) for p in planned} == {
        "c2c": ("C2C", 1),
        "htr": ("HTR", 1),
        "zsod": ("OD", 1),  # the older spelling: prediction_OD.json is written too
        "vqa": ("VQA", 1),
    }
    said = " ".join(r.getMessage() for r in caplog.records)
    assert f"reading {root / 'htr'} as its HTR/ folder" in said and f"reading {root / 'od'} as its OD/ folder" in said


def test_a_task_folder_without_its_images_folder_names_what_it_expected(
    tmp_path: Path, tasks: dict, caplog: pytest.LogCaptureFixture
) -> None:
    _image(tmp_path / "in" / "HTR" / "imgs" / "0.png")
    with caplog.at_level("WARNING"):
        (item,) = plan([tasks["htr"]], tmp_path / "in")
    assert item.samples == ()
    (line,) = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert "expected HTR/images/" in line and "it holds imgs/" in line


def test_a_request_file_in_another_case_is_named_with_the_expected_spelling(
    tmp_path: Path, tasks: dict, caplog: pytest.LogCaptureFixture
) -> None:
    _image(tmp_path / "in" / "VQA" / "images" / "a.jpg")
    (tmp_path / "in" / "VQA" / "Questions.json").write_text("{}", "utf-8")
    with caplog.at_level("WARNING"):
        (item,) = plan([tasks["vqa"]], tmp_path / "in")
    assert item.samples == () and item.error
    (line,) = [r.getMessage() for r in caplog.records if r.levelname == "ERROR"]
    assert "expected VQA/questions.json" in line and "Questions.json (rename it questions.json)" in line


def test_an_input_with_no_task_folder_names_the_folders_it_looked_for(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / "in" / "photos").mkdir(parents=True)
    with caplog.at_level("WARNING"):
        status = run.main(["--input", str(tmp_path / "in"), "--output", str(tmp_path / "out"), "--no-plugins"])
    assert status == 0
    said = " ".join(r.getMessage() for r in caplog.records)
    assert "no task folder found" in said and all(f"{f}/" in said for f in ("C2C", "HTR", "zsOD", "VQA"))
