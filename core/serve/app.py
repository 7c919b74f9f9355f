"""The FastAPI app over a ``Service``: the JSON API and the page.

- ``GET /``: the page (plain HTML, CSS and JS from ``static/``, no build step, nothing fetched from elsewhere);
- ``GET /v1/tasks``: the tasks, from their ``TaskInfo``;
- ``POST /v1/tasks/<name>[?display=true]``: multipart ``request`` (+ ``image``) ->
  ``{"prediction": ..., "seconds": ...}`` (+ ``"display"``);
- ``GET /health`` (with what the requests in progress hold of the memory budget).

Each ``POST`` streams its body into its own folder (``core.serve.upload.FormReader``: no body is held
whole) under one of the service's upload places and within its body deadline, and only then takes a
place among the requests answered at once (``Service.admitted``). A client that goes away before its
body has arrived gets one INFO line in the log.

Only the configured hosts are answered (``AllowedHosts``; by default the loopback names): a request
whose ``Host:`` header names another gets 400, so a page elsewhere that rebinds its DNS name to this
machine cannot drive the server.

This module imports FastAPI: only ``serve.py``'s serving path and the tests import it.
Every refusal is a 4xx JSON ``{"error": message}``; an unexpected failure is a 500 JSON error (the
traceback goes to the server's log, never to the client). JSON is written by ``core.io.dumps_json``: UTF-8,
text readable, a lone surrogate of a request written back as its escape.
"""

from __future__ import annotations

import logging
from collections.abc import Collection
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect
from starlette.responses import Response

from core.io import dumps_json
from core.serve.hosts import ANY_HOST, LOCAL_HOSTS, host_name
from core.serve.upload import BadRequest, FormReader, Part

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from starlette.types import ASGIApp, Receive, Scope, Send

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


def error_response(status: int, message: str, *, close: bool = False) -> Response:
    """``{"error": message}``; ``close``: the connection is closed after it (a body still arriving is not read)."""
    response = json_response({"error": message}, status)
    if close:
        response.headers["Connection"] = "close"
    return response


class AllowedHosts:
    """ASGI middleware: a request whose ``Host:`` header names none of ``hosts`` (``host_name`` form;
    ``ANY_HOST`` among them turns the check off), or that has none, gets 400 and reaches nothing else."""

    def __init__(self, app: ASGIApp, hosts: Collection[str]) -> None:
        self.app = app
        self.hosts = frozenset(host_name(h) if h != ANY_HOST else h for h in hosts)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and ANY_HOST not in self.hosts:
            header = next((v for k, v in scope["headers"] if k == b"host"), None)
            name = host_name(header.decode("latin-1")) if header is not None else ""
            if name not in self.hosts:
                log.info("refused a request for the host %r (allowed: %s)", name, ", ".join(sorted(self.hosts)))
                message = (
                    f"this server answers only for {', '.join(sorted(self.hosts))}, not for the host {name!r}; "
                    "start serve.py with --allowed-host NAME to answer another name"
                    if name
                    else "a request without a Host header is not answered"
                )
                await error_response(400, message, close=True)(scope, receive, send)
                return
        await self.app(scope, receive, send)


def create_app(
    service: Service, *, max_upload: int = MAX_UPLOAD, allowed_hosts: Collection[str] = LOCAL_HOSTS
) -> FastAPI:
    """The app; its lifespan starts and stops ``service`` (the batching loops, the temporary folder).

    ``allowed_hosts``: the names the ``Host:`` header may give (``AllowedHosts``; any port).
    """

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await service.start()
        try:
            yield
        finally:
            await service.stop()

    # No /docs or /redoc: their pages load scripts from a CDN, and this server needs no network.
    app = FastAPI(title="Fusion Brain", lifespan=lifespan, docs_url=None, redoc_url=None)
    app.add_middleware(AllowedHosts, hosts=allowed_hosts)
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
            # The body is received (under an upload place, within the body deadline) before the request
            # takes a place among those answered at once.
            async with (
                service.request_folder() as folder,
                service.admitted(lambda: _receive(request, folder, max_upload)) as fields,
            ):
                answer = await service.answer(name, fields, folder=folder, display=display)
        except BadRequest as exc:
            log.info("%s: refused (%d): %s", name, exc.status, exc.message)
            return error_response(exc.status, exc.message, close=exc.status == 408)
        except ClientDisconnect:
            log.info("%s: the client went away before its request had arrived; nothing to answer", name)
            return error_response(400, "the request did not arrive in full")
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
