"""Writing prediction files: exact text, the user's umask, an atomic replace.

Any string JSON can carry, lone surrogates included, is written back exactly
(``dumps_json``). Prediction files get the mode the umask gives a new file
(``new_file_mode``) and are replaced atomically (``write_json_atomic``), so concurrent runs
never leave half a file and a signal never leaves a temporary one. The output folder is checked
before a run does any work (``check_output_folder``).

A process killed outright (SIGKILL, power loss) may leave its temporary file: its name,
``.<target>.<owner>.<random>.tmp``, carries its writer (``process_token``: pid and start
time), so a later run removes it once that process is gone (``remove_abandoned``) and
never touches a live writer's.
"""

from __future__ import annotations

import json
import logging
import os
import re
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from core.errors import OutputError

log = logging.getLogger(__name__)

#: ``.<target>.<pid>-<start>.<random>.tmp``: a temporary file of ``write_json_atomic``.
TEMPORARY_NAME = re.compile(r"^\.(?P<target>.+)\.(?P<pid>\d+)-(?P<start>\d+)\.[A-Za-z0-9_]+\.tmp$")

_SURROGATE = re.compile("[\ud800-\udfff]")


def _escape_surrogate(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def dumps_json(data: Any, **kwargs: Any) -> str:
    """``json.dumps(data, ensure_ascii=False)``, with lone surrogates written as ``\\uXXXX`` escapes.

    Text stays readable (Cyrillic as Cyrillic), and the result always encodes
    to UTF-8: a key or value holding a lone surrogate (a ``"\\udc80"`` escape
    in a request, a non-UTF-8 file name as ``os.listdir`` gives it) is written
    as the escape, so ``json.loads`` of the file gives back the same Python
    string. (A Python string holding a high and a low surrogate side by side
    reads back as the one character they encode: JSON cannot tell them apart.)
    ``kwargs`` go to ``json.dumps``.
    """
    kwargs.setdefault("ensure_ascii", False)
    text = json.dumps(data, **kwargs)
    # Outside string literals JSON text is ASCII, so every surrogate sits inside a string literal.
    return _SURROGATE.sub(_escape_surrogate, text)


def _umask() -> int:
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    # No /proc (not Linux): os.umask is the only reader; set it back at once.
    current = os.umask(0o022)
    os.umask(current)
    return current


def new_file_mode() -> int:
    """The mode a new file gets from the process umask (``0o666 & ~umask``; 0o644 for umask 022).

    Read from ``/proc/self/status`` where there is one, so no thread ever
    sees a changed umask; elsewhere ``os.umask`` is set and restored at once.
    """
    return 0o666 & ~_umask()


_own_token: list[Any] = [None, ""]  # [pid, token]: a forked child has another pid and makes its own


def _start_time(pid: int) -> int | None:
    """When process ``pid`` started (clock ticks since boot, ``/proc/<pid>/stat``); None without /proc."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read()
    except FileNotFoundError:
        return -1 if os.path.isdir("/proc/self") else None  # -1: no such process
    except OSError:
        return None
    # The command name (field 2) may hold spaces and parentheses: count fields after its last ')'.
    fields = stat[stat.rfind(b")") + 2 :].split()
    try:
        return int(fields[19])  # field 22 of stat(5)
    except (IndexError, ValueError):
        return None


def process_token(pid: int | None = None) -> str:
    """``<pid>-<start time>`` of this process (or ``pid``): a writer's mark in its temporary names.

    The start time tells a process from a later one given the same pid (containers reuse low
    pids at every start)."""
    own = pid is None or pid == os.getpid()
    pid = os.getpid() if pid is None else pid
    if own and _own_token[0] == pid:
        return _own_token[1]
    token = f"{pid}-{max(_start_time(pid) or 0, 0)}"
    if own:
        _own_token[:] = [pid, token]
    return token


def owner_alive(pid: int, start: int) -> bool:
    """Whether the process that wrote ``<pid>-<start>`` runs still (when unsure: True, keep its files)."""
    started = _start_time(pid)
    if started is not None:
        return started >= 0 and (start == 0 or started == start)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # someone else's process, alive
    return True


def remove_abandoned(folder: Path) -> list[Path]:
    """Remove the temporary files ``write_json_atomic`` left in ``folder`` when its process died
    (killed before its rename); the files of live writers, and every other file, are left alone.
    Returns what was removed (each logged)."""
    removed: list[Path] = []
    try:
        names = os.listdir(folder)
    except OSError:
        return removed
    for name in names:
        match = TEMPORARY_NAME.match(name)
        if match is None or owner_alive(int(match["pid"]), int(match["start"])):
            continue
        path = Path(folder) / name
        try:
            if path.is_file() and not path.is_symlink():
                path.unlink()
                removed.append(path)
                log.warning("removed %s, a temporary file left by a run that was killed (pid %s)", path, match["pid"])
        except OSError as exc:
            log.error("cannot remove %s, a temporary file left by a killed run (%s)", path, exc)
    return removed


def check_output_folder(folder: Path | str, names: Sequence[str] = ()) -> Path:
    """``folder``, made if missing, once a file has really been created in it and removed; else
    ``OutputError`` saying why: it is a file, a parent cannot be made, it cannot be written in,
    or one of ``names`` (the files the run will write) is a folder there.

    The run calls it before any work, so that a path it cannot write is refused in one line
    instead of after the work. Creating a file is the test, not the permission bits: root
    passes those on a read-only mount, and a file system may refuse what the mode allows.
    """
    folder = Path(folder)
    if os.path.lexists(folder) and not folder.is_dir():
        raise OutputError("cannot write the predictions here: it is a file, not a folder", folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        blocked = next((p for p in folder.parents if os.path.lexists(p) and not p.is_dir()), None)
        why = f"{blocked} is a file, not a folder" if blocked else exc.strerror or str(exc)
        raise OutputError(f"the output folder cannot be made: {why}", folder) from exc
    try:
        fd, probe = tempfile.mkstemp(prefix=f".write-check.{process_token()}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise OutputError(f"cannot write in the output folder: {exc.strerror or exc}", folder) from exc
    os.close(fd)
    Path(probe).unlink(missing_ok=True)
    for name in names:
        if (folder / name).is_dir():
            raise OutputError(f"{name} there is a folder: the predictions cannot replace it", folder)
    return folder


def write_json_atomic(path: Path, data: Any) -> Path:
    """Write ``data`` as UTF-8 JSON via a temporary file and rename: readers never see half a file.

    The text is ``dumps_json(data)`` (lone surrogates escaped, other text as
    UTF-8). The temporary file has a unique name in the target folder, so runs
    writing the same file at once each replace it whole (the last one wins);
    the file gets ``new_file_mode()``, not ``mkstemp``'s 0600. The file it replaces stays whole
    until the rename: a write that fails or is killed leaves the earlier file as it was, and its
    own temporary file carries its writer's ``process_token`` (``remove_abandoned``).
    """
    from core import stop

    payload = dumps_json(data).encode("utf-8")
    path.parent.mkdir(parents=True, exist_ok=True)
    with stop.deferred():  # a first signal waits for the rename; a second one removes the temporary file
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.{process_token()}.", suffix=".tmp", dir=path.parent)
        with stop.track_temporary(tmp):
            try:
                with os.fdopen(fd, "wb") as fh:
                    if hasattr(os, "fchmod"):
                        os.fchmod(fh.fileno(), new_file_mode())
                    fh.write(payload)
                    fh.flush()
                    os.fsync(fh.fileno())
                os.replace(tmp, path)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
    return path
