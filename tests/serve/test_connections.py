"""The server against slow and hostile clients (issue 47), on a real uvicorn server on 127.0.0.1.

The server is ``serve.py``'s (``core.serve.cli.server_config``: its protocol, deadlines and host check)
over the fake trunk, with small limits and deadlines so that each case takes a second or two: 2 requests
answered at once, 6 bodies received at once, a body deadline of 1.5 s, an idle deadline of 0.5 s.
Every socket is bounded by a timeout; the heavy version is ``python -m bench.serve_slow``.
"""

from __future__ import annotations

import http.client
import json
import logging
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, closing
from typing import Any, NamedTuple

import pytest

from tests.serve import _shout

BODY_TIMEOUT = 1.5
IDLE_TIMEOUT = 0.5
REQUESTS, UPLOADS = 2, 6


class Served(NamedTuple):
    port: int
    service: Any


@pytest.fixture(scope="module")
def served(fake_trunk) -> Iterator[Served]:  # type: ignore[no-untyped-def]
    import uvicorn

    from core.serve.cli import ServeRequest, server_config
    from core.serve.memory import MemoryLimits
    from core.serve.service import Service

    request = ServeRequest(
        limits=MemoryLimits(requests=REQUESTS, uploads=UPLOADS), body_timeout=BODY_TIMEOUT, idle_timeout=IDLE_TIMEOUT
    )
    # As core.serve.cli.build_service makes it, over the fake trunk.
    service = Service({"shout": _shout.ShoutTask()}, fake_trunk, limits=request.limits, body_timeout=BODY_TIMEOUT)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(server_config(service, request, configure_logging=False))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.02)
    try:
        yield Served(sock.getsockname()[1], service)
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()


def _body(text: str) -> tuple[bytes, str]:
    body = (f'--b0\r\nContent-Disposition: form-data; name="request"\r\n\r\n{json.dumps(text)}\r\n--b0--\r\n').encode()
    return body, "multipart/form-data; boundary=b0"


def _head(port: int, length: int, host: str = "127.0.0.1") -> bytes:
    return (
        f"POST /v1/tasks/shout HTTP/1.1\r\nHost: {host}:{port}\r\n"
        f"Content-Type: multipart/form-data; boundary=b0\r\nContent-Length: {length}\r\n\r\n"
    ).encode()


def _slow_client(port: int, stack: ExitStack) -> socket.socket:
    """A client that sends its head and the first bytes of its body, then nothing (as one sending a byte
    a second looks to the server between two bytes)."""
    body, _ = _body("slow " * 40)
    conn = stack.enter_context(closing(socket.create_connection(("127.0.0.1", port), timeout=10)))
    conn.sendall(_head(port, len(body)) + body[:20])
    return conn


def _ask(port: int, text: str, timeout: float) -> tuple[int, Any, float]:
    """(status, JSON answer, seconds) of one normal request."""
    body, ctype = _body(text)
    started = time.monotonic()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("POST", "/v1/tasks/shout", body=body, headers={"Content-Type": ctype})
        answer = conn.getresponse()
        return answer.status, json.loads(answer.read()), time.monotonic() - started
    finally:
        conn.close()


def _closed_after(conn: socket.socket, limit: float) -> float | None:
    """Seconds until the server closes ``conn`` (what it sends before is read and dropped); None past ``limit``."""
    started = time.monotonic()
    conn.settimeout(0.1)
    while time.monotonic() - started < limit:
        try:
            if conn.recv(65536) == b"":
                return time.monotonic() - started
        except TimeoutError:
            continue
        except ConnectionResetError:
            return time.monotonic() - started
    return None


def _settled(service: Any) -> None:
    deadline = time.monotonic() + 10
    while any(service.health()["memory"].get(k) for k in ("uploads_in_progress", "requests_in_progress")):
        assert time.monotonic() < deadline, service.health()["memory"]
        time.sleep(0.02)


def test_slow_bodies_hold_no_answering_place(served: Served) -> None:
    """More slow clients than places to answer: a normal request is answered at once all the same."""
    with ExitStack() as stack:
        for _ in range(REQUESTS + 2):
            _slow_client(served.port, stack)
        time.sleep(0.2)
        memory = served.service.health()["memory"]
        assert memory["uploads_in_progress"] == REQUESTS + 2 and memory["requests_in_progress"] == 0
        status, answer, seconds = _ask(served.port, "quick", timeout=BODY_TIMEOUT)
        assert status == 200 and answer["prediction"] == "QUICK"
        assert seconds < 1.0
    _settled(served.service)


def test_a_body_that_does_not_arrive_in_time_gets_408_and_its_connection_closed(served: Served) -> None:
    with ExitStack() as stack:
        conns = [_slow_client(served.port, stack) for _ in range(UPLOADS)]  # every upload place taken
        started = time.monotonic()
        conns[0].settimeout(BODY_TIMEOUT + 3)
        head = conns[0].recv(4096)
        assert head.startswith(b"HTTP/1.1 408 ") and b"connection: close" in head.lower()
        assert BODY_TIMEOUT - 0.1 < time.monotonic() - started < BODY_TIMEOUT + 1.0
        for conn in conns:
            assert _closed_after(conn, 2.0) is not None
        # Their places are free again: a normal request gets through.
        status, answer, _ = _ask(served.port, "after", timeout=5)
        assert status == 200 and answer["prediction"] == "AFTER"
    _settled(served.service)


def test_an_idle_connection_is_closed(served: Served) -> None:
    with ExitStack() as stack:
        silent = stack.enter_context(closing(socket.create_connection(("127.0.0.1", served.port), timeout=5)))
        dribbling = stack.enter_context(closing(socket.create_connection(("127.0.0.1", served.port), timeout=5)))
        dribbling.sendall(b"GET /health HTTP/1.1\r\nHo")  # a head that never ends
        kept = http.client.HTTPConnection("127.0.0.1", served.port, timeout=5)
        stack.callback(kept.close)
        kept.request("GET", "/health")
        assert kept.getresponse().read()  # a keep-alive connection, idle after its answer
        assert kept.sock is not None
        for conn in (silent, dribbling, kept.sock):
            seconds = _closed_after(conn, IDLE_TIMEOUT + 2.0)
            assert seconds is not None and seconds < IDLE_TIMEOUT + 1.0


def test_a_client_gone_mid_upload_is_one_info_line(served: Served, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    for _ in range(3):
        with ExitStack() as stack:
            _slow_client(served.port, stack)
            time.sleep(0.1)
    _settled(served.service)
    records = [r for r in caplog.records if r.name.startswith(("core.serve", "uvicorn"))]
    assert not [r for r in records if r.levelno >= logging.ERROR or r.exc_info], [r.getMessage() for r in records]
    gone = [r for r in records if "went away" in r.getMessage()]
    assert len(gone) == 3 and {r.levelno for r in gone} == {logging.INFO}


def test_a_foreign_host_is_refused_on_the_wire(served: Served) -> None:
    body, _ = _body("rebound")
    for host, status in (("evil.example", 400), ("localhost", 200)):
        with closing(socket.create_connection(("127.0.0.1", served.port), timeout=5)) as conn:
            conn.sendall(_head(served.port, len(body), host) + body)
            assert conn.recv(4096).startswith(f"HTTP/1.1 {status} ".encode()), host
