"""Which hosts ``serve.py`` answers: the names a request's ``Host:`` header may give.

A web page elsewhere can point its own name at 127.0.0.1 (DNS rebinding) and then call this machine's
server from the browser as if it were its own site; the browser then sends that name as ``Host:``.
Answering only the names this machine goes by refuses it. Compared without the port: any port.
"""

from __future__ import annotations

from collections.abc import Sequence

LOCAL_HOSTS = ("127.0.0.1", "localhost", "[::1]")  # this machine's loopback names: serve.py answers them always
ANY_HOST = "*"  # as an allowed host: the Host header is not checked
WILDCARD_ADDRESSES = ("", "0.0.0.0", "::", "[::]")  # listening on every address names no host


def host_name(value: str) -> str:
    """A host as the ``Host:`` header or ``--allowed-host`` gives it, in compared form: lower case, without
    its port or a final dot, an IPv6 address in brackets (``LocalHost.:8000`` -> ``localhost``,
    ``[::1]:8000`` and ``::1`` -> ``[::1]``)."""
    name = value.strip().lower()
    if name.startswith("["):
        name = name[: name.find("]") + 1] or name
    elif name.count(":") > 1:
        name = f"[{name}]"
    else:
        name = name.partition(":")[0]
    return name.rstrip(".") if name not in ("", ".") else name


def allowed_hosts(host: str, extra: Sequence[str] = ()) -> tuple[str, ...]:
    """The names answered: the loopback ones, the address listened on (``host``) when it is one address,
    and ``extra`` (``--allowed-host``)."""
    own = () if host.strip() in WILDCARD_ADDRESSES else (host.strip(),)
    return tuple(dict.fromkeys((*LOCAL_HOSTS, *own, *(h.strip() for h in extra if h.strip()))))
