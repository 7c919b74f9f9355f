"""``core.io.requests``: task folders in their older forms, request files in UTF-8/16/32 and the
shapes they must have, text made safe for a tokenizer."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from core.errors import InputError
from core.io import decode_json_text, find_request_file, find_task_dir, model_safe_text, read_json_object, read_request


@pytest.mark.parametrize(("content", "message"), [("{oops", "invalid JSON"), ("[1, 2]", "JSON object")])
def test_read_json_object_rejects_bad_files_with_the_path(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "requests.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(InputError, match=message) as info:
        read_json_object(path)
    assert info.value.path == path


def test_read_json_object_accepts_a_bom(tmp_path: Path) -> None:
    path = tmp_path / "q.json"
    path.write_bytes('\ufeff{"a": 1}'.encode())
    assert read_json_object(path) == {"a": 1}


def test_task_dirs_accept_the_older_forms(tmp_path: Path) -> None:
    (tmp_path / "fusion_brain" / "OD").mkdir(parents=True)
    (tmp_path / "\u04212\u0421").mkdir()
    (tmp_path / "\u04212\u0421" / "requests.json").write_text("{}")
    assert find_task_dir(tmp_path, "zsOD", "OD") == tmp_path / "fusion_brain" / "OD"
    c2c = find_task_dir(tmp_path, "C2C")
    assert c2c is not None and c2c.name == "\u04212\u0421"
    assert find_request_file(c2c, "requests.json") == c2c / "requests.json"
    assert find_task_dir(tmp_path, "VQA") is None


def test_read_request_tells_an_empty_folder_from_a_missing_file(tmp_path: Path) -> None:
    task_dir = tmp_path / "VQA"
    task_dir.mkdir()
    assert read_request(task_dir, "questions.json") == {}  # empty folder: nothing asked
    (task_dir / "images").mkdir()
    with pytest.raises(InputError, match="VQA folder has no questions.json"):
        read_request(task_dir, "questions.json")
    (task_dir / "questions.json").write_text('{"1": {"question": "?"}}', encoding="utf-8")
    assert read_request(task_dir, "questions.json") == {"1": {"question": "?"}}
    (task_dir / "questions.json").write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(InputError):
        read_request(task_dir, "questions.json")


# -- request files in other encodings and shapes -----------------------------------------------


REQUEST = {"кошка.jpg": ["кошка", "a dog"], "2": {"question": "что это?"}}


@pytest.mark.parametrize(
    "encode",
    [
        lambda t: t.encode("utf-8"),
        lambda t: b"\xef\xbb\xbf" + t.encode("utf-8"),
        lambda t: b"\xff\xfe" + t.encode("utf-16-le"),
        lambda t: b"\xfe\xff" + t.encode("utf-16-be"),
        lambda t: b"\xff\xfe\x00\x00" + t.encode("utf-32-le"),
        lambda t: b"\x00\x00\xfe\xff" + t.encode("utf-32-be"),
        lambda t: t.encode("utf-16-le"),  # no BOM: told by the zero bytes (RFC 4627)
    ],
    ids=["utf8", "utf8-bom", "utf16le-bom", "utf16be-bom", "utf32le-bom", "utf32be-bom", "utf16le-nobom"],
)
def test_requests_in_utf8_16_32_are_read(tmp_path: Path, encode: Callable[[str], bytes]) -> None:
    (tmp_path / "requests.json").write_bytes(encode(json.dumps(REQUEST, ensure_ascii=False)))
    assert read_request(tmp_path, "requests.json") == REQUEST


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b'{"a": "caf\xe9"}', "not valid UTF-8"),
        (b"\xff\xfe" + b"{\x00\x00\xd8", "not valid UTF-16 LE"),
        (b'{"a": [1, 2', "invalid JSON"),
        (b"", "invalid JSON"),
        (b"[1, 2]", "JSON object"),
        (b'"just text"', "JSON object"),
        (b"[" * 100_000, "invalid JSON"),
    ],
    ids=["latin1", "bad-utf16", "truncated", "empty", "list", "string", "deep"],
)
def test_unusable_request_files_raise_input_error(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "requests.json"
    path.write_bytes(content)
    with pytest.raises(InputError, match=message) as info:
        read_request(tmp_path, "requests.json")
    assert info.value.path == path


def test_decode_json_text_drops_the_bom() -> None:
    assert decode_json_text(b"\xff\xfe\x00\x00" + "{}".encode("utf-32-le")) == "{}"
    assert decode_json_text(b"\xef\xbb\xbf{}") == "{}"


def test_model_safe_text() -> None:
    assert model_safe_text("кошка") == "кошка"
    assert model_safe_text("a\udc80b") == "a\ufffdb"
    assert model_safe_text("\ud83d\ude00 x") == "\U0001f600 x"  # a pair held as two code points
    assert model_safe_text("\ude00\ud83d").encode("utf-8") == "\ufffd\ufffd".encode()


# -- a key given twice (issue 47) ---------------------------------------------------------------


def test_a_key_given_twice_is_named_with_its_file_and_keeps_its_last_value(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    task_dir = tmp_path / "C2C"
    task_dir.mkdir()
    request = task_dir / "requests.json"
    request.write_text('{"7": "first", "8": "x", "7": "second", "9": {"a": 1, "a": 2}}', encoding="utf-8")
    with caplog.at_level("WARNING", logger="core.io.requests"):
        entries = read_request(task_dir, "requests.json")
    assert entries == {"7": "second", "8": "x", "9": {"a": 2}}  # the last value, as json.load keeps
    lines = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert len(lines) == 1 and str(request) in lines[0] and "'7'" in lines[0] and "'a'" in lines[0]


def test_a_file_without_duplicates_says_nothing(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    (tmp_path / "requests.json").write_text('{"7": {"a": 1}, "8": [{"a": 2}, {"a": 3}]}', encoding="utf-8")
    with caplog.at_level("WARNING", logger="core.io.requests"):
        read_request(tmp_path, "requests.json")
    assert not caplog.records


def test_many_duplicated_keys_make_one_bounded_line(caplog: pytest.LogCaptureFixture) -> None:
    from core.io import parse_json

    text = "{" + ", ".join(f'"{k}": {v}' for k in range(50) for v in (1, 2, 3)) + "}"
    with caplog.at_level("WARNING", logger="core.io.requests"):
        assert parse_json(text, "big.json") == {str(k): 3 for k in range(50)}
    (line,) = [r.getMessage() for r in caplog.records]
    assert "big.json: 50 keys are given twice" in line and "'0' (3 times)" in line and "and 40 more" in line
