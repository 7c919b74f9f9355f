"""Writing prediction files: exact text, the user's umask, an atomic replace.

Any string JSON can carry, lone surrogates included, is written back exactly
(``dumps_json``). Prediction files get the mode the umask gives a new file
(``new_file_mode``) and are replaced atomically (``write_json_atomic``), so concurrent runs
never leave half a file and a signal never leaves a temporary one.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any

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


def write_json_atomic(path: Path, data: Any) -> Path:
    """Write ``data`` as UTF-8 JSON via a temporary file and rename: readers never see half a file.

    The text is ``dumps_json(data)`` (lone surrogates escaped, other text as
    UTF-8). The temporary file has a unique name in the target folder, so runs
    writing the same file at once each replace it whole (the last one wins);
    the file gets ``new_file_mode()``, not ``mkstemp``'s 0600.
    """
    from core import stop

    payload = dumps_json(data).encode("utf-8")
    path.parent.mkdir(parents=True, exist_ok=True)
    with stop.deferred():  # a first signal waits for the rename; a second one removes the temporary file
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
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
