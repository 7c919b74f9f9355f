"""The FastAPI app over a ``Service``: the JSON API and the page.

- ``GET /``: the page (plain HTML, CSS and JS from ``static/``, no build step, nothing fetched from elsewhere);
- ``GET /v1/tasks``: the tasks, from their ``TaskInfo``;
- ``POST /v1/tasks/<name>[?display=true]``: multipart ``request`` (+ ``image``) ->
  ``{"prediction": ..., "seconds": ...}`` (+ ``"display"``);
- ``GET /health`` (with what the requests in progress hold of the memory budget).

Each ``POST`` waits for a place among the requests in progress (``Service.admitted``) before its body
is read, then streams it into its own folder (``core.serve.upload.FormReader``): no body is held whole.

This module imports FastAPI: only ``serve.py``'s serving path and the tests import it.
Every refusal is a 4xx JSON ``{"error": message}``; an unexpected failure is a 500 JSON error (the
traceback goes to the server's log, never to the client). JSON is written by ``core.io.dumps_json``: UTF-8,
text readable, a lone surrogate of a request written back as its escape.
"""

from __future__ import annotations

import logging
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException
from starlette.responses import Response

from core.io import dumps_json
from core.serve.upload import BadRequest, FormReader, Part

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from core.serve.service import Service

log = logging.getLogger(__name__)

STATIC = Path(__file__).with_name("static")
MAX_UPLOAD = 16 * 2**20  # bytes of one request body (image and request together)
_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
}
# The page loads only its own files; images are shown from the user's own file (blob:).
_CSP = "default-src 'self'; img-src 'self' blob: data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"


def json_response(data: Any, status: int = 200) -> Response:
    return Response(dumps_json(data).encode("utf-8"), status_code=status, media_type="application/json")


def error_response(status: int, message: str) -> Response:
    return json_response({"error": message}, status)


def create_app(service: Service, *, max_upload: int = MAX_UPLOAD) -> FastAPI:
    """The app; its lifespan starts and stops ``service`` (the batching loops, the temporary folder)."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await service.start()
        try:
            yield
        finally:
            await service.stop()

    # No /docs or /redoc: their pages load scripts from a CDN, and this server needs no network.
    app = FastAPI(title="Fusion Brain", lifespan=lifespan, docs_url=None, redoc_url=None)
    files = {p.name: (p.read_bytes(), _TYPES[p.suffix]) for p in STATIC.iterdir() if p.suffix in _TYPES}

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException) -> Response:
        return error_response(exc.status_code, str(exc.detail))

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> Response:
        problems = "; ".join(f"{'.'.join(map(str, e.get('loc', ())))}: {e.get('msg', '')}" for e in exc.errors())
        return error_response(422, f"invalid request: {problems}")

    def static(name: str) -> Response:
        data, media_type = files[name]
        return Response(
            data, media_type=media_type, headers={"Cache-Control": "no-cache", "Content-Security-Policy": _CSP}
        )

    @app.get("/", include_in_schema=False)
    async def page() -> Response:
        return static("index.html")

    @app.get("/static/{name}", include_in_schema=False)
    async def static_file(name: str) -> Response:
        if name not in files:
            return error_response(404, f"no file {name!r}")
        return static(name)

    @app.get("/health")
    async def health() -> Response:
        return json_response(service.health())

    @app.get("/v1/tasks")
    async def tasks() -> Response:
        return json_response({"tasks": service.describe(), "max_upload_bytes": max_upload})

    @app.post("/v1/tasks/{name}")
    async def predict(name: str, request: Request, display: bool = False) -> Response:
        """One item of task ``name``: multipart ``request`` (its request-file entry, JSON) and ``image``."""
        try:
            if name not in service.servers:
                raise BadRequest(404, f"no task {name!r}; tasks: {', '.join(service.servers)}")
            _check_length(request, max_upload)  # before waiting for a place: an oversized body holds none
            async with service.admitted(), service.request_folder() as folder:
                fields = await _receive(request, folder, max_upload)
                answer = await service.answer(name, fields, folder=folder, display=display)
        except BadRequest as exc:
            log.info("%s: refused (%d): %s", name, exc.status, exc.message)
            return error_response(exc.status, exc.message)
        except Exception as exc:
            log.exception("%s: the request failed", name)
            return error_response(500, f"the server failed on this request ({type(exc).__name__}); see its log")
        payload: dict[str, Any] = {"prediction": answer.prediction, "seconds": round(answer.seconds, 4)}
        if display:
            payload["display"] = answer.display
        return json_response(payload)

    return app


def _check_length(request: Request, limit: int) -> None:
    """413 when the body's stated length passes ``limit`` (a body without one is counted as it arrives)."""
    length = request.headers.get("content-length", "")
    if length.isdigit() and int(length) > limit:
        raise BadRequest(413, f"the upload is larger than the limit of {limit / 2**20:.0f} MiB")


async def _receive(request: Request, folder: Path, limit: int) -> dict[str, Part]:
    """The request's form, read as it arrives (``FormReader``: the image to a file in ``folder``),
    refused (413) as soon as it passes ``limit`` bytes."""
    with FormReader(request.headers.get("content-type"), folder, limit) as reader:
        return await reader.read(request.stream())
