"""One request's multipart body, parsed and checked before anything is written.

A request is ``multipart/form-data`` with a field ``request`` (the JSON value of one entry of the task's
request file, as UTF-8 text) and, where the task takes images, a file field ``image``. Whatever is wrong
with it raises ``BadRequest`` with the HTTP status and a message for a person: a body that is not
multipart or is malformed, an unknown, repeated or missing field, text that is not valid UTF-8, JSON that
does not parse or has the wrong shape for the task's ``RequestForm.ask``. The image itself is checked by
``core.io`` once it is in the request's temporary folder (``core.serve.service``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from core.task import JSONValue, RequestForm

FIELDS = ("request", "image")
MAX_PARTS = 8

# What each ``RequestForm.ask`` expects, in words (error messages and the page).
ASK_SHAPES = {
    "phrases": 'a JSON list of phrases, e.g. ["a red car", "собака"]',
    "question": 'a JSON object with a "question", e.g. {"question": "What colour is the bus?"}',
    "text": 'a JSON string, e.g. "static int f ( int n ) { return n ; }"',
    "json": "any JSON value",
}


class BadRequest(Exception):
    """A request the server refuses: ``status`` (4xx) and a message for a person."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True, slots=True)
class Part:
    """One field of a multipart body."""

    name: str
    data: bytes
    filename: str | None = None


def _options(header: bytes) -> tuple[bytes, dict[bytes, bytes]]:
    from python_multipart.multipart import parse_options_header

    value, params = parse_options_header(header)
    return value.lower(), params


def parse_form(body: bytes, content_type: str | None) -> dict[str, Part]:
    """The fields of a ``multipart/form-data`` body by name; ``BadRequest`` for anything else.

    An ``application/x-www-form-urlencoded`` body is taken too (a request without an image, as
    ``curl -d`` sends it).

    Field names must be UTF-8; a name may appear once; at most ``MAX_PARTS`` parts.
    """
    from python_multipart.exceptions import FormParserError
    from python_multipart.multipart import MultipartParser

    kind, params = _options((content_type or "").encode("latin-1", "replace"))
    if kind == b"application/x-www-form-urlencoded":
        return _urlencoded_fields(body)
    if kind != b"multipart/form-data":
        raise BadRequest(415, "send a multipart/form-data body with the fields 'request' and 'image'")
    boundary = params.get(b"boundary")
    if not boundary:
        raise BadRequest(400, "the multipart/form-data body names no boundary")

    parts: list[tuple[dict[bytes, bytes], bytearray]] = []
    header_name = bytearray()
    header_value = bytearray()
    ended = False

    def on_part_begin() -> None:
        if len(parts) >= MAX_PARTS:
            raise BadRequest(422, f"too many fields (at most {MAX_PARTS}); send 'request' and 'image'")
        parts.append(({}, bytearray()))

    def on_header_field(data: bytes, start: int, end: int) -> None:
        header_name.extend(data[start:end])

    def on_header_value(data: bytes, start: int, end: int) -> None:
        header_value.extend(data[start:end])

    def on_header_end() -> None:
        parts[-1][0][bytes(header_name).lower()] = bytes(header_value)
        header_name.clear()
        header_value.clear()

    def on_part_data(data: bytes, start: int, end: int) -> None:
        parts[-1][1].extend(data[start:end])

    def on_end() -> None:
        nonlocal ended
        ended = True

    callbacks: Any = {
        "on_part_begin": on_part_begin,
        "on_header_field": on_header_field,
        "on_header_value": on_header_value,
        "on_header_end": on_header_end,
        "on_part_data": on_part_data,
        "on_end": on_end,
    }
    parser = MultipartParser(boundary, callbacks)
    try:
        parser.write(body)
        parser.finalize()
    except FormParserError as exc:
        raise BadRequest(400, f"malformed multipart body: {exc}") from exc
    if not ended:
        raise BadRequest(400, "malformed multipart body: it ends before its closing boundary")

    named: list[Part] = []
    for headers, data in parts:
        disposition, options = _options(headers.get(b"content-disposition", b""))
        if disposition != b"form-data" or b"name" not in options:
            raise BadRequest(400, "malformed multipart body: a part without 'Content-Disposition: form-data; name=...'")
        try:
            name = options[b"name"].decode("utf-8")
        except UnicodeDecodeError as exc:
            raise BadRequest(400, "a field name is not valid UTF-8") from exc
        filename = options.get(b"filename")
        named.append(Part(name, bytes(data), filename.decode("utf-8", "replace") if filename is not None else None))
    return _by_name(named)


def _urlencoded_fields(body: bytes) -> dict[str, Part]:
    """The fields of an ``application/x-www-form-urlencoded`` body (a request without an image)."""
    from urllib.parse import parse_qsl

    try:
        pairs = parse_qsl(body.decode("utf-8"), keep_blank_values=True, encoding="utf-8", errors="strict")
    except UnicodeDecodeError as exc:
        raise BadRequest(400, "the form's text is not valid UTF-8") from exc
    if len(pairs) > MAX_PARTS:
        raise BadRequest(422, f"too many fields (at most {MAX_PARTS}); send 'request' and 'image'")
    return _by_name([Part(name, value.encode("utf-8", "surrogatepass")) for name, value in pairs])


def _by_name(parts: list[Part]) -> dict[str, Part]:
    """The parts by field name: each a known field, sent once."""
    fields: dict[str, Part] = {}
    for part in parts:
        if part.name not in FIELDS:
            raise BadRequest(422, f"unknown field {part.name!r}; the fields are {', '.join(FIELDS)}")
        if part.name in fields:
            raise BadRequest(422, f"the field {part.name!r} is sent twice")
        fields[part.name] = part
    return fields


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def request_value(part: Part | None, form: RequestForm, task: str) -> JSONValue:
    """The JSON value of the ``request`` field, checked against ``form.ask`` (None when the task asks none)."""
    if form.ask is None:
        if part is not None:
            raise BadRequest(422, f"{task} takes no 'request' field: the image is its whole input")
        return None
    shape = ASK_SHAPES.get(form.ask, "a JSON value")
    if part is None:
        raise BadRequest(422, f"missing field 'request': {task} asks for {shape}")
    try:
        text = part.data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadRequest(400, f"the field 'request' is not valid UTF-8 text (byte {exc.start}: {exc.reason})") from exc
    try:
        value = json.loads(text.removeprefix("\ufeff"), parse_constant=_no_constants)
    except RecursionError as exc:
        raise BadRequest(422, "the field 'request' is JSON nested too deeply") from exc
    except ValueError as exc:
        raise BadRequest(422, f"the field 'request' is not JSON ({exc}); {task} asks for {shape}") from exc
    problem = _shape_problem(value, form.ask)
    if problem:
        raise BadRequest(422, f"the field 'request' {problem}; {task} asks for {shape}")
    return value


def _shape_problem(value: JSONValue, ask: str) -> str | None:
    """Why ``value`` does not fit ``ask`` (None when it does; unknown kinds take any value)."""
    if ask == "phrases":
        if not isinstance(value, list):
            return f"is a JSON {_json_type(value)}, not a list"
        if not value:
            return "is an empty list"
        if not all(isinstance(p, str) for p in value):
            return "holds a phrase that is not a string"
    elif ask == "question":
        if not isinstance(value, dict):
            return f"is a JSON {_json_type(value)}, not an object"
        question = value.get("question")
        if not isinstance(question, str) or not question.strip():
            return 'has no "question" text'
    elif ask == "text":
        if not isinstance(value, str):
            return f"is a JSON {_json_type(value)}, not a string"
        if not value.strip():
            return "is empty"
    return None


def _json_type(value: JSONValue) -> str:
    return {dict: "object", list: "list", str: "string", bool: "boolean", type(None): "null"}.get(type(value), "number")


def image_data(part: Part | None, form: RequestForm, task: str) -> bytes | None:
    """The bytes of the ``image`` field (None when the task takes no image)."""
    if form.images is None:
        if part is not None:
            raise BadRequest(422, f"{task} takes no image")
        return None
    if part is None:
        raise BadRequest(422, f"missing file field 'image': {task} needs an image")
    if not part.data:
        raise BadRequest(422, "the image file is empty")
    return part.data
