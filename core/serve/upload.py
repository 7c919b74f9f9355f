"""One request's multipart body, parsed and checked as it arrives (``FormReader``).

A request is ``multipart/form-data`` with a field ``request`` (the JSON value of one entry of the task's
request file, as UTF-8 text, at most ``MAX_TEXT_FIELD`` bytes) and, where the task takes images, a file
field ``image``, written to the request's temporary folder as it arrives: no body is ever held whole in
memory. Whatever is wrong with it raises ``BadRequest`` with the HTTP status and a message for a person:
a body that is not multipart or is malformed, an unknown, repeated or missing field, a field or body
over its limit, text that is not valid UTF-8, JSON that does not parse or has the wrong shape for the
task's ``RequestForm.ask``. A key given twice in its JSON is said on a WARNING and keeps its last
value (``core.io.parse_json``, as for request files). The image itself is checked by ``core.io``
(``core.serve.service``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

from core.io import parse_json
from core.task import JSONValue, RequestForm

FIELDS = ("request", "image")
FILE_FIELD = "image"  # streamed to a file as it arrives; the other fields are text kept in memory
MAX_PARTS = 8
MAX_TEXT_FIELD = 2**20  # bytes of one text field ('request'): a JSON value, a question, a Java function
MAX_URLENCODED = 4 * MAX_TEXT_FIELD  # a form without an image, percent-encoded
WRITE_BUFFER = 2**20  # bytes of the image field gathered before each write to its file

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
    """One field of a multipart body: text in ``data``, or a file field in the file at ``path``."""

    name: str
    data: bytes = b""
    filename: str | None = None
    path: Path | None = None
    file_bytes: int = 0

    @property
    def size(self) -> int:
        """Its bytes: of the file at ``path``, or of ``data``."""
        return self.file_bytes if self.path is not None else len(self.data)


def _options(header: bytes) -> tuple[bytes, dict[bytes, bytes]]:
    from python_multipart.multipart import parse_options_header

    value, params = parse_options_header(header)
    return value.lower(), params


def _too_big(limit: int) -> BadRequest:
    return BadRequest(413, f"the upload is larger than the limit of {limit / 2**20:.0f} MiB")


class FormReader:
    """A request body read chunk by chunk (``read``, or ``feed``, ``finish`` and ``write_pending``),
    never held whole in memory.

    ``multipart/form-data``: the file field ``image`` goes to a file in ``folder``, ``WRITE_BUFFER``
    bytes at a time (``read`` writes them from a worker thread, so a slow disk never stalls the event
    loop); text fields are kept, up to ``MAX_TEXT_FIELD`` bytes each. An
    ``application/x-www-form-urlencoded`` body (a request without an image, as ``curl -d`` sends it)
    is kept up to ``MAX_URLENCODED`` bytes. Whatever
    is wrong raises ``BadRequest`` as soon as it is seen: a body past ``limit`` bytes (413), a text
    field past its limit (413), an unknown or repeated field or more than ``MAX_PARTS`` parts (422),
    a body that is not a form (415) or not well-formed (400). Field names must be UTF-8.
    Use it as a context manager: ``close`` closes the file being written.
    """

    def __init__(self, content_type: str | None, folder: Path, limit: int) -> None:
        from python_multipart.multipart import MultipartParser

        self.folder = folder
        self.limit = limit
        self.received = 0
        kind, params = _options((content_type or "").encode("latin-1", "replace"))
        self._urlencoded: bytearray | None = None
        self._parser: Any = None
        if kind == b"application/x-www-form-urlencoded":
            self._urlencoded = bytearray()
            return
        if kind != b"multipart/form-data":
            raise BadRequest(415, "send a multipart/form-data body with the fields 'request' and 'image'")
        boundary = params.get(b"boundary")
        if not boundary:
            raise BadRequest(400, "the multipart/form-data body names no boundary")
        self._parts: list[Part] = []
        self._headers: dict[bytes, bytes] = {}
        self._name = bytearray()
        self._value = bytearray()
        self._field: str | None = None
        self._filename: str | None = None
        self._text = bytearray()
        self._file: BinaryIO | None = None
        self._path: Path | None = None
        self._file_bytes = 0
        self._pending = bytearray()  # bytes of the file field not yet written
        self._written = False  # the file field has ended and is all in its file
        self._ended = False
        callbacks: Any = {
            "on_part_begin": self._part_begin,
            "on_header_field": lambda data, start, end: self._name.extend(data[start:end]),
            "on_header_value": lambda data, start, end: self._value.extend(data[start:end]),
            "on_header_end": self._header_end,
            "on_headers_finished": self._headers_finished,
            "on_part_data": self._part_data,
            "on_part_end": self._part_end,
            "on_end": self._end,
        }
        self._parser = MultipartParser(boundary, callbacks)

    def __enter__(self) -> FormReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the file being written (what it holds so far stays)."""
        if self._parser is not None and self._file is not None:
            self._file.close()
            self._file = None

    async def read(self, chunks: AsyncIterator[bytes]) -> dict[str, Part]:
        """The fields of the body ``chunks`` gives, the file field written from a worker thread."""
        import asyncio

        async for chunk in chunks:
            self.feed(chunk)
            if self.pending_bytes >= WRITE_BUFFER:
                await asyncio.to_thread(self.write_pending)
        fields = self.finish()
        await asyncio.to_thread(self.write_pending)
        return fields

    @property
    def pending_bytes(self) -> int:
        """Bytes of the file field received and not yet written (``write_pending``)."""
        return len(self._pending) if self._parser is not None else 0

    def write_pending(self) -> None:
        """Write what the file field holds so far to its file; close it once its part has ended."""
        if self._parser is None or self._path is None or self._written:
            return
        if self._file is None:
            self._file = self._path.open("xb")
        self._file.write(self._pending)
        self._pending.clear()
        if self._field != FILE_FIELD:
            self.close()
            self._written = True

    def feed(self, chunk: bytes) -> None:
        """The next bytes of the body."""
        from python_multipart.exceptions import FormParserError

        self.received += len(chunk)
        if self.received > self.limit:
            raise _too_big(self.limit)
        if self._urlencoded is not None:
            self._urlencoded += chunk
            if len(self._urlencoded) > MAX_URLENCODED:
                raise BadRequest(
                    413, f"a form without an image is larger than the limit of {MAX_URLENCODED / 2**20:.0f} MiB"
                )
            return
        try:
            self._parser.write(chunk)
        except FormParserError as exc:
            raise BadRequest(400, f"malformed multipart body: {exc}") from exc

    def finish(self) -> dict[str, Part]:
        """The fields by name, once the whole body has been fed."""
        from python_multipart.exceptions import FormParserError

        if self._urlencoded is not None:
            return _urlencoded_fields(bytes(self._urlencoded))
        try:
            self._parser.finalize()
        except FormParserError as exc:
            raise BadRequest(400, f"malformed multipart body: {exc}") from exc
        if not self._ended:
            raise BadRequest(400, "malformed multipart body: it ends before its closing boundary")
        return {part.name: part for part in self._parts}

    # -- the parser's callbacks ---------------------------------------------------------------
    def _part_begin(self) -> None:
        if len(self._parts) >= MAX_PARTS:
            raise BadRequest(422, f"too many fields (at most {MAX_PARTS}); send 'request' and 'image'")
        self._headers = {}

    def _header_end(self) -> None:
        self._headers[bytes(self._name).lower()] = bytes(self._value)
        self._name.clear()
        self._value.clear()

    def _headers_finished(self) -> None:
        disposition, options = _options(self._headers.get(b"content-disposition", b""))
        if disposition != b"form-data" or b"name" not in options:
            raise BadRequest(400, "malformed multipart body: a part without 'Content-Disposition: form-data; name=...'")
        try:
            name = options[b"name"].decode("utf-8")
        except UnicodeDecodeError as exc:
            raise BadRequest(400, "a field name is not valid UTF-8") from exc
        _check_field(name, {p.name for p in self._parts})
        filename = options.get(b"filename")
        self._field = name
        self._filename = filename.decode("utf-8", "replace") if filename is not None else None
        self._text.clear()
        if name == FILE_FIELD:  # sent once at most: a second one is refused above
            self._path = self.folder / f"upload-{len(self._parts)}"
            self._file_bytes = 0

    def _part_data(self, data: bytes, start: int, end: int) -> None:
        if self._field == FILE_FIELD:
            self._pending += data[start:end]
            self._file_bytes += end - start
            return
        self._text.extend(data[start:end])
        if len(self._text) > MAX_TEXT_FIELD:
            raise BadRequest(
                413, f"the field {self._field!r} is larger than the limit of {MAX_TEXT_FIELD / 2**20:.0f} MiB"
            )

    def _part_end(self) -> None:
        assert self._field is not None
        if self._field == FILE_FIELD:
            self._parts.append(Part(self._field, b"", self._filename, self._path, self._file_bytes))
        else:
            self._parts.append(Part(self._field, bytes(self._text), self._filename))
            self._text.clear()
        self._field = None

    def _end(self) -> None:
        self._ended = True


def _check_field(name: str, seen: set[str]) -> None:
    """A known field, not sent before."""
    if name not in FIELDS:
        raise BadRequest(422, f"unknown field {name!r}; the fields are {', '.join(FIELDS)}")
    if name in seen:
        raise BadRequest(422, f"the field {name!r} is sent twice")


def _urlencoded_fields(body: bytes) -> dict[str, Part]:
    """The fields of an ``application/x-www-form-urlencoded`` body (a request without an image)."""
    from urllib.parse import parse_qsl

    try:
        pairs = parse_qsl(body.decode("utf-8"), keep_blank_values=True, encoding="utf-8", errors="strict")
    except UnicodeDecodeError as exc:
        raise BadRequest(400, "the form's text is not valid UTF-8") from exc
    if len(pairs) > MAX_PARTS:
        raise BadRequest(422, f"too many fields (at most {MAX_PARTS}); send 'request' and 'image'")
    fields: dict[str, Part] = {}
    for name, value in pairs:
        _check_field(name, set(fields))
        data = value.encode("utf-8", "surrogatepass")
        if len(data) > MAX_TEXT_FIELD:
            raise BadRequest(413, f"the field {name!r} is larger than the limit of {MAX_TEXT_FIELD / 2**20:.0f} MiB")
        fields[name] = Part(name, data)
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
        value = parse_json(
            text.removeprefix("\ufeff"), f"{task}: the form's field 'request'", parse_constant=_no_constants
        )
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


def image_data(part: Part | None, form: RequestForm, task: str) -> Part | None:
    """The ``image`` field, checked present and not empty (None when the task takes no image)."""
    if form.images is None:
        if part is not None:
            raise BadRequest(422, f"{task} takes no image")
        return None
    if part is None:
        raise BadRequest(422, f"missing file field 'image': {task} needs an image")
    if part.size == 0:
        raise BadRequest(422, "the image file is empty")
    return part
