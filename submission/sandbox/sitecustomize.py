"""The submission check's audit hook, loaded into the archive's run through ``PYTHONPATH``.

It never ships in the archive. It writes one JSON line per event to the file named by
``FB_CHECK_TRACE`` (``os.write`` on a descriptor opened here: writing raises no audit
event, so the hook cannot recurse): files opened and folders listed (with whether for
writing), shared libraries loaded through ctypes, programs started, modules imported,
and socket use, which it refuses. At exit it records the distributions whose modules
were imported: the run's measured runtime requirements.
"""

from __future__ import annotations

import json
import os
import sys

_TRACE = os.environ.pop("FB_CHECK_TRACE", None)
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC
_SOCKET_EVENTS = frozenset(
    {
        "socket.connect",
        "socket.sendto",
        "socket.sendmsg",
        "socket.bind",
        "socket.getaddrinfo",
        "socket.gethostbyname",
        "socket.gethostbyaddr",
    }
)


def _emit(record: dict[str, object]) -> None:
    os.write(_FD, (json.dumps(record, default=repr) + "\n").encode("utf-8", "backslashreplace"))


def _path(value: object) -> str | None:
    if isinstance(value, bytes):
        value = os.fsdecode(value)
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if not isinstance(value, str):
        return None
    return os.path.abspath(value)


def _hook(event: str, args: tuple[object, ...]) -> None:
    if event == "open":
        path = _path(args[0])
        if path is None:
            return
        mode, flags = args[1], args[2]
        write = bool(flags & _WRITE_FLAGS) if isinstance(flags, int) else any(c in str(mode) for c in "wax+")
        _emit({"e": "open", "path": path, "write": write})
    elif event in ("os.listdir", "os.scandir"):
        path = _path(args[0] if args else ".")
        if path is not None:
            _emit({"e": "open", "path": path, "write": False})
    elif event == "ctypes.dlopen":
        name = args[0] if args else None
        if isinstance(name, str | bytes) and os.sep in os.fsdecode(name):
            _emit({"e": "open", "path": _path(name), "write": False})
    elif event in ("subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn"):
        _emit({"e": "program", "event": event, "args": [repr(a)[:300] for a in args[:2]]})
    elif event == "import":
        _emit({"e": "import", "module": args[0]})
    elif event in _SOCKET_EVENTS:
        _emit({"e": "socket", "event": event, "args": [repr(a)[:200] for a in args[1:3]]})
        raise PermissionError(f"network use refused by the submission check ({event})")


def _distributions() -> None:
    try:
        from importlib.metadata import packages_distributions, version

        tops = {name.split(".")[0] for name in list(sys.modules)}
        found: dict[str, str] = {}
        for top, dists in packages_distributions().items():
            if top in tops:
                for dist in dists:
                    try:
                        found[dist] = version(dist)
                    except Exception:  # a distribution without metadata version
                        found[dist] = "?"
        _emit({"e": "distributions", "found": found})
    except Exception as exc:  # the trace must never change the run's outcome
        _emit({"e": "distributions", "error": repr(exc)})


if _TRACE:
    _FD = os.open(_TRACE, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    _emit({"e": "start", "pid": os.getpid(), "argv": sys.argv, "cwd": os.getcwd()})
    sys.addaudithook(_hook)
    import atexit

    atexit.register(_distributions)
