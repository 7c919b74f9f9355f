"""``core.io.layout``: what a task folder lacks of its declared layout, and why an input holds no
task folder (the run-level behaviour is in test_run_inputs.py)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from core import runner
from core.errors import InputError
from core.io import FolderLayout, check_input_folder, explain_empty_input, layout_hint
from core.task import RequestForm, TaskInfo

VQA = FolderLayout(("VQA",), "questions.json", asks=True, images="images")
HTR = FolderLayout(("HTR",), images="images")


def test_a_missing_request_file_names_the_entry_to_rename(tmp_path: Path) -> None:
    (tmp_path / "images").mkdir()
    (tmp_path / "Questions.JSON.txt").write_text("{}", encoding="utf-8")
    (tmp_path / "Questions.json").write_text("{}", encoding="utf-8")
    hint = layout_hint(VQA, tmp_path, "VQA")
    assert hint.startswith("; expected VQA/questions.json in ")
    assert "Questions.json (rename it questions.json)" in hint and "images/" in hint


def test_images_count_as_missing_only_when_the_folder_holds_no_other_file(tmp_path: Path) -> None:
    (tmp_path / "imgs").mkdir()
    assert layout_hint(HTR, tmp_path, "HTR") == f"; expected HTR/images/ in {tmp_path} (it holds imgs/)"
    (tmp_path / "a.png").write_bytes(b"")
    assert layout_hint(HTR, tmp_path, "HTR") == ""


def test_long_listings_are_cut_and_an_empty_folder_is_said(tmp_path: Path) -> None:
    assert layout_hint(HTR, tmp_path, "HTR").endswith("(it is empty)")
    for i in range(11):
        (tmp_path / f"d{i:02d}").mkdir()
    assert layout_hint(HTR, tmp_path, "HTR").endswith("d07/ and 3 more)")


def test_a_layout_that_declares_nothing_has_no_hint(tmp_path: Path) -> None:
    assert layout_hint(FolderLayout(("X",)), tmp_path / "absent", "X") == ""


def test_the_input_must_be_a_folder(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such folder"):
        check_input_folder(tmp_path / "absent")
    (tmp_path / "file").write_text("", encoding="utf-8")
    with pytest.raises(InputError, match="not a folder"):
        check_input_folder(tmp_path / "file")


def test_input_at_a_task_folder_is_refused_with_its_parent(tmp_path: Path) -> None:
    (tmp_path / "vqa").mkdir()
    with pytest.raises(InputError, match=r"it is the VQA/ task folder.*pass its parent"):
        explain_empty_input(tmp_path / "vqa", [VQA])
    (tmp_path / "in" / "images").mkdir(parents=True)
    with pytest.raises(InputError, match=r"it holds images/, as a task folder does"):
        explain_empty_input(tmp_path / "in", [VQA, HTR])


def test_an_input_without_task_folders_names_those_looked_for(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        explain_empty_input(tmp_path, [VQA, HTR])
    assert "looked for VQA/, HTR/" in caplog.text


def test_the_runner_reads_a_task_layout_from_its_request_form() -> None:
    info = TaskInfo(
        name="vqa",
        version="0",
        folder="VQA",
        output="prediction_VQA.json",
        folder_aliases={"OLD": "prediction_OLD.json"},
        form=RequestForm(ask="question", request_file="questions.json", images="images"),
    )
    assert runner.folder_layout(info) == FolderLayout(("VQA", "OLD"), "questions.json", True, "images")
    no_request = TaskInfo(
        name="htr", version="0", folder="HTR", output="prediction_HTR.json", form=RequestForm(ask=None, images="images")
    )
    assert runner.folder_layout(no_request) == FolderLayout(("HTR",), "requests.json", False, "images")
    assert runner.folder_layout(TaskInfo(name="x", version="0", folder="X", output="p.json")) == FolderLayout(("X",))
