"""A key given twice in any JSON a user hands the product (issue 47): each task's request file and a
served form's field are read by ``core.io.parse_json``, which names the source and the key on a
WARNING and keeps the last value."""

from __future__ import annotations

from pathlib import Path

import pytest


def _warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelname == "WARNING" and "given twice" in r.getMessage()]


def test_c2c_requests_with_a_key_twice(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    from plugins.c2c.task import C2cTask

    (tmp_path / "C2C").mkdir()
    request = tmp_path / "C2C" / "requests.json"
    request.write_text('{"7": "int a ;", "7": "int b ;"}', encoding="utf-8")
    with caplog.at_level("WARNING"):
        samples = C2cTask().discover(tmp_path)
    assert [s.key for s in samples] == ["7"] and "b" in samples[0].java
    (line,) = _warnings(caplog)
    assert str(request) in line and "'7'" in line and "last value" in line


def test_zsod_requests_with_a_key_twice(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    from PIL import Image

    from plugins.zsod.task import ZsodTask

    (tmp_path / "zsOD" / "images").mkdir(parents=True)
    Image.new("RGB", (8, 8)).save(tmp_path / "zsOD" / "images" / "a.jpg")
    request = tmp_path / "zsOD" / "requests.json"
    request.write_text('{"a.jpg": ["a cat"], "a.jpg": ["a dog"]}', encoding="utf-8")
    with caplog.at_level("WARNING"):
        samples = ZsodTask().discover(tmp_path)
    assert [(s.key, list(s.phrases)) for s in samples] == [("a.jpg", ["a dog"])]
    (line,) = _warnings(caplog)
    assert str(request) in line and "'a.jpg'" in line


def test_vqa_questions_with_a_key_twice(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    from PIL import Image

    from plugins.vqa.task import VqaTask

    (tmp_path / "VQA" / "images").mkdir(parents=True)
    Image.new("RGB", (8, 8)).save(tmp_path / "VQA" / "images" / "a.jpg")
    questions = tmp_path / "VQA" / "questions.json"
    questions.write_text(
        '{"1": {"file_name": "a.jpg", "question": "What is it?", "question": "Что это?"}}', encoding="utf-8"
    )
    with caplog.at_level("WARNING"):
        (sample,) = VqaTask().discover(tmp_path)
    assert sample.question == "Что это?"
    (line,) = _warnings(caplog)
    assert str(questions) in line and "'question'" in line


def test_a_served_form_with_a_key_twice(caplog: pytest.LogCaptureFixture) -> None:
    from core.serve.upload import Part, request_value
    from core.task import RequestForm

    form = RequestForm(ask="question", request_file="questions.json", images="images", image_field="file_name")
    part = Part("request", '{"question": "What is it?", "question": "Что это?"}'.encode())
    with caplog.at_level("WARNING"):
        assert request_value(part, form, "vqa") == {"question": "Что это?"}
    (line,) = _warnings(caplog)
    assert "vqa" in line and "'request'" in line and "'question'" in line
