"""One way for tests to cut the network: every outgoing connection and name lookup raises."""

from __future__ import annotations

import socket

import pytest

_DOORS = (
    (socket.socket, "connect"),
    (socket.socket, "connect_ex"),
    (socket, "create_connection"),
    (socket, "getaddrinfo"),
)


def refuse_network(mp: pytest.MonkeyPatch, attempts: list[str] | None = None) -> None:
    """While ``mp`` holds, refuse every connection and name lookup, appending each try to ``attempts``."""

    def refuse(*args: object, **kwargs: object) -> None:
        if attempts is not None:
            attempts.append(repr(args[:2]))
        raise OSError("network access is blocked in tests")

    for owner, name in _DOORS:
        mp.setattr(owner, name, refuse)
