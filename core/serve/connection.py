"""A deadline for each request's head on ``serve.py``'s connections (uvicorn's HTTP/1.1 protocol, h11).

uvicorn closes a keep-alive connection left idle after an answer, but its timer stops at the first byte
received and is never started on a new connection: a client that opens a connection and sends nothing,
or sends its request head a byte at a time, is held forever. ``HeadDeadlineProtocol`` closes a
connection that has not sent a whole request head ``head_timeout`` seconds after it opened or after
its last answer. The body's own deadline is the service's (``Service.admitted``).

This module imports uvicorn and h11: only ``core.serve.cli``'s serving path imports it.
"""

from __future__ import annotations

import asyncio
import logging
from typing import ClassVar

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

log = logging.getLogger(__name__)


class HeadDeadlineProtocol(H11Protocol):
    """uvicorn's h11 protocol; a connection waiting longer than ``head_timeout`` for a request head is closed."""

    head_timeout: ClassVar[float] = 10.0
    _head_timer: asyncio.TimerHandle | None = None

    # uvicorn's H11Protocol narrows asyncio's BaseTransport to Transport, and this extends it
    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]  # as uvicorn's own
        super().connection_made(transport)
        self._watch()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._watch()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._watch()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_timer()
        super().connection_lost(exc)

    def _watch(self) -> None:
        """Start the timer when the connection waits for a head, stop it once one has arrived."""
        waiting = self.conn.their_state is h11.IDLE and not self.transport.is_closing()
        if not waiting:
            self._stop_timer()
        elif self._head_timer is None:
            self._head_timer = self.loop.call_later(self.head_timeout, self._head_late)

    def _stop_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_late(self) -> None:
        self._head_timer = None
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            log.debug("closed a connection that sent no request head in %g s", self.head_timeout)
            self.timeout_keep_alive_handler()


def head_deadline_protocol(seconds: float) -> type[HeadDeadlineProtocol]:
    """``HeadDeadlineProtocol`` with ``head_timeout = seconds`` (uvicorn builds one protocol per connection)."""

    class Configured(HeadDeadlineProtocol):
        head_timeout = seconds

    return Configured
