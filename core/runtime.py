"""The process around a run: standard streams that may be closed or broken, and a machine
with no writable temporary folder and no home folder.

- ``guard_std_streams()``: file descriptors 0-2 that were closed at start (``2>&-``) are
  reopened on ``/dev/null``, so no file the run opens later (an input, a prediction
  file) takes their number and receives a library's stray output.
- ``console_handler()``: a logging handler that writes to stderr while it can and goes
  quiet (no traceback, no exit status) once stderr is gone or broken.
- ``set_threads(n)``: torch's CPU threads (0: every core).
- ``exit_now(code)``: end without the interpreter's slow teardown (a run that must stop now).
- ``say()``: ``print`` for the final report; a closed or broken stdout (``| head -0``)
  costs nothing, not even the exit status (Python's own flush at exit included).
- ``scratch_space(out_dir)``: when there is no usable temporary folder (a read-only root
  with no tmpfs, ``TMPDIR`` pointing nowhere) or no usable home folder, libraries that
  keep caches (torch's inductor, matplotlib, ultralytics, numba) are pointed at one
  private folder beside the output (in its parent, else inside it), removed at the end.
  Nothing is ever cached across runs there; caches are never required. Its name carries
  its run's ``process_token``: a folder left by a run that was killed outright is removed
  by the next run beside that output, once its process is gone.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

log = logging.getLogger(__name__)

# Cache locations of libraries the run path may import, redirected only when needed.
CACHE_VARIABLES = ("MPLCONFIGDIR", "YOLO_CONFIG_DIR", "NUMBA_CACHE_DIR", "TORCHINDUCTOR_CACHE_DIR", "TRITON_CACHE_DIR")


def guard_std_streams() -> None:
    """Reopen closed standard descriptors (0, 1, 2) on ``/dev/null``."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            try:
                opened = os.open(os.devnull, os.O_RDWR)
            except OSError:
                return
            if opened != fd:
                os.dup2(opened, fd)
                os.close(opened)


def _silence(fd: int) -> None:
    """Point ``fd`` at ``/dev/null`` so that later writes, and Python's flush at exit, succeed."""
    with contextlib.suppress(OSError):
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, fd)
        os.close(null)


class QuietStreamHandler(logging.StreamHandler):  # type: ignore[type-arg]  # generic only in typeshed
    """A ``StreamHandler`` that stops writing, silently, at the first failure of its stream."""

    def emit(self, record: logging.LogRecord) -> None:
        if self.stream is None:
            return
        try:
            msg = self.format(record)
            self.stream.write(msg + self.terminator)
            self.flush()
        except RecursionError:
            raise
        except Exception:
            self._give_up()

    def flush(self) -> None:
        try:
            super().flush()
        except Exception:
            self._give_up()

    def _give_up(self) -> None:
        stream, self.stream = self.stream, None
        with contextlib.suppress(Exception):
            _silence(stream.fileno())


def console_handler() -> logging.Handler:
    """The run's console log handler: stderr while it works, nothing once it does not."""
    if sys.stderr is None:
        return logging.NullHandler()
    return QuietStreamHandler(sys.stderr)


def say(*lines: str) -> None:
    """Print ``lines`` on stdout; a missing, closed or broken stdout is ignored."""
    stream = sys.stdout
    if stream is None:
        return
    try:
        for line in lines:
            stream.write(line + "\n")
        stream.flush()
    except (OSError, ValueError):
        with contextlib.suppress(Exception):
            _silence(stream.fileno())


def exit_now(code: int) -> None:
    """End the process with ``code`` at once: exit handlers run and the streams are flushed,
    but the interpreter's teardown of the loaded libraries is skipped (torch alone takes a
    second, the default trunk two or three on a busy machine). For a run that must stop
    quickly (a signal, the time budget spent)."""
    with contextlib.suppress(Exception):
        atexit._run_exitfuncs()  # logging.shutdown among them
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            if stream is not None:
                stream.flush()
    os._exit(code)


def set_threads(threads: int) -> None:
    """torch's CPU threads for the run (0: every core)."""
    import torch

    torch.set_num_threads(threads or os.cpu_count() or 1)


def _usable_temp_dir() -> bool:
    try:
        tempfile.gettempdir()  # tries each candidate by creating a file in it
    except (OSError, FileNotFoundError):
        return False
    return True


def _usable_home() -> bool:
    home = os.path.expanduser("~")
    return not home.startswith("~") and os.path.isdir(home) and os.access(home, os.W_OK)


SCRATCH_PREFIX = ".fusionbrain-scratch-"


def _make_scratch(out_dir: Path) -> Path | None:
    from core.io.writing import process_token

    out_dir = Path(out_dir).absolute()
    for where in (out_dir.parent, out_dir):
        try:
            where.mkdir(parents=True, exist_ok=True)
            return Path(tempfile.mkdtemp(prefix=f"{SCRATCH_PREFIX}{process_token()}-", dir=where))
        except OSError:
            continue
    return None


def remove_abandoned_scratch(out_dir: Path) -> None:
    """Remove the scratch folders that runs killed outright left beside ``out_dir`` (logged); a live
    run's folder, and every other file, are left alone."""
    import re

    from core.io.writing import owner_alive

    pattern = re.compile(re.escape(SCRATCH_PREFIX) + r"(?P<pid>\d+)-(?P<start>\d+)-[A-Za-z0-9_]+$")
    out_dir = Path(out_dir).absolute()
    for where in (out_dir.parent, out_dir):
        try:
            names = os.listdir(where)
        except OSError:
            continue
        for name in names:
            match = pattern.match(name)
            if match is None or owner_alive(int(match["pid"]), int(match["start"])):
                continue
            path = where / name
            if path.is_dir() and not path.is_symlink():
                log.warning("removing %s, the scratch folder of a run that was killed (pid %s)", path, match["pid"])
                shutil.rmtree(path, ignore_errors=True)


@contextlib.contextmanager
def scratch_space(out_dir: Path) -> Iterator[Path | None]:
    """A private folder for temporary files and caches when the machine offers none (see module doc).

    Yields the folder, or None when the usual places work (then nothing is changed).
    Sets ``tempfile.tempdir`` and ``TMPDIR`` (no usable temporary folder) and the unset
    ``CACHE_VARIABLES`` (no usable home either); restores them and removes the folder on exit
    (a hard exit of the current run, ``core.stop``, removes it too).
    """
    from core import stop

    remove_abandoned_scratch(out_dir)
    need_temp = not _usable_temp_dir()
    need_home = not _usable_home()
    if not (need_temp or need_home):
        yield None
        return
    scratch = _make_scratch(out_dir)
    if scratch is None:
        log.warning("no writable temporary folder, and none can be made beside %s; caches stay off", out_dir)
        yield None
        return
    saved_env = {name: os.environ.get(name) for name in ("TMPDIR", *CACHE_VARIABLES)}
    saved_tempdir = tempfile.tempdir
    if need_temp:
        tempfile.tempdir = str(scratch)
        os.environ["TMPDIR"] = str(scratch)
    for name in CACHE_VARIABLES:
        os.environ.setdefault(name, str(scratch / name.lower()))
    log.info(
        "no usable %s: temporary files and library caches go to %s (removed at the end)",
        " and ".join(w for w, n in (("temporary folder", need_temp), ("home folder", need_home)) if n),
        scratch,
    )
    try:
        with stop.track_temporary(scratch):
            yield scratch
    finally:
        tempfile.tempdir = saved_tempdir
        for name, value in saved_env.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        shutil.rmtree(scratch, ignore_errors=True)
